"""An evening of play as a new player had it (issue 28): the defects they hit, each seen where a
person sees it — the PDN downloaded, the bits a 74HC595 chain latched, what the CLI printed.
(The page itself, in Chromium: ``test_browser_evening.py``.)"""

from __future__ import annotations

import asyncio
import re
import subprocess
import time
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from board_hal.backends import BoardIO
from board_hal.config import load_config, parse_config
from board_hal.gpio import MatrixScanner, ShiftRegisterLeds
from board_hal.layout import Layout
from board_hal.leds import DEFAULT_LOOKS, Pattern, Role, looks_from_config
from board_hal.mockpins import MatrixMock, ShiftRegisterMock
from damas.board.loop import PlayApp
from damas.computer.player import key_of
from damas.records.session import GameSession
from damas.records.store import Store
from rules import Position
from rules.pdn import read_game
from tests.app.server import Server
from tests.conftest import damas

ROOT = Path(__file__).resolve().parents[2]
VARIANT = "brazilian"
LAYOUT = Layout(VARIANT)
START = Position.start(VARIANT)
GEO = START.geometry


def sq(name: str) -> int:
    return GEO.parse_square(name)


def hand_move(server: Server, pdn: str, pos: Position) -> Position:
    """One move made by the simulated hands (a capture: landed, then its pieces taken off),
    each touch waited on; the position after it."""
    move = pos.parse_pdn(pdn)
    plies = len(server.get("/api/state")["moves"])
    server.sim("lift", move.from_square)
    server.wait_for(lambda s: s["leds"].get(str(move.from_square)) == "from")
    server.sim("place", move.to_square)
    for q in move.captured:
        server.sim("lift", q)
    server.wait_for(lambda s: len(s["moves"]) == plies + 1)
    return pos.apply(move)


# -- 1. the clock after a power cut -----------------------------------------------------------------
def test_one_press_after_a_power_cut_ends_the_move_made_meanwhile(tmp_path: Path) -> None:
    """Black lifts e5 to capture, the power goes; back, Black finishes e5xg3 and presses once:
    White's clock runs (it used to be Black's until a second press), and the record says so."""
    db = tmp_path / "games.sqlite3"
    server = Server(db, "--clock", "fenacef", "--mode", "tournament").start()
    pos = Position.start(VARIANT)
    try:
        server.post("/api/action", {"action": "clock", "side": "black"})  # White's clock starts
        for pdn, side in (("g3-h4", "white"), ("d6-e5", "black"), ("e3-f4", "white")):
            pos = hand_move(server, pdn, pos)
            server.post("/api/action", {"action": "clock", "side": side})
        server.wait_for(lambda s: s["clock"]["running"] == "black")
        server.sim("lift", sq("e5"))  # Black starts the capture...
        server.wait_for(lambda s: s["leds"].get(str(sq("e5"))) == "from")
        server.kill()  # ...and the power goes
    finally:
        if server.proc is not None:
            server.stop()
    again = Server(db, "--resume").start()
    try:
        face = again.get("/api/state")["clock"]
        assert face["paused_by"] == "power" and face["running"] == "black"
        again.sim("place", sq("g3"))
        again.sim("lift", sq("f4"))
        state = again.wait_for(lambda s: len(s["moves"]) == 4)
        assert state["turn"] == "white"
        again.post("/api/action", {"action": "clock", "side": "black"})  # once
        state = again.wait_for(lambda s: not s["clock"]["paused"])
        assert state["clock"]["running"] == "white"
        pdn = again.get(f"/games/{state['game']}.pdn")
    finally:
        again.stop()
    last = read_game(pdn).moves[-1]
    assert last.clock is not None and last.clock.running is not None
    assert last.clock.running.value == "white", pdn
    assert re.search(r"2\.\.\. e5xg3 \{\[%clock W0:\d\d:\d\d b0:\d\d:\d\d\]\}", pdn), pdn


