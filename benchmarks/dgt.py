"""DGT board figures: the time from a hand's change on the emulated DGT draughts board to
the board loop showing it (its LED intents written, and the state handed to the page's
viewers), 50th/99th percentile, beside the same through the emulated Pico and on the
simulated board, in the same run. The DGT emulator scans its 100 fields in 200 ms as the
header says ("a full scan takes about 200-250 ms"), so half a scan on average is part of
the figure; the line runs at 9600 baud; the app's debounce window (50 ms) is in all three.

    .venv/bin/python benchmarks/dgt.py [--samples N]

The app runs in this process (``PlayApp`` with a journal in a temporary directory, its loop
in asyncio); a lift of a movable piece lights its origin (the ``from`` role), a put-back
clears it: each is one sample.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_hal.backends import BoardIO, LedBackend, SensorBackend  # noqa: E402
from board_hal.dgt import DgtBoard  # noqa: E402
from board_hal.dgt_emulator import DgtEmulator  # noqa: E402
from board_hal.layout import Cell, Layout  # noqa: E402
from board_hal.leds import Role  # noqa: E402
from board_hal.simulated import SimulatedBoard  # noqa: E402
from board_hal.squares import Sensing, SquareState  # noqa: E402
from damas.board.loop import PlayApp  # noqa: E402
from damas.records.session import GameSession  # noqa: E402
from damas.records.store import Store  # noqa: E402
from firmware_bridge.bridge import PicoBoard  # noqa: E402
from firmware_bridge.emulator import Emulator  # noqa: E402
from rules import Position  # noqa: E402

VARIANT = "international"
LAYOUT = Layout(VARIANT)
MOVABLE = [31, 32, 33, 34, 35]  # White's front row at the start: each lights its origin when lifted


class Recorder(LedBackend):
    """Notes when the app writes LED intents (and passes them on to the board's own LEDs)."""

    def __init__(self, inner: LedBackend | None = None) -> None:
        self.inner = inner
        self.shown: list[tuple[float, dict[Cell, Role]]] = []

    def show(self, intents: Mapping[Cell, Role]) -> None:
        self.shown.append((time.monotonic(), dict(intents)))
        if self.inner is not None:
            self.inner.show(intents)


def measure(
    name: str, sensors: SensorBackend, lift: Callable[[int], None], place: Callable[[int], None], samples: int
) -> tuple[list[float], list[float]]:
    leds = Recorder(sensors if isinstance(sensors, LedBackend) and not isinstance(sensors, SimulatedBoard) else None)
    io = BoardIO(LAYOUT, sensors, leds)
    io.start()
    pushes: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        loop = asyncio.new_event_loop()
        ready = threading.Event()
        made: dict[str, object] = {}

        def serve() -> None:  # the app and its records live in the loop's thread, as in damas play
            asyncio.set_event_loop(loop)
            store = Store(Path(tmp) / "games.sqlite3")
            squares, _ = io.occupied()
            session = GameSession.start(store, VARIANT, None, "casual", squares, {}, window=0.05)
            app = PlayApp(store, io, session, window=0.05, clock=time.monotonic)
            app.watchers.append(lambda _text: pushes.append(time.monotonic()))
            made["task"] = loop.create_task(app.run_loop())
            made["app"] = app
            ready.set()
            with contextlib.suppress(asyncio.CancelledError):
                loop.run_until_complete(made["task"])  # type: ignore[arg-type]
            store.close()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        ready.wait(10)
        task = made["task"]
        app = made["app"]
        led_lat: list[float] = []
        page_lat: list[float] = []
        rng = random.Random(1)

        def wait_for(want: bool, sq: int, since: float) -> None:
            cell = LAYOUT.cell_of(sq)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                for t, frame in reversed(leds.shown):
                    if t < since:
                        break
                    if (frame.get(cell) is Role.FROM) == want:
                        led_lat.append(t - since)
                        page_lat.append(min((p for p in pushes if p >= since), default=t) - since)
                        return
                time.sleep(0.002)
            raise RuntimeError(f"{name}: square {sq} never showed: {app.write_error}")  # type: ignore[attr-defined]

        try:
            time.sleep(0.5)
            for _ in range(samples):
                sq = rng.choice(MOVABLE)
                t0 = time.monotonic()
                lift(sq)
                wait_for(True, sq, t0)
                time.sleep(rng.uniform(0.05, 0.15))
                t0 = time.monotonic()
                place(sq)
                wait_for(False, sq, t0)
                time.sleep(rng.uniform(0.05, 0.15))
        finally:
            loop.call_soon_threadsafe(task.cancel)  # type: ignore[attr-defined]
            thread.join(2)
            io.close()
    return sorted(led_lat), sorted(page_lat)


def line(name: str, led: list[float], page: list[float]) -> str:
    n = len(led)

    def pct(xs: list[float], q: float) -> str:
        return f"{xs[min(len(xs) - 1, int(len(xs) * q))] * 1e3:6.1f}"

    return (
        f"{name:<22} LEDs p50 {pct(led, 0.5)} ms  p99 {pct(led, 0.99)} ms  mean {statistics.mean(led) * 1e3:6.1f} ms | "
        f"page (first push) p50 {pct(page, 0.5)} ms  p99 {pct(page, 0.99)} ms  ({n} changes)"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=40, help="lifts and put-backs each (default 40)")
    n = ap.parse_args().samples
    start = Position.start(VARIANT)
    pieces = {LAYOUT.cell_of(sq): SquareState.of(p.color.value) for sq, p in start.pieces().items()}
    print(f"Python {sys.version.split()[0]}; {n} lifts and {n} put-backs per board")
    with DgtEmulator(pieces) as emu:
        board = DgtBoard(emu.port)
        led, page = measure(
            "dgt",
            board,
            lambda sq: emu.lift(LAYOUT.cell_of(sq)),
            lambda sq: emu.place(LAYOUT.cell_of(sq), SquareState.WHITE_MAN),
            n,
        )
        print(line("DGT (emulated, 9600)", led, page))
    with Emulator(10, cells=set(pieces)) as pico_emu:
        pico = PicoBoard(pico_emu.port, 10)
        led, page = measure(
            "pico",
            pico,
            lambda sq: pico_emu.lift(LAYOUT.cell_of(sq)),
            lambda sq: pico_emu.place(LAYOUT.cell_of(sq)),
            n,
        )
        print(line("Pico (emulated)", led, page))
    sim = SimulatedBoard(LAYOUT, senses=Sensing.CROWN)
    led, page = measure("simulated", sim, sim.lift, sim.place, n)
    print(line("simulated board", led, page))
    return 0


if __name__ == "__main__":
    sys.exit(main())
