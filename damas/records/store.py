"""The game store: one SQLite file (standard-library ``sqlite3``), and beside it a second,
append-only copy of every game's journal.

Every game keeps its raw event journal (the public event-log format, DESIGN.md §4),
its tags and result, and the moves and reports as they happened. The journal is the
source of truth and is committed (``synchronous=FULL``) *before* an event is processed,
so killing the process or pulling the power at any moment loses no move that was shown
as made: replaying the journal rebuilds exactly the same game.

The copy: ``<db>.journals/<id>.jsonl`` holds the game's log (header line first, then one
event per line with its journal ``seq``), each event's line appended and fsynced *before*
its database row, so that a power cut between the two leaves no acknowledged event out of
either (``damas.records.journal``); ``<id>.json`` holds the game's record (tags, result,
status), rewritten atomically when it changes. ``damas recover`` (and every start of
``damas play``) rebuilds from them what the database lost, and the copy from the database
what it lacks, so no single damaged file loses a game.

``damas play`` holds an exclusive lock on the database file itself (``flock`` on its inode,
which the kernel releases when the process dies, even by SIGKILL), so that two programs never
play into one database, whatever name (a symbolic or a hard link) each was given.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from referee.log import UID_FORMAT
from referee.vocabulary import DEFAULT_MODE, MODES, Mode, known
from rules import DraughtsError, Position, find_variant, parse_result
from rules.errors import shown

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock
    fcntl = None  # type: ignore[assignment]

#: 2: the ``purpose`` column (sessions that are not games) and the ``studies`` and ``analyses``
#: tables; a damas of schema 1 refuses the file in one line instead of listing sessions as games
SCHEMA_VERSION = 2
# what a damaged file can make sqlite3 raise (its error text itself may not be UTF-8)
_BROKEN = (sqlite3.Error, ValueError, OverflowError)
ENV_DB = "DAMAS_DB"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    fen TEXT,
    mode TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '{}',
    result TEXT NOT NULL DEFAULT '*',
    termination TEXT,
    result_locked INTEGER NOT NULL DEFAULT 0,
    started REAL NOT NULL,
    ended REAL,
    header TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS journal (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS moves (
    game_id INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    pdn TEXT NOT NULL,
    from_sq INTEGER NOT NULL,
    to_sq INTEGER NOT NULL,
    captured TEXT NOT NULL,
    t REAL NOT NULL,
    PRIMARY KEY (game_id, ply)
);
CREATE TABLE IF NOT EXISTS reports (
    game_id INTEGER NOT NULL REFERENCES games(id),
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    squares TEXT NOT NULL,
    message TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS analyses (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    data TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS studies (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    moves INTEGER NOT NULL DEFAULT 0,
    tree TEXT NOT NULL,
    open INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
"""

# how a game ended besides by a result: set when it happens (NULL: in play, or finished)
ABANDONED = "abandoned"  # a new game was started while it was in play
INTERRUPTED = "interrupted"  # the program stopped and the next start did not resume it
DAMAGED = "damaged"  # its records cannot be replayed: kept, never resumed
CLOSED = "closed"  # a session the player ended (an analysis on the board left): kept whole
STATUSES = (ABANDONED, INTERRUPTED, DAMAGED, CLOSED)

# what a row is for besides a game (NULL: a game): a session the page started on the board,
# kept whole like a game but left out of the lists of games, the export and the resume at start
TRAINING = "training"  # a game replayed or a tactic (damas.study.training)
ANALYSIS = "analysis"  # a study's position tried on the board ("Try on the board")
PURPOSES = (TRAINING, ANALYSIS)
# the Event tags the page gave these sessions before the column existed (a database migrated)
_SESSION_EVENTS = (("Training: ", TRAINING), ("Analysis: ", ANALYSIS))
_A_GAME = "(purpose IS NULL OR purpose NOT IN ('training', 'analysis'))"  # (an unknown purpose: a game)


# beside the games' copies (``<db>.journals/``): a copy of each kept study and game analysis,
# ``studies/<id>.json`` and ``analyses/<game id>.json``, rewritten atomically when they change
STUDIES_DIR = "studies"
ANALYSES_DIR = "analyses"


@dataclass
class StudyRow:
    """A study as stored: its tree as the study writes it (``damas.study.tree``: JSON), or
    ``None`` with ``damage`` saying why it cannot be read."""

    id: int
    variant: str
    tree: dict[str, Any] | None
    open: bool
    created: float
    updated: float
    damage: str | None = None
    title: str = ""  # what the page's list shows (the players), and the moves the tree holds
    moves: int = 0


class StoreError(Exception):
    """A database problem, as one line naming the file."""


class DamagedStore(StoreError):
    """SQLite cannot use the file."""


class StoreLocked(StoreError):
    """Another live process holds the database."""


def default_path() -> Path:
    """``$DAMAS_DB``, else the user's data directory (XDG)."""
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "damas" / "games.sqlite3"


def journals_dir(db: str | Path) -> Path:
    """Where the append-only copies of a database's journals live."""
    return Path(str(db) + ".journals")


@dataclass
class GameRow:
    id: int
    variant: str
    fen: str | None
    mode: Mode
    tags: dict[str, str]
    result: str
    termination: str | None
    started: float
    ended: float | None
    header: dict[str, Any]
    result_locked: bool = False
    moves: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    status: str | None = None
    damage: list[str] = field(default_factory=list)  # what could not be read in this row
    unknown: list[str] = field(default_factory=list)  # fields read as unknown: not what they claimed
    purpose: str | None = None  # None: a game; else a session (``PURPOSES``)

    @property
    def finished(self) -> bool:
        return self.ended is not None

    @property
    def state(self) -> str:
        """What happened to the game: in play, finished, abandoned, interrupted, damaged."""
        if self.status == DAMAGED or self.damage:
            return DAMAGED
        if self.result != "*":
            return "finished"
        if self.status in (ABANDONED, INTERRUPTED, CLOSED):
            return self.status
        if self.ended is None:
            return "in play"
        return "finished" if self.termination else ABANDONED

    def record(self) -> dict[str, Any]:
        """The row as the copy's ``<id>.json`` keeps it."""
        return {
            "id": self.id,
            "variant": self.variant,
            "fen": self.fen,
            "mode": self.mode,
            "tags": self.tags,
            "result": self.result,
            "termination": self.termination,
            "result_locked": self.result_locked,
            "started": self.started,
            "ended": self.ended,
            "header": self.header,
            "status": self.status,
            "purpose": self.purpose,
        }


