"""``damas pdn check``: load PDN files, replay every game, report what failed."""

from __future__ import annotations

import argparse
from typing import Any

from damas.commands.common import command, variants_help
from rules import DraughtsError
from rules.pdn import iter_games, read_pdn_file

MAX_PROBLEM_LINES = 1000  # per file: what pdn check lists (the counts stay exact)


def register(sub: Any) -> None:
    p = command(sub, "pdn", "PDN tools", "damas pdn check games/*.pdn")
    pdn_sub = p.add_subparsers(dest="pdn_command", metavar="PDN_COMMAND", help="check: read PDN files and report")
    c = command(
        pdn_sub,
        "check",
        "load PDN files, replay every game, report what failed",
        "damas pdn check nk2003.pdn wk2003.pdn",
        description="Load PDN files and replay every game. Per file: the games found, loaded whole, partial "
        "(the moves up to a fault load) and lost, each problem as file:line; with several files a total line. "
        "Exit status 1 when there was a problem.",
    )
    c.add_argument("files", nargs="+", metavar="FILE", help="the PDN files to read")
    c.add_argument("--variant", help=variants_help("for the games without a GameType tag; default: International"))
    c.set_defaults(func=check)


def check(args: argparse.Namespace) -> int:
    """Per file: games found, loaded whole, partial (moves up to a fault), lost (none of its moves),
    each problem as ``file:line``; with several files, a total line."""
    totals = {"found": 0, "whole": 0, "partial": 0, "lost": 0, "moves": 0}
    unreadable = 0
    problems_seen = False
    for name in args.files:
        try:
            text = read_pdn_file(name)
        except OSError as exc:
            print(f"{name}: cannot read: {exc.strerror or exc}")
            unreadable += 1
            continue
        except DraughtsError as exc:  # too big to be a PDN file (or endless, as /dev/zero)
            print(f"{exc}")
            unreadable += 1
            continue
        count = dict.fromkeys(totals, 0)
        problems = _Problems()
        note = problems.add
        try:
            for g in iter_games(text, name, args.variant):
                count["found"] += 1
                count["moves"] += len(g.moves)
                for w in g.warnings:
                    note(f"{w} [the game loads]")
                if g.error is None:
                    count["whole"] += 1
                elif g.moves:
                    count["partial"] += 1
                    note(f"{g.error} [partial: {len(g.moves)} moves loaded]")
                else:
                    count["lost"] += 1
                    note(f"{g.error} [lost]")
        except DraughtsError as exc:  # a game beyond the reader's limits: the rest of the file is not read
            count["found"] += 1
            count["lost"] += 1
            note(f"{exc} [lost, and the rest of the file is not read]")
        for key, value in count.items():
            totals[key] += value
        print(f"{name}: {_counts(count)}")
        for line in problems.lines:
            print(f"  {line}")
        if problems.more:
            print(f"  ... and {problems.more} more problems")
        problems_seen = problems_seen or bool(problems.lines)
    if len(args.files) > 1:
        cannot = f" ({unreadable} unreadable)" if unreadable else ""
        print(f"total: {len(args.files)} files{cannot}, {_counts(totals)}")
    return 1 if problems_seen or unreadable else 0


class _Problems:
    """The problem lines of one file: the first MAX_PROBLEM_LINES kept, the others counted."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.more = 0

    def add(self, line: str) -> None:
        if len(self.lines) < MAX_PROBLEM_LINES:
            self.lines.append(line)
        else:
            self.more += 1


def _counts(c: dict[str, int]) -> str:
    return (
        f"{c['found']} games found: {c['whole']} whole, {c['partial']} partial, {c['lost']} lost; "
        f"{c['moves']} moves loaded"
    )
