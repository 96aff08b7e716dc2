"""HAL speed: a full scan per sensor backend (8x8 and 10x10), a LED refresh per LED backend,
with the bus transfers counted, and the debounce step.

    .venv/bin/python benchmarks/hal.py

Everything runs on the bus-level mocks the tests use (gpiozero's MockFactory, the MCP23017
register model on a fake smbus2 bus, pi5neo on a fake spidev), so the CPU figures are the
Python side only: mock pins cost more than real ones per access (Python objects, not a
register), while on a Pi lgpio adds a system call per pin access and smbus2/spidev one ioctl
per transfer. The wire time of I2C and SPI transfers is computed from the bytes counted and
the bus clock. A Raspberry Pi Zero 2 runs Python roughly ten times slower than this machine.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from board_hal.debounce import Debouncer, Transition  # noqa: E402
from board_hal.gpio import MatrixScanner, ShiftRegisterLeds  # noqa: E402
from board_hal.hc165 import ShiftInScanner  # noqa: E402
from board_hal.leds import Role  # noqa: E402
from board_hal.mcp23017 import Mcp23017Scanner  # noqa: E402
from board_hal.mockbus import FakeSpiDev, McpBoard, fake_spidev_module  # noqa: E402
from board_hal.mockpins import MatrixMock, ShiftInMock, ShiftRegisterMock  # noqa: E402
from board_hal.pinmap import default_map  # noqa: E402
from board_hal.ws2812 import Ws2812Leds, fake_strip  # noqa: E402

ZERO2 = 10  # Python on a Pi Zero 2 W is roughly this many times slower
I2C_HZ = 100_000  # the Pi's default I2C clock (400 kHz with dtparam=i2c_arm_baudrate=400000)
SPI_HZ = 800 * 1024 * 8  # pi5neo's SPI clock: one SPI byte per WS2812 bit


class CountingFactory(MockFactory):  # type: ignore[misc]
    """A MockFactory whose pins count their reads and writes (what lgpio would do as calls)."""

    accesses = 0

    def pin(self, spec: Any, pin_class: Any = None, **kwargs: Any) -> Any:
        pin = super().pin(spec, pin_class=pin_class, **kwargs) if pin_class else super().pin(spec, **kwargs)
        if not getattr(pin, "_counted", False):
            factory = self
            get_state, set_state = pin._get_state, pin._set_state

            def counted_get() -> Any:
                factory.accesses += 1
                return get_state()

            def counted_set(value: Any) -> Any:
                factory.accesses += 1
                return set_state(value)

            pin._get_state, pin._set_state, pin._counted = counted_get, counted_set, True
        return pin


def best(fn: Callable[[], object], repeat: int) -> float:
    """The best of five runs' CPU seconds per call."""
    out = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(repeat):
            fn()
        out = min(out, (time.process_time() - t0) / repeat)
    return out


def occupancy(n: int) -> set[tuple[int, int]]:
    rng = random.Random(n)
    return {(r, c) for r in range(n) for c in range(n) if rng.random() < 0.4}


def scan_matrix(n: int) -> tuple[float, str]:
    pins = list(range(2, 2 + 2 * n))
    rows, cols = pins[:n], pins[n:]
    factory = CountingFactory()
    matrix = MatrixMock(rows, cols, factory)
    matrix.occupied = occupancy(n)
    with MatrixScanner(rows, cols, pin_factory=factory) as scanner:
        factory.accesses = 0
        scanner.scan()
        count = factory.accesses
        return best(scanner.scan, 300), f"{count} pin accesses ({n} row writes x2, {n * n} column reads)"


