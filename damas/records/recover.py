"""Rebuild games from the journal copies kept beside a database (``<db>.journals/``).

Each game has ``<id>.jsonl`` (its event log: the header line first, then one event per
line with its journal ``seq``, appended and fsynced with every event) and ``<id>.json``
(its record: tags, result, status; rewritten atomically when they change). A game whose
database rows are missing, shorter than the copy, or unreadable is rebuilt from them.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from damas.records.store import DAMAGED, GameRow, Store, StoreError
from referee.vocabulary import DEFAULT_MODE, MODES, known
from rules import DraughtsError, find_variant
from rules.errors import shown

_HEADER_ONLY = ("game", "tags")  # header fields the copy adds to the public log header


@dataclass
class CopiedGame:
    path: Path
    id: int
    header: dict[str, Any]
    record: dict[str, Any]
    events: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    bad_lines: int = 0
    #: the fields of its record (``<id>.json``) that were left out, and why
    bad_fields: list[str] = field(default_factory=list)


def read_copy(path: Path) -> CopiedGame | None:
    """One game's copy; ``None`` when not even its header line can be read."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    header: dict[str, Any] | None = None
    events: dict[int, dict[str, Any]] = {}
    bad = 0
    for raw in data.splitlines():
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            bad += 1  # e.g. a line the power cut short
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
        if not isinstance(seq, int) or isinstance(seq, bool):
            seq = (max(events) + 1) if events else 0
        events.setdefault(seq, obj)  # a retried write leaves the same event twice: once is kept
    if header is None:
        return None
    game_id = header.get("game")
    if not isinstance(game_id, int):
        stem = path.stem
        if not stem.isdigit():
            return None
        game_id = int(stem)
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
    bad_fields = _repair(record, header)
    return CopiedGame(path, game_id, public, record, sorted(events.items()), bad, bad_fields)


def _repair(record: dict[str, Any], header: dict[str, Any]) -> list[str]:
    """Leave out the fields of a record (``<id>.json``) that cannot be what they claim (a hand
    edit, another program): each is taken from the log's header instead, or left unknown.
    Returns what was left out, to be said on the copy's line."""
    notes: list[str] = []

    def replace(key: str, why: str, instead: Any) -> None:
        notes.append(f"{key} {shown(record[key], 40)} {why}")
        record[key] = instead

    try:
        find_variant(record["variant"])
    except DraughtsError:
        replace("variant", "is not a variant", header.get("variant") or "brazilian")
    if known(record.get("mode"), MODES) is None:
        replace("mode", f"is not a mode ({' or '.join(MODES)})", known(header.get("mode"), MODES) or DEFAULT_MODE)
    for key in ("started", "ended"):
        value = record.get(key)
        if value is not None and (
            not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
        ):
            replace(key, "is not a time", None)
    for key in ("fen", "result", "termination", "status"):
        value = record.get(key)
        if value is not None and not isinstance(value, str):
            replace(key, "is not text", header.get(key) if key == "fen" else None)
    return notes


def _read_record(path: Path, game_id: int) -> dict[str, Any] | None:
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(obj, dict) or obj.get("id") != game_id or not isinstance(obj.get("variant"), str):
        return None
    if not isinstance(obj.get("tags"), dict):
        return None
    return obj


def copies(source: Path) -> list[Path]:
    try:
        names = [p for p in source.iterdir() if p.suffix == ".jsonl" and p.stem.isdigit()]
    except OSError:
        return []
    return sorted(names, key=lambda p: int(p.stem))


def _db_state(store: Store, copy: CopiedGame, deep: bool = True) -> tuple[GameRow | None, int | None]:
    """The game's row in the database (``None``: missing) and how many of its journal events
    can be replayed (``None``: the journal is damaged). Not ``deep``: finished games are only
    counted (a start-up with many games must stay quick)."""
    from damas.records.session import load_log

    try:
        row = store.game(copy.id)
    except StoreError:
        return None, None
    if row.status == DAMAGED or row.damage:
        return row, None
    if not deep and row.ended is not None:
        try:
            return row, store.journal_length(copy.id)
        except StoreError:
            return row, None
    try:
        _header, events, _problem = load_log(store, row)
    except StoreError:  # damaged rows, or a journal that cannot be replayed
        return row, None
    return row, len(events)


def _finished_and_whole(store: Store, path: Path) -> bool:
    """Quick (no parsing): a finished game whose database journal has as many events as its copy has lines."""
    try:
        row = store.game(int(path.stem))
        if row.ended is None or row.damage or row.status == DAMAGED:
            return False
        return store.journal_length(row.id) >= path.read_bytes().count(b"\n") - 1
    except (OSError, StoreError, ValueError):
        return False


