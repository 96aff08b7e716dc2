"""The records and the game's state agree everywhere: the port and the lock come before the
store, an entered result ends the game, every game has its date, `damas games` says what
happened, reading commands refuse a missing database, a full disk pauses the board."""

from __future__ import annotations

import asyncio
import datetime
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from board_hal.config import Config
from board_hal.factory import open_board
from board_hal.leds import Role
from board_hal.simulated import SimulatedBoard
from damas.board.loop import PlayApp
from damas.records.session import GameSession, export_game
from damas.records.store import Store
from rules import Position
from rules.pdn import read_pdn
from tests.app.server import Server, free_port
from tests.conftest import damas, one_line_error


def snapshot(db: Path) -> list[tuple[object, ...]]:
    """Everything the store holds (read without changing it)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        games = con.execute("SELECT id, result, ended, tags FROM games ORDER BY id").fetchall()
        journal = con.execute("SELECT game_id, seq, event FROM journal ORDER BY game_id, seq").fetchall()
    finally:
        con.close()
    return [*games, *journal]


def touch(server: Server, a: int, b: int) -> None:
    """A move tried after the game ended: nothing lights up to wait on, so the hands take
    their time (more than the debounce window) and the test then looks that nothing happened."""
    server.sim("lift", a)
    time.sleep(0.08)
    server.sim("place", b)
    time.sleep(0.08)


# -- the port and the lock come first ----------------------------------------------------------------
def test_a_second_play_touches_nothing(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    first = Server(db).start()
    try:
        first.move(22, 18)
        first.wait_for(lambda s: len(s["moves"]) == 1)
        before = snapshot(db)
        # the same port: refused before the records are opened (it used to close game 1 and start game 2)
        one_line_error(
            damas("play", "--db", str(db), "--no-browser", "--no-resume", "--port", str(first.port)),
            "already in use",
        )
        assert snapshot(db) == before
        # another port, the same database: the lock refuses it
        r = damas("play", "--db", str(db), "--no-browser", "--no-resume", "--port", str(free_port()))
        one_line_error(r, str(db), "in use by another damas")
        assert snapshot(db) == before
        # the first server goes on as if nothing happened
        first.move(9, 13)
        state = first.wait_for(lambda s: len(s["moves"]) == 2)
        assert state["game"] == 1
    finally:
        first.kill()  # SIGKILL: the kernel releases the lock with the process
    second = Server(db).start()
    try:
        assert second.get("/api/state")["game"] == 1
    finally:
        second.stop()


# -- a result entered for the game in play ends it, everywhere ---------------------------------------
def test_an_entered_result_ends_the_game_in_play(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    server = Server(db, "--white", "Ana").start()
    try:
        server.move(22, 18)
        server.wait_for(lambda s: len(s["moves"]) == 1)
        server.post("/api/games/1/tags", {"tags": {"Black": "Rui"}, "result": "1/2-1/2"})
        state = server.get("/api/state")
        assert state["result"] == "1/2-1/2" and state["termination"] == "result entered"
        # the board no longer takes moves
        touch(server, 9, 13)
        time.sleep(0.3)
        state = server.get("/api/state")
        assert len(state["moves"]) == 1 and state["result"] == "1/2-1/2"
        (live,) = read_pdn(server.get("/games/1.pdn"))
        assert [m.text for m in live.moves] == ["c3-d4"] and live.result == "1/2-1/2"
        assert live.tags["Black"] == "Rui" and live.tags["White"] == "Ana"
    finally:
        server.stop()
    listing = damas("games", "--db", str(db))
    assert listing.returncode == 0, listing.stderr
    (line,) = [ln for ln in listing.stdout.splitlines() if ln.strip().startswith("1 ")]
    assert "1/2-1/2" in line and line.endswith("finished")
    exported = damas("export", "--db", str(db))
    (back,) = read_pdn(exported.stdout)
    assert [m.text for m in back.moves] == ["c3-d4"] and back.result == "1/2-1/2"
    replayed = damas("replay", "--game", "1", "--db", str(db), "--json")
    assert '"result": "1/2-1/2"' in replayed.stdout and '"result-entered"' in replayed.stdout
    # restarted, the game stays over (the journal holds the result)
    again = Server(db).start()
    try:
        state = again.get("/api/state")
        assert state["game"] == 2 and state["moves"] == []
    finally:
        again.stop()


def test_a_result_star_leaves_the_game_going_and_corrections_stay_possible(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--variant", "international").start()
    try:
        server.post("/api/games/1/tags", {"tags": {}, "result": "*"})
        server.move(32, 28)
        server.wait_for(lambda s: len(s["moves"]) == 1 and s["result"] == "*")
        server.post("/api/action", {"action": "resign", "side": "white"})
        assert server.get("/api/state")["result"] == "0-2"
        server.post("/api/games/1/tags", {"result": "1/2-1/2"})  # a correction, in the variant's style
        assert server.get("/api/state")["result"] == "1-1"
        assert read_pdn(server.get("/games/1.pdn"))[0].result == "1-1"
    finally:
        server.stop()


# -- every new game has its date ---------------------------------------------------------------------
def today() -> str:
    return datetime.date.today().strftime("%Y.%m.%d")


def test_games_started_from_the_page_have_the_date(tmp_path: Path) -> None:
    before = today()  # (a run that crosses midnight: the games are dated one day or the other)
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        server.post("/api/action", {"action": "new-game"})
        server.post("/api/action", {"action": "new-game", "fen": "W:W21:B5"})
        for game in (1, 2, 3):
            (g,) = read_pdn(server.get(f"/games/{game}.pdn"))
            assert g.tags["Date"] in {before, today()}, game
        assert server.get("/api/state")["tags"]["Date"] in {before, today()}
    finally:
        server.stop()


# -- damas games says what happened -------------------------------------------------------------------
def test_games_says_what_happened(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    server = Server(db).start()
    try:
        server.move(22, 18)
        server.wait_for(lambda s: len(s["moves"]) == 1)
        server.kill()
        server.start("--no-resume")  # game 1: interrupted by a restart
        server.post("/api/action", {"action": "resign", "side": "black"})  # game 2: finished
        server.post("/api/action", {"action": "new-game"})  # game 3
        server.post("/api/action", {"action": "new-game"})  # game 3: abandoned; game 4 in play
    finally:
        server.stop()
    r = damas("games", "--db", str(db))
    assert r.returncode == 0, r.stderr
    status = {int(ln.split()[0]): ln for ln in r.stdout.splitlines()[1:]}
    assert status[1].endswith("interrupted by a restart") and " * " in status[1]
    assert status[2].endswith("finished") and "1-0" in status[2]
    assert status[3].endswith("abandoned")
    assert status[4].endswith("in play")


# -- reading commands never create a database ------------------------------------------------------------
@pytest.mark.parametrize(
    "command", [("games",), ("export",), ("export", "--all"), ("replay", "--game", "1"), ("replay", "1")]
)
def test_reading_a_missing_database_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    db = tmp_path / "mistyped.sqlite3"
    one_line_error(damas(*command, "--db", str(db)), str(db), "no such database")
    assert list(tmp_path.iterdir()) == []


def test_the_store_closes(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        GameSession.start(store, "brazilian", None, "casual", Position.start("brazilian").occupied(), {})
    assert store.db is None
    with pytest.raises(Exception, match="closed"):
        store.games()
    # the commands close theirs: no ResourceWarning with warnings as errors
    r = subprocess.run(
        [sys.executable, "-X", "dev", "-W", "error", "-m", "damas", "games", "--db", str(tmp_path / "g.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "Warning" not in r.stderr, r.stderr


# -- a full disk pauses the board; nothing is lost or half-applied; play resumes by itself ------------------
class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def fill(store: Store) -> None:
    """Make the database full: no page left (SQLite answers SQLITE_FULL, as on a full disk)."""
    assert store.db is not None
    store.db.execute("PRAGMA max_page_count = 1")  # clamps to the current size
    for sql in (
        "INSERT INTO meta VALUES ('filler-' || ?, randomblob(512))",
        "INSERT INTO journal VALUES (-1, ?, 'x')",  # and the room left in the journal's own pages
    ):
        n = 0
        with pytest.raises(sqlite3.OperationalError, match="full"):
            while True:
                store.db.execute(sql, (n,))
                n += 1


@pytest.fixture
def full_app(tmp_path: Path) -> Iterator[tuple[PlayApp, Store, SimulatedBoard, Clock]]:
    clock = Clock()
    store = Store(tmp_path / "g.sqlite3")
    io = open_board(Config(), "brazilian", clock=clock)
    sim = io.sensors
    assert isinstance(sim, SimulatedBoard)
    session = GameSession.start(store, "brazilian", None, "casual", sim.occupied_squares(), {})
    app = PlayApp(store, io, session, clock=clock)
    try:
        yield app, store, sim, clock
    finally:
        io.close()
        store.close()


def step(app: PlayApp, clock: Clock, seconds: float = 0.5) -> None:
    for _ in range(int(seconds / 0.05)):
        clock.t += 0.05
        asyncio.run(app.turn())  # one turn of the board loop: what it shows is lit and pushed


def test_a_full_disk_pauses_the_board_and_play_resumes_by_itself(
    full_app: tuple[PlayApp, Store, SimulatedBoard, Clock],
) -> None:
    app, store, sim, clock = full_app
    app.sim_event("lift", 22, None)
    step(app, clock)
    assert sim.lit(Role.HINT)  # the hint for the lifted piece: the board is alive
    fill(store)
    with pytest.raises(ValueError, match=r"Cannot write the records: .*full"):
        app.sim_event("place", 18, None)
    step(app, clock)
    state = app.state("en")
    assert state["write_error"].startswith("Cannot write the records") and "full" in state["write_error"]
    assert app.state("pt")["write_error"].startswith("Não é possível gravar os registros")  # pt: pt-BR
    assert app.state("pt-PT")["write_error"].startswith("Não é possível gravar os registos")
    assert state["moves"] == []  # the event was not processed: nothing half-applied
    assert sim.lit(Role.ERROR) == set(range(1, 33)) and not sim.lit(Role.HINT)  # the LEDs say so
    assert set(state["leds"].values()) == {"error"} and len(state["leds"]) == 32
    # more events while the disk is full are kept, in order; the page's actions are refused
    with pytest.raises(ValueError, match="Cannot write the records"):
        app.sim_event("lift", 9, None)
    with pytest.raises(ValueError, match="Cannot write the records"):
        app.action({"action": "draw"})
    step(app, clock, 2.0)
    assert app.state("en")["moves"] == [] and len(app.pending) == 2
    # space comes back: the queued event goes in first, the game goes on without a restart
    assert store.db is not None
    store.db.execute("DELETE FROM meta WHERE key LIKE 'filler-%'")
    store.db.execute("DELETE FROM journal WHERE game_id = -1")
    store.db.execute("PRAGMA max_page_count = 1073741823")
    step(app, clock, 1.0)
    state = app.state("en")
    assert state["write_error"] is None and [m["pdn"] for m in state["moves"]] == ["c3-d4"]
    assert not sim.lit(Role.ERROR)
    app.sim_event("place", 13, None)
    step(app, clock, 1.0)
    assert [m["pdn"] for m in app.state("en")["moves"]] == ["c3-d4", "b6-a5"]
    # the records hold every event: a replay of the journal and its copy give the same game
    assert [m.text for m in read_pdn(export_game(store, 1).pdn())[0].moves] == ["c3-d4", "b6-a5"]
    assert store.moves(1) == [(1, "c3-d4"), (2, "b6-a5")]
    copy_lines = store.copy_path(1).read_text().splitlines()
    assert len(copy_lines) == 1 + store.journal_length(1) == 1 + 4


def test_the_journal_copy_failing_pauses_the_board_too(
    full_app: tuple[PlayApp, Store, SimulatedBoard, Clock],
) -> None:
    app, store, sim, clock = full_app
    copy = store.copy_path(1)  # (the store opens it for each line: no handle to close first)
    copy.rename(copy.with_suffix(".moved"))
    copy.mkdir()  # the copy cannot be opened for writing: as when its directory is unwritable
    with pytest.raises(ValueError, match="Cannot write the records"):
        app.sim_event("lift", 22, None)
    step(app, clock)
    assert app.state("en")["write_error"] is not None and sim.lit(Role.ERROR)
    copy.rmdir()
    copy.with_suffix(".moved").rename(copy)
    step(app, clock, 1.0)
    assert app.state("en")["write_error"] is None and not app.pending
    assert sim.lit(Role.HINT)  # the lift went in: its destinations are lit
    lines = copy.read_text().splitlines()
    assert len(lines) == 2 and '"seq": 0' in lines[1]
