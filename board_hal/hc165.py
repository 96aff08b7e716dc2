"""Reed switches on a chain of 74HC165 parallel-in shift registers (``backend = "74hc165"``).

Each 74HC165 reads 8 switches (inputs A-H, here D0-D7): 8 chips for an 8x8 board, 13 for
10x10. Every switch connects its input to ground, with a 10 kΩ pull-up per input (the
chip has none), so a piece reads low. The chips are chained: each one's QH feeds the SER
of the chip before it, and the first chip's QH goes to the Pi. Three GPIOs, through
gpiozero (lgpio on a Pi 5, RPi.GPIO on older Pis):

- ``load`` (SH/LD of every chip): pulled low, the chips copy their inputs; back high,
  they shift;
- ``clock`` (CLK of every chip; CLK INH to ground): each rising edge moves the chain one
  bit towards the Pi;
- ``data`` (QH of the first chip): read before each clock.

The first bit read is input H of the first chip, then G ... A, then the second chip's H,
and so on: bit ``i`` is chip ``i // 8``'s input ``7 - i % 8``. A scan is one load pulse
and 8 clocks per chip (64 for 8x8, 104 for 10x10).

Or over SPI (``spi = "/dev/spidev1.0"``): SCLK clocks the chain and MISO reads QH, so a scan
is one load pulse and one SPI transfer of a byte per chip, clocked by the hardware (mode 0:
MISO is sampled on the rising edge that shifts the next bit out, so the first bit, H, is
read before it moves). Only ``load`` is then a GPIO; CLK INH wired to the device's chip
select lets the chain ignore SCLK while a WS2812 strip on the same bus is sent a frame.

A dead chip (unpowered, or its QH not reaching the next) cuts off itself and every chip
after it in the chain: the self-test says so in one line.

**Colour** (``colour = true``): the two-switch Hall build of ``hardware/wiring-hall.md`` on the
Pi's own pins: two unipolar Hall switches per square (the *white* one marked side up, the
*black* one marked side down), each on its own input, in the Pico build's order — bit ``2i``
of the chain (as read: chip #1's H first) is cell ``i``'s white switch, ``2i + 1`` its black
one (cell ``i`` = row × columns + column) —, ``ceil(2 n² / 8)`` chips (16 for 8x8, 25 for
10x10). The board then senses colour (``board_hal.squares``).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from board_hal import pinmap
from board_hal.backends import Clock, ScanningSensors, SensorBackend, stop_worker
from board_hal.layout import Cell
from board_hal.registry import Backend, Hardware
from board_hal.squares import Sensing, SquareState

if TYPE_CHECKING:
    from board_hal.backends import LedBackend
    from board_hal.config import Config
    from board_hal.layout import Layout

INPUTS = 8


class ShiftInScanner(ScanningSensors):
    """Reads a chain of 74HC165s; ``cells[k][p]`` is the cell on chip k's input Dp (chip 0
    is the one whose QH goes to the Pi)."""

    chain = True  # a dead chip hides every chip after it (the self-test's diagnosis)
    thread_name = "74hc165-scan"

    def __init__(
        self,
        load: int | str,
        clock_pin: int | str | None,
        data: int | str | None,
        cells: Sequence[Sequence[Cell | None]],
        size: int,
        *,
        rate: float = 100.0,
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
        spi: Any = None,
    ) -> None:
        super().__init__(size, clock, rate=rate)
        from gpiozero import DigitalOutputDevice, InputDevice

        self.cells = [list(line) for line in cells]
        self.bits = INPUTS * len(self.cells)
        # read order: bit i is chip i // 8, input 7 - i % 8
        self._order = [self.cells[i // INPUTS][INPUTS - 1 - i % INPUTS] for i in range(self.bits)]
        self._devices: list[Any] = []
        self.spi = spi  # an open spidev.SpiDev: SCLK and MISO instead of the clock and data pins
        if spi is None and (clock_pin is None or data is None):
            raise ValueError("the 74HC165 chain needs clock and data pins, or an SPI device")
        try:
            self._load = DigitalOutputDevice(load, initial_value=True, pin_factory=pin_factory)  # idle: shift
            self._devices.append(self._load)
            if spi is None:
                self._clk = DigitalOutputDevice(clock_pin, initial_value=False, pin_factory=pin_factory)
                self._devices.append(self._clk)
                # a pull-up: a chain that does not answer reads "all open", never a board full of pieces;
                # polled, so an InputDevice (a DigitalInputDevice would call Python at every edge)
                self._data = InputDevice(data, pull_up=True, pin_factory=pin_factory)
                self._devices.append(self._data)
        except Exception:
            self.close()
            raise
        self._state = self.scan()

    def read_bits(self) -> list[bool]:
        """One load pulse, then every bit of the chain (True: the input is high)."""
        # the devices' pins directly: a scan is hundreds of pin accesses, and the device layer
        # would more than double its cost (the devices stay open, and own the pins, meanwhile)
        load = self._load.pin
        load.state = False  # SH/LD low: every chip copies its inputs
        load.state = True  # high again: shift mode; QH shows the first chip's H already
        if self.spi is not None:
            data = self.spi.xfer2([0] * (self.bits // INPUTS))  # MSB first: H of each chip first
            return [bool(byte >> (7 - i) & 1) for byte in data for i in range(INPUTS)]
        clk, data = self._clk.pin, self._data.pin
        out = []
        for _ in range(self.bits):
            out.append(bool(data.state))  # the level: high = open
            clk.state = True  # rising edge: the next bit reaches QH
            clk.state = False
        return out

    def scan(self) -> frozenset[Cell]:
        """One pass over the chain: the occupied cells (inputs pulled low by their switch)."""
        return frozenset(
            cell for cell, high in zip(self._order, self.read_bits(), strict=True) if cell is not None and not high
        )

    def wiring(self, cell: Cell) -> str | None:
        for k, line in enumerate(self.cells):
            if cell in line:
                return f"input {'ABCDEFGH'[line.index(cell)]} of 74HC165 #{k + 1}"
        return None

    def wiring_groups(self) -> list[tuple[str, list[Cell], str]]:
        """Each chip's cells, in chain order from the Pi (#1 is the one wired to the Pi)."""
        return [
            (f"74HC165 #{k + 1}", [c for c in line if c], "is the chip dead or unpowered?")
            for k, line in enumerate(self.cells)
        ]

    def close(self) -> None:
        if self.closed:
            return
        stop_worker(self._stop, self._thread)
        for dev in self._devices:
            dev.close()
        if self.spi is not None:
            self.spi.close()
        super().close()


