"""``damas emulator``: the Pico firmware (or DGT's draughts board) on a simulated board behind a
pseudo-terminal, hands typed on stdin."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

from board_hal.squares import SquareState
from damas.commands.common import command, variants_help
from damas.errors import UserError
from rules import DraughtsError, Position, find_variant

COMMANDS = "lift SQ | place SQ | reset | unplug | plug | board (pieces and LEDs) | quit"
DGT_COMMANDS = "lift SQ | place SQ [w|b|W|B] (default: the piece lifted last) | crown SQ | uncrown SQ | unplug | plug"
DGT_COMMANDS += " | board | quit"


def register(sub: Any) -> None:
    p = command(
        sub,
        "emulator",
        "run the Pico firmware on a simulated board behind a pseudo-terminal",
        "damas emulator --variant international --faults 0.001",
    )
    p.add_argument(
        "--variant",
        help=variants_help("default brazilian; international on the DGT board") + "; whose squares and size",
    )
    p.add_argument("--faults", type=float, default=0.0, help="bit flips and drops per byte on the line (e.g. 0.001)")
    p.add_argument(
        "--board",
        choices=("pico", "dgt"),
        default="pico",
        help="pico (default): our firmware; dgt: DGT's draughts board (10x10, colours and crowns; docs/dgt.md)",
    )
    p.add_argument(
        "--colour",
        choices=("pairs", "linear"),
        help="the Pico with Hall sensors that see colours (hardware/wiring-hall.md): pairs (two switches per "
        "square: colour) or linear (colour and crowns); place SQ w|b|W|B, crown SQ",
    )
    p.set_defaults(func=run)


def _cell_namer(layout: Any) -> Callable[[int | str], str]:
    """How the emulator names a square: as the variant writes it, or a non-playing cell's name."""
    geo = layout.geometry
    algebraic = layout.variant.notation == "algebraic"
    return lambda k: geo.square_name(k) if algebraic and isinstance(k, int) else str(k)


def run(args: argparse.Namespace) -> int:
    if args.board == "dgt":
        return run_dgt(args)
    from board_hal.layout import Layout
    from firmware_bridge.emulator import Emulator, Faults, board_text

    layout = Layout(find_variant(args.variant or "brazilian").name)
    start = Position.start(layout.variant)
    cells = {layout.cell_of(sq) for sq in start.occupied()}
    pieces = {layout.cell_of(sq): int(SquareState.of(p.color.value, p.king)) for sq, p in start.pieces().items()}
    faults = Faults(seed=1, flip=args.faults, drop=args.faults) if args.faults else None
    colour = getattr(args, "colour", None)
    hand: list[SquareState] = []
    with Emulator(layout.size, cells=cells, faults=faults, colour=colour, pieces=pieces if colour else None) as emu:
        if colour:
            print(f"Hall sensors ({colour}): place SQ w|b|W|B (default: the piece lifted last), crown SQ", flush=True)
        print(f"emulated Pico ({layout.size}x{layout.size}, {layout.variant.name} squares) on {emu.port}", flush=True)
        print(f'play on it: damas play --config FILE with [board] backend = "pico" and [pico] port = "{emu.port}"')
        print(f"commands: {COMMANDS}", flush=True)
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd = words[0].lower()
            try:
                if colour and cmd in HANDS and len(words) in (2, 3):
                    cell = layout.cell_of(layout.geometry.parse_square(words[1]))
                    now = hands(words, SquareState(emu.matrix.pieces.get(cell, 0)), hand)
                    if now is SquareState.EMPTY:
                        emu.lift(cell)
                    elif now is not None:
                        emu.place(cell, int(now))
                elif cmd in ("lift", "place") and len(words) == 2:
                    sq = layout.geometry.parse_square(words[1])
                    (emu.lift if cmd == "lift" else emu.place)(layout.cell_of(sq))
                elif cmd == "reset":
                    emu.reset()
                elif cmd in ("plug", "unplug"):
                    cable(cmd, emu)
                elif cmd == "board":
                    print(board_text(emu, layout.key_of, layout.physical, _cell_namer(layout)), flush=True)
                    if colour:  # and what stands where: w b men, W B kings
                        n = layout.size
                        for rank in range(n - 1, -1, -1):
                            row = [emu.matrix.pieces.get(layout.physical(f, rank), 0) for f in range(n)]
                            print(" ".join(SquareState(v).code for v in row), flush=True)
                elif cmd in ("quit", "exit"):
                    break
                else:
                    print(f"unknown command: {line.strip()!r}", flush=True)
            except (DraughtsError, ValueError) as exc:
                print(f"error: {exc}", flush=True)
    return 0


