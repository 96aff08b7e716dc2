"""A board's games published to the tournament hall over MQTT (``damas play --broker``).

The board stays the source of truth: what it publishes is first written to an *outbox* in its
own SQLite database (table ``hall_outbox``: one row per message, numbered per game), and only
then handed to paho-mqtt's network thread (QoS 1). So a broker or a network that is down costs
nothing: the board keeps playing and recording, and when the connection comes back it sends the
whole current game again; the hall keeps each (board, game, seq) once, so nothing is duplicated,
and asks for what it missed (a gap in the sequence numbers, or a game the board's status names
that the hall has not got to the end of).

Topics (``PREFIX`` = ``damas``; the board's id is its MQTT user name in production, see README):

- ``damas/board/<id>/game`` (QoS 1): ``{"board", "game", "seq", "type", ...}``, ``type`` one of
  ``start`` (variant, fen, mode, tags, intro; control, clocks), ``move`` (step, ply, move, path,
  comments, t, clock; control, clocks: the faces after the move), ``clock`` (the clock's faces
  and state after a press, pause, resume, the arbiter's times, a flag), ``setup`` (step, fen),
  ``undo`` (steps: how many steps stay; a withdrawn move), ``tags`` (tags, intro), ``result``
  (result, termination), ``report`` (kind, message, squares, t, texts); ``tags`` and ``result``
  also come after the game when its record is corrected on the board. Every field is described
  in ``docs/hall.md`` (a public contract: fields are only added).
- ``damas/board/<id>/status`` (QoS 1, retained): ``{"board", "online", "t", "game", "games", "db",
  "boot"}`` (``t``: when the board last published, its last event; ``game``: the game in play;
  ``games``: the last seq of each recent game; ``db``: the board's database's own id, ``boot``:
  this run's); the last will is the same with ``online`` false. Every game message also carries
  ``uid``: ``<db>-<game>``, the game's id across databases (a fresh SD card numbers from 1 again).
- ``damas/control/<id>`` (from the hall): ``{"resend": game, "from": seq}``;
  ``damas/control/<id>/assign`` (retained): the next game's players, colours, round and event.

Everything that touches the database runs in the board loop (``poll``); paho's thread only
queues what it heard, so a slow network never holds the loop up.
"""

from __future__ import annotations

import json
import logging
import math
import queue
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as mqtt

from damas.records.session import GameSession, export_game
from damas.records.store import StoreError
from damas.sentences import message
from hall import validate
from hall.protocol import Broker, assign_topic, board_topic, control_topic, new_client
from hall.validate import BadMessage
from referee.clock import TICKS, ticks
from rules import Color, Move, Position
from wording import LANGUAGES

log = logging.getLogger(__name__)

RECENT = 5  # games named in the status message (the hall asks for any it has not finished)
RESEND_EVERY = 1.0  # seconds: the same resend request is answered once in this time

KEEPALIVE = 5  # seconds: the broker tells the hall a board is gone after 1.5 times this without a word
_OUTBOX = """
CREATE TABLE IF NOT EXISTS hall_outbox (
    game_id INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    message TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
)
"""

# -- what a game is, as the hall rebuilds it ---------------------------------------------------
Step = tuple[Any, ...]  # ("move", path, comments) or ("setup", fen)


@dataclass
class Published:
    """What the outbox says one game is so far (folded from its messages)."""

    seq: int = 0  # the next seq
    steps: list[Step] | None = None
    tags: dict[str, str] | None = None
    intro: list[str] | None = None
    result: str = "*"
    reports: int = 0
    clock: tuple[Any, ...] | None = None  # the clock's state last published (not kept: a restart says it again)


