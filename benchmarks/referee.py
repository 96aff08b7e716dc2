"""Referee speed: the human-like event logs of ../shared/games through the live pipeline.

Prints events per second and the 50th/99th-percentile processing time per raw event
(debounce + referee). Target: p99 under 1 ms here (a Raspberry Pi Zero 2 is roughly
ten times slower, and the player must see the LED answer within one debounce window).

    .venv/bin/python benchmarks/referee.py [--seeds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee import MoveMade, Pipeline, Referee  # noqa: E402
from rules import Game  # noqa: E402
from rules.pdn import load_pdn  # noqa: E402
from tests.referee.hands import game_log  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=2)
    args = parser.parse_args()
    shared = Path(os.environ.get("DAMAS_SHARED", ROOT.parent / "shared"))
    files = sorted((shared / "games").glob("*/*.pdn"))
    if not files:
        print(f"no games under {shared / 'games'}")
        return 2
    timings: list[float] = []
    moves = games = 0
    wall = 0.0
    for path in files:
        for g in load_pdn(path):
            game = Game(g.variant, g.start)
            for pm in g.moves:
                if game.outcome() is not None:
                    break
                game.push(pm.move)
            if not game.move_stack:
                continue
            for seed in range(args.seeds):
                events, _ = game_log(g.start, list(game.move_stack), seed)
                ref = Referee(g.variant, g.start.fen())
                pipe = Pipeline(ref)
                made = 0
                t_start = time.perf_counter()
                for ev in events:
                    t0 = time.perf_counter()
                    out = pipe.feed(ev)
                    ref.led_intents()  # what live play asks after every event
                    timings.append(time.perf_counter() - t0)
                    made += sum(isinstance(v, MoveMade) for v in out)
                made += sum(isinstance(v, MoveMade) for v in pipe.finish())
                wall += time.perf_counter() - t_start
                assert made == len(game.move_stack), (path, g.index, seed)
                moves += made
                games += 1
    timings.sort()
    n = len(timings)
    p50 = timings[n // 2] * 1e3
    p99 = timings[int(n * 0.99)] * 1e3
    print(f"Python {sys.version.split()[0]}: {games} game replays, {moves:,} moves, {n:,} raw events")
    print(f"events per second: {n / wall:,.0f}")
    print(
        f"per event: p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {timings[-1] * 1e3:.3f} ms, "
        f"mean {statistics.fmean(timings) * 1e3:.3f} ms"
    )
    print(f"target p99 < 1 ms: {'met' if p99 < 1.0 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
