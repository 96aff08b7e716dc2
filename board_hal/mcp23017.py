"""Reed switches on MCP23017 I2C port expanders (``backend = "mcp23017"``).

Each MCP23017 has 14 inputs: GPA0-GPA6 and GPB0-GPB6. GPA7 and GPB7 are output-only
(Microchip's datasheet DS20001952D, 2022: used as inputs, a level change while the chip is
on the bus can corrupt SDA), so they are set as outputs and left unconnected. 5 chips for
an 8x8 board (70 inputs), 8 for 10x10 (112), at I2C addresses 0x20-0x27 (set by the A0-A2
pins). Every reed switch connects its input to ground; the chip's own 100 kΩ pull-ups hold
an open input high, so a piece reads low. No diodes, no matrix: every switch has its own
input, so there are no ghosts.

One scan is one I2C transfer per chip (GPIOA and GPIOB in one block read), through
smbus2 (pure Python, ``pip install damas[pi]``). With ``interrupt`` set, the chips'
INTA outputs (mirrored, open-drain, all on one GPIO) say when something changed, and the
scan runs only then (and once a second, in case an edge was missed); else it polls at
``scan_rate``. A chip that stops answering takes the board's link down (like the Pico's
cable); when it answers again it is set up again and the whole occupancy is reported. A
chip that lost its settings without going silent (a dip in its supply resets it: pull-ups
off, inputs floating) is found by a check of its registers once a second (one transfer per
chip) and set up again.

A chip that does not answer when the board is opened is one line naming its address and
the addresses that did answer (a wrong A0-A2 strap shows as a chip at another address).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from board_hal import pinmap
from board_hal.backends import Clock, ScanningSensors, SensorBackend, stop_worker
from board_hal.layout import Cell
from board_hal.registry import Backend, Hardware

if TYPE_CHECKING:
    from board_hal.backends import LedBackend
    from board_hal.config import Config
    from board_hal.layout import Layout

log = logging.getLogger(__name__)

# registers with IOCON.BANK = 0 (the power-on default): A and B side by side
IODIRA, IODIRB = 0x00, 0x01
IPOLA, IPOLB = 0x02, 0x03
GPINTENA, GPINTENB = 0x04, 0x05
DEFVALA, DEFVALB = 0x06, 0x07
INTCONA, INTCONB = 0x08, 0x09
IOCON = 0x0A  # also at 0x0B
GPPUA, GPPUB = 0x0C, 0x0D
INTFA, INTFB = 0x0E, 0x0F
INTCAPA, INTCAPB = 0x10, 0x11
GPIOA, GPIOB = 0x12, 0x13
OLATA, OLATB = 0x14, 0x15

IOCON_MIRROR = 0x40  # INTA and INTB are one output
IOCON_ODR = 0x04  # open-drain INT: several chips share one GPIO (wired-OR, with the GPIO's pull-up)

ADDRESSES = range(0x20, 0x28)
INPUTS = 14  # GPA0-GPA6, GPB0-GPB6: GPA7 and GPB7 are output-only (DS20001952D)
PORT_INPUTS = 0x7F  # the input bits of each port (IODIR, GPPU, GPINTEN): bit 7 is an output


def input_bit(pin: int) -> int:
    """The bit of the 16-bit port pair (GPIOA | GPIOB << 8) of input ``pin`` (0-13)."""
    return pin if pin < 7 else pin + 1


def pin_name(pin: int) -> str:
    """Input 0-13 by the chip's name for it: GPA0-GPA6, GPB0-GPB6."""
    return f"GP{'AB'[pin // 7]}{pin % 7}"


class ChipError(OSError):
    """An MCP23017 did not answer."""


