"""Sessions that are not games (issue 28): a training or an analysis on the board is recorded
whole, with its ``purpose``, and left out of the lists of games, the export and the resume at
start. The column is added to a database the previous schema made (``tests/data/schema1``,
written by that code) without losing or changing anything in it."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from damas.records.recover import recover
from damas.records.session import GameSession
from damas.records.store import ANALYSIS, INTERRUPTED, TRAINING, Store
from rules import Position
from tests.conftest import DATA, damas

OLD = DATA / "schema1"


@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    """A copy of the database the previous schema made (the original is never written)."""
    shutil.copy(OLD / "games.sqlite3", tmp_path / "games.sqlite3")
    shutil.copytree(OLD / "games.sqlite3.journals", tmp_path / "games.sqlite3.journals")
    return tmp_path / "games.sqlite3"


def dump(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table the previous schema had, as SQLite holds it."""
    con = sqlite3.connect(db)
    try:
        cols = "id, variant, fen, mode, tags, result, termination, result_locked, started, ended, header, status"
        return {
            "games": con.execute(f"SELECT {cols} FROM games ORDER BY id").fetchall(),
            "journal": con.execute("SELECT * FROM journal ORDER BY game_id, seq").fetchall(),
            "moves": con.execute("SELECT * FROM moves ORDER BY game_id, ply").fetchall(),
            "reports": con.execute("SELECT * FROM reports ORDER BY rowid").fetchall(),
            "meta": con.execute("SELECT * FROM meta WHERE key != 'probe' ORDER BY key").fetchall(),
        }
    finally:
        con.close()


def test_the_fixture_is_the_previous_schema() -> None:
    con = sqlite3.connect(f"{(OLD / 'games.sqlite3').as_uri()}?immutable=1", uri=True)
    try:
        cols = {r[1] for r in con.execute("PRAGMA table_info(games)")}
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()
    assert "purpose" not in cols and "status" in cols
    assert "studies" not in tables


def test_a_database_of_the_previous_schema_keeps_everything_and_knows_its_sessions(old_db: Path) -> None:
    before = dump(old_db)
    assert len(before["games"]) == 5 and before["moves"] and before["journal"]
    with Store(old_db) as store:
        purposes = {r.id: r.purpose for r in store.games(sessions=True)}
        # the page's sessions, by the Event it gave them; a tournament game named so stays a game
        assert purposes == {1: None, 2: ANALYSIS, 3: TRAINING, 4: None, 5: ANALYSIS}
        assert [r.id for r in store.games()] == [4, 1]
        # the analysis left in play is not the game to resume (the old code resumed game 5)
        assert store.unfinished() is None
        assert store.moves(1) == [(1, "c3-d4"), (2, "f6-e5")]
        assert [e.get("square") for e in store.journal(5)] == [22, 18]
    after = dump(old_db)
    # not a field of the old rows changed, not a row lost; the schema is 2 (an older damas refuses it)
    assert after == {**before, "meta": [("schema", "2") if k == "schema" else (k, v) for k, v in before["meta"]]}
    # the copies' records say so too: ``damas recover`` keeps it
    for game_id, purpose in ((2, ANALYSIS), (3, TRAINING), (5, ANALYSIS), (1, None)):
        record = json.loads((old_db.parent / "games.sqlite3.journals" / f"{game_id}.json").read_text())
        assert record.get("purpose") == purpose
    with Store(old_db) as store:  # opened again: nothing more happens
        assert {r.id: r.purpose for r in store.games(sessions=True)}[3] == TRAINING
    assert dump(old_db) == after


def test_the_sessions_left_in_play_are_closed_whole(old_db: Path) -> None:
    with Store(old_db) as store:
        assert store.close_sessions() == [3, 5]
        assert {r.id: r.state for r in store.games(sessions=True)}[5] == INTERRUPTED
        assert store.game(5).status == INTERRUPTED and len(list(store.journal(5))) == 2
        assert store.close_sessions() == []


