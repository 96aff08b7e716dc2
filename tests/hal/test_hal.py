"""The hardware abstraction layer, without hardware: gpiozero's MockFactory and the simulated board."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st

from board_hal.backends import BoardIO
from board_hal.config import ConfigError, load_config, parse_config
from board_hal.debounce import Debouncer, Transition
from board_hal.factory import open_board
from board_hal.gpio import MatrixScanner, ShiftRegisterLeds
from board_hal.layout import ROTATIONS, WHITE_SIDES, Layout
from board_hal.leds import DEFAULT_LOOKS, Pattern, Role, lit, looks_from_config, render_rgb
from board_hal.mockpins import MatrixMock, ShiftRegisterMock
from board_hal.selftest import Prompt, SelfTest
from board_hal.simulated import SimulatedBoard, default_senses
from tests.conftest import ROOT

PINS_8 = ([2, 3, 4, 5, 6, 7, 8, 9], [10, 11, 12, 13, 14, 15, 16, 17])
PINS_10 = ([2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [12, 13, 14, 15, 16, 17, 18, 19, 20, 21])


# -- matrix scan ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("rows", "cols"), [PINS_8, PINS_10])
def test_matrix_scan_reads_the_simulated_occupancy(rows: list[int], cols: list[int]) -> None:
    factory = MockFactory()
    matrix = MatrixMock(rows, cols, factory)
    n = len(rows)
    rng = random.Random(n)
    with MatrixScanner(rows, cols, pin_factory=factory, clock=lambda: 1.0) as scanner:
        for _ in range(30):
            matrix.occupied = {(r, c) for r in range(n) for c in range(n) if rng.random() < 0.4}
            assert scanner.scan() == frozenset(matrix.occupied)
        # every cell alone, and a full board (no ghosts: diodes)
        for cell in [(r, c) for r in range(n) for c in range(n)]:
            matrix.occupied = {cell}
            assert scanner.scan() == {cell}
        matrix.occupied = {(r, c) for r in range(n) for c in range(n)}
        assert len(scanner.scan()) == n * n


def test_matrix_scanner_enqueues_transitions_and_closes_twice() -> None:
    factory = MockFactory()
    matrix = MatrixMock(*PINS_8, factory)
    matrix.occupied = {(0, 0)}
    t = [5.0]
    scanner = MatrixScanner(*PINS_8, pin_factory=factory, clock=lambda: t[0])
    assert scanner.snapshot() == {(0, 0)}
    matrix.occupied = {(1, 1)}
    t[0] = 6.0
    scanner.poll_once()
    got = [scanner.transitions.get_nowait() for _ in range(2)]
    assert {(g.cell, g.occupied, g.t) for g in got} == {((0, 0), False, 6.0), ((1, 1), True, 6.0)}
    scanner.close()
    scanner.close()


def test_matrix_scanner_thread_delivers_events() -> None:
    factory = MockFactory()
    matrix = MatrixMock(*PINS_8, factory)
    with MatrixScanner(*PINS_8, pin_factory=factory, rate=500) as scanner:
        scanner.start()
        matrix.occupied = {(2, 3)}
        ev = scanner.transitions.get(timeout=2.0)
        assert ev.cell == (2, 3) and ev.occupied


def test_the_scanner_waits_the_settling_time_between_driving_a_row_and_reading_it() -> None:
    """Measured at the pins, in real time: every column is read at least 30 µs after its row
    was driven low (time.sleep sleeps at least that long), and the columns are polled inputs:
    no edge callback on them (a DigitalInputDevice sets one, a Python call at every edge)."""
    factory = MockFactory()
    matrix = MatrixMock(*PINS_8, factory)
    with MatrixScanner(*PINS_8, pin_factory=factory) as scanner:
        matrix.log.clear()
        scanner.scan()
        delays = matrix.settle_times()
        assert len(delays) == 64 and min(delays) >= 30e-6
        assert all(pin.when_changed is None for pin in matrix.columns)
        assert all(type(col).__name__ == "InputDevice" for col in scanner._cols)


def test_a_slow_column_makes_a_ghost_only_without_the_settling_time() -> None:
    """A piece on a1 holds column a low while row 1 is scanned; its wire takes 20 µs to rise
    again (a fake clock: each pin access takes 1 µs). Read at once, a2 is a ghost on every scan."""
    t = [0.0]

    def clock() -> float:
        t[0] += 1e-6
        return t[0]

    def sleep(seconds: float) -> None:
        t[0] += seconds

    factory = MockFactory()
    matrix = MatrixMock(*PINS_8, factory, clock=clock, rise=20e-6)
    matrix.occupied = {(0, 0)}
    with MatrixScanner(*PINS_8, pin_factory=factory, settle=0, sleep=sleep) as hasty:
        assert all((1, 0) in hasty.scan() for _ in range(5))  # a ghost on a2, every time
    with MatrixScanner(*PINS_8, pin_factory=factory, sleep=sleep) as patient:
        assert all(patient.scan() == {(0, 0)} for _ in range(5))


def test_matrix_needs_a_square() -> None:
    with pytest.raises(ValueError, match="as many rows as columns"):
        MatrixScanner([2, 3], [4], pin_factory=MockFactory())


# -- layouts -----------------------------------------------------------------------------------
@settings(max_examples=200)
@given(
    st.sampled_from(["brazilian", "international", "portuguese"]),
    st.sampled_from(ROTATIONS),
    st.sampled_from(WHITE_SIDES),
    st.data(),
)
def test_every_orientation_maps_both_ways(variant: str, rotation: int, side: str, data: st.DataObject) -> None:
    lay = Layout(variant, rotation, side)
    n = lay.size
    row = data.draw(st.integers(0, n - 1))
    col = data.draw(st.integers(0, n - 1))
    key = lay.key_of(row, col)
    assert lay.cell_of_key(key) == (row, col)
    if isinstance(key, int):
        assert lay.cell_of(key) == (row, col) and lay.square_of(row, col) == key
    assert lay.physical(*lay.board_coord(row, col)) == (row, col)


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_layout_is_a_bijection_onto_the_squares(variant: str) -> None:
    for rotation in ROTATIONS:
        for side in WHITE_SIDES:
            lay = Layout(variant, rotation, side)
            squares = [lay.square_of(r, c) for r, c in lay.cells()]
            played = sorted(s for s in squares if s is not None)
            assert played == list(lay.geometry.squares())
            assert squares.count(None) == lay.size * lay.size // 2


def test_one_8x8_board_plays_both_colours() -> None:
    br, pt = Layout("brazilian"), Layout("portuguese")
    assert br.square_of(0, 0) == 29 and pt.square_of(0, 0) is None  # a1: Brazilian plays it
    assert br.square_of(0, 7) is None and pt.square_of(0, 7) == 1  # h1: Portuguese square 1
    assert br.key_of(0, 7) == "h1" and pt.key_of(0, 0) == "a1"


def test_rotation_and_white_side_compose() -> None:
    assert Layout("international", 180).cell_of(1) == Layout("international", 0, "far").cell_of(1)
    assert Layout("international", 90).cell_of(46) != Layout("international").cell_of(46)
    with pytest.raises(ValueError):
        Layout("international", 45)


# -- debounce --------------------------------------------------------------------------------------
def test_clean_input_passes_unchanged_one_window_later() -> None:
    d = Debouncer(0.05, {1: True})
    trace = [Transition(0.0, 1, False), Transition(0.5, 2, True), Transition(1.0, 2, False)]
    out = []
    for tr in trace:
        out += d.feed(tr)
    out += d.flush(10)
    assert out == trace


@settings(max_examples=300)
@given(
    st.lists(st.tuples(st.integers(1, 4), st.booleans(), st.integers(1, 3)), min_size=1, max_size=20),
    st.random_module(),
)
def test_bounce_traces_settle_to_the_final_states(moves: list[tuple[int, bool, int]], _r: object) -> None:
    """Each real change comes with chatter (< 1 ms apart); the output is the real changes."""
    rng = random.Random(0)
    d = Debouncer(0.05)
    state: dict[int, bool] = {}
    t = 0.0
    expected = []
    out = []
    for sq, occupied, chatter in moves:
        t += 0.2
        if state.get(sq, False) == occupied:
            continue
        state[sq] = occupied
        expected.append(Transition(round(t, 6), sq, occupied))
        out += d.feed(Transition(round(t, 6), sq, occupied))
        tt = t
        for _ in range(chatter):
            tt += rng.uniform(0.0001, 0.0009)
            out += d.feed(Transition(tt, sq, not occupied))
            tt += rng.uniform(0.0001, 0.0009)
            out += d.feed(Transition(tt, sq, occupied))
    out += d.flush(t + 1)
    # the settled event keeps the first transition's time when the chatter ends where it began
    assert [(o.key, o.occupied) for o in out] == [(e.key, e.occupied) for e in expected]
    assert d.stable == {k: v for k, v in state.items()} | {k: v for k, v in d.stable.items() if k not in state}


def test_brush_shorter_than_the_window_vanishes() -> None:
    d = Debouncer(0.05)
    out = d.feed(Transition(1.0, 7, True)) + d.feed(Transition(1.02, 7, False)) + d.flush(5.0)
    assert out == []


def test_debounce_window_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Debouncer(-1)


# -- LEDs -------------------------------------------------------------------------------------------
def test_patterns_blink_at_their_rates() -> None:
    assert lit(Pattern.STEADY, 0.7) and not lit(Pattern.OFF, 0.0)
    assert lit(Pattern.SLOW, 0.1) and not lit(Pattern.SLOW, 0.6)
    assert lit(Pattern.FAST, 0.05) and not lit(Pattern.FAST, 0.2)


def test_every_role_on_the_simulated_board() -> None:
    lay = Layout("international")
    sim = SimulatedBoard(lay, occupied=[], clock=lambda: 0.0)
    io = sim.io()
    roles = list(Role)
    intents = [(i + 1, role) for i, role in enumerate(roles)]
    io.show(intents)
    for sq, role in intents:
        assert sim.lit(role) >= {sq}
        assert sim.ever_lit(sq, role)
    colours = render_rgb({i: r for i, r in enumerate(roles)}, DEFAULT_LOOKS, 0.05)
    assert set(colours) == set(range(len(roles)))  # at t=0.05 every pattern is on


def test_every_role_on_the_shift_register_chain() -> None:
    factory = MockFactory()
    chain = ShiftRegisterMock(22, 23, 24, 64, factory)
    now = [0.05]
    leds = ShiftRegisterLeds(8, data=22, clock=23, latch=24, pin_factory=factory, time_source=lambda: now[0])
    for i, role in enumerate(Role):
        cell = divmod(i, 8)
        leds.show({cell: role})
        assert chain.outputs == leds.frame
        assert [b for b, on in enumerate(chain.outputs) if on] == [i]
        now[0] = 0.6  # slow blinkers are off now, steady ones on
        leds.refresh()
        on = [b for b, v in enumerate(chain.outputs) if v]
        pattern = DEFAULT_LOOKS[role].pattern
        assert on == ([i] if lit(pattern, 0.6) else [])
        now[0] = 0.05
    leds.close()
    leds.close()


def test_led_colours_from_config() -> None:
    looks = looks_from_config({"from": "#102030"})
    assert looks[Role.FROM].colour == (16, 32, 48)
    with pytest.raises(ValueError, match="unknown LED role"):
        looks_from_config({"sparkle": "#ffffff"})
    with pytest.raises(ValueError, match="invalid colour"):
        looks_from_config({"from": "green"})


# -- the board in squares ---------------------------------------------------------------------------
def test_board_io_maps_cells_to_squares_with_rotation() -> None:
    lay = Layout("portuguese", rotation=90)
    sim = SimulatedBoard(lay, clock=lambda: 3.0)
    io = sim.io()
    squares, cells = io.occupied()
    assert squares == set(range(1, 13)) | set(range(21, 33)) and cells == set()
    sim.lift(10)
    sim.place_cell(lay.cell_of_key("a1"))
    got = io.poll()
    assert [(tr.key, tr.occupied, tr.t) for tr in got] == [(10, False, 3.0), ("a1", True, 3.0)]
    io.show([(10, Role.MISSING)])
    assert sim.lit(Role.MISSING) == {10}
    io.close()
    io.close()


def test_simulated_bounce_and_sizes() -> None:
    sim = SimulatedBoard(Layout("brazilian"), occupied=[22], clock=lambda: 1.0)
    sim.bounce(22, times=2)
    assert sim.transitions.qsize() == 4
    with pytest.raises(ValueError, match="cannot play international"):
        BoardIO(Layout("international"), sim)


# -- configuration -----------------------------------------------------------------------------------
GPIO_OK = """
variant = "brazilian"
[board]
backend = "gpio"
rotation = 90
[gpio]
rows = [2, 3, 4, 5, 6, 7, 8, 9]
columns = [10, 11, 12, 13, 14, 15, 16, 17]
scan_rate = 200
[gpio.leds]
data = 18
clock = 19
latch = 20
[leds.colours]
from = "#00ff00"
"""


def test_gpio_config_opens_on_mock_pins() -> None:
    cfg = parse_config(GPIO_OK, "board.toml", env={})
    assert cfg.backend == "gpio" and cfg.gpio is not None and cfg.gpio.scan_rate == 200
    factory = MockFactory()
    matrix = MatrixMock(cfg.gpio.rows, cfg.gpio.columns, factory)
    lay = Layout("brazilian", 90)
    matrix.occupied = {lay.cell_of(22)}
    with open_board(cfg, "brazilian", pin_factory=factory) as io:
        assert io.occupied() == ({22}, set())


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[board\nbackend=1", "not a valid TOML file"),
        ('[board]\nbackend = "usb"', "unknown backend 'usb'"),
        ("[board]\nrotation = 45", "board.rotation must be 0, 90, 180 or 270"),
        ('[board]\nwhite_side = "left"', "board.white_side"),
        ('colour = "red"', "unknown setting colour"),
        ('variant = "chess"', "unknown variant"),
        ('[board]\nbackend = "gpio"', "needs gpio.rows and gpio.columns"),
        (
            '[board]\nbackend = "gpio"\n[gpio]\nrows = [2,3,4,5,6,7,8]\ncolumns = [10,11,12,13,14,15,16,17]',
            "gpio.rows has 7 pins; a board is 8x8 or 10x10",
        ),
        (
            'variant = "brazilian"\n[gpio]\nrows = [2,3,4,5,6,7,8]\ncolumns = [10,11,12,13,14,15,16,17]',
            "gpio.rows has 7 pins; a 8x8 board needs 8",
        ),
        ("[gpio]\nrows = [2,3,4,5,6,7,8,9]\ncolumns = [9,11,12,13,14,15,16,17]", "GPIO 9 is used twice"),
        (
            "[gpio]\nrows = [2,3,4,5,6,7,8,9]\ncolumns = [10,11,12,13,14,15,16,17]\n"
            "[gpio.leds]\ndata = 2\nclock = 19\nlatch = 20",
            "GPIO 2 is used twice",
        ),
        ("[gpio]\nrows = [2,3,4,5,6,7,8,99]\ncolumns = [10,11,12,13,14,15,16,17]", "GPIO 99 does not exist"),
        (
            "[gpio]\nrows = [2,3,4,5,6,7,8,9]\ncolumns = [10,11,12,13,14,15,16,17]\n[gpio.leds]\ndata = 18",
            "missing clock",
        ),
        ('variant = "international"\n[board]\nsize = 8', "variant international is played on 10x10"),
        ("[pico]\nport = 3", "pico.port must be a device path"),
        ('[leds.colours]\nfrom = "green"', "invalid colour"),
    ],
)
def test_config_errors_are_one_line(text: str, why: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "board.toml", env={})
    msg = str(info.value)
    assert msg.startswith("board.toml: ") and why in msg and "\n" not in msg, msg


def test_config_files(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bin.toml"
    bad.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="not a text"):
        load_config(bad)
    assert load_config(None, env={}).backend == "simulated"


def test_environment_overrides_the_backend() -> None:
    cfg = parse_config(GPIO_OK, "board.toml", env={"DAMAS_BOARD_BACKEND": "simulated"})
    assert cfg.backend == "simulated"
    with open_board(cfg, "brazilian") as io:
        assert isinstance(io.sensors, SimulatedBoard)


def test_pico_backend_without_a_pico_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import firmware_bridge.bridge

    monkeypatch.setattr(firmware_bridge.bridge, "find_pico_port", lambda: None)
    cfg = parse_config('[board]\nbackend = "pico"', "board.toml", env={})
    with pytest.raises(ConfigError, match="no Raspberry Pi Pico found on USB"):
        open_board(cfg, "brazilian")
    cfg = parse_config('[board]\nbackend = "pico"\n[pico]\nport = "/dev/ttyACM77"', "board.toml", env={})
    with pytest.raises(ConfigError, match="/dev/ttyACM77 does not exist"):
        open_board(cfg, "brazilian")


def test_board_size_must_fit_the_variant() -> None:
    cfg = parse_config("[board]\nsize = 8", "board.toml", env={})
    with pytest.raises(ConfigError, match="this board is 8x8; international needs 10x10"):
        open_board(cfg, "international")


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "hardware").glob("*.toml")))
def test_example_configs_in_hardware_are_valid(name: str) -> None:
    cfg = load_config(ROOT / "hardware" / name, env={})
    assert cfg.source.endswith(name)


# -- self-test -----------------------------------------------------------------------------------------
def run_selftest(
    lay: Layout,
    *,
    actual: Layout | None = None,
    dead: set[int] = frozenset(),
    stuck: set[int] = frozenset(),
    leds_ok: bool = True,
) -> tuple[object, list[Prompt]]:
    sim = SimulatedBoard(lay)
    actual = actual or lay
    sim.dead = {lay.cell_of(sq) for sq in dead}
    sim.stuck = {lay.cell_of(sq) for sq in stuck}
    prompts: list[Prompt] = []

    def ask(p: Prompt) -> bool | None:
        prompts.append(p)
        if p.kind == "clear":
            sim.set_squares([])
        elif p.kind == "place":
            assert p.square is not None
            sim.place_cell(actual.cell_of(p.square), piece=p.piece)  # the piece asked for (colour boards)
        elif p.kind == "lift":
            assert p.cell is not None
            sim.lift_cell(p.cell)
        elif p.kind == "leds" and p.text.endswith("(y/n)"):
            return leds_ok
        return None

    res = SelfTest(sim.io(), ask, timeout=0.1, led_step=0.0).run()
    return res, prompts


def test_selftest_passes_on_a_good_board() -> None:
    res, prompts = run_selftest(Layout("international"))
    assert res.ok and len(res.confirmed) == 50  # type: ignore[attr-defined]
    kinds = [p.kind for p in prompts]
    checked = (0, 2, 4)[default_senses()]  # a colour board: the placement check's pieces first
    assert kinds[0] == "clear" and kinds.count("place") == 50 + checked and kinds[-1] == "done"


def test_selftest_lights_every_led_in_turn() -> None:
    lay = Layout("brazilian")
    sim = SimulatedBoard(lay)
    SelfTest(
        sim.io(),
        lambda p: True if p.kind == "leds" else (sim.set_squares([]) if p.kind == "clear" else None),
        timeout=0.01,
        led_step=0.0,
        squares=[],
    ).run()
    frames = [f for _, f in sim.led_log if f]
    assert len(frames) == 64 and {next(iter(f)) for f in frames} == set(lay.cells())


def test_selftest_finds_dead_and_stuck_sensors() -> None:
    res, _ = run_selftest(Layout("brazilian"), dead={5}, stuck={9})
    assert res.dead == [5]  # type: ignore[attr-defined]
    assert res.stuck == [Layout("brazilian").cell_of(9)]  # type: ignore[attr-defined]
    assert not res.ok  # type: ignore[attr-defined]
    assert any("dead sensor" in m for m in res.messages)  # type: ignore[attr-defined]
    assert any("stuck" in m for m in res.messages)  # type: ignore[attr-defined]


def test_selftest_recognises_a_rotated_board() -> None:
    res, _ = run_selftest(Layout("brazilian"), actual=Layout("brazilian", rotation=180))
    assert res.messages[0].startswith("square 1 answered at cell g1: is the board rotated 180°?")  # type: ignore[attr-defined]
    res, _ = run_selftest(Layout("international"), actual=Layout("international", rotation=90))
    assert "rotated 90°" in res.messages[0]  # type: ignore[attr-defined]


def test_selftest_reports_leds_not_confirmed() -> None:
    res, _ = run_selftest(Layout("portuguese"), leds_ok=False)
    assert res.leds_ok is False and not res.ok  # type: ignore[attr-defined]


def test_schematic_svg_is_drawn_from_its_text_source() -> None:
    """hardware/schematic.svg must be what hardware/schematic.py draws (regenerate it after a change)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("schematic", ROOT / "hardware" / "schematic.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    svg = module.draw()
    assert svg == (ROOT / "hardware" / "schematic.svg").read_bytes(), "run: python hardware/schematic.py"
    text = svg.decode()
    for label in ("74HC595", "1N4148", "ROW 0 (GPIO 4)", "COL 0 (GPIO 26)", "LATCH (GPIO 8)"):
        assert label in text
