"""``damas demo``: a seeded random game on the terminal, the rules engine at work."""

from __future__ import annotations

import argparse
import random
from typing import Any

from damas.commands.common import command, variants_help
from rules import Game
from rules.pdn import PdnGame


def register(sub: Any) -> None:
    p = command(sub, "demo", "play a random legal game on the terminal", "damas demo --variant portuguese --boards")
    p.add_argument("--variant", default="brazilian", help=variants_help("default brazilian"))
    p.add_argument("--plies", type=int, default=40, help="stop after this many plies (default 40)")
    p.add_argument("--seed", type=int, default=1, help="the random seed: the same seed plays the same game (default 1)")
    p.add_argument("--boards", action="store_true", help="show the board after every move")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    game = Game(args.variant)
    print(f"{game.variant.title} (seed {args.seed})\n")
    print(game.position.diagram(), "\n")
    while game.outcome() is None and game.ply < args.plies:
        moves = list(game.legal_moves)
        captures = [m for m in moves if m.captured]
        move = rng.choice(captures or moves)
        text = game.position.pdn(move)
        game.push(move)
        if args.boards:
            print(f"{game.ply}. {text}\n{game.position.diagram()}\n")
    print(game.position.diagram(), "\n")
    print(PdnGame.from_game(game, {"Event": "damas demo"}).pdn())
    outcome = game.outcome()
    print(f"FEN {game.fen()}")
    print(
        "game over: "
        + (outcome.termination.value if outcome else "not yet: " + str(len(game.legal_moves)) + " legal moves")
    )
    return 0
