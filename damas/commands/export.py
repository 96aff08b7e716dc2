"""``damas export``: write recorded games as PDN."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from damas.commands.common import command, open_store, report_damage
from damas.errors import UserError
from damas.records.store import StoreError
from rules import DraughtsError
from rules.pdn import PdnGame, write_pdn


def register(sub: Any) -> None:
    p = command(sub, "export", "write recorded games as PDN", "damas export --all -o games.pdn")
    p.add_argument("game", nargs="?", type=int, help="the game's id (default: the latest game)")
    p.add_argument("--all", action="store_true", help="every game")
    p.add_argument(
        "--sessions",
        action="store_true",
        help="with --all (or for the latest), the training and analysis sessions on the board too",
    )
    p.add_argument("-o", "--output", help="file to write (default: standard output)")
    p.add_argument(
        "--compat",
        action="store_true",
        help="for readers without PDN 3.0 set-ups (pydraughts, py-draughts): a game with a mid-game "
        "set-up becomes consecutive games, each later part with a FEN tag and an Annotator note",
    )
    p.add_argument(
        "--result-style",
        choices=("variant", "2-0", "1-0"),
        default="variant",
        help="results as the variant writes them (default: 2-0/1-1 for International, 1-0/1/2-1/2 for "
        "8x8), or always 2-0 style, or always 1-0 style",
    )
    p.add_argument("--db", help="the game database")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from damas.board.studies import session_pdn  # (an analysis session: every line it played)

    notes: list[str] = []
    with open_store(args.db) as store:
        if args.all:
            ids = [r.id for r in reversed(store.games(sessions=args.sessions))]
            notes += store.skipped
        elif args.game is not None:
            ids = [args.game]
        else:
            latest = store.games(limit=1, sessions=args.sessions)
            if not latest:
                raise UserError(f"no games in {store.path}")
            ids = [latest[0].id]
        games: list[PdnGame] = []
        for i in ids:
            try:
                games.append(session_pdn(store, i, notes))
            except (StoreError, DraughtsError) as exc:
                if not args.all:
                    raise
                notes.append(f"game {i}: {exc}")
        text = write_pdn(games, args.result_style, compat=args.compat)
        report_damage(store, notes, ": exported what could be read" if notes else "")
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        print(f"{len(games)} game{'s' if len(games) != 1 else ''} written to {args.output}")
    else:
        sys.stdout.write(text)
    return 1 if notes else 0
