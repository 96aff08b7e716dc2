"""The studies and game analyses the records keep, rebuilt from their copies (``damas recover``).

Beside the games' copies, ``<db>.journals/studies/<id>.json`` holds each kept study (its row:
variant, title, moves, tree, open, created, updated) and ``<db>.journals/analyses/<game id>.json``
each finished game's analysis (``{"game": id, "data": ..., "created": t}``), rewritten
atomically whenever the database's row changes (``Store.save_study``, ``Store.save_analysis``);
a deleted study's copy goes with it. Every file is read as untrusted input: one that cannot be
what it claims is named in one line and left as it is, and the others are read.

A study the database lacks, or holds older (a lost ``-wal`` file) or damaged, is put back from
its copy; an analysis the database lacks is put back when its game is there with the same moves
(a game rebuilt under another id takes its analysis along). The copies the database's rows lack
(written before the copies were, or removed) are written again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from damas.records.store import ANALYSES_DIR, STUDIES_DIR, Store, StoreError, a_time
from rules.errors import shown

MAX_KEPT = 16 << 20  # bytes of one study's or analysis' copy (a 5,000-move study is ~1 MB)


@dataclass
class KeptTally:
    studies: int = 0  # rebuilt into the database
    analyses: int = 0
    copies: int = 0  # copies written again from the database
    failed: int = 0


def _read(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_KEPT + 1)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if len(data) > MAX_KEPT:
        return None, f"is larger than {MAX_KEPT >> 20} MB"
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, "is not JSON"
    if not isinstance(obj, dict):
        return None, "is not a JSON object"
    return obj, None


def copy_holds(store: Store, study_id: int, variant: str, tree: Any) -> bool:
    """Whether the study's copy beside the database holds this very tree of this variant: the row
    and its copy were then written together from a study (``Store.save_study``), or the row was put
    back from the copy after it was read as a study (``damas recover``, every start), so the
    start of ``damas play`` need not read it as a study again (it is read when opened)."""
    record, _problem = _read(store.kept_path(STUDIES_DIR, study_id))
    return record is not None and record.get("variant") == variant and record.get("tree") == tree


def _ids(folder: Path) -> list[tuple[int, Path]]:
    try:
        found = [p for p in folder.iterdir() if p.suffix == ".json" and p.stem.isascii() and p.stem.isdigit()]
    except OSError:
        return []
    return sorted(((int(p.stem), p) for p in found if 1 <= int(p.stem) < 2**63), key=lambda x: x[0])


def _shape_problem(record: dict[str, Any], study_id: int) -> str | None:
    """What makes a study's copy not one by its fields (None: they are a study's)."""
    if record.get("id") != study_id:
        return f"names study {shown(record.get('id'), 40)}, not {study_id}"
    for key, kind in (("variant", str), ("title", str), ("moves", int), ("open", bool)):
        if not isinstance(record.get(key), kind) or (kind is int and isinstance(record.get(key), bool)):
            return f"its {key} {shown(record.get(key), 40)} is not what a study has"
    if not all(a_time(record.get(k)) for k in ("created", "updated")):
        return "its times are not times"
    return None


def _basic_tree(tree: Any, variant: str) -> str | None:
    return None if isinstance(tree, dict) else "its tree is not a JSON object"


def _basic_analysis(game_id: int, data: Any) -> bool:
    if not isinstance(data, dict) or data.get("format") != 1 or not isinstance(data.get("moves"), list):
        return False
    curve = data.get("curve")
    return isinstance(curve, list) and len(curve) == len(data["moves"]) + 1


@dataclass(frozen=True)
class KeptChecks:
    """How a copy is read as what it claims (the records know no study nor analysis: the app
    gives ``damas.board.studies.KEPT_CHECKS``): ``tree`` names what makes a study's tree of
    ``variant`` not one (None: it is one); ``analysis`` says whether data is a game's analysis."""

    tree: Callable[[Any, str], str | None] = _basic_tree
    analysis: Callable[[int, Any], bool] = _basic_analysis


def _study_problem(record: dict[str, Any], study_id: int, checks: KeptChecks) -> str | None:
    """What makes a study's copy not one (None: it is one, its tree readable as a study)."""
    problem = _shape_problem(record, study_id)
    if problem is not None:
        return problem
    return checks.tree(record.get("tree"), record["variant"])