def _fold(p: Published, msg: dict[str, Any]) -> None:
    kind = msg["type"]
    p.seq = msg["seq"] + 1
    if kind == "start":
        p.steps, p.tags, p.intro = [], dict(msg["tags"]), list(msg["intro"])
    elif kind == "move":
        assert p.steps is not None
        del p.steps[msg["step"] :]
        p.steps.append(("move", msg["path"], tuple(msg["comments"])))
    elif kind == "setup":
        assert p.steps is not None
        del p.steps[msg["step"] :]
        p.steps.append(("setup", msg["fen"]))
    elif kind == "undo":
        assert p.steps is not None
        del p.steps[msg["steps"] :]
    elif kind == "tags":
        p.tags, p.intro = dict(msg["tags"]), list(msg["intro"])
    elif kind == "result":
        p.result = msg["result"]
    elif kind == "report":
        p.reports += 1
    elif kind == "clock":
        p.clock = tuple(msg.get("state") or ())


class Publisher:
    """Publishes the game a :class:`damas.board.loop.PlayApp` plays (call :meth:`poll` every loop turn)."""

    def __init__(
        self,
        store: Any,
        board: str,
        broker: Broker,
        *,
        assign: Callable[[dict[str, Any]], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.board = board
        self.broker = broker
        self.assign = assign
        self.clock = clock
        self.db = store.db
        self.db.execute(_OUTBOX)
        self.db_id = store.database_id()  # this database's own id: a fresh one (a new SD card) is told from the old
        self.boot = secrets.token_urlsafe(9)  # this run of the board (two boards with one id differ in it)
        self.games: dict[int, Published] = {}
        self._version: tuple[int | None, int] | None = None
        self.assignment: dict[str, Any] | None = None  # the hall's next game, until the board takes it
        self._waiting: str | None = None
        self._closing = False
        self.corrected: set[int] = set()  # earlier games whose records were corrected (published next turn)
        self._failed: str | None = None  # why the outbox could not be written (said once)
        self._requests: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._answered: dict[tuple[int, int, str | None], float] = {}  # resend requests answered, when
        self.connected = threading.Event()
        self.client = new_client(broker, f"damas-board-{board}")
        will = json.dumps({"board": board, "online": False})
        self.client.will_set(board_topic(board, "status"), will, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    # -- paho's thread: only queue what happened -----------------------------------------------
    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning("the broker %s refused the board: %s", self.broker.url(), reason)
            return
        client.subscribe([(control_topic(self.board), 1), (assign_topic(self.board), 1)])
        self.connected.set()
        self._requests.put(("connected", None))

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if self.connected.is_set() and not self._closing:
            log.warning("lost the broker %s (%s): the board records on and catches up later", self.broker.url(), reason)
        self.connected.clear()

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        if not msg.payload:  # the hall cleared an assignment (its game was played, or its round taken back)
            if msg.topic == assign_topic(self.board):
                self._requests.put(("assign", None))  # (one waiting for the game in play is dropped too)
            return
        try:
            data = validate.load(bytes(msg.payload), validate.MAX_STATUS)
        except BadMessage as exc:
            log.warning("ignored a control message on %s: %s", msg.topic, exc)
            return
        if msg.topic == assign_topic(self.board):
            self._requests.put(("assign", data))
        elif "resend" in data:
            self._requests.put(("resend", data))

    # -- the board loop ---------------------------------------------------------------------------
    def start(self) -> None:
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=KEEPALIVE)
        self.client.loop_start()

    def close(self) -> None:
        self._closing = True
        if self.connected.is_set():
            info = self.client.publish(
                board_topic(self.board, "status"), json.dumps({"board": self.board, "online": False}), 1, True
            )
            info.wait_for_publish(1.0)
        self.client.disconnect()
        self.client.loop_stop()

    def retry(self) -> None:
        """The board is free again for a waiting assignment (a training stopped: nothing the hall
        sees changed, so the next turn tries it again on this word)."""
        self._requests.put(("retry", None))

    def poll(self, session: GameSession | None, version: int) -> None:
        """Publish what changed in the game, then answer what the hall asked (the loop calls this
        every turn; it costs nothing when neither the view's version moved nor a request came).
        ``session``: the real game in play; None while the board plays something that is not a
        game (a training): nothing is published of it, and the status names no game in play."""
        current = None if session is None else session.row.id
        key = (current, version)
        retry = False
        if key != self._version:
            retry = True
            try:
                changed = session is None or self.sync(session)
                while self.corrected:
                    game = min(self.corrected)
                    changed = self.sync_stored(game) or changed
                    self.corrected.discard(game)
                if changed:
                    self._status(current)
            except (sqlite3.Error, StoreError) as exc:  # the board plays on; the next turn tries again
                if str(exc) != self._failed:
                    log.error("cannot write the hall's outbox (%s): the hall waits for this board", exc)
                    self._failed = str(exc)
            else:
                self._version = key
                self._failed = None
        while True:
            try:
                what, data = self._requests.get_nowait()
            except queue.Empty:
                break
            if what == "connected":
                self._status(current)
                if current is not None:
                    self._resend(current, 0)  # the whole current game, again
            elif what == "resend":
                try:
                    game = validate.integer(data, "resend")
                    first = validate.integer(data, "from") if "from" in data else 0
                    mark = validate.text(data, "resync", 64)
                except BadMessage as exc:
                    log.warning("ignored a bad resend request: %s", exc)
                else:
                    self._resend(game, first, mark)
            elif what == "assign":
                self.assignment = data
                self._waiting = None
                retry = True
            elif what == "retry":
                retry = True
        if retry and self.assignment is not None and self.assign is not None:
            try:
                self.assign(self.assignment)
            except ValueError as exc:
                if str(exc) != self._waiting:  # said once; tried again whenever the game changes
                    log.info("the hall's assignment waits: %s", exc)
                    self._waiting = str(exc)
            else:
                self.assignment = None

    def _outbox(self, game: int) -> Published:
        p = self.games.get(game)
        if p is None:
            p = Published()
            for (text,) in self.db.execute(
                "SELECT message FROM hall_outbox WHERE game_id=? ORDER BY seq", (game,)
            ).fetchall():
                _fold(p, json.loads(text))
            self.games[game] = p
        return p

    def sync(self, session: GameSession) -> bool:
        """Write to the outbox (durably, in one transaction) and publish what the game gained since
        the last messages; True when there was something."""
        game = session.row.id
        p = self._outbox(game)
        keeper = session.clock
        pg = session.pdn_game()
        row = session.row
        news: list[dict[str, Any]] = []
        if p.steps is None:
            start = pg.start_position
            news.append(
                {
                    "type": "start",
                    "variant": pg.variant.name,
                    "fen": None if start == Position.start(pg.variant) else start.fen(),
                    "mode": row.mode,
                    "tags": pg.tags,
                    "intro": pg.intro,
                    "started": row.started,
                    **({} if keeper is None else {"control": keeper.control.text(), "clocks": _face(keeper, None)}),
                }
            )
            steps: list[Step] = []
        else:
            steps = list(p.steps)
            if pg.tags != p.tags or pg.intro != p.intro:
                news.append({"type": "tags", "tags": pg.tags, "intro": pg.intro})
        now = _steps(pg)
        same = 0
        while same < min(len(steps), len(now)) and steps[same] == now[same][0]:
            same += 1
        if same < len(steps):
            news.append({"type": "undo", "steps": same})
        times = session.referee.clock
        plies = sum(1 for s in now[:same] if s[0][0] == "move")
        for step, extra, _side in now[same:]:
            if step[0] == "setup":
                news.append({"type": "setup", "step": same, "fen": step[1]})
            else:
                t = times[plies] if plies < len(times) else None
                news.append(
                    {
                        "type": "move",
                        "step": same,
                        "ply": plies + 1,
                        "move": extra,
                        "path": step[1],
                        "comments": list(step[2]),
                        "t": t,
                        "clock": _used(row.started, times[: plies + 1], [x[2] for x in now if x[0][0] == "move"]),
                    }
                )
                if keeper is not None:  # the faces after the move, as the record's {[%clock]} has them
                    stamp = keeper.stamps[plies] if plies < len(keeper.stamps) else None
                    news[-1]["control"] = keeper.control.text()
                    if stamp is not None:
                        news[-1]["clocks"] = stamp.to_json()
                plies += 1
            same += 1
        reports = session.reports()
        pos = session.referee.position

        def names(squares: tuple[int, ...]) -> str:
            return ", ".join(pos.square_text(q) for q in sorted(squares))

        for r in reports[p.reports :]:
            texts = {lang: message(r, lang, names) for lang in LANGUAGES}  # (the hall's page speaks each)
            news.append(
                {"type": "report", "kind": r.kind.value, "message": r.message, "squares": list(r.squares), "t": r.t,
                 "texts": texts}
            )  # fmt: skip
        if pg.result != p.result:
            news.append({"type": "result", "result": pg.result, "termination": self.store.game(game).termination})
        if keeper is not None:
            state = _clock_state(keeper)
            if state != p.clock and not _said(news, state):  # a press, a pause or resume, the arbiter's times...
                t = session.last_t if math.isfinite(session.last_t) else None  # (the event that changed it)
                news.append({"type": "clock", "t": t, "control": keeper.control.text(), **_face(keeper, t)})
            changed = self._emit(game, p, news)
            p.clock = state  # (said by a move, or by the clock message just written)
            return changed
        return self._emit(game, p, news)

    def sync_stored(self, game: int) -> bool:
        """A finished game's corrected tags or result (``damas play``'s records page): published
        as the game's next messages. A game the hall never had is left alone."""
        p = self._outbox(game)
        if p.steps is None:
            return False
        pg = export_game(self.store, game)
        news: list[dict[str, Any]] = []
        if pg.tags != p.tags or pg.intro != p.intro:
            news.append({"type": "tags", "tags": pg.tags, "intro": pg.intro})
        if pg.result != p.result:
            news.append({"type": "result", "result": pg.result, "termination": self.store.game(game).termination})
        return self._emit(game, p, news)

    def _emit(self, game: int, p: Published, news: list[dict[str, Any]]) -> bool:
        if not news:
            return False
        rows = []
        for i, msg in enumerate(news):
            msg.update(board=self.board, game=game, seq=p.seq + i, uid=f"{self.db_id}-{game}")
            rows.append((game, msg["seq"], json.dumps(msg, separators=(",", ":"))))
        with self.db:  # one transaction: the messages are durable before they go out
            self.db.execute("BEGIN")
            self.db.executemany("INSERT INTO hall_outbox VALUES (?, ?, ?)", rows)
        for msg in news:  # (only once they are written: a failed write is tried again whole)
            _fold(p, msg)
        for _g, _s, text in rows:
            self._send(text)
        return True

    def _send(self, text: str) -> None:
        if self.connected.is_set():  # else the reconnect sends the whole game again
            self.client.publish(board_topic(self.board, "game"), text, qos=1)

    def _status(self, current: int | None) -> None:
        if not self.connected.is_set():
            return
        games = {
            str(g): int(s)
            for g, s in self.db.execute(
                "SELECT game_id, MAX(seq) FROM hall_outbox GROUP BY game_id ORDER BY game_id DESC LIMIT ?", (RECENT,)
            ).fetchall()
        }
        status = {"board": self.board, "online": True, "t": self.clock(), "game": current, "games": games,
                  "db": self.db_id, "boot": self.boot}  # fmt: skip
        self.client.publish(board_topic(self.board, "status"), json.dumps(status), qos=1, retain=True)

    def _resend(self, game: int, first: int, mark: str | None = None) -> None:
        """A game's messages again from ``first``; ``mark``: the hall's resync, said in each (the
        hall then takes them over whatever it had: ``docs/hall.md``). The same request within a
        second is answered once (a flood of requests costs the board nothing)."""
        if not self.connected.is_set():
            return
        now = time.monotonic()
        if self._answered.get((game, first, mark), -RESEND_EVERY) > now - RESEND_EVERY:
            return
        self._answered[(game, first, mark)] = now
        if len(self._answered) > 64:
            self._answered = {k: t for k, t in self._answered.items() if t > now - RESEND_EVERY}
        for (body,) in self.db.execute(
            "SELECT message FROM hall_outbox WHERE game_id=? AND seq>=? ORDER BY seq", (game, first)
        ).fetchall():
            if mark is not None:
                body = body[:-1] + f",{json.dumps('resync')}:{json.dumps(mark)}}}"
            self.client.publish(board_topic(self.board, "game"), body, qos=1)


def _steps(pg: Any) -> list[tuple[Step, str, str]]:
    """A PDN game's steps (set-ups and moves with their comments), each with its display text and
    the side that made it."""
    out: list[tuple[Step, str, str]] = []
    pos: Position = pg.start_position
    for i, pm in enumerate(pg.moves):
        if i in pg.setups:
            pos = pg.setups[i]
            out.append((("setup", pos.fen()), "", ""))
        move: Move = pm.move
        out.append((("move", pos.pdn(move, full=True), tuple(pm.comments)), pos.pdn(move), pos.turn.value))
        pos = pos.apply(move)
    if len(pg.moves) in pg.setups:
        out.append((("setup", pg.setups[len(pg.moves)].fen()), "", ""))
    return out


def _clock_state(keeper: Any) -> tuple[Any, ...]:
    """What changes only when the clock is pressed, paused, resumed, set, or stops (not with time)."""
    c = keeper.clock
    return (
        None if c.running is None else c.running.value,
        c.ticking,
        c.paused,
        keeper.paused_by if c.paused else None,
        None if c.flag is None else c.flag.value,
        c.stopped,
        c.left[Color.WHITE],
        c.left[Color.BLACK],
    )


def _said(news: list[dict[str, Any]], state: tuple[Any, ...]) -> bool:
    """Does the last move among ``news`` already say the clock's state (its press started the
    other clock, nothing else happened)? Then no ``clock`` message is needed."""
    moves = [m for m in news if m["type"] == "move"]
    if not moves or "clocks" not in moves[-1]:
        return False
    c = moves[-1]["clocks"]
    running, ticking, paused, _by, flag, stopped, white, black = state
    return (
        c["running"] == running
        and ticking
        and not paused
        and flag is None
        and not stopped
        and (round(white / TICKS, 4), round(black / TICKS, 4)) == (c["white"], c["black"])
    )


def _face(keeper: Any, t: float | None) -> dict[str, Any]:
    """The clock's faces at the board's time ``t`` in seconds (None: as they stand at the start
    of the running turn), and its state."""
    c = keeper.clock
    T = ticks(t) if t is not None else (c.since or 0)
    state = _clock_state(keeper)
    return {
        "white": round(c.remaining(Color.WHITE, T) / TICKS, 4),
        "black": round(c.remaining(Color.BLACK, T) / TICKS, 4),
        "running": state[0],
        "ticking": state[1],
        "paused": state[2],
        "paused_by": state[3],
        "flag": state[4],
        "stopped": state[5],
        "state": list(state),
    }


def _used(started: float, times: list[float], sides: list[str]) -> dict[str, float]:
    """Seconds each side has used up to the last of these moves (the first move's time counts from
    the game's start)."""
    used = {"white": 0.0, "black": 0.0}
    last = started
    for t, side in zip(times, sides, strict=False):
        used[side] += max(0.0, t - last)
        last = t
    return {k: round(v, 2) for k, v in used.items()}
