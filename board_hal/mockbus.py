"""Bus-level mocks for the I2C and SPI backends, so they run and are tested without a Pi
(as :mod:`board_hal.mockpins` does for gpiozero pins).

:class:`Mcp23017Model` is an MCP23017 at register level (IODIR, IPOL, GPINTEN, INTCON,
IOCON, GPPU, INTF, INTCAP, GPIO; sequential addressing; interrupt on change) with reed
switches on its inputs; :class:`FakeSMBus` puts such chips behind the calls of
``smbus2.SMBus`` and counts the transfers; a missing or dead chip does not acknowledge
(``OSError`` 121, as the kernel says). :class:`FakeSpiDev` stands in for ``spidev.SpiDev``
under the WS2812 library and keeps every byte sent; :func:`decode_ws2812` reads the LED
colours back from those bytes: what the strip would show.
"""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable, Iterable, Sequence
from types import SimpleNamespace
from typing import Any, ClassVar

from board_hal.layout import Cell
from board_hal.mcp23017 import (
    GPINTENA,
    GPIOA,
    GPPUA,
    INTCAPA,
    INTCONA,
    INTFA,
    IOCON,
    IOCON_MIRROR,
    IPOLA,
    OLATA,
)


def _nack(addr: int) -> OSError:
    return OSError(errno.EREMOTEIO, f"Remote I/O error (no acknowledge from 0x{addr:02x})")


class Mcp23017Model:
    """One MCP23017, at register level; ``closed`` are the inputs whose switch is closed
    (pulled to ground). An open input without its pull-up floats: it reads low here, as a
    floating CMOS input near ground may (so a driver that forgets the pull-ups sees pieces)."""

    def __init__(self) -> None:
        self.regs = bytearray(0x16)
        self.regs[0x00] = self.regs[0x01] = 0xFF  # IODIR: inputs after power-on
        self.closed: set[int] = set()
        self.dead = False  # stops answering on the bus
        self._last = self.pins()  # for interrupt-on-change
        self.int_asserted = False

    def _pair(self, reg: int) -> int:
        return self.regs[reg] | self.regs[reg + 1] << 8

    def pins(self) -> int:
        """The 16 pin levels (1 = high)."""
        pullups = self._pair(GPPUA)
        return sum(1 << p for p in range(16) if p not in self.closed and pullups >> p & 1)

    def gpio(self) -> int:
        """What the GPIO registers read: input levels through IPOL."""
        return (self.pins() ^ self._pair(IPOLA)) & 0xFFFF

    def inputs_changed(self) -> None:
        """Interrupt on change: compare with the previous level on enabled, INTCON-clear inputs."""
        now = self.pins()
        enabled = self._pair(GPINTENA) & ~self._pair(INTCONA)
        changed = (now ^ self._last) & enabled
        self._last = now
        if changed and not self.int_asserted:
            flags = self._pair(INTFA) | changed
            self.regs[INTFA], self.regs[INTFA + 1] = flags & 0xFF, flags >> 8
            cap = self.gpio()
            self.regs[INTCAPA], self.regs[INTCAPA + 1] = cap & 0xFF, cap >> 8
            self.int_asserted = True

    def read(self, reg: int) -> int:
        if reg in (GPIOA, GPIOA + 1):
            value = self.gpio()
            self._clear_interrupt()
            return value >> 8 * (reg - GPIOA) & 0xFF
        if reg in (INTCAPA, INTCAPA + 1):
            value = self.regs[reg]
            self._clear_interrupt()
            return value
        if reg in (OLATA, OLATA + 1):
            return self.regs[reg]
        if reg == IOCON + 1:
            return self.regs[IOCON]
        return self.regs[reg]

    def _clear_interrupt(self) -> None:
        self.int_asserted = False
        self.regs[INTFA] = self.regs[INTFA + 1] = 0
        self._last = self.pins()

    def write(self, reg: int, value: int) -> None:
        if reg in (GPIOA, GPIOA + 1):
            reg += OLATA - GPIOA
        if reg in (INTFA, INTFA + 1, INTCAPA, INTCAPA + 1):
            return  # read-only
        if reg == IOCON + 1:
            reg = IOCON
        self.regs[reg] = value & 0xFF
        if reg in (GPPUA, GPPUA + 1):
            self._last = self.pins()

    @property
    def mirror(self) -> bool:
        return bool(self.regs[IOCON] & IOCON_MIRROR)

    def output_only_inputs(self) -> list[str]:
        """GPA7 / GPB7 if set as inputs: Microchip's datasheet (DS20001952D) makes them output-only."""
        return [name for name, reg in (("GPA7", 0x00), ("GPB7", 0x01)) if self.regs[reg] & 0x80]