def _json_object(text: Any) -> dict[str, Any] | None:
    """A stored field read as a JSON object, else ``None`` (a damaged file can garble any field)."""
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


LATEST = 253402300799.0  # 9999-12-31 23:59:59 UTC: a time beyond it is not a game's


def a_time(value: Any) -> bool:
    """A time a game can have started or ended at (seconds since 1970, up to the year 9999)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= LATEST


_STUDY_COLUMNS = "id, variant, title, moves, open, created, updated"  # (what _study_row reads)


def _study_row(r: Sequence[Any], tree: dict[str, Any] | None = None, damage: str | None = None) -> StudyRow:
    """A row of ``_STUDY_COLUMNS`` as a study (a time a damaged file garbled read as 0)."""
    return StudyRow(
        id=int(r[0]),
        variant=str(r[1]),
        tree=tree,
        open=bool(r[4]),
        created=float(r[5]) if a_time(r[5]) else 0.0,
        updated=float(r[6]) if a_time(r[6]) else 0.0,
        damage=damage,
        title=str(r[2]),
        moves=r[3] if isinstance(r[3], int) else 0,
    )


def a_result(value: Any) -> bool:
    """A game's result as the records keep it (PDN's, in any variant's style, or ``*``)."""
    if not isinstance(value, str) or len(value) > 16:
        return False
    try:
        parse_result(value)
    except ValueError:
        return False
    return True


def a_termination(value: Any) -> bool:
    """How a game ended, as the referee names it (``resignation``, ``time-forfeit``...)."""
    return isinstance(value, str) and 0 < len(value) <= 40 and all(c.isalnum() or c in "-_ " for c in value)


def _game_damage(variant: Any, fen: Any, header: dict[str, Any]) -> list[str]:
    """What makes a row's variant and start position unusable: a variant the rules do not
    have, a FEN that is not a position of it, a log header naming another game."""
    try:
        name = find_variant(variant).name if isinstance(variant, str) else None
    except DraughtsError:
        name = None
    if name is None:
        return [f"its variant {shown(variant, 40)} is not a variant"]
    out = []
    if fen is not None:
        try:
            Position.from_fen(fen, name) if isinstance(fen, str) else None
        except DraughtsError as exc:
            out.append(f"its start position is not a {name} position ({exc})")
        if not isinstance(fen, str):
            out.append(f"its start position {shown(fen, 40)} is not a FEN")
    logged = header.get("variant")
    if logged is not None and logged != name:
        try:
            same = isinstance(logged, str) and find_variant(logged).name == name
        except DraughtsError:
            same = False
        if not same:
            out.append(f"its variant {name} is not its log's ({shown(logged, 40)})")
    return out


def _last_seq(path: Path) -> int | None:
    """The ``seq`` of a copy's last whole line (-1: its header), cutting off a half-written
    line a power cut left at its end; ``None`` when that cannot be read."""
    try:
        with open(path, "r+b") as f:
            end = f.seek(0, os.SEEK_END)
            start = max(0, end - _TAIL)
            f.seek(start)
            tail = f.read()
            cut = tail.rfind(b"\n")
            if cut < 0:
                return None  # no whole line in reach: written again
            if cut != len(tail) - 1:  # a torn last line: never acknowledged, cut off
                f.truncate(start + cut + 1)
                os.fsync(f.fileno())
            line = tail[: cut + 1].rstrip(b"\n").rsplit(b"\n", 1)[-1]
    except OSError:
        return None
    obj = _json_object(line.decode("utf-8", "replace"))
    if obj is None:
        return None
    if "t" not in obj:
        return -1
    seq = obj.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else None


_TAIL = 128 * 1024  # bytes read from a copy's end to find its last line (a line is at most 64 KiB)


def _holder(inode: int) -> int | None:
    """The process holding a ``flock`` on that inode, from Linux's ``/proc/locks``."""
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5].rsplit(":", 1)[-1] == str(inode):
                    return int(fields[4]) if fields[4].isdigit() else None
    except OSError:
        pass
    return None


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_atomically(final: Path, data: bytes) -> None:
    """``data`` as ``final``, whole or not at all: a temporary file beside it, fsynced, renamed
    over it, and the folder fsynced (a power cut leaves the old file or the new one)."""
    tmp = final.with_name(final.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, final)
    _fsync_dir(final.parent)


