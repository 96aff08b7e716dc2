"""``damas recover``: rebuild games from the journal copies kept beside a database."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from damas.commands.common import command, open_store
from damas.errors import UserError
from damas.records.store import default_path, journals_dir


def register(sub: Any) -> None:
    p = command(
        sub,
        "recover",
        "rebuild games from the journal copies kept beside a database",
        "damas recover --db games.sqlite3 --from damaged.sqlite3",
    )
    p.add_argument("--db", help="the database to rebuild into (new or existing; default: the usual one)")
    p.add_argument(
        "--from",
        dest="source",
        metavar="DIR",
        help="the journal copies (a DB.journals directory, or the damaged database's name; default: DB.journals)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from damas.board.studies import KEPT_CHECKS
    from damas.records.recover import recover

    source = Path(args.source) if args.source else None
    if source is not None and not source.is_dir() and journals_dir(source).is_dir():
        source = journals_dir(source)  # the damaged database's name: its copies beside it
    target = Path(args.db) if args.db else default_path()
    # a damaged target is moved aside only when its own copies are there to rebuild it
    with open_store(str(target), create=True, exclusive=True, quarantine=journals_dir(target).is_dir()) as store:
        if store.quarantined is not None:
            aside, why = store.quarantined
            print(f"{store.path} was damaged ({why}): moved to {aside}")
        source = source or store.journals
        if not source.is_dir():
            raise UserError(f"{source}: no journal copies there (give --from DIR)")
        lines = recover(store, source, checks=KEPT_CHECKS)
    for line in lines:
        print(line)
    return 0
