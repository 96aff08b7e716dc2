"""``damas emulator``: the Pico firmware on a simulated board behind a pseudo-terminal, hands typed on stdin."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from damas.commands.common import command, variants_help
from rules import DraughtsError, Position, find_variant

COMMANDS = "lift SQ | place SQ | reset | unplug | plug | board (pieces and LEDs) | quit"


def register(sub: Any) -> None:
    p = command(
        sub,
        "emulator",
        "run the Pico firmware on a simulated board behind a pseudo-terminal",
        "damas emulator --variant international --faults 0.001",
    )
    p.add_argument(
        "--variant", default="brazilian", help=variants_help("default brazilian") + "; whose squares and size"
    )
    p.add_argument("--faults", type=float, default=0.0, help="bit flips and drops per byte on the line (e.g. 0.001)")
    p.set_defaults(func=run)


def _cell_namer(layout: Any) -> Callable[[int | str], str]:
    """How the emulator names a square: as the variant writes it, or a non-playing cell's name."""
    geo = layout.geometry
    algebraic = layout.variant.notation == "algebraic"
    return lambda k: geo.square_name(k) if algebraic and isinstance(k, int) else str(k)


def run(args: argparse.Namespace) -> int:
    from board_hal.layout import Layout
    from firmware_bridge.emulator import Emulator, Faults, board_text

    layout = Layout(find_variant(args.variant).name)
    cells = {layout.cell_of(sq) for sq in Position.start(layout.variant).occupied()}
    faults = Faults(seed=1, flip=args.faults, drop=args.faults) if args.faults else None
    with Emulator(layout.size, cells=cells, faults=faults) as emu:
        print(f"emulated Pico ({layout.size}x{layout.size}, {layout.variant.name} squares) on {emu.port}", flush=True)
        print(f'play on it: damas play --config FILE with [board] backend = "pico" and [pico] port = "{emu.port}"')
        print(f"commands: {COMMANDS}", flush=True)
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd = words[0].lower()
            try:
                if cmd in ("lift", "place") and len(words) == 2:
                    sq = layout.geometry.parse_square(words[1])
                    (emu.lift if cmd == "lift" else emu.place)(layout.cell_of(sq))
                elif cmd == "reset":
                    emu.reset()
                elif cmd == "unplug":
                    if emu.plugged:
                        emu.unplug()
                    print(f"unplugged: {emu.port} is gone until plug", flush=True)
                elif cmd == "plug":
                    if not emu.plugged:
                        emu.plug()
                    print(f"plugged in: {emu.port}", flush=True)
                elif cmd == "board":
                    print(board_text(emu, layout.key_of, layout.physical, _cell_namer(layout)), flush=True)
                elif cmd in ("quit", "exit"):
                    break
                else:
                    print(f"unknown command: {line.strip()!r}", flush=True)
            except DraughtsError as exc:
                print(f"error: {exc}", flush=True)
    return 0
