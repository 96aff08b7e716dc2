"""Every option of every subcommand has help text, ``--variant`` names the variants, and each
subcommand's help ends with one example that the parser accepts (issue 10 §3)."""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys

from damas.cli import build_parser
from rules.variants import VARIANTS


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> list[tuple[str, argparse.ArgumentParser]]:
    """(``damas sub ...``, parser) for the top level and every subcommand, depth first."""
    found = [(" ".join(("damas", *path)), parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += commands(sub, (*path, name))
    return found


def test_every_action_of_every_command_has_help() -> None:
    everything = commands(build_parser())
    assert len(everything) >= 15  # damas, its 13 commands (pdn one of them) and pdn check
    missing = [
        f"{name}: {action.option_strings or action.dest}"
        for name, parser in everything
        for action in parser._actions
        if not (action.help or "").strip() or action.help == argparse.SUPPRESS
    ]
    assert missing == []


def test_variant_options_name_the_variants_of_the_rules() -> None:
    seen = 0
    for name, parser in commands(build_parser()):
        for action in parser._actions:
            if "--variant" in action.option_strings:
                seen += 1
                assert action.help and all(v in action.help for v in VARIANTS), f"{name}: {action.help}"
    assert seen == 10  # demo, perft, moves, hub, analyze, replay, selftest, play, emulator, pdn check


def test_each_command_shows_one_example_the_parser_accepts() -> None:
    for name, parser in commands(build_parser()):
        epilog = parser.epilog or ""
        assert epilog.startswith("example:\n  "), name
        (example,) = epilog.splitlines()[1:]  # one example
        argv = shlex.split(example.split(" | ")[0].split("  #")[0].strip())
        assert argv[: len(name.split())] == name.split(), (name, example)
        if len(argv) > 1:
            args = build_parser().parse_args(argv[1:])  # exits (SystemExit) if the example is wrong
            assert getattr(args, "func", None) is not None, example


def test_help_output_shows_the_example() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "damas", "export", "-h"], capture_output=True, text=True, timeout=60, check=True
    )
    assert r.stdout.rstrip().endswith("example:\n  damas export --all -o games.pdn")
    assert "--result-style {variant,2-0,1-0}" in r.stdout
