"""Does the board wait for the engine? The time from a simulated board event to the LEDs being
written (``io.show``), in the board loop of ``damas play`` (``PlayApp.run_loop``), while our
engine searches International draughts from the start position (level 10, 3 s per move, again
and again):

* ``idle``: no engine thinking (the baseline);
* ``thread``: the engine in a thread of the app's process (``damas.computer.opponent.LocalEngine``);
* ``process``: the engine in a process of its own behind the Hub client (``HubEngine``, what
  ``damas play`` uses).

    .venv/bin/python benchmarks/opponent.py [EVENTS]

Prints the 50th/90th percentile and the worst delay of each, over EVENTS events (default 80)
a little more than the debounce window apart.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_hal.config import load_config  # noqa: E402
from board_hal.factory import open_board  # noqa: E402
from damas.board.loop import PlayApp  # noqa: E402
from damas.computer.opponent import HubEngine, LocalEngine, Opponent  # noqa: E402
from damas.records.session import GameSession  # noqa: E402
from damas.records.store import Store  # noqa: E402
from engine import Limits  # noqa: E402
from rules import Game  # noqa: E402

VARIANT = "international"


def measure(mode: str, events: int) -> list[float]:
    tmp = Path(tempfile.mkdtemp())
    store = Store(tmp / "games.sqlite3", create=True)
    io = open_board(load_config(None), VARIANT, clock=time.time)
    io.start()
    squares, _cells = io.occupied()
    session = GameSession.start(store, VARIANT, None, "casual", squares, {})
    app = PlayApp(store, io, session)
    shown: list[float] = []
    show = io.show

    def timed_show(intents: object) -> None:
        shown.append(time.perf_counter())
        show(intents)  # type: ignore[arg-type]

    io.show = timed_show  # type: ignore[method-assign]
    engine: Opponent | None = None
    if mode == "thread":
        engine = LocalEngine(VARIANT, level=10, tt_mb=16)
    elif mode == "process":
        engine = HubEngine(VARIANT, level=10, tt_mb=16)
    delays: list[float] = []

    async def run() -> None:
        loop = asyncio.create_task(app.run_loop())
        await asyncio.sleep(0.5)
        sim = app.sim
        assert sim is not None
        for i in range(events):
            if engine is not None and (i % 10 == 0):
                engine.ask(Game(VARIANT), Limits(move_time=3.0))  # keep it searching
            await asyncio.sleep(0.08)
            n = len(shown)
            started = time.perf_counter()
            (sim.lift if i % 2 == 0 else sim.place)(32, time.time())
            while len(shown) == n:
                await asyncio.sleep(0.0005)
            delays.append(shown[n] - started)
        loop.cancel()

    try:
        if isinstance(engine, HubEngine):
            engine.ready.wait(30)
        asyncio.run(run())
    finally:
        if engine is not None:
            engine.close()
        io.close()
        store.close()
    return sorted(delays)


def main() -> None:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    print(f"event -> LEDs written, {events} events, engine searching International from the start")
    for mode in ("idle", "thread", "process"):
        d = measure(mode, events)
        p50, p90, worst = d[len(d) // 2], d[int(len(d) * 0.9)], d[-1]
        print(f"  {mode:8s} p50 {p50 * 1000:6.1f} ms   p90 {p90 * 1000:6.1f} ms   worst {worst * 1000:6.1f} ms")


if __name__ == "__main__":
    main()
