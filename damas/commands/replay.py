"""``damas replay``: run a recorded event log through the live pipeline (debounce -> referee)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from damas.commands.common import GAME_ID, MAX_DEBOUNCE, command, game_id, open_store, variants_help
from damas.errors import UserError
from damas.records.journal import events_phrase, holes, prefix
from damas.records.store import ANALYSIS
from referee import Action, ClockKeeper, GameEnd, MoveMade, Pipeline, Report, Takeback, Verdict, parse_log
from referee.clock import ClockError
from referee.colour import make_referee
from referee.log import MAX_LINE, LogEvent, event_to_json
from referee.vocabulary import DEFAULT_MODE, MODES
from rules import Position, find_variant


def register(sub: Any) -> None:
    p = command(sub, "replay", "run a recorded event log through the referee", "damas replay --game 3 --pdn game3.pdn")
    p.add_argument("log", metavar="LOG", nargs="?", help="a JSON-lines event log ('-' for standard input)")
    p.add_argument("--game", type=game_id, help="replay a recorded game's journal from the database instead")
    p.add_argument("--db", help="the game database (default: the user's data directory)")
    p.add_argument("--variant", help=variants_help("default: the log's"))
    p.add_argument("--fen", help="override the log's start position")
    p.add_argument("--mode", choices=MODES, help=f"override the log's mode (default {DEFAULT_MODE})")
    p.add_argument("--pdn", metavar="OUT", help="write the recorded game as PDN")
    p.add_argument("--json", action="store_true", help="one JSON object per verdict")
    p.add_argument("--debounce", type=float, default=0.05, help="debounce window in seconds (default 0.05)")
    p.set_defaults(func=run)


def verdict_line(v: Verdict) -> str:
    """One verdict as ``damas replay`` prints it."""
    if isinstance(v, MoveMade):
        if v.clock is not None:
            times = f"white {v.clock['white']:.1f} s, black {v.clock['black']:.1f} s"
            return f"{v.t:9.3f}  move {v.ply}: {v.pdn}  (clock: {times})"
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


def restart_line(t: float, action: str, fen: str | None) -> dict[str, Any]:
    """A game started again in the log (``new-game``; ``position``, an analysis session's
    "set the position": the moves start again from that position), as ``damas replay --json``
    prints it beside the verdicts (type ``new-game`` or ``position``; ``fen``: the position
    the moves start from, none for the variant's start)."""
    return {"type": action, "fen": fen, "t": t}


def _text(line: Verdict | dict[str, Any]) -> str:
    if isinstance(line, dict):
        start = f"from {line['fen']}" if line["fen"] else "from the start position"
        if line["type"] == "position":
            return f"{line['t']:9.3f}  position: set up {line['fen']} (the moves start again from it)"
        return f"{line['t']:9.3f}  new game: {start}"
    return verdict_line(line)


def _replayed(pipeline: Pipeline, events: Iterable[LogEvent], fen: str | None) -> Iterator[Verdict | dict[str, Any]]:
    """The verdicts of a log's events in order, with a line where the game starts again (a
    ``new-game`` or ``position`` action: the referee says nothing when the board already
    stands right, and the plies start again from 1)."""
    for ev in events:
        if isinstance(ev, Action) and ev.action in ("new-game", "position"):
            yield from pipeline.advance(ev.t)  # what settled before it comes first
            fen = ev.fen if ev.action == "position" else fen
            yield restart_line(ev.t, ev.action, fen)
        yield from pipeline.feed(ev)
    yield from pipeline.finish()


def _bounded_lines(f: IO[str]) -> Iterator[str]:
    """The lines of a text file, none read beyond MAX_LINE + 1 characters (the log reader
    refuses a longer line): an endless line such as /dev/zero's costs no memory."""
    while line := f.readline(MAX_LINE + 1):
        yield line


def _in_order(lines: Iterable[str], source: str, notes: list[str]) -> list[str]:
    """The lines of a log whose events carry their journal ``seq`` (a database's journal
    copy, ``<db>.journals/<id>.jsonl``), checked: a later line with the same seq supersedes
    the earlier one (whose write failed), and the events stop at the first missing seq (what
    comes after a gap cannot be replayed), said in ``notes``. A log without seqs (written by
    hand, by ``damas replay --json``...) is taken as it is."""
    kept: list[str] = []
    at: dict[int, int] = {}  # seq -> its line's index in kept
    for line in lines:
        if len(line) > MAX_LINE:  # the log reader refuses it: nothing after it is read
            kept.append(line)
            break
        seq = _seq_of(line)
        if seq is None:
            kept.append(line)
            continue
        if seq in at:
            kept[at[seq]] = ""  # superseded
        at[seq] = len(kept)
        kept.append(line)
    if not at:
        return kept
    whole = prefix(at)
    if whole == len(at):
        return kept
    missing = holes(at)
    after = len(at) - whole
    resumes = min(s for s in at if s > whole)
    notes.append(
        f"{source}: {events_phrase(missing)} missing (its seq jumps from {whole - 1} to {resumes}): "
        f"replaying the {whole} events before the gap, not the {after} after it{_elsewhere(source)}"
    )
    for seq, i in at.items():
        if seq >= whole:
            kept[i] = ""  # (an empty line: the log reader's line numbers stay the file's)
    return kept


def _elsewhere(source: str) -> str:
    """Where else the game's journal is, for a database's journal copy."""
    path = Path(source)
    if path.parent.name.endswith(".journals") and path.stem.isdigit():
        db = path.parent.with_name(path.parent.name[: -len(".journals")])
        if db.is_file():
            return f" (`damas replay --game {path.stem} --db {db}` replays the database's journal, which may hold them)"
    return ""


def _seq_of(line: str) -> int | None:
    if '"seq"' not in line:
        return None
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return None  # the log reader names the line
    seq = obj.get("seq") if isinstance(obj, dict) and "t" in obj else None
    return seq if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else None


def _journal_lines(args: argparse.Namespace, notes: list[str]) -> list[str]:
    """A recorded game's journal as log lines (header first)."""
    from damas.records.session import load_log

    gid = args.game if args.game is not None else int(args.log)
    with open_store(args.db) as store:
        header, events, problem = load_log(store, store.game(gid), partial=True)
    if problem is not None:
        notes.append(f"{problem}: replaying the events before it")
    args.log = f"game {gid}"
    return [json.dumps(header.to_json())] + [json.dumps(event_to_json(e)) for e in events]


def run(args: argparse.Namespace) -> int:
    notes: list[str] = []  # what was found and left out, said before the verdicts
    if not (math.isfinite(args.debounce) and 0 <= args.debounce <= MAX_DEBOUNCE):
        raise UserError(f"--debounce must be seconds between 0 and {MAX_DEBOUNCE:g}, not {args.debounce}")
    try:
        if args.game is not None or (args.log and GAME_ID.fullmatch(args.log) and not Path(args.log).exists()):
            header, events = parse_log(_journal_lines(args, notes), args.log, args.variant)
        elif args.log is None:
            raise UserError("give an event log file, '-' for standard input, or --game ID")
        elif args.log == "-":
            header, events = parse_log(_in_order(_bounded_lines(sys.stdin), "<stdin>", notes), "<stdin>", args.variant)
        else:
            with open(args.log, encoding="utf-8") as f:
                header, events = parse_log(_in_order(_bounded_lines(f), args.log, notes), args.log, args.variant)
    except UnicodeDecodeError:
        raise UserError(f"{args.log}: not a UTF-8 text file") from None
    except OSError as exc:
        raise UserError(f"cannot read {args.log}: {exc.strerror or exc}") from None
    for note in notes:
        print(f"damas: warning: {note}", file=sys.stderr)
    variant = find_variant(args.variant or header.variant or "brazilian")
    fen = args.fen or header.fen
    if fen:
        Position.from_fen(fen, variant)  # a bad FEN is a user error, reported as such
    mode = args.mode or header.mode or DEFAULT_MODE
    ref = make_referee(
        variant.name,
        fen,
        mode=mode,
        board=header.board,
        senses=header.senses,
        pieces=header.pieces,
        suspects=header.broken or (),
        draw_rules=header.extra.get("purpose") != ANALYSIS,  # (an analysis' lines go on after a draw rule)
    )
    try:
        keeper = ClockKeeper.from_header(header.to_json(), ref)  # the log's game clock: the same times
    except ClockError as exc:
        raise UserError(f"{args.log}: {exc}") from None
    pipeline = Pipeline(ref, window=args.debounce, clock=keeper)
    for line in _replayed(pipeline, events, fen):
        if args.json:
            print(json.dumps(line if isinstance(line, dict) else line.to_json(), ensure_ascii=False))
        else:
            print(_text(line))
    if args.pdn:
        tags = {k.capitalize(): str(val) for k, val in header.extra.items() if k in ("white", "black", "event")}
        text = pipeline.pdn_game(tags).pdn()
        try:
            Path(args.pdn).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot write {args.pdn}: {exc.strerror or exc}") from None
    return 1 if notes else 0  # 1: replayed, with what was left out named
