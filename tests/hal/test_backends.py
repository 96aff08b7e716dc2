"""Backends plugged in by name (issue 15): the registry and its entry points, MCP23017 sensors
behind a register-level model of the chip on a fake smbus2 bus, 74HC165 sensors whose shift
timing runs through gpiozero mock pins, WS2812 LEDs whose SPI bytes are read back as colours,
any sensors with any LEDs, and the self-test's one-line wiring diagnoses."""

from __future__ import annotations

import ast
import random
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from board_hal import registry
from board_hal.backends import BoardIO, LinkChange
from board_hal.config import Config, ConfigError, parse_config
from board_hal.factory import open_board
from board_hal.gpio import MatrixScanner
from board_hal.hc165 import ShiftInScanner
from board_hal.layout import Cell, Layout
from board_hal.leds import DEFAULT_LOOKS, Role
from board_hal.mcp23017 import GPPUA, IOCON, Mcp23017Scanner
from board_hal.mockbus import FakeSpiDev, McpBoard, decode_ws2812, fake_spidev_module
from board_hal.mockpins import MatrixMock, ShiftInMock, ShiftRegisterMock
from board_hal.pinmap import default_map
from board_hal.selftest import Prompt, SelfTest
from board_hal.simulated import SimulatedBoard
from board_hal.ws2812 import StripLayout, Ws2812Leds, fake_strip, strip_cells
from tests.conftest import ROOT

BUILT_IN = {
    "simulated": "board_hal.builtin:SIMULATED",
    "gpio": "board_hal.builtin:GPIO",
    "pico": "firmware_bridge.backend:PICO",
    "mcp23017": "board_hal.mcp23017:BACKEND",
    "74hc165": "board_hal.hc165:BACKEND",
    "ws2812": "board_hal.ws2812:BACKEND",
    "dgt": "board_hal.dgt:BACKEND",
}


def cfg(text: str) -> Config:
    return parse_config(text, "board.toml", env={})


def one_line(exc: pytest.ExceptionInfo[ConfigError], *words: str) -> str:
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("board.toml: "), msg
    for w in words:
        assert w in msg, msg
    return msg


# -- the registry ----------------------------------------------------------------------------------
def test_the_built_in_backends_are_entry_points_like_any_other() -> None:
    eps = {ep.name: ep.value for ep in entry_points(group=registry.GROUP)}
    assert {k: eps.get(k) for k in BUILT_IN} == BUILT_IN
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"][registry.GROUP]
    assert declared == BUILT_IN
    for name in BUILT_IN:
        backend = registry.get(name)
        assert backend.name == name and (backend.sensors or backend.leds)


