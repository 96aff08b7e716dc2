"""damas play: crash safety, records, export/import, the live feed, bad input, the token."""

from __future__ import annotations

import contextlib
import json
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest

from board_hal.debounce import Transition
from damas.records.session import GameSession, export_game, load_log
from damas.records.store import Store
from referee import Action
from rules import Color, Move, Position
from rules.pdn import read_pdn
from tests.app.server import Server, free_port
from tests.conftest import damas, one_line_error, random_game


def hands_actions(start: Position, moves: list[Move]) -> list[tuple[str, int]]:
    """Lift/place actions for a game: captured pieces come off after the landing."""
    out = []
    for m in moves:
        out.append(("lift", m.from_square))
        out.append(("place", m.to_square))
        out += [("lift", c) for c in m.captured]
    return out


_OPEN: list[Store] = []


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def request_close(store: Store) -> Store:
    """Close the store when the test ends (an open file would be a ResourceWarning)."""
    _OPEN.append(store)
    return store


def movetext(pdn: str) -> str:
    return pdn.split("\n\n", 1)[1].strip()


GAP = 0.08  # seconds between two actions: more than the debounce window, as with human hands


def play_through(server: Server, actions: list[tuple[str, int]]) -> None:
    for op, sq in actions:
        server.sim(op, sq)
        time.sleep(GAP)