class Mcp23017Scanner(ScanningSensors):
    """Reads reed switches on MCP23017s; ``cells[k][p]`` is the cell on chip k's input p."""

    thread_name = "mcp23017-scan"

    def __init__(
        self,
        bus: Any,
        addresses: Sequence[int],
        cells: Sequence[Sequence[Cell | None]],
        size: int,
        *,
        rate: float = 100.0,
        interrupt: int | None = None,
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
        bus_number: int = 1,
    ) -> None:
        super().__init__(size, clock, rate=rate)
        self.bus = bus
        self.bus_number = bus_number
        self.addresses = list(addresses)
        self.cells = [list(line) for line in cells]
        self.interrupt = interrupt
        self._wake = threading.Event()
        self._int_device: Any = None
        self._lock = threading.Lock()
        self.verify_period = 1.0  # seconds between checks that the chips kept their settings
        self._verified = time.monotonic()
        self.setups = 0
        self.setup()
        if interrupt is not None:
            from gpiozero import DigitalInputDevice

            # INT is open-drain and active low: the GPIO's pull-up holds it high
            self._int_device = DigitalInputDevice(interrupt, pull_up=True, pin_factory=pin_factory)
            self._int_device.when_activated = self._wake.set
        self._state = self.scan()

    # -- the chips --------------------------------------------------------------------------
    def setup(self) -> None:
        """Every chip: GPA0-6 and GPB0-6 inputs with pull-ups, interrupt on any change (if
        used); GPA7 and GPB7 outputs, driven low (output-only pins: never inputs)."""
        self.setups += 1
        for addr in self.addresses:
            try:
                self.bus.write_byte_data(addr, IOCON, IOCON_MIRROR | IOCON_ODR)
                self.bus.write_i2c_block_data(addr, OLATA, [0x00, 0x00])
                self.bus.write_i2c_block_data(addr, IODIRA, [PORT_INPUTS, PORT_INPUTS])
                self.bus.write_i2c_block_data(addr, IPOLA, [0x00, 0x00])
                self.bus.write_i2c_block_data(addr, GPPUA, [PORT_INPUTS, PORT_INPUTS])
                self.bus.write_i2c_block_data(addr, INTCONA, [0x00, 0x00])  # compare with the previous value
                enable = PORT_INPUTS if self.interrupt is not None else 0x00
                self.bus.write_i2c_block_data(addr, GPINTENA, [enable, enable])
            except OSError as exc:
                raise ChipError(exc.errno, self.no_answer(addr)) from None

    def no_answer(self, addr: int) -> str:
        found = []
        for other in ADDRESSES:
            try:
                self.bus.read_byte_data(other, IOCON)
            except OSError:
                continue
            found.append(f"0x{other:02x}")
        seen = f"answering: {', '.join(found)}" if found else "no chip answers at all"
        return (
            f"no MCP23017 answers at 0x{addr:02x} on I2C bus {self.bus_number} ({seen}): "
            f"check its A0-A2 pins, 3V3, GND, SDA and SCL"
        )

    def verify(self) -> bool:
        """Do the chips still hold their settings? If one lost them (a reset), set them all up
        again; False then."""
        want = [IOCON_MIRROR | IOCON_ODR, IOCON_MIRROR | IOCON_ODR, PORT_INPUTS, PORT_INPUTS]  # IOCON x2, GPPUA/B
        for addr in self.addresses:
            try:
                got = list(self.bus.read_i2c_block_data(addr, IOCON, 4))
            except OSError as exc:
                raise ChipError(exc.errno, f"the MCP23017 at 0x{addr:02x} stopped answering") from None
            if got != want:
                log.warning(
                    "the MCP23017 at 0x%02x lost its settings (a dip in its supply?): setting it up again", addr
                )
                self.setup()
                return False
        return True

    def read_chip(self, addr: int) -> int:
        """The 16 pin levels of one chip (GPIOA | GPIOB << 8; 1 = high = open)."""
        try:
            a, b = self.bus.read_i2c_block_data(addr, GPIOA, 2)
        except OSError as exc:
            raise ChipError(exc.errno, f"the MCP23017 at 0x{addr:02x} stopped answering") from None
        return int(a) | int(b) << 8

    def scan(self) -> frozenset[Cell]:
        """One pass over every chip (one I2C transfer each): the occupied cells."""
        found = []
        with self._lock:
            for k, addr in enumerate(self.addresses):
                levels = self.read_chip(addr)
                for pin, cell in enumerate(self.cells[k]):
                    if cell is not None and not levels >> input_bit(pin) & 1:  # low: the switch is closed
                        found.append(cell)
        return frozenset(found)

    # -- reporting --------------------------------------------------------------------------
    def poll_once(self) -> None:
        """Scan and enqueue the changes since the last scan (what the thread does); a chip
        that stops answering takes the link down, and its return brings it up again."""
        now = self.clock()
        try:
            if not self._link_up:
                self.setup()
            elif time.monotonic() - self._verified >= self.verify_period:
                self._verified = time.monotonic()
                self.verify()
            new = self.scan()
        except ChipError as exc:
            if self._link_up:
                log.warning("%s", exc.strerror)
                self._link_change(False, now)
            return
        if not self._link_up:
            self._link_change(True, now, new, new ^ self._state)
            self._state = new
            return
        self._report(new, now)

    def _run(self) -> None:
        # with an interrupt line, scan when it says so (and once a second: an edge lost to
        # noise costs at most a second); without, poll
        period = 1.0 if self._int_device is not None else 1.0 / self.rate
        while not self._stop.is_set():
            self._wake.wait(period)
            self._wake.clear()
            if self._stop.is_set():
                break
            self.poll_once()

    def wiring(self, cell: Cell) -> str | None:
        """Where a cell's switch is wired (for the self-test's messages)."""
        for k, line in enumerate(self.cells):
            if cell in line:
                return f"{pin_name(line.index(cell))} of the MCP23017 at 0x{self.addresses[k]:02x}"
        return None

    def wiring_groups(self) -> list[tuple[str, list[Cell], str]]:
        """Each chip's cells, by the chip's name, and what to check when none answers."""
        hint = "is the chip dead, unpowered, or the switches' ground wire loose?"
        return [
            (f"the MCP23017 at 0x{a:02x}", [c for c in self.cells[k] if c], hint) for k, a in enumerate(self.addresses)
        ]

    def close(self) -> None:
        if self.closed:
            return
        self._stop.set()
        self._wake.set()  # the thread may be waiting for the interrupt line
        stop_worker(self._stop, self._thread)
        if self._int_device is not None:
            self._int_device.close()
        with self._lock:
            close = getattr(self.bus, "close", None)
            if close is not None:
                close()
        super().close()


