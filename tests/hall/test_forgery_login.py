"""Forgeries from a board's own login (issue 29), on a broker set up as in production: passwords,
the shipped ACL, each login its client id. The forger has board 1's password: it can write only
board 1's topics and read none, and each time it connects the broker puts the real board 1 off
(one client id), which comes back and sends its game again. Between those, it sends what it can:
guessed numbers, a move that is no move, a result mid-game, a brace that would open a game of its
own in the feed, a bad tag name, NaN clocks, oversized and deeply nested payloads, a status with
200,000 games and statuses of runs that are not the board's. At the end both real games in the
hall are byte for byte the boards' exports, the feed holds only them, every state is strict JSON,
and the arbiter has seen the trouble (refused messages; two runs behind one id)."""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Any

from hall.broker import Mosquitto
from rules.pdn import read_pdn
from tests.conftest import shared_path, wait_until
from tests.hall.conftest import BoardProcess, HallProcess
from tests.hall.test_acl import ACL, Client, _passwd
from tests.hall.test_forgery import _strict


def test_forgeries_from_a_board_s_own_login_leave_the_games_and_feeds_intact(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    passwd = tmp_path / "passwd"
    _passwd(passwd, {"hall": "h-secret", "1": "secret-1", "2": "secret-2"})
    mosquitto.stop()
    mosquitto.extra = f"allow_anonymous false\npassword_file {passwd}\nacl_file {ACL}\nuse_username_as_clientid true\n"
    mosquitto.start()
    url = f"mqtt://%s@127.0.0.1:{mosquitto.port}"
    pdn = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")
    log = tmp_path / "hall.log"
    hall = HallProcess(tmp_path / "hall.sqlite3", url % "hall:h-secret", "--boards", "1,2", "--rounds", "1", log=log)
    hall.start()
    boards: list[BoardProcess] = []
    try:
        hall.post("/api/players", {"csv": "name\nAna\nBia\nCid\nDui\n"})
        hall.post("/api/pair", {"boards": ["1", "2"]})
        boards = [BoardProcess(tmp_path, str(i + 1), url % f"{i + 1}:secret-{i + 1}", pdn, i, 30, gap=0.1)
                  for i in range(2)]  # fmt: skip
        wait_until(lambda: (hall.get("/api/state")["boards"][0]["game"] or {}).get("plies", 0) >= 4, timeout=60,
                   what="board 1 to have played a few moves")  # fmt: skip
        game = int(hall.get("/api/state")["boards"][0]["game"]["id"].rsplit("-", 1)[1])

        def forge(sends: list[tuple[str, bytes | dict[str, Any]]]) -> None:
            """One bout: the forger logs in as board 1 (the broker puts the real board off, and the
            board, back a second later, puts the forger off in turn: what is not out by then is lost)."""
            forger = Client(mosquitto.port, "1", "secret-1")
            try:
                wait_until(lambda: forger.c.is_connected() or forger.refused is not None, what="the forger in")
                last = None
                for leaf, body in sends:
                    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                    last = forger.c.publish(f"damas/board/1/{leaf}", raw, qos=1)
                with contextlib.suppress(RuntimeError, ValueError):  # (put off before the end)
                    assert last is not None
                    last.wait_for_publish(5)
            finally:
                forger.close()

        def msg(seq: int, **fields: Any) -> dict[str, Any]:
            return {"board": "1", "game": game, "seq": seq, **fields}

        comment = '} 1-0\n\n[Event "FAKE"]\n[White "Mallory"]\n\n1. c3-d4 {'
        for round_ in range(4):
            seqs = range(5 + 4 * round_, 9 + 4 * round_)  # numbers the board is about to use, guessed
            forge(
                [("status", {"board": "1", "online": True, "boot": f"mallory{round_}", "games": {}})]
                + [("game", msg(s, type="move", step=s - 1, path="zz-99", move="zz")) for s in seqs]
                + [("game", msg(s, type="result", result="0-1", termination="resignation")) for s in seqs]
                + [("game", msg(s, type="tags", tags={"bad name": "x"}, intro=[])) for s in seqs]
                + [("game", msg(s, type="move", step=s - 1, path="c3-d4", comments=[comment])) for s in seqs]
                + [
                    ("game", json.dumps(msg(99, type="clock", black=1.0)).encode()[:-1] + b', "white": NaN}'),
                    ("game", b"[" * 100_000 + b"]" * 100_000),
                    ("game", b"x" * 300_000),
                    ("status", {"board": "1", "online": True, "games": {str(i): 1 for i in range(200_000)}}),
                ]
            )
            time.sleep(1.5)  # the real board comes back, plays on; then the next bout
        wait_until(lambda: all(b.done() for b in boards), timeout=120, what="both boards to finish their games")

        def equal() -> bool:
            return all(hall.get(f"/games/{b.board}-{b.export()[0]}.pdn") == b.export()[1] for b in boards)

        wait_until(equal, timeout=60, what="the hall's games to equal the boards' exports")
        live = hall.get("/live.pdn")
        assert len(read_pdn(live)) == 2 and "FAKE" not in live and "Mallory" not in live
        state = _strict(hall.get_text("/api/state"))
        assert [b["board"] for b in state["boards"]] == ["1", "2"] and all(b["game"]["sync"] for b in state["boards"])
        kinds = {(a["board"], a["kind"]) for a in state["alerts"]}
        assert ("1", "refused") in kinds and ("1", "duplicate-id") in kinds, kinds
        assert not any(board == "2" and kind in ("refused", "conflict") for board, kind in kinds)  # board 2 untouched
        assert "Traceback" not in log.read_text()
    finally:
        for b in boards:
            b.stop()
        hall.stop()