def _recover_studies(
    store: Store, source: Path, same: bool, deep: bool, checks: KeptChecks, tally: KeptTally
) -> list[str]:
    """``deep`` (``damas recover``): each study the database holds is read as a study (a tree
    that is JSON but no study is damaged too). Else (every start of ``damas play``, which reads
    them all next and names a damaged one) a row is read as a study only when it differs from its
    copy: a row as its copy is (every change writes both) is healed by nothing the copy holds, and
    reading every study twice would double the start's cost on a large set."""
    lines = []
    folder = source / STUDIES_DIR
    have = set()
    for study_id, path in _ids(folder):
        have.add(study_id)
        record, problem = _read(path)
        if record is not None:
            problem = _shape_problem(record, study_id)
        held = store.study_record(study_id) if record is not None and problem is None else None
        same_study = held is not None and record is not None and abs(held["created"] - record["created"]) < 1e-3
        check = deep or held != record  # (see above: a row as its copy is needs no reading here)
        damaged = held is None or held["tree"] is None or (check and _study_problem(held, study_id, checks) is not None)
        newer = held is not None and record is not None and float(held["updated"]) >= float(record["updated"])
        if same_study and not damaged and newer:
            continue  # the database holds it whole, as new as the copy or newer
        if record is not None and problem is None:
            problem = _study_problem(record, study_id, checks)  # (read as a study only when it is to be put back)
        if record is None or problem is not None:
            tally.failed += 1
            lines.append(f"{path}: {problem}: skipped, left as it is")
            continue
        if same_study:
            why = "damaged in the database" if damaged else "older in the database"
            store.restore_study(record)
            tally.studies += 1
            lines.append(f"study {study_id}: rebuilt from {path} ({why}; {record['moves']} moves)")
            continue
        other = held is not None  # the id is another study's here (copies of another database)
        if not same and _already(store, record):
            continue
        new_id = store.restore_study(record, new_id=other)
        tally.studies += 1
        where = f" as study {new_id}" if new_id != study_id else ""
        why = f"study {study_id} in the database is another study" if other else "missing from the database"
        lines.append(f"study {study_id}: rebuilt{where} from {path} ({why}; {record['moves']} moves)")
    if same:
        for row in _rows(store):
            held = None if row in have else store.study_record(row)
            if held is not None and held["tree"] is not None and _study_problem(held, row, checks) is None:
                store.save_study_copy(row)  # (a damaged row is no copy: it is named where it is read)
                if store.kept_path(STUDIES_DIR, row).exists():
                    tally.copies += 1
                    lines.append(f"study {row}: its copy was missing: written again from the database")
    return lines


def _rows(store: Store) -> list[int]:
    try:
        return [r.id for r in store.studies()]
    except StoreError:
        return []


def _already(store: Store, record: dict[str, Any]) -> bool:
    """The database holds this study under another id (a recovery from other copies run twice)."""
    try:
        rows = store.studies()
    except StoreError:
        return False
    return any(abs(r.created - float(record["created"])) < 1e-3 and r.title == record["title"] for r in rows)


def _recover_analyses(
    store: Store, source: Path, same: bool, ids: dict[int, int], checks: KeptChecks, tally: KeptTally
) -> list[str]:
    lines = []
    have = set()
    for game_id, path in _ids(source / ANALYSES_DIR):
        have.add(game_id)
        record, problem = _read(path)
        data = None if record is None else record.get("data")
        if record is not None and (record.get("game") != game_id or not a_time(record.get("created"))):
            problem = f"names game {shown(record.get('game'), 40)}, not {game_id}, or has no time"
        elif record is not None and not checks.analysis(game_id, data):
            problem = "is not a game's analysis"
        if record is None or problem is not None or not isinstance(data, dict):
            tally.failed += 1
            lines.append(f"{path}: {problem}: skipped, left as it is")
            continue
        target = ids.get(game_id, game_id)
        try:
            if store.analysis(target) is not None:
                continue
            moves = [pdn for _ply, pdn in store.moves(target)]
        except StoreError:
            continue
        if moves != data["moves"]:
            tally.failed += 1
            lines.append(f"{path}: not the analysis of game {target}'s moves (or the game is gone): skipped")
            continue
        store.restore_analysis(target, data, float(record["created"]))
        tally.analyses += 1
        where = f" (game {game_id} of the copies)" if target != game_id else ""
        lines.append(f"game {target}: its analysis rebuilt from {path}{where}")
    if same:
        try:
            rows = store.analysis_ids()
        except StoreError:
            rows = []
        for game_id in rows:
            if game_id not in have and store.save_analysis_copy(game_id):
                tally.copies += 1
                lines.append(f"game {game_id}: its analysis' copy was missing: written again from the database")
    return lines


def recover_kept(
    store: Store,
    source: Path,
    same: bool,
    ids: dict[int, int],
    *,
    deep: bool = True,
    checks: KeptChecks | None = None,
) -> tuple[list[str], KeptTally]:
    """The studies and analyses of ``source`` the database lacks (``ids``: the games rebuilt under
    another id), and, from the store's own copies (``same``), the copies the rows lack. One line
    each, and what was done. ``deep``: see :func:`_recover_studies`."""
    tally = KeptTally()
    checks = checks or KeptChecks()
    lines = _recover_studies(store, source, same, deep, checks, tally)
    lines += _recover_analyses(store, source, same, ids, checks, tally)
    return lines, tally
