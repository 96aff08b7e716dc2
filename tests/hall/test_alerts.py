"""The arbiter's alerts, from what the boards send: an illegal-move report until the board is
restored, a flag fallen, a board offline, a game out of sync (a gap the hall asks to be filled)."""

from __future__ import annotations

import json
from pathlib import Path

from hall.app import Hall
from hall.store import HallStore

START = {"type": "start", "variant": "brazilian", "fen": None, "mode": "tournament", "intro": []}


def _send(hall: Hall, board: str, seq: int, msg: dict[str, object], game: int = 1) -> None:
    hall.receive(f"damas/board/{board}/game", json.dumps({**msg, "board": board, "game": game, "seq": seq}).encode())


def _kinds(hall: Hall) -> list[tuple[str, str]]:
    return [(a["board"], a["kind"]) for a in hall.alerts()]


def test_alerts_come_and_go_with_what_the_boards_send(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        now = [1000.0]
        hall = Hall(store, None, token="t", clock=lambda: now[0])
        _send(hall, "3", 0, {**START, "tags": {"White": "Ana", "Black": "Bia"}, "control": "21"})
        assert _kinds(hall) == []
        report = {"type": "report", "kind": "backward-man", "message": "a man moved backward", "squares": [9], "t": 5}
        _send(hall, "3", 1, report)
        assert _kinds(hall) == [("3", "backward-man")]
        assert "a man moved backward" in hall.alerts()[0]["message"]
        _send(hall, "3", 2, {"type": "report", "kind": "restored", "message": "ok", "squares": [], "t": 6})
        assert _kinds(hall) == []
        # Black thinks: its clock runs on at the hall, and its flag falls after 21 minutes (FENACEF Art. 4)
        move = {"type": "move", "step": 0, "ply": 1, "move": "c3-d4", "path": "c3-d4", "comments": [], "t": now[0]}
        _send(
            hall,
            "3",
            3,
            {
                **move,
                "clock": {"white": 10.0, "black": 0.0},
                "clocks": {"white": 1250, "black": 1260, "running": "black"},
            },
        )
        now[0] += 1259
        assert _kinds(hall) == []
        now[0] += 2
        assert _kinds(hall) == [("3", "flag")] and "Black's flag fell" in hall.alerts()[0]["message"]
        # a message lost on the way: the game is out of sync and the board is asked from seq 4
        _send(hall, "3", 5, {"type": "result", "result": "0-1", "termination": "resignation"})
        assert ("3", "out-of-sync") in _kinds(hall)
        assert hall.asked[("3", 1)][0] == 4
        assert hall.games[("3", 1)].result == "*"  # not folded before the gap is filled
        _send(hall, "3", 4, {"type": "tags", "tags": {"White": "Ana", "Black": "Bia", "Round": "1"}, "intro": []})
        assert hall.games[("3", 1)].result == "0-1" and _kinds(hall) == []
        # a board that goes away (its last will)
        hall.receive("damas/board/3/status", json.dumps({"board": "3", "online": False}).encode())
        assert _kinds(hall) == [("3", "offline")]
        # a status naming more of a game than the hall has: it asks for the rest
        hall.receive("damas/board/4/status", json.dumps({"board": "4", "online": True, "games": {"2": 7}}).encode())
        assert hall.asked[("4", 2)][0] == 0
        hall.receive(
            "damas/board/4/status", json.dumps({"board": "4", "online": True, "game": 2, "games": {"2": 7}}).encode()
        )
        assert ("4", "out-of-sync") in _kinds(hall)  # the board's game has messages the hall has not got
        # after a restart the hall has it all again, from its own database
        again = Hall(store, None, token="t")
        assert again.games[("3", 1)].pdn() == hall.games[("3", 1)].pdn()
        assert _kinds(again) == [("3", "offline"), ("4", "out-of-sync")]  # (board 4's game 2 is still missing)
    finally:
        store.close()
