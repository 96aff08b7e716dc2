"""Issue 33.1: the two copies of a game's journal checked by ``seq`` on every read. A copy
with a gap (left by an older damas's power cut) is written again from the database; a
database that lost events takes them from the copy; an event neither holds makes the game
damaged, said in one line: never a game silently shortened. ``damas replay`` of a copy says
what it found too."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from board_hal.debounce import Transition
from damas.records.recover import recover
from damas.records.session import GameSession, export_game
from damas.records.store import Store, StoreError, journals_dir
from tests.conftest import damas
from tests.store.test_damage import GAME3, build, open_for_play, play, run, tamper


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def seqs(path: Path) -> list[int]:
    return [json.loads(line)["seq"] for line in lines(path)[1:]]


def drop_lines(path: Path, *seq: int) -> None:
    """The copy without those events' lines (as an older damas left it after a power cut)."""
    kept = [line for line in lines(path) if json.loads(line).get("seq") not in seq]
    path.write_text("\n".join(kept) + "\n", encoding="utf-8")


def test_a_copy_with_a_gap_is_written_again_from_the_database_at_start(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "1.jsonl"
    drop_lines(copy, 3)  # finished game 1
    drop_lines(journals_dir(db) / "3.jsonl", 7)  # game 3, in play: its last event
    out, game = open_for_play(db)
    assert game == 3
    assert f"damas: recover: game 1: its copy {copy} lacked event 3: written again from the database" in out, out
    assert any(f"game 3: its copy {journals_dir(db) / '3.jsonl'} lacked event 7" in line for line in out), out
    assert seqs(copy) == list(range(7)) and seqs(journals_dir(db) / "3.jsonl") == list(range(8))
    out, _game = open_for_play(db)  # whole again: nothing more to say
    assert not any("recover" in line for line in out), out


def test_an_event_in_neither_copy_makes_the_game_damaged_not_shorter(tmp_path: Path) -> None:
    """The issue's compound case: the copy lost events 2-3 and the database is gone. The game
    in play is not resumed with what comes before the hole as though that were all: it is kept
    (every event of both copies) as damaged, and the line says where the hole is."""
    db = tmp_path / "g.sqlite3"
    build(db)
    drop_lines(journals_dir(db) / "3.jsonl", 2, 3)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    out, game = open_for_play(db)
    hole = [line for line in out if "game 3" in line and "in neither" in line]
    assert hole == [
        f"damas: recover: game 3: events 2–3 in neither the database nor its copy {journals_dir(db) / '3.jsonl'}: "
        "kept as damaged, replayable up to event 1 (2 events; the 4 after the gap kept too) "
        "(missing from the database)"
    ], out
    assert any("1 not recoverable" in line for line in out), out
    assert game == 4  # a new game: the damaged one is not resumed
    with Store(db) as store:
        three = store.game(3)
        assert three.state == "damaged" and three.tags["Black"] == "Leo"
        assert sorted(seq for seq, _ in store.journal_rows(3)) == [0, 1, 4, 5, 6, 7]  # nothing thrown away
        notes: list[str] = []
        export_game(store, 3, notes)
        assert notes == ["game 3: its journal in the database lacks events 2–3 (it holds events 0–1, 4–7)"]
    _code, listing, _err = run("games", "--db", str(db))
    assert any(row.split()[0] == "3" and "damaged" in row for row in listing.splitlines()[1:]), listing
    # the next start: nothing new to say, no crash loop
    out, game = open_for_play(db)
    assert game == 4 and not any("in neither" in line for line in out), out


def test_a_database_that_lost_events_in_the_middle_takes_them_from_the_copy(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(db, "DELETE FROM journal WHERE game_id=3 AND seq IN (2, 3)")
    with Store(db) as store, pytest.raises(StoreError, match="lacks events 2–3"):  # named, never replayed past
        GameSession.resume(store, store.game(3))
    out, game = open_for_play(db)
    assert game == 3
    found = "the database held events 0–1, 4–7; events 2–3 taken from the copy"
    assert any("game 3: rebuilt with 8 events" in line and found in line for line in out), out
    with Store(db) as store:
        assert len(store.moves(3)) == 4 and store.journal_span(3) == (8, 0, 7)


def test_replay_of_a_copy_with_a_gap_says_so_and_stops_at_it(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    drop_lines(copy, 4)
    r = damas("replay", str(copy))
    assert r.returncode == 1, r.stderr
    assert r.stderr.splitlines() == [
        f"damas: warning: {copy}: event 4 missing (its seq jumps from 3 to 5): replaying the 4 events before "
        f"the gap, not the 3 after it (`damas replay --game 3 --db {db}` replays the database's journal, "
        "which may hold them)"
    ], r.stderr
    assert [line.split(": ", 1)[1] for line in r.stdout.splitlines() if " move " in line] == ["g3-h4", "b6-c5"]
    # the database's journal, as the warning says, holds the whole game
    r = damas("replay", "--game", "3", "--db", str(db))
    assert r.returncode == 0 and r.stderr == "" and r.stdout.count(" move ") == 4, r.stderr


def test_replay_takes_the_last_line_of_a_seq_written_twice(tmp_path: Path) -> None:
    """A line whose database write failed, left behind: the next line with its seq supersedes it."""
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    head, *events = lines(copy)
    stale = json.dumps({"t": 3000.5, "square": 30, "event": "lift", "seq": 2})
    copy.write_text("\n".join([head, *events[:2], stale, *events[2:]]) + "\n", encoding="utf-8")
    r = damas("replay", str(copy))
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.count(" move ") == 4


def test_a_torn_last_line_is_cut_off_before_the_next_event(tmp_path: Path) -> None:
    """A power cut in the middle of a copy's line: the next event's line must not be glued to it."""
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    with open(copy, "ab") as f:
        f.write(b'{"t": 3004.0, "square": 23, "ev')
    with Store(db) as store:
        s = GameSession.resume(store, store.game(3), now=3100.0)
        play(s, [(23, 19)], 3101.0)
    assert seqs(copy) == list(range(10))
    with Store(db) as store:
        assert len(store.moves(3)) == 5


def test_a_copy_that_lost_its_end_is_written_again_before_the_next_event(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    drop_lines(copy, 6, 7)
    with Store(db) as store:
        s = GameSession.resume(store, store.game(3), now=3100.0)
        play(s, [(23, 19)], 3101.0)
    assert seqs(copy) == list(range(10))
    (aside,) = journals_dir(db).glob("3.*.replaced.jsonl")  # what was there is kept
    assert seqs(aside) == list(range(6))


def test_a_database_write_that_fails_takes_the_copys_line_back(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copy = journals_dir(db) / "3.jsonl"
    before = copy.read_bytes()
    with Store(db) as store:
        s = GameSession.resume(store, store.game(3), now=3100.0)
        other = sqlite3.connect(db, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another writer holds the database
            assert store.db is not None
            store.db.execute("PRAGMA busy_timeout=50")
            with pytest.raises(StoreError, match="cannot write"):
                s.feed(Transition(3101.0, 23, False))
            assert copy.read_bytes() == before
        finally:
            other.execute("ROLLBACK")
            other.close()
        s.feed(Transition(3102.0, 24, False))  # another event at that seq: written once, in both
    assert seqs(copy) == list(range(9))
    assert json.loads(lines(copy)[-1])["square"] == 24


def test_recover_of_a_game_whose_two_copies_lost_different_events(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    drop_lines(journals_dir(db) / "3.jsonl", 1, 6)
    tamper(db, "DELETE FROM journal WHERE game_id=3 AND seq IN (2, 7)")
    with Store(db, exclusive=True) as store:
        out = recover(store)
    copy = journals_dir(db) / "3.jsonl"
    assert out[0] == (
        f"game 3: rebuilt with 8 events from {copy} (the database held events 0–1, 3–6; events 2, 7 taken from "
        "the copy; the copy held events 0, 2–5, 7: written again)"
    ), out
    assert out[-1].startswith("1 game rebuilt, 2 intact, 0 not recoverable")
    assert seqs(copy) == list(range(8))
    with Store(db) as store:
        assert store.journal_span(3) == (8, 0, 7) and len(store.moves(3)) == len(GAME3)