def test_the_cli_lists_and_exports_games_only_unless_asked(old_db: Path) -> None:
    r = damas("games", "--db", str(old_db))
    assert r.returncode == 0, r.stderr
    ids = [line.split()[0] for line in r.stdout.splitlines()[1:]]
    assert ids == ["4", "1"]
    r = damas("games", "--all", "--db", str(old_db))
    rows = {line.split()[0]: line for line in r.stdout.splitlines()[1:]}
    assert sorted(rows) == ["1", "2", "3", "4", "5"]
    assert "analysis session, abandoned" in rows["2"] and "training session, in play" in rows["3"]
    assert "session" not in rows["1"] + rows["4"]
    r = damas("export", "--all", "--db", str(old_db))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("[Event ") == 2 and "Analysis:" not in r.stdout and "Training: Ana" not in r.stdout
    r = damas("export", "--db", str(old_db))  # the latest game: a game, not the analysis after it
    assert '[Event "Training: club evening"]' in r.stdout and r.stdout.count("[Event ") == 1
    r = damas("export", "--all", "--sessions", "--db", str(old_db))
    assert r.stdout.count("[Event ") == 5
    r = damas("export", "5", "--db", str(old_db))  # one named by its id: whatever it is
    assert '[Event "Analysis: Ana – Rui"]' in r.stdout


def test_a_new_session_says_its_purpose_in_its_row_its_record_and_its_log(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        occupied = Position.start("brazilian").occupied()
        game = GameSession.start(store, "brazilian", None, "casual", occupied, {})
        s = GameSession.start(store, "brazilian", None, "casual", occupied, {"Event": "x"}, purpose=TRAINING)
        assert store.game(s.row.id).purpose == TRAINING and store.game(game.row.id).purpose is None
        assert s.row.header["purpose"] == TRAINING and "purpose" not in game.row.header
        assert [r.id for r in store.games()] == [game.row.id]
        assert store.unfinished() is not None and store.unfinished().id == game.row.id  # type: ignore[union-attr]
        header = json.loads(store.copy_path(s.row.id).read_text().splitlines()[0])
        assert header["purpose"] == TRAINING
    # the database lost: rebuilt from the copies, each keeps what it is (the record, else its log)
    (tmp_path / "g.sqlite3.journals" / f"{s.row.id}.json").unlink()
    db.unlink()
    with Store(db) as store:
        recover(store)
        assert {r.id: r.purpose for r in store.games(sessions=True)} == {game.row.id: None, s.row.id: TRAINING}


def test_an_unknown_purpose_is_a_game_and_named(tmp_path: Path) -> None:
    """A purpose a damaged file or another program wrote hides nothing: the row is listed as a game."""
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        s = GameSession.start(store, "brazilian", None, "casual", Position.start("brazilian").occupied(), {})
        store._tx([("UPDATE games SET purpose='lunch' WHERE id=?", (s.row.id,))])
        (row,) = store.games()
        assert row.purpose is None and any("purpose 'lunch'" in u for u in row.unknown)
        assert store.unfinished() is not None


def test_a_damas_of_the_previous_schema_refuses_the_database_once_it_has_sessions(
    old_db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The previous damas (schema 1) listed the sessions as games, and resumed one at start: the
    database opened by this one says schema 2, which that damas refuses in one line, untouched."""
    from damas.records import store as module

    with Store(old_db) as store:
        assert store.games(sessions=True)
    con = sqlite3.connect(old_db)
    try:
        assert con.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == ("2",)
    finally:
        con.close()
    content = old_db.read_bytes()
    monkeypatch.setattr(module, "SCHEMA_VERSION", 1)  # the previous damas' check, as it was
    with pytest.raises(module.StoreError, match=r"made by a newer damas \(schema '2'\)$"):
        Store(old_db)
    assert old_db.read_bytes() == content