# -- 3. the majority law: the man dropped on the wrong landing lights at once ------------------------
# after 1. e3-d4 d6-e5 2. a3-b4 b6-c5: d4xb6 takes one piece, b4xd6xf4 two
MAJORITY = "W:Wb4,d4,c3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,f6,h6,c5,e5"


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Wired:
    """The board loop on a matrix of reeds and a 74HC595 chain (gpiozero's mock pins), time
    in the test's hands (``clock``: the loop's; ``now``: the LEDs' blink phase)."""

    def __init__(self, tmp_path: Path, fen: str) -> None:
        self.clock = FakeClock()
        self.now = 0.0
        factory = MockFactory()
        rows, cols = list(range(2, 10)), list(range(10, 18))
        self.matrix = MatrixMock(rows, cols, factory)
        self.matrix.occupied = {LAYOUT.cell_of(s) for s in Position.from_fen(fen, VARIANT).occupied()}
        self.chain = ShiftRegisterMock(22, 23, 24, 64, factory)
        self.scanner = MatrixScanner(rows, cols, pin_factory=factory, clock=self.clock)
        self.leds = ShiftRegisterLeds(8, data=22, clock=23, latch=24, pin_factory=factory, time_source=lambda: self.now)
        store = Store(tmp_path / "games.sqlite3")
        io = BoardIO(LAYOUT, self.scanner, self.leds)
        squares, _cells = io.occupied()
        session = GameSession.start(store, VARIANT, fen, "casual", squares, {}, window=0.05)
        self.app = PlayApp(store, io, session, window=0.05, clock=self.clock)

    def turn(self, seconds: float = 0.0) -> None:
        asyncio.run(self.app.turn())
        for _ in range(round(seconds / 0.05)):
            self.clock.t += 0.05
            asyncio.run(self.app.turn())

    def hands(self, op: str, name: str, wait: float = 0.15) -> None:
        (self.matrix.occupied.add if op == "place" else self.matrix.occupied.discard)(LAYOUT.cell_of(sq(name)))
        self.scanner.poll_once()  # what the scanning thread does
        self.turn(wait)

    def latched(self, at: float | None = None) -> set[str]:
        """The squares whose LED the chain holds on (at blink phase ``at``, if given)."""
        if at is not None:
            self.now = at
            self.leds.refresh()
        squares = [LAYOUT.square_of(b // 8, b % 8) for b, on in enumerate(self.chain.outputs) if on]
        return {START.square_text(q) for q in squares if q is not None}

    def close(self) -> None:
        self.app.io.close()
        self.app.store.close()


def test_a_man_dropped_where_the_law_forbids_is_lit_to_take_off_at_once(tmp_path: Path) -> None:
    board = Wired(tmp_path, MAJORITY)
    try:
        board.turn()
        board.hands("lift", "d4", 0.6)  # not the piece that must capture: reported after the grace
        assert board.app.session.referee.report is not None
        board.hands("place", "b6")  # dropped on b6 (taking one piece where two must go)
        assert "b6" in board.latched()  # "take this piece off", at once (not a second later)
        assert {i.role for i in board.app.session.referee.led_intents() if i.square == sq("b6")} == {Role.EXTRA}
    finally:
        board.close()


# -- 4. roles of their own, with blink patterns a single-colour LED tells apart ----------------------
def test_a_suggested_move_and_the_last_move_blink_apart_on_single_colour_leds(tmp_path: Path) -> None:
    board = Wired(tmp_path, MAJORITY)
    try:
        ref = board.app.session.referee
        move = ref.position.parse_pdn("b4xf4")
        board.app.computer.hint = (key_of(ref), move)  # the engine's suggestion (its answer, without an engine)
        board.turn()
        seen = {t: board.latched(at=t) for t in (0.0, 0.2, 0.35, 0.6, 1.3)}  # the bits latched first (the surface)
        # its piece blinks twice and pauses; where it goes is on but for a dark moment; the
        # landing on the way stays steady
        assert [("b4" in seen[t], "f4" in seen[t], "d6" in seen[t]) for t in seen] == [
            (True, True, True),
            (False, True, True),
            (True, True, True),
            (False, True, True),
            (False, False, True),
        ]
        roles = dict(board.app.led_intents())
        assert (roles[sq("b4")], roles[sq("f4")], roles[sq("d6")]) == (Role.SUGGEST_FROM, Role.SUGGEST_TO, Role.PATH)
        # the patterns of the roles a player meets side by side all differ
        patterns = [DEFAULT_LOOKS[r].pattern for r in (Role.HINT, Role.SUGGEST_FROM, Role.SUGGEST_TO, Role.LAST)]
        assert len(set(patterns)) == 4 and patterns[0] is Pattern.STEADY
    finally:
        board.close()


def test_the_last_move_flashes_and_the_hint_colour_key_still_works(tmp_path: Path) -> None:
    board = Wired(tmp_path, MAJORITY)
    try:
        for op, name in (("lift", "b4"), ("place", "f4"), ("lift", "c5"), ("lift", "e5")):
            board.hands(op, name)
        assert board.app.session.referee.game.ply == 1
        assert board.latched(at=0.05) == {"b4", "f4"}
        assert board.latched(at=0.5) == set()  # a flash, not a steady "the piece lifted"
        assert dict(board.app.led_intents()) == {sq("b4"): Role.LAST, sq("f4"): Role.LAST}
    finally:
        board.close()
    # [leds] colours: the old key `hint` (and `can-go`) still names where a lifted piece can go
    assert looks_from_config({"hint": "#102030"})[Role.HINT].colour == (16, 32, 48)
    assert looks_from_config({"can-go": "#102030"})[Role.HINT].colour == (16, 32, 48)
    cfg = parse_config('[leds.colours]\nhint = "#00ff00"\nlast = "#0000ff"\n', "b.toml", env={})
    assert cfg.looks[Role.HINT].colour == (0, 255, 0) and cfg.looks[Role.LAST].colour == (0, 0, 255)


# -- 6. the small things ----------------------------------------------------------------------------
def test_a_flag_and_a_resignation_end_the_record_with_termination_and_the_final_clock(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server = Server(db, "--clock", "0.05", "--mode", "tournament").start()  # 3 s each
    pos = Position.start(VARIANT)
    try:
        server.post("/api/action", {"action": "clock", "side": "black"})
        pos = hand_move(server, "c3-d4", pos)
        server.post("/api/action", {"action": "clock", "side": "white"})
        state = server.wait_for(lambda s: s["result"] != "*", timeout=20)  # Black's flag falls
        flagged = server.get(f"/games/{state['game']}.pdn")
        # the next game: a move, then a resignation while White's clock runs
        server.post("/api/action", {"action": "new-game", "clock": "5"})
        state = server.wait_for(lambda s: not s["moves"] and s["game"] != state["game"])
        server.post("/api/action", {"action": "clock", "side": "black"})
        hand_move(server, "c3-d4", Position.start(VARIANT))
        server.post("/api/action", {"action": "clock", "side": "white"})
        time.sleep(1.2)  # Black thinks, and resigns
        server.post("/api/action", {"action": "resign", "side": "black"})
        state = server.wait_for(lambda s: s["result"] != "*")
        resigned = server.get(f"/games/{state['game']}.pdn")
    finally:
        server.stop()
    game = read_game(flagged)
    assert game.tags["Termination"] == "Time forfeit" and game.result == "1-0"
    clocks = [c for c in game.moves[-1].comments if c.startswith("[%clock")]
    assert len(clocks) == 2 and clocks[-1].endswith("b0:00:00]"), flagged  # the flag, as it fell
    game = read_game(resigned)
    assert game.tags["Termination"] == "Normal" and game.result == "1-0"
    move_clock, final = (c for c in game.moves[-1].comments if c.startswith("[%clock"))
    assert "B0:05:00" in move_clock, resigned  # (Black's clock ran after White's press)
    assert re.fullmatch(r"\[%clock w0:05:00 b0:04:5\d\]", final), resigned  # Black's 1.2 s counted


def test_port_must_be_a_port(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite3")
    for port in ("0", "99999", "-5", "http"):
        r = damas("play", "--db", db, "--no-browser", "--port", port)
        assert r.returncode == 2 and "not a port" in r.stderr.strip().splitlines()[-1], (port, r.stderr)
        assert "Traceback" not in r.stderr
    assert not Path(db).exists()  # refused before anything was opened


def test_readme_and_make_say_how_to_pass_options() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "--port" in readme and "--no-browser" in readme and 'make play ARGS="' in readme
    r = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "play", "ARGS=--port 8123 --no-browser"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    assert re.search(r"damas play --port 8123 --no-browser$", r.stdout, re.MULTILINE), r.stdout


def test_the_pico_example_plays_what_the_emulator_sets_up() -> None:
    """hardware/pico.toml once said Portuguese while `damas emulator` sets up Brazilian: every
    square showed missing on the first try."""
    config = load_config(str(ROOT / "hardware" / "pico.toml"))
    r = damas("emulator", "-h")
    default = re.search(r"default (\w+)", r.stdout)
    assert default is not None and config.variant == default.group(1) == "brazilian"


def test_games_lists_plies_and_cuts_long_names_with_an_ellipsis(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        tags = {"White": "Ana Beatriz Fonseca Gonçalves", "Black": "Rui"}
        GameSession.start(store, VARIANT, None, "casual", Position.start(VARIANT).occupied(), tags)
    r = damas("games", "--db", str(db))
    assert r.returncode == 0, r.stderr
    head, row = r.stdout.splitlines()[:2]
    assert " plies " in head and " moves " not in head
    assert "Ana Beatriz Fonseca Gonçalv…" in row


def test_a_fen_for_another_variant_is_named_without_a_wrong_article(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--variant", "international").start()
    try:
        import json
        import urllib.error
        import urllib.request

        body = json.dumps({"action": "new-game", "variant": "international", "fen": "W:W51:B1"}).encode()
        req = urllib.request.Request(
            server.url + "/api/action", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            urllib.request.urlopen(req, timeout=10)
        except urllib.error.HTTPError as exc:
            error = json.loads(exc.read())["error"]
        else:
            raise AssertionError("a bad FEN was taken")
    finally:
        server.stop()
    assert error.startswith("this FEN is not a position of International draughts: "), error
