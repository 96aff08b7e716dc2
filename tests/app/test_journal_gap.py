"""Issue 33.1: a power cut between the two durable writes of an event (the journal copy's line
and the database's row) never leaves an acknowledged event out of either copy, and the next
start makes the two agree; every reader checks the copy's ``seq`` and says what it found.

The cuts come from ``tests/app/crashpoint.py`` (``DAMAS_TEST_KILL_EVENT``/``_GAP``): at every
event of a game and at every point among its two writes (before them, a torn line, between
them, after them). The default run cuts a short game; the slow one (``make test-slow``) cuts
at every position of long games, at least 500 times."""

from __future__ import annotations

import contextlib
import json
import random
import signal
import sqlite3
import urllib.error
from pathlib import Path

import pytest

from damas.records.store import journals_dir
from rules import Game
from tests.app.crashpoint import GAPS
from tests.app.server import Server
from tests.conftest import damas

Event = tuple[int, str]  # (square, "lift"/"place")


def in_db(db: Path) -> dict[int, Event]:
    """The board events of game 1's journal in the database, by seq (read as another program would)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT seq, event FROM journal WHERE game_id=1 ORDER BY seq").fetchall()
    finally:
        con.close()
    return {seq: _event(json.loads(text)) for seq, text in rows}


def in_copy(db: Path) -> dict[int, Event]:
    """The board events of game 1's journal copy, by seq, read line by line as another program
    would (a line cut short is not an event; a later line with the same seq supersedes one)."""
    out = {}
    for line in (journals_dir(db) / "1.jsonl").read_bytes().splitlines()[1:]:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        out[obj["seq"]] = _event(obj)
    return out


def _event(obj: dict[str, object]) -> Event:
    return (int(obj["square"]), str(obj["event"]))  # type: ignore[call-overload]


def actions_of(seed: int, plies: int) -> list[Event]:
    """A random game by hand: lift, place, then the captured pieces off."""
    rng = random.Random(seed)
    g = Game("brazilian")
    out: list[Event] = []
    while g.outcome() is None and g.ply < plies:
        moves = list(g.legal_moves)
        m = rng.choice(moves)
        g.push(m)
        out += [(m.from_square, "lift"), (m.to_square, "place")] + [(c, "lift") for c in m.captured]
    return out


def test_the_issues_cut_between_the_two_writes(tmp_path: Path) -> None:
    """The issue's reproduction: c3-d4 played; then, under the crash harness, b6-a5's placing
    is cut between its two writes. On the next start the page, the database and the copy agree
    (the event did happen: the hands made it), and a replay of the copy gives both moves."""
    db = tmp_path / "g.sqlite3"
    server = Server(db).start()
    try:
        server.move(22, 18)
    finally:
        server.stop()
    env = {"DAMAS_TEST_KILL_EVENT": "2", "DAMAS_TEST_KILL_GAP": "between"}
    cut = Server(db, env=env, module="tests.app.crashpoint").start("--resume")
    try:
        cut.sim("lift", 9)
        with contextlib.suppress(urllib.error.URLError, ConnectionError):
            cut.sim("place", 13)
        assert cut.proc is not None and cut.proc.wait(10) == -signal.SIGKILL
    finally:
        if cut.proc is not None:
            cut.kill()
    after = Server(db).start("--resume")
    try:
        state = after.get("/api/state")
    finally:
        out = after.stop()
    assert [m["pdn"] for m in state["moves"]] == ["c3-d4", "b6-a5"]
    assert sorted(in_db(db)) == sorted(in_copy(db)) == [0, 1, 2, 3]
    assert in_db(db) == in_copy(db)
    assert "game 1: rebuilt with 4 events" in out and "event 3 taken from the copy" in out, out
    r = damas("replay", str(journals_dir(db) / "1.jsonl"))
    assert r.returncode == 0, r.stderr
    assert [line.split(": ", 1)[1] for line in r.stdout.splitlines() if "move" in line] == ["c3-d4", "b6-a5"]


def test_the_issues_cut_after_the_database_write(tmp_path: Path) -> None:
    """The issue's own reproduction (``DAMAS_TEST_KILL_AT=3 DAMAS_TEST_KILL_WHEN=after``): the
    kill after the third database write of the restarted program."""
    db = tmp_path / "g.sqlite3"
    server = Server(db).start()
    try:
        server.move(22, 18)
    finally:
        server.stop()
    env = {"DAMAS_TEST_KILL_AT": "3", "DAMAS_TEST_KILL_WHEN": "after"}
    cut = Server(db, env=env, module="tests.app.crashpoint").start("--resume")
    try:
        for op, sq in (("lift", 9), ("place", 13)):
            with contextlib.suppress(urllib.error.URLError, ConnectionError):
                cut.sim(op, sq)
        assert cut.proc is not None and cut.proc.wait(10) == -signal.SIGKILL
    finally:
        if cut.proc is not None:
            cut.kill()
    after = Server(db).start("--resume")
    try:
        shown = [m["pdn"] for m in after.get("/api/state")["moves"]]
    finally:
        after.stop()
    assert in_db(db) == in_copy(db), (in_db(db), in_copy(db))
    r = damas("replay", str(journals_dir(db) / "1.jsonl"))
    replayed = [line.split(": ", 1)[1] for line in r.stdout.splitlines() if "move" in line]
    assert replayed == shown


def campaign(tmp_path: Path, actions: list[Event], *, every: bool) -> int:
    """Play ``actions`` through ``damas play``, each server cut at its first event at one of the
    gap positions (``every``: at each event, before the writes, in a torn line, then between or
    after them, in turn: the last two both complete it; else one position after another). After
    each cut, straight from the files: every acknowledged event is in both copies, in order, and
    nothing but the one in flight beyond them. After each restart: the two copies hold the same
    events, without a gap. Returns the number of cuts."""
    db = tmp_path / "cut.sqlite3"
    server = Server(db).start()  # the game, and its first event written without a cut
    try:
        server.post("/api/sim", {"op": actions[0][1], "square": actions[0][0]})
    finally:
        server.stop()
    acked: list[Event] = [actions[0]]
    cuts = attempt = 0
    i = 1
    while True:
        # (every: before, torn, then between or after, which both complete the event)
        gap = ("before", "torn", "between" if i % 2 else "after")[min(attempt, 2)] if every else GAPS[cuts % 4]
        env = {"DAMAS_TEST_KILL_EVENT": "1", "DAMAS_TEST_KILL_GAP": gap}
        cut = Server(db, env=env, module="tests.app.crashpoint").start("--resume")
        try:
            # what the restart made of the last cut: both copies the same, no gap, nothing lost
            db_now, copy_now = in_db(db), in_copy(db)
            assert db_now == copy_now, (i, db_now, copy_now)
            assert sorted(db_now) == list(range(len(db_now))), sorted(db_now)
            assert [db_now[s] for s in range(len(acked))] == acked and len(db_now) == len(acked)
            if i == len(actions):
                cut.stop()
                break
            square, op = actions[i]
            with contextlib.suppress(urllib.error.URLError, ConnectionError):
                cut.post("/api/sim", {"op": op, "square": square})
                raise AssertionError(f"event {i} answered although the harness cut at {gap}")
            assert cut.proc is not None and cut.proc.wait(10) == -signal.SIGKILL
        finally:
            if cut.proc is not None:
                cut.kill()  # (its output read and its pipe closed)
        cuts += 1
        attempt += 1
        # straight after the cut: every acknowledged event in both copies, at its seq
        db_cut, copy_cut = in_db(db), in_copy(db)
        for name, held in (("database", db_cut), ("copy", copy_cut)):
            assert [held.get(s) for s in range(len(acked))] == acked, (name, gap, i)
            assert len(held) <= len(acked) + 1, (name, gap, i)
            if len(held) == len(acked) + 1:
                assert held[len(acked)] == actions[i], (name, gap, i)
        assert len(db_cut) <= len(copy_cut), (gap, i)  # the copy first: never the database ahead of it
        if len(copy_cut) == len(acked) + 1:  # written, not answered: it happened (the next start keeps it)
            acked.append(actions[i])
            i += 1
            attempt = 0
    final = Server(db).start("--resume")
    try:
        state = final.get("/api/state")
    finally:
        final.stop()
    assert in_db(db) == in_copy(db) and [in_db(db)[s] for s in range(len(acked))] == acked == actions
    assert len(state["moves"]) == len([a for a in actions if a[1] == "place"])  # one landing a move
    return cuts


def test_cuts_between_the_two_writes_lose_no_acknowledged_event(tmp_path: Path) -> None:
    actions = actions_of(3, 3)  # whole moves (captured pieces off): the last is made
    assert len(actions) >= 6
    cuts = campaign(tmp_path, actions, every=False)
    assert cuts >= 8


def _slow_games(total: int = 500, plies: int = 4) -> list[int]:
    """Seeds of games whose cuts at every position add up to ``total`` (each game is one test:
    a test has 180 s)."""
    seeds, cuts, seed = [], 0, 11
    while cuts < total:
        seeds.append(seed)
        cuts += 3 * (len(actions_of(seed, plies)) - 1)
        seed += 1
    return seeds


@pytest.mark.slow
@pytest.mark.parametrize("seed", _slow_games())
def test_cuts_at_every_gap_position_of_a_game(tmp_path: Path, seed: int) -> None:
    """At each event of the game after its first: a cut before its writes, one in a torn line,
    then one between them or after them (in turn: both complete the event). The seeds add up
    to at least 500 cuts."""
    actions = actions_of(seed, 4)
    assert campaign(tmp_path, actions, every=True) == 3 * (len(actions) - 1)
