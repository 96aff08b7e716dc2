"""The SPI backends' error paths as a user meets them: each one line naming the setting and the
device, and nothing left open behind a failure (74HC165 over SPI, WS2812 strips)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gpiozero import DigitalOutputDevice
from gpiozero.pins.mock import MockFactory

from board_hal import registry
from board_hal.backends import BoardIO
from board_hal.config import Config, ConfigError, parse_config
from board_hal.factory import open_board
from board_hal.hc165 import ShiftInScanner
from board_hal.layout import Cell, Layout
from board_hal.mcp23017 import Mcp23017Scanner
from board_hal.mockbus import FakeSpiDev, McpBoard
from board_hal.mockpins import ShiftInMock
from board_hal.pinmap import default_map
from board_hal.selftest import SelfTest

HC165_SPI = '[board]\nbackend = "74hc165"\nsize = 8\n[74hc165]\nload = 22\nspi = "{device}"\n'
WS2812 = '[board]\nbackend = "simulated"\nleds = "ws2812"\nsize = 8\n[ws2812]\n{table}\n'


def cfg(text: str) -> Config:
    return parse_config(text, "board.toml", env={})


def one_line(exc: pytest.ExceptionInfo[ConfigError], *words: str) -> None:
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("board.toml: "), msg
    for w in words:
        assert w in msg, msg


def test_74hc165_on_an_spi_device_that_is_not_there(tmp_path: Path) -> None:
    device = tmp_path / "spidev9.7"
    hw = registry.Hardware(pin_factory=MockFactory())
    with pytest.raises(ConfigError) as e:
        open_board(cfg(HC165_SPI.format(device=device)), "brazilian", hardware=hw)
    one_line(e, f"74hc165.spi: {device} does not exist", "dtparam=spi=on")
    # a file of that name that is no SPI device: spidev cannot open it
    device.write_text("")
    with pytest.raises(ConfigError) as e:
        open_board(cfg(HC165_SPI.format(device=device)), "brazilian", hardware=hw)
    one_line(e, f"74hc165.spi: cannot open {device}:")


def test_74hc165_whose_load_pin_is_taken_closes_the_spi_device_it_opened() -> None:
    factory = MockFactory()
    opened: list[FakeSpiDev] = []

    def spi(device: str) -> FakeSpiDev:
        dev = FakeSpiDev()
        dev.open(0, 1)
        opened.append(dev)
        return dev

    hw = registry.Hardware(pin_factory=factory, spi=spi)
    with DigitalOutputDevice(22, pin_factory=factory), pytest.raises(ConfigError) as e:
        open_board(cfg(HC165_SPI.format(device="/dev/spidev0.1")), "brazilian", hardware=hw)
    one_line(e, "74hc165: cannot open the GPIO pins:", "GPIO22")
    assert len(opened) == 1 and opened[0].opened is None  # not left open behind the failure


def test_a_chain_sized_for_10x10_is_refused_for_an_8x8_game() -> None:
    # check() records the size the chain covers; open_board compares it with the game's (one
    # place for every backend: the backends' own size checks were unreachable and are gone)
    config = cfg(
        HC165_SPI.format(device="/dev/spidev0.1")
        .replace("size = 8\n", "")
        .replace("[board]", 'variant = "international"\n[board]')
    )
    assert config.size == 10
    with pytest.raises(ConfigError) as e:
        open_board(config, "brazilian", hardware=registry.Hardware(pin_factory=MockFactory()))
    one_line(e, "this board is 10x10; brazilian needs 8x8")


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('along = "diagonal"', ('ws2812.along must be "rows" or "columns"', "'diagonal'")),
        ('pixel = "RGBW2"', ("ws2812.pixel must be one of", "GRB", "'RGBW2'")),
    ],
)
def test_ws2812_settings_refused_in_one_line(table: str, words: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as e:
        cfg(WS2812.format(table=table))
    one_line(e, *words)


def test_ws2812_on_an_spi_device_that_is_not_there(tmp_path: Path) -> None:
    device = tmp_path / "spidev9.8"
    config = cfg(WS2812.format(table=f'spi = "{device}"'))
    with pytest.raises(ConfigError) as e:
        open_board(config, "brazilian", hardware=registry.Hardware(pin_factory=MockFactory()))
    one_line(e, f"ws2812.spi: {device} does not exist", "dtparam=spi=on")


# -- the self-test names the pins of swapped lines on the chips ----------------------------------
def _swapped_rows_selftest(scanner: Any, move: Callable[[Cell, bool], None], clear: Callable[[], None]) -> list[str]:
    from tests.hal.test_backends import hands_for

    layout = Layout("brazilian")
    io = BoardIO(layout, scanner)
    ask = hands_for(layout, lambda c: move(c, True), lambda c: move(c, False), clear)
    res = SelfTest(io, ask, timeout=1.0, led_step=0.0).run()
    assert not res.ok
    return res.messages


def _swap_rows(cells: list[list[Cell | None]], a: int, b: int) -> list[list[Cell | None]]:
    def swap(c: Cell | None) -> Cell | None:
        if c is None or c[0] not in (a, b):
            return c
        return (a + b - c[0], c[1])

    return [[swap(c) for c in line] for line in cells]


def test_selftest_swapped_rows_on_mcp23017_name_the_chip_pins() -> None:
    cells = default_map(5, 14, 8)
    addresses = [0x20, 0x21, 0x22, 0x23, 0x24]
    board = McpBoard(addresses, _swap_rows(cells, 2, 3))  # rows 3 and 4 on each other's pins
    with Mcp23017Scanner(board.bus, addresses, cells, 8) as scanner:

        def move(cell: Cell, on: bool) -> None:
            board.set_cells(board.occupied | {cell} if on else board.occupied - {cell})
            scanner.poll_once()

        messages = _swapped_rows_selftest(scanner, move, lambda: board.set_cells(set()))
    # a3 is input 16 overall (the second chip's input 2: GPA2), a4 input 24 (its input 10: GPB3)
    assert messages == [
        "rows 3 and 4 are swapped: a3 answers at a4 and back (check a3 on GPA2 of the MCP23017 at 0x21, "
        "a4 on GPB3 of the MCP23017 at 0x21)"
    ]


def test_selftest_swapped_rows_on_74hc165_name_the_chip_inputs() -> None:
    factory = MockFactory()
    cells = default_map(8, 8, 8)
    chain = ShiftInMock(5, 6, 13, _swap_rows(cells, 2, 3), factory)
    with ShiftInScanner(5, 6, 13, cells, 8, pin_factory=factory) as scanner:

        def move(cell: Cell, on: bool) -> None:
            (chain.occupied.add if on else chain.occupied.discard)(cell)
            scanner.poll_once()

        messages = _swapped_rows_selftest(scanner, move, chain.occupied.clear)
    assert messages == [
        "rows 3 and 4 are swapped: a3 answers at a4 and back (check a3 on input A of 74HC165 #3, "
        "a4 on input A of 74HC165 #4)"
    ]


def test_gpio_board_whose_led_latch_is_taken_releases_the_matrix_pins() -> None:
    factory = MockFactory()
    config = cfg(
        '[board]\nbackend = "gpio"\nleds = "gpio"\n[gpio]\nrows = [4, 17, 27, 22, 5, 6, 13, 19]\n'
        "columns = [26, 21, 20, 16, 12, 25, 24, 23]\n[gpio.leds]\ndata = 10\nclock = 11\nlatch = 8\n"
    )
    with DigitalOutputDevice(8, pin_factory=factory), pytest.raises(ConfigError) as e:
        open_board(config, "brazilian", hardware=registry.Hardware(pin_factory=factory))
    one_line(e, "cannot open the GPIO pins:", "GPIO8")
    # the matrix and the LED pins opened before the failure were closed: they can be used again
    DigitalOutputDevice(10, pin_factory=factory).close()
    DigitalOutputDevice(4, pin_factory=factory).close()
    DigitalOutputDevice(26, pin_factory=factory).close()
