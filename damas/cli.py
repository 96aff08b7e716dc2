"""The ``damas`` command.

User errors (a bad FEN, an unknown variant, a missing file) print one line on
standard error and exit with status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import math
import re
import sys
import textwrap
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rules import DraughtsError, Position, find_variant, perft
from rules.pdn import iter_games, read_pdn_file

EXIT_USAGE = 2
MAX_DEBOUNCE = 1.0  # seconds: the longest debounce window (as board.debounce in the configuration)
_GAME_ID = re.compile(r"[0-9]{1,18}")  # ASCII digits: str.isdigit() passes '²', which int() refuses


class UserError(Exception):
    """A problem with what the user asked for; printed as one line."""


def _position(variant: str, fen: str | None) -> Position:
    v = find_variant(variant)
    return Position.from_fen(fen, v) if fen else Position.start(v)


def cmd_perft(args: argparse.Namespace) -> int:
    pos = _position(args.variant, args.fen)
    if args.depth < 0:
        raise UserError(f"depth must be at least 0, not {args.depth}")
    start = time.perf_counter()
    nodes = perft(pos, args.depth)
    elapsed = time.perf_counter() - start
    rate = nodes / elapsed if elapsed > 0 else 0.0
    print(f"{pos.variant.name} perft({args.depth}) of {pos.fen()}: {nodes} nodes in {elapsed:.3f} s ({rate:,.0f}/s)")
    print(nodes)
    return 0


def _moves_line(pos: Position) -> str:
    return " ".join(m.numeric() for m in pos.legal_moves())


def cmd_moves(args: argparse.Namespace) -> int:
    v = find_variant(args.variant)
    if args.fen is not None:
        pos = Position.from_fen(args.fen, v)
        for m in pos.legal_moves():
            print(m.numeric())
        return 0
    failed = False
    stdin = getattr(sys.stdin, "buffer", None)
    lines: Any = stdin if stdin is not None else (s.encode("utf-8", "surrogateescape") for s in sys.stdin)
    for n, raw in enumerate(lines, start=1):
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:  # one line per input line, whatever it holds
            print(f"error: line {n} is not UTF-8 text")
            failed = True
            continue
        if not text:
            print()
            continue
        try:
            print(_moves_line(Position.from_fen(text, v)))
        except DraughtsError as exc:
            print(f"error: {exc}")
            failed = True
    return 1 if failed else 0


MAX_PROBLEM_LINES = 1000  # per file: what pdn check lists (the counts stay exact)


def cmd_pdn_check(args: argparse.Namespace) -> int:
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


def cmd_demo(args: argparse.Namespace) -> int:
    """Play a seeded random game on the terminal: the rules engine at work."""
    import random

    from rules import Game
    from rules.pdn import PdnGame

    rng = random.Random(args.seed)
    game = Game(args.variant)
    print(f"{game.variant.title} (seed {args.seed})\n")
    print(game.position.diagram(), "\n")
    while game.outcome() is None and game.ply < args.plies:
        moves = game.legal_moves()
        captures = [m for m in moves if m.captured]
        move = rng.choice(captures or moves)
        text = game.position.move_pdn(move)
        game.push(move)
        if args.boards:
            print(f"{game.ply}. {text}\n{game.position.diagram()}\n")
    print(game.position.diagram(), "\n")
    print(PdnGame.from_game(game, {"Event": "damas demo"}).pdn())
    outcome = game.outcome()
    print(f"FEN {game.fen()}")
    print(
        "game over: "
        + (outcome.termination.value if outcome else "not yet: " + str(len(game.legal_moves())) + " legal moves")
    )
    return 0


def _verdict_line(v: object, variant_notation: str) -> str:
    from referee import GameEnd, MoveMade, Report, Takeback

    if isinstance(v, MoveMade):
        return f"{v.t:9.3f}  move {v.ply}: {v.pdn}"
    if isinstance(v, Takeback):
        return f"{v.t:9.3f}  takeback: ply {v.ply} withdrawn"
    if isinstance(v, Report):
        guide = []
        if v.missing:
            guide.append("missing " + " ".join(map(str, v.missing)))
        if v.extra:
            guide.append("extra " + " ".join(map(str, v.extra)))
        tail = f" [{'; '.join(guide)}]" if guide else ""
        return f"{v.t:9.3f}  {v.kind.value}: {v.message}{tail}"
    if isinstance(v, GameEnd):
        return f"{v.t:9.3f}  end: {v.result} ({v.termination})"
    return str(v)


def _game_id(text: str) -> int:
    """A game id on the command line: ASCII digits (int() would also take ' 1', '+1', '١')."""
    if not _GAME_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a game id: {text!r}")
    return int(text)


def _bounded_lines(f: Any) -> Any:
    """The lines of a text file, none read beyond MAX_LINE + 1 characters (the log reader
    refuses a longer line): an endless line such as /dev/zero's costs no memory."""
    from referee.log import MAX_LINE

    while line := f.readline(MAX_LINE + 1):
        yield line


