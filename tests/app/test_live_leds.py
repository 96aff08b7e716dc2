"""The live board shows every settled event at once, on every backend (issue 9 §1).

A scripted game with a lift, a touch-down, a capture landing before its removals, the
removals, an illegal move and its restore is played by the hands of each backend; after
each step (one loop turn after the debounce window or the settle timer) the test reads
what is *lit*: the simulated board's LEDs, the bits the 74HC595 chain latched on gpiozero
mock pins, the LED frame the emulated Pico firmware received, and what the page was pushed
over its WebSocket. Most of these steps make no verdict: the board once lagged one event
behind the hands there.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from board_hal.backends import BoardIO
from board_hal.gpio import MatrixScanner, ShiftRegisterLeds
from board_hal.layout import Layout
from board_hal.leds import DEFAULT_LOOKS, Role
from board_hal.mockpins import MatrixMock, ShiftRegisterMock
from board_hal.simulated import SimulatedBoard
from damas.board.loop import PlayApp
from damas.board.page_state import page_state
from damas.records.session import GameSession
from damas.records.store import Store
from rules import Position

VARIANT = "brazilian"
LAYOUT = Layout(VARIANT)
GEO = Position.start(VARIANT).geometry
WINDOW = 0.05  # the debounce window
SETTLE = 1.0  # the referee's settle time (an irregular board is reported after it)


def sq(name: str) -> int:
    return GEO.parse_square(name)


# white c3 can take d4 and f6 (c3xe5xg7); black's b8 is then moved where it cannot go
FEN = f"W:W{sq('c3')},{sq('h2')}:B{sq('d4')},{sq('f6')},{sq('b8')}"
CAPTURE = {"c3": "from", "d4": "remove", "f6": "remove", "g7": "hint"}
LAST_MOVE = {"c3": "last", "g7": "last"}

#: (hands: lift or place, square, wait: "window" or "settle", what is lit afterwards)
STEPS: list[tuple[str, str, str, dict[str, str]]] = [
    ("lift", "c3", "window", CAPTURE),  # the lift: its origin, what it must take, where it may land
    ("place", "e5", "window", {**CAPTURE, "e5": "path"}),  # a touch-down on the way
    ("lift", "e5", "window", {**CAPTURE, "e5": "path"}),
    ("place", "g7", "window", {**CAPTURE, "e5": "path", "g7": "to"}),  # landed, nothing removed yet
    ("lift", "d4", "window", {"c3": "from", "e5": "path", "f6": "remove", "g7": "to"}),  # one removal
    ("lift", "f6", "window", LAST_MOVE),  # the second: the move is made
    ("lift", "b8", "window", {"b8": "from", "a7": "hint", "c7": "hint"}),
    ("place", "a5", "window", {}),  # where no move goes: dark while the hands may still be busy...
    ("place", "a5", "settle", {"b8": "missing", "a5": "extra"}),  # ...then reported (a timer)
    ("lift", "a5", "window", {"b8": "missing", "a5": "extra"}),
    ("place", "b8", "window", LAST_MOVE),  # restored: the last move again
]


def expected(step: dict[str, str]) -> dict[int, Role]:
    return {sq(name): Role(role) for name, role in step.items()}


def new_app(tmp_path: Path, io: BoardIO, clock: Callable[[], float]) -> PlayApp:
    store = Store(tmp_path / "games.sqlite3")
    squares, _cells = io.occupied()
    session = GameSession.start(store, VARIANT, FEN, "casual", squares, {}, window=WINDOW)
    return PlayApp(store, io, session, window=WINDOW, clock=clock)


def start_cells() -> set[tuple[int, int]]:
    return {LAYOUT.cell_of(s) for s in Position.from_fen(FEN, VARIANT).occupied()}


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def turn(app: PlayApp) -> None:
    """One turn of the board loop (``damas play`` runs them back to back)."""
    asyncio.run(app.turn())


def play_script(
    app: PlayApp,
    clock: FakeClock,
    hands: Callable[[str, int], None],
    lit: Callable[[], Any],
    want: Callable[[dict[str, str]], Any],
) -> None:
    """Each step: the hands act, one loop turn; time passes to the end of the debounce window
    (or the settle timer), one loop turn; then what is lit must be the step's intents, and the
    state's version must have moved whenever what is shown moved."""
    turn(app)
    before = lit()
    for i, (op, name, wait, step) in enumerate(STEPS):
        if wait == "window":  # the hands act ("settle": the same board, later)
            hands(op, sq(name))
            turn(app)
        version = app.version
        clock.t += (WINDOW if wait == "window" else SETTLE) + 0.001
        turn(app)  # the loop turn that follows the deadline
        now = lit()
        assert now == want(step), f"step {i} ({op} {name}): lit {now}"
        if now != before:
            assert app.version > version, f"step {i}: the LEDs changed but the version did not"
        before = now
        clock.t += 0.2


