"""Rebuild games from the journal copies kept beside a database (``<db>.journals/``).

Each game has ``<id>.jsonl`` (its event log: the header line first, then one event per
line with its journal ``seq``, appended and fsynced with every event) and ``<id>.json``
(its record: tags, result, status; rewritten atomically when they change). Every file is
read as untrusted input: a line, a field or a whole file that cannot be what it claims is
left out and named, and one bad game never stops the recovery of the others.

A game's journal is the two copies taken together (``damas.records.journal``): the events
the database lacks are taken from the copy, those the copy lacks are written into it again
from the database, and each game so mended gets one line saying what each copy held. An
event neither holds is a hole: the game is kept whole as far as it goes (every event of
both copies kept), marked damaged and said so, never silently shortened.
"""

from __future__ import annotations

import functools
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from damas.records.journal import Merged, events_phrase, merge, prefix
from damas.records.kept import KeptChecks, recover_kept
from damas.records.store import DAMAGED, PURPOSES, STATUSES, GameRow, Store, StoreError, a_result, a_termination, a_time
from referee.log import MAX_LINE, LogError, parse_log
from referee.vocabulary import DEFAULT_MODE, MODES, known
from rules import DraughtsError, Position, find_variant
from rules.errors import shown
from rules.pdn import PdnTagError, check_tag

_HEADER_ONLY = ("game", "tags")  # header fields the copy adds to the public log header
MAX_COPY = 64 << 20  # bytes: a game's copy larger than this is not read (a season's longest is under 1 MB)
MAX_RECORD = 1 << 20  # bytes of a game's record (<id>.json)
MAX_ID = 2**63 - 1  # SQLite's largest rowid


@dataclass
class CopiedGame:
    path: Path
    id: int
    header: dict[str, Any]
    record: dict[str, Any]
    events: dict[int, dict[str, Any]] = field(default_factory=dict)
    bad_lines: int = 0
    torn: bool = False  # its last line was cut short (a power cut while it was written)
    #: the fields of its record (``<id>.json``) that were left out, and why
    bad_fields: list[str] = field(default_factory=list)


def _lines(path: Path) -> tuple[list[bytes], int, bool] | None:
    """A copy's lines, none longer than the log's limit (a longer one is counted as bad, not
    held in memory), how many were too long, and whether the file ends inside a line."""
    try:
        with open(path, "rb") as f:
            if f.seek(0, 2) > MAX_COPY:
                return None
            f.seek(0)
            lines: list[bytes] = []
            long = 0
            torn = False
            while raw := f.readline(MAX_LINE + 2):
                if not raw.endswith(b"\n"):
                    if len(raw) < MAX_LINE + 2:
                        torn = True  # the file ends inside this line
                        lines.append(raw)
                        break
                    long += 1
                    while (rest := f.readline(1 << 16)) and not rest.endswith(b"\n"):
                        pass
                    continue
                lines.append(raw)
    except OSError:
        return None
    return lines, long, torn


def read_copy(path: Path) -> CopiedGame | None:
    """One game's copy; ``None`` when not even its header line can be read. A later line
    with the same ``seq`` as an earlier one supersedes it (the earlier one's database write
    failed: it was never processed)."""
    read = _lines(path)
    if read is None:
        return None
    lines, bad, torn_line = read
    header: dict[str, Any] | None = None
    events: dict[int, dict[str, Any]] = {}
    torn = False
    for i, raw in enumerate(lines):
        try:
            obj = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except (UnicodeDecodeError, ValueError, RecursionError):
            bad += 1  # e.g. a line the power cut short
            torn = torn_line and i == len(lines) - 1
            continue
        if not isinstance(obj, dict):
            bad += 1
            continue
        if header is None:
            if "t" in obj:
                return None
            header = obj
            continue
        if "t" not in obj:
            bad += 1
            continue
        seq = obj.pop("seq", None)
        if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq <= MAX_ID:
            seq = (max(events) + 1) if events else 0
        events.pop(seq, None)
        events[seq] = obj
    if header is None:
        return None
    game_id = _id_of(path)  # the file's name: the store writes each game's copy under its id
    if game_id is None:
        game_id = header.get("game")
        if not isinstance(game_id, int) or isinstance(game_id, bool) or not 1 <= game_id <= MAX_ID:
            return None
    record = _read_record(path.with_suffix(".json"), game_id)
    tags = header.get("tags")
    public = {k: v for k, v in header.items() if k not in _HEADER_ONLY}
    if record is None:
        record = {
            "id": game_id,
            "variant": header.get("variant") or "brazilian",
            "fen": header.get("fen"),
            "mode": known(header.get("mode"), MODES) or DEFAULT_MODE,
            "tags": tags if isinstance(tags, dict) else {},
            "result": "*",
            "termination": None,
            "result_locked": False,
            "started": None,
            "ended": None,
            "status": None,
        }
    record["id"] = game_id
    record["header"] = public
    bad_fields = _repair(record, public)
    return CopiedGame(path, game_id, public, record, dict(sorted(events.items())), bad, torn, bad_fields)