def cmd_replay(args: argparse.Namespace) -> int:
    """Run a recorded event log through the live pipeline (debounce -> referee)."""
    import json

    from referee import LogError, Pipeline, Referee, parse_log
    from referee.log import event_to_json

    if not (math.isfinite(args.debounce) and 0 <= args.debounce <= MAX_DEBOUNCE):
        raise UserError(f"--debounce must be seconds between 0 and {MAX_DEBOUNCE:g}, not {args.debounce}")
    if args.game is not None or (args.log and _GAME_ID.fullmatch(args.log) and not Path(args.log).exists()):
        from damas.session import load_log
        from damas.store import StoreError

        game_id = args.game if args.game is not None else int(args.log)
        with _store(args.db) as store:
            try:
                header_, events_, problem = load_log(store, store.game(game_id), partial=True)
            except StoreError as exc:
                raise UserError(str(exc)) from None
        if problem is not None:
            print(f"damas: warning: {problem}: replaying the events before it", file=sys.stderr)
        lines = [json.dumps(header_.to_json())] + [json.dumps(event_to_json(e)) for e in events_]
        args.log = f"game {game_id}"
        source: Any = lines
    elif args.log is None:
        raise UserError("give an event log file, '-' for standard input, or --game ID")
    else:
        source = None
    try:
        if source is not None:
            header, events = parse_log(source, args.log, args.variant)
        elif args.log == "-":
            header, events = parse_log(_bounded_lines(sys.stdin), "<stdin>", args.variant)
        else:
            with open(args.log, encoding="utf-8") as f:
                header, events = parse_log(_bounded_lines(f), args.log, args.variant)
    except LogError as exc:
        raise UserError(str(exc)) from None
    except UnicodeDecodeError:
        raise UserError(f"{args.log}: not a UTF-8 text file") from None
    except OSError as exc:
        raise UserError(f"cannot read {args.log}: {exc.strerror or exc}") from None
    variant = find_variant(args.variant or header.variant or "brazilian")
    fen = args.fen or header.fen
    if fen:
        Position.from_fen(fen, variant)  # a bad FEN is a user error, reported as such
    mode = args.mode or header.mode or "casual"
    ref = Referee(variant, fen, mode=mode, board=header.board)
    pipeline = Pipeline(ref, window=args.debounce)
    for v in pipeline.run(events):
        if args.json:
            print(json.dumps(v.to_json(), ensure_ascii=False))
        else:
            print(_verdict_line(v, variant.notation))
    if args.pdn:
        tags = {k.capitalize(): str(val) for k, val in header.extra.items() if k in ("white", "black", "event")}
        text = ref.pdn_game(tags).pdn()
        try:
            Path(args.pdn).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {args.pdn}: {exc.strerror or exc}") from None
    return 0


