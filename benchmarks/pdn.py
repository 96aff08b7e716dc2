"""PDN speed and memory: reading and writing 1,000+ real games, against pydraughts' reader.

The games are the repository's test data (``tests/data/games``: 147 real games, ~12.6k
plies), repeated until the input holds at least ``--games`` games. Reading means what
``load_pdn`` does: tokenise, build each game and replay every move through the rules (so
every move is checked legal). pydraughts (our test oracle, installed with ``.[test]``) is the
named peer: its ``PDNReader`` splits the text into games and tags without checking a single
move, so it does less work than ours; both figures come from the same run.

    .venv/bin/python benchmarks/pdn.py [--games 1000]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules.pdn import read_pdn, write_pdn  # noqa: E402

REPEAT = 3  # best of: timings here vary by tens of per cent from run to run


def best(fn: Callable[[], Any]) -> tuple[float, Any]:
    times = []
    out = None
    for _ in range(REPEAT):
        gc.collect()
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=1000, help="at least this many games in the input")
    args = ap.parse_args()
    files = sorted((ROOT / "tests" / "data" / "games").glob("*/*.pdn"))
    by_variant: dict[str, str] = {}
    for path in files:
        by_variant[path.parent.name] = by_variant.get(path.parent.name, "") + path.read_text(encoding="utf-8") + "\n"
    base = sum(len(read_pdn(t, variant=v)) for v, t in by_variant.items())
    copies = -(-args.games // base)
    texts = {v: t * copies for v, t in by_variant.items()}
    size = sum(len(t.encode()) for t in texts.values())

    def read_ours() -> list[Any]:
        return [g for v, t in texts.items() for g in read_pdn(t, variant=v)]

    t_read, games = best(read_ours)
    n = len(games)
    plies = sum(len(g.moves) for g in games)
    t_write, out = best(lambda: write_pdn(games))

    gc.collect()
    tracemalloc.start()
    kept = read_ours()
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(kept) == n
    del kept

    print(f"input: {n} games, {plies} plies, {size / 1e6:.2f} MB ({copies} copies of {base} real games)")
    print(f"ours read (parse + every move checked): {n / t_read:,.0f} games/s, {size / 1e6 / t_read:.2f} MB/s")
    print(f"ours write:                             {n / t_write:,.0f} games/s, {len(out) / 1e6 / t_write:.2f} MB/s")
    print(f"ours memory: {current / n / 1024:.1f} KiB per game held (peak while reading {peak / 1e6:.1f} MB)")
    try:
        from draughts.PDN import PDNReader
    except ImportError:
        print("pydraughts is not installed (pip install '.[test]'): no peer figure")
        return 0
    text = "\n".join(texts.values())
    t_peer, reader = best(lambda: PDNReader(text))
    print(
        f"pydraughts 0.6.7 PDNReader (split into games and tags, no move checked): "
        f"{len(reader.games) / t_peer:,.0f} games/s, {size / 1e6 / t_peer:.2f} MB/s ({len(reader.games)} games)"
    )
    print(f"ours / pydraughts, games per second: {(n / t_read) / (len(reader.games) / t_peer):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
