"""HAL speed: one full matrix scan through gpiozero's mock pins, and the debounce step.

    .venv/bin/python benchmarks/hal.py

Mock pins cost more than real ones per read (Python objects, not a register), so the
scan figure is an upper bound for the Python side; on a Pi, lgpio adds a system call per
pin access. A Raspberry Pi Zero 2 runs Python roughly ten times slower than this machine.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpiozero.pins.mock import MockFactory  # noqa: E402

from board_hal.debounce import Debouncer, Transition  # noqa: E402
from board_hal.gpio import MatrixScanner  # noqa: E402
from board_hal.mockpins import MatrixMock  # noqa: E402


def bench_scan(n: int, repeat: int = 1000) -> float:
    pins = list(range(2, 2 + 2 * n))
    rows, cols = pins[:n], pins[n:]
    factory = MockFactory()
    matrix = MatrixMock(rows, cols, factory)
    rng = random.Random(n)
    matrix.occupied = {(r, c) for r in range(n) for c in range(n) if rng.random() < 0.4}
    with MatrixScanner(rows, cols, pin_factory=factory) as scanner:
        best = float("inf")
        for _ in range(5):
            t0 = time.process_time()
            for _ in range(repeat):
                scanner.scan()
            best = min(best, (time.process_time() - t0) / repeat)
    return best


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
    print(f"Python {sys.version.split()[0]}, gpiozero MockFactory")
    for n in (8, 10):
        s = bench_scan(n)
        print(
            f"{n}x{n} matrix scan: {s * 1e3:.3f} ms CPU per full scan "
            f"({n} row writes x2, {n * n} column reads) -> at most {1 / s:,.0f} scans/s on one core"
        )
        print(
            f"    estimated Pi Zero 2 (x10): {s * 1e4:.2f} ms per scan, "
            f"{100 * s * 10 * 100:.0f} % of one core at 100 scans/s"
        )
    per = bench_debounce()
    print(f"debounce step: {per * 1e6:.2f} µs CPU per transition (Pi Zero 2 estimate: {per * 1e7:.1f} µs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