def cmd_selftest(args: argparse.Namespace) -> int:
    """Check the board: every LED, then every square's sensor and the orientation."""
    from board_hal.config import ConfigError, load_config
    from board_hal.factory import open_board
    from board_hal.selftest import Prompt, SelfTest
    from board_hal.simulated import SimulatedBoard

    try:
        config = load_config(args.config)
        variant = args.variant or config.variant or "brazilian"
        io = open_board(config, variant)
    except ConfigError as exc:
        raise UserError(str(exc)) from None
    sim = io.sensors if isinstance(io.sensors, SimulatedBoard) else None
    if sim is not None:
        print("no hardware configured: the self-test runs on the simulated board, with simulated hands")

    def ask(p: Prompt) -> bool | None:
        print(f"- {p.text}")
        if sim is not None:  # the simulated hands do what is asked
            if p.kind == "clear":
                sim.set_squares([])
            elif p.kind == "place" and p.square is not None:
                sim.place(p.square)
            elif p.kind == "lift" and p.square is not None:
                sim.lift(p.square)
            return True if p.kind == "leds" and p.text.endswith("(y/n)") else None
        if p.kind == "leds" and p.text.endswith("(y/n)"):
            return input("  answer y or n: ").strip().lower().startswith("y")
        if p.kind == "clear":
            input("  press Enter when the board is empty ")
        return None

    with io:
        io.start()
        result = SelfTest(io, ask, timeout=args.timeout, led_step=0.0 if sim else 0.15).run()
    for line in result.messages:
        print(f"  {line}")
    print(
        f"{len(result.confirmed)} squares confirmed, {len(result.dead)} dead, {len(result.stuck)} stuck, "
        f"{len(result.misplaced)} answered elsewhere"
    )
    return 0 if result.ok else 1


def _store(path: str | None, *, create: bool = False, exclusive: bool = False, quarantine: bool = False) -> Any:
    """The database; the commands that read refuse a missing one (a mistyped --db) rather
    than create an empty file."""
    from damas.store import Store, StoreError, default_path

    try:
        return Store(path or default_path(), create=create, exclusive=exclusive, quarantine=quarantine)
    except StoreError as exc:
        raise UserError(str(exc)) from None


def _report_damage(store: Any, problems: list[str], done: str) -> None:
    """At most one line on standard error: the first problem found (and how many more), and
    how to get the games back when the journal copies hold what the database lost."""
    from damas.recover import lost_events

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


def cmd_play(args: argparse.Namespace) -> int:
    from damas.serve import serve

    return serve(args)


def _shipped(source: str, installed: Path, name: str) -> Path:
    """A file the repository keeps in ``source`` (a folder at its top) and an installed wheel
    carries in ``installed`` (pyproject's package-dir mapping)."""
    in_tree = Path(__file__).resolve().parents[1] / source / name
    return in_tree if in_tree.is_file() else installed / name