def _id_of(path: Path) -> int | None:
    stem = path.stem
    return int(stem) if stem.isascii() and stem.isdigit() and 1 <= int(stem) <= MAX_ID else None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _repair(record: dict[str, Any], header: dict[str, Any]) -> list[str]:
    """Leave out the fields of a record (``<id>.json``) that cannot be what they claim (a hand
    edit, another program, a damaged disk): each is taken from the log's header instead (it
    names the game's variant, start position and mode, and is never rewritten), or left
    unknown. Returns what was left out, to be said on the copy's line."""
    notes: list[str] = []

    def replace(key: str, why: str, instead: Any) -> None:
        notes.append(f"{key} {shown(record.get(key), 40)} {why}")
        record[key] = instead

    logged = header.get("variant")
    try:
        variant = find_variant(record["variant"]).name
    except (DraughtsError, TypeError, KeyError):
        replace("variant", "is not a variant", logged if isinstance(logged, str) else "brazilian")
    else:
        if isinstance(logged, str) and _variant_name(logged) not in (None, variant):
            replace("variant", f"is not the game's (its log says {shown(logged, 40)})", logged)
    mode = known(record.get("mode"), MODES)
    if mode is None:
        replace("mode", f"is not a mode ({' or '.join(MODES)})", known(header.get("mode"), MODES) or DEFAULT_MODE)
    elif known(header.get("mode"), MODES) not in (None, mode):
        replace("mode", f"is not the game's (its log says {shown(header.get('mode'), 40)})", header.get("mode"))
    for key in ("started", "ended"):
        value = record.get(key)
        if value is not None and not a_time(value):
            replace(key, "is not a time", None)
    fen = record.get("fen")
    if fen is not None and not isinstance(fen, str):
        replace("fen", "is not text", header.get("fen"))
    elif fen is not None and fen != header.get("fen"):
        why = _fen_problem(fen, record["variant"])
        replace("fen", why or f"is not the game's (its log starts from {shown(header.get('fen'), 40)})", None)
        record["fen"] = header.get("fen")
    result = record.get("result")
    if result is not None and not a_result(result):
        replace("result", "is not a result", "*")  # the replay says how it ended
        record["result_locked"] = False
        if record.get("status") is None:
            record["ended"] = record["termination"] = None
    termination = record.get("termination")
    if termination is not None and not a_termination(termination):
        replace("termination", "is not how a game ends", None)
    status = record.get("status")
    if status is not None and status not in STATUSES:
        replace("status", f"is not a status ({', '.join(STATUSES)})", None)
    if record.get("purpose") is None and header.get("purpose") in PURPOSES:
        record["purpose"] = header["purpose"]  # (a record written before it said so)
    purpose = record.get("purpose")
    if purpose is not None and purpose not in PURPOSES:
        replace("purpose", f"is not a purpose ({', '.join(PURPOSES)})", None)
    if not isinstance(record.get("result_locked", False), bool):
        replace("result_locked", "is not true or false", False)
    tags = record.get("tags")
    good = {}
    for key, value in (tags or {}).items():
        try:
            check_tag(key, value)
        except PdnTagError as exc:
            notes.append(f"tags: {exc}")
            continue
        good[key] = value
    record["tags"] = good
    return notes


def _variant_name(name: str) -> str | None:
    try:
        return find_variant(name).name
    except DraughtsError:
        return None


def _fen_problem(fen: str, variant: str) -> str | None:
    try:
        Position.from_fen(fen, variant)
    except DraughtsError as exc:
        return f"is not a position of the game's variant ({exc})"
    return None


def _read_record(path: Path, game_id: int) -> dict[str, Any] | None:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RECORD + 1)
        if len(data) > MAX_RECORD:
            return None
        obj = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(obj, dict) or obj.get("id") != game_id or not isinstance(obj.get("variant"), str):
        return None
    if not isinstance(obj.get("tags"), dict):
        return None
    return obj


