"""The hall's own SQLite database: every message every board sent, each game's current state
(``games``: a snapshot written in the same transaction as the message that changed it, so a
restart reads the games as they are instead of replaying every message), the boards' last
status, the players and the pairings with their results."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from hall.tournament import Pairing, Player

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS boards (board TEXT PRIMARY KEY, status TEXT NOT NULL, seen REAL NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    board TEXT NOT NULL, game INTEGER NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL,
    PRIMARY KEY (board, game, seq)
);
CREATE TABLE IF NOT EXISTS games (
    board TEXT NOT NULL, game INTEGER NOT NULL, state TEXT NOT NULL,
    PRIMARY KEY (board, game)
);
CREATE TABLE IF NOT EXISTS players (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL, rating INTEGER NOT NULL, club TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS byes (
    round INTEGER NOT NULL, player INTEGER NOT NULL, result TEXT NOT NULL, PRIMARY KEY (round, player)
);
CREATE TABLE IF NOT EXISTS pairings (
    round INTEGER NOT NULL, tbl INTEGER NOT NULL, white INTEGER NOT NULL, black INTEGER,
    result TEXT, board TEXT, confirmed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (round, tbl)
);
"""


class HallStoreError(Exception):
    """The hall's database cannot be used (one line naming the file)."""


class HallStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._pairings: list[Pairing] | None = None  # (read once per change: the page reads them often)
        self._players: list[Player] | None = None
        db: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.db = db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")  # (the boards keep the truth: a lost tail is resent)
            self.db.executescript(_SCHEMA)
            columns = {row[1] for row in self.db.execute("PRAGMA table_info(pairings)")}
            if "origin" not in columns:  # (a database from before the hall noted who gave a result)
                self.db.execute("ALTER TABLE pairings ADD COLUMN origin TEXT")
            if "withdrawn" not in {row[1] for row in self.db.execute("PRAGMA table_info(players)")}:
                self.db.execute("ALTER TABLE players ADD COLUMN withdrawn INTEGER")  # (from before withdrawals)
        except (sqlite3.Error, OSError) as exc:
            if db is not None:
                db.close()  # (not left to the garbage collector)
            raise HallStoreError(f"{self.path}: not a usable hall database ({exc})") from None

    def close(self) -> None:
        self.db.close()

    # -- settings ---------------------------------------------------------------------------------
    def get(self, key: str, default: str | None = None) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # -- what the boards sent -------------------------------------------------------------------
    def add_messages(self, board: str, game: int, msgs: list[tuple[int, str]], state: dict[str, Any]) -> None:
        """Messages (``(seq, body)``) and the game's state after them, in one transaction."""
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO messages VALUES (?, ?, ?, ?)", [(board, game, seq, body) for seq, body in msgs]
            )
            self.db.execute(
                "INSERT OR REPLACE INTO games VALUES (?, ?, ?)",
                (board, game, json.dumps(state, separators=(",", ":"))),
            )

    def message(self, board: str, game: int, seq: int) -> dict[str, Any] | None:
        row = self.db.execute("SELECT body FROM messages WHERE board=? AND game=? AND seq=?", (board, game, seq))
        found = row.fetchone()
        return None if found is None else dict(json.loads(found[0]))

    def drop_messages(self, board: str, game: int, first: int) -> None:
        """A game's messages from ``first`` on (a resync replaces them)."""
        self.db.execute("DELETE FROM messages WHERE board=? AND game=? AND seq>=?", (board, game, first))

    def save_games(self, states: list[tuple[str, int, dict[str, Any]]]) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT OR REPLACE INTO games VALUES (?, ?, ?)",
                [(b, g, json.dumps(s, separators=(",", ":"))) for b, g, s in states],
            )

    def games(self) -> list[tuple[str, int, dict[str, Any]]]:
        """Every game's snapshot (what ``hall.games.HallGame.to_json`` wrote)."""
        return [(str(b), int(g), json.loads(s)) for b, g, s in self.db.execute("SELECT board, game, state FROM games")]

    def messages(self, board: str | None = None, game: int | None = None) -> list[tuple[str, int, int, dict[str, Any]]]:
        """Every message (or one game's), in order."""
        where, args = ("WHERE board=? AND game=? ", (board, game)) if board is not None else ("", ())
        return [
            (str(b), int(g), int(s), json.loads(body))
            for b, g, s, body in self.db.execute(
                f"SELECT board, game, seq, body FROM messages {where}ORDER BY board, game, seq", args
            )
        ]

    def rename_board(self, board: str, alias: str, games: list[int]) -> None:
        """A board's games (these) and their messages kept under another name (a board with a
        fresh database)."""
        with self.db:
            self.db.execute("BEGIN")
            for game in games:
                self.db.execute("UPDATE messages SET board=? WHERE board=? AND game=?", (alias, board, game))
                self.db.execute("UPDATE games SET board=? WHERE board=? AND game=?", (alias, board, game))

    def set_status(self, board: str, status: dict[str, Any], seen: float) -> None:
        self.db.execute("INSERT OR REPLACE INTO boards VALUES (?, ?, ?)", (board, json.dumps(status), seen))

    def statuses(self) -> dict[str, tuple[dict[str, Any], float]]:
        return {
            str(b): (json.loads(s), float(t)) for b, s, t in self.db.execute("SELECT board, status, seen FROM boards")
        }

    # -- the tournament -------------------------------------------------------------------------
    def players(self) -> list[Player]:
        """Every player, by id (read once per change, as the pairings)."""
        if self._players is None:
            rows = self.db.execute("SELECT id, name, rating, club, withdrawn FROM players ORDER BY id")
            self._players = [Player(*r) for r in rows]
        return list(self._players)

    def save_player(self, p: Player) -> None:
        self._players = None
        self.db.execute(
            "UPDATE players SET name=?, rating=?, club=?, withdrawn=? WHERE id=?",
            (p.name, p.rating, p.club, p.withdrawn, p.id),
        )

    def byes(self) -> list[Pairing]:
        """The byes players asked for, in rounds not yet paired (``Pairing(round, 0, player, None, result)``)."""
        return [
            Pairing(r, 0, player, None, result, confirmed=True, origin="arbiter")
            for r, player, result in self.db.execute("SELECT round, player, result FROM byes ORDER BY round, player")
        ]

    def set_bye(self, round_no: int, player: int, result: str | None) -> None:
        """A bye asked for (``result`` "H" or "Z"), or taken back (None)."""
        if result is None:
            self.db.execute("DELETE FROM byes WHERE round=? AND player=?", (round_no, player))
        else:
            self.db.execute("INSERT OR REPLACE INTO byes VALUES (?, ?, ?)", (round_no, player, result))

    def save_round(self, new: list[Pairing]) -> None:
        """A round just paired, in one transaction: its pairings, and the byes asked for it now given."""
        with self.db:
            self.db.execute("BEGIN")
            for p in new:
                self.save_pairing(p)
                if p.requested:
                    self.set_bye(p.round, p.white, None)

    def drop_round(self, round_no: int) -> None:
        """A round's pairings (the arbiter pairs it again)."""
        self._pairings = None
        self.db.execute("DELETE FROM pairings WHERE round=?", (round_no,))

    def add_player(self, name: str, rating: int = 0, club: str = "") -> Player:
        self._players = None
        cur = self.db.execute("INSERT INTO players (name, rating, club) VALUES (?, ?, ?)", (name, rating, club))
        assert cur.lastrowid is not None
        return Player(cur.lastrowid, name, rating, club)

    def pairings(self) -> list[Pairing]:
        """Every pairing, by round and table (read from the database once per change: change one
        only to save it, :meth:`save_pairing`)."""
        if self._pairings is None:
            self._pairings = [
                Pairing(r, t, w, b, res, board, bool(c), origin)
                for r, t, w, b, res, board, c, origin in self.db.execute(
                    "SELECT round, tbl, white, black, result, board, confirmed, origin FROM pairings"
                    " ORDER BY round, tbl"
                )
            ]
        return list(self._pairings)

    def save_pairing(self, p: Pairing) -> None:
        self._pairings = None
        self.db.execute(
            "INSERT OR REPLACE INTO pairings (round, tbl, white, black, result, board, confirmed, origin) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (p.round, p.table, p.white, p.black, p.result, p.board, int(p.confirmed), p.origin),
        )