# -- the configuration and the registry ------------------------------------------------------------
@dataclass
class Settings:
    bus: int
    addresses: list[int]
    cells: list[list[Cell | None]]
    size: int
    interrupt: int | None = None
    scan_rate: float = 100.0

    def gpio_pins(self) -> dict[int, str]:
        pins = {2: "mcp23017 (I2C SDA)", 3: "mcp23017 (I2C SCL)"} if self.bus == 1 else {}
        if self.interrupt is not None:
            pins[self.interrupt] = "mcp23017.interrupt"
        return pins


_KEYS = {"bus", "addresses", "cells", "interrupt", "scan_rate"}


def board_size(config: Config, where: str) -> int:
    from rules import find_variant

    n = config.size or (find_variant(config.variant).board_size if config.variant else None)
    if n is None:
        from board_hal.config import ConfigError

        raise ConfigError(f"{config.source}: the {where} backend needs board.size (8 or 10) or a variant")
    config.size = n
    return n


class Mcp23017(Backend):
    summary = "reed switches on MCP23017 I2C port expanders (14 inputs each), through smbus2"
    sensors = True

    def check(self, table: Mapping[str, Any], config: Config) -> Settings:
        from board_hal.config import ConfigError

        def fail(msg: str) -> Exception:
            return ConfigError(f"{config.source}: {msg}")

        pinmap.unknown(table, _KEYS, "mcp23017", fail)
        n = board_size(config, "mcp23017")
        bus = table.get("bus", 1)
        if not isinstance(bus, int) or isinstance(bus, bool) or not 0 <= bus <= 99:
            raise fail(f"mcp23017.bus must be an I2C bus number such as 1 (/dev/i2c-1), not {pinmap._short(bus)}")
        need = -(-n * n // INPUTS)
        addresses = table.get("addresses", list(ADDRESSES[:need]))
        if not isinstance(addresses, list) or not addresses:
            raise fail(f"mcp23017.addresses must be a list of I2C addresses such as [0x20, 0x21], not {addresses!r}")
        seen: set[int] = set()
        for a in addresses:
            if not isinstance(a, int) or isinstance(a, bool) or a not in ADDRESSES:
                raise fail(f"mcp23017.addresses: {pinmap._short(a)} is no MCP23017 address (0x20-0x27)")
            if a in seen:
                raise fail(f"mcp23017.addresses: 0x{a:02x} is used twice")
            seen.add(a)
        if "cells" in table:
            cells = pinmap.parse_map(table["cells"], len(addresses), INPUTS, n, "mcp23017.cells", fail)
        else:
            pinmap.check_coverage(len(addresses), INPUTS, n, "mcp23017.addresses", "chips", fail)
            cells = pinmap.default_map(len(addresses), INPUTS, n)
        interrupt = table.get("interrupt")
        if interrupt is not None:
            interrupt = pinmap.gpio_pin(interrupt, "mcp23017.interrupt", fail)
            if bus == 1 and interrupt in (2, 3):
                what = "SDA" if interrupt == 2 else "SCL"
                raise fail(f"mcp23017.interrupt: GPIO {interrupt} is used twice (mcp23017 (I2C {what}) and here)")
        rate = pinmap.number(table.get("scan_rate", 100.0), 1, 1000, "mcp23017.scan_rate", "scans per second", fail)
        return Settings(bus, list(addresses), cells, n, interrupt, rate)

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        from board_hal.config import ConfigError

        s: Settings = config.backend_settings[self.name]
        bus = hw.i2c(s.bus) if hw.i2c else _open_bus(s.bus, config.source)
        try:
            scanner = Mcp23017Scanner(
                bus,
                s.addresses,
                s.cells,
                s.size,
                rate=s.scan_rate,
                interrupt=s.interrupt,
                pin_factory=hw.pin_factory,
                clock=hw.clock,
                bus_number=s.bus,
            )
        except ChipError as exc:
            bus.close()
            raise ConfigError(f"{config.source}: mcp23017: {exc.strerror}") from None
        except Exception as exc:  # gpiozero: the interrupt pin
            bus.close()
            raise ConfigError(f"{config.source}: mcp23017.interrupt: cannot open GPIO {s.interrupt}: {exc}") from None
        return scanner, None


def open_bus(number: int) -> Any:
    """The I2C bus ``/dev/i2c-<number>`` through smbus2."""
    from smbus2 import SMBus

    return SMBus(number)


def _open_bus(number: int, source: str) -> Any:
    from board_hal.config import ConfigError

    try:
        return opener(number)
    except ImportError:
        raise ConfigError(f"{source}: mcp23017 needs smbus2: pip install 'damas[pi]'") from None
    except OSError as exc:
        why = exc.strerror or str(exc)
        raise ConfigError(
            f"{source}: mcp23017.bus: cannot open /dev/i2c-{number}: {why} (enable I2C: raspi-config, or "
            f"dtparam=i2c_arm=on; the user needs the i2c group)"
        ) from None


opener: Callable[[int], Any] = open_bus  # the CLI's tests put a fake bus here

BACKEND = Mcp23017()
