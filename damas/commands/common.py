"""What several subcommands share: the help layout, argument types, opening the database."""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

from damas.records.store import Store, default_path

MAX_DEBOUNCE = 1.0  # seconds: the longest debounce window (as board.debounce in the configuration)
GAME_ID = re.compile(r"[0-9]{1,18}")  # ASCII digits: str.isdigit() passes '²', which int() refuses


def command(sub: Any, name: str, help: str, example: str, description: str | None = None) -> argparse.ArgumentParser:
    """A subcommand whose help (``damas NAME -h``) ends with one example."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help,
        description=textwrap.fill(description or (help[0].upper() + help[1:] + "."), 79),
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def variants_help(default: str = "") -> str:
    """Help text for --variant: the rules' variant table, not a list kept here."""
    from rules.variants import VARIANTS

    names = ", ".join(sorted(VARIANTS))
    return f"the variant: {names}" + (f" ({default})" if default else "")


def game_id(text: str) -> int:
    """A game id on the command line: ASCII digits (int() would also take ' 1', '+1', '١')."""
    if not GAME_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a game id: {text!r}")
    return int(text)


def port_number(text: str) -> int:
    """A TCP port on the command line: 1-65535 (0 would not say where the page is)."""
    if not re.fullmatch(r"[0-9]{1,5}", text.strip()) or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"not a port: {text[:20]!r} (1-65535)")
    return int(text)


def open_store(path: str | None, *, create: bool = False, exclusive: bool = False, quarantine: bool = False) -> Store:
    """The database; the commands that read refuse a missing one (a mistyped --db) rather
    than create an empty file."""
    return Store(path or default_path(), create=create, exclusive=exclusive, quarantine=quarantine)


def report_damage(store: Store, problems: list[str], done: str) -> None:
    """At most one line on standard error: the first problem found (and how many more), and
    how to get the games back when the journal copies hold what the database lost."""
    from damas.records.recover import lost_events

    lost = lost_events(store)
    if not problems and not lost:
        return
    first = problems[0] if problems else lost[0]
    count = len(problems) if problems else len(lost)
    more = f" (and {count - 1} more)" if count > 1 else ""
    hint = ""
    if lost or store.journals.is_dir():
        hint = f"; `damas recover --db {store.path}` rebuilds {'them' if lost else 'what it can'} from {store.journals}"
    print(f"damas: warning: {first}{more}{done}{hint}", file=sys.stderr)


def shipped(source: str, installed: Path) -> Path:
    """A folder of the repository (``source``, at its top) that an installed wheel carries as
    ``installed`` (pyproject's package-dir mapping): the tree's when running from a checkout."""
    tree = Path(__file__).resolve().parents[2]
    return tree / source if (tree / "pyproject.toml").is_file() and (tree / source).is_dir() else installed