def test_simulated_board_lights_every_event(tmp_path: Path) -> None:
    clock = FakeClock()
    sim = SimulatedBoard(LAYOUT, occupied=Position.from_fen(FEN, VARIANT).occupied(), clock=clock)
    app = new_app(tmp_path, sim.io(), clock)

    def hands(op: str, square: int) -> None:
        (sim.place if op == "place" else sim.lift)(square)

    def lit() -> dict[int, Role]:
        return {s: r for s in sim.lit() for r in [sim.leds_now[LAYOUT.cell_of(s)]]}

    play_script(app, clock, hands, lit, expected)
    app.store.close()


class ShiftRegisterBoard:
    """A reed-switch matrix and a 74HC595 chain on gpiozero's mock pins, with ``cells``
    occupied: ``io`` for the app, ``hands`` to move pieces, ``latched`` the bits the chain holds."""

    def __init__(self, cells: set[tuple[int, int]], clock: Callable[[], float]) -> None:
        factory = MockFactory()
        rows, cols = list(range(2, 10)), list(range(10, 18))
        self.matrix = MatrixMock(rows, cols, factory)
        self.matrix.occupied = cells
        self.chain = ShiftRegisterMock(22, 23, 24, 64, factory)
        self.scanner = MatrixScanner(rows, cols, pin_factory=factory, clock=clock)
        # t = 0: every blinking pattern is in its lit phase, so the latched bits are the lit squares
        leds = ShiftRegisterLeds(8, data=22, clock=23, latch=24, pin_factory=factory, time_source=lambda: 0.0)
        self.io = BoardIO(LAYOUT, self.scanner, leds)

    def hands(self, op: str, square: int) -> None:
        (self.matrix.occupied.add if op == "place" else self.matrix.occupied.discard)(LAYOUT.cell_of(square))
        self.scanner.poll_once()  # what the scanning thread does

    def latched(self) -> set[int]:
        return {b for b, on in enumerate(self.chain.outputs) if on}


def bits(step: dict[str, str]) -> set[int]:
    """The chain's bits lit for ``step``."""
    return {r * 8 + c for s in expected(step) for r, c in [LAYOUT.cell_of(s)]}


def test_shift_register_chain_latches_every_event(tmp_path: Path) -> None:
    clock = FakeClock()
    board = ShiftRegisterBoard(start_cells(), clock)
    app = new_app(tmp_path, board.io, clock)
    try:
        play_script(app, clock, board.hands, board.latched, bits)
    finally:
        app.io.close()
        app.store.close()


def frame(step: dict[str, str]) -> dict[int, tuple[int, int, int, int]]:
    """The LED frame the Pico's firmware holds for ``step``: each lit strip position's colour
    and pattern, as the link carries them."""
    from firmware_bridge.bridge import PATTERNS

    out = {}
    for s, role in expected(step).items():
        r, c = LAYOUT.cell_of(s)
        look = DEFAULT_LOOKS[role]
        out[r * 8 + c] = (*look.colour, PATTERNS[look.pattern])
    return out


