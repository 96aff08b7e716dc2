"""``damas hub``: our engine for draughts GUIs, the Hub protocol (version 2) on stdin/stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from damas import version
from damas.errors import UserError
from engine import LEVELS
from engine.hub import DEFAULT_TT_MB, HUB_VARIANTS
from engine.hub import run as serve_hub


def register(sub: Any) -> None:
    p = sub.add_parser(
        "hub",
        help="the engine for draughts GUIs: the Hub protocol (version 2) on stdin/stdout",
        description="The engine for draughts GUIs: the Hub protocol (version 2) on standard input and output.",
        epilog="example:\n  damas hub --variant brazilian  # then send: hub, init, level depth=6, go think",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--variant",
        choices=list(HUB_VARIANTS),
        default="normal",
        help="the initial variant parameter: normal (the Hub name of international), brazilian or portuguese",
    )
    p.add_argument(
        "--level", type=int, choices=range(1, len(LEVELS) + 1), default=10, metavar="1-10", help="the initial level"
    )
    p.add_argument("--tt-size", type=int, default=DEFAULT_TT_MB, help="transposition table size in MB (default 64)")
    p.add_argument(
        "--endgames",
        default="",
        metavar="DIR",
        help="the initial endgames parameter: a directory of 8x8 endgame databases (python -m engine.endgame build),"
        " probed at levels 7-10",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.tt_size <= 4096:
        raise UserError(f"--tt-size must be 1-4096 MB, not {args.tt_size}")
    return serve_hub(
        sys.stdin,
        sys.stdout,
        variant=args.variant,
        level=args.level,
        tt_mb=args.tt_size,
        version=version(),
        endgames=args.endgames,
    )