def scan_mcp23017(n: int) -> tuple[float, str]:
    chips = -(-n * n // 16)
    addresses = list(range(0x20, 0x20 + chips))
    cells = default_map(chips, 16, n)
    board = McpBoard(addresses, cells)
    board.set_cells(occupancy(n))
    with Mcp23017Scanner(board.bus, addresses, cells, n) as scanner:
        t0, w0 = board.bus.transfers, board.bus.wire_bytes
        scanner.scan()
        transfers, wire = board.bus.transfers - t0, board.bus.wire_bytes - w0
        wire_ms = wire * 9 / I2C_HZ * 1e3
        return best(scanner.scan, 1000), (
            f"{transfers} I2C transfers ({chips} chips), {wire} bytes on the wire: "
            f"{wire_ms:.2f} ms at 100 kHz, {wire_ms / 4:.2f} ms at 400 kHz"
        )


def scan_74hc165(n: int) -> tuple[float, str]:
    chips = -(-n * n // 8)
    cells = default_map(chips, 8, n)
    factory = CountingFactory()
    chain = ShiftInMock(5, 6, 13, cells, factory)
    chain.occupied = occupancy(n)
    with ShiftInScanner(5, 6, 13, cells, n, pin_factory=factory) as scanner:
        factory.accesses = 0
        scanner.scan()
        count = factory.accesses
        return best(scanner.scan, 300), f"{count} pin accesses (1 load pulse, {8 * chips} bits read and clocked)"


def scan_74hc165_spi(n: int) -> tuple[float, str]:
    chips = -(-n * n // 8)
    cells = default_map(chips, 8, n)
    factory = CountingFactory()
    chain = ShiftInMock(5, None, None, cells, factory)
    chain.occupied = occupancy(n)
    spi = FakeSpiDev()
    spi.respond = chain.spi_transfer
    with ShiftInScanner(5, None, None, cells, n, pin_factory=factory, spi=spi) as scanner:
        factory.accesses, before = 0, spi.transfers
        scanner.scan()
        count, transfers = factory.accesses, spi.transfers - before
        wire_ms = chips * 8 / 1e6 * 1e3
        # the mock shifts the chain in Python for every bit: not what a Pi spends (the SPI hardware does it)
        return best(scanner.scan, 300), (
            f"{count} pin writes (the load pulse) + {transfers} SPI transfer of {chips} bytes: {wire_ms:.3f} ms "
            f"at 1 MHz (CPU here includes the mock chain's shifting)"
        )


def intents(n: int) -> dict[tuple[int, int], Role]:
    rng = random.Random(n)
    cells = [(r, c) for r in range(n) for c in range(n)]
    return {cell: rng.choice([Role.FROM, Role.TO, Role.HINT, Role.PATH]) for cell in rng.sample(cells, 12)}


def refresh_595(n: int) -> tuple[float, str]:
    factory = CountingFactory()
    bits = ((n * n + 7) // 8) * 8
    ShiftRegisterMock(10, 11, 8, bits, factory)
    with ShiftRegisterLeds(n, data=10, clock=11, latch=8, pin_factory=factory) as leds:
        leds.show(intents(n))
        factory.accesses = 0
        leds.refresh()
        count = factory.accesses
        return best(leds.refresh, 300), f"{count} pin writes ({bits} bits x3, latch x2)"


def refresh_ws2812(n: int) -> tuple[float, str]:
    FakeSpiDev.instances.clear()
    strip = fake_strip(fake_spidev_module())("/dev/spidev0.0", n * n, "GRB")
    (dev,) = FakeSpiDev.instances
    with Ws2812Leds(n, strip) as leds:
        leds.show(intents(n))
        flip = [False]

        def refresh() -> None:  # a frame that changed (an unchanged one is not sent)
            flip[0] = not flip[0]
            leds.brightness = 0.5 if flip[0] else 0.6
            leds.refresh()

        sent = dev.transfers
        refresh()
        transfers, nbytes = dev.transfers - sent, len(dev.sent[-1])
        wire_ms = nbytes * 8 / SPI_HZ * 1e3
        return best(refresh, 200), (
            f"{transfers} SPI transfer of {nbytes} bytes: {wire_ms:.2f} ms on the wire at {SPI_HZ / 1e6:.2f} MHz"
        )


def bench_debounce(count: int = 200_000) -> float:
    rng = random.Random(1)
    d = Debouncer(0.05)
    t = 0.0
    trs = []
    for _ in range(count):
        t += rng.uniform(0.0002, 0.05)
        trs.append(Transition(t, rng.randint(1, 50), rng.random() < 0.5))
    t0 = time.process_time()
    for tr in trs:
        d.feed(tr)
    d.flush(t + 1)
    return (time.process_time() - t0) / count


def main() -> int:
    print(f"Python {sys.version.split()[0]}; bus-level mocks; Pi Zero 2 estimate: x{ZERO2} CPU")
    print("\nfull scan (sensors), CPU per scan; at 100 scans/s on a Pi Zero 2:")
    scans = (
        ("diode matrix (gpio)", scan_matrix),
        ("MCP23017", scan_mcp23017),
        ("74HC165", scan_74hc165),
        ("74HC165 over SPI", scan_74hc165_spi),
    )
    for name, fn in scans:
        for n in (8, 10):
            s, what = fn(n)
            print(
                f"  {name:20s} {n:2d}x{n:<2d} {s * 1e3:7.3f} ms  -> Zero 2 ~{s * ZERO2 * 1e3:6.2f} ms, "
                f"{s * ZERO2 * 100 * 100:4.0f} % of a core   {what}"
            )
    print("\nLED refresh (one frame), CPU per refresh; at 20 refreshes/s (blinking) on a Pi Zero 2:")
    for name, fn in (("74HC595 chain (gpio)", refresh_595), ("WS2812 (pi5neo/SPI)", refresh_ws2812)):
        for n in (8, 10):
            s, what = fn(n)
            print(
                f"  {name:20s} {n:2d}x{n:<2d} {s * 1e3:7.3f} ms  -> Zero 2 ~{s * ZERO2 * 1e3:6.2f} ms, "
                f"{s * ZERO2 * 20 * 100:4.0f} % of a core   {what}"
            )
    per = bench_debounce()
    print(f"\ndebounce step: {per * 1e6:.2f} µs CPU per transition (Pi Zero 2 estimate: {per * 1e6 * ZERO2:.1f} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