def until_lit(app: PlayApp, lit: Callable[[], object], want: object, seconds: float, what: str) -> None:
    """Turn the loop as damas play runs it until ``lit()`` is ``want`` (within ``seconds``)."""
    deadline = time.monotonic() + seconds
    while lit() != want:
        assert time.monotonic() < deadline, f"{what}: lit {lit()}"
        turn(app)
        time.sleep(0.01)


def test_emulated_pico_receives_every_event(tmp_path: Path) -> None:
    from firmware_bridge.bridge import PicoBoard
    from firmware_bridge.emulator import Emulator

    with Emulator(8, cells=start_cells()) as emu:
        board = PicoBoard(emu.port, 8, clock=time.time)
        io = BoardIO(LAYOUT, board, board)
        io.start()
        app = new_app(tmp_path, io, time.time)
        try:
            turn(app)
            for i, (op, name, wait, step) in enumerate(STEPS):
                if wait == "window":
                    (emu.place if op == "place" else emu.lift)(LAYOUT.cell_of(sq(name)))
                # the loop as damas play runs it, until the firmware holds the step's frame
                seconds = 2.0 if wait == "window" else 2.0 + SETTLE
                until_lit(app, emu.leds, frame(step), seconds, f"step {i} ({op} {name}): the Pico")
                time.sleep(0.1)
        finally:
            io.close()
            app.store.close()


@pytest.fixture
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    lp = asyncio.new_event_loop()
    yield lp
    lp.close()


def test_every_page_client_gets_each_event(tmp_path: Path, loop: asyncio.AbstractEventLoop) -> None:
    """Over the real WebSocket: after each step a push arrives with the step's LEDs, and
    every push that shows something new carries a new version."""
    from aiohttp.test_utils import TestClient, TestServer

    from damas.web.routes import build_app

    sim = SimulatedBoard(LAYOUT, occupied=Position.from_fen(FEN, VARIANT).occupied(), clock=time.time)
    app = new_app(tmp_path, sim.io(), time.time)

    async def run() -> None:
        client = TestClient(TestServer(build_app(app)))
        await client.start_server()
        try:
            socks = [await client.ws_connect("/ws?lang=en") for _ in range(2)]
            seen: dict[int, dict[str, Any]] = {}

            async def until(sock: Any, want_leds: dict[str, str], what: str) -> dict[str, Any]:
                while True:
                    try:
                        msg = await asyncio.wait_for(sock.receive(), 2 + SETTLE)
                    except TimeoutError:
                        raise AssertionError(f"{what}: no push shows {want_leds}") from None
                    state = json.loads(msg.data)
                    shown = (state["leds"], state["occupied"], state["active"], state["moves"])
                    old = seen.setdefault(state["version"], {"shown": shown})["shown"]
                    assert old == shown, f"{what}: version {state['version']} was pushed with two contents"
                    if state["leds"] == want_leds:
                        return state  # type: ignore[no-any-return]

            for i, (op, name, wait, step) in enumerate(STEPS):
                if wait == "window":
                    r = await client.post("/api/sim", json={"op": op, "square": sq(name)})
                    assert r.status == 200, await r.text()
                want_leds = {str(s): role.value for s, role in expected(step).items()}
                for sock in socks:
                    state = await until(sock, want_leds, f"step {i} ({op} {name})")
                    assert (sq(name) in state["occupied"]) == (op == "place")
                await asyncio.sleep(0.1)
            for sock in socks:
                await sock.close()
        finally:
            await client.close()

    try:
        loop.run_until_complete(run())
    finally:
        app.store.close()