def _same_game(row: GameRow, copy: CopiedGame) -> bool:
    started = copy.record.get("started")
    return row.variant == copy.record["variant"] and (started is None or abs(row.started - float(started)) < 1e-3)


def recover(store: Store, source: Path | None = None, *, lost_only: bool = False) -> list[str]:
    """Rebuild into ``store`` every game of ``source`` (default: the store's own copies)
    that the database lacks or holds damaged or shorter. One line per game rebuilt or not
    recoverable, and a summary line last (unless ``lost_only`` and nothing was lost)."""
    from damas.records.session import DamagedGame, GameSession

    source = source or store.journals
    same = source.resolve() == store.journals.resolve() if store.journals.exists() else False
    lines: list[str] = []
    rebuilt = intact = failed = 0
    paths = copies(source)
    for path in paths:
        if lost_only and _finished_and_whole(store, path):
            intact += 1
            continue
        copy = read_copy(path)
        if copy is None:
            lines.append(f"{path}: not a journal copy (its header cannot be read): skipped")
            failed += 1
            continue
        row, known = _db_state(store, copy, deep=not lost_only)
        if row is not None and known is not None and known >= len(copy.events) and not row.damage:
            intact += 1
            continue
        record = dict(copy.record)
        if row is not None and not _same_game(row, copy) and known is not None:
            record["id"] = None  # the id is taken by another game: this one gets a new id
        if record.get("status") == DAMAGED:  # marked so for want of this copy: it is whole again
            record["status"] = record["ended"] = None
        try:
            new_id = store.restore_game(record)
            store.replace_journal(new_id, copy.events)
            if not same or new_id != copy.id:
                _write_copy(store, new_id, copy)
            try:
                GameSession.resume(store, store.game(new_id))
            except DamagedGame as exc:
                store.abandon(new_id, DAMAGED)
                lines.append(f"{exc}: kept as damaged")
                failed += 1
                continue
        except StoreError as exc:
            lines.append(f"game {copy.id}: cannot be rebuilt: {exc}")
            failed += 1
            continue
        rebuilt += 1
        what = "missing from the database" if row is None else f"{known or 0} in the database"
        where = f" as game {new_id}" if new_id != copy.id else ""
        extra = f" ({copy.bad_lines} unreadable lines skipped)" if copy.bad_lines else ""
        if copy.bad_fields:
            extra += f" ({path.with_suffix('.json')}: {'; '.join(copy.bad_fields)}: left out)"
        lines.append(f"game {copy.id}: rebuilt{where} with {len(copy.events)} events from {path} ({what}){extra}")
    if not lost_only or rebuilt or failed:
        lines.append(
            f"{rebuilt} game{'s' if rebuilt != 1 else ''} rebuilt, {intact} intact, {failed} not recoverable "
            f"(from {len(paths)} journal copies in {source})"
        )
    return lines


def _write_copy(store: Store, game_id: int, copy: CopiedGame) -> None:
    """The target database's own copy of a rebuilt game (written whole, then renamed)."""
    store.journals.mkdir(parents=True, exist_ok=True)
    final = store.copy_path(game_id)
    tmp = final.with_suffix(".jsonl.tmp")
    header = {**copy.header, "game": game_id, "tags": copy.record.get("tags") or {}}
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for seq, ev in copy.events:
            f.write(json.dumps({**ev, "seq": seq}) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)
    store.save_record(game_id)


def lost_events(store: Store) -> list[str]:
    """One line per game whose journal copy holds events (or the game itself) that the
    database has lost, e.g. when its ``-wal`` file was deleted or cut short."""
    out = []
    for path in copies(store.journals):
        try:
            lines = path.read_bytes().count(b"\n") - 1
            if store.journal_length(int(path.stem)) >= lines:
                continue  # the database holds at least as many events: nothing lost
        except (OSError, StoreError):
            pass
        copy = read_copy(path)
        if copy is None:
            continue
        row, known = _db_state(store, copy)
        if row is None:
            out.append(f"game {copy.id} is missing from the database but its journal copy {path} holds it")
        elif known is None:
            out.append(f"game {copy.id}: its journal in the database is damaged; the copy {path} holds it")
        elif known < len(copy.events):
            out.append(
                f"game {copy.id}: the database holds {known} of the {len(copy.events)} events of its copy {path}"
            )
    return out