class Store:
    """The database. ``create=False`` refuses a missing file (the commands that read);
    ``exclusive=True`` takes the lock first (``damas play``, ``damas recover``) and touches
    nothing when another live process holds it. ``quarantine=True`` (``damas play``) checks
    the file and moves a damaged one aside, starting an empty database (``quarantined``
    says where the old one went and why). Use it as a context manager."""

    def __init__(
        self, path: str | Path, *, create: bool = True, exclusive: bool = False, quarantine: bool = False
    ) -> None:
        self.path = Path(path)
        # the file itself: a symbolic link's target (its copies beside it, whatever the link's name)
        self.file = self.path.resolve() if self.path.is_symlink() else self.path
        self.journals = journals_dir(self.file)
        self._lock: int | None = None  # the descriptor the lock is held on
        self.skipped: list[str] = []  # games a damaged part of the file kept ``games()`` from reading
        self.db: sqlite3.Connection | None = None
        self.quarantined: tuple[Path, str] | None = None  # (where the damaged file went, why)
        self._copy_seen: dict[int, tuple[int, int, int]] = {}  # game -> its copy's (inode, size, last seq)
        try:
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            if exclusive:
                self._take_lock(create)
        except OSError as exc:
            self.close()
            which = f": {exc.filename}" if exc.filename and Path(exc.filename) != self.path else ""
            raise StoreError(f"{self.path}: cannot open: {exc.strerror or exc}{which}") from None
        try:
            self._connect(create)
            problem = self.check() if quarantine else None
        except DamagedStore as exc:
            if not (quarantine and self._ours()):
                self.close()
                if self.journals.is_dir():
                    raise DamagedStore(
                        f"{exc}; `damas recover --db {self.path}` rebuilds its games from {self.journals}"
                    ) from None
                raise
            problem = str(exc).split(": ", 1)[-1]
        except StoreError:
            self.close()
            raise
        if problem is not None:
            self._quarantine(problem)

    def _connect(self, create: bool) -> None:
        try:
            # a reader opens with mode=rw: SQLite never creates a missing file (create: its default, rwc)
            uri = self.path.absolute().as_uri() + ("" if create else "?mode=rw")
            self.db = sqlite3.connect(uri, uri=True, isolation_level=None)  # used by the thread that opened it
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
            cols = {r[1] for r in self.db.execute("PRAGMA table_info(games)")}
            if "status" not in cols:
                self.db.execute("ALTER TABLE games ADD COLUMN status TEXT")
            if "purpose" not in cols:
                self._add_purpose()
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif not str(row[0]).isdigit() or int(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: made by a newer damas (schema {row[0]!r})")
            elif int(row[0]) < SCHEMA_VERSION:  # (its tables and columns added above)
                self.db.execute("UPDATE meta SET value=? WHERE key='schema'", (str(SCHEMA_VERSION),))
        except _BROKEN as exc:
            self._disconnect()
            if not create and not self.path.is_file():
                raise StoreError(f"{self.path}: no such database") from None
            raise DamagedStore(f"{self.path}: not a usable damas database ({exc})") from None
        except StoreError:
            self._disconnect()
            raise

    def _add_purpose(self) -> None:
        """The ``purpose`` column, added to a database made before it (one transaction, so two
        programs opening the file at once add it once): the training and analysis sessions the
        page recorded as casual games until then, known by the Event tag it gave them
        (``Training: …``, ``Analysis: …``), are marked as such. Nothing else changes."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            marked = []
            if "purpose" not in {r[1] for r in db.execute("PRAGMA table_info(games)")}:
                db.execute("ALTER TABLE games ADD COLUMN purpose TEXT")
                for game_id, tags in db.execute("SELECT id, tags FROM games WHERE mode='casual'").fetchall():
                    event = (_json_object(tags) or {}).get("Event")
                    for prefix, purpose in _SESSION_EVENTS:
                        if isinstance(event, str) and event.startswith(prefix):
                            db.execute("UPDATE games SET purpose=? WHERE id=?", (purpose, game_id))
                            marked.append(game_id)
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(*_BROKEN):
                db.execute("ROLLBACK")
            raise
        for game_id in marked:  # their copies' records say so too (``damas recover`` keeps it)
            if self.journals.is_dir():
                self.save_record(game_id)

    def _disconnect(self) -> None:
        if self.db is not None:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self.db = None

    def _ours(self) -> bool:
        """A damas database, not some other file: its journal copies beside it, and either a
        SQLite file (by its first 16 bytes) or, when its header is damaged, a file whose
        copies hold games (no other program keeps ``<file>.journals/<id>.jsonl``)."""
        if not self.journals.is_dir():
            return False
        try:
            with open(self.path, "rb") as f:
                magic = f.read(16)
        except OSError:
            return False
        if magic == b"SQLite format 3\x00":
            return True
        try:
            return any(p.suffix == ".jsonl" and p.stem.isdigit() for p in self.journals.iterdir())
        except OSError:
            return False

    def _quarantine(self, problem: str) -> None:
        """Move a damaged database aside (with its -wal and -shm) and start an empty one in
        its place; ``damas play`` then rebuilds the games from the journal copies. The new file
        is locked before it takes the name, and the name is never without a file: no other
        program can take the database meanwhile."""
        self._disconnect()
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = Path(f"{self.file}.damaged-{stamp}")
        fresh = Path(f"{self.file}.new-{os.getpid()}")
        new_lock = None
        try:
            if self._lock is not None:
                new_lock = self._locked(fresh, create=True)
            for suffix in ("-wal", "-shm"):
                src = Path(str(self.file) + suffix)
                if src.exists():
                    os.replace(src, Path(str(aside) + suffix))
            if new_lock is not None:
                try:
                    os.link(self.file, aside)  # the old file keeps its name until the new one takes it
                except OSError:
                    os.replace(self.file, aside)  # (a file system without hard links)
                os.replace(fresh, self.file)
            else:
                os.replace(self.file, aside)
        except OSError as exc:
            if new_lock is not None:
                os.close(new_lock)
                with contextlib.suppress(OSError):
                    fresh.unlink()
            self.close()
            raise StoreError(
                f"{self.path}: the database is damaged ({problem}) and cannot be moved aside: {exc}"
            ) from None
        if new_lock is not None:
            assert self._lock is not None
            os.close(self._lock)
            self._lock = new_lock
        self.quarantined = (aside, problem)
        try:
            self._connect(True)
        except StoreError:
            self.close()
            raise

    def _take_lock(self, create: bool) -> None:
        """The exclusive lock, on the database file itself (created empty when missing: SQLite
        takes an empty file for a new database)."""
        if fcntl is None:  # pragma: no cover
            return
        for _attempt in range(5):
            fd = self._locked(self.path, create=create)
            try:  # the name still the file locked (not one put in its place meanwhile)?
                st, held = os.stat(self.path), os.fstat(fd)
            except OSError:
                os.close(fd)
                raise
            if (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino):
                self._lock = fd
                return
            os.close(fd)
        raise StoreError(f"{self.path}: the file keeps being replaced: is another program moving it?")

    def _locked(self, path: Path, *, create: bool) -> int:
        """A descriptor of ``path`` holding its exclusive lock, or :class:`StoreLocked` naming the holder."""
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | (os.O_CREAT if create else 0), 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(os.fstat(fd).st_ino)
            os.close(fd)
            who = f" (process {holder})" if holder else ""
            raise StoreLocked(f"{self.path} is in use by another damas{who}: stop it or choose another --db") from None
        return fd

    def close(self) -> None:
        self._disconnect()
        if self._lock is not None:
            os.close(self._lock)  # releases the flock
            self._lock = None

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # -- low level ---------------------------------------------------------------------------
    @property
    def _db(self) -> sqlite3.Connection:
        if self.db is None:
            raise StoreError(f"{self.path}: the database is closed")
        return self.db

    def damaged(self, exc: BaseException) -> StoreError:
        return StoreError(
            f"{self.path}: the database is damaged ({exc}); `damas recover` rebuilds its games from {self.journals}"
        )

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, args).fetchall()
        except _BROKEN as exc:
            raise self.damaged(exc) from None

    def _tx(
        self, statements: Iterable[tuple[str, tuple[Any, ...]]], then: Callable[[int | None], None] | None = None
    ) -> int | None:
        """The statements in one transaction; returns the last row id. ``then`` (given that id)
        runs before the commit: if it raises :class:`StoreError`, nothing is written."""
        db = self._db
        last = None
        try:
            db.execute("BEGIN IMMEDIATE")
            for sql, args in statements:
                last = db.execute(sql, args).lastrowid
            if then is not None:
                then(last)
            db.execute("COMMIT")
        except (*_BROKEN, StoreError) as exc:
            with contextlib.suppress(*_BROKEN):
                if db.in_transaction:
                    db.execute("ROLLBACK")
            if isinstance(exc, StoreError):
                raise
            raise StoreError(f"{self.path}: cannot write: {exc}") from None
        return last

    def probe(self) -> None:
        """Raise :class:`StoreError` unless both the database and the copy can be written now."""
        self._tx([("INSERT OR REPLACE INTO meta VALUES ('probe', ?)", (time.time(),))])
        path = self.journals / ".probe"
        try:
            self.journals.mkdir(exist_ok=True)
            with open(path, "wb") as f:
                f.write(b"x" * 512)
                f.flush()
                os.fsync(f.fileno())
            path.unlink()
        except OSError as exc:
            with contextlib.suppress(OSError):
                path.unlink()
            raise StoreError(f"{self.journals}: cannot write: {exc.strerror or exc}") from None

    def check(self) -> str | None:
        """``None`` when SQLite finds the file sound, else what it found (one line)."""
        try:
            rows = self._db.execute("PRAGMA quick_check").fetchall()
        except _BROKEN as exc:
            return str(exc)
        # SQLite's words differ between versions ("Page 6: ..." in 3.40, "Tree 6 page 6: ..." in
        # 3.46); only "ok" is sure. A problem may come after a line naming the database
        # ("*** in database main ***"), several in one row.
        found = [str(r[0]).strip() for r in rows if str(r[0]).strip().lower() != "ok"]
        if not found:
            return None
        problems = [
            line.strip()
            for text in found
            for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith("***")
        ] or found
        return problems[0] + (f" (and {len(problems) - 1} more)" if len(problems) > 1 else "")

    def database_id(self) -> str:
        """This database's own id, made once (a fresh SD card's is another): a game's id across
        databases is ``<database id>-<game id>`` (its journal's header, event-log format 3; the
        tournament hall's messages). A database whose hall link made one before (its table
        ``hall_meta``) keeps that one."""
        own = self._own_id()
        if own is None:
            self._tx([("INSERT OR IGNORE INTO meta VALUES ('uid', ?)", (self._new_id(),))])
            own = self._own_id()
        assert own is not None
        return own

    def _own_id(self) -> str | None:
        rows = self._query("SELECT value FROM meta WHERE key='uid'")
        return str(rows[0][0]) if rows else None

    def _new_id(self) -> str:
        try:
            old = self._db.execute("SELECT value FROM hall_meta WHERE key='db'").fetchone()
        except sqlite3.OperationalError:  # (no such table: no hall link ever ran on it)
            old = None
        return str(old[0]) if old else secrets.token_urlsafe(12)

    # -- games ---------------------------------------------------------------------------
    def new_game(
        self,
        variant: str,
        fen: str | None,
        mode: Mode,
        header: dict[str, Any],
        tags: dict[str, str],
        *,
        game_id: int | None = None,
        started: float | None = None,
        uid: bool = False,
        purpose: str | None = None,
    ) -> int:
        """A new game's row and journal copy; ``uid``: its header names the game's id across
        databases (``<database id>-<game id>``, event-log format 3); ``purpose``: a session that
        is not a game (``PURPOSES``)."""
        assert purpose is None or purpose in PURPOSES
        started = time.time() if started is None else started
        db_id = made = None
        if uid:  # (a database's first game makes its id, in the game's own transaction)
            db_id = self._own_id()
            if db_id is None:
                db_id = made = self._new_id()

        def start_copy(new_id: int | None) -> None:  # in the row's transaction: a game without its copy is not started
            assert new_id is not None
            head = header
            if db_id is not None:
                head = {**header, "format": UID_FORMAT, "uid": f"{db_id}-{new_id}"}
                self._db.execute("UPDATE games SET header=? WHERE id=?", (json.dumps(head), new_id))
            self._start_copy(new_id, {**head, "game": new_id, "tags": tags})

        new_id = self._tx(
            [("INSERT OR IGNORE INTO meta VALUES ('uid', ?)", (made,))] * (made is not None)
            + [
                (
                    "INSERT INTO games (id, variant, fen, mode, tags, started, header, purpose)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (game_id, variant, fen, mode, json.dumps(tags), started, json.dumps(header), purpose),
                )
            ],
            then=start_copy,
        )
        assert new_id is not None
        return new_id

    def _row(self, r: tuple[Any, ...]) -> GameRow:
        """A row of ``_SELECT`` (the id is SQLite's rowid, an integer: every other field a damaged
        file can garble is checked, and what cannot be read is named in ``damage``)."""
        damage = []

        def load(text: Any, what: str) -> dict[str, Any] | None:
            value = _json_object(text)
            if value is None:
                damage.append(f"its {what} are not readable")
            return value

        tags = load(r[4], "tags")
        header = load(r[10], "header fields")
        if header is None:
            header = {"format": 1, "variant": r[1], "fen": r[2], "mode": r[3]}
        if tags is not None and not all(isinstance(v, str) for v in tags.values()):
            tags = {k: str(v) for k, v in tags.items()}
        mode = known(r[3], MODES)
        if mode is None:
            damage.append(f"its mode {str(r[3])[:40]!r} is unknown ({' or '.join(MODES)})")
        damage += _game_damage(r[1], r[2], header)
        # fields that say how the game ended: one that cannot be what it claims is read as unknown
        # (the game itself, its journal, is whole), and named
        unknown = []
        result, termination, status = r[5], r[6], r[11]
        if not a_result(result):
            unknown.append(f"its result {shown(result, 40)} is not a result")
            result = "*"
        if termination is not None and not a_termination(termination):
            unknown.append(f"its termination {shown(termination, 40)} is not one")
            termination = None
        if status is not None and status not in STATUSES:
            unknown.append(f"its status {shown(status, 40)} is not one ({', '.join(STATUSES)})")
            status = None
        purpose = r[12]
        if purpose is not None and purpose not in PURPOSES:  # listed as a game: nothing is hidden
            unknown.append(f"its purpose {shown(purpose, 40)} is not one ({', '.join(PURPOSES)})")
            purpose = None
        return GameRow(
            id=int(r[0]),
            variant=str(r[1]),
            fen=r[2],
            mode=mode or DEFAULT_MODE,
            tags=tags or {},
            result=result,
            termination=termination,
            result_locked=bool(r[7]) and a_result(r[5]),
            started=float(r[8]) if a_time(r[8]) else 0.0,  # 0: not known
            ended=r[9] if isinstance(r[9], (int, float)) else None,
            header=header,
            status=status,
            moves=r[13] if len(r) > 13 else 0,
            damage=damage,
            unknown=unknown,
            purpose=purpose,
        )

    _COLS = "id, variant, fen, mode, tags, result, termination, result_locked, started, ended, header, status, purpose"
    _SELECT = f"SELECT {_COLS}, (SELECT COUNT(*) FROM moves WHERE game_id=games.id) FROM games"

    def game(self, game_id: int) -> GameRow:
        rows = self._query(f"{self._SELECT} WHERE id=?", (game_id,))
        if not rows:
            raise StoreError(f"{self.path}: no game {game_id}")
        return self._row(rows[0])

    def games(self, limit: int | None = None, *, sessions: bool = False) -> list[GameRow]:
        """The games, newest first, read one by one (2000 games: 60 ms here), so that a damaged
        part of the file costs the games in it, not the list: those are noted in ``self.skipped``.
        ``sessions``: the training and analysis sessions too (``GameRow.purpose``)."""
        self.skipped = []
        which = "" if sessions else f" WHERE {_A_GAME}"
        ids = [r[0] for r in self._query(f"SELECT id FROM games{which} ORDER BY id DESC")]
        out = []
        for i in ids[:limit] if limit else ids:
            try:
                out.append(self.game(i))
            except StoreError as exc:
                self.skipped.append(f"game {i}: {exc}")
        return out

    def sessions(self, purpose: str, limit: int) -> list[GameRow]:
        """The latest sessions of ``purpose`` (``PURPOSES``), newest first (a row that cannot be
        read is left out)."""
        ids = [
            r[0] for r in self._query("SELECT id FROM games WHERE purpose=? ORDER BY id DESC LIMIT ?", (purpose, limit))
        ]
        out = []
        for i in ids:
            with contextlib.suppress(StoreError):
                out.append(self.game(i))
        return out

    def game_ids(self) -> list[int]:
        return [int(r[0]) for r in self._query("SELECT id FROM games ORDER BY id")]

    def unfinished(self) -> GameRow | None:
        """The latest game left in play (never a session: ``close_sessions``)."""
        rows = self._query(f"{self._SELECT} WHERE ended IS NULL AND {_A_GAME} ORDER BY id DESC LIMIT 1")
        return self._row(rows[0]) if rows else None

    def close_sessions(self) -> list[int]:
        """Close the sessions left in play (a restart during a training or an analysis on the
        board): each is marked interrupted, kept whole. Returns their ids."""
        ids = [
            int(r[0])
            for r in self._query("SELECT id FROM games WHERE ended IS NULL AND purpose IN ('training', 'analysis')")
        ]
        for game_id in ids:
            self.abandon(game_id, INTERRUPTED)
        return ids

    def finish(self, game_id: int, result: str, termination: str | None) -> None:
        self._tx(
            [
                (
                    "UPDATE games SET result=?, termination=?, ended=? WHERE id=? AND result_locked=0",
                    (result, termination, time.time(), game_id),
                ),
                ("UPDATE games SET ended=COALESCE(ended, ?) WHERE id=?", (time.time(), game_id)),
            ]
        )
        self.save_record(game_id)

    def abandon(self, game_id: int, status: str = ABANDONED) -> None:
        """An unfinished game closed without a result (``*``): abandoned for a new game,
        interrupted (not resumed after a restart) or damaged."""
        assert status in STATUSES
        self._tx([("UPDATE games SET ended=COALESCE(ended, ?), status=? WHERE id=?", (time.time(), status, game_id))])
        self.save_record(game_id)

    def reopen(self, game_id: int) -> None:
        """A game marked damaged for want of events that are back: as it was before (its replay
        says again whether it ended)."""
        self._tx([("UPDATE games SET ended=NULL, status=NULL WHERE id=? AND status=?", (game_id, DAMAGED))])
        self.save_record(game_id)

    def reopen_unfinished(self, game_id: int) -> None:
        """A game left unfinished (abandoned or interrupted, never damaged) is in play again."""
        row = self.game(game_id)
        if row.state not in (ABANDONED, INTERRUPTED):
            raise StoreError(f"{self.path}: game {game_id} is {row.state}: only an unfinished game can be resumed")
        self._tx([("UPDATE games SET ended=NULL, status=NULL, termination=NULL WHERE id=?", (game_id,))])
        self.save_record(game_id)

    def correct(self, game_id: int, tags: dict[str, str] | None = None, result: str | None = None) -> None:
        """Correct a recorded game's tags and result afterwards."""
        row = self.game(game_id)
        stmts: list[tuple[str, tuple[Any, ...]]] = []
        if tags is not None:
            merged = dict(row.tags)
            for k, v in tags.items():
                if v:
                    merged[k] = v
                else:
                    merged.pop(k, None)
            stmts.append(("UPDATE games SET tags=? WHERE id=?", (json.dumps(merged), game_id)))
        if result is not None:
            stmts.append(("UPDATE games SET result=?, result_locked=1 WHERE id=?", (result, game_id)))
        self._tx(stmts)
        self.save_record(game_id)

    # -- a game's analysis (its evaluation graph and marked moves), kept once finished -----------
    def save_analysis(self, game_id: int, data: dict[str, Any]) -> None:
        """A game's analysis as the analysis writes it (``damas.computer.analysis``: JSON),
        replacing the one before."""
        created = time.time()
        self._tx(
            [
                (
                    "INSERT OR REPLACE INTO analyses (game_id, data, created) VALUES (?, ?, ?)",
                    (game_id, json.dumps(data), created),
                )
            ]
        )
        self._kept_copy(ANALYSES_DIR, game_id, {"game": game_id, "data": data, "created": created})

    def analysis_ids(self) -> list[int]:
        """The games that have a kept analysis."""
        return [int(r[0]) for r in self._query("SELECT game_id FROM analyses ORDER BY game_id")]

    def analysis(self, game_id: int) -> dict[str, Any] | None:
        """A game's kept analysis; ``None`` when there is none, or it cannot be read."""
        rows = self._query("SELECT data FROM analyses WHERE game_id=?", (game_id,))
        try:
            return _json_object(rows[0][0]) if rows else None
        except RecursionError:
            return None

    # -- studies: the trees of variations the page keeps ----------------------------------------
    def save_study(
        self,
        study_id: int | None,
        variant: str,
        tree: dict[str, Any],
        *,
        title: str = "",
        moves: int = 0,
        open: bool = True,
    ) -> int:
        """Write a study whole (a new one when ``study_id`` is None) in one transaction: a power
        cut leaves it as it was before or as it is now. ``title`` and ``moves``: what a list of
        studies shows; ``open``: the study the page shows (the only one: any other open is
        closed). Returns its id."""
        now = time.time()
        text = json.dumps(tree)
        stmts: list[tuple[str, tuple[Any, ...]]] = []
        if open:
            stmts.append(("UPDATE studies SET open=0 WHERE open=1 AND id IS NOT ?", (study_id,)))
        if study_id is None:
            stmts.append(
                (
                    "INSERT INTO studies (variant, title, moves, tree, open, created, updated)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (variant, title, moves, text, int(open), now, now),
                )
            )
        else:
            stmts.append(
                (
                    "UPDATE studies SET variant=?, title=?, moves=?, tree=?, open=?, updated=? WHERE id=?",
                    (variant, title, moves, text, int(open), now, study_id),
                )
            )

        closed = [int(r[0]) for r in self._query("SELECT id FROM studies WHERE open=1")] if open else []

        def exists(last: int | None) -> None:
            if (
                study_id is not None
                and not self._db.execute("SELECT 1 FROM studies WHERE id=?", (study_id,)).fetchone()
            ):
                raise StoreError(f"{self.path}: no study {study_id}")

        last = self._tx(stmts, then=exists)
        new_id = study_id if study_id is not None else int(last or 0)
        for other in {*closed, new_id}:
            self.save_study_copy(other)
        return new_id

    def close_study(self, study_id: int) -> None:
        """The page closed the study: kept, no longer the one shown."""
        self._tx([("UPDATE studies SET open=0 WHERE id=?", (study_id,))])
        self.save_study_copy(study_id)

    def delete_study(self, study_id: int) -> None:
        """A study deleted: its row and its copy (``damas recover`` does not bring it back)."""
        if not self._query("SELECT 1 FROM studies WHERE id=?", (study_id,)):
            raise StoreError(f"{self.path}: no study {study_id}")
        self._tx([("DELETE FROM studies WHERE id=?", (study_id,))])
        with contextlib.suppress(OSError):
            self.kept_path(STUDIES_DIR, study_id).unlink(missing_ok=True)

    def study_record(self, study_id: int) -> dict[str, Any] | None:
        """A study's row as its copy keeps it (``STUDIES_DIR``); None when there is none."""
        rows = self._query(f"SELECT {_STUDY_COLUMNS}, tree FROM studies WHERE id=?", (study_id,))
        if not rows:
            return None
        r = rows[0]
        row = _study_row(r)
        try:
            tree = _json_object(r[7])
        except RecursionError:
            tree = None
        return {
            "id": row.id,
            "variant": row.variant,
            "title": row.title,
            "moves": row.moves,
            "tree": tree,
            "open": row.open,
            "created": row.created,
            "updated": row.updated,
        }

    def save_study_copy(self, study_id: int) -> None:
        """A study's copy beside the database, rewritten atomically (best effort, as a game's
        record: the study is in the database already). A damaged row is not copied over a good copy."""
        with contextlib.suppress(StoreError):
            record = self.study_record(study_id)
            if record is not None and record["tree"] is not None:
                self._kept_copy(STUDIES_DIR, study_id, record)

    def restore_study(self, record: dict[str, Any], *, new_id: bool = False) -> int:
        """Insert or overwrite a study's row from its copy (``damas recover``; ``new_id``: under a
        new id, the copy's being another study's here). Returns its id."""
        last = self._tx(
            [
                (
                    "INSERT OR REPLACE INTO studies (id, variant, title, moves, tree, open, created, updated)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        None if new_id else record["id"],
                        record["variant"],
                        record["title"],
                        record["moves"],
                        json.dumps(record["tree"]),
                        int(record["open"]),
                        record["created"],
                        record["updated"],
                    ),
                )
            ]
        )
        study_id = int(last or 0) if new_id else int(record["id"])
        self.save_study_copy(study_id)
        return study_id

    def restore_analysis(self, game_id: int, data: dict[str, Any], created: float) -> None:
        """A game's kept analysis put back from its copy (``damas recover``)."""
        self._tx(
            [
                (
                    "INSERT OR REPLACE INTO analyses (game_id, data, created) VALUES (?, ?, ?)",
                    (game_id, json.dumps(data), created),
                )
            ]
        )
        self._kept_copy(ANALYSES_DIR, game_id, {"game": game_id, "data": data, "created": created})

    def save_analysis_copy(self, game_id: int) -> bool:
        """A game's kept analysis copied beside the database again; whether it is there now."""
        rows = self._query("SELECT data, created FROM analyses WHERE game_id=?", (game_id,))
        try:
            data = _json_object(rows[0][0]) if rows else None
        except RecursionError:
            data = None
        if data is None or not a_time(rows[0][1]):
            return False
        self._kept_copy(ANALYSES_DIR, game_id, {"game": game_id, "data": data, "created": float(rows[0][1])})
        return self.kept_path(ANALYSES_DIR, game_id).exists()

    def kept_path(self, what: str, key: int) -> Path:
        """The copy of a kept study or analysis (``STUDIES_DIR``, ``ANALYSES_DIR``) beside the database."""
        return self.journals / what / f"{key}.json"

    def _kept_copy(self, what: str, key: int, record: dict[str, Any]) -> None:
        """Write ``record`` atomically as ``kept_path(what, key)`` (best effort: a full disk
        costs the copy, never the database's row)."""
        with contextlib.suppress(OSError, ValueError):
            final = self.kept_path(what, key)
            final.parent.mkdir(parents=True, exist_ok=True)
            _write_atomically(final, json.dumps(record).encode())

    def studies(self) -> list[StudyRow]:
        """Every study, the latest changed first; a row that cannot be read is returned with
        ``damage`` naming the problem (the others are read all the same)."""
        ids = [int(r[0]) for r in self._query("SELECT id FROM studies ORDER BY updated DESC, id DESC")]
        return [self.study(i) for i in ids]

    def study_list(self, variant: str, limit: int) -> list[StudyRow]:
        """The latest changed studies of ``variant`` but the open one, without their trees (each
        read only when opened): what the page lists."""
        rows = self._query(
            f"SELECT {_STUDY_COLUMNS} FROM studies WHERE variant=? AND open=0 ORDER BY updated DESC, id DESC LIMIT ?",
            (variant, limit),
        )
        return [_study_row(r) for r in rows]

    def study(self, study_id: int) -> StudyRow:
        rows = self._query(f"SELECT {_STUDY_COLUMNS}, tree FROM studies WHERE id=?", (study_id,))
        if not rows:
            raise StoreError(f"{self.path}: no study {study_id}")
        r = rows[0]
        try:
            tree = _json_object(r[7])
        except RecursionError:  # (nested deeper than any study writes)
            tree = None
        return _study_row(r, tree, None if tree is not None else "its tree is not a JSON object")

    # -- the game clock's last sign of life ---------------------------------------------------
    def set_alive(self, game_id: int, t: float) -> None:
        """While a game clock runs, the time it last changed what it shows (``damas play``
        writes it each time): on a resume after a power cut, the clocks come back as they
        were then. One row, overwritten."""
        self._tx([("INSERT OR REPLACE INTO meta VALUES ('alive', ?)", (json.dumps({"game": game_id, "t": t}),))])

    def alive(self, game_id: int) -> float | None:
        """The last :meth:`set_alive` time of that game, if it is the one written last."""
        rows = self._query("SELECT value FROM meta WHERE key='alive'")
        value = _json_object(rows[0][0]) if rows else None
        if value is not None and value.get("game") == game_id and isinstance(value.get("t"), (int, float)):
            return float(value["t"])
        return None

    # -- journal ---------------------------------------------------------------------------
    def append(self, game_id: int, seq: int, event: dict[str, Any]) -> None:
        """One raw event, durable in both copies before it is processed: the copy first (its
        line appended and fsynced), then the database. A power cut between the two writes
        leaves that event in the copy only: it was never acknowledged, and the next start takes
        it into the database (``damas.records.recover``). So every acknowledged event is in
        both, and neither has a gap (``damas.records.journal``).

        When the database cannot take it, the copy's line is taken back and
        :class:`StoreError` raised: nothing has changed. (A line left behind all the same is
        harmless: a later line with the same ``seq`` supersedes it, in the database too.)"""
        size = self._append_copy(game_id, {**event, "seq": seq})
        try:
            self._tx(
                [
                    (
                        "INSERT OR REPLACE INTO journal (game_id, seq, event) VALUES (?, ?, ?)",
                        (game_id, seq, json.dumps(event)),
                    )
                ]
            )
        except StoreError:
            self._take_back(game_id, size)
            raise

    def journal_rows(self, game_id: int) -> list[tuple[int, str]]:
        rows = self._query("SELECT seq, event FROM journal WHERE game_id=? ORDER BY seq", (game_id,))
        try:
            return [(int(s), e) for s, e in rows]
        except (TypeError, ValueError, OverflowError):
            raise StoreError(f"game {game_id}: its journal rows are damaged") from None

    def journal(self, game_id: int) -> Iterator[dict[str, Any]]:
        for seq, text in self.journal_rows(game_id):
            obj = _json_object(text)
            if obj is None:
                raise StoreError(f"game {game_id}: journal row {seq} is damaged (not a JSON object)")
            yield obj

    def journal_span(self, game_id: int) -> tuple[int, int | None, int | None]:
        """How many events a game's journal holds, and its first and last seq (a journal without
        a gap runs from 0 to its length less one)."""
        ((count, first, last),) = self._query(
            "SELECT COUNT(*), MIN(seq), MAX(seq) FROM journal WHERE game_id=?", (game_id,)
        )
        try:
            return int(count), None if first is None else int(first), None if last is None else int(last)
        except (TypeError, ValueError):
            raise StoreError(f"game {game_id}: its journal rows are damaged") from None

    def journal_length(self, game_id: int) -> int:
        ((count,),) = self._query("SELECT COUNT(*) FROM journal WHERE game_id=?", (game_id,))  # one row, an integer
        return int(count)

    # -- the copy beside the database ----------------------------------------------------------
    def copy_path(self, game_id: int) -> Path:
        return self.journals / f"{game_id}.jsonl"

    def _start_copy(self, game_id: int, header: dict[str, Any]) -> None:
        path = self.copy_path(game_id)
        try:
            self.journals.mkdir(exist_ok=True)
            if path.exists():  # a file left by a game whose row the database lost: keep it aside
                path.rename(path.with_name(f"{game_id}.{int(time.time())}.orphan.jsonl"))
        except OSError as exc:
            raise StoreError(f"{path}: cannot write: {exc.strerror or exc}") from None
        self._append_copy(game_id, header)
        _fsync_dir(self.journals)
        self.save_record(game_id)

    def _append_copy(self, game_id: int, obj: dict[str, Any]) -> int:
        """One line on the copy, fsynced; returns the file's size before it. The file is
        opened for each line (the fsync costs far more), so a copy renamed or removed meanwhile
        is never written behind its name's back. Before an event's line, the copy must end
        with the event before it: a missing copy, one cut short or with a gap (the file
        replaced, an older damas's power cut) is written again from the database first, and a
        line a power cut left half-written is cut off (that event was never acknowledged)."""
        data = (json.dumps(obj) + "\n").encode()
        path = self.copy_path(game_id)
        seq = obj.get("seq")
        try:
            self.journals.mkdir(exist_ok=True)
            if isinstance(seq, int) and not self._copy_ends_before(game_id, seq):
                self._seed_copy(game_id, before=seq)
            with open(path, "ab") as f:
                size = f.seek(0, os.SEEK_END)
                try:
                    f.write(data)
                    f.flush()
                    os.fsync(f.fileno())
                except OSError:
                    with contextlib.suppress(OSError):  # no half line is left for the next append
                        f.truncate(size)
                    raise
                st = os.fstat(f.fileno())
        except OSError as exc:
            self._copy_seen.pop(game_id, None)
            raise StoreError(f"{path}: cannot write: {exc.strerror or exc}") from None
        self._copy_seen[game_id] = (st.st_ino, st.st_size, seq if isinstance(seq, int) else -1)
        return size

    def _copy_ends_before(self, game_id: int, seq: int) -> bool:
        """Whether the copy's last whole line is event ``seq - 1`` (or its header, for event 0),
        or a later one (a line a failed write left: superseded). Known from the last append
        when the file is still the one it wrote; else read from the file's end, where a
        half-written last line is cut off."""
        path = self.copy_path(game_id)
        try:
            st = path.stat()
        except FileNotFoundError:
            return False
        if not stat.S_ISREG(st.st_mode):
            return True  # not a file (a directory in the way): never moved aside, its write fails and says so
        seen = self._copy_seen.get(game_id)
        if seen is not None and seen[:2] == (st.st_ino, st.st_size):
            return seen[2] >= seq - 1
        last = _last_seq(path)
        return last is not None and last >= seq - 1

    def _take_back(self, game_id: int, size: int) -> None:
        """Cut the copy back to ``size`` bytes (its line for an event the database refused)."""
        path = self.copy_path(game_id)
        self._copy_seen.pop(game_id, None)
        with contextlib.suppress(OSError), open(path, "r+b") as f:
            if f.seek(0, os.SEEK_END) > size:
                f.truncate(size)
                os.fsync(f.fileno())

    def _seed_copy(self, game_id: int, before: int) -> None:
        """The copy of a game that has none (recorded before copies were kept, or its copy
        removed since), or whose copy does not end with the event before ``before``: its header
        and the database's journal before that event. A file that was there is kept aside
        (``<id>.<time>.replaced.jsonl``), never lost."""
        row = self.game(game_id)
        events = []
        for seq, text in self.journal_rows(game_id):
            if seq >= before:
                break
            event = _json_object(text)
            if event is not None:  # a damaged row is left out (the database still has it)
                events.append((seq, event))
        path = self.copy_path(game_id)
        if path.exists():
            path.rename(path.with_name(f"{game_id}.{int(time.time())}.replaced.jsonl"))
        self.write_copy(game_id, {**row.header, "game": game_id, "tags": row.tags}, events)
        self.save_record(game_id)

    def write_copy(self, game_id: int, header: dict[str, Any], events: Iterable[tuple[int, dict[str, Any]]]) -> None:
        """A game's copy written whole (a temporary file, fsynced, then renamed over it)."""
        lines = [json.dumps(header)] + [json.dumps({**event, "seq": seq}) for seq, event in events]
        self._copy_seen.pop(game_id, None)
        self.journals.mkdir(parents=True, exist_ok=True)
        _write_atomically(self.copy_path(game_id), ("\n".join(lines) + "\n").encode())

    def save_record(self, game_id: int) -> None:
        """The game's row, rewritten atomically as ``<id>.json`` (best effort: the row is
        in the database already, and its header and tags are in the journal copy)."""
        with contextlib.suppress(OSError, StoreError):
            row = self.game(game_id)
            if row.damage:  # the copy keeps what the damaged row no longer has
                return
            record = row.record()
            self.journals.mkdir(exist_ok=True)
            _write_atomically(self.journals / f"{game_id}.json", json.dumps(record).encode())

    # -- what happened ---------------------------------------------------------------------
    def record(
        self,
        game_id: int,
        moves: Iterable[tuple[int, str, int, int, list[int], float]] = (),
        withdrawn: Iterable[int] = (),
        reports: Iterable[tuple[float, str, list[int], str]] = (),
    ) -> None:
        stmts: list[tuple[str, tuple[Any, ...]]] = []
        for ply in withdrawn:
            stmts.append(("DELETE FROM moves WHERE game_id=? AND ply>=?", (game_id, ply)))
        for ply, pdn, a, b, captured, t in moves:
            stmts.append(
                (
                    "INSERT OR REPLACE INTO moves VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (game_id, ply, pdn, a, b, json.dumps(captured), t),
                )
            )
        for t, kind, squares, message in reports:
            stmts.append(
                ("INSERT INTO reports VALUES (?, ?, ?, ?, ?)", (game_id, t, kind, json.dumps(squares), message))
            )
        if stmts:
            self._tx(stmts)

    def rewrite_moves(self, game_id: int, moves: Iterable[tuple[int, str, int, int, list[int], float]]) -> None:
        """Replace a game's moves (after rebuilding them from the journal)."""
        stmts: list[tuple[str, tuple[Any, ...]]] = [("DELETE FROM moves WHERE game_id=?", (game_id,))]
        for ply, pdn, a, b, captured, t in moves:
            stmts.append(
                ("INSERT INTO moves VALUES (?, ?, ?, ?, ?, ?, ?)", (game_id, ply, pdn, a, b, json.dumps(captured), t))
            )
        self._tx(stmts)

    def replace_journal(self, game_id: int, events: list[tuple[int, dict[str, Any]]]) -> None:
        """Put back a game's journal (``damas recover``): the database only, not the copy."""
        stmts: list[tuple[str, tuple[Any, ...]]] = [("DELETE FROM journal WHERE game_id=?", (game_id,))]
        for seq, ev in events:
            stmts.append(("INSERT INTO journal (game_id, seq, event) VALUES (?, ?, ?)", (game_id, seq, json.dumps(ev))))
        self._tx(stmts)

    def restore_game(self, record: dict[str, Any]) -> int:
        """Insert or overwrite a game's row from its copy's record (``damas recover``);
        an ``id`` of ``None`` gives it a new one. Returns the id."""
        new_id = self._tx(
            [
                (
                    "INSERT OR REPLACE INTO games (id, variant, fen, mode, tags, result, termination, result_locked,"
                    " started, ended, header, status, purpose) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        record["id"],
                        record["variant"],
                        record.get("fen"),
                        record.get("mode") or DEFAULT_MODE,
                        json.dumps(record.get("tags") or {}),
                        record.get("result") or "*",
                        record.get("termination"),
                        int(bool(record.get("result_locked"))),
                        float(record.get("started") or time.time()),
                        record.get("ended"),
                        json.dumps(record["header"]),
                        record.get("status"),
                        record.get("purpose"),
                    ),
                )
            ]
        )
        assert new_id is not None
        return new_id

    def moves(self, game_id: int) -> list[tuple[int, str]]:
        return [
            (r[0], r[1]) for r in self._query("SELECT ply, pdn FROM moves WHERE game_id=? ORDER BY ply", (game_id,))
        ]
