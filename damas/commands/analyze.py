"""``damas analyze GAME|FILE.pdn``: the engine goes through a recorded game and marks the
moves that lose material (``?``) or the game (``??``), each with the engine's better move
(``damas.computer.analysis``; our engine runs in this process: nothing else does)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from damas.commands.common import GAME_ID, command, open_store, variants_help
from damas.computer.analysis import analyze_game
from damas.errors import UserError
from engine import Limits
from rules import Game
from rules.pdn import iter_games, read_pdn_file


def _games(source: str, db: str | None, variant: str | None) -> Iterator[tuple[str, Game]]:
    """The games to analyse: a recorded game by its id, or every game of a PDN file."""
    if GAME_ID.fullmatch(source) and not Path(source).exists():
        from damas.records.session import export_game

        with open_store(db) as store:
            pg = export_game(store, int(source))
        yield f"game {source} ({pg.tags.get('White', '?')} - {pg.tags.get('Black', '?')})", pg.game()
        return
    try:
        text = read_pdn_file(source)
    except OSError as exc:
        raise UserError(f"cannot read {source}: {exc.strerror or exc}") from None
    found = False
    for pg in iter_games(text, source, variant):
        found = True
        if pg.error is not None:
            print(f"damas: warning: {pg.error} (the moves before it are analysed)", file=sys.stderr)
        yield f"{source}: {pg.title()}", pg.game()
    if not found:
        raise UserError(f"{source}: no game found")


def run(args: argparse.Namespace) -> int:
    if args.time is not None and not 0.01 <= args.time <= 600:
        raise UserError(f"--time must be seconds between 0.01 and 600, not {args.time}")
    if args.depth is not None and not 1 <= args.depth <= 40:
        raise UserError(f"--depth must be 1-40, not {args.depth}")
    limits = Limits(depth=args.depth) if args.depth is not None else Limits(move_time=args.time or 0.5)
    how = f"depth {args.depth}" if args.depth is not None else f"{limits.move_time:g} s per position"
    total = 0
    for title, game in _games(args.source, args.db, args.variant):
        marks = analyze_game(game, limits)
        total += len(marks)
        if args.json:
            print(json.dumps({"game": title, "marks": [m.to_json() for m in marks]}, ensure_ascii=False))
            continue
        plies = len(game.move_stack)
        print(f"{title}, {game.variant.name}, {plies} pl{'y' if plies == 1 else 'ies'} ({how})")
        for m in marks:
            print(f"  {m.text()}")
        sides = {"white": 0, "black": 0}
        for m in marks:
            sides["white" if m.number.endswith(".") and not m.number.endswith("...") else "black"] += 1
        print(
            f"  {len(marks)} marked move{'s' if len(marks) != 1 else ''} "
            f"(white {sides['white']}, black {sides['black']})"
            if marks
            else "  no move loses material or the game"
        )
    return 0


def register(sub: Any) -> None:
    p = command(
        sub,
        "analyze",
        "mark the moves of a recorded game that lose material or the game, with better moves",
        "damas analyze games.pdn --time 1",
        description="Go through a recorded game (its id in the database) or every game of a PDN file with the "
        "engine, and mark the moves that lose material (?) or the game (??), each with the engine's "
        "better move and the values before and after (in men, from the mover's side).",
    )
    p.add_argument("source", metavar="GAME|FILE.pdn", help="a recorded game's id, or a PDN file")
    p.add_argument("--db", help="the game database (default: the user's data directory)")
    p.add_argument("--variant", help=variants_help("for the PDN games without a GameType tag; default: International"))
    p.add_argument("--time", type=float, help="seconds the engine thinks per position (default 0.5)")
    p.add_argument("--depth", type=int, help="a fixed depth instead of a time (reproducible)")
    p.add_argument("--json", action="store_true", help="one JSON object per game")
    p.set_defaults(func=run)
