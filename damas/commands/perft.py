"""``damas perft``: count the legal move sequences of a position, to check the move generator."""

from __future__ import annotations

import argparse
import time
from typing import Any

from damas.commands.common import command, variants_help
from damas.errors import UserError
from rules import Position, find_variant, perft


def register(sub: Any) -> None:
    p = command(
        sub,
        "perft",
        "count legal move sequences (last line: the count)",
        "damas perft --variant international --depth 6",
    )
    p.add_argument("--variant", required=True, help=variants_help())
    p.add_argument("--fen", help="start from this position (PDN FEN)")
    p.add_argument("--depth", type=int, required=True, help="how many plies deep to count")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    v = find_variant(args.variant)
    pos = Position.from_fen(args.fen, v) if args.fen else Position.start(v)
    if args.depth < 0:
        raise UserError(f"depth must be at least 0, not {args.depth}")
    start = time.perf_counter()
    nodes = perft(pos, args.depth)
    elapsed = time.perf_counter() - start
    rate = nodes / elapsed if elapsed > 0 else 0.0
    print(f"{pos.variant.name} perft({args.depth}) of {pos.fen()}: {nodes} nodes in {elapsed:.3f} s ({rate:,.0f}/s)")
    print(nodes)
    return 0
