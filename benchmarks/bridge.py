"""Serial bridge figures: frames decoded per second on the host, and the latency from a
switch change in the emulated firmware to the event on the host through a pseudo-terminal
(50th/99th percentile; the firmware's 20 ms debounce and 5 ms scan period included).

    .venv/bin/python benchmarks/bridge.py
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge import link  # noqa: E402
from firmware_bridge.bridge import PicoBoard  # noqa: E402
from firmware_bridge.emulator import Emulator  # noqa: E402


def decode_rate(n: int = 20000) -> tuple[float, int]:
    rng = random.Random(1)
    frames = b"".join(
        link.encode(link.SNAPSHOT, i, link.pack_snapshot(10, 10, rng.sample(range(100), 40), i)) for i in range(n)
    )
    d = link.Deframer()
    t0 = time.perf_counter()
    got = d.feed(frames)
    elapsed = time.perf_counter() - t0
    assert len(got) == n
    return n / elapsed, len(frames) // n


def latency(samples: int = 120) -> list[float]:
    out = []
    with Emulator(8, heartbeat_ms=500) as emu:
        board = PicoBoard(emu.port, 8)
        board.start()
        rng = random.Random(2)
        for _ in range(samples):
            cell = (rng.randrange(8), rng.randrange(8))
            occupied = cell in emu.matrix.closed
            t0 = time.monotonic()
            (emu.lift if occupied else emu.place)(cell)
            while True:
                tr = board.transitions.get(timeout=2)
                if tr.cell == cell:
                    out.append(time.monotonic() - t0)
                    break
            time.sleep(0.03)
        board.close()
    return sorted(out)


def main() -> int:
    rate, size = decode_rate()
    print(f"Python {sys.version.split()[0]}")
    print(f"host decoding: {rate:,.0f} snapshot frames/s (10x10, {size} bytes each on the line)")
    lat = latency()
    n = len(lat)
    print(
        f"switch change -> host event through a pty: p50 {lat[n // 2] * 1e3:.1f} ms, "
        f"p99 {lat[int(n * 0.99)] * 1e3:.1f} ms over {n} changes (20 ms debounce + 5 ms scan included)"
    )
    for cells, label in ((64, "8x8"), (100, "10x10")):
        frame = len(
            link.encode(
                link.SNAPSHOT,
                0,
                link.pack_snapshot(
                    cells // (8 if cells == 64 else 10), 8 if cells == 64 else 10, list(range(cells)), 0
                ),
            )
        )
        print(
            f"link budget {label}: snapshot {frame} bytes -> {11520 // frame} snapshots/s at 115200 baud, "
            f"~{1_000_000 // frame:,}/s at USB full-speed CDC (~1 MB/s)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