def test_board_hal_does_not_import_firmware_bridge() -> None:
    """The Pico registers itself: nothing in board_hal names firmware_bridge, and opening
    a board by name loads it only when a configuration asks for the Pico."""
    for path in (ROOT / "board_hal").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not any(n.split(".")[0] == "firmware_bridge" for n in names), f"{path.name} imports {names}"
    code = (
        "import sys\nfrom board_hal.config import parse_config\nfrom board_hal.factory import open_board\n"
        "io = open_board(parse_config('[board]\\nbackend = \"simulated\"\\n', env={}), 'brazilian')\n"
        "io.close()\nprint(sorted(m for m in sys.modules if m.startswith('firmware_bridge')))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert r.stdout.strip() == "[]"


THIRD_PARTY = """
from board_hal.registry import Backend
from board_hal.simulated import SimulatedBoard
from board_hal.config import ConfigError


class Toy(Backend):
    summary = "a toy board from another package"
    sensors = True

    def check(self, table, config):
        if not isinstance(table.get("occupied"), list):
            raise ConfigError(f"{config.source}: toy.occupied must be a list of squares")
        return table["occupied"]

    def open(self, config, layout, hw, *, sensors, leds):
        board = SimulatedBoard(layout, occupied=config.backend_settings[self.name], clock=hw.clock)
        return board, None


BACKEND = Toy()
"""


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """An installed distribution (a .dist-info with an entry_points.txt) outside this project."""
    (tmp_path / "damas_toy").mkdir()
    (tmp_path / "damas_toy" / "__init__.py").write_text(THIRD_PARTY)
    info = tmp_path / "damas_toy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: damas-toy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[damas.backends]\ntoy = damas_toy:BACKEND\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.clear_cache()
    yield
    registry.clear_cache()


def test_a_third_party_package_adds_a_backend_by_name(third_party: None) -> None:
    assert "toy" in registry.names()
    config = cfg('variant = "brazilian"\n[board]\nbackend = "toy"\nleds = "none"\n[toy]\noccupied = [1, 2, 31]\n')
    with open_board(config, "brazilian") as io:
        assert io.occupied() == ({1, 2, 31}, set()) and io.leds is None
    with pytest.raises(ConfigError) as e:
        cfg('[board]\nbackend = "toy"\n[toy]\noccupied = 3\n')
    one_line(e, "toy.occupied must be a list")


def test_an_unknown_backend_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(ConfigError) as e:
        cfg('[board]\nbackend = "mcp23018"\n')
    one_line(e, "board.backend", "'mcp23018'", "mcp23017", "74hc165", "gpio", "pico")
    with pytest.raises(ConfigError) as e:
        cfg('[board]\nbackend = "simulated"\nleds = "ws2813"\n')
    one_line(e, "board.leds", "'ws2813'", "ws2812")
    with pytest.raises(ConfigError) as e:
        cfg('[board]\nbackend = "ws2812"\n[ws2812]\n')
    one_line(e, "ws2812 has no sensors")
    with pytest.raises(ConfigError) as e:
        cfg(
            '[board]\nbackend = "gpio"\nleds = "pico"\n[gpio]\nrows = [2,3,4,5,6,7,8,9]\n'
            "columns = [10,11,12,13,14,15,16,17]\n"
        )
    one_line(e, "pico's LEDs work only with its sensors")


# -- MCP23017 --------------------------------------------------------------------------------------
def mcp_scanner(n: int, board: McpBoard, **kw: Any) -> Mcp23017Scanner:
    chips = -(-n * n // 14)
    return Mcp23017Scanner(board.bus, list(range(0x20, 0x20 + chips)), default_map(chips, 14, n), n, **kw)


@pytest.mark.parametrize(("n", "chips"), [(8, 5), (10, 8)])
def test_mcp23017_reads_every_switch_in_one_transfer_per_chip(n: int, chips: int) -> None:
    """14 inputs a chip (GPA0-6, GPB0-6): 5 chips for 8x8, 8 for 10x10; GPA7 and GPB7, output-only
    in Microchip's datasheet (DS20001952D), are outputs at the wire, with no pull-up."""
    addresses = list(range(0x20, 0x20 + chips))
    board = McpBoard(addresses, default_map(chips, 14, n))
    rng = random.Random(n)
    with mcp_scanner(n, board, clock=lambda: 1.0) as scanner:
        for chip in board.bus.chips.values():  # set up as the wiring needs: pull-ups, mirrored open-drain INT
            assert chip.regs[GPPUA] == chip.regs[GPPUA + 1] == 0x7F and chip.regs[IOCON] == 0x44
            assert chip.regs[0x00] == chip.regs[0x01] == 0x7F and chip.output_only_inputs() == []
        for _ in range(20):
            board.set_cells({(r, c) for r in range(n) for c in range(n) if rng.random() < 0.4})
            before = board.bus.transfers
            assert scanner.scan() == frozenset(board.occupied)
            assert board.bus.transfers - before == chips
        board.set_cells([])
        scanner.poll_once()
        board.place((n - 1, n - 1))
        scanner.poll_once()
        (tr,) = list(scanner.transitions.queue)[-1:]
        assert tr.cell == (n - 1, n - 1) and tr.occupied  # type: ignore[union-attr]


def test_mcp23017_without_pull_ups_would_see_a_full_board() -> None:
    """The model floats an input low without its pull-up: the scan is right only because the
    driver turns the pull-ups on (a driver that forgot would read every cell occupied)."""
    board = McpBoard([0x20, 0x21, 0x22, 0x23, 0x24], default_map(5, 14, 8))
    with mcp_scanner(8, board) as scanner:
        assert scanner.scan() == frozenset()
        for addr in board.bus.chips:
            board.bus.write_i2c_block_data(addr, GPPUA, [0, 0])
        assert len(scanner.scan()) == 64


def test_mcp23017_interrupt_line_wakes_the_scan() -> None:
    factory = MockFactory()
    int_pin = factory.pin(17)
    board = McpBoard([0x20, 0x21, 0x22, 0x23, 0x24], default_map(5, 14, 8), int_pin)
    layout = Layout("brazilian")
    with mcp_scanner(8, board, interrupt=17, pin_factory=factory) as scanner:
        io = BoardIO(layout, scanner)
        io.start()
        idle = board.bus.transfers
        board.place(layout.cell_of(22))
        events = io.poll(timeout=2.0)
        assert [(e.key, e.occupied) for e in events] == [(22, True)]
        # scanned because INT fell, not by polling at scan_rate: a handful of transfers, not hundreds
        assert board.bus.transfers - idle <= 2 * 5
        assert int_pin.state  # reading GPIO released the (open-drain) INT line


def test_mcp23017_dead_chip_is_one_line_with_the_addresses_that_answer() -> None:
    """A chip strapped to the wrong address (0x24 instead of 0x21) or dead: opening the board
    names the silent address and what did answer."""
    text = '[board]\nbackend = "mcp23017"\nsize = 8\n[mcp23017]\naddresses = [0x20, 0x21, 0x22, 0x23, 0x24]\n'
    config = cfg(text)
    board = McpBoard([0x20, 0x21, 0x22, 0x23, 0x24], default_map(5, 14, 8), present=[0x20, 0x22, 0x23, 0x24, 0x25])
    hw = registry.Hardware(i2c=lambda n: board.bus)
    with pytest.raises(ConfigError) as e:
        open_board(config, "brazilian", hardware=hw)
    assert str(e.value) == (
        "board.toml: mcp23017: no MCP23017 answers at 0x21 on I2C bus 1 (answering: 0x20, 0x22, 0x23, 0x24, 0x25): "
        "check its A0-A2 pins, 3V3, GND, SDA and SCL"
    )
    assert board.bus.closed


def test_damas_selftest_names_a_dead_mcp23017(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import board_hal.mcp23017 as mcp
    from damas.cli import main

    path = tmp_path / "mcp.toml"
    path.write_text('[board]\nbackend = "mcp23017"\nsize = 8\n')
    board = McpBoard([0x20, 0x21, 0x22, 0x23, 0x24], default_map(5, 14, 8), present=[0x20, 0x21, 0x22])
    monkeypatch.setattr(mcp, "opener", lambda n: board.bus)
    monkeypatch.delenv("DAMAS_BOARD_BACKEND", raising=False)
    assert main(["selftest", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"damas: error: {path}: mcp23017: no MCP23017 answers at 0x23 on I2C bus 1 (answering: 0x20, " + (
        "0x21, 0x22): check its A0-A2 pins, 3V3, GND, SDA and SCL\n"
    )


def test_mcp23017_that_stops_answering_takes_the_link_down_and_back() -> None:
    board = McpBoard([0x20, 0x21, 0x22, 0x23, 0x24], default_map(5, 14, 8))
    with mcp_scanner(8, board, clock=lambda: 5.0) as scanner:
        board.set_cells({(0, 0)})
        scanner.poll_once()
        board.bus.chips[0x22].dead = True
        scanner.poll_once()
        assert scanner.link == "down"
        board.bus.chips[0x22].dead = False
        board.bus.chips[0x22].regs[GPPUA : GPPUA + 2] = b"\0\0"  # it lost power: registers back to reset
        board.set_cells({(0, 0), (4, 4)})
        scanner.poll_once()
        assert scanner.link == "up"
        items = list(scanner.transitions.queue)
        downs = [i for i in items if isinstance(i, LinkChange)]
        assert [d.up for d in downs] == [False, True]
        assert downs[1].cells == {(0, 0), (4, 4)} and [c.cell for c in downs[1].changes] == [(4, 4)]


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ("addresses = [0x20, 0x21, 0x22, 0x23]", ("4 chips have 56 inputs", "an 8x8 board needs 64 (5 chips)")),
        ("addresses = [0x20, 0x20, 0x21, 0x22]", ("0x20 is used twice",)),
        ("addresses = [0x20, 0x21, 0x22, 0x28]", ("40 is no MCP23017 address",)),
        ("interrupt = 2", ("mcp23017.interrupt: GPIO 2 is used twice", "mcp23017 (I2C SDA)")),
        ("addresses = [0x20]\ncells = [['a1', 'a1']]", ("mcp23017.cells[0] must be 14 cell names",)),
        ("addresses = [0x20]\ncells = [['a1', 'b1', 'c1', 'd1', 'e1', 'f1', 'g1', 'h1', 'a2', 'b2', 'c2', 'd2', "
         "'e2', 'a1']]", ("cell a1 is wired twice",)),
        ("addresses = [0x20]\ncells = [['a1', 'b1', 'c1', 'd1', 'e1', 'f1', 'g1', 'h1', 'a2', 'b2', 'c2', 'd2', "
         "'e2', '']]", ("51 cells have no input", "f2, g2, h2, a3 ...")),
        ("bus = 'one'", ("mcp23017.bus must be an I2C bus number",)),
        ("speed = 400", ("unknown setting mcp23017.speed",)),
    ],
)  # fmt: skip
def test_mcp23017_settings_errors_are_one_line(table: str, words: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as e:
        cfg(f'[board]\nbackend = "mcp23017"\nsize = 8\n[mcp23017]\n{table}\n')
    one_line(e, *words)


def test_mcp23017_cells_map_puts_each_input_where_it_is_soldered() -> None:
    """A map in the configuration: chip 0x27's GPB6 (its last input) is a1 (a board wired from the far end)."""
    names = [f"{'abcdefgh'[i % 8]}{i // 8 + 1}" for i in range(64)]
    cells = [[*reversed(names[56:]), *[""] * 6], list(reversed(names[42:56])), names[28:42], names[14:28]]
    cells.append(list(reversed(names[:14])))
    text = '[board]\nbackend = "mcp23017"\nsize = 8\n[mcp23017]\naddresses = [0x23, 0x24, 0x25, 0x26, 0x27]\n'
    config = cfg(text + f"cells = {cells}\n")
    settings = config.backend_settings["mcp23017"]
    board = McpBoard([0x23, 0x24, 0x25, 0x26, 0x27], settings.cells)
    assert board.where[(0, 0)] == (0x27, 14) and board.where[(7, 7)] == (0x23, 0)  # GPB6 is bit 14, GPA0 bit 0
    with open_board(config, "brazilian", hardware=registry.Hardware(i2c=lambda n: board.bus)) as io:
        board.set_cells({(0, 0), (7, 7), (3, 5)})
        io.sensors.poll_once()  # type: ignore[attr-defined]
        assert io.sensors.snapshot() == {(0, 0), (7, 7), (3, 5)}


# -- 74HC165 ---------------------------------------------------------------------------------------
HC_PINS = {"load": 22, "clock": 11, "data": 9}


@pytest.mark.parametrize(("n", "chips"), [(8, 8), (10, 13)])
def test_74hc165_chain_is_loaded_then_shifted_bit_by_bit(n: int, chips: int) -> None:
    factory = MockFactory()
    cells = default_map(chips, 8, n)
    chain = ShiftInMock(22, 11, 9, cells, factory)
    rng = random.Random(n)
    with ShiftInScanner(22, 11, 9, cells, n, pin_factory=factory) as scanner:
        for _ in range(20):
            chain.occupied = {(r, c) for r in range(n) for c in range(n) if rng.random() < 0.4}
            loads, clocks = chain.loads, chain.clocks
            assert scanner.scan() == frozenset(chain.occupied)
            # one load pulse, then exactly one clock per bit, each bit read before its clock
            assert chain.loads - loads == 1 and chain.clocks - clocks == 8 * chips
        assert chain.bad_reads == 0 and chain.ignored_clocks == 0
        for cell in [(0, 0), (0, 7), (n - 1, n - 1)]:  # the first and last bits of the chain
            chain.occupied = {cell}
            assert scanner.scan() == {cell}


def test_74hc165_settings() -> None:
    config = cfg('[board]\nbackend = "74hc165"\nsize = 10\n[74hc165]\nload = 22\nclock = 11\ndata = 9\n')
    assert len(config.backend_settings["74hc165"].cells) == 13
    for table, words in [
        ("load = 22\nclock = 11", ("missing 74hc165.data",)),
        ("load = 22\nclock = 22\ndata = 9", ("GPIO 22 is used twice",)),
        ("load = 22\nclock = 11\ndata = 9\nchips = 7", ("7 chips have 56 inputs", "needs 64 (8 chips)")),
        ("load = 28\nclock = 11\ndata = 9", ("74hc165.load must be a GPIO number",)),
    ]:
        with pytest.raises(ConfigError) as e:
            cfg(f'[board]\nbackend = "74hc165"\nsize = 8\n[74hc165]\n{table}\n')
        one_line(e, *words)


# -- WS2812 ----------------------------------------------------------------------------------------
def test_strip_orders() -> None:
    serp = strip_cells(8)
    assert serp[:3] == [(0, 0), (0, 1), (0, 2)] and serp[7:10] == [(0, 7), (1, 7), (1, 6)] and serp[-1] == (7, 0)
    matrix = strip_cells(8, order="matrix")
    assert matrix[8] == (1, 0) and matrix[-1] == (7, 7)
    cols = strip_cells(10, first=(9, 9), along="columns")
    assert cols[:2] == [(9, 9), (8, 9)] and cols[10] == (0, 8) and cols[-1] == (9, 0)
    for first in [(0, 0), (0, 9), (9, 0), (9, 9)]:
        for along in ("rows", "columns"):
            for order in ("serpentine", "matrix"):
                assert sorted(strip_cells(10, first, along, order)) == [(r, c) for r in range(10) for c in range(10)]
    with pytest.raises(ValueError, match="corner"):
        strip_cells(8, first=(0, 3))


@pytest.fixture
def spi() -> Iterator[list[FakeSpiDev]]:
    FakeSpiDev.instances.clear()
    yield FakeSpiDev.instances
    FakeSpiDev.instances.clear()


def wire(dev: FakeSpiDev) -> list[tuple[int, int, int]]:
    """The colours the strip shows: the last frame sent, decoded from its SPI bytes."""
    return decode_ws2812(dev.sent[-1], "GRB")


def test_ws2812_puts_each_role_on_the_wire_at_its_strip_position(spi: list[FakeSpiDev]) -> None:
    strip = fake_strip(fake_spidev_module())("/dev/spidev0.0", 64, "GRB")
    (dev,) = spi
    assert dev.opened == (0, 0) and dev.max_speed_hz > 6_000_000
    now = [0.1]
    leds = Ws2812Leds(8, strip, StripLayout((0, 0), "rows", "serpentine"), brightness=0.5, time_source=lambda: now[0])
    with leds:
        leds.show({(1, 6): Role.FROM, (0, 0): Role.TO, (2, 0): Role.REMOVE})
        colours = wire(dev)
        assert len(colours) == 64
        half = {role: tuple(round(v * 0.5) for v in DEFAULT_LOOKS[role].colour) for role in Role}
        # serpentine: (1, 6) is LED 9 (row 1 comes back from h2), (2, 0) LED 16
        assert colours[9] == half[Role.FROM] and colours[0] == half[Role.TO] and colours[16] == half[Role.REMOVE]
        assert sum(1 for c in colours if c != (0, 0, 0)) == 3
        now[0] = 0.6
        leds.refresh()  # REMOVE blinks slowly: off in the second half-second
        assert wire(dev)[16] == (0, 0, 0) and wire(dev)[9] == half[Role.FROM]
        sent = len(dev.sent)
        now[0] = 0.7
        leds.refresh()  # the same frame: nothing sent again
        assert len(dev.sent) == sent
    assert wire(dev) == [(0, 0, 0)] * 64  # dark when closed
    assert dev.opened is None


def test_ws2812_settings() -> None:
    config = cfg(
        '[board]\nbackend = "simulated"\nleds = "ws2812"\nsize = 10\n[ws2812]\nfirst = "j10"\norder = "matrix"\n'
    )
    s = config.backend_settings["ws2812"]
    assert s.layout == StripLayout((9, 9), "rows", "matrix") and s.spi == "/dev/spidev0.0"
    for table, words in [
        ('first = "c1"', ("ws2812.first must be the corner cell of LED 0 (a1, h1, a8, h8)", "'c1'")),
        ('order = "zigzag"', ('ws2812.order must be "serpentine"',)),
        ('spi = "/dev/ttyAMA0"', ("ws2812.spi must be an SPI device",)),
        ("brightness = 2", ("ws2812.brightness must be a fraction between 0 and 1",)),
    ]:
        with pytest.raises(ConfigError) as e:
            cfg(f'[board]\nbackend = "simulated"\nleds = "ws2812"\nsize = 8\n[ws2812]\n{table}\n')
        one_line(e, *words)
    # the SPI driver owns GPIO 10, 11, 8 and 7: a matrix wired there is one line
    with pytest.raises(ConfigError) as e:
        cfg(
            '[board]\nbackend = "gpio"\nleds = "ws2812"\n[gpio]\nrows = [2,3,4,17,27,22,5,6,13,19]\n'
            "columns = [26,21,20,16,12,25,24,23,18,7]\n[ws2812]\n"
        )
    one_line(e, "GPIO 7 is used twice", "gpio.columns", "ws2812.spi")


def test_ws2812_without_spi_is_one_line(tmp_path: Path) -> None:
    config = cfg(f'[board]\nbackend = "simulated"\nleds = "ws2812"\nsize = 8\n[ws2812]\nspi = "{tmp_path}/spidev0.0"\n')
    with pytest.raises(ConfigError) as e:
        open_board(config, "brazilian")
    one_line(e, "spidev0.0 does not exist (enable SPI")


# -- any sensors with any LEDs ---------------------------------------------------------------------
SENSORS = {
    "simulated": "",
    "gpio": "[gpio]\nrows = [4, 17, 27, 22, 5, 6, 13, 19]\ncolumns = [26, 21, 20, 16, 12, 25, 24, 23]\n",
    "mcp23017": "[mcp23017]\ninterrupt = 4\n",
    "74hc165": "[74hc165]\nload = 5\nclock = 6\ndata = 13\n",
}
LEDS = {
    "gpio": "[gpio.leds]\ndata = 10\nclock = 11\nlatch = 8\n",
    "ws2812": '[ws2812]\nfirst = "h8"\n',
    "none": "",
}


class Hands:
    """Puts pieces on whichever mock the sensors are."""

    def __init__(self, name: str, factory: MockFactory, config: Config) -> None:
        self.name = name
        self.mcp: McpBoard | None = None
        self.matrix: MatrixMock | None = None
        self.chain: ShiftInMock | None = None
        if name == "gpio":
            assert config.gpio is not None
            self.matrix = MatrixMock(config.gpio.rows, config.gpio.columns, factory)
        elif name == "mcp23017":
            s = config.backend_settings["mcp23017"]
            self.mcp = McpBoard(s.addresses, s.cells, factory.pin(s.interrupt) if s.interrupt is not None else None)
        elif name == "74hc165":
            s = config.backend_settings["74hc165"]
            self.chain = ShiftInMock(s.load, s.clock, s.data, s.cells, factory)

    def set(self, io: BoardIO, cells: set[Cell]) -> None:
        if self.matrix is not None:
            self.matrix.occupied = set(cells)
        elif self.mcp is not None:
            self.mcp.set_cells(cells)
        elif self.chain is not None:
            self.chain.occupied = set(cells)
        else:
            sim = io.sensors
            assert isinstance(sim, SimulatedBoard)
            for cell in set(sim.snapshot()) - cells:
                sim.lift_cell(cell)
            for cell in cells - set(sim.snapshot()):
                sim.place_cell(cell)


@pytest.mark.parametrize("leds", list(LEDS))
@pytest.mark.parametrize("sensors", list(SENSORS))
def test_any_sensors_with_any_leds(sensors: str, leds: str, spi: list[FakeSpiDev]) -> None:
    gpio_leds = LEDS[leds] if leds == "gpio" else ""
    text = f'variant = "brazilian"\n[board]\nbackend = "{sensors}"\nleds = "{leds}"\n{SENSORS[sensors]}'
    if sensors == "gpio":
        text += gpio_leds
    elif gpio_leds:
        text += "[gpio]\n" + gpio_leds.replace("[gpio.leds]\n", "leds = {").replace("\n", ", ").rstrip(", ") + "}\n"
    if leds == "ws2812":
        text += LEDS["ws2812"]
    config = cfg(text)
    factory = MockFactory()
    hands = Hands(sensors, factory, config)
    chain = ShiftRegisterMock(10, 11, 8, 64, factory) if leds == "gpio" else None
    hw = registry.Hardware(
        pin_factory=factory, i2c=lambda n: hands.mcp.bus if hands.mcp else None, strip=fake_strip(fake_spidev_module())
    )
    layout = Layout("brazilian")
    with open_board(config, "brazilian", hardware=hw) as io:
        hands.set(io, {layout.cell_of(1), layout.cell_of(32)})
        poll = getattr(io.sensors, "poll_once", None)
        if poll is not None:
            poll()
        assert io.occupied() == ({1, 32}, set())
        io.show([(5, Role.FROM), (9, Role.TO)])
        cells = {layout.cell_of(5), layout.cell_of(9)}
        if leds == "gpio":
            assert chain is not None
            assert {i for i, on in enumerate(chain.outputs) if on} == {r * 8 + c for r, c in cells}
        elif leds == "ws2812":
            colours = wire(spi[0])
            # first = "h8": LED 0 is cell (7, 7)
            lit = {strip_cells(8, (7, 7))[i] for i, c in enumerate(colours) if c != (0, 0, 0)}
            assert lit == cells
        else:
            assert io.leds is None


# -- the self-test's wiring diagnoses --------------------------------------------------------------
def hands_for(layout: Layout, place: Callable[[Cell], None], lift: Callable[[Cell], None], clear: Callable[[], None],
              point: Callable[[Cell], Cell | None] | None = None) -> Callable[[Prompt], bool | None]:  # fmt: skip
    """A person answering the self-test: ``place`` puts a piece on a physical cell (wherever
    the test's wiring sends it); ``point`` says where the lit LED really is."""

    def ask(p: Prompt) -> bool | None:
        if p.kind == "clear":
            clear()
        elif p.kind == "place" and p.square is not None:
            if p.piece is not None:  # a board that senses colour asks for a given piece (a simulated one)
                place(layout.cell_of(p.square), piece=p.piece)  # type: ignore[call-arg]
            else:
                place(layout.cell_of(p.square))
        elif p.kind == "lift" and p.cell is not None:
            lift(layout.cell_of(p.square) if p.square is not None else p.cell)  # where the piece was put
        elif p.kind == "point":
            if point is None:
                return False
            assert p.cell is not None
            where = point(p.cell)
            if where is not None:
                place(where)
        elif p.kind == "leds" and p.text.endswith("(y/n)"):
            return True
        return None

    return ask


def test_selftest_swapped_rows_are_one_line_naming_the_pins() -> None:
    rows, cols = [4, 17, 27, 22, 5, 6, 13, 19], [26, 21, 20, 16, 12, 25, 24, 23]
    factory = MockFactory()
    wired = [4, 17, 22, 27, 5, 6, 13, 19]  # rows 3 and 4 soldered to each other's pin
    matrix = MatrixMock(wired, cols, factory)
    layout = Layout("brazilian")

    with MatrixScanner(rows, cols, pin_factory=factory) as scanner:

        def move(cell: Cell, on: bool) -> None:
            (matrix.occupied.add if on else matrix.occupied.discard)(cell)
            scanner.poll_once()  # the scan thread's next pass

        io = BoardIO(layout, scanner)
        ask = hands_for(layout, lambda c: move(c, True), lambda c: move(c, False), matrix.occupied.clear)
        res = SelfTest(io, ask, timeout=1.0, led_step=0.0).run()
    assert res.messages == [
        "rows 3 and 4 are swapped: a3 answers at a4 and back (check gpio.rows[2] = GPIO 27 and gpio.rows[3] = GPIO 22)"
    ]
    assert not res.ok and not res.orientation


def test_selftest_a_dead_74hc165_silences_the_rest_of_the_chain_in_one_line() -> None:
    factory = MockFactory()
    cells = default_map(8, 8, 8)
    chain = ShiftInMock(5, 6, 13, cells, factory)
    chain.dead = {5}  # chip #6 (0-based 5): its QH drives nothing
    layout = Layout("brazilian")

    with ShiftInScanner(5, 6, 13, cells, 8, pin_factory=factory) as scanner:

        def move(cell: Cell, on: bool) -> None:
            (chain.occupied.add if on else chain.occupied.discard)(cell)
            scanner.poll_once()

        io = BoardIO(layout, scanner)
        ask = hands_for(layout, lambda c: move(c, True), lambda c: move(c, False), chain.occupied.clear)
        res = SelfTest(io, ask, timeout=0.05, led_step=0.0).run()
    assert res.messages == [
        "74HC165 #6 and every chip after it answer nothing (cells a6-h8): check 74HC165 #6's power, "
        "and its QH to the chip before it"
    ]
    assert len(res.dead) == 12 and len(res.confirmed) == 20


def test_selftest_an_mcp23017_whose_switches_never_close_is_one_line() -> None:
    board = McpBoard([0x20, 0x21, 0x22, 0x23, 0x24], default_map(5, 14, 8))
    layout = Layout("brazilian")
    loose = {c for c, (addr, _) in board.where.items() if addr == 0x21}  # its switches' ground wire is off

    with mcp_scanner(8, board) as scanner:

        def move(cell: Cell, on: bool) -> None:
            if cell not in loose:
                board.set_cells(board.occupied | {cell} if on else board.occupied - {cell})
            scanner.poll_once()

        io = BoardIO(layout, scanner)
        ask = hands_for(layout, lambda c: move(c, True), lambda c: move(c, False), lambda: board.set_cells([]))
        res = SelfTest(io, ask, timeout=0.05, led_step=0.0).run()
    assert res.messages == [
        "no cell on the MCP23017 at 0x21 answers (cells g2-d4): is the chip dead, unpowered, "
        "or the switches' ground wire loose?"
    ]


@pytest.mark.parametrize(
    ("real", "line"),
    [
        (
            StripLayout((7, 0), "rows", "serpentine"),
            'the LED strip runs the other way: its first LED is at a8, not a1 (set ws2812.first = "a8", '
            'along = "rows", order = "serpentine")',
        ),
        (
            StripLayout((0, 0), "rows", "matrix"),
            'the LED strip is laid matrix, not serpentine (set ws2812.first = "a1", along = "rows", order = "matrix")',
        ),
        (
            StripLayout((0, 0), "columns", "serpentine"),
            'the LED strip runs along columns, not rows (set ws2812.first = "a1", along = "columns", '
            'order = "serpentine")',
        ),
        (StripLayout((0, 0), "rows", "serpentine"), None),
    ],
)
def test_selftest_finds_a_strip_laid_another_way(real: StripLayout, line: str | None, spi: list[FakeSpiDev]) -> None:
    """The strip is configured from a1, serpentine along rows, but soldered as ``real``: the
    person puts a piece where the light really is, and the self-test names the settings."""
    layout = Layout("brazilian")
    sim = SimulatedBoard(layout, occupied=[])
    strip = fake_strip(fake_spidev_module())("/dev/spidev0.0", 64, "GRB")
    leds = Ws2812Leds(8, strip, StripLayout((0, 0), "rows", "serpentine"))
    io = BoardIO(layout, sim, leds)
    real_cells = real.cells(8)

    def lit_at(_meant: Cell) -> Cell | None:
        (index,) = [i for i, c in enumerate(wire(spi[0])) if c != (0, 0, 0)]
        return real_cells[index]

    ask = hands_for(layout, sim.place_cell, sim.lift_cell, lambda: sim.set_squares([]), lit_at)
    with io:
        res = SelfTest(io, ask, timeout=0.5, led_step=0.0).run()
    assert res.led_order == line
    assert res.ok == (line is None)
    if line:
        assert res.messages == [line]


# -- hardware/: the example configurations and the schematics ---------------------------------------
NEW_EXAMPLES = ["mcp23017-8x8", "mcp23017-10x10", "74hc165-8x8", "74hc165-10x10", "ws2812-8x8"]


@pytest.mark.parametrize("name", NEW_EXAMPLES)
def test_example_configurations_open_on_mock_hardware(name: str, spi: list[FakeSpiDev]) -> None:
    """Each example loads, and opens as the board it describes (on mock pins, a fake I2C bus
    and a fake SPI strip): a piece on square 1 is seen, and the LED of square 1 lights."""
    from board_hal.config import load_config

    config = load_config(ROOT / "hardware" / f"{name}.toml", env={})
    assert config.variant is not None and config.size is not None
    factory = MockFactory()
    hands = Hands(config.backend, factory, config)
    chain = None
    if config.leds_backend == "gpio":
        assert config.gpio is not None and config.gpio.led_data is not None
        assert config.gpio.led_clock is not None and config.gpio.led_latch is not None
        chain = ShiftRegisterMock(config.gpio.led_data, config.gpio.led_clock, config.gpio.led_latch, 104, factory)
    hw = registry.Hardware(
        pin_factory=factory,
        i2c=lambda n: hands.mcp.bus if hands.mcp else None,
        strip=fake_strip(fake_spidev_module()),
    )
    with open_board(config, config.variant, hardware=hw) as io:
        cell = io.layout.cell_of(1)
        hands.set(io, {cell})
        io.sensors.poll_once()  # type: ignore[attr-defined]
        assert io.occupied() == ({1}, set())
        io.show([(1, Role.TEST)])
        if chain is not None:
            assert [i for i, on in enumerate(chain.outputs) if on] == [cell[0] * config.size + cell[1]]
        else:
            s = config.backend_settings["ws2812"]
            (lit,) = [i for i, c in enumerate(wire(spi[0])) if c != (0, 0, 0)]
            assert s.layout.cells(config.size)[lit] == cell


def test_schematics_are_drawn_from_their_text_source() -> None:
    """hardware/schematic-*.svg must be what hardware/schematics.py draws (regenerate after a change)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("schematics", ROOT / "hardware" / "schematics.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    labels = {
        "schematic-pico.svg": ("Raspberry Pi Pico", "74AHCT125", "GP22", "common ground", "1N4148", "escape jumper"),
        "schematic-mcp23017.svg": ("MCP23017 (0x20)", "SDA (GPIO 2, pin 3)", "GPB6", "output-only: not connected"),
        "schematic-74hc165.svg": ("74HC165 #1", "LOAD (GPIO 22, pin 15)", "DATA (GPIO 17, pin 11)", "10 kΩ"),
        "schematic-ws2812.svg": ("74AHCT125", "MOSI (GPIO 10, pin 19)", "LED 0 (a1)", "1000 µF"),
        "schematic-hall-pairs.svg": ("DRV5032DU", "marked side UP: white pieces", "marked side DOWN: black pieces"),
        "schematic-hall-linear.svg": ("CD74HC4067 #1", "DRV5055A3", "Z (Pico GP26 = ADC0, every chip)"),
    }
    assert set(module.DRAWINGS) == set(labels)
    for name, draw in module.DRAWINGS.items():
        svg = draw()
        assert svg == (ROOT / "hardware" / name).read_bytes(), "run: python hardware/schematics.py"
        for label in labels[name]:
            assert label in svg.decode(), (name, label)


def test_a_pin_in_use_is_named_not_hidden_by_the_cleanup() -> None:
    """A scanner whose pin cannot be opened closes what it opened and lets gpiozero's reason
    through (it used to fail in its own cleanup, and the user read "no attribute '_stop'")."""
    from gpiozero import DigitalOutputDevice
    from gpiozero.exc import GPIOPinInUse

    factory = MockFactory()
    with DigitalOutputDevice(13, pin_factory=factory):
        with pytest.raises(GPIOPinInUse):
            MatrixScanner([4, 17, 27, 22, 5, 6, 13, 19], [26, 21, 20, 16, 12, 25, 24, 23], pin_factory=factory)
        with pytest.raises(GPIOPinInUse):
            ShiftInScanner(5, 6, 13, default_map(8, 8, 8), 8, pin_factory=factory)
        config = cfg('[board]\nbackend = "74hc165"\nsize = 8\n[74hc165]\nload = 5\nclock = 6\ndata = 13\n')
        with pytest.raises(ConfigError) as e:
            open_board(config, "brazilian", pin_factory=factory)
        one_line(e, "74hc165: cannot open the GPIO pins:", "GPIO13", "in use")
        # what was opened before the failure was released: the pins can be used again
        DigitalOutputDevice(5, pin_factory=factory).close()


def test_mcp23017_that_lost_its_settings_is_set_up_again() -> None:
    """A dip in a chip's supply resets it without a NACK: pull-ups off, inputs floating (the
    model reads them low: a full row of ghosts). The periodic check finds it and sets it up again."""
    board = McpBoard([0x20, 0x21, 0x22, 0x23, 0x24], default_map(5, 14, 8))
    with mcp_scanner(8, board) as scanner:
        board.set_cells({(0, 0)})
        scanner.poll_once()
        chip = board.bus.chips[0x21]
        chip.regs[:] = type(chip)().regs  # power-on reset
        assert chip.output_only_inputs() == ["GPA7", "GPB7"]  # (all inputs again after a reset)
        assert len(scanner.scan()) == 15  # its 14 floating inputs read as pieces
        scanner.verify_period = 0.0
        setups = scanner.setups
        scanner.poll_once()
        assert scanner.setups == setups + 1 and scanner.snapshot() == {(0, 0)}
        assert not [t for t in scanner.transitions.queue if getattr(t, "cell", None) != (0, 0)]
        before = board.bus.transfers
        scanner.poll_once()  # settings intact: one check (a transfer per chip) and the scan
        assert scanner.setups == setups + 1 and board.bus.transfers - before == 10


def test_board_leds_defaults_to_the_sensors_own() -> None:
    matrix = "[gpio]\nrows = [2, 3, 4, 5, 6, 7, 8, 9]\ncolumns = [10, 11, 12, 13, 14, 15, 16, 17]\n"
    assert cfg(f'[board]\nbackend = "gpio"\n{matrix}').leds_backend == "none"  # no chain configured
    chain = "[gpio.leds]\ndata = 18\nclock = 19\nlatch = 20\n"
    assert cfg(f'[board]\nbackend = "gpio"\n{matrix}{chain}').leds_backend == "gpio"
    assert cfg('[board]\nbackend = "pico"\n').leds_backend == "pico"
    assert cfg('[board]\nbackend = "mcp23017"\nsize = 8\n').leds_backend == "none"
    with pytest.raises(ConfigError) as e:
        cfg(f'[board]\nbackend = "gpio"\nleds = "gpio"\n{matrix}')
    one_line(e, 'board.leds = "gpio" needs gpio.leds')
    # the environment's "no hardware" takes the LEDs too
    text = '[board]\nbackend = "mcp23017"\nleds = "ws2812"\nsize = 8\n'
    assert parse_config(text, "b", env={"DAMAS_BOARD_BACKEND": "simulated"}).leds_backend == "simulated"


def test_selftest_a_broken_row_wire_is_one_line() -> None:
    rows, cols = [4, 17, 27, 22, 5, 6, 13, 19], [26, 21, 20, 16, 12, 25, 24, 23]
    factory = MockFactory()
    matrix = MatrixMock(rows, cols, factory)
    layout = Layout("brazilian")
    with MatrixScanner(rows, cols, pin_factory=factory) as scanner:

        def move(cell: Cell, on: bool) -> None:
            if cell[0] != 4:  # row 5's wire is cut: its switches reach no row line
                (matrix.occupied.add if on else matrix.occupied.discard)(cell)
            scanner.poll_once()

        io = BoardIO(layout, scanner)
        ask = hands_for(layout, lambda c: move(c, True), lambda c: move(c, False), matrix.occupied.clear)
        res = SelfTest(io, ask, timeout=0.05, led_step=0.0).run()
    assert res.messages == ["no cell on row 5 answers (cells a5-h5): check its wire, gpio.rows[4] = GPIO 5"]
    assert len(res.dead) == 4


@pytest.mark.parametrize(("n", "chips"), [(8, 8), (10, 13)])
def test_74hc165_chain_over_spi_is_one_transfer_per_scan(n: int, chips: int) -> None:
    factory = MockFactory()
    cells = default_map(chips, 8, n)
    chain = ShiftInMock(22, None, None, cells, factory)
    spi = FakeSpiDev()
    spi.open(1, 0)
    spi.respond = chain.spi_transfer
    rng = random.Random(n)
    with ShiftInScanner(22, None, None, cells, n, pin_factory=factory, spi=spi) as scanner:
        for _ in range(20):
            chain.occupied = {(r, c) for r in range(n) for c in range(n) if rng.random() < 0.4}
            transfers, loads = spi.transfers, chain.loads
            assert scanner.scan() == frozenset(chain.occupied)
            assert spi.transfers - transfers == 1 and len(spi.sent[-1]) == chips and chain.loads - loads == 1
        assert chain.bad_reads == 0 and chain.ignored_clocks == 0
    assert spi.opened is None  # closed with the scanner


def test_74hc165_over_spi_settings_and_a_shared_bus() -> None:
    text = '[board]\nbackend = "74hc165"\nsize = 8\n[74hc165]\nload = 22\nspi = "/dev/spidev0.1"\n'
    s = cfg(text).backend_settings["74hc165"]
    assert s.spi == "/dev/spidev0.1" and s.clock is None and s.data is None
    # the WS2812 strip on spidev0.0 shares the bus (its pins are the driver's, not two users')
    both = cfg(text.replace('backend = "74hc165"', 'backend = "74hc165"\nleds = "ws2812"') + "[ws2812]\n")
    assert both.leds_backend == "ws2812"
    with pytest.raises(ConfigError) as e:
        cfg(text + "clock = 27\n")
    one_line(e, "74hc165.clock: not used with 74hc165.spi")
    with pytest.raises(ConfigError) as e:
        cfg(
            text.replace('backend = "74hc165"', 'backend = "74hc165"\nleds = "gpio"')
            + "[gpio.leds]\ndata = 9\nclock = 4\nlatch = 5\n"
        )
    one_line(e, "GPIO 9 is used twice", "gpio.leds.data", "the SPI0 bus (74hc165.spi)")
    with pytest.raises(ConfigError) as e:
        cfg(text.replace("spidev0.1", "spi0"))
    one_line(e, "74hc165.spi must be an SPI device")


def test_74hc165_over_spi_opens_through_the_registry() -> None:
    factory = MockFactory()
    config = cfg('variant = "brazilian"\n[board]\nbackend = "74hc165"\n[74hc165]\nload = 22\nspi = "/dev/spidev1.0"\n')
    chain = ShiftInMock(22, None, None, config.backend_settings["74hc165"].cells, factory)
    opened: list[str] = []

    def spi(device: str) -> FakeSpiDev:
        opened.append(device)
        dev = FakeSpiDev()
        dev.respond = chain.spi_transfer
        return dev

    with open_board(config, "brazilian", hardware=registry.Hardware(pin_factory=factory, spi=spi)) as io:
        chain.occupied = {io.layout.cell_of(1), io.layout.cell_of(32)}
        io.sensors.poll_once()  # type: ignore[attr-defined]
        assert io.occupied() == ({1, 32}, set()) and opened == ["/dev/spidev1.0"]