def copies(source: Path) -> list[Path]:
    try:
        names = [p for p in source.iterdir() if p.suffix == ".jsonl" and p.stem.isascii() and p.stem.isdigit()]
    except OSError:
        return []
    return sorted(names, key=lambda p: int(p.stem))


def db_events(store: Store, game_id: int) -> dict[int, dict[str, Any]] | None:
    """The events of a game's journal in the database that can be read, by seq (a row that
    is not a JSON event is left out: the copy may hold it); ``None`` when none can be read."""
    try:
        rows = store.journal_rows(game_id)
    except StoreError:
        return None
    out = {}
    for seq, text in rows:
        try:
            obj = json.loads(text, parse_constant=_no_constant)
        except (TypeError, ValueError, RecursionError):
            continue
        if isinstance(obj, dict) and "t" in obj:
            out[seq] = obj
    return out


def _finished_and_whole(store: Store, path: Path) -> bool:
    """Quick (no parsing): a finished game whose database journal runs from seq 0 without a
    gap and has exactly as many events as its copy has whole lines after the header."""
    try:
        row = store.game(int(path.stem))
        if row.ended is None or row.damage or row.status == DAMAGED:
            return False
        count, first, last = store.journal_span(row.id)
        if count and (first != 0 or last != count - 1):
            return False
        data = path.read_bytes()
        return data.endswith(b"\n") and count == data.count(b"\n") - 1
    except (OSError, StoreError, ValueError):
        return False


def _same_game(row: GameRow, copy: CopiedGame) -> bool:
    started = copy.record.get("started")
    return row.variant == copy.record["variant"] and (started is None or abs(row.started - float(started)) < 1e-3)


@dataclass
class _Tally:
    rebuilt: int = 0
    intact: int = 0
    failed: int = 0
    copies: int = 0  # copies written again (the database was whole)
    ids: dict[int, int] = field(default_factory=dict)  # games rebuilt under another id: the copy's -> the new


def recover(
    store: Store, source: Path | None = None, *, lost_only: bool = False, checks: KeptChecks | None = None
) -> list[str]:
    """Rebuild into ``store`` every game of ``source`` (default: the store's own copies)
    that the database lacks or holds damaged or shorter, and write again each of the store's
    own copies that lacks events the database holds. One line per game mended or not
    recoverable, and a summary line last (unless ``lost_only`` and nothing was found)."""
    source = source or store.journals
    same = source.resolve() == store.journals.resolve() if store.journals.exists() else False
    lines: list[str] = []
    tally = _Tally()
    paths = copies(source)
    for path in paths:
        if lost_only and same and _finished_and_whole(store, path):
            tally.intact += 1
            continue
        try:
            line = _recover_one(store, path, same, tally)
        except Exception as exc:  # one bad game never stops the others (nor a start): named, kept as it is
            tally.failed += 1
            line = f"{path}: cannot be rebuilt ({type(exc).__name__}: {shown(str(exc), 200)}): skipped, left as it is"
        if line is not None:
            lines.append(line)
    if same:  # a game of the database without its copy (from before the copies, or removed since)
        have = {int(p.stem) for p in paths}
        try:
            ids = store.game_ids()
        except StoreError:
            ids = []  # (the list itself unreadable: each game the copies hold was rebuilt above)
        for game_id in ids:
            if game_id not in have and not store.copy_path(game_id).exists():
                try:
                    line = _copy_from_db(store, game_id, "was missing")
                except Exception as exc:  # (as above: named, never fatal)
                    line = f"game {game_id}: its copy cannot be written ({type(exc).__name__}: {shown(str(exc), 200)})"
                if line is not None:
                    tally.copies += 1
                    lines.append(line)
    kept_lines, kept = recover_kept(store, source, same, tally.ids, deep=not lost_only, checks=checks)
    lines += kept_lines
    if not lost_only or tally.rebuilt or tally.failed or tally.copies or kept_lines:
        n = tally.copies + kept.copies
        again = f", {n} cop{'ies' if n != 1 else 'y'} completed" if n else ""
        counts = ((kept.studies, "study", "studies"), (kept.analyses, "analysis", "analyses"))
        also = [f"{n} {one if n == 1 else many}" for n, one, many in counts if n]
        more = f" ({' and '.join(also)} rebuilt)" if also else ""
        lines.append(
            f"{tally.rebuilt} game{'s' if tally.rebuilt != 1 else ''} rebuilt{more}, {tally.intact} intact{again}, "
            f"{tally.failed + kept.failed} not recoverable (from {len(paths)} journal copies in {source})"
        )
    return lines


