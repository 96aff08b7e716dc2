"""Forged, malformed, replayed, oversized and out-of-range messages (issue 29) against real boards
(``tests.hall.board_sim``: the real PlayApp, store and publisher) playing through a real Mosquitto
to ``damas hall``: a forger on the quick start's anonymous broker follows board 1's messages and
sends its own with the numbers the board is about to use — a malformed move, an illegal move that
withdraws the whole game, a legal move of its own, a result mid-game, a far number, a brace in a
comment that would open a game of its own in the feed, a bad tag name, NaN and 1e999 clocks,
a status naming 200,000 games, numbers of 31 digits, JSON nested 100,000 deep, a board of its own
and an assignment of its own. At the end every game in the hall is byte for byte the board's export,
the feeds hold only the real games, every spectator's state is strict JSON, each kind of trouble is
one alert, and the pairing holds the board's real result."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from hall.broker import Mosquitto
from hall.games import HallGame
from hall.protocol import Broker, new_client
from rules.pdn import read_pdn
from tests.conftest import shared_path, wait_until
from tests.hall.conftest import BoardProcess, HallProcess


def _strict(text: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in the hall's JSON")

    return json.loads(text, parse_constant=refuse)


class Forger:
    """An MQTT client that reads what board 1 sends (the anonymous broker lets it) and writes its own."""

    def __init__(self, port: int) -> None:
        self.game: HallGame | None = None
        self.last = -1
        self.lock = threading.Lock()
        self.sent: set[bytes] = set()  # (what it reads back of its own is not the board's)
        self.ready = threading.Event()
        self.c = new_client(Broker("127.0.0.1", port), "forger")
        self.c.on_connect = lambda c, *_a: c.subscribe("damas/board/1/game", 1)
        self.c.on_subscribe = lambda *_a: self.ready.set()
        self.c.on_message = self._got
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert self.ready.wait(10)

    def _got(self, _c: object, _u: object, m: mqtt.MQTTMessage) -> None:
        if bytes(m.payload) in self.sent:
            return
        data = json.loads(m.payload)
        with self.lock:
            if self.game is None or data["game"] != self.game.game:
                if data["seq"] != 0:
                    return
                self.game = HallGame("1", data["game"])
            self.game.offer(data)
            self.last = self.game.next_seq - 1

    def send(self, payload: bytes | dict[str, Any], topic: str = "damas/board/1/game") -> None:
        body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.sent.add(body)
        self.c.publish(topic, body, qos=1).wait_for_publish(5)

    def next(self, **fields: Any) -> dict[str, Any]:
        """A message of board 1's game with the number the board uses next."""
        with self.lock:
            assert self.game is not None
            return {"board": "1", "game": self.game.game, "seq": self.last + 1, **fields}

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_forgeries_leave_every_game_feed_and_page_intact_and_are_each_reported_once(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    pdn = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")
    log = tmp_path / "hall.log"
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--boards", "1,2", "--rounds", "1", log=log).start()
    forger = Forger(mosquitto.port)
    boards: list[BoardProcess] = []
    try:
        hall.post("/api/players", {"csv": "name\nAna\nBia\nCid\nDui\n"})
        hall.post("/api/pair", {"boards": ["1", "2"]})
        boards = [BoardProcess(tmp_path, str(i + 1), mosquitto.url, pdn, i, 40, gap=0.08) for i in range(2)]
        wait_until(lambda: forger.last >= 6, timeout=60, what="board 1 to have played a few moves")
        with forger.lock:
            assert forger.game is not None
            pos = forger.game.position()
            steps = len(forger.game.steps)
        legal = next(iter(pos.legal_moves))
        forger.send(forger.next(type="move", step=steps, path="zz-99", move="zz"))  # malformed
        forger.send(forger.next(type="move", step=0, path="a1-a2", move="a1-a2"))  # illegal, withdrawing all
        forger.send(forger.next(type="move", step=steps, path=pos.pdn(legal, full=True), move=pos.pdn(legal)))
        forger.send(forger.next(type="result", result="0-1", termination="resignation"))  # a result mid-game
        forger.send({**forger.next(type="result", result="0-1"), "seq": 999_999})  # far ahead
        wait_until(lambda: forger.last >= 16, timeout=60, what="board 1 to play on")
        comment = '} 1-0\n\n[Event "FAKE"]\n[White "Mallory"]\n\n1. c3-d4 {'
        with forger.lock:
            assert forger.game is not None
            pos, steps = forger.game.position(), len(forger.game.steps)
        legal = next(iter(pos.legal_moves))
        forger.send(forger.next(type="move", step=steps, path=pos.pdn(legal, full=True), comments=[comment]))
        forger.send(forger.next(type="tags", tags={"bad name": "x", "White": "Ana"}, intro=[]))
        for number in (b"1e999", b"NaN", b"Infinity", b"-1e400"):  # clocks that are no number
            forger.send(json.dumps(forger.next(type="clock", black=1.0)).encode()[:-1] + b', "white": ' + number + b"}")
        forger.send(forger.next(type="clock", white=1.0, black=1.0) | {"seq": 10**30})
        forger.send(b"[" * 100_000 + b"]" * 100_000)
        forger.send(b'{"board": "1", "seq": ' + b"9" * 5000 + b"}")
        forger.send(b"x" * 300_000)
        status = {"board": "1", "online": True, "games": {str(i): 1 for i in range(200_000)}}
        forger.send(status, "damas/board/1/status")
        forger.send({"board": "mallory", "game": 1, "seq": 0, "type": "start", "variant": "brazilian", "tags": {}},
                    "damas/board/mallory/game")  # fmt: skip
        forger.send({"round": 1, "table": 1, "white": "Mallory", "black": "Eve", "event": ""}, "damas/control/1/assign")
        wait_until(lambda: all(p.done() for p in boards), timeout=120, what="both boards to finish their games")

        def equal() -> bool:
            return all(hall.get(f"/games/{p.board}-{p.export()[0]}.pdn") == p.export()[1] for p in boards)

        try:
            wait_until(equal, timeout=60, what="the hall's games to equal the boards' exports")
        except AssertionError:
            for p in boards:  # (which board, and how it differs)
                gid, text = p.export()
                assert hall.get(f"/games/{p.board}-{gid}.pdn") == text, f"board {p.board}"
            raise
        live = hall.get("/live.pdn")
        assert len(load_pdn_text(live)) == 2 and "FAKE" not in live and "Mallory" not in live
        state = _strict(hall.get_text("/api/state"))
        assert [b["board"] for b in state["boards"]] == ["1", "2"]  # no board of the forger's
        assert all(b["game"]["sync"] for b in state["boards"])
        kinds = [(a["board"], a["kind"]) for a in state["alerts"]]
        assert len(kinds) == len(set(kinds)), kinds  # each kind of trouble once
        assert ("1", "refused") in kinds and ("1", "conflict") in kinds and ("mallory", "unknown-board") in kinds
        assert ("1", "assignment") in kinds
        refused = next(a for a in state["alerts"] if a["kind"] == "refused" and a["board"] == "1")
        assert refused["count"] >= 8
        real = {p.board: load_pdn_text(p.export()[1])[0].result for p in boards}
        pairings = {p["board"]: p for p in state["pairings"]}
        for board, result in real.items():  # the pairing has the board's real result, not the forger's 0-1
            expected = {"1-0": "2-0", "2-0": "2-0", "0-1": "0-2", "0-2": "0-2"}.get(result, "1-1")
            white_first = pairings[board]["white"] == load_pdn_text(boards[int(board) - 1].export()[1])[0].tags["White"]
            assert pairings[board]["result"] == (expected if white_first else expected[::-1]), (board, result)
        assert "Traceback" not in log.read_text()
        hall.stop()
        hall.start()  # nothing stored breaks the feeds after a restart either
        assert hall.get("/live.pdn") == live
        _strict(hall.get_text("/api/state"))
    finally:
        for p in boards:
            p.stop()
        forger.close()
        hall.stop()


def load_pdn_text(text: str) -> list[Any]:
    return read_pdn(text)
