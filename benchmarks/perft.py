"""Perft speed: this engine against py-draughts, in one run on the same machine.

py-draughts (GPL-3.0) is a benchmark-only peer: never imported by the package. It
installs as ``draughts``, like pydraughts (our test oracle), so it lives in its own
folder:

    .venv/bin/pip install --target .bench/py-draughts py-draughts==1.10.1
    .venv/bin/python benchmarks/perft.py

Both sides count the leaves in bulk (perft(1) = the number of legal moves), the
usual convention; every count is checked against the published tables. Each figure is
the best of three runs, for every contender alike.

The last part is the issue's measure: International perft(7), ours and py-draughts'
``turbo.perft_from_board`` taking turns (``--rounds`` rounds, CPU time), the ratio of each
round and their median: on a loaded machine only figures taken side by side compare.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PEER = ROOT / ".bench" / "py-draughts"

from rules import Position, perft  # noqa: E402

PUBLISHED = {
    ("international", 6): 167_140,
    ("international", 7): 1_049_442,
    ("brazilian", 7): 187_302,
    ("brazilian", 8): 907_830,
    ("portuguese", 8): 828_783,
}


REPEAT = 3  # best of: this machine's timings vary by tens of per cent from run to run


def timed(fn: Callable[[], int]) -> tuple[int, float]:
    best = float("inf")
    n = 0
    for _ in range(REPEAT):
        start = time.perf_counter()
        n = fn()
        best = min(best, time.perf_counter() - start)
    return n, best


def report(who: str, variant: str, depth: int, nodes: int, seconds: float) -> float:
    expected = PUBLISHED.get((variant, depth))
    check = "ok" if nodes == expected else f"WRONG (published {expected})"
    rate = nodes / seconds
    print(f"{who:<34} {variant:<13} perft({depth}) {nodes:>10,} nodes {seconds:7.2f} s {rate:>11,.0f} n/s  {check}")
    return rate


def peer_perft(board: Any, depth: int) -> int:
    """py-draughts' public API: legal_moves / push / pop."""
    moves = list(board.legal_moves)
    if depth == 1:
        return len(moves)
    n = 0
    for m in moves:
        board.push(m)
        n += peer_perft(board, depth - 1)
        board.pop()
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one depth less everywhere")
    parser.add_argument("--rounds", type=int, default=7, help="side-by-side rounds against turbo (default 7)")
    args = parser.parse_args()
    d = 1 if args.quick else 0
    print(f"Python {sys.version.split()[0]}")
    ours: dict[tuple[str, int], float] = {}
    for variant, depth in (("international", 7 - d), ("brazilian", 8 - d), ("portuguese", 8)):
        pos = Position.start(variant)
        nodes, secs = timed(lambda pos=pos, depth=depth: perft(pos, depth))  # type: ignore[misc]
        ours[(variant, depth)] = report("damas rules", variant, depth, nodes, secs)

    if not PEER.exists():
        print(f"\npy-draughts not found in {PEER}; install it with:")
        print(f"  {sys.executable} -m pip install --target {PEER.relative_to(ROOT)} py-draughts==1.10.1")
        return 2
    sys.path.insert(0, str(PEER))
    import draughts  # type: ignore[import-not-found]
    from draughts.engines import turbo  # type: ignore[import-not-found]

    print(f"py-draughts {draughts.__version__}")
    for variant, depth, cls in (
        ("international", 7 - d, draughts.StandardBoard),
        ("brazilian", 8 - d, draughts.BrazilianBoard),
    ):
        nodes, secs = timed(lambda cls=cls, depth=depth: peer_perft(cls(), depth))  # type: ignore[misc]
        rate = report("py-draughts public API", variant, depth, nodes, secs)
        print(f"{'':<34} damas / py-draughts public API: {ours[(variant, depth)] / rate:.2f}x")
    for variant, depth, cls in (
        ("international", 7 - d, draughts.StandardBoard),
        ("brazilian", 8 - d, draughts.BrazilianBoard),
    ):
        nodes, secs = timed(lambda cls=cls, depth=depth: turbo.perft_from_board(cls(), depth))  # type: ignore[misc]
        rate = report("py-draughts turbo.perft_from_board", variant, depth, nodes, secs)
        if nodes == PUBLISHED.get((variant, depth)):
            print(f"{'':<34} damas / py-draughts turbo: {ours[(variant, depth)] / rate:.2f}x")
    side_by_side(turbo, draughts.StandardBoard, 7 - d, args.rounds)
    return 0


def side_by_side(turbo: Any, board: Any, depth: int, rounds: int) -> None:
    """International perft(depth): ours and turbo's in turns, CPU time, the ratio per round."""
    print(f"\nInternational perft({depth}) side by side, CPU seconds (ours, turbo, turbo/ours):")
    pos = Position.start("international")
    ratios = []
    for i in range(rounds):
        start = time.process_time()
        n1 = perft(pos, depth)
        ours = time.process_time() - start
        start = time.process_time()
        n2 = turbo.perft_from_board(board(), depth)
        theirs = time.process_time() - start
        assert n1 == n2 == PUBLISHED.get(("international", depth), n1), (n1, n2)
        ratios.append(theirs / ours)
        rates = f"({n1 / ours:,.0f} n/s)  {theirs:.3f} s ({n2 / theirs:,.0f} n/s)"
        print(f"  round {i + 1}: {ours:.3f} s {rates}  {ratios[-1]:.2f}x")
    ratios.sort()
    print(f"  median {ratios[len(ratios) // 2]:.2f}x (lowest {ratios[0]:.2f}x, highest {ratios[-1]:.2f}x)")


if __name__ == "__main__":
    sys.exit(main())
