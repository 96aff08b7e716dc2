"""Who is behind a board id (issue 29): a board with a fresh database (a replaced SD card) numbers
its games from 1 again — the hall keeps the games it had (as ``<board>.sdN``, still found for their
pairings) beside the new ones, with an alert, where it used to drop the new ones as duplicates; two
boards with one id, taking turns on the broker, are one alert."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hall.app import Hall
from hall.store import HallStore
from rules import Position


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _game(hall: Hall, board: str, game: int, db: str, plies: int, round_no: str) -> list[dict[str, Any]]:
    """A board's status and one game of ``plies`` moves, as ``damas play --broker`` sends them
    (returned: the messages, for the board's answers to the hall)."""
    status = {"board": board, "online": True, "game": game, "games": {str(game): plies}, "db": db, "boot": db + "run"}
    hall.receive(f"damas/board/{board}/status", json.dumps(status).encode())
    uid = f"{db}-{game}"
    tags = {"Round": round_no, "White": f"W{db}", "Black": f"B{db}"}
    msgs: list[dict[str, Any]] = [{"type": "start", "variant": "brazilian", "tags": tags, "intro": []}]
    pos = Position.start("brazilian")
    for i in range(plies):
        move = sorted(pos.legal_moves, key=lambda m: m.path)[0]
        msgs.append({"type": "move", "step": i, "path": pos.pdn(move, full=True), "move": pos.pdn(move)})
        pos = pos.apply(move)
    out = [{**m, "board": board, "game": game, "seq": seq, "uid": uid} for seq, m in enumerate(msgs)]
    for body in out:
        hall.receive(f"damas/board/{board}/game", json.dumps(body).encode())
    return out


def _answer(hall: Hall, msgs: list[dict[str, Any]]) -> bool:
    """The board answers the hall's resync of its game (``{"resend": game, "from": 0, "resync":
    mark}`` on its control topic): its messages again, each with the mark. False: none asked for."""
    mark = hall.resyncs.get((msgs[0]["board"], msgs[0]["game"]))
    for body in msgs if mark is not None else []:
        hall.receive(f"damas/board/{body['board']}/game", json.dumps({**body, "resync": mark}).encode())
    return mark is not None


def test_a_fresh_database_keeps_the_old_games_beside_the_new_ones(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        hall = Hall(store, None, clock=Clock())
        hall.store.add_player("Ana")
        hall.store.add_player("Bia")
        (p,) = hall.pair_next(["7"])
        _game(hall, "7", 1, "oldcard1", 6, "1")
        old = hall.games[("7", 1)].pdn()
        assert hall.game_for(p) is hall.games[("7", 1)]
        new = _game(hall, "7", 1, "newcard2", 3, "2")  # the same board id and game number, another database
        assert hall.games[("7", 1)].pdn() == old and ("7.sd1", 1) not in hall.games  # only said: nothing moved
        assert _answer(hall, new)  # the board's own answer to the hall's question (its control topic)
        assert hall.games[("7.sd1", 1)].pdn() == old  # nothing of the old game lost
        assert hall.games[("7", 1)].plies == 3 and hall.games[("7", 1)].tags["White"] == "Wnewcard2"
        assert hall.game_for(p) is hall.games[("7.sd1", 1)]  # round 1's game: on the old card
        assert hall.board_ids() == ["7"]  # (the old card is no board of its own on the page)
        kinds = [(a["board"], a["kind"]) for a in hall.alerts()]
        assert ("7", "new-database") in kinds and ("7", "conflict") not in kinds and ("7", "refused") not in kinds
        store.close()
        store = HallStore(tmp_path / "hall.sqlite3")
        again = Hall(store, None, clock=Clock())  # a restart keeps it all
        assert again.games[("7.sd1", 1)].pdn() == old and again.board_ids() == ["7"]
        back = _game(again, "7", 1, "oldcard1", 6, "1")  # the old card back: asked first, then set aside too
        assert ("7.sd2", 1) not in again.games and again.games[("7", 1)].plies == 3
        assert _answer(again, back)
        assert again.games[("7.sd2", 1)].plies == 3 and again.games[("7", 1)].pdn() == old  # nothing lost
    finally:
        store.close()


def test_a_forged_status_or_game_naming_another_database_moves_nothing(tmp_path: Path) -> None:
    """Anyone who can write a board's topics (on the anonymous broker: anyone) can say the board
    has a new database; the hall only asks the board, and the board's own answer keeps its games."""
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        hall = Hall(store, None, clock=Clock())
        real = _game(hall, "7", 1, "realcard", 8, "1")
        before = hall.games[("7", 1)].pdn()
        forged = {"board": "7", "online": True, "game": 1, "games": {"1": 0}, "db": "forgedcard", "boot": "mallory1"}
        hall.receive("damas/board/7/status", json.dumps(forged).encode())
        start = {**real[0], "uid": "forgedcard-1", "tags": {"White": "Mallory"}}
        hall.receive("damas/board/7/game", json.dumps(start).encode())  # its game 1, from "another card"
        move = {**real[3], "uid": "forgedcard-1", "seq": 9, "step": 8}
        hall.receive("damas/board/7/game", json.dumps(move).encode())
        assert list(hall.games) == [("7", 1)] and hall.games[("7", 1)].pdn() == before and not hall.archived
        assert ("7", 1) in hall.resyncs  # the board is asked
        assert _answer(hall, real)  # and answers from its own database
        assert list(hall.games) == [("7", 1)] and hall.games[("7", 1)].pdn() == before and not hall.archived
        kinds = [(a["board"], a["kind"]) for a in hall.alerts()]
        assert kinds == [("7", "identity")], kinds  # said once
        assert "forgedcard" in hall.alerts()[0]["message"] and "nothing was moved" in hall.alerts()[0]["message"]
        # a game number the board has not used yet, started by the forger from "another card":
        fake = {**real[0], "game": 2, "uid": "forgedcard-2", "tags": {"White": "Mallory"}}
        hall.receive("damas/board/7/game", json.dumps(fake).encode())
        assert hall.games[("7", 2)].tags == {"White": "Mallory"}
        game2 = _game(hall, "7", 2, "realcard", 4, "1")  # the board's own game 2: the hall asks it
        assert _answer(hall, game2)
        assert hall.games[("7", 2)].plies == 4 and hall.games[("7", 2)].tags["White"] == "Wrealcard"  # the board's
        assert hall.games[("7", 1)].pdn() == before and not hall.archived  # and nothing set aside
    finally:
        store.close()


def test_two_boards_with_one_id_taking_turns_are_one_alert(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    clock = Clock()
    try:
        hall = Hall(store, None, clock=clock)

        def status(boot: str) -> None:
            data = {"board": "9", "online": True, "db": "samecard", "boot": boot}
            hall.receive("damas/board/9/status", json.dumps(data).encode())
            clock.now += 2

        for boot in ("runA0001", "runB0001"):  # a board restarted once: no alert
            status(boot)
        assert not any(a["kind"] == "duplicate-id" for a in hall.alerts())
        for boot in ("runA0001", "runB0001", "runA0001", "runB0001"):  # two runs taking turns
            status(boot)
        alerts = [a for a in hall.alerts() if a["kind"] == "duplicate-id"]
        assert len(alerts) == 1 and "two boards use the id 9" in alerts[0]["message"]
    finally:
        store.close()


def test_a_board_silent_in_a_game_in_play_is_an_alert_until_it_moves_again(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    clock = Clock()
    try:
        hall = Hall(store, None, clock=clock)
        _game(hall, "5", 2, "card5555", 4, "1")
        hall.check_gaps()
        assert not [a for a in hall.alerts() if a["kind"] == "stalled"]
        clock.now += 599
        hall.check_gaps()
        assert not [a for a in hall.alerts() if a["kind"] == "stalled"]
        version = hall.version
        clock.now += 2  # ten minutes without a word from board 5, its game in play
        hall.check_gaps()
        (alert,) = [a for a in hall.alerts() if a["kind"] == "stalled"]
        assert alert["board"] == "5" and "no move for 10 minutes" in alert["message"]
        assert hall.version > version  # (the pages hear of it without waiting for another change)
        g = hall.games[("5", 2)]
        pos = g.position()
        move = sorted(pos.legal_moves, key=lambda m: m.path)[0]
        body = {"board": "5", "game": 2, "seq": g.next_seq, "type": "move", "step": len(g.steps),
                "path": pos.pdn(move, full=True), "move": pos.pdn(move)}  # fmt: skip
        hall.receive("damas/board/5/game", json.dumps(body).encode())
        hall.check_gaps()
        assert not [a for a in hall.alerts() if a["kind"] == "stalled"]
        hall.receive("damas/board/5/status", json.dumps({"board": "5", "online": False}).encode())
        clock.now += 1000
        hall.check_gaps()  # offline is an alert of its own, not this one
        assert [a["kind"] for a in hall.alerts() if a["board"] == "5"] == ["offline"]
    finally:
        store.close()
