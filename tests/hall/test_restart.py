"""A hall restart reads each game's current state (its snapshot, written with every message)
instead of replaying every stored message: the games come back equal (PDN, position, clocks,
a message waiting behind a gap); a database from before the snapshots is rebuilt once; a
snapshot that cannot be read is rebuilt from that game's messages."""

from __future__ import annotations

import json
from pathlib import Path

from hall.app import Hall
from hall.store import HallStore
from rules import Position
from rules.pdn import load_pdn
from tests.conftest import shared_path


def _play(hall: Hall, board: str, game: int, moves: int, index: int) -> None:
    """A game of the test data sent as a board sends it (start, moves, a clock, the result)."""
    pg = load_pdn(shared_path("games", "brazilian", "lidraughts-brazilian.pdn"))[index]
    msgs: list[dict[str, object]] = [
        {"type": "start", "variant": "brazilian", "fen": None, "mode": "tournament", "intro": [],
         "tags": {"White": pg.tags.get("White", "?"), "Black": "B", "TimeControl": "1260"}, "control": "21",
         "clocks": {"white": 1260, "black": 1260}}
    ]  # fmt: skip
    pos = Position.start("brazilian")
    for i, pm in enumerate(pg.moves[:moves]):
        clocks = {"white": 1260 - i, "black": 1260 - i, "running": pos.turn.other.value}
        msgs.append(
            {"type": "move", "step": i, "ply": i + 1, "move": pos.pdn(pm.move), "path": pos.pdn(pm.move, full=True),
             "comments": [f"[%clock w0:21:{i % 60:02d} b0:20:00]"], "t": 100.0 + i, "control": "21", "clocks": clocks}
        )  # fmt: skip
        pos = pos.apply(pm.move)
    msgs.append({"type": "clock", "t": 200.0, "white": 1000, "black": 900, "running": None, "paused": True})
    for seq, m in enumerate(msgs):
        hall.receive(f"damas/board/{board}/game", json.dumps({**m, "board": board, "game": game, "seq": seq}).encode())


def _same(a: Hall, b: Hall) -> None:
    assert set(a.games) == set(b.games)
    for key, g in a.games.items():
        h = b.games[key]
        assert h.pdn() == g.pdn() and h.position() == g.position() and h.next_seq == g.next_seq
        assert (h.pending, h.faces(300.0), h.reports, h.tags) == (g.pending, g.faces(300.0), g.reports, g.tags)
    assert a.state() | {"version": 0, "boot": ""} == b.state() | {"version": 0, "boot": ""}


def test_a_restart_reads_the_games_as_they_stand_without_replaying(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        hall = Hall(store, None, token="t", clock=lambda: 300.0)
        _play(hall, "1", 4, 30, 0)
        _play(hall, "2", 7, 20, 1)
        late = {"type": "result", "result": "2-0", "termination": "resignation", "board": "2", "game": 7, "seq": 99}
        hall.receive("damas/board/2/game", json.dumps(late).encode())  # waits behind a gap
        assert hall.games[("2", 7)].pending
        again = Hall(store, None, token="t", clock=lambda: 300.0)
        _same(hall, again)
        # it is the snapshots that come back: without the messages, the games are all there
        store.db.execute("DELETE FROM messages")
        _same(hall, Hall(store, None, token="t", clock=lambda: 300.0))
    finally:
        store.close()


def test_a_database_from_before_the_snapshots_and_a_broken_snapshot_are_rebuilt(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        hall = Hall(store, None, token="t", clock=lambda: 300.0)
        _play(hall, "1", 4, 30, 0)
        _play(hall, "2", 7, 12, 2)
        store.db.execute("DELETE FROM games")  # the hall's database as the first hall wrote it
        store.db.execute("DELETE FROM meta WHERE key='snapshots'")
        _same(hall, Hall(store, None, token="t", clock=lambda: 300.0))
        assert store.db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2  # written once, read from now on
        store.db.execute("UPDATE games SET state='{\"v\": 1}' WHERE board='2'")
        _same(hall, Hall(store, None, token="t", clock=lambda: 300.0))
        assert json.loads(store.db.execute("SELECT state FROM games WHERE board='2'").fetchone()[0])["steps"]
    finally:
        store.close()


def test_the_position_kept_up_to_date_through_withdrawals_is_the_replayed_one() -> None:
    """The hall keeps each game's position as moves come (and steps back one for a move sent again
    with its clock) instead of replaying the game for every message: always the replayed one."""
    from hall.games import HallGame

    pg = load_pdn(shared_path("games", "brazilian", "lidraughts-brazilian.pdn"))[3]
    g = HallGame("1", 1)
    seq = 0

    def send(m: dict[str, object]) -> None:
        nonlocal seq
        assert g.add({**m, "seq": seq}) and g.error is None, g.error
        seq += 1
        replayed = Position.start("brazilian")
        for _k, move, _c, _t in g.steps:
            replayed = replayed.apply(move)
        assert g.position() == replayed

    send({"type": "start", "variant": "brazilian", "fen": None, "mode": "casual", "tags": {}, "intro": []})
    pos = Position.start("brazilian")
    history = [pos]
    for i, pm in enumerate(pg.moves[:16]):
        move = {"type": "move", "step": i, "path": pos.pdn(pm.move, full=True), "comments": []}
        send(move)
        if i % 3 == 1:  # sent again (its clock comment changed): back one step, and the move again
            send({"type": "undo", "steps": i})
            send({**move, "comments": ["[%clock w0:01:00 b0:01:00]"]})
        if i % 5 == 4:  # two moves withdrawn, then played again
            send({"type": "undo", "steps": i - 1})
            for j in (i - 1, i):
                p = history[j]
                send({"type": "move", "step": j, "path": p.pdn(pg.moves[j].move, full=True), "comments": []})
        pos = pos.apply(pm.move)
        history.append(pos)
    assert g.plies == 16
