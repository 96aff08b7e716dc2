"""``damas games``: list the recorded games."""

from __future__ import annotations

import argparse
import datetime
from typing import Any

from damas.commands.common import command, open_store, report_damage
from damas.records.store import ABANDONED, TRAINING

SHOWN = {"interrupted": "interrupted by a restart"}
#: a game a training under way left (the training session's header names it): played on when the
#: training stops, not left unfinished (the page says the same)
ASIDE_LOOKED_AT = 3  # the latest training sessions (one at most is in play)
ASIDE = "kept aside for the training (session {session}; stop it to play on)"


def cut(text: str, width: int) -> str:
    """``text`` in ``width`` characters: cut short with an ellipsis, so the reader sees it was.

    >>> cut("Ana Beatriz Sousa - Rui", 12), cut("Ana - Rui", 12)
    ('Ana Beatriz…', 'Ana - Rui')
    """
    return text if len(text) <= width else text[: width - 1] + "…"


def _when(t: float) -> str:
    """A game's start as the list shows it; ``?`` when it is not known (or not a time)."""
    try:
        return datetime.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M") if t > 0 else "?"
    except (OverflowError, OSError, ValueError):
        return "?"


def register(sub: Any) -> None:
    p = command(sub, "games", "list the recorded games", "damas games --limit 10")
    p.add_argument("--db", help="the game database")
    p.add_argument("--limit", type=int, default=50, help="show at most this many, the latest first (default 50)")
    p.add_argument(
        "--all",
        action="store_true",
        help="the training and analysis sessions on the board too (marked as such; left out by default)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with open_store(args.db) as store:
        rows = store.games(limit=args.limit, sessions=args.all)
        aside = {s.header.get("aside"): s.id for s in store.sessions(TRAINING, ASIDE_LOOKED_AT) if s.state == "in play"}
        if not rows and not store.skipped:
            print(f"no games in {store.path}")
        elif rows:
            print(f"{'id':>4}  {'started':<16}  {'variant':<13}  {'white - black':<28}  {'result':<8}  plies  status")
        for r in rows:
            started = _when(r.started)
            players = f"{r.tags.get('White', '?')} - {r.tags.get('Black', '?')}"
            said = r.damage + r.unknown
            status = SHOWN.get(r.state, r.state) + (f" ({'; '.join(said)})" if said else "")
            if r.state == ABANDONED and r.purpose is None and r.id in aside:
                status = ASIDE.format(session=aside[r.id])
            if r.purpose is not None:
                status = f"{r.purpose} session, {status}"
            print(
                f"{r.id:>4}  {started:<16}  {cut(r.variant, 13):<13}  {cut(players, 28):<28}  {cut(r.result, 8):<8}"
                f"  {r.moves:>5}  {status}"
            )
        report_damage(store, store.skipped, "")
    return 1 if store.skipped else 0
