"""The hall: what every board sent (through the broker), the tournament, and the alerts.

paho-mqtt's network thread only hands each message to the asyncio loop; everything else runs
there. The hall subscribes with a persistent session (QoS 1), so a hall that was down gets what
the broker kept for it; what the broker lost (it restarted) the hall asks the boards for: a gap
in a game's sequence numbers, or a board's status naming more of a game than the hall has.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import gzip as _gzip
import json
import logging
import multiprocessing
import os
import secrets
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from hall import validate
from hall.games import HallGame
from hall.protocol import PREFIX, Broker, assign_topic, control_topic, new_client
from hall.store import HallStore
from hall.tournament import (
    COLOURS,
    READINGS,
    REQUESTED,
    Pairing,
    Player,
    TournamentError,
    absent_from,
    check_round,
    crosstable,
    draw_top,
    normalise_result,
    pair_round,
    read_players_csv,
    standings,
)
from hall.validate import BOARD_RE, BadMessage
from rules import Color, DraughtsError, Position, find_variant, parse_result
from rules.errors import shown
from rules.pdn import write_pdn
from wording import language
from wording.hall import UI, text

log = logging.getLogger(__name__)

ASK_AGAIN = 2.0  # seconds before the hall asks a board again for what it still misses
RESYNC_EVERY = 5.0  # seconds: a game is resynchronised by itself (after a conflict) at most this often
MAX_INCIDENTS = 200  # alerts of trouble kept (boards x kinds): past that, one "flood" alert
MAX_GAMES = 500  # games the hall takes from one board (a day of play is a few dozen)
#: the referee's reports that end an alert (the board matches the game again)
CLEARS = (None, "setup-ok", "restored", "reconstructed")
#: the clock's own reports: its alerts come from the clocks' state (paused, a flag), not from these
CLOCK_STATE = ("clock-paused", "clock-resumed", "clock-adjusted", "flag-fall")
STALLED = 600.0  # seconds without a word from a board in a game in play (clocks not paused): an alert
DUPLICATE_WINDOW = 60.0  # seconds: in this time, DUPLICATE_SWITCHES changes of a board's run (``boot``),
DUPLICATE_SWITCHES = 3  # one of them coming back, are two boards with one id
#: the page state's sections sent again to a page only when they changed (``Hall.state_answer``)
SECTIONS = ("pairings", "alerts", "geometry")


_PAIRER: concurrent.futures.ProcessPoolExecutor | None = None


def _pairer() -> concurrent.futures.ProcessPoolExecutor:
    """The process the pairing engine runs in (started by the first pairing; spawned, not forked:
    the hall's threads hold locks a fork would copy)."""
    global _PAIRER
    if _PAIRER is None:
        _PAIRER = concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context("spawn"), initializer=_behind
        )
    return _PAIRER


def _behind() -> None:
    """The pairing process yields the processor to the hall's (its page, feeds and boards first)."""
    with contextlib.suppress(OSError):
        os.nice(10)


def zlib_gzip(data: bytes) -> bytes:
    """The bytes gzipped (level 6: a state of 100 boards in a few milliseconds)."""
    return _gzip.compress(data, 6, mtime=0)


def stop_pairer(*, wait: bool = False) -> None:
    """The pairing process ended (``wait``: until it has; else a pairing under way is left to end)."""
    global _PAIRER
    if _PAIRER is not None:
        _PAIRER.shutdown(wait=wait, cancel_futures=True)
        _PAIRER = None


