"""The game store: one SQLite file (standard-library ``sqlite3``).

Every game keeps its raw event journal (the public event-log format, DESIGN.md §4),
its tags and result, and the moves and reports as they happened. The journal is the
source of truth and is committed (``synchronous=FULL``) *before* an event is processed,
so killing the process or pulling the power at any moment loses no move that was shown
as made: replaying the journal rebuilds exactly the same game.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
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
"""


class StoreError(Exception):
    """A database problem, as one line naming the file."""


def default_path() -> Path:
    """``$DAMAS_DB``, else the user's data directory (XDG)."""
    env = os.environ.get(ENV_DB)
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "damas" / "games.sqlite3"


@dataclass
class GameRow:
    id: int
    variant: str
    fen: str | None
    mode: str
    tags: dict[str, str]
    result: str
    termination: str | None
    started: float
    ended: float | None
    header: dict[str, Any]
    result_locked: bool = False
    moves: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        return self.ended is not None


class Store:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(_SCHEMA)
            row = self.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                self.db.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            elif int(row[0]) > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: made by a newer damas (schema {row[0]})")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable damas database ({exc})") from None
        except OSError as exc:
            raise StoreError(f"{self.path}: cannot open: {exc.strerror or exc}") from None

    def close(self) -> None:
        self.db.close()

    def _tx(self, statements: Iterable[tuple[str, tuple[Any, ...]]]) -> None:
        try:
            self.db.execute("BEGIN IMMEDIATE")
            for sql, args in statements:
                self.db.execute(sql, args)
            self.db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            raise StoreError(f"{self.path}: write failed ({exc})") from None

    # -- games ---------------------------------------------------------------------------
    def new_game(self, variant: str, fen: str | None, mode: str, header: dict[str, Any], tags: dict[str, str]) -> int:
        cur = self.db.execute("BEGIN IMMEDIATE")
        try:
            cur = self.db.execute(
                "INSERT INTO games (variant, fen, mode, tags, started, header) VALUES (?, ?, ?, ?, ?, ?)",
                (variant, fen, mode, json.dumps(tags), time.time(), json.dumps(header)),
            )
            self.db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            self.db.execute("ROLLBACK")
            raise StoreError(f"{self.path}: write failed ({exc})") from None
        assert cur.lastrowid is not None
        return cur.lastrowid

    def _row(self, r: tuple[Any, ...]) -> GameRow:
        return GameRow(
            id=r[0],
            variant=r[1],
            fen=r[2],
            mode=r[3],
            tags=json.loads(r[4]),
            result=r[5],
            termination=r[6],
            result_locked=bool(r[7]),
            started=r[8],
            ended=r[9],
            header=json.loads(r[10]),
            moves=r[11] if len(r) > 11 else 0,
        )

    _COLS = "id, variant, fen, mode, tags, result, termination, result_locked, started, ended, header"

    def game(self, game_id: int) -> GameRow:
        r = self.db.execute(
            f"SELECT {self._COLS}, (SELECT COUNT(*) FROM moves WHERE game_id=games.id) FROM games WHERE id=?",
            (game_id,),
        ).fetchone()
        if r is None:
            raise StoreError(f"{self.path}: no game {game_id}")
        return self._row(r)

    def games(self, limit: int | None = None) -> list[GameRow]:
        sql = f"SELECT {self._COLS}, (SELECT COUNT(*) FROM moves WHERE game_id=games.id) FROM games ORDER BY id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [self._row(r) for r in self.db.execute(sql).fetchall()]

    def unfinished(self) -> GameRow | None:
        r = self.db.execute(
            f"SELECT {self._COLS}, (SELECT COUNT(*) FROM moves WHERE game_id=games.id) FROM games "
            "WHERE ended IS NULL ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return self._row(r) if r else None

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

    def abandon(self, game_id: int) -> None:
        """An unfinished game the user chose not to resume: closed with result ``*``."""
        self._tx([("UPDATE games SET ended=? WHERE id=? AND ended IS NULL", (time.time(), game_id))])

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

    # -- journal ---------------------------------------------------------------------------
    def append(self, game_id: int, seq: int, event: dict[str, Any]) -> None:
        """One raw event, durable before it is processed."""
        self._tx([("INSERT INTO journal (game_id, seq, event) VALUES (?, ?, ?)", (game_id, seq, json.dumps(event)))])

    def journal(self, game_id: int) -> Iterator[dict[str, Any]]:
        for (text,) in self.db.execute("SELECT event FROM journal WHERE game_id=? ORDER BY seq", (game_id,)):
            yield json.loads(text)

    def journal_length(self, game_id: int) -> int:
        (n,) = self.db.execute("SELECT COUNT(*) FROM journal WHERE game_id=?", (game_id,)).fetchone()
        return int(n)

    def journal_lines(self, game_id: int) -> list[str]:
        row = self.game(game_id)
        return [json.dumps(row.header)] + [json.dumps(e) for e in self.journal(game_id)]

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

    def moves(self, game_id: int) -> list[tuple[int, str]]:
        return [
            (r[0], r[1]) for r in self.db.execute("SELECT ply, pdn FROM moves WHERE game_id=? ORDER BY ply", (game_id,))
        ]