def _recover_one(store: Store, path: Path, same: bool, tally: _Tally) -> str | None:
    from damas.records.session import replay_check

    copy = read_copy(path)
    if copy is None:
        game_id = _id_of(path)
        line = _copy_from_db(store, game_id, "could not be read (its header)") if same and game_id else None
        if line is not None:
            tally.copies += 1
            return line
        tally.failed += 1
        return f"{path}: not a journal copy (its header cannot be read): skipped"
    try:
        row: GameRow | None = store.game(copy.id)
    except StoreError:
        row = None
    held = db_events(store, copy.id) if row is not None else None
    other = row is not None and not row.damage and not _same_game(row, copy)
    if other:  # the id is taken by another game: this one gets a new id
        row, held = None, None
    merged = merge(held or {}, copy.events, functools.partial(_first_bad, copy.header))
    row_whole = row is not None and not row.damage
    db_whole = row_whole and held is not None and not merged.db_lacks
    copy_whole = not merged.copy_lacks and not copy.bad_lines and not other
    reopened = False
    if db_whole and copy_whole:
        tally.intact += 1
        return None
    if row is not None and row.status == DAMAGED and row_whole and not merged.holes and merged.db_lacks:
        reopened = True  # marked damaged for want of what the copy holds: whole again
    if db_whole:  # only the copy lacks something: it is written again from the database
        if not same:
            tally.intact += 1
            return None
        kept = _write_back(store, copy, merged)
        tally.copies += 1
        if merged.copy_lacks:
            bad = f" ({_unreadable(copy)}{kept})" if copy.bad_lines else ""
            return (
                f"game {copy.id}: its copy {path} lacked {events_phrase(merged.copy_lacks)}{bad}: "
                "written again from the database"
            )
        if copy.torn and copy.bad_lines == 1:
            return f"game {copy.id}: its copy {path} ended in a line cut short (an event never processed): cut off"
        return f"game {copy.id}: its copy {path} held {_unreadable(copy)}{kept}: written again from the database"
    # the database lacks the game, or events of it: rebuilt from both copies
    new_id = _restore_row(store, copy, row, reopen=reopened)
    if new_id != copy.id:
        tally.ids[copy.id] = new_id
    store.replace_journal(new_id, merged.every())
    if not same or new_id != copy.id:
        _write_copy(store, new_id, copy, merged)
        kept = ""
    elif merged.copy_lacks or copy.bad_lines:
        kept = _write_back(store, copy, merged)
    else:
        kept = ""
    where = f" as game {new_id}" if new_id != copy.id else ""
    if other:
        what = f"game {copy.id} in the database is another game"
    elif row is None:
        what = "missing from the database"
    elif held is None:
        what = "its journal in the database unreadable"
    else:
        damaged = "" if row_whole else "its row damaged, "
        what = f"{damaged}the database held {events_phrase(merged.db)}"
        if merged.db_lacks != set(merged.events):
            what += f"; {events_phrase(merged.db_lacks)} taken from the copy"
    if merged.copy_lacks and row is not None and same:
        what += f"; the copy held {events_phrase(merged.copy)}: written again"
    extra = ""
    if copy.bad_lines:
        extra += f" ({_unreadable(copy)} skipped{kept})"
    if copy.bad_fields:
        extra += f" ({path.with_suffix('.json')}: {'; '.join(copy.bad_fields)}: left out)"
    kept_db = sorted(set(merged.differ) - merged.from_copy)
    if kept_db:
        extra += f" ({events_phrase(kept_db)} differed between the two: the database's kept)"
    if merged.holes:
        replay_check(store, new_id, partial=True)
        store.abandon(new_id, DAMAGED)
        after = len(merged.events) - merged.whole
        tally.failed += 1
        return (
            f"game {copy.id}{where}: {events_phrase(merged.holes)} in neither the database nor its copy {path}: "
            f"kept as damaged, replayable up to event {merged.whole - 1} ({merged.whole} events; "
            f"the {after} after the gap kept too) ({what}){extra}"
        )
    problem = replay_check(store, new_id)
    if problem is not None:
        store.abandon(new_id, DAMAGED)
        tally.failed += 1
        return f"{problem}: kept as damaged"
    tally.rebuilt += 1
    return f"game {copy.id}: rebuilt{where} with {len(merged.events)} events from {path} ({what}){extra}"


def _unreadable(copy: CopiedGame) -> str:
    return f"{copy.bad_lines} unreadable line{'s' if copy.bad_lines != 1 else ''}"


