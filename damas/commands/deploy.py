"""``damas deploy``: print a file a Raspberry Pi installation needs, as the installed package carries it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import board_hal
from damas.commands.common import command, shipped
from damas.errors import UserError

EXAMPLES = (
    "simulated",
    "gpio-8x8",
    "gpio-10x10",
    "pico",
    "mcp23017-8x8",
    "mcp23017-10x10",
    "74hc165-8x8",
    "74hc165-10x10",
    "ws2812-8x8",
    "dgt",
)


def register(sub: Any) -> None:
    p = command(
        sub,
        "deploy",
        "print the systemd unit, the udev rule or an example board configuration",
        "damas deploy unit | sudo tee /etc/systemd/system/damas.service",
        description="Print a file a Pi installation needs (deploy/README.md says where each goes).",
    )
    p.add_argument("what", help="unit, udev, or an example configuration: " + ", ".join(EXAMPLES))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    app = Path(__file__).resolve().parents[1]
    if args.what == "unit":
        path = shipped("deploy", app / "deploy", "damas.service")
    elif args.what == "udev":
        path = shipped("deploy", app / "deploy", "99-damas-pico.rules")
    elif args.what in EXAMPLES:
        path = shipped("hardware", Path(board_hal.__file__).resolve().parent / "examples", f"{args.what}.toml")
    else:
        raise UserError(f"nothing called {args.what!r} to print (unit, udev, or one of: {', '.join(EXAMPLES)})")
    sys.stdout.write(path.read_text(encoding="utf-8"))
    return 0