def test_a_timer_held_behind_a_debounce_wakes_the_loop_when_the_window_ends(tmp_path: Path) -> None:
    """b8 is set down where no move goes: its report is due after the settle time. Just before,
    a hand lifts the piece: the referee's timer waits for that lift's debounce window
    (``Pipeline.advance``). The loop used to wake every millisecond meanwhile (49 times here);
    it wakes at its ordinary tick, or when the window ends."""
    from damas.board.loop import TICK

    clock = FakeClock()
    sim = SimulatedBoard(LAYOUT, occupied=Position.from_fen(FEN, VARIANT).occupied(), clock=clock)
    app = new_app(tmp_path, sim.io(), clock)
    try:
        app.pump()
        for op, name in (("lift", "b8"), ("place", "a5")):
            (sim.place if op == "place" else sim.lift)(sq(name))
            clock.t += WINDOW + 0.001
            app.pump()
        due = app.session.referee.next_deadline()
        assert due is not None
        clock.t = due - 0.002
        sim.lift(sq("a5"))  # the report's timer is held behind this lift's window
        app.pump()
        clock.t = due
        app.pump()
        settled = app.session.pipeline.debouncer.next_deadline()
        assert settled is not None and settled > due
        wakes = 0
        while app.session.pipeline.debouncer.next_deadline() is not None:
            wait = app._next_wake()
            assert wait >= min(TICK, settled - clock.t)
            clock.t += wait
            app.pump()
            wakes += 1
        assert wakes <= (settled - due) / TICK + 1  # (49 before)
    finally:
        app.store.close()


def test_the_pico_and_the_shift_registers_light_a_question_and_the_move_played_on(tmp_path: Path) -> None:
    """A question on hardware (issue 31): b4 fills with no lift seen (a3's sensor does not answer,
    so a3-b4 and c3-b4 explain it alike); the firmware of an emulated Pico and a 74HC595 chain on
    gpiozero's mock pins light a3 and c3 in the sensor look while it stands, and, once black has
    played f6-e5 on, that move as the last move beside them: what the page shows, on the LEDs."""
    from firmware_bridge.bridge import PicoBoard
    from firmware_bridge.emulator import Emulator

    start = Position.start(VARIANT).occupied()
    asked = {"a3": "sensor", "c3": "sensor", "b4": "last"}  # (b4: where either reading landed)
    played_on = {"a3": "sensor", "c3": "sensor", "f6": "last", "e5": "last"}

    def shown(app: PlayApp) -> dict[str, str]:
        """What the page shows lit, by square name."""
        leds: dict[str, str] = page_state(app, "en")["leds"]
        return {GEO.square_name(int(s)): role for s, role in leds.items()}

    def game(io: BoardIO, clock: Callable[[], float]) -> PlayApp:
        store = Store(tmp_path / f"{type(io.leds).__name__}.sqlite3")
        session = GameSession.start(store, VARIANT, None, "casual", start, {}, window=WINDOW)
        return PlayApp(store, io, session, window=WINDOW, clock=clock)

    with Emulator(8, cells={LAYOUT.cell_of(s) for s in start}) as emu:
        board = PicoBoard(emu.port, 8, clock=time.time)
        io = BoardIO(LAYOUT, board, board)
        io.start()
        app = game(io, time.time)
        try:
            turn(app)
            emu.place(LAYOUT.cell_of(sq("b4")))  # a3's piece lands on b4; a3 still reads a piece
            until_lit(app, emu.leds, frame(asked), 2.0 + SETTLE, "the question")
            assert page_state(app, "en")["active"]["kind"] == "sensor-confirm"
            assert shown(app) == asked
            emu.lift(LAYOUT.cell_of(sq("f6")))  # black plays on while it stands
            emu.place(LAYOUT.cell_of(sq("e5")))
            until_lit(app, emu.leds, frame(played_on), 2.0 + SETTLE, "the move played on")
            assert page_state(app, "en")["active"]["kind"] == "sensor-confirm" and shown(app) == played_on
        finally:
            io.close()
            app.store.close()

    clock = FakeClock()
    board = ShiftRegisterBoard({LAYOUT.cell_of(s) for s in start}, clock)
    app = game(board.io, clock)

    def hands(op: str, name: str) -> None:
        board.hands(op, sq(name))
        turn(app)
        clock.t += SETTLE + 0.001  # past the debounce window and the settle time
        turn(app)

    try:
        turn(app)
        hands("place", "b4")
        assert board.latched() == bits(asked) and shown(app) == asked
        hands("lift", "f6")
        hands("place", "e5")
        assert board.latched() == bits(played_on) and shown(app) == played_on
    finally:
        app.io.close()
        app.store.close()
