"""The files behind the records: where they live by default, where a damaged database is
moved, and which files are never taken for a damas database."""

from __future__ import annotations

import errno
import json
import os
import sqlite3
from pathlib import Path

import pytest

from board_hal.debounce import Transition
from damas.records.session import GameSession
from damas.records.store import DamagedStore, Store, StoreError, default_path, journals_dir
from rules import Position
from tests.store.test_damage import build, play, tamper


def test_the_records_live_in_the_users_data_directory_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DAMAS_DB", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_path() == tmp_path / ".local" / "share" / "damas" / "games.sqlite3"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_path() == tmp_path / "data" / "damas" / "games.sqlite3"
    monkeypatch.setenv("DAMAS_DB", str(tmp_path / "mine.sqlite3"))
    assert default_path() == tmp_path / "mine.sqlite3"


def test_a_damaged_database_is_moved_aside_beside_itself(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    data = bytearray(db.read_bytes())
    data[4096 : 2 * 4096] = b"\xa5" * 4096  # a page of garbage
    db.write_bytes(bytes(data))
    with Store(db, exclusive=True, quarantine=True) as store:
        assert store.quarantined is not None
        aside, _why = store.quarantined
    assert aside.parent == db.parent and aside.name.startswith("g.sqlite3.damaged-"), aside
    assert aside.read_bytes() == bytes(data)
    with Store(db) as store:  # and an empty database in its place
        assert store.games() == []


def test_a_file_that_is_not_sqlite_is_never_moved_aside(tmp_path: Path) -> None:
    # a user's notes given as --db by mistake, beside a folder that looks like journal copies
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n" * 1000, encoding="utf-8")
    journals_dir(notes).mkdir()
    with pytest.raises(DamagedStore, match="not a usable damas database"):
        Store(notes, exclusive=True, quarantine=True)
    assert notes.read_text(encoding="utf-8") == "my notes\n" * 1000
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["notes.txt", "notes.txt.journals"])


def test_a_new_database_gets_the_folders_it_needs(tmp_path: Path) -> None:
    # a first start on a fresh system: ~/.local/share (and damas/ in it) may not exist yet
    db = tmp_path / ".local" / "share" / "damas" / "games.sqlite3"
    with Store(db) as store:
        assert store.games() == []
    assert db.is_file()


def test_a_game_whose_stored_fields_are_unreadable_says_which_and_keeps_what_is_known(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(
        db,
        "UPDATE games SET header='[1, 2', tags='{\"Black\": ' WHERE id=3",
        "UPDATE games SET ended='yesterday' WHERE id=1",
    )
    with Store(db) as store:
        row = store.game(3)
    assert row.damage == ["its tags are not readable", "its header fields are not readable"]
    # the log header is rebuilt from the row's own columns
    assert row.header == {"format": 1, "variant": "brazilian", "fen": None, "mode": "tournament"}
    assert row.tags == {}
    with Store(db) as store:
        assert store.game(1).ended is None  # not a time: not taken for one


def test_a_new_game_never_overwrites_a_copy_left_by_a_lost_game(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    lost = copy.read_bytes()
    # the database loses game 3's row (but not its copy): the next game gets id 3 again
    tamper(
        db,
        "DELETE FROM journal WHERE game_id=3",
        "DELETE FROM moves WHERE game_id=3",
        "DELETE FROM games WHERE id=3",
    )
    with Store(db) as store:
        s = GameSession.start(store, "brazilian", None, "casual", Position.start("brazilian").occupied(), {})
        assert s.row.id == 3
    orphans = list(journals_dir(db).glob("3.*.orphan.jsonl"))
    assert len(orphans) == 1 and orphans[0].read_bytes() == lost
    assert copy.read_bytes() != lost  # the new game's own copy


def test_the_copies_live_in_a_folder_named_after_the_database(tmp_path: Path) -> None:
    # the layout a backup or `damas recover --from` relies on: <db>.journals/<id>.jsonl
    db = tmp_path / "g.sqlite3"
    build(db)
    assert sorted(p.name for p in (tmp_path / "g.sqlite3.journals").glob("*.jsonl")) == [
        "1.jsonl",
        "2.jsonl",
        "3.jsonl",
    ]


def test_a_failed_write_leaves_the_copy_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    before = copy.read_bytes()

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    with Store(db) as store:
        monkeypatch.setattr(os, "fsync", full)  # the disk fills up as the copy's line is written
        with pytest.raises(StoreError, match=r"3\.jsonl: cannot write: No space left on device"):
            store.append(3, 8, {"t": 3004.0, "square": 23, "event": "lift"})
        monkeypatch.undo()
    # no half line (nor the whole one, not durable) is left for the next append to follow
    assert copy.read_bytes() == before


def test_the_moves_table_holds_each_move_its_squares_captures_and_time(tmp_path: Path) -> None:
    # the records other programs read straight from SQLite: moves with times (DESIGN.md §6)
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        s = GameSession.start(store, "brazilian", None, "casual", Position.start("brazilian").occupied(), {})
        t = play(s, [(22, 18), (9, 14)], 100.0)
        for tr in (Transition(t, 18, False), Transition(t + 0.3, 14, False), Transition(t + 0.6, 9, True)):
            s.feed(tr)
        s.tick(t + 3)
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT ply, from_sq, to_sq, captured, t FROM moves ORDER BY ply").fetchall()
    con.close()
    assert [(ply, a, b, json.loads(c)) for ply, a, b, c, _t in rows] == [
        (1, 22, 18, []),
        (2, 9, 14, []),
        (3, 18, 9, [14]),
    ]
    assert [round(r[4], 1) for r in rows] == [100.3, 101.3, round(t + 0.6, 1)]


def test_probe_checks_that_the_database_and_the_copies_can_be_written(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        store.probe()  # writable: no error, and no probe file left behind
        assert list(store.journals.iterdir()) == []
        store.journals.rmdir()
        store.journals.write_text("a file where the copies' folder should be", encoding="utf-8")
        with pytest.raises(StoreError, match=r"g\.sqlite3\.journals: cannot write: "):
            store.probe()


def test_a_damaged_journal_row_is_named_by_its_game_and_seq(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(
        db,
        "UPDATE journal SET event='[1, 2]' WHERE game_id=3 AND seq=2",
        "UPDATE journal SET seq='two' WHERE game_id=2 AND seq=1",
    )
    with Store(db) as store:
        with pytest.raises(StoreError, match=r"^game 3: journal row 2 is damaged \(not a JSON object\)$"):
            list(store.journal(3))
        with pytest.raises(StoreError, match=r"^game 2: its journal rows are damaged$"):
            store.journal_rows(2)