def spi_pins(device: str, role: str) -> dict[int, str]:
    """The GPIOs the kernel's SPI driver takes for ``/dev/spidevB.D`` (shared by every device
    on that bus: the same label for all of them)."""
    bus = device.rsplit("spidev", 1)[-1].split(".")[0]
    pins = {"0": (9, 10, 11, 8, 7), "1": (19, 20, 21, 18, 17, 16)}.get(bus, ())
    return {p: f"the SPI{bus} bus ({role})" for p in pins}


def open_spi(device: str, speed: int = 1_000_000) -> Any:
    """``/dev/spidevB.D`` through spidev, mode 0."""
    import spidev

    bus, dev = (int(x) for x in device.rsplit("spidev", 1)[-1].split("."))
    spi = spidev.SpiDev()
    spi.open(bus, dev)
    spi.max_speed_hz = speed
    spi.mode = 0
    return spi


class HallPairsScanner(ShiftInScanner):
    """Two Hall switches per cell on the chain (the module's *Colour*): each cell's colour."""

    senses = Sensing.COLOUR
    thread_name = "hall-pairs-scan"

    def __init__(
        self,
        load: int | str,
        clock_pin: int | str | None,
        data: int | str | None,
        size: int,
        **kwargs: Any,
    ) -> None:
        self._now: dict[Cell, SquareState] = {}
        super().__init__(load, clock_pin, data, pair_cells(size), size, **kwargs)

    def read_states(self) -> dict[Cell, SquareState]:
        """One pass over the chain: what stands on each occupied cell (both switches at once:
        a piece the board cannot read)."""
        out: dict[Cell, SquareState] = {}
        entries: list[Any] = self._order  # (cell, pole) pairs here, not cells
        for entry, high in zip(entries, self.read_bits(), strict=True):
            if entry is None or high:
                continue
            cell, pole = entry
            state = SquareState.WHITE_MAN if pole == "white" else SquareState.BLACK_MAN
            out[cell] = SquareState.OCCUPIED if cell in out and out[cell] is not state else state
        return out

    def scan(self) -> frozenset[Cell]:
        self._now = self.read_states()
        return frozenset(self._now)

    def poll_once(self) -> None:
        now = self.clock()
        old, new = self._now, self.read_states()
        for cell in sorted(set(old) | set(new)):
            if old.get(cell) is not new.get(cell):
                state = new.get(cell, SquareState.EMPTY)
                self._emit(cell, state.occupied, now, state)
        self._now = new
        self._state = frozenset(new)

    def states(self) -> dict[Cell, SquareState]:
        return dict(self._now)