def test_crash_safety_sigkill_at_random_points(tmp_path: Path) -> None:
    start, moves = random_game("brazilian", 4, 30)
    assert sum(1 for m in moves if m.captured) >= 3
    actions = hands_actions(start, moves)

    # the uninterrupted game
    ref = Server(tmp_path / "ref.sqlite3", "--white", "Ana", "--black", "Rui").start()
    try:
        play_through(ref, actions)
        ref.wait_for(lambda s: len(s["moves"]) == len(moves))
        expected = ref.get("/games/1.pdn")
    finally:
        ref.stop()

    # the same game, killed (SIGKILL stands in for a power cut) at random points
    rng = random.Random(7)
    server = Server(tmp_path / "crash.sqlite3", "--white", "Ana", "--black", "Rui").start()
    kills = 0
    shown_moves = 0
    i = 0
    try:
        while i < len(actions):
            op, sq = actions[i]
            if rng.random() < 0.15:
                # kill while the request is being answered, or between two requests
                if rng.random() < 0.5:
                    with contextlib.suppress(urllib.error.URLError, ConnectionError):
                        server.post("/api/sim", {"op": op, "square": sq})
                server.kill()
                kills += 1
                server.start("--resume")
                state = server.get("/api/state")
                assert len(state["moves"]) >= shown_moves  # no move that was shown is lost
                occupied = set(state["occupied"])
                done = (sq in occupied) == (op == "place")
                i += 1 if done else 0
                continue
            server.sim(op, sq)
            time.sleep(GAP)
            shown_moves = max(shown_moves, len(server.get("/api/state")["moves"]))
            i += 1
        state = server.wait_for(lambda s: len(s["moves"]) == len(moves))
        got = server.get(f"/games/{state['game']}.pdn")
    finally:
        server.stop()
    assert kills >= 3
    assert movetext(got) == movetext(expected)
    (g1,), (g2,) = read_pdn(got), read_pdn(expected)
    assert [m.move for m in g1.moves] == [m.move for m in g2.moves] == moves
    assert g1.tags == g2.tags
    # the records agree: no duplicate, nothing missing
    db = sqlite3.connect(tmp_path / "crash.sqlite3")
    plies = [r[0] for r in db.execute("SELECT ply FROM moves ORDER BY ply")]
    assert plies == list(range(1, len(moves) + 1))
    r = subprocess.run(
        [sys.executable, "-m", "damas", "export", "--db", str(tmp_path / "crash.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert movetext(r.stdout) == movetext(expected)


def journal_and_records(db: Path) -> tuple[list[tuple[int, bool]], list[str], list[str]]:
    """After a power cut, straight from the database: the board events the journal holds, the
    moves the records hold, and the moves a replay of that journal derives (window 0)."""
    con = sqlite3.connect(db)
    try:
        events = [json.loads(e) for (e,) in con.execute("SELECT event FROM journal ORDER BY game_id, seq")]
        recorded = [p for (p,) in con.execute("SELECT pdn FROM moves ORDER BY game_id, ply")]
    finally:
        con.close()
    with Store(db) as store:
        row = store.games()[0]
        _header, log, _problem = load_log(store, row)
        session = GameSession(store, row, window=0.0)
        for ev in log:
            session._apply_raw(ev)
            session.pipeline.feed(ev)
        derived = [m[1] for m in session._move_rows()]
    journal = [(e["square"], e["event"] == "place") for e in events if "square" in e]
    return journal, recorded, derived


def test_power_cut_inside_a_request_loses_no_acknowledged_event(tmp_path: Path) -> None:
    """The server dies (SIGKILL at a chosen database write: tests/app/crashpoint.py) while a
    request is being answered or a tick is being recorded. With a zero debounce window an event
    is judged in the request that brings it, so a record and its event are written together:
    the journal must come first. After every cut, read from the database: each acknowledged
    event is in the journal (at most the one in flight beyond), and no record runs ahead of the
    journal (the moves recorded are a prefix of what the journal replays to)."""
    config = tmp_path / "board.toml"
    config.write_text("[board]\ndebounce = 0\n")
    start, moves = random_game("brazilian", 4, 16)
    assert sum(1 for m in moves if m.captured) >= 2
    actions = hands_actions(start, moves)
    db = tmp_path / "cut.sqlite3"
    rng = random.Random(19)
    acked: list[tuple[int, bool]] = []
    cuts = in_request = 0
    i = 0
    while i < len(actions):
        kill_at, when = rng.randint(2, 7), rng.choice(["before", "after"])
        env = {"DAMAS_TEST_KILL_AT": str(kill_at), "DAMAS_TEST_KILL_WHEN": when}
        server = Server(db, "--config", str(config), "--white", "Ana", env=env, module="tests.app.crashpoint")
        try:
            with contextlib.suppress(RuntimeError):  # a cut during start-up (the resume writes too)
                server.start("--resume")
                while i < len(actions):
                    op, sq = actions[i]
                    try:
                        server.post("/api/sim", {"op": op, "square": sq})
                    except (urllib.error.URLError, ConnectionError):
                        in_request += 1
                        break
                    acked.append((sq, op == "place"))
                    i += 1
            if server.proc is not None and i == len(actions) and server.proc.poll() is None:
                server.stop()  # the game played to its end before this run's cut came
            elif server.proc is not None:
                assert server.proc.wait(10) == -signal.SIGKILL, server.stop()
        finally:
            if server.proc is not None:  # dead already, or a failed check: nothing left running
                server.kill()
        cuts += 1
        journal, recorded, derived = journal_and_records(db)
        assert journal[: len(acked)] == acked, (when, kill_at)  # every acknowledged event is durable
        assert len(journal) <= len(acked) + 1  # and nothing but the one in flight beyond them
        if len(journal) == len(acked) + 1:  # written, not answered: it happened (the hands did it)
            assert i < len(actions) and journal[-1] == (actions[i][1], actions[i][0] == "place")
            acked.append(journal[-1])
            i += 1
        assert recorded == derived[: len(recorded)], (recorded, derived)  # no record ahead of its event
    assert cuts >= 5 and in_request >= 3
    server = Server(db, "--config", str(config)).start("--resume")
    try:
        state = server.wait_for(lambda s: len(s["moves"]) == len(moves))
        got = server.get(f"/games/{state['game']}.pdn")
    finally:
        server.stop()
    ((game,),) = (read_pdn(got),)
    assert [m.move for m in game.moves] == moves
    assert game.tags["White"] == "Ana"


def test_server_helper_survives_a_taken_port(tmp_path: Path) -> None:
    """free_port releases the port before damas play binds it: when another program takes it in
    between, the helper starts the server again elsewhere instead of talking to the intruder."""
    with socket.socket() as intruder:
        intruder.bind(("127.0.0.1", 0))
        intruder.listen()
        server = Server(tmp_path / "g.sqlite3")
        taken = server.port = int(intruder.getsockname()[1])
        server.start()
        try:
            assert server.port != taken
            assert server.get("/api/state")["game"] == 1
        finally:
            server.stop()


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_export_import_round_trip(tmp_path: Path, variant: str) -> None:
    store = Store(tmp_path / "g.sqlite3")
    request_close(store)
    start, moves = random_game(variant, 11, 40)
    s = GameSession.start(store, variant, None, "casual", start.occupied(), {"White": "A", "Black": "B"})
    t = 1000.0
    for op, sq in hands_actions(start, moves):
        t += 0.3
        s.feed(Transition(t, sq, op == "place"))
    s.tick(t + 5)
    if s.referee.game.outcome() is None:
        s.feed(Action(t + 6, "draw"))
    (back,) = read_pdn(export_game(store, s.row.id).pdn())
    assert back.variant.name == variant
    assert [m.move for m in back.moves] == moves
    assert back.tags["White"] == "A" and back.tags["Site"] == "?"
    assert [p for p, _ in store.moves(s.row.id)] == list(range(1, len(moves) + 1))
    # a takeback withdraws the move from the records too
    row = store.game(s.row.id)
    assert row.finished


def test_takeback_is_withdrawn_from_the_records(tmp_path: Path) -> None:
    store = Store(tmp_path / "g.sqlite3")
    request_close(store)
    s = GameSession.start(store, "international", None, "casual", Position.start("international").occupied(), {})
    for t, sq, occ in [(1, 32, False), (2, 28, True), (3, 19, False), (4, 23, True), (5, 23, False), (6, 19, True)]:
        s.feed(Transition(float(t), sq, occ))
    s.tick(10)
    assert store.moves(s.row.id) == [(1, "32-28")]
    resumed = GameSession.resume(store, store.game(s.row.id))
    assert [str(m) for m in resumed.referee.game.move_stack] == ["32-28"]


def test_live_feed_and_game_urls(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--variant", "international", "--event", "Club night").start()
    try:
        play_through(server, [("lift", 32), ("place", 28), ("lift", 19), ("place", 23)])
        server.wait_for(lambda s: len(s["moves"]) == 2)
        server.post("/api/action", {"action": "resign", "side": "black"})
        server.post("/api/action", {"action": "new-game"})
        play_through(server, [("lift", 33), ("place", 29)])
        server.wait_for(lambda s: len(s["moves"]) == 1 and s["game"] == 2)
        feed = server.get("/live.pdn")
        games = read_pdn(feed)
        assert len(games) == 2
        assert [pm.text for pm in games[0].moves] == ["33-29"] and games[0].result == "*"
        assert [pm.text for pm in games[1].moves] == ["32-28", "19-23"] and games[1].result == "2-0"
        assert games[1].tags["Event"] == "Club night"
        one = read_pdn(server.get("/games/1.pdn"))
        assert [m.move for m in one[0].moves] == [m.move for m in games[1].moves]
        # correct a recorded game's tags and result afterwards
        server.post("/api/games/1/tags", {"tags": {"White": "Ana"}, "result": "1-1"})
        fixed = read_pdn(server.get("/games/1.pdn"))[0]
        assert fixed.tags["White"] == "Ana" and fixed.result == "1-1"
        # the page in both languages
        assert server.get("/api/state?lang=pt")["ui"]["moves"] == "Lances"
        assert server.get("/api/state?lang=en")["ui"]["moves"] == "Moves"
    finally:
        server.stop()
    r = subprocess.run(
        [sys.executable, "-m", "damas", "games", "--db", str(tmp_path / "g.sqlite3")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Ana - ?" in r.stdout and "1-1" in r.stdout and "in play" in r.stdout


def test_reports_in_portuguese(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--variant", "international", "--fen", "W:W32,45:B27").start()
    try:
        server.sim("lift", 45)
        state = server.wait_for(lambda s: s["active"] is not None)
        assert state["active"]["kind"] == "required-capture"
        pt = server.get("/api/state?lang=pt")
        assert pt["active"]["message"] == "Captura obrigatória: capture com 32"
        assert server.get("/api/state?lang=en")["active"]["message"].startswith("a capture is compulsory")
    finally:
        server.stop()


def test_no_resume_starts_a_new_game(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    server = Server(db).start()
    try:
        server.move(22, 18)
        server.wait_for(lambda s: len(s["moves"]) == 1)
        server.kill()
        server.start("--no-resume")
        state = server.get("/api/state")
        assert state["game"] == 2 and state["moves"] == []
    finally:
        server.stop()
    with Store(db) as store:
        rows = store.games()
    assert [(r.id, r.finished, r.result) for r in rows] == [(2, False, "*"), (1, True, "*")]


def test_network_host_needs_the_token_for_actions(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--host", "0.0.0.0")
    server.start()
    try:
        assert server.proc is not None
        state = server.get("/api/state")  # watching is open
        assert state["token_required"]
        for path, body in (("/api/sim", {"op": "lift", "square": 22}), ("/api/action", {"action": "draw"})):
            with pytest.raises(urllib.error.HTTPError) as info:
                server.post(path, body)
            assert info.value.code == 403
            info.value.close()
    finally:
        out = server.stop()
    assert "need the token" in out
    server2 = Server(tmp_path / "g2.sqlite3", "--host", "0.0.0.0").start()
    try:
        assert server2.proc is not None and server2.proc.stdout is not None
        line = server2.proc.stdout.readline()  # the token is printed at start-up, after the address
        token = line.split("need the token ")[1].split()[0]
        assert server2.post("/api/sim", {"op": "lift", "square": 22}, token=token)["ok"]
        assert server2.post("/api/action", {"action": "resign", "side": "white"}, token=token)["ok"]
    finally:
        server2.stop()


# -- bad input: one clear line, never a traceback ------------------------------------------------


def test_corrupt_database(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    db.write_bytes(b"this is not a database, just some text that fills the header area " * 20)
    one_line_error(damas("play", "--db", str(db), "--no-browser", "--port", str(free_port())), str(db), "database")
    one_line_error(damas("games", "--db", str(db)), "database")
    one_line_error(damas("export", "--db", str(db)), "database")


def test_broken_config_and_bad_fen(tmp_path: Path) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text("[board\n")
    one_line_error(damas("play", "--config", str(cfg), "--db", str(tmp_path / "g.sqlite3")), "not a valid TOML")
    one_line_error(
        damas("play", "--fen", "W:W99:B1", "--db", str(tmp_path / "g.sqlite3"), "--no-browser"), "invalid fen"
    )


def test_port_already_in_use(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        one_line_error(
            damas("play", "--db", str(tmp_path / "g.sqlite3"), "--no-browser", "--port", str(port)),
            f"port {port}",
            "already in use",
        )


def test_replay_a_game_from_the_database(tmp_path: Path) -> None:
    with Store(tmp_path / "g.sqlite3") as store:
        s = GameSession.start(store, "portuguese", None, "casual", Position.start("portuguese").occupied(), {})
        for t, sq, occ in [(1, 10, False), (2, 14, True), (3, 22, False), (4, 18, True)]:
            s.feed(Transition(float(t), sq, occ))
        s.feed(Action(9.0, "resign", Color.WHITE))
    r = damas("replay", "--game", "1", "--db", str(tmp_path / "g.sqlite3"), "--json")
    assert r.returncode == 0, r.stderr
    assert '"move": "10-14"' in r.stdout and '"move": "22-18"' in r.stdout and '"resignation"' in r.stdout
    one_line_error(damas("replay", "--game", "7", "--db", str(tmp_path / "g.sqlite3")), "no game 7")