def cmd_deploy(args: argparse.Namespace) -> int:
    """Print the files a Raspberry Pi installation needs, as the installed package carries them."""
    import board_hal

    examples = ("simulated", "gpio-8x8", "gpio-10x10", "pico")
    here = Path(__file__).resolve().parent
    if args.what == "unit":
        path = _shipped("deploy", here / "deploy", "damas.service")
    elif args.what == "udev":
        path = _shipped("deploy", here / "deploy", "99-damas-pico.rules")
    elif args.what in examples:
        path = _shipped("hardware", Path(board_hal.__file__).resolve().parent / "examples", f"{args.what}.toml")
    else:
        raise UserError(f"nothing called {args.what!r} to print (unit, udev, or one of: {', '.join(examples)})")
    sys.stdout.write(path.read_text(encoding="utf-8"))
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    """List the recorded games."""
    import datetime

    from damas.store import StoreError

    shown = {"interrupted": "interrupted by a restart"}
    with _store(args.db) as store:
        try:
            rows = store.games(limit=args.limit)
        except StoreError as exc:
            raise UserError(str(exc)) from None
        if not rows and not store.skipped:
            print(f"no games in {store.path}")
        elif rows:
            print(f"{'id':>4}  {'started':<16}  {'variant':<13}  {'white - black':<28}  {'result':<8}  moves  status")
        for r in rows:
            started = datetime.datetime.fromtimestamp(r.started).strftime("%Y-%m-%d %H:%M")
            players = f"{r.tags.get('White', '?')} - {r.tags.get('Black', '?')}"
            status = shown.get(r.state, r.state) + (f" ({'; '.join(r.damage)})" if r.damage else "")
            print(
                f"{r.id:>4}  {started:<16}  {r.variant[:13]:<13}  {players[:28]:<28}  {r.result[:8]:<8}  {r.moves:>5}"
                f"  {status}"
            )
        _report_damage(store, store.skipped, "")
    return 1 if store.skipped else 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write recorded games as PDN."""
    from damas.session import export_game
    from damas.store import StoreError
    from rules.pdn import write_pdn

    notes: list[str] = []
    with _store(args.db) as store:
        try:
            if args.all:
                ids = [r.id for r in reversed(store.games())]
                notes += store.skipped
            elif args.game is not None:
                ids = [args.game]
            else:
                latest = store.games(limit=1)
                if not latest:
                    raise UserError(f"no games in {store.path}")
                ids = [latest[0].id]
            games = []
            for i in ids:
                try:
                    games.append(export_game(store, i, notes))
                except (StoreError, DraughtsError) as exc:
                    if not args.all:
                        raise
                    notes.append(f"game {i}: {exc}")
            text = write_pdn(games, args.result_style, compat=args.compat)
        except StoreError as exc:
            raise UserError(str(exc)) from None
        _report_damage(store, notes, ": exported what could be read" if notes else "")
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        print(f"{len(games)} game{'s' if len(games) != 1 else ''} written to {args.output}")
    else:
        sys.stdout.write(text)
    return 1 if notes else 0


def cmd_recover(args: argparse.Namespace) -> int:
    """Rebuild games from the journal copies kept beside a database."""
    from damas.recover import recover
    from damas.store import journals_dir

    source = Path(args.source) if args.source else None
    if source is not None and not source.is_dir() and journals_dir(source).is_dir():
        source = journals_dir(source)  # the damaged database's name: its copies beside it
    from damas.store import default_path

    target = Path(args.db) if args.db else default_path()
    # a damaged target is moved aside only when its own copies are there to rebuild it
    with _store(str(target), create=True, exclusive=True, quarantine=journals_dir(target).is_dir()) as store:
        if store.quarantined is not None:
            aside, why = store.quarantined
            print(f"{store.path} was damaged ({why}): moved to {aside}")
        source = source or store.journals
        if not source.is_dir():
            raise UserError(f"{source}: no journal copies there (give --from DIR)")
        lines = recover(store, source)
    for line in lines:
        print(line)
    return 0


def _cell_namer(layout: Any) -> Callable[[int | str], str]:
    """How the emulator names a square: as the variant writes it, or a non-playing cell's name."""
    geo = layout.geometry
    algebraic = layout.variant.notation == "algebraic"
    return lambda k: geo.square_name(k) if algebraic and isinstance(k, int) else str(k)


def cmd_emulator(args: argparse.Namespace) -> int:
    """The Pico firmware on a simulated board behind a pseudo-terminal; hands typed on stdin."""
    from board_hal.layout import Layout
    from firmware_bridge.emulator import Emulator, Faults, board_text

    layout = Layout(find_variant(args.variant).name)
    cells = {layout.cell_of(sq) for sq in Position.start(layout.variant).occupied()}
    faults = Faults(seed=1, flip=args.faults, drop=args.faults) if args.faults else None
    with Emulator(layout.size, cells=cells, faults=faults) as emu:
        print(f"emulated Pico ({layout.size}x{layout.size}, {layout.variant.name} squares) on {emu.port}", flush=True)
        print(f'play on it: damas play --config FILE with [board] backend = "pico" and [pico] port = "{emu.port}"')
        print("commands: lift SQ | place SQ | reset | unplug | plug | board (pieces and LEDs) | quit", flush=True)
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


def cmd_pico_repl(args: argparse.Namespace) -> int:
    """Ask the firmware to give the serial line back to the MicroPython REPL (to update it)."""
    from firmware_bridge import link
    from firmware_bridge.bridge import find_pico_port

    port = args.port or find_pico_port()
    if port is None:
        raise UserError("no Raspberry Pi Pico found on USB (give --port)")
    import serial

    try:
        with serial.serial_for_url(port, baudrate=115200, timeout=1) as ser:
            ser.write(link.encode(link.REPL, 0))
            ser.flush()
    except (serial.SerialException, OSError) as exc:
        raise UserError(f"cannot open {port}: {exc}") from None
    print(f"asked the firmware on {port} to stop: mpremote can connect now (it restarts on the next reset)")
    return 0