def pair_cells(size: int) -> list[list[Any]]:
    """The chain's inputs for the two-switch build: ``[chip][input]`` -> (cell, "white"/"black")."""
    bits = [((i // size, i % size), pole) for i in range(size * size) for pole in ("white", "black")]
    chips: list[list[Any]] = [[None] * INPUTS for _ in range(-(-len(bits) // INPUTS))]
    for k, entry in enumerate(bits):  # bit k is chip k // 8, input 7 - k % 8 (H first)
        chips[k // INPUTS][INPUTS - 1 - k % INPUTS] = entry
    return chips


@dataclass
class Settings:
    load: int
    clock: int | None
    data: int | None
    cells: list[list[Cell | None]]
    size: int
    scan_rate: float = 100.0
    spi: str | None = None
    colour: bool = False  # two Hall switches per cell (hardware/wiring-hall.md)

    def gpio_pins(self) -> dict[int, str]:
        if self.spi is not None:
            return {self.load: "74hc165.load", **spi_pins(self.spi, "74hc165.spi")}
        return {self.load: "74hc165.load", self.clock: "74hc165.clock", self.data: "74hc165.data"}  # type: ignore[dict-item]


_KEYS = {"load", "clock", "data", "chips", "cells", "scan_rate", "spi", "colour"}


class Hc165(Backend):
    summary = (
        "reed switches on a chain of 74HC165 shift registers (8 inputs each), on three GPIOs; "
        "or two Hall switches per square (colour = true): colours"
    )
    sensors = True
    senses = Sensing.COLOUR

    def check(self, table: Mapping[str, Any], config: Config) -> Settings:
        from board_hal.config import ConfigError
        from board_hal.mcp23017 import board_size

        def fail(msg: str) -> Exception:
            return ConfigError(f"{config.source}: {msg}")

        pinmap.unknown(table, _KEYS, "74hc165", fail)
        n = board_size(config, "74hc165")
        pins: dict[str, int] = {}
        spi = table.get("spi")
        if spi is not None and (not isinstance(spi, str) or not re.fullmatch(r"(.*/)?spidev\d+\.\d+", spi)):
            raise fail(f"74hc165.spi must be an SPI device such as /dev/spidev1.0, not {pinmap._short(spi)}")
        for key in ("load",) if spi else ("load", "clock", "data"):
            if key not in table:
                needs = "a load pin" if spi else "load, clock and data pins"
                raise fail(f"74hc165 needs {needs} (missing 74hc165.{key})")
            pins[key] = pinmap.gpio_pin(table[key], f"74hc165.{key}", fail)
        if spi:
            for key in ("clock", "data"):
                if key in table:
                    raise fail(f"74hc165.{key}: not used with 74hc165.spi (SCLK clocks the chain, MISO reads QH)")
        seen: dict[int, str] = {}
        for key, p in pins.items():
            if p in seen:
                raise fail(f"74hc165.{key}: GPIO {p} is used twice (74hc165.{seen[p]} and 74hc165.{key})")
            seen[p] = key
        colour = table.get("colour", False)
        if not isinstance(colour, bool):
            raise fail(f"74hc165.colour must be true or false, not {pinmap._short(colour)}")
        if colour and "cells" in table:
            raise fail("74hc165.cells: not used with 74hc165.colour (the two switches of cell i are bits 2i, 2i + 1)")
        need = -(-n * n // INPUTS) if not colour else -(-2 * n * n // INPUTS)
        if colour and table.get("chips", need) != need:
            raise fail(f"74hc165.chips: the two-switch build of a {n}x{n} board has {need} chips")
        chips = table.get("chips", need)
        if not isinstance(chips, int) or isinstance(chips, bool) or not 1 <= chips <= 64:
            raise fail(f"74hc165.chips must be the number of chips in the chain, not {pinmap._short(chips)}")
        if colour:
            cells = pair_cells(n)
        elif "cells" in table:
            cells = pinmap.parse_map(table["cells"], chips, INPUTS, n, "74hc165.cells", fail)
        else:
            pinmap.check_coverage(chips, INPUTS, n, "74hc165.chips", "chips", fail)
            cells = pinmap.default_map(chips, INPUTS, n)
        rate = pinmap.number(table.get("scan_rate", 100.0), 1, 1000, "74hc165.scan_rate", "scans per second", fail)
        return Settings(pins["load"], pins.get("clock"), pins.get("data"), cells, n, rate, spi, colour)

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        from board_hal.config import ConfigError

        s: Settings = config.backend_settings[self.name]
        spi = None
        if s.spi is not None:
            spi = _open_spi(s.spi, hw, config.source)
        try:
            opened: dict[str, Any] = {"rate": s.scan_rate, "pin_factory": hw.pin_factory, "clock": hw.clock, "spi": spi}
            scanner: ShiftInScanner = (
                HallPairsScanner(s.load, s.clock, s.data, s.size, **opened)
                if s.colour
                else ShiftInScanner(s.load, s.clock, s.data, s.cells, s.size, **opened)
            )
        except Exception as exc:  # gpiozero: no pin factory, pin in use, not a Pi...
            if spi is not None:
                spi.close()
            raise ConfigError(f"{config.source}: 74hc165: cannot open the GPIO pins: {exc}") from None
        return scanner, None


def _open_spi(device: str, hw: Hardware, source: str) -> Any:
    from board_hal.config import ConfigError

    if hw.spi is not None:
        return hw.spi(device)
    if not os.path.exists(device):
        raise ConfigError(
            f"{source}: 74hc165.spi: {device} does not exist (enable SPI: raspi-config, dtparam=spi=on, or "
            f"dtoverlay=spi1-1cs for SPI1)"
        )
    try:
        return open_spi(device)
    except ImportError:
        raise ConfigError(f"{source}: 74hc165.spi needs spidev: pip install 'damas[pi]'") from None
    except OSError as exc:
        raise ConfigError(f"{source}: 74hc165.spi: cannot open {device}: {exc.strerror or exc}") from None


BACKEND = Hc165()
