"""The store's edges a user meets (issue 19.7): a database or folder that cannot be used is
refused in one line and left as it was, a game whose copy cannot be started is not started,
a damaged text field costs its game and not the list, and the records read back what the
other commands show (tags, a game's state, the clock's last sign of life)."""

from __future__ import annotations

import errno
import json
import os
import re
import sqlite3
import time
from pathlib import Path

import pytest

from damas.records.store import (
    DAMAGED,
    SCHEMA_VERSION,
    DamagedStore,
    GameRow,
    Store,
    StoreError,
    StoreLocked,
    journals_dir,
)
from tests.conftest import damas, one_line_error
from tests.store.test_damage import build, run, tamper

#: what SQLite's check says of a page it cannot read, in one line ("*** in database main ***" dropped):
#: "Page 6: btreeInitPage() returns error code 11" (3.40), "Tree 6 page 6: ..." (3.46)
SQLITE_PAGE = r"(Tree \d+ page|Page) \d+: [^\n]*\d"

HEADER = {"format": 1, "variant": "brazilian", "fen": None, "mode": "casual"}


def set_schema(db: Path, value: str) -> None:
    with sqlite3.connect(db) as con:
        con.execute("UPDATE meta SET value=? WHERE key='schema'", (value,))
    con.close()


def test_a_schema_this_damas_does_not_know_is_refused_even_by_play_and_kept(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    set_schema(db, str(SCHEMA_VERSION))
    with Store(db, exclusive=True, quarantine=True) as store:  # its own schema: opened as it is
        assert [g.id for g in store.games()] == [3, 2, 1] and store.quarantined is None
    for value in (str(SCHEMA_VERSION + 1), "2b", ""):
        set_schema(db, value)
        content = db.read_bytes()
        with pytest.raises(StoreError, match=rf"^{re.escape(str(db))}: made by a newer damas \(schema '{value}'\)$"):
            Store(db, exclusive=True, quarantine=True)
        assert db.read_bytes() == content
    assert not list(tmp_path.glob("*damaged*"))
    # the lock was given back: the next program may open it
    set_schema(db, str(SCHEMA_VERSION))
    with Store(db, exclusive=True) as store:
        assert len(store.games()) == 3


def test_a_folder_or_a_file_in_the_way_is_named_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    with pytest.raises(StoreError, match=rf"^{re.escape(str(folder))}: cannot open: Is a directory$"):
        Store(folder, exclusive=True, quarantine=True)  # (the lock is taken on the file itself)
    with pytest.raises(DamagedStore, match=rf"^{re.escape(str(folder))}: not a usable damas database \("):
        Store(folder)
    assert folder.is_dir() and not list(tmp_path.glob("*damaged*"))
    blocker = tmp_path / "records"
    blocker.write_text("not a folder", encoding="utf-8")
    db = blocker / "g.sqlite3"
    with pytest.raises(
        StoreError, match=rf"^{re.escape(str(db))}: cannot open: File exists: {re.escape(str(blocker))}$"
    ):
        Store(db)
    assert blocker.read_text(encoding="utf-8") == "not a folder"
    # as `damas play` says it (before any server starts)
    one_line_error(damas("play", "--no-browser", "--port", "1", "--db", str(db)), f"{db}: cannot open: ", str(blocker))
    one_line_error(damas("play", "--no-browser", "--port", "1", "--db", str(folder)), f"{folder}: cannot open: Is a")


def test_a_game_whose_copy_cannot_be_started_is_not_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        store.journals.mkdir()
        store.journals.rmdir()
        store.journals.write_text("a file where the copies' folder should be", encoding="utf-8")
        copy = journals_dir(db) / "1.jsonl"
        with pytest.raises(StoreError, match=rf"^{re.escape(str(copy))}: cannot write: "):
            store.new_game("brazilian", None, "casual", HEADER, {"White": "Ana"})
        assert store.games() == []  # no game without its copy
        store.journals.unlink()

        def full(fd: int) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(os, "fsync", full)  # the disk is full as the copy's first line is written
        with pytest.raises(StoreError, match=rf"^{re.escape(str(copy))}: cannot write: No space left on device$"):
            store.new_game("brazilian", None, "casual", HEADER, {"White": "Ana"})
        monkeypatch.undo()
        assert store.games() == []
        assert store.new_game("brazilian", None, "casual", HEADER, {"White": "Ana"}) == 1  # room again
        assert [(g.id, g.tags) for g in store.games()] == [(1, {"White": "Ana"})]


def test_a_text_sqlite_cannot_decode_costs_its_game_not_the_list(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(db, "UPDATE games SET tags=CAST(X'7B22FF' AS TEXT) WHERE id=2")  # a flipped bit: not UTF-8
    with Store(db) as store:
        assert [g.id for g in store.games()] == [3, 1]
        assert len(store.skipped) == 1
        assert store.skipped[0].startswith(f"game 2: {db}: the database is damaged (")
        assert "UTF-8" in store.skipped[0] and store.skipped[0].endswith(f"rebuilds its games from {store.journals}")
        assert [g.id for g in store.games(limit=1)] == [3] and store.skipped == []
        assert [g.id for g in store.games(limit=2)] == [3] and len(store.skipped) == 1
        assert [g.id for g in store.games(limit=0)] == [3, 1] and len(store.skipped) == 1  # 0: no limit
        assert store.game(1).tags["Event"] == "Club night"  # the other games read as usual
    # `damas games` lists the others and says, in one line, which one it could not read
    code, out, err = run("games", "--db", str(db))
    assert code == 1
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["3", "1"]
    assert err.startswith("damas: warning: game 2: ") and err.count("\n") == 1 and "damas recover" in err


def test_tags_stored_as_numbers_are_read_back_as_text(tmp_path: Path) -> None:
    # another program wrote a round as a number: PDN tags are text
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(db, """UPDATE games SET tags='{"Round": 3, "White": "Ana"}' WHERE id=1""")
    with Store(db) as store:
        assert store.game(1).tags == {"Round": "3", "White": "Ana"}
    code, out, _err = run("export", "1", "--db", str(db))
    assert code == 0 and '[Round "3"]' in out and '[White "Ana"]' in out


def test_a_games_state_from_its_row() -> None:
    def row(**kw: object) -> GameRow:
        fields: dict[str, object] = dict(
            id=1, variant="brazilian", fen=None, mode="casual", tags={}, result="*", termination=None
        )
        fields |= dict(started=1.0, ended=None, header={})
        return GameRow(**(fields | kw))  # type: ignore[arg-type]

    assert row().state == "in play"
    assert row(result="1-0", ended=2.0).state == "finished"
    assert row(result="1-0").state == "finished"  # a result is a result, however it was closed
    assert row(ended=2.0, termination="repetition").state == "finished"
    assert row(ended=2.0).state == "abandoned"  # a row from before statuses were kept
    assert row(ended=2.0, status="interrupted").state == "interrupted"
    assert row(status="abandoned").state == "abandoned"
    assert row(result="1-0", status=DAMAGED).state == DAMAGED
    assert row(damage=["its tags are not readable"]).state == DAMAGED
    assert row(ended=2.0).finished and not row().finished


def test_the_clocks_last_sign_of_life_is_the_last_games_only(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        one = store.new_game("brazilian", None, "casual", HEADER, {})
        two = store.new_game("brazilian", None, "casual", HEADER, {})
        assert store.alive(one) is None
        store.set_alive(one, 12.5)
        assert store.alive(one) == 12.5 and store.alive(two) is None
        store.set_alive(two, 7)
        assert store.alive(two) == 7.0 and store.alive(one) is None  # one row, overwritten
        for garbage in ("{", "[1]", '{"game": 2, "t": "soon"}', '{"game": 2}'):
            store._tx([("UPDATE meta SET value=? WHERE key='alive'", (garbage,))])
            assert store.alive(two) is None, garbage


def test_a_journal_row_that_is_not_json_is_named(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(db, "UPDATE journal SET event='{\"t\": 1' WHERE game_id=3 AND seq=4")
    with Store(db) as store:
        events = store.journal(3)
        assert [next(events) for _ in range(4)]  # the rows before it (seq 0 to 3) are read
        with pytest.raises(StoreError, match=r"^game 3: journal row 4 is damaged \(not a JSON object\)$"):
            next(events)


def test_a_closed_store_says_so(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    store.close()
    with pytest.raises(StoreError, match=rf"^{re.escape(str(tmp_path / 'g.sqlite3'))}: the database is closed$"):
        store.games()
    store.close()  # twice is harmless


def test_a_damaged_database_a_reader_holds_open_is_moved_aside_whole(tmp_path: Path) -> None:
    """Someone reads the records (the sqlite3 shell) as play finds the file damaged: its
    write-ahead log and shared memory go aside with it, named by the time, and what SQLite
    found is said in one line."""
    db = tmp_path / "g.sqlite3"
    build(db)
    data = bytearray(db.read_bytes())
    reader = sqlite3.connect(db)
    try:
        reader.execute("PRAGMA journal_mode=WAL")
        reader.execute("SELECT COUNT(*) FROM meta").fetchall()
        assert Path(f"{db}-wal").exists()
        data[5 * 4096 : 6 * 4096] = b"\xa5" * 4096  # a page of garbage
        db.write_bytes(bytes(data))
        with Store(db, exclusive=True, quarantine=True) as store:
            assert store.quarantined is not None
            aside, why = store.quarantined
            assert store.games() == []  # an empty database in its place, not the old log replayed into it
    finally:
        reader.close()
    assert re.fullmatch(r"g\.sqlite3\.damaged-\d{8}-\d{6}", aside.name), aside
    assert Path(f"{aside}-wal").exists() and Path(f"{aside}-shm").exists()
    assert re.fullmatch(SQLITE_PAGE + r"( \(and \d+ more\))?|database disk image is malformed", why), why


def test_the_unfinished_game_is_the_last_one_not_ended(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    with Store(db) as store:
        unfinished = store.unfinished()
        assert unfinished is not None and unfinished.id == 3
        store.finish(3, "0-1", "resignation")
        assert store.unfinished() is None
        assert store.game(3).state == "finished" and store.game(3).result == "0-1"


def test_the_copy_of_a_game_from_before_the_copies_is_the_copy_it_would_have_had(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    kept = copy.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line).get("seq") for line in kept[1:3]] == [0, 1]
    tamper(  # two journal rows a damaged file garbled: left out of the copy
        db,
        "UPDATE journal SET event='garbage' WHERE game_id=3 AND seq=2",
        "UPDATE journal SET event=5 WHERE game_id=3 AND seq=3",
    )
    copy.unlink()  # as a database written by an older damas: no copy, no record
    copy.with_suffix(".json").unlink()
    event = {"t": 3100.0, "square": 23, "event": "lift"}
    with Store(db) as store:
        n = store.journal_length(3)
        store.append(3, n, event)
        record = json.loads(copy.with_suffix(".json").read_text(encoding="utf-8"))
        assert record == store.game(3).record()  # the record is written with the copy
    seeded = copy.read_text(encoding="utf-8").splitlines()
    assert seeded == kept[:3] + kept[5:] + [json.dumps({**event, "seq": n})]
    assert json.loads(seeded[0])["game"] == 3


def test_a_damaged_database_that_cannot_be_moved_aside_is_refused_and_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    data = bytearray(db.read_bytes())
    data[5 * 4096 : 6 * 4096] = b"\xa5" * 4096
    db.write_bytes(bytes(data))

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(StoreError) as e:
        Store(db, exclusive=True, quarantine=True)
    text = str(e.value)
    assert text.startswith(f"{db}: the database is damaged (") and "\n" not in text
    assert text.endswith(") and cannot be moved aside: [Errno 13] Permission denied")
    monkeypatch.undo()
    assert db.read_bytes() == bytes(data)
    with Store(db, exclusive=True) as store:  # the lock was given back
        assert store.check() is not None


def test_the_probe_can_run_again_and_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    with Store(db) as store:
        before = sorted(p.name for p in store.journals.iterdir())
        store.probe()
        store.probe()  # the copies' folder is there already: fine
        assert sorted(p.name for p in store.journals.iterdir()) == before


def test_recover_keeps_a_corrected_result_locked(tmp_path: Path) -> None:
    """Game 1's result was corrected by hand (locked): a game rebuilt from the copies keeps it
    locked, so that the referee's own end never overwrites the arbiter's result."""
    db = tmp_path / "g.sqlite3"
    build(db)
    fresh = tmp_path / "fresh.sqlite3"
    assert run("recover", "--db", str(fresh), "--from", str(db))[0] == 0
    with Store(fresh) as store:
        assert [(g.id, g.result_locked, g.result) for g in store.games()] == [
            (3, False, "*"),
            (2, False, "*"),
            (1, True, "1/2-1/2"),
        ]
        store.finish(1, "0-1", "resignation")
        assert store.game(1).result == "1/2-1/2"


def test_several_problems_in_a_damaged_file_are_counted_in_the_one_line(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    data = bytearray(db.read_bytes())
    for page in (5, 7):
        data[page * 4096 : (page + 1) * 4096] = b"\xa5" * 4096
    db.write_bytes(bytes(data))
    with Store(db) as store:
        why = store.check()
    # (SQLite 3.40 finds the two pages; 3.46, Debian trixie's, finds besides what hangs from them)
    assert why is not None and re.fullmatch(SQLITE_PAGE + r" \(and [1-9]\d* more\)", why), why


def test_a_correction_sets_and_removes_tags_and_locks_the_result(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    with Store(db) as store:
        store.correct(3, {"Event": "Open", "Round": "4"})
        store.correct(3, {"Round": "", "Site": ""})  # removing a tag, and one that is not there
        row = store.game(3)
        assert row.tags["Event"] == "Open" and "Round" not in row.tags and "Site" not in row.tags
        assert row.tags["Black"] == "Leo" and not row.result_locked
        store.correct(3, result="0-1")
        assert (store.game(3).result, store.game(3).result_locked) == ("0-1", True)
    record = json.loads((journals_dir(db) / "3.json").read_text(encoding="utf-8"))
    assert record["tags"]["Event"] == "Open" and record["result"] == "0-1" and record["result_locked"] is True


def test_moves_withdrawn_by_a_takeback_leave_the_records(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        g = store.new_game("brazilian", None, "casual", HEADER, {})
        store.record(
            g, moves=[(1, "c3-d4", 22, 18, [], 1.0), (2, "f6-e5", 11, 15, [], 2.0), (3, "d4xf6", 18, 11, [15], 3.0)]
        )
        store.record(g, withdrawn=[2], moves=[(2, "f6-g5", 12, 16, [], 4.0)])  # back to ply 2, another move
        assert store.moves(g) == [(1, "c3-d4"), (2, "f6-g5")]
        store.record(g, withdrawn=[1])
        assert store.moves(g) == []
        assert store.game(g).moves == 0


def test_a_record_restored_from_a_copy_takes_the_defaults_it_lacks(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        new = store.restore_game({"id": None, "variant": "brazilian", "header": HEADER})
        row = store.game(new)
        assert (row.mode, row.result, row.tags, row.result_locked, row.status) == ("casual", "*", {}, False, None)
        assert row.fen is None
        fen = store.game(store.restore_game({"id": None, "variant": "brazilian", "header": HEADER, "fen": "W:W31:B20"}))
        assert fen.fen == "W:W31:B20"
        assert row.started > 1e9 and row.ended is None
        again = store.restore_game({"id": new, "variant": "brazilian", "header": HEADER, "mode": "tournament"})
        assert again == new and store.game(new).mode == "tournament"  # the same id: overwritten


def test_a_database_in_use_names_the_process_that_holds_it(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    holder = Store(db, exclusive=True)
    try:
        with pytest.raises(StoreLocked) as e:
            Store(db, exclusive=True)
        assert str(e.value) == (
            f"{db} is in use by another damas (process {os.getpid()}): stop it or choose another --db"
        )
        # through a symbolic link or a hard link: the same file, the same lock
        (tmp_path / "link.sqlite3").symlink_to(db)
        os.link(db, tmp_path / "hard.sqlite3")
        for other in ("link.sqlite3", "hard.sqlite3"):
            with pytest.raises(StoreLocked, match=rf"in use by another damas \(process {os.getpid()}\)"):
                Store(tmp_path / other, exclusive=True)
        holder.new_game("brazilian", None, "casual", HEADER, {})  # its copy is open too
    finally:
        holder.close()
        holder.close()  # twice is harmless, with the copy and the lock held before
    with Store(db, exclusive=True) as store:
        assert len(store.games()) == 1


def test_a_finished_game_is_recorded_when_its_record_file_cannot_be(tmp_path: Path) -> None:
    """The <id>.json beside the copy is best effort: the row is in the database already."""
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        g = store.new_game("brazilian", None, "casual", HEADER, {"White": "Ana"})
        record = store.journals / f"{g}.json"
        saved = json.loads(record.read_text(encoding="utf-8"))
        assert set(saved) == {"id", "variant", "fen", "mode", "tags", "result", "termination"} | {
            "result_locked",
            "started",
            "ended",
            "header",
            "status",
            "purpose",
        }
        record.unlink()
        record.mkdir()  # something in the way of the record file
        store.finish(g, "1-0", "resignation")
        assert (store.game(g).result, store.game(g).termination) == ("1-0", "resignation")
        assert store.game(g).ended is not None and store.game(g).finished
        record.rmdir()
        store.correct(g, result="0-1")
    saved = json.loads(record.read_text(encoding="utf-8"))
    assert (saved["id"], saved["result"], saved["termination"], saved["result_locked"]) == (
        g,
        "0-1",
        "resignation",
        True,
    )
    assert saved["ended"] is not None and saved["header"] == HEADER and saved["tags"] == {"White": "Ana"}


def test_the_reports_table_holds_each_report_its_squares_and_text(tmp_path: Path) -> None:
    # the records other programs read straight from SQLite (DESIGN.md §6)
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        g = store.new_game("brazilian", None, "casual", HEADER, {})
        store.record(g, reports=[(2.5, "illegal", [22, 18], "c3-d4 is not legal here"), (3.0, "touch", [], "x")])
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT game_id, t, kind, squares, message FROM reports ORDER BY t").fetchall()
    con.close()
    assert [(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows] == [
        (g, 2.5, "illegal", [22, 18], "c3-d4 is not legal here"),
        (g, 3.0, "touch", [], "x"),
    ]


def test_a_reader_never_creates_a_missing_database(tmp_path: Path) -> None:
    """The commands that read open with SQLite's mode=rw: a mistyped --db is named, and no
    empty database (nor its -wal, -shm or folder) is left where it was looked for."""
    for db in (tmp_path / "g.sqlite3", tmp_path / "no" / "such" / "g.sqlite3"):
        with pytest.raises(StoreError, match=rf"^{re.escape(str(db))}: no such database$"):
            Store(db, create=False)
        assert os.listdir(tmp_path) == []
        code, out, err = run("games", "--db", str(db))
        assert (code, out, err) == (2, "", f"damas: error: {db}: no such database\n")
        assert os.listdir(tmp_path) == []
    (tmp_path / "dir.sqlite3").mkdir()  # a folder where the file should be: not a database either
    with pytest.raises(StoreError, match=r"dir\.sqlite3: no such database$"):
        Store(tmp_path / "dir.sqlite3", create=False)
    db = tmp_path / "g.sqlite3"
    build(db)
    with Store(db, create=False) as store:  # an existing one opens for reading and writing
        store.correct(1, {"Round": "2"})
        assert store.game(1).tags["Round"] == "2"


def test_the_probe_writes_when_it_ran(tmp_path: Path) -> None:
    """The probe's row in ``meta`` is the time the store was last found writable."""
    with Store(tmp_path / "g.sqlite3") as store:
        before = time.time()
        store.probe()
        after = time.time()
        (value,) = store.db.execute("SELECT value FROM meta WHERE key='probe'").fetchone()  # type: ignore[union-attr]
        # meta.value is TEXT: SQLite keeps 15 significant digits of the time (10 µs today)
        assert before - 0.001 <= float(value) <= after + 0.001


def test_a_damaged_page_costs_the_game_on_it_not_the_list(tmp_path: Path) -> None:
    """A really damaged file: the pages that hold one game's long tags (an overflow chain)
    point to a page the file does not have. Listing the games reads them one by one, so the
    others are listed and the damaged one is named (``damas games``, ``damas export --all``)."""
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        for tags in ({"White": "Ana"}, {"White": "Rui", "Annotator": "Z" * 9000}, {"White": "Eva"}):
            store.new_game("brazilian", None, "casual", HEADER, tags)
    data = bytearray(db.read_bytes())  # closed: the WAL is in the file
    size = 4096
    chain = [n for n in range(len(data) // size) if data[n * size + 4 : n * size + 64] == b"Z" * 60]
    assert len(chain) == 2  # 9000 bytes: the row's page and two overflow pages
    first = chain[0] * size
    data[first : first + 4] = (1_000_000).to_bytes(4, "big")  # the link to the next page: broken
    db.write_bytes(bytes(data))
    with Store(db, create=False) as store:
        # SQLite 3.40 names the broken link; 3.46 (Debian trixie's) stops its check at it
        assert store.check() in (
            "On tree page 4 cell 1: invalid page number 1000000 (and 1 more)",
            "database disk image is malformed",
        )
        assert [g.tags["White"] for g in store.games()] == ["Eva", "Ana"]
        assert store.skipped == [
            f"game 2: {db}: the database is damaged (database disk image is malformed); "
            f"`damas recover` rebuilds its games from {store.journals}"
        ]
        assert [g.id for g in store.games(limit=1)] == [3] and store.skipped == []
    code, out, err = run("games", "--db", str(db))
    assert code == 1 and [line.split()[0] for line in out.splitlines()[1:]] == ["3", "1"]
    assert err.startswith("damas: warning: game 2: ") and err.count("\n") == 1


def test_a_copy_moved_away_during_a_game_is_written_again_in_full(tmp_path: Path) -> None:
    """Someone moves a game's copy away while it is played (or a backup tool renames it):
    the next event writes the copy again under its name, whole, and the file moved away is
    left as it was. (An open file kept between events wrote on behind the new name's back,
    and the copy's name held nothing.)"""
    with Store(tmp_path / "g.sqlite3") as store:
        game = store.new_game("brazilian", None, "casual", HEADER, {"White": "Ana"})
        events = [{"t": 10.0 + i, "square": 22 + i, "event": "lift"} for i in range(4)]
        for seq, event in enumerate(events[:3]):
            store.append(game, seq, event)
        copy = store.copy_path(game)
        whole = copy.read_bytes()
        moved = copy.rename(tmp_path / "elsewhere.jsonl")
        store.append(game, 3, events[3])
        lines = [json.loads(line) for line in copy.read_text(encoding="utf-8").splitlines()]
        assert lines[0]["game"] == game and lines[0]["tags"] == {"White": "Ana"}
        assert lines[1:] == [{**event, "seq": seq} for seq, event in enumerate(events)]
        assert moved.read_bytes() == whole


def test_the_records_beside_the_database_follow_every_change(tmp_path: Path) -> None:
    """``<id>.json`` (what ``damas recover`` rebuilds a game's row from) is rewritten when a
    game ends, is abandoned or corrected, and reads back as the row."""
    with Store(tmp_path / "g.sqlite3") as store:
        one = store.new_game("brazilian", None, "casual", HEADER, {"White": "Ana"})
        two = store.new_game("brazilian", None, "tournament", HEADER, {})

        def saved(game: int) -> dict[str, object]:
            record: dict[str, object] = json.loads((store.journals / f"{game}.json").read_text(encoding="utf-8"))
            assert record == store.game(game).record()
            return record

        assert saved(one)["result"] == "*" and saved(one)["ended"] is None
        store.finish(one, "1-0", "resignation")
        assert (saved(one)["result"], saved(one)["termination"]) == ("1-0", "resignation")
        store.abandon(two, "interrupted")
        assert saved(two)["status"] == "interrupted" and saved(two)["ended"] is not None
        store.correct(one, {"Round": "3"}, "0-1")
        assert saved(one)["tags"] == {"White": "Ana", "Round": "3"}
        assert (saved(one)["result"], saved(one)["result_locked"]) == ("0-1", True)


def test_a_record_restored_from_a_copy_is_the_row_it_was(tmp_path: Path) -> None:
    with Store(tmp_path / "a.sqlite3") as first:
        game = first.new_game("international", "W:W31:B20", "tournament", HEADER, {"White": "Ana"})
        first.finish(game, "2-0", "resignation")
        first.correct(game, result="0-2")
        first.abandon(game, "damaged")
        record = first.game(game).record()
    assert record["ended"] is not None and record["result_locked"] is True
    with Store(tmp_path / "b.sqlite3") as second:
        assert second.restore_game(record) == game
        assert second.game(game).record() == record


def test_an_unknown_mode_is_named_in_at_most_40_characters(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        game = store.new_game("brazilian", None, "casual", HEADER, {})
        store._tx([("UPDATE games SET mode=? WHERE id=?", ("m" * 39 + "xyz", game))])
        row = store.game(game)
        assert row.state == DAMAGED and row.mode == "casual"
        assert row.damage == [f"its mode {'m' * 39 + 'x'!r} is unknown (casual or tournament)"]


def test_times_a_damaged_row_garbled_read_as_none_known(tmp_path: Path) -> None:
    """A start time that is not a number reads as 0 (the epoch: shown, not a crash), an end
    time as none (the game is then in play, and the next start closes it)."""
    with Store(tmp_path / "g.sqlite3") as store:
        game = store.new_game("brazilian", None, "casual", HEADER, {})
        store.finish(game, "1-0", "resignation")
        store._tx([("UPDATE games SET started='noon', ended=X'00' WHERE id=?", (game,))])
        row = store.game(game)
        assert (row.started, row.ended, row.state) == (0.0, None, "finished")


def test_moves_rebuilt_from_the_journal_replace_the_rows_whole(tmp_path: Path) -> None:
    """``rewrite_moves`` (a resume) leaves exactly the moves given, with their captures and times."""
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        game = store.new_game("brazilian", None, "casual", HEADER, {})
        store.record(game, moves=[(1, "c3-d4", 22, 18, [], 1.0), (2, "f6-e5", 11, 15, [], 2.0), (3, "x", 1, 2, [], 3)])
        store.rewrite_moves(game, [(1, "c3-d4", 22, 18, [], 1.5), (2, "d4xf6", 18, 11, [15], 2.5)])
        assert store.moves(game) == [(1, "c3-d4"), (2, "d4xf6")]
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT ply, from_sq, to_sq, captured, t FROM moves WHERE game_id=? ORDER BY ply", (game,))
        assert [(p, a, b, json.loads(c), t) for p, a, b, c, t in rows] == [(1, 22, 18, [], 1.5), (2, 18, 11, [15], 2.5)]
    con.close()


def test_a_game_whose_row_cannot_be_read_back_still_ends(tmp_path: Path) -> None:
    """The end is written; reading the row back for ``<id>.json`` fails (a text SQLite cannot
    decode): the record beside the database is left as it was, and no error is raised for a
    write that was made (``damas play`` would pause the board for it)."""
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        game = store.new_game("brazilian", None, "casual", HEADER, {"White": "Ana"})
        record = (store.journals / f"{game}.json").read_bytes()
        store._tx([("UPDATE games SET tags=CAST(X'7B22FF' AS TEXT) WHERE id=?", (game,))])
        store.finish(game, "1-0", "resignation")
        store.abandon(game, "damaged")
        assert (store.journals / f"{game}.json").read_bytes() == record
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT result, status FROM games").fetchall() == [("1-0", "damaged")]
    con.close()


def test_a_game_that_is_not_there_is_named(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store, pytest.raises(StoreError, match=rf"^{re.escape(str(db))}: no game 7$"):
        store.game(7)


def test_the_reason_a_damaged_database_went_aside_is_sqlites_own(tmp_path: Path) -> None:
    """What ``damas play`` says about a database it moved aside: SQLite's words, without the
    path (it is said beside them), even when the path has spaces in it."""
    db = tmp_path / "my games" / "g.sqlite3"
    db.parent.mkdir()
    build(db)
    data = bytearray(db.read_bytes())
    data[16:100] = b"\xa5" * 84  # the header past its magic: not a database any more
    db.write_bytes(bytes(data))
    with Store(db, exclusive=True, quarantine=True) as store:
        assert store.quarantined is not None
        assert store.quarantined[1] == "not a usable damas database (file is not a database)"
