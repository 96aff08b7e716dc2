"""``damas moves``: the legal moves of a position, or of FENs read from standard input."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from damas.commands.common import command, variants_help
from rules import DraughtsError, Position, find_variant


def register(sub: Any) -> None:
    p = command(
        sub,
        "moves",
        "list the legal moves of a position (or of FENs read from stdin)",
        "damas moves --variant international --fen 'W:WK4:B13,20,32,37'",
    )
    p.add_argument("--variant", required=True, help=variants_help())
    p.add_argument("--fen", help="the position; without it, FENs are read from standard input, one per line")
    p.set_defaults(func=run)


def _moves_line(pos: Position) -> str:
    return " ".join(m.numeric() for m in pos.legal_moves)


def run(args: argparse.Namespace) -> int:
    v = find_variant(args.variant)
    if args.fen is not None:
        pos = Position.from_fen(args.fen, v)
        for m in pos.legal_moves:
            print(m.numeric())
        return 0
    failed = False
    stdin = getattr(sys.stdin, "buffer", None)
    lines: Any = stdin if stdin is not None else (s.encode("utf-8", "surrogateescape") for s in sys.stdin)
    for n, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:  # one line per input line, whatever it holds
            print(f"error: line {n} is not UTF-8 text")
            failed = True
            continue
        if not text:
            print()
            continue
        try:
            print(_moves_line(Position.from_fen(text, v)))
        except DraughtsError as exc:
            print(f"error: {exc}")
            failed = True
    return 1 if failed else 0