class FakeSMBus:
    """``smbus2.SMBus`` with MCP23017 models at their addresses. ``transfers`` counts I2C
    transactions, ``bytes`` the data bytes moved, ``wire_bytes`` every byte on the wire
    (address and register bytes too; 9 clocks each with the acknowledge); ``int_pin`` (a gpiozero mock pin) is
    the chips' shared open-drain INT line: low while any chip asserts it."""

    def __init__(self, chips: dict[int, Mcp23017Model], int_pin: Any = None) -> None:
        self.chips = chips
        self.int_pin = int_pin
        self.transfers = 0
        self.bytes = 0
        self.wire_bytes = 0
        self.closed = False
        self.lock = threading.RLock()

    def _chip(self, addr: int) -> Mcp23017Model:
        self.transfers += 1
        chip = self.chips.get(addr)
        if chip is None or chip.dead:
            raise _nack(addr)
        return chip

    def read_byte_data(self, addr: int, reg: int) -> int:
        with self.lock:
            value = self._chip(addr).read(reg)
            self.bytes += 1
            self.wire_bytes += 4  # address+W, register, (repeated start) address+R, data
            self._int_line()
            return value

    def write_byte_data(self, addr: int, reg: int, value: int) -> None:
        with self.lock:
            self._chip(addr).write(reg, value)
            self.bytes += 1
            self.wire_bytes += 3

    def read_i2c_block_data(self, addr: int, reg: int, length: int) -> list[int]:
        with self.lock:
            chip = self._chip(addr)  # sequential addressing (IOCON.SEQOP = 0): the address pointer moves on
            out = [chip.read(reg + i) for i in range(length)]
            self.bytes += length
            self.wire_bytes += 3 + length
            self._int_line()
            return out

    def write_i2c_block_data(self, addr: int, reg: int, data: Sequence[int]) -> None:
        with self.lock:
            chip = self._chip(addr)
            for i, value in enumerate(data):
                chip.write(reg + i, value)
            self.bytes += len(data)
            self.wire_bytes += 2 + len(data)

    def close(self) -> None:
        self.closed = True

    def _int_line(self) -> None:
        if self.int_pin is None:
            return
        if any(c.int_asserted and not c.dead for c in self.chips.values()):
            self.int_pin.drive_low()
        else:
            self.int_pin.drive_high()

    def set_inputs(self, addr: int, closed: Iterable[int]) -> None:
        """The hands: chip ``addr``'s closed inputs are now ``closed``."""
        with self.lock:
            chip = self.chips[addr]
            chip.closed = set(closed)
            chip.inputs_changed()
            self._int_line()


class McpBoard:
    """A board of reed switches on MCP23017s behind a :class:`FakeSMBus`, moved by cell."""

    def __init__(
        self,
        addresses: Sequence[int],
        cells: Sequence[Sequence[Cell | None]],
        int_pin: Any = None,
        *,
        present: Iterable[int] | None = None,
    ) -> None:
        have = set(addresses if present is None else present)
        self.bus = FakeSMBus({a: Mcp23017Model() for a in have}, int_pin)
        self.where: dict[Cell, tuple[int, int]] = {}
        from board_hal.mcp23017 import input_bit

        for addr, line in zip(addresses, cells, strict=True):
            for pin, cell in enumerate(line):
                if cell is not None:
                    self.where[cell] = (addr, input_bit(pin))
        self.occupied: set[Cell] = set()

    def set_cells(self, cells: Iterable[Cell]) -> None:
        self.occupied = set(cells)
        by_chip: dict[int, set[int]] = {a: set() for a in self.bus.chips}
        for cell in self.occupied:
            addr, pin = self.where[cell]
            if addr in by_chip:
                by_chip[addr].add(pin)
        for addr, pins in by_chip.items():
            self.bus.set_inputs(addr, pins)

    def place(self, cell: Cell) -> None:
        self.set_cells(self.occupied | {cell})

    def lift(self, cell: Cell) -> None:
        self.set_cells(self.occupied - {cell})


# -- SPI, for the WS2812 strip ---------------------------------------------------------------------
class FakeSpiDev:
    """``spidev.SpiDev``: keeps what would go out on MOSI (``sent``: one list per transfer)."""

    instances: ClassVar[list[FakeSpiDev]] = []

    #: what MISO answers to a transfer (a device on the bus: ShiftInMock.spi_transfer), else zeros
    respond: Callable[[Sequence[int]], list[int]] | None = None

    def __init__(self) -> None:
        self.sent: list[list[int]] = []
        self.max_speed_hz = 0
        self.mode = 0
        self.opened: tuple[int, int] | None = None
        self.transfers = 0
        FakeSpiDev.instances.append(self)

    def open(self, bus: int, device: int) -> None:
        self.opened = (bus, device)

    def fileno(self) -> int:
        return 3 if self.opened else -1

    def xfer3(self, data: Sequence[int]) -> list[int]:
        self.transfers += 1
        self.sent.append(list(data))
        return self.respond(data) if self.respond is not None else [0] * len(data)

    xfer2 = xfer3

    def writebytes2(self, data: Sequence[int]) -> None:
        self.xfer3(data)

    def close(self) -> None:
        self.opened = None


def fake_spidev_module() -> Any:
    """A stand-in for the ``spidev`` module."""
    return SimpleNamespace(SpiDev=FakeSpiDev)


WS2812_ONE = 0xF8  # one WS2812 bit as one SPI byte at ~6.5 MHz: 5 high bits ~0.76 µs
WS2812_ZERO = 0xC0  # 2 high bits ~0.3 µs


def decode_ws2812(data: Sequence[int], order: str = "GRB") -> list[tuple[int, int, int]]:
    """The (r, g, b) of every LED in a WS2812 SPI bit stream (one SPI byte per data bit,
    ``order``: the channels' order on the wire)."""
    width = 8 * len(order)
    if len(data) % width:
        raise ValueError(f"{len(data)} SPI bytes are not whole LEDs of {width}")
    out = []
    for i in range(0, len(data), width):
        channels = {}
        for k, name in enumerate(order):
            value = 0
            for byte in data[i + 8 * k : i + 8 * k + 8]:
                if byte not in (WS2812_ONE, WS2812_ZERO):
                    raise ValueError(f"SPI byte 0x{byte:02x} is no WS2812 bit")
                value = value << 1 | (byte == WS2812_ONE)
            channels[name] = value
        out.append((channels["R"], channels["G"], channels["B"]))
    return out