def _first_bad(header: dict[str, Any], events: dict[int, dict[str, Any]]) -> int | None:
    """The seq of the first event the log reader refuses (not an event, time going back...)."""
    seqs = sorted(events)
    lines = [json.dumps(header)] + [json.dumps(events[s]) for s in seqs]
    try:
        parse_log(lines, "journal")
    except LogError as exc:
        return seqs[exc.line - 2] if 2 <= exc.line <= len(seqs) + 1 else None
    except (ValueError, TypeError, RecursionError):
        return None
    return None


def _restore_row(store: Store, copy: CopiedGame, row: GameRow | None, *, reopen: bool) -> int:
    """The game's row: the database's when it is readable and this game's, else its record's."""
    if row is not None and not row.damage:
        if reopen:
            store.reopen(row.id)
        return row.id
    record = dict(copy.record)
    if row is None and _taken(store, copy.id):
        record["id"] = None
    if record.get("status") == DAMAGED:  # marked so for want of this copy: it is whole again
        record["status"] = record["ended"] = None
    return store.restore_game(record)


def _taken(store: Store, game_id: int) -> bool:
    try:
        store.game(game_id)
    except StoreError:
        return False
    return True


def _write_back(store: Store, copy: CopiedGame, merged: Merged) -> str:
    """The store's own copy written again with every event of both copies; a copy that had
    unreadable lines (other than a last line cut short) is kept aside first. Returns a note."""
    note = ""
    if copy.bad_lines > (1 if copy.torn else 0):
        aside = copy.path.with_name(f"{copy.id}.{int(time.time())}.unreadable.jsonl")
        copy.path.rename(aside)
        note = f"; the copy as it was kept as {aside.name}"
    header = {**copy.header, "game": copy.id, "tags": copy.record.get("tags") or {}}
    store.write_copy(copy.id, header, merged.every())
    return note


def _copy_from_db(store: Store, game_id: int, why: str) -> str | None:
    """The store's own copy of a game the database holds whole (a readable row, a journal
    without a gap), written again from it; the file that was there is kept aside. ``None``
    when the database cannot give it."""
    try:
        row = store.game(game_id)
    except StoreError:
        return None
    held = db_events(store, game_id)
    if row.damage or held is None or prefix(held) != len(held) or len(held) != store.journal_length(game_id):
        return None
    path = store.copy_path(game_id)
    note = ""
    if path.exists():
        aside = path.with_name(f"{game_id}.{int(time.time())}.unreadable.jsonl")
        path.rename(aside)
        note = f" (kept aside as {aside.name})"
    store.write_copy(game_id, {**row.header, "game": game_id, "tags": row.tags}, sorted(held.items()))
    store.save_record(game_id)
    return f"game {game_id}: its copy {path} {why}{note}: written again from the database"


def _write_copy(store: Store, game_id: int, copy: CopiedGame, merged: Merged) -> None:
    """The target database's own copy of a rebuilt game (written whole, then renamed)."""
    header = {**copy.header, "game": game_id, "tags": copy.record.get("tags") or {}}
    store.write_copy(game_id, header, merged.every())
    store.save_record(game_id)


def lost_events(store: Store) -> list[str]:
    """One line per game whose two copies disagree: the database lacks what its journal copy
    holds (e.g. when its ``-wal`` file was deleted or cut short), the copy lacks what the
    database holds, or an event is in neither."""
    out = []
    for path in copies(store.journals):
        if _finished_and_whole(store, path):
            continue
        copy = read_copy(path)
        if copy is None:
            continue
        try:
            store.game(copy.id)
        except StoreError:
            out.append(f"game {copy.id} is missing from the database but its journal copy {path} holds it")
            continue
        held = db_events(store, copy.id)
        if held is None:
            out.append(f"game {copy.id}: its journal in the database is damaged; the copy {path} holds it")
            continue
        merged = merge(held, copy.events, functools.partial(_first_bad, copy.header))
        if merged.holes:
            out.append(f"game {copy.id}: {events_phrase(merged.holes)} in neither the database nor its copy {path}")
        elif merged.db_lacks:
            out.append(
                f"game {copy.id}: {events_phrase(merged.db_lacks)} missing or damaged in the database; "
                f"its copy {path} holds {'them' if len(merged.db_lacks) > 1 else 'it'}"
            )
        elif merged.copy_lacks:
            out.append(f"game {copy.id}: its copy {path} lacks {events_phrase(merged.copy_lacks)}")
    return out
