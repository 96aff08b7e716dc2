"""Issue 33: damaged records, fuzzed. Each case damages a built database's files — the
records (``ID.json``), the journal copies (``ID.jsonl``), the database's header, pages or rows,
alone or together — and then does what ``damas play`` does before it serves. The rules:

* never a failed start (no exception, ever), and never a second one: the start after it has
  nothing new to mend;
* never a game silently shortened: a game has all its moves again, or it is marked damaged and
  a line of the start names it;
* when only one kind of file is damaged (the database, or the copies), no game loses a move;
* ``damas games`` never gives a traceback.

A damaged copy whose database is lost too can only be checked where the damage shows (a line
cut, a line garbled, a line missing in the middle): a copy that lost its last lines with the
database gone is a shorter game that no file contradicts. Seeded: a failure names its seed.
"""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from damas.records.store import Store, journals_dir
from tests.store.test_damage import build, open_for_play, run

GAMES = (1, 2, 3)
Damage = Callable[[random.Random, Path], str]


# -- the records beside the database (<id>.json) ------------------------------------------------
RECORD_VALUES: dict[str, list[object]] = {
    "variant": ["international", "chess", 5, None, "", "Brazilian"],
    "fen": ["W:W31-50:B1-20", "W:W21-32:B1-12:K", 7, "x" * 70000, "B:W21:B1"],
    "mode": ["blitz", 1, None, "tournament"],
    "started": [1e300, -5, "yesterday", True, 1e308, 0],
    "ended": [1e300, "x", -1.5, 0],
    "result": ['<img src=x onerror="alert(1)">', "3-0", 42, "2-0", "1-0", "*" * 30],
    "termination": ["<b>x</b>", 5, "resignation", "y" * 500],
    "status": ["lost", 3, "damaged", "abandoned"],
    "tags": [[1, 2], {"White": 5}, {"white": "lower"}, {"Event": "x" * 100000}, {"Round": "<script>"}],
    "result_locked": ["yes", 1, True],
    "id": [99, "1", None],
    "header": ["x", {"variant": "international"}],
}


def damage_record(rng: random.Random, db: Path) -> str:
    game = rng.choice(GAMES)
    path = journals_dir(db) / f"{game}.json"
    how = rng.randrange(4)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))  # (as an earlier damage of this case left it)
    except (OSError, ValueError):
        return f"{game}.json as it was"
    if how == 0:
        path.unlink()
        return f"{game}.json removed"
    if how == 1:
        data = path.read_bytes()
        path.write_bytes(data[: rng.randrange(len(data))])
        return f"{game}.json cut short"
    keys = rng.sample(sorted(RECORD_VALUES), rng.randint(1, 3))
    for key in keys:
        record[key] = rng.choice(RECORD_VALUES[key])
    path.write_text(json.dumps(record), encoding="utf-8")
    return f"{game}.json: {', '.join(keys)}"


# -- the journal copies (<id>.jsonl) --------------------------------------------------------------
def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines()


def _write(path: Path, lines: list[bytes], end: bytes = b"\n") -> None:
    path.write_bytes(b"\n".join(lines) + end)


def garble(line: bytes, rng: random.Random) -> bytes:
    """A byte made '#': never a plausible other event (a number, a name, a key is broken)."""
    i = rng.randrange(len(line))
    return line[:i] + b"#" + line[i + 1 :]


def damage_copy(rng: random.Random, db: Path, *, shows: bool = False) -> str:
    """One copy damaged. ``shows``: only damage a reader can see when the copy is all there is
    (a missing or garbled line inside the log, a duplicated or moved line, a torn last line)."""
    game = rng.choice(GAMES)
    path = journals_dir(db) / f"{game}.jsonl"
    if not path.is_file() or len(lines := _lines(path)) < 2:
        return f"{game}.jsonl as it was"
    kinds = ["drop", "garble", "duplicate", "swap", "torn", "junk"]
    if not shows:
        kinds += ["remove", "empty", "cut", "header", "bytes"]
    kind = rng.choice(kinds)
    inner = range(2, len(lines) - 1)  # an event line with one after it
    if kind == "drop" and len(inner):
        del lines[rng.choice(inner)]
        _write(path, lines)
    elif kind == "garble" and len(inner):
        i = rng.choice(inner)
        lines[i] = garble(lines[i], rng)
        _write(path, lines)
    elif kind == "duplicate":
        i = rng.randrange(1, len(lines))
        lines.insert(i, lines[i])
        _write(path, lines)
    elif kind == "swap" and len(lines) > 2:
        i, j = rng.sample(range(1, len(lines)), 2)
        lines[i], lines[j] = lines[j], lines[i]
        _write(path, lines)
    elif kind == "torn":
        tail = lines[-1]
        _write(path, [*lines, tail[: rng.randrange(1, len(tail))]], end=b"")
    elif kind == "junk":
        lines.insert(rng.randrange(1, len(lines) + 1), rng.choice([b"[1, 2]", b"{}", b"\xff\xfe", b"null", b'{"t": ']))
        _write(path, lines)
    elif kind == "remove":
        path.unlink()
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "cut":
        data = path.read_bytes()
        path.write_bytes(data[: rng.randrange(len(data))])
    elif kind == "header":
        lines[0] = garble(lines[0], rng)
        _write(path, lines)
    elif kind == "bytes":
        flipped = bytearray(path.read_bytes())
        for _ in range(rng.randint(1, 8)):
            flipped[rng.randrange(len(flipped))] = rng.randrange(256)
        path.write_bytes(bytes(flipped))
    else:
        return f"{game}.jsonl as it was"
    return f"{game}.jsonl: {kind}"


