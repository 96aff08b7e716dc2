"""The store's promises that no other test reached (issue 19.7): a failed write changes
nothing (the transaction is rolled back; a failed journal write leaves the game as it was),
a database from a newer damas is refused in one line and left untouched, and events whose
time goes backwards (a Pi without a battery clock) are recorded in order."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from board_hal.debounce import Transition
from damas.records.session import GameSession
from damas.records.store import SCHEMA_VERSION, Store, StoreError
from rules import Position
from tests.conftest import damas, one_line_error


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "g.sqlite3") as s:
        yield s


def new_session(store: Store) -> GameSession:
    return GameSession.start(store, "brazilian", None, "casual", Position.start("brazilian").occupied(), {})


def test_a_failed_statement_rolls_the_whole_write_back(store: Store) -> None:
    s = new_session(store)
    store.record(s.row.id, moves=[(1, "c3-d4", 22, 18, [], 1.0)])
    # the second move cannot be stored (a number SQLite cannot hold): neither is, nor the report
    with pytest.raises(StoreError, match="cannot write"):
        store.record(
            s.row.id,
            moves=[(2, "f6-e5", 11, 15, [], 2.0), (3, "d4-f6", 18, 2**70, [], 3.0)],
            reports=[(2.0, "illegal", [15], "x")],
        )
    assert store.moves(s.row.id) == [(1, "c3-d4")]
    assert store._query("SELECT COUNT(*) FROM reports")[0][0] == 0
    store.record(s.row.id, moves=[(2, "f6-e5", 11, 15, [], 2.0)])  # the store is usable after it
    assert store.moves(s.row.id) == [(1, "c3-d4"), (2, "f6-e5")]


def test_a_failed_journal_write_changes_nothing(store: Store, tmp_path: Path) -> None:
    """Journal first: when the event cannot be written, it is not processed either."""
    s = new_session(store)
    s.feed(Transition(1.0, 22, False))
    s.tick(2.0)
    before = (s.seq, s.last_t, set(s.raw), len(s.history), s.referee.occupied, store.journal_length(s.row.id))
    assert 22 not in s.raw
    other = sqlite3.connect(tmp_path / "g.sqlite3", isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # another writer holds the database
        assert store.db is not None
        store.db.execute("PRAGMA busy_timeout=50")
        with pytest.raises(StoreError, match="cannot write"):
            s.feed(Transition(3.0, 18, True))  # c3-d4 would be complete
        after = (s.seq, s.last_t, set(s.raw), len(s.history), s.referee.occupied, store.journal_length(s.row.id))
        assert after == before
        assert s.tick(4.0) == [] and store.moves(s.row.id) == []
    finally:
        other.execute("ROLLBACK")
        other.close()
    s.feed(Transition(5.0, 18, True))  # written now: the move is made
    s.tick(6.0)
    assert store.moves(s.row.id) == [(1, "c3-d4")]
    assert [e["t"] for e in store.journal(s.row.id)] == [1.0, 5.0]


def test_time_going_backwards_is_clamped_in_the_records(store: Store) -> None:
    """A Pi without a battery clock may step its clock back (NTP arrives late): each event is
    recorded at no earlier time than the one before, a tick from the past judges nothing,
    and the move is judged and recorded as usual."""
    s = new_session(store)
    s.feed(Transition(1000.0, 22, False))
    assert s.tick(10.0) == []  # the clock went back: nothing is judged from the past
    s.feed(Transition(10.5, 18, True))  # placed "before" it was lifted
    s.tick(1000.2)
    events = list(store.journal(s.row.id))
    assert [(e["square"], e["event"], e["t"]) for e in events] == [(22, "lift", 1000.0), (18, "place", 1000.0)]
    rows = store._query("SELECT ply, pdn, t FROM moves WHERE game_id=?", (s.row.id,))
    assert [(ply, pdn) for ply, pdn, _t in rows] == [(1, "c3-d4")] and rows[0][2] >= 1000.0
    # the resumed game is the same: the journal replays in order
    again = GameSession.resume(store, store.game(s.row.id), now=1001.0)
    assert again.pdn_game().pdn() == s.pdn_game().pdn()


def test_a_database_from_a_newer_damas_is_refused_and_kept(tmp_path: Path) -> None:
    db = tmp_path / "newer.sqlite3"
    with Store(db) as store:
        new_session(store)
    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION + 1),))
    con.commit()
    con.close()
    content = db.read_bytes()
    for args in (("play", "--no-browser", "--port", "1"), ("export",), ("games",)):
        r = damas(*args, "--db", str(db))
        one_line_error(r, str(db), "newer damas", f"schema '{SCHEMA_VERSION + 1}'")
    assert db.read_bytes() == content  # not quarantined, not migrated: a newer damas still reads it
    assert not list(tmp_path.glob("*damaged*")) and sorted(p.name for p in tmp_path.iterdir())[0] == "newer.sqlite3"