def run_dgt(args: argparse.Namespace) -> int:
    from board_hal.dgt_emulator import DgtEmulator, DgtFaults
    from board_hal.layout import Layout

    variant = find_variant(args.variant or "international")
    if variant.board_size != 10:
        n = variant.board_size
        raise UserError(f"DGT's draughts board is 10x10: {variant.name} is played on {n}x{n}")
    layout = Layout(variant.name)
    start = Position.start(variant)
    pieces = {layout.cell_of(sq): SquareState.of(p.color.value, p.king) for sq, p in start.pieces().items()}
    faults = DgtFaults(seed=1, code=args.faults, drop=args.faults) if args.faults else None
    hand: list[SquareState] = []
    with DgtEmulator(pieces, faults=faults) as emu:
        print(f"emulated DGT draughts board (10x10, {variant.name} squares) on {emu.port}", flush=True)
        print(f'play on it: damas play --config FILE with [board] backend = "dgt" and [dgt] port = "{emu.port}"')
        print(f"commands: {DGT_COMMANDS}", flush=True)
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd = words[0].lower()
            try:
                if cmd in HANDS and len(words) in (2, 3):
                    cell = layout.cell_of(layout.geometry.parse_square(words[1]))
                    now = hands(words, emu.piece(cell), hand)
                    if now is not None:
                        emu.put(cell, now)
                elif cmd in ("plug", "unplug"):
                    cable(cmd, emu)
                elif cmd == "board":
                    print(_dgt_board(emu, layout), flush=True)
                elif cmd in ("quit", "exit"):
                    break
                else:
                    print(f"unknown command: {line.strip()!r}", flush=True)
            except (DraughtsError, ValueError) as exc:
                print(f"error: {exc}", flush=True)
    return 0


HANDS = ("lift", "place", "crown", "uncrown")


def hands(words: list[str], here: SquareState, hand: list[SquareState]) -> SquareState | None:
    """A hand's command on a board that senses colour (``lift SQ``, ``place SQ [w|b|W|B]``,
    ``crown SQ``, ``uncrown SQ``): what the square holds then (None: nothing changes).
    ``hand``: the pieces lifted, the last one put down when ``place`` names none."""
    cmd = words[0].lower()
    if cmd == "lift":
        if here.occupied:
            hand.append(here)
        return SquareState.EMPTY
    if cmd == "place":
        piece = SquareState.from_code(words[2]) if len(words) == 3 else (hand.pop() if hand else None)
        if piece is None or not piece.colour:
            raise ValueError("say which piece: place SQ w|b|W|B")
        return piece
    return here.crowned(cmd == "crown") if here.colour else None


def cable(cmd: str, emu: Any) -> None:
    """``plug`` or ``unplug`` the emulated board's cable (its port appears, or goes)."""
    if cmd == "unplug":
        if emu.plugged:
            emu.unplug()
        print(f"unplugged: {emu.port} is gone until plug", flush=True)
    else:
        if not emu.plugged:
            emu.plug()
        print(f"plugged in: {emu.port}", flush=True)


def _dgt_board(emu: Any, layout: Any) -> str:
    """The board from White's side: w b men, W B kings, . empty."""
    n = layout.size
    rows = []
    for rank in range(n - 1, -1, -1):
        rows.append(" ".join(emu.piece(layout.physical(f, rank)).code for f in range(n)))
    return "\n".join(rows)
