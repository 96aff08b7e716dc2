"""Every game's id across databases in its event log's header (issue 29, event-log format 3):
``<database id>-<game id>``, the id the board's messages to the tournament hall carry; a fresh
database (a new SD card) has another database id; a database whose hall link made its id before
keeps it; logs of formats 1 and 2 (games recorded before) still replay."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from damas.hall_link.publish import Publisher
from damas.records.recover import recover
from damas.records.session import GameSession, export_game, load_log
from damas.records.store import Store
from hall.protocol import Broker
from rules import Position
from tests.store.test_damage import GAME1, build, play, tamper

START = Position.start("brazilian").occupied()


def _header_line(store: Store, game: int) -> dict[str, object]:
    return dict(json.loads(store.copy_path(game).read_text().splitlines()[0]))


def test_a_new_game_s_log_names_its_uid_and_the_hall_link_sends_the_same(tmp_path: Path) -> None:
    with Store(tmp_path / "a.sqlite3") as store:
        s = GameSession.start(store, "brazilian", None, "casual", START, {"White": "Ana"})
        play(s, GAME1, 1000.0)
        db = store.database_id()
        row = store.game(s.row.id)
        assert row.header["format"] == 3 and row.header["uid"] == f"{db}-{s.row.id}"
        line = _header_line(store, s.row.id)  # the journal copy's header (``damas recover`` reads it)
        assert line["format"] == 3 and line["uid"] == row.header["uid"]
        header, events, problem = load_log(store, row)
        assert header.uid == row.header["uid"] and problem is None and len(events) == 6
        assert header.to_json()["uid"] == row.header["uid"]  # (``damas replay --game`` prints this header)
        publisher = Publisher(store, "7", Broker("127.0.0.1", 1))  # (not started: only its ids)
        assert publisher.db_id == db
        second = GameSession.start(store, "brazilian", None, "casual", START, {})
        assert store.game(second.row.id).header["uid"] == f"{db}-{second.row.id}"
    with Store(tmp_path / "b.sqlite3") as fresh:  # another card: another database id
        other = GameSession.start(fresh, "brazilian", None, "casual", START, {})
        assert fresh.database_id() != db and other.row.id == s.row.id
        assert fresh.game(other.row.id).header["uid"] != row.header["uid"]
    with Store(tmp_path / "a.sqlite3") as store:  # kept across runs
        assert store.database_id() == db
        resumed = GameSession.resume(store, store.game(s.row.id))
        assert resumed.referee.game.move_stack == s.referee.game.move_stack


def test_a_database_whose_hall_link_made_its_id_keeps_it_and_old_games_still_replay(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    build(db)  # three games
    tamper(
        db,  # as a board before format 3 left it: format-1 headers, its hall link's id in hall_meta
        "UPDATE games SET header=json_remove(json_set(header, '$.format', 1), '$.uid')",
        "DELETE FROM meta WHERE key='uid'",
        "CREATE TABLE hall_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        "INSERT INTO hall_meta VALUES ('db', 'OldHallLinkId01')",
    )
    with Store(db) as store:
        before = export_game(store, 1).pdn()
        assert store.game(1).header["format"] == 1 and "uid" not in store.game(1).header
        assert store.database_id() == "OldHallLinkId01"  # the hall knows the board's games by it
        assert Publisher(store, "7", Broker("127.0.0.1", 1)).db_id == "OldHallLinkId01"
        s = GameSession.start(store, "brazilian", None, "casual", START, {})
        assert store.game(s.row.id).header["uid"] == f"OldHallLinkId01-{s.row.id}"
        header, events, problem = load_log(store, store.game(3))  # a format-1 game replays as before
        assert header.format == 1 and header.uid is None and problem is None and events
        assert export_game(store, 1).pdn() == before


def test_recover_keeps_the_uid_of_each_game(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        s = GameSession.start(store, "brazilian", None, "casual", START, {"White": "Ana"})
        play(s, GAME1[:2], 1000.0)
        uid = store.game(s.row.id).header["uid"]
        journals = store.journals
    db.unlink()
    for extra in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        extra.unlink(missing_ok=True)
    out = tmp_path / "new.sqlite3"
    with Store(out) as store:
        recover(store, journals)
        assert store.game(s.row.id).header["uid"] == uid
    with sqlite3.connect(out) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 1
    con.close()