# -- the database --------------------------------------------------------------------------------
def damage_db(rng: random.Random, db: Path) -> str:
    kind = rng.choice(["zero-header", "header-bytes", "page", "lost", "rows", "wal"])
    if kind == "lost":
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        return "database lost"
    if kind == "wal":
        Path(f"{db}-wal").unlink(missing_ok=True)
        return "its -wal lost"
    if kind == "rows":
        game = rng.choice(GAMES)
        statement = rng.choice(
            [
                f"DELETE FROM journal WHERE game_id={game} AND seq=(SELECT MAX(seq) FROM journal WHERE game_id={game})",
                f"DELETE FROM journal WHERE game_id={game} AND seq=1",
                f"UPDATE journal SET event='{{\"t\": 1' WHERE game_id={game} AND seq=2",
                f"DELETE FROM games WHERE id={game}",
                f"UPDATE games SET header='[' WHERE id={game}",
                f"UPDATE games SET fen='W:W31-50:B1-20' WHERE id={game}",
                f"UPDATE games SET variant='international' WHERE id={game}",
                f"UPDATE games SET started=1e300, result='<i>' WHERE id={game}",
            ]
        )
        con = sqlite3.connect(db)
        try:
            con.execute(statement)
            con.commit()
        finally:
            con.close()
        return f"row: {statement}"
    with contextlib.suppress(FileNotFoundError):  # the -wal holds the pages: fold it in first
        con = sqlite3.connect(db)
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
    data = bytearray(db.read_bytes())
    if kind == "zero-header":
        n = rng.choice([16, 100, 4096])
        data[:n] = bytes(n)
    elif kind == "header-bytes":
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(100)] = rng.randrange(256)
    else:
        page = rng.randrange(1, max(2, len(data) // 4096))
        data[page * 4096 : (page + 1) * 4096] = rng.randbytes(4096)
    db.write_bytes(bytes(data))
    return kind


# -- the rules -----------------------------------------------------------------------------------
def moves_of(db: Path) -> dict[int, int]:
    with Store(db) as store:
        return {g: len(store.moves(g)) for g in GAMES}


def state_of(db: Path, game: int) -> str | None:
    with Store(db) as store:
        try:
            return store.game(game).state
        except Exception:
            return None


def one_case(base: Path, work: Path, seed: int) -> None:
    rng = random.Random(seed)
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(base, work)
    db = work / "g.sqlite3"
    side = rng.choice(["records", "copies", "database", "database+copies"])
    done = []
    if side in ("records", "copies"):
        for _ in range(rng.randint(1, 3)):
            done.append(damage_record(rng, db) if side == "records" or rng.random() < 0.3 else damage_copy(rng, db))
    elif side == "database":
        done.append(damage_db(rng, db))
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{db}{suffix}").unlink(missing_ok=True)
        done.append("database lost")
        done.append(damage_copy(rng, db, shows=True))
    label = f"seed {seed} ({side}: {'; '.join(done)})"
    _code, _out, err = run("games", "--db", str(db))
    assert "Traceback" not in err and err.count("\n") <= 1, (label, err)
    try:
        lines, _game = open_for_play(db)
    except Exception as exc:  # the rule: never a failed start
        raise AssertionError(f"{label}: the start failed: {type(exc).__name__}: {exc}") from exc
    said = "\n".join(lines)
    after = moves_of(db)
    for game in GAMES:
        if after[game] >= EXPECTED[game]:
            continue
        # one kind of file damaged: the other holds every event
        lost = f"{label}: game {game} has {after[game]} of its {EXPECTED[game]} moves:\n{said}"
        assert side == "database+copies", lost
        assert state_of(db, game) == "damaged" and f"game {game}" in said, (
            f"{label}: game {game} silently shortened to {after[game]} of {EXPECTED[game]} moves:\n{said}"
        )
    again, _game = open_for_play(db)
    assert not any("rebuilt with" in line or "written again" in line for line in again), (label, again)
    _code, _out, err = run("games", "--db", str(db))
    assert "Traceback" not in err and err.count("\n") <= 1, (label, err)


EXPECTED: dict[int, int] = {}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("records")
    build(root / "g.sqlite3")
    EXPECTED.update(moves_of(root / "g.sqlite3"))
    assert EXPECTED == {1: 3, 2: 1, 3: 4}
    return root


SMALL = [pytest.param(range(40), id="small")]
LARGE = [pytest.param(range(n, n + 40), id=f"large-{n}", marks=pytest.mark.slow) for n in range(40, 840, 40)]


@pytest.mark.parametrize("seeds", SMALL + LARGE)
def test_damaged_records_never_fail_a_start_nor_shorten_a_game_silently(
    base: Path, tmp_path: Path, seeds: range
) -> None:
    for seed in seeds:
        one_case(base, tmp_path / "case", seed)