def _version() -> str:
    """One source of the version: the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("damas")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _variants(default: str = "") -> str:
    """Help text for --variant: the rules' variant table, not a list kept here."""
    from rules.variants import VARIANTS

    names = ", ".join(sorted(VARIANTS))
    return f"the variant: {names}" + (f" ({default})" if default else "")


def _command(sub: Any, name: str, help: str, example: str, description: str | None = None) -> argparse.ArgumentParser:
    """A subcommand whose help (``damas NAME -h``) ends with one example."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        help=help,
        description=textwrap.fill(description or (help[0].upper() + help[1:] + "."), 79),
        epilog=f"example:\n  {example}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="damas",
        description="Electronic draughts board controller.",
        epilog="example:\n  damas play --white Ana --black Rui   # then open the page it prints",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="also show debug lines (tracebacks, the Pico link's retries)"
    )
    parser.add_argument("-q", "--quiet", action="count", default=0, help="show only warnings and errors (-qq: errors)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", help="what to do (damas COMMAND -h for its help)")

    p = _command(sub, "demo", "play a random legal game on the terminal", "damas demo --variant portuguese --boards")
    p.add_argument("--variant", default="brazilian", help=_variants("default brazilian"))
    p.add_argument("--plies", type=int, default=40, help="stop after this many plies (default 40)")
    p.add_argument("--seed", type=int, default=1, help="the random seed: the same seed plays the same game (default 1)")
    p.add_argument("--boards", action="store_true", help="show the board after every move")
    p.set_defaults(func=cmd_demo)

    p = _command(
        sub,
        "perft",
        "count legal move sequences (last line: the count)",
        "damas perft --variant international --depth 6",
    )
    p.add_argument("--variant", required=True, help=_variants())
    p.add_argument("--fen", help="start from this position (PDN FEN)")
    p.add_argument("--depth", type=int, required=True, help="how many plies deep to count")
    p.set_defaults(func=cmd_perft)

    p = _command(
        sub,
        "moves",
        "list the legal moves of a position (or of FENs read from stdin)",
        "damas moves --variant international --fen 'W:WK4:B13,20,32,37'",
    )
    p.add_argument("--variant", required=True, help=_variants())
    p.add_argument("--fen", help="the position; without it, FENs are read from standard input, one per line")
    p.set_defaults(func=cmd_moves)

    from damas.hub import add_parser as add_hub_parser

    add_hub_parser(sub)

    from damas.hall_command import add_parser as add_hall_parser

    add_hall_parser(sub)

    p = _command(
        sub,
        "replay",
        "run a recorded event log through the referee",
        "damas replay --game 3 --pdn game3.pdn",
    )
    p.add_argument("log", metavar="LOG", nargs="?", help="a JSON-lines event log ('-' for standard input)")
    p.add_argument("--game", type=_game_id, help="replay a recorded game's journal from the database instead")
    p.add_argument("--db", help="the game database (default: the user's data directory)")
    p.add_argument("--variant", help=_variants("default: the log's"))
    p.add_argument("--fen", help="override the log's start position")
    p.add_argument("--mode", choices=["casual", "tournament"], help="override the log's mode (default casual)")
    p.add_argument("--pdn", metavar="OUT", help="write the recorded game as PDN")
    p.add_argument("--json", action="store_true", help="one JSON object per verdict")
    p.add_argument("--debounce", type=float, default=0.05, help="debounce window in seconds (default 0.05)")
    p.set_defaults(func=cmd_replay)

    p = _command(
        sub,
        "selftest",
        "check the board's LEDs, sensors and orientation",
        "damas selftest --config /etc/damas/board.toml",
    )
    p.add_argument("--config", help="the board configuration (TOML); without it, the simulated board")
    p.add_argument("--variant", help=_variants("default: the config's, else brazilian") + "; whose squares to test")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each square (default 30)")
    p.set_defaults(func=cmd_selftest)

    p = _command(
        sub,
        "play",
        "play on the board (or the simulated board) with the live web page",
        "damas play --variant international --white Ana --black Rui --event 'Club night'",
    )
    p.add_argument("--variant", help=_variants("default: config, else brazilian"))
    p.add_argument("--fen", help="start from this position (K for kings)")
    p.add_argument("--white", help="White's name")
    p.add_argument("--black", help="Black's name")
    p.add_argument("--event", help="the event's name")
    p.add_argument("--mode", choices=["casual", "tournament"], help="casual (default) or tournament")
    p.add_argument("--config", help="board configuration (TOML; see hardware/); without it, the simulated board")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1; other hosts need a token)")
    p.add_argument("--port", type=int, default=None, help="port (default 8080)")
    p.add_argument("--db", help="the game database (default: the user's data directory)")
    p.add_argument("--lang", choices=["en", "pt"], help="language of the page (default: config, else the browser's)")
    resume = p.add_mutually_exclusive_group()
    resume.add_argument("--resume", dest="resume", action="store_true", default=None, help="resume an unfinished game")
    resume.add_argument("--no-resume", dest="resume", action="store_false", help="start a new game")
    p.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    p.add_argument("--broker", help="publish the games to the tournament hall: mqtt://host:1883 (default: [hall])")
    p.add_argument("--board-id", help="this board's id in the hall (default: [hall] board_id)")
    p.set_defaults(func=cmd_play)

    p = _command(
        sub,
        "deploy",
        "print the systemd unit, the udev rule or an example board configuration",
        "damas deploy unit | sudo tee /etc/systemd/system/damas.service",
        description="Print a file a Pi installation needs (deploy/README.md says where each goes).",
    )
    p.add_argument("what", help="unit, udev, or an example configuration: simulated, gpio-8x8, gpio-10x10, pico")
    p.set_defaults(func=cmd_deploy)

    p = _command(sub, "games", "list the recorded games", "damas games --limit 10")
    p.add_argument("--db", help="the game database")
    p.add_argument("--limit", type=int, default=50, help="show at most this many, the latest first (default 50)")
    p.set_defaults(func=cmd_games)

    p = _command(sub, "export", "write recorded games as PDN", "damas export --all -o games.pdn")
    p.add_argument("game", nargs="?", type=int, help="the game's id (default: the latest game)")
    p.add_argument("--all", action="store_true", help="every game")
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
    p.set_defaults(func=cmd_export)

    p = _command(
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
    p.set_defaults(func=cmd_recover)

    p = _command(
        sub,
        "emulator",
        "run the Pico firmware on a simulated board behind a pseudo-terminal",
        "damas emulator --variant international --faults 0.001",
    )
    p.add_argument("--variant", default="brazilian", help=_variants("default brazilian") + "; whose squares and size")
    p.add_argument("--faults", type=float, default=0.0, help="bit flips and drops per byte on the line (e.g. 0.001)")
    p.set_defaults(func=cmd_emulator)

    p = _command(
        sub, "pico-repl", "stop the Pico firmware so that mpremote can update it", "damas pico-repl --port /dev/ttyACM0"
    )
    p.add_argument("--port", help="the Pico's serial port (default: found by its USB id)")
    p.set_defaults(func=cmd_pico_repl)

    p = _command(sub, "pdn", "PDN tools", "damas pdn check games/*.pdn")
    pdn_sub = p.add_subparsers(dest="pdn_command", metavar="PDN_COMMAND", help="check: read PDN files and report")
    c = _command(
        pdn_sub,
        "check",
        "load PDN files, replay every game, report what failed",
        "damas pdn check nk2003.pdn wk2003.pdn",
        description="Load PDN files and replay every game. Per file: the games found, loaded whole, partial "
        "(the moves up to a fault load) and lost, each problem as file:line; with several files a total line. "
        "Exit status 1 when there was a problem.",
    )
    c.add_argument("files", nargs="+", metavar="FILE", help="the PDN files to read")
    c.add_argument("--variant", help=_variants("for the games without a GameType tag; default: International"))
    c.set_defaults(func=cmd_pdn_check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return EXIT_USAGE
    from damas.log import configure

    handler = configure(args.verbose - args.quiet)
    try:
        return func(args)
    except (DraughtsError, UserError) as exc:
        print(f"damas: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        logging.getLogger().removeHandler(handler)


if __name__ == "__main__":
    sys.exit(main())