class Hall:
    def __init__(
        self,
        store: HallStore,
        broker: Broker | None,
        *,
        token: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.broker = broker
        self.token = token or store.get("token") or secrets.token_urlsafe(12)
        store.set("token", self.token)
        self.clock = clock
        self.games: dict[tuple[str, int], HallGame] = {}
        self.boards: dict[str, dict[str, Any]] = {}
        self.seen: dict[str, float] = {}
        self.asked: dict[tuple[str, int], tuple[int, float]] = {}  # what was asked for, and when
        self.incidents: dict[tuple[str, str], dict[str, Any]] = {}  # (board, kind) -> the alert, counted
        self.resyncs: dict[tuple[str, int], str] = {}  # the mark of the last resync asked for, by game
        self.resynced: dict[tuple[str, int], float] = {}  # when it was asked for
        self.resync_due: dict[tuple[str, int], float] = {}  # a resync to ask for then (after a conflict)
        self.assigned: dict[str, dict[str, Any]] = {}  # each board's assignment, as the hall published it
        self._assign_sent: dict[str, list[bytes]] = {}  # the last few payloads the hall published to each
        self.stalled: set[str] = set()  # boards silent in a game in play (``check_gaps``)
        self.runs: dict[str, list[tuple[float, str]]] = {}  # each board's runs (``boot``) as they came
        self.archived: dict[str, str] = json.loads(store.get("archived") or "{}")  # <board>.sdN -> board
        self.claims: dict[str, tuple[str, int]] = {}  # (database, game) said to be a board's, until it answers
        self.pairing: int | None = None  # the round being paired (in another process), if any
        self.version = 0
        self.changed = asyncio.Event()
        self.connected = False
        self.client: mqtt.Client | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._cache: tuple[int, str] | None = None  # the whole state as JSON, for its version (made when asked)
        self._built = -1  # the version the page's state was last built for
        self._texts: dict[str, tuple[str, str]] = {}  # each board's state as JSON: whole, without its moves
        self._board_cache: dict[str, tuple[tuple[Any, ...], dict[str, Any], str, str]] = {}  # (see _board_part)
        self._latest_mark: tuple[int, int] = (-1, -1)
        self._latest_index: dict[str, int] = {}  # each board's highest game number (current_game)
        self._numbers_index: dict[str, list[int]] = {}  # each board's game numbers (game_for)
        self._moved = 0  # games renamed (archived): the index is made again
        self._state: dict[str, Any] = {}
        #: each board's state (what it changes with) and each big section (as JSON), with the version it
        #: last changed in
        self._parts: dict[tuple[str, str], tuple[Any, int]] = {}
        self._answers: dict[tuple[int, int, bool, str], bytes] = {}  # this version's answers, by what was asked
        self.boot = secrets.token_hex(4)  # this run of the hall (versions start again at a restart)
        self.built = 0.0  # when the page's state was last built (time.monotonic)
        self._load()

    def _load(self) -> None:
        """The games as they stand (their snapshots). A database from before the snapshots, a
        snapshot from before the hall checked every message (``v`` 1), or one that cannot be read,
        is rebuilt once from the messages, each checked as it would be today."""
        rebuild: set[tuple[str, int]] = set()
        if self.store.get("snapshots") == "1":
            for board, game, state in self.store.games():
                try:
                    if state.get("v") != 2:
                        raise ValueError(f"a snapshot of version {shown(state.get('v'))}")
                    self.games[(board, game)] = HallGame.from_json(board, game, state)
                except (KeyError, TypeError, ValueError, DraughtsError) as exc:
                    log.info("board %s game %s: its snapshot is rebuilt from its messages (%s)", board, game, exc)
                    rebuild.add((board, game))
        else:
            rebuild = {(b, g) for b, g, _s, _m in self.store.messages()}
        for board, game in sorted(rebuild):
            g = self.games[(board, game)] = HallGame(board, game)
            for _b, _g, _seq, msg in self.store.messages(board, game):
                try:
                    g.offer(validate.message(board, msg))
                except BadMessage as exc:
                    log.warning("board %s game %s: a stored message is left out (%s)", board, game, exc)
        self.store.save_games([(b, n, self.games[(b, n)].to_json()) for b, n in sorted(rebuild)])
        self.store.set("snapshots", "1")
        for board, (status, seen) in self.store.statuses().items():
            try:
                self.boards[board] = validate.status(board, status)
            except BadMessage:
                continue
            self.seen[board] = seen

    def _game(self, board: str, game: int) -> HallGame:
        g = self.games.get((board, game))
        if g is None:
            g = self.games[(board, game)] = HallGame(board, game)
        return g

    def bump(self) -> None:
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    # -- settings -----------------------------------------------------------------------------------
    @property
    def planned(self) -> int:
        return int(self.store.get("rounds", "7") or 7)

    @property
    def reading(self) -> str:
        return self.store.get("tiebreak", "literal") or "literal"

    @property
    def colours(self) -> str:
        """Who gives the colours: "fide" (the Dutch allocation) or "lot" (FENACEF Art. 11)."""
        return self.store.get("colours", "fide") or "fide"

    @property
    def auto_confirm(self) -> bool:
        return self.store.get("auto_confirm", "0") == "1"

    @property
    def event(self) -> str:
        return self.store.get("event", "") or ""

    @property
    def language(self) -> str | None:
        """The hall's language (``damas hall --lang``), else None: each browser's own."""
        return self.store.get("language") or None

    def settings(self, data: dict[str, Any]) -> None:
        if "rounds" in data:
            n = data["rounds"]
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 99:
                raise TournamentError.of("err_rounds", value=str(n)[:20])
            self.store.set("rounds", str(n))
        if "tiebreak" in data:
            if data["tiebreak"] not in READINGS:
                raise TournamentError(f"tiebreak must be literal or progressive, not {str(data['tiebreak'])[:20]!r}")
            self.store.set("tiebreak", data["tiebreak"])
        if "colours" in data:
            if data["colours"] not in COLOURS:
                raise TournamentError(f"colours must be fide or lot, not {str(data['colours'])[:20]!r}")
            self.store.set("colours", data["colours"])
        if "auto_confirm" in data:
            self.store.set("auto_confirm", "1" if data["auto_confirm"] else "0")
        if "event" in data:
            self.store.set("event", str(data["event"])[:200])
        if "language" in data:
            lang = language(str(data["language"] or "")) if data["language"] else ""
            if lang is None:
                raise TournamentError(f"language must be pt-BR, pt-PT or en, not {str(data['language'])[:20]!r}")
            self.store.set("language", lang)
        self.bump()

    # -- the broker ---------------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        if self.broker is None:
            return
        self.client = new_client(self.broker, "damas-hall", clean=False)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()

    def stop(self) -> None:
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning("the broker %s refused the hall: %s", self.broker.url() if self.broker else "", reason)
            return
        client.subscribe(
            [(f"{PREFIX}/board/+/game", 1), (f"{PREFIX}/board/+/status", 1), (f"{PREFIX}/control/+/assign", 1)]
        )
        self._call(self._connected, True)

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self._call(self._connected, False)

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        self._call(self.receive, msg.topic, bytes(msg.payload), bool(msg.retain))

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def _connected(self, up: bool) -> None:
        if up != self.connected:
            log.info("%s the broker %s", "connected to" if up else "lost", self.broker.url() if self.broker else "")
        self.connected = up
        if up:
            self.asked.clear()
            self._publish_assignments(force=True)
        self.bump()

    def publish(self, topic: str, data: dict[str, Any], *, retain: bool = False) -> None:
        if self.client is not None and self.connected:
            self.client.publish(topic, json.dumps(data), qos=1, retain=retain)

    # -- trouble, reported once ---------------------------------------------------------------------
    def report(self, board: str, kind: str, message: str, **fields: Any) -> None:
        """One alert per board and kind of trouble (counted, not repeated), logged once; the
        arbiter dismisses it (``/api/dismiss``). A flood from many made-up board ids is one alert."""
        key = (board, kind)
        if key not in self.incidents and len(self.incidents) >= MAX_INCIDENTS:
            key = board, kind = ("*", "flood")
            message = text("en", "alert_flood")
        inc = self.incidents.get(key)
        now = self.clock()
        if inc is None:
            log.warning("%s", message)
            self.incidents[key] = {"board": board, "kind": kind, "message": message, "count": 1, "first": now,
                                   "last": now, **fields}  # fmt: skip
        else:
            inc["count"] += 1
            inc["last"] = now
        self.bump()

    def dismiss(self, board: str, kind: str | None = None) -> int:
        gone = [k for k in self.incidents if k[0] == board and kind in (None, k[1])]
        for k in gone:
            del self.incidents[k]
        self.bump()
        return len(gone)

    # -- what the boards send -------------------------------------------------------------------
    def receive(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """A message from the broker: checked before anything is kept (``hall.validate``)."""
        parts = topic.split("/")
        if len(parts) == 4 and parts[:2] == [PREFIX, "control"] and parts[3] == "assign":
            self._assignment_seen(parts[2], payload, retained)
            return
        if len(parts) != 4 or parts[0] != PREFIX or parts[1] != "board" or parts[3] not in ("game", "status"):
            return
        board = parts[2]
        if not BOARD_RE.fullmatch(board):
            self.report("?", "bad-board", text("en", "alert_bad_board", board=shown(board, 40)), bad=shown(board, 40))
            return
        if not self._known(board):
            self.report(board, "unknown-board", text("en", "alert_unknown_board", board=board))
            return
        try:
            if parts[3] == "status":
                self._status(board, validate.status(board, validate.load(payload, validate.MAX_STATUS)))
            else:
                self._message(board, validate.message(board, validate.load(payload)))
        except BadMessage as exc:
            self.report(board, "refused", text("en", "alert_refused", board=board, why=str(exc)), why=str(exc))

    def _known(self, board: str) -> bool:
        """Every board is welcome, unless the organiser named the event's boards (``--boards``):
        then only those (and boards the hall has heard from already)."""
        named = self.store_boards()
        return not named or board in named or board in self.boards or any(b == board for b, _g in self.games)

    def _status(self, board: str, data: dict[str, Any]) -> None:
        now = self.clock()
        self._identity(board, data, now)
        self.boards[board] = data
        self.seen[board] = now
        self.store.set_status(board, data, now)
        for g_text, last_seq in data.get("games", {}).items():
            game = int(g_text)
            g = self.games.get((board, game))
            if g is not None:
                late = [seq for seq in g.pending if seq > last_seq]  # numbers the board never sent
                for seq in late:
                    del g.pending[seq]
                    g.touch()
                    why = f"game {game} message {seq}: the board's last is {last_seq}"
                    self.report(board, "refused", text("en", "alert_refused", board=board, why=why), why=why)
                if late:
                    self._save(g)
            if g is None or g.next_seq <= last_seq:
                self._ask(board, game, force=True)
        self.bump()

    def _identity(self, board: str, data: dict[str, Any], now: float) -> None:
        """Who is behind a board id: its database (``db``) and this run of it (``boot``). A
        status naming another database than the board's game in the hall is only a claim (anyone
        who can write the board's status can say it): the hall asks the board for that game again
        (:meth:`_claim`), and only the board's own answer moves anything. Runs of two different
        boards taking turns: one id on two boards (they knock each other off the broker), an
        alert."""
        db = data.get("db")
        number = data.get("game")
        g = self.games.get((board, number)) if isinstance(number, int) else None
        g = g or self.current_game(board)
        if db and g is not None and (mine := validate.database(self._uid(g))) is not None and mine != db:
            self._claim(board, g.game, db)
        boot = data.get("boot")
        if boot and data.get("online"):
            runs = self.runs.setdefault(board, [])
            if not runs or runs[-1][1] != boot:
                runs.append((now, boot))
            del runs[: -DUPLICATE_SWITCHES - 1]
            recent = [b for t, b in runs if now - t <= DUPLICATE_WINDOW]
            if len(recent) > DUPLICATE_SWITCHES and len(set(recent)) < len(recent):  # a run came back
                self.report(board, "duplicate-id", text("en", "alert_duplicate_id", board=board))

    def _uid(self, g: HallGame) -> str | None:
        """A game's ``uid`` (its start's; from its first stored message for a snapshot older than
        the uids)."""
        if g.uid is None and g.variant is not None and g.next_seq > 0:
            first = self.store.message(g.board, g.game, 0)
            g.uid = str(first.get("uid") or "") if first is not None else ""  # ("": looked, none)
        return g.uid or None

    def _claim(self, board: str, game: int, db: str) -> None:
        """Something on the board's topics says the board has another database than its game
        ``game`` in the hall (a fresh SD card numbering its games from 1 again, or a forgery):
        nothing is kept of it, and the board is asked for that game again with a resync mark
        (its control topic: under the production ACL only the board's own login reads it). The
        board's answer decides (:meth:`_message`): from the other database, the board's games
        so far are set aside (``<board>.sdN``); from the one the hall has, the claim was not the
        board's (an alert). Asked again every ``RESYNC_EVERY`` seconds until it answers
        (:meth:`check_gaps`: a board off the broker then misses the question)."""
        self.claims[board] = (db, game)
        self._recheck(board, game)

    def _archive(self, board: str, db: str) -> str:
        """The board's games from database ``db`` (and any from before the uids) set aside under a
        name of their own (``<board>.sdN``)."""
        archived = self.archived
        k = 1 + sum(1 for a in archived if archived[a] == board)
        alias = f"{board}.sd{k}"
        mine = [key for key in self.games if key[0] == board]
        keys = [key for key in mine if validate.database(self._uid(self.games[key])) in (db, None)]
        for key in keys:
            g = self.games.pop(key)
            g.board = alias
            self.games[(alias, key[1])] = g
        self.store.rename_board(board, alias, [game for _b, game in keys])
        self._moved += 1
        archived[alias] = board
        self.store.set("archived", json.dumps(archived))
        for d in (self.asked, self.resyncs, self.resynced, self.resync_due):
            for key in [key for key in d if key[0] == board]:
                del d[key]
        return alias

    def _message(self, board: str, msg: dict[str, Any]) -> None:
        game, seq = msg["game"], msg["seq"]
        if (board, game) not in self.games and len([1 for b, _g in self.games if b == board]) >= MAX_GAMES:
            why = f"game {game}: more than {MAX_GAMES} games from one board"
            self.report(board, "refused", text("en", "alert_refused", board=board, why=why), why=why)
            return
        g = self._game(board, game)
        nonce = msg.get("resync")
        first = nonce is not None and self.resyncs.get((board, game)) == nonce
        mine, kept = validate.database(msg.get("uid")), validate.database(self._uid(g))
        if mine is not None and kept is not None and mine != kept:  # another database than the game's
            if not first:
                self._claim(board, game, mine)  # (asked of the board; nothing kept meanwhile)
                return
            self.claims.pop(board, None)  # the board's own answer: its database is another now...
            others = {validate.database(self._uid(x)) for (b, n), x in self.games.items() if b == board and n != game}
            if mine in others and kept not in others:  # ...than this game's alone: its start was forged
                self.report(board, "identity", text("en", "alert_identity", board=board, db=kept), db=kept)
            else:  # ...than the games the hall has from it (a fresh SD card): those are set aside
                alias = self._archive(board, kept)
                why = text("en", "alert_new_database", board=board, alias=alias)
                self.report(board, "new-database", why, alias=alias)
                g = self._game(board, game)
        elif first and board in self.claims and mine is not None and mine == kept:
            claimed, _n = self.claims.pop(board)  # the board answered from the database the hall has
            why = text("en", "alert_identity", board=board, db=claimed)
            self.report(board, "identity", why, db=claimed)
        rebuilt = first and (seq == 0 or (seq < g.next_seq and self._differs(board, game, seq, msg)))
        if rebuilt:
            g = self._rebuild(board, game, seq)  # the board's answer to a resync wins over what came before
        elif seq < g.next_seq:
            if self._differs(board, game, seq, msg):
                self._conflict(board, game, seq)
            return  # a duplicate (a resend, or the broker's redelivery)
        out = g.offer(msg, first=first)
        for bad_seq, why in out.refused:
            why = f"game {game} message {bad_seq}: {why}"
            self.report(board, "refused", text("en", "alert_refused", board=board, why=why), why=why)
        for c in out.conflicts:
            self._conflict(board, game, c)
        if out.folded:
            if any(m["type"] in ("start", "move", "undo", "clock") for m in out.folded):
                g.seen_at = self.clock()
            self.store.add_messages(
                board, game, [(m["seq"], json.dumps(m, separators=(",", ":"))) for m in out.folded], g.to_json()
            )
        elif not out.duplicate:
            self._save(g)  # (what waits behind a gap is kept too)
        self.seen[board] = self.clock()
        if g.gap:
            self._ask(board, game)
        if any(m["type"] in ("result", "tags", "start") for m in out.folded) or rebuilt:
            self._result_from_board(g)
        if out.folded or out.refused:
            self.bump()

    def _save(self, g: HallGame) -> None:
        self.store.save_games([(g.board, g.game, g.to_json())])

    def _differs(self, board: str, game: int, seq: int, msg: dict[str, Any]) -> bool:
        """Is ``msg`` another message than the one the hall folded with this number? (A board's
        resync mark, ``resync``, is no part of what it says.)"""
        kept = self.store.message(board, game, seq)
        if kept is None:
            return False
        strip = {k: v for k, v in msg.items() if k != "resync"}
        return {k: v for k, v in kept.items() if k != "resync"} != strip

    def _conflict(self, board: str, game: int, seq: int) -> None:
        """Two different messages with one number: one of them is not the board's. The board is
        asked for its game again (a resync: its answer replaces what the hall has)."""
        self.report(
            board, "conflict", text("en", "alert_conflict", board=board, game=game, seq=seq), game=game, seq=seq
        )
        self._recheck(board, game)

    def _recheck(self, board: str, game: int) -> None:
        """A resync of the game asked for now, or (a flood) when the last is ``RESYNC_EVERY`` old."""
        last = self.resynced.get((board, game), -RESYNC_EVERY)
        if self.clock() - last >= RESYNC_EVERY:
            self.resync(board, game)
        else:  # (a flood of conflicts is one resync every RESYNC_EVERY seconds)
            self.resync_due[(board, game)] = last + RESYNC_EVERY

    def resync(self, board: str, game: int | None = None) -> list[int]:
        """Ask a board for its games again, from their first message, with a new mark (``resync``)
        its answer carries: what it sends then replaces the hall's copy. ``game``: that one, else
        the board's current game and those its status names. Returns the games asked for."""
        if game is not None:
            games = [game]
        else:
            status = self.boards.get(board, {})
            named = {int(k) for k in status.get("games", {})}
            current = self.current_game(board)
            games = sorted(named | ({current.game} if current is not None else set()))
        for n in games:
            nonce = secrets.token_hex(8)
            self.resyncs[(board, n)] = nonce
            self.resynced[(board, n)] = self.clock()
            self.resync_due.pop((board, n), None)
            self.publish(control_topic(board), {"resend": n, "from": 0, "resync": nonce})
        return games

    def _rebuild(self, board: str, game: int, upto: int) -> HallGame:
        """The game as its messages before ``upto`` make it (those from ``upto`` on are dropped)."""
        g = HallGame(board, game)
        for _b, _g, seq, m in self.store.messages(board, game):
            if seq < upto:
                g.offer(m)
        self.store.drop_messages(board, game, upto)
        self.games[(board, game)] = g
        self._save(g)
        return g

    def _assignment_seen(self, board: str, payload: bytes, retained: bool) -> None:
        """An assignment on the broker: one the hall did not publish is put right — the hall's own
        put back, or cleared where the hall assigns the board nothing (a clear lost when the hall
        stopped, a database restored: a board restarted would start a game from it) — and, when
        someone published it while the hall listened, reported."""
        data: dict[str, Any] | None = None  # (an empty message: cleared)
        if payload:
            try:
                data = validate.load(payload, validate.MAX_STATUS)
            except BadMessage:
                data = {}
        mine = self.assigned.get(board)
        if data != mine:
            if not retained and payload not in self._assign_sent.get(board, ()):  # (not the hall's own, late)
                self.report(board, "assignment", text("en", "alert_assignment", board=board))
            self._assign(board, mine)

    def _assign(self, board: str, data: dict[str, Any] | None) -> None:
        """Publish a board's next game (retained), or clear it (None)."""
        if self.client is None or not self.connected:
            return
        payload = b"" if data is None else json.dumps(data).encode()
        sent = self._assign_sent.setdefault(board, [])
        sent.append(payload)
        del sent[:-4]  # (what the hall hears back of its own is among its last few)
        self.client.publish(assign_topic(board), payload, qos=1, retain=True)

    def _ask(self, board: str, game: int, *, force: bool = False) -> None:
        g = self.games.get((board, game))
        first = g.next_seq if g is not None else 0
        now = self.clock()
        prev = self.asked.get((board, game))
        if not force and prev is not None and prev[0] == first and now - prev[1] < ASK_AGAIN:
            return
        self.asked[(board, game)] = (first, now)
        self.publish(control_topic(board), {"resend": game, "from": first})

    def is_stalled(self, board: str, now: float) -> bool:
        """A game in play on an online board, its clocks not paused, and no move, start or clock
        message for ``STALLED`` seconds: a board that hangs, or a game nobody plays."""
        g = self.current_game(board)
        if g is None or not g.variant or g.result != "*" or g.seen_at is None:
            return False
        if not self.boards.get(board, {}).get("online"):
            return False  # (offline is its own alert)
        face = g.faces(now)
        if face is not None and (face["paused"] or face["flag"] or face["stopped"]):
            return False
        return now - g.seen_at >= STALLED

    def check_gaps(self) -> None:
        """Ask again for what is still missing (a resend can be lost too), and for the resyncs due;
        note the boards that fell silent in a game in play."""
        now = self.clock()
        stalled = {b for b in self.board_ids() if self.is_stalled(b, now)}
        if stalled != self.stalled:
            self.stalled = stalled
            self.bump()
        for (board, game), due in list(self.resync_due.items()):
            if due <= now:
                del self.resync_due[(board, game)]
                self.resync(board, game)
        for board, (_db, game) in list(self.claims.items()):
            if (board, game) not in self.resync_due and now - self.resynced.get((board, game), 0.0) >= RESYNC_EVERY:
                self.resync(board, game)
        for (board, game), g in self.games.items():
            if g.gap:
                self._ask(board, game)

    # -- games and feeds ----------------------------------------------------------------------
    def current_game(self, board: str) -> HallGame | None:
        status = self.boards.get(board, {})
        game = status.get("game")
        if isinstance(game, int) and (board, game) in self.games:
            return self.games[(board, game)]
        n = self._latest().get(board)
        return None if n is None else self.games[(board, n)]

    def _latest(self) -> dict[str, int]:
        """Each board's highest game number."""
        self._numbers()
        return self._latest_index

    def _numbers(self) -> dict[str, list[int]]:
        """Each board's game numbers, in order (made again only when games came or were renamed)."""
        mark = (len(self.games), self._moved)
        if mark != self._latest_mark:
            numbers: dict[str, list[int]] = {}
            for b, n in sorted(self.games):
                numbers.setdefault(b, []).append(n)
            self._numbers_index, self._latest_index = numbers, {b: ns[-1] for b, ns in numbers.items()}
            self._latest_mark = mark
        return self._numbers_index

    def board_ids(self) -> list[str]:
        ids = set(self.boards) | {b for b, _g in self.games} | {p.board for p in self.store.pairings() if p.board}
        return sorted(ids - set(self.archived), key=lambda b: (len(b), b))

    def game_for(self, p: Pairing) -> HallGame | None:
        """The game played for a pairing: the latest on its board with its round's tag (from the
        board's database of now, else from the ones it had before: ``<board>.sdN``)."""
        if p.board is None:
            return None
        rnd = str(p.round)
        aliases = sorted(
            (a for a, b in self.archived.items() if b == p.board), key=lambda a: -int(a.rsplit("sd", 1)[1])
        )
        for board in [p.board, *aliases]:
            for n in reversed(self._numbers().get(board, [])):
                g = self.games[(board, n)]
                if g.tags.get("Round") == rnd and g.variant:
                    return g
        return None

    def find(self, key: str) -> HallGame:
        board, _, game = key.rpartition("-")
        try:
            return self.games[(board, int(game))]
        except (KeyError, ValueError):
            raise LookupError(f"no game {key[:40]!r} (games are named BOARD-GAME, e.g. 7-12)") from None

    def current_round(self) -> int:
        rounds = [p.round for p in self.store.pairings()]
        return max(rounds) if rounds else 0

    def round_games(self, round_no: int) -> list[HallGame]:
        out = []
        for p in self.store.pairings():
            if p.round == round_no:
                g = self.game_for(p)
                if g is not None:
                    out.append(g)
        return out

    def live_pdn(self) -> str:
        """All games of the current round (what broadcast relays poll); without a tournament,
        every board's current game."""
        r = self.current_round()
        if r:
            games = self.round_games(r)
        else:
            games = [g for b in self.board_ids() if (g := self.current_game(b)) is not None and g.variant]
        return write_pdn([g.pdn_game() for g in games])

    # -- alerts -------------------------------------------------------------------------------------
    def alerts(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        now = self.clock()
        for board in self.board_ids():
            status = self.boards.get(board)
            if status is not None and status.get("online") is False:
                out.append({"board": board, "kind": "offline", "message": text("en", "alert_offline", board=board)})
            g = self.current_game(board)
            games = (status or {}).get("games", {})
            playing = (status or {}).get("game")
            if g is None and isinstance(playing, int) and str(playing) in games:  # a game not heard of yet
                out.append(
                    {"board": board, "kind": "out-of-sync", "seq": 0, "game": playing,
                     "message": text("en", "alert_sync_wait", board=board, seq=0)}
                )  # fmt: skip
            if g is None:
                continue
            last = games.get(str(g.game))
            behind = isinstance(last, int) and last >= g.next_seq  # the board has sent more than the hall has
            if g.gap or behind:
                out.append(
                    {"board": board, "kind": "out-of-sync", "seq": g.next_seq, "game": g.game,
                     "message": text("en", "alert_sync_wait", board=board, seq=g.next_seq)}
                )  # fmt: skip
            reports = [r for r in g.reports if r.get("kind") not in CLOCK_STATE]
            if g.result == "*" and reports:
                last = reports[-1]
                if last.get("kind") not in CLEARS:
                    out.append(
                        {
                            "board": board,
                            "kind": str(last.get("kind")),
                            "message": f"board {board}: {last.get('message')}",
                            "report": last.get("message"),
                            "texts": last.get("texts"),  # the board's words for it in each language
                        }
                    )
            out += self._clock_alerts(board, g, now)
            if board in self.stalled:
                minutes = int((now - (g.seen_at or now)) // 60)
                out.append({"board": board, "kind": "stalled", "minutes": minutes,
                            "message": text("en", "alert_stalled", board=board, minutes=minutes)})  # fmt: skip
        return out + [dict(inc) for inc in self.incidents.values()]

    def _clock_alerts(self, board: str, g: HallGame, now: float) -> list[dict[str, Any]]:
        """A flag fallen (said by the board, or the hall's count reached 0 first), on the board's
        current game until the next one starts; the clocks paused while the game is on."""
        f = g.faces(now) if g.variant else None
        if f is None:
            return []
        out: list[dict[str, Any]] = []
        flag = f["flag"]
        if flag is None and g.termination == "time-forfeit":
            flag = "black" if g.result in ("1-0", "2-0") else "white"
        if flag is None and f["ticking"] and f[str(f["running"])] <= 0:
            flag = f["running"]
        if flag in ("white", "black"):
            message = text("en", f"alert_flag_{flag}", board=board)
            out.append({"board": board, "kind": "flag", "side": flag, "message": message})
        elif f["paused"] and g.result == "*":
            by = f.get("paused_by")
            if f"by_{by}" in UI["en"]:
                message = text("en", "alert_paused_by", board=board, by=text("en", f"by_{by}"))
            else:
                by, message = None, text("en", "alert_paused", board=board)
            out.append({"board": board, "kind": "clock-paused", "by": by, "message": message})
        return out

    # -- the tournament -----------------------------------------------------------------------------
    def add_players(self, players: list[Player]) -> list[Player]:
        return [self.store.add_player(p.name, p.rating, p.club) for p in players]

    def import_csv(self, text: str) -> list[Player]:
        added = self.add_players(read_players_csv(text))
        self.bump()
        return added

    def _top(self) -> str:
        """The colour of the top player in round 1: drawn by lot at the first pairing, then kept."""
        top = self.store.get("top")
        if top not in ("w", "b"):
            top = draw_top()
            self.store.set("top", top)
        return top

    def pair_next(self, boards: list[str] | None = None) -> list[Pairing]:
        """The next round paired here and now (the command line, the tests; the page's request
        pairs off the event loop: :meth:`pair_next_async`)."""
        r = self.current_round() + 1
        args = (self.store.players(), self.store.pairings(), r, self.planned, self._top(), self.store.byes())
        return self._paired(pair_round(*args), boards)

    async def pair_next_async(self, boards: list[str] | None = None) -> list[Pairing]:
        """The next round paired in another process: the pairing engine takes seconds for a big
        open (pure Python, holding its interpreter), and the page, the feeds and the boards'
        messages go on meanwhile. One pairing at a time."""
        if self.pairing is not None:
            raise TournamentError.of("err_pairing_running", round=self.pairing)
        players, pairings, byes = self.store.players(), self.store.pairings(), self.store.byes()
        r = self.current_round() + 1
        check_round(players, pairings, r, self.planned, [b for b in byes if b.round == r])  # (refused at once)
        self.pairing = r
        self.bump()
        try:
            loop = asyncio.get_running_loop()
            args = (players, pairings, r, self.planned, self._top(), byes)
            new = await loop.run_in_executor(_pairer(), pair_round, *args)
        finally:
            self.pairing = None
            self.bump()
        if self.current_round() + 1 != r:  # (paired meanwhile from elsewhere)
            raise TournamentError.of("err_already_paired", round=r)
        return self._paired(new, boards)

    def _paired(self, new: list[Pairing], boards: list[str] | None) -> list[Pairing]:
        board_list = boards or self.store_boards()
        for i, p in enumerate(x for x in new if x.black is not None):
            p.board = board_list[i] if i < len(board_list) else str(p.table)
            if self.colours == "lot" and p.black is not None and secrets.randbelow(2):  # FENACEF Art. 11: by lot
                p.white, p.black = p.black, p.white
        for p in new:
            if p.black is None:
                p.confirmed = True  # a bye scores by itself
        self.store.save_round(new)
        self._publish_assignments()
        self.bump()
        return new

    def store_boards(self) -> list[str]:
        text = self.store.get("boards")
        return [b for b in (text or "").split(",") if b]

    def _publish_assignments(self, *, force: bool = False) -> None:
        """Each board's next game (retained on the broker): the current round's games not yet
        played. A board whose game has its result, or whose round was taken back, has its
        assignment cleared, so a board restarted between rounds starts no empty game from it.
        ``force``: publish them all again (the hall reconnected)."""
        r = self.current_round()
        names = {p.id: p.name for p in self.store.players()}
        due: dict[str, dict[str, Any]] = {}
        for p in self.store.pairings():
            if p.round == r and p.board and p.black is not None and p.result is None:
                due[p.board] = {
                    "round": r,
                    "table": p.table,
                    "white": names.get(p.white, "?"),
                    "black": names.get(p.black, "?"),
                    "event": self.event,
                }
        for board in [b for b in self.assigned if b not in due]:
            del self.assigned[board]
            self._assign(board, None)  # (cleared)
        for board, data in due.items():
            if force or self.assigned.get(board) != data:
                self.assigned[board] = data
                self._assign(board, data)

    def _find_pairing(self, round_no: int, table: int) -> Pairing:
        for p in self.store.pairings():
            if p.round == round_no and p.table == table:
                return dataclasses.replace(p)  # (a copy to change: the store's are read by everyone)
        raise TournamentError.of("err_no_table", round=round_no, table=table)

    def set_result(self, round_no: int, table: int, result: str, *, confirm: bool = True) -> Pairing:
        p = self._find_pairing(round_no, table)
        if p.black is None:
            raise TournamentError.of("err_bye_result", round=round_no, table=table)
        p.result, p.confirmed, p.origin = normalise_result(result), confirm, "arbiter"
        self.store.save_pairing(p)
        self._publish_assignments()
        self.bump()
        return p

    def confirm(self, round_no: int, table: int) -> Pairing:
        p = self._find_pairing(round_no, table)
        if p.result is None:
            raise TournamentError.of("err_nothing_to_confirm", round=round_no, table=table)
        p.confirmed, p.origin = True, "arbiter"  # (the arbiter answers for it now)
        self.store.save_pairing(p)
        self.bump()
        return p

    def swap_colours(self, round_no: int, table: int) -> Pairing:
        """Art. 11: the players agree on colours (else the draw decides): the arbiter swaps them."""
        p = self._find_pairing(round_no, table)
        if p.black is None or p.result is not None:
            raise TournamentError.of("err_swap_late", round=round_no, table=table)
        p.white, p.black = p.black, p.white
        self.store.save_pairing(p)
        self._publish_assignments()
        self.bump()
        return p

    def _player(self, player: int) -> Player:
        for pl in self.store.players():
            if pl.id == player:
                return dataclasses.replace(pl)  # (a copy to change: the store's are read by everyone)
        raise TournamentError.of("err_no_player", player=player)

    def edit_player(self, player: int, data: dict[str, Any]) -> Player:
        """A player's name, rating or club corrected; ``withdrawn``: the round from which they
        are no longer paired (true: from the next round on), or null: back in the tournament."""
        pl = self._player(player)
        if "name" in data:
            name = str(data["name"] or "").strip()
            if not name:
                raise TournamentError.of("err_player_name")
            pl.name = name[:100]
        if "rating" in data:
            rating = data["rating"] or 0
            if not isinstance(rating, int) or isinstance(rating, bool) or not 0 <= rating <= 4000:
                raise TournamentError.of("err_player_rating", value=str(rating)[:20])
            pl.rating = rating
        if "club" in data:
            pl.club = str(data["club"] or "")[:100]
        if "withdrawn" in data:
            w = data["withdrawn"]
            first = self.current_round() + 1
            if w is True:
                w = first
            if w is not None and (not isinstance(w, int) or isinstance(w, bool) or not first <= w <= 99):
                raise TournamentError.of("err_withdraw_round", value=str(w)[:20], round=first)
            pl.withdrawn = w
        self.store.save_player(pl)
        self.bump()
        return pl

    def request_bye(self, player: int, round_no: int, result: str | None) -> None:
        """A bye a player asks for, in a round not yet paired: "H" (a half-point bye, worth a draw),
        "Z" (worth nothing), or None (taken back)."""
        self._player(player)
        if result is not None and result not in REQUESTED:
            raise TournamentError.of("err_bye_kind", value=str(result)[:20])
        if not self.current_round() < round_no <= self.planned:
            raise TournamentError.of("err_bye_round", round=round_no, first=self.current_round() + 1)
        self.store.set_bye(round_no, player, result)
        self.bump()

    def unpair(self, round_no: int) -> None:
        """The last round's pairing taken back, to pair it again (a player came late, a bye was
        forgotten): only before any of its games has a result. Its byes asked for are asked again."""
        if round_no != self.current_round() or round_no < 1:
            raise TournamentError.of("err_unpair_last", round=round_no, last=self.current_round())
        mine = [p for p in self.store.pairings() if p.round == round_no]
        if any(p.black is not None and p.result is not None for p in mine):
            raise TournamentError.of("err_unpair_played", round=round_no)
        if any(g.plies for p in mine if (g := self.game_for(p)) is not None):
            raise TournamentError.of("err_unpair_played", round=round_no)
        self.store.drop_round(round_no)
        for p in mine:
            if p.requested:
                self.store.set_bye(round_no, p.white, p.result)
        self._publish_assignments()
        self.bump()

    def _result_from_board(self, g: HallGame) -> None:
        """A game's result goes to its pairing: confirmed by the arbiter, or at once
        (``--auto-confirm``). A result the board gave and the arbiter has not confirmed follows the
        game (a resync that took a forged result back takes it off the pairing too)."""
        for p in self.store.pairings():
            if p.board == g.board and str(p.round) == g.tags.get("Round") and p.black is not None:
                if p.confirmed and p.origin != "board":
                    return
                winner = parse_result(g.result) if g.result != "*" else "*"
                if winner == "*":
                    if p.origin == "board":
                        p.result, p.confirmed, p.origin = None, False, None
                        self.store.save_pairing(p)
                        self._publish_assignments()
                    return
                if not (winner is None or isinstance(winner, Color)):
                    return
                names = {pl.id: pl.name for pl in self.store.players()}
                swapped = g.tags.get("White") == names.get(p.black) and g.tags.get("Black") == names.get(p.white)
                res = "1-1" if winner is None else "2-0" if (winner is Color.WHITE) != swapped else "0-2"
                p.result, p.confirmed, p.origin = res, self.auto_confirm, "board"
                self.store.save_pairing(p)
                self._publish_assignments()
                return

    def table(self) -> list[dict[str, Any]]:
        rows = standings(self.store.players(), self.store.pairings(), self.planned, self.reading)
        return [
            {"rank": s.rank, "id": s.player.id, "name": s.player.name, "rating": s.player.rating,
             "club": s.player.club, "points": s.points, "tiebreak": s.tiebreak, "games": s.games,
             "withdrawn": s.player.withdrawn}
            for s in rows
        ]  # fmt: skip

    def crosstable(self) -> list[dict[str, Any]]:
        return crosstable(self.store.players(), self.store.pairings(), self.planned, self.reading)

    def trf(self) -> str:
        """The tournament as FIDE's TRF-2026 (``hall.trf``): who sits the next round out named too."""
        from hall.trf import write_trf

        players, pairings = self.store.players(), self.store.pairings()
        top = self.store.get("top")
        absent = absent_from(players, self.store.byes(), self.current_round() + 1)
        return write_trf(
            players, pairings, self.planned, event=self.event, top=top, absent=absent, reading=self.reading
        )

    def pairings_of(self, round_no: int) -> list[dict[str, Any]]:
        """A round's pairings as the page and the exports give them (names, board, result)."""
        names = {p.id: p.name for p in self.store.players()}
        return [
            {"round": p.round, "table": p.table, "white": names.get(p.white, "?"),
             "black": None if p.black is None else names.get(p.black, "?"), "board": p.board,
             "result": p.result, "confirmed": p.confirmed, "game": (g.key if (g := self.game_for(p)) else None)}
            for p in self.store.pairings() if p.round == round_no
        ]  # fmt: skip

    # -- the page's state ---------------------------------------------------------------------------
    def board_state(self, board: str) -> dict[str, Any]:
        return self._board_part(board, self.clock())[0]

    def _board_part(self, board: str, now: float) -> tuple[dict[str, Any], str, str, Any]:
        """A board's state for the page at the hall's time ``now``, as JSON (whole, and without its
        list of moves: what a page that does not show that board gets), and what it changes with:
        the board's messages, not the running clock counting down (a page counts that down itself
        from when it got the board). What changes only with the board's messages is built once per
        change of its game (``HallGame.rev``); the clocks' faces every time."""
        g = self.current_game(board)
        online = bool(self.boards.get(board, {}).get("online"))
        if g is None or not g.variant:
            out: dict[str, Any] = {"board": board, "online": online, "game": None}
            text = f'{{"board":{json.dumps(board)},"online":{"true" if online else "false"},"game":null}}'
            return out, text, text, text
        key = (g.key, g.rev)
        cached = self._board_cache.get(board)
        if cached is None or cached[0] != key:
            pos = g.position()
            static = {
                "id": g.key,
                "variant": g.variant,
                "title": find_variant(g.variant).title,
                "size": pos.geometry.size,
                "pieces": {str(q): p.symbol for q, p in pos.pieces().items()},
                "white": g.tags.get("White", "?"),
                "black": g.tags.get("Black", "?"),
                "round": g.tags.get("Round", ""),
                "plies": g.plies,
                "last": g.last_move(),
                "moves": [t for k, _w, _c, t in g.steps if k == "move"],
                "turn": pos.turn.value,
                "result": g.result,
                "sync": not g.gap,
            }
            whole = json.dumps(static, separators=(",", ":"))
            brief = json.dumps({**static, "moves": None}, separators=(",", ":"))
            cached = self._board_cache[board] = (key, static, whole, brief)
        _key, static, whole, brief = cached
        clock = g.faces(now)
        head = f'{{"board":{json.dumps(board)},"online":{"true" if online else "false"},"game":'
        tail = f',"clock":{json.dumps(clock, separators=(",", ":"))}}}}}'
        out = {"board": board, "online": online, "game": {**static, "clock": clock}}
        mark = (key, online, g.control, json.dumps(g.face), g.face_t, g.seen_at)
        return out, head + whole[:-1] + tail, head + brief[:-1] + tail, mark

    def state_json(self) -> str:
        """The page's state as JSON, built once per version (every page waiting gets the same)."""
        self._build()
        if self._cache is None or self._cache[0] != self.version:
            rest = json.dumps({k: v for k, v in self._state.items() if k != "boards"}, separators=(",", ":"))
            boards = ",".join(self._texts[b["board"]][0] for b in self._state["boards"])
            self._cache = (self.version, f'{rest[:-1]},"boards":[{boards}]}}')
        return self._cache[1]

    def _build(self) -> None:
        if self._built == self.version:
            return
        now = self.clock()
        v = self.version
        ids = self.board_ids()
        parts = [self._board_part(b, now) for b in ids]
        st = self.state([p[0] for p in parts])
        self._texts = {}
        for b, (_d, whole, brief, mark) in zip(ids, parts, strict=True):
            self._texts[b] = (whole, brief)
            old = self._parts.get(("board", b))
            if old is None or old[0] != mark:  # (a clock that only ran on: the page counts it down)
                self._parts[("board", b)] = (mark, v)
        for k in SECTIONS:
            text = json.dumps(st[k], separators=(",", ":"))
            old = self._parts.get(("section", k))
            if old is None or old[0] != text:
                self._parts[("section", k)] = (text, v)
        self._state = st
        self._built = v
        self._answers = {}
        self.built = time.monotonic()

    def state_answer(
        self, since: int | None, boot: str | None, *, gzip: bool = False, moves: str | None = None
    ) -> bytes:
        """What a page gets: the whole state, or (``boot``: this run's mark, as the page's last
        state said it) only what changed since version ``since`` — the boards whose state changed
        (without their list of moves, but for board ``moves``: the one the page shows whole) and
        the big sections (pairings, alerts, geometry) if they did; ``board_ids`` orders them.
        A board whose clock only ran on since is not sent again: the page counts it down from when
        it got that board. Each answer is built (and compressed) once per version, whoever asks."""
        self._build()
        delta = boot == self.boot and since is not None and 0 <= since <= self.version
        key = (since if delta and since is not None else -1, int(delta), gzip, (moves or "") if delta else "")
        out = self._answers.get(key)
        if out is None:
            if delta:
                assert since is not None
                st = {k: v for k, v in self._state.items() if k not in ("boards", *SECTIONS)}
                st["delta"] = since
                st["board_ids"] = [b["board"] for b in self._state["boards"]]
                st |= {k: self._state[k] for k in SECTIONS if self._parts[("section", k)][1] > since}
                changed = [
                    self._texts[b][0 if b == moves else 1]
                    for b in st["board_ids"]
                    if self._parts[("board", b)][1] > since
                ]
                rest = json.dumps(st, separators=(",", ":"))
                text = f'{rest[:-1]},"boards":[{",".join(changed)}]}}'
            else:
                text = self.state_json()
            out = text.encode()
            if gzip:
                out = zlib_gzip(out)
            if len(self._answers) < 64:
                self._answers[key] = out
        return out

    def state(self, boards: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """The page's state (``boards``: each board's, if built already)."""
        r = self.current_round()
        pairings = self.pairings_of(r)
        if boards is None:
            now = self.clock()
            boards = [self._board_part(b, now)[0] for b in self.board_ids()]
        geometry = {}
        for b in boards:
            v = b["game"] and b["game"]["variant"]
            if v and v not in geometry:
                geo = Position.start(v).geometry
                geometry[v] = {str(q): list(geo.coord(q)) for q in geo.squares()}
        return {
            "version": self.version,
            "boot": self.boot,
            "event": self.event,
            "geometry": geometry,
            "connected": self.connected,
            "round": r,
            "rounds": self.planned,
            "tiebreak": self.reading,
            "colours": self.colours,
            "auto_confirm": self.auto_confirm,
            "pairing": self.pairing,
            "boards": boards,
            "alerts": self.alerts(),
            "pairings": pairings,
        }
