"""``damas play``: the board (real or simulated), the live game, the records, the page."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from board_hal.backends import BoardIO
from board_hal.debounce import Transition
from board_hal.simulated import SimulatedBoard
from damas.i18n import TERMINATIONS, UI, message
from damas.session import GameSession, export_game
from damas.store import Store, StoreError
from referee import Action
from referee.core import MODES
from rules import Color, DraughtsError, Position, find_variant
from rules.errors import PdnTagError
from rules.pdn import check_tag, write_pdn

TICK = 0.02  # seconds between two looks at the sensors and the timers


class PlayApp:
    def __init__(
        self,
        store: Store,
        io: BoardIO,
        session: GameSession,
        *,
        token: str | None = None,
        language: str | None = None,
        tags: dict[str, str] | None = None,
        window: float = 0.05,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.io = io
        self.session = session
        self.token = token
        self.language = language
        self.default_tags = dict(tags or {})
        self.window = window
        self.clock = clock
        self.clients: dict[web.WebSocketResponse, str] = {}
        self.loop_task: asyncio.Task[None] | None = None
        self.version = 0
        self._dirty = False
        session.listeners.append(self._changed)

    @property
    def sim(self) -> SimulatedBoard | None:
        s = self.io.sensors
        return s if isinstance(s, SimulatedBoard) else None

    def _changed(self, _verdicts: object) -> None:
        self._dirty = True
        self.version += 1

    # -- the sensors and the timers ------------------------------------------------------------
    def pump(self) -> None:
        """Feed what the board saw, then let time pass."""
        for tr in self.io.poll():
            self.session.feed(tr)
            self._dirty = True
        self.session.tick(self.clock())
        if self._dirty:
            self.io.show((i.square, i.role) for i in self.session.referee.led_intents())

    def _next_wake(self) -> float:
        """Seconds until the loop should look again: the next tick, or sooner when a debounce
        window or a settle timer ends before it (the page then updates without waiting)."""
        pipe = self.session.pipeline
        due = [d for d in (pipe.debouncer.next_deadline(), pipe.referee.next_deadline()) if d is not None]
        if not due:
            return TICK
        return min(TICK, max(0.0, min(due) - self.clock()) + 0.001)

    async def run_loop(self) -> None:
        while True:
            try:
                self.pump()
                if self._dirty:
                    await self.broadcast()
            except Exception as exc:  # keep the board running; the problem is shown
                print(f"damas: error in the board loop: {exc}", flush=True)
            await asyncio.sleep(self._next_wake())

    async def broadcast(self) -> None:
        self._dirty = False
        self.io.show((i.square, i.role) for i in self.session.referee.led_intents())
        cache: dict[str, str] = {}
        for sock, lang in list(self.clients.items()):
            if lang not in cache:
                cache[lang] = json.dumps(self.state(lang))
            with contextlib.suppress(ConnectionError, RuntimeError):
                await sock.send_str(cache[lang])

    # -- commands -------------------------------------------------------------------------------
    def sim_event(self, op: str, square: Any, cell: Any) -> None:
        sim = self.sim
        if sim is None:
            raise ValueError("there is no simulated board: the pieces are real")
        if op not in ("lift", "place"):
            raise ValueError(f"unknown op {_shown(op)} (lift or place)")
        occupied = op == "place"
        if cell is not None:
            try:
                where = sim.layout.geometry.parse_cell(str(cell))
            except DraughtsError as exc:
                raise ValueError(str(exc)) from None
            rc = sim.layout.physical(*where)
            (sim.place_cell if occupied else sim.lift_cell)(rc, self.clock())
        else:
            if not isinstance(square, int) or isinstance(square, bool) or not 1 <= square <= sim.layout.geometry.count:
                raise ValueError(f"no square {_shown(square)}")
            (sim.place if occupied else sim.lift)(square, self.clock())
        self.pump()  # journalled before the answer: an acknowledged event is durable

    def action(self, data: dict[str, Any]) -> None:
        name = data.get("action")
        now = self.clock()
        if name == "new-game":
            fen = _text_or_none(data, "fen")
            variant = _text_or_none(data, "variant")
            mode = _text_or_none(data, "mode")
            if mode is not None and mode not in MODES:
                raise ValueError(f"unknown mode {mode[:40]!r} (casual or tournament)")
            tags = data.get("tags")
            if tags is not None:
                _check_tags(tags)
            self.new_game(fen, variant, mode, tags)
            return
        if name == "resign":
            side = data.get("side")
            if side not in ("white", "black"):
                raise ValueError("resign needs side: white or black")
            self.session.feed(Action(now, "resign", Color(side)))
        elif name == "draw":
            self.session.feed(Action(now, "draw"))
        elif name == "result":
            result = _check_result(data.get("result"))
            self.session.feed(Action(now, "result", result=result))
        else:
            raise ValueError(f"unknown action {_shown(name)}")
        self._dirty = True

    def new_game(
        self,
        fen: str | None = None,
        variant: str | None = None,
        mode: str | None = None,
        tags: dict[str, str] | None = None,
    ) -> None:
        old = self.session
        v = find_variant(variant or old.row.variant).name
        if v != old.row.variant:
            raise ValueError("the variant is chosen when damas play starts (the board's layout depends on it)")
        if fen:
            try:
                Position.from_fen(fen, v)
            except DraughtsError as exc:
                raise ValueError(str(exc)) from None
        if not old.ended:
            self.store.abandon(old.row.id)
        sim = self.sim
        if sim is not None:  # the simulated hands set the pieces up at once
            sim.set_squares(Position.from_fen(fen, v).occupied() if fen else Position.start(v).occupied())
            while not sim.transitions.empty():
                sim.transitions.get_nowait()
        squares, _cells = self.io.occupied()
        kept = {k: v for k, v in old.tags().items() if k in ("Event", "Site", "White", "Black") and _valid_tag(k, v)}
        kept.update({k: val for k, val in (tags or {}).items() if val})
        self.session = GameSession.start(self.store, v, fen, mode or old.row.mode, squares, kept, window=self.window)
        self.session.listeners.append(self._changed)
        self._dirty = True
        self.version += 1

    def correct(self, game_id: int, tags: Any, result: Any) -> None:
        """Correct a record's tags (``""`` removes one) and result; a bad tag or result is a
        ``ValueError`` naming it, and nothing is changed."""
        if tags is not None:
            _check_tags(tags)
        if result is not None:
            result = _check_result(result)
        try:
            self.store.correct(game_id, tags, result)
        except StoreError as exc:
            raise ValueError(str(exc)) from None
        self._dirty = True

    # -- views ------------------------------------------------------------------------------------
    def game_pdn(self, game_id: int) -> str:
        if game_id == self.session.row.id:
            return self.session.pdn_game().pdn()
        try:
            return export_game(self.store, game_id).pdn()
        except StoreError as exc:
            raise LookupError(str(exc)) from None

    def live_pdn(self, recent: int = 10) -> str:
        games = [self.session.pdn_game()]
        for row in self.store.games(limit=recent + 1):
            if row.id != self.session.row.id:
                games.append(export_game(self.store, row.id))
        return write_pdn(games[: recent + 1])

    def state(self, lang: str) -> dict[str, Any]:
        s = self.session
        ref = s.referee
        pos = ref.position
        geo = pos.geometry
        words = UI.get(lang, UI["en"])

        def names(squares: tuple[int, ...]) -> str:
            return ", ".join(pos.square_text(q) for q in sorted(squares))

        moves: list[dict[str, Any]] = []
        for p, entry in ref.game.steps():
            if isinstance(entry, Position):
                moves.append({"setup": entry.fen()})
            else:
                moves.append({"pdn": p.move_pdn(entry), "white": p.turn is Color.WHITE})
        outcome = ref.game.outcome()
        row = self.store.game(s.row.id)
        result = row.result if (row.result_locked or outcome is not None) else "*"
        reports = [
            {"kind": r.kind.value, "message": message(r, lang, names), "t": r.t, "squares": list(r.squares)}
            for r in s.reports()[-40:]
        ]
        active = ref.report
        return {
            "version": self.version,
            "lang": lang,
            "ui": words,
            "variant": pos.variant.name,
            "title": words.get(f"variant_{pos.variant.name}", pos.variant.title),
            "size": geo.size,
            "mode": ref.mode,
            "game": s.row.id,
            "squares": {str(q): list(geo.coord(q)) for q in geo.squares()},
            "names": {str(q): pos.square_text(q) for q in geo.squares()},
            "pieces": {str(q): piece.symbol for q, piece in pos.pieces().items()},
            "occupied": sorted(s.raw),
            "cells": sorted(s.raw_cells),
            "leds": {str(i.square): i.role.value for i in ref.led_intents()},
            "moves": moves,
            "pdn": s.pdn_game().pdn(),
            "reports": reports,
            "active": None if active is None else {"kind": active.kind.value, "message": message(active, lang, names)},
            "turn": pos.turn.value,
            "result": result,
            "termination": None
            if outcome is None
            else TERMINATIONS[lang if lang in TERMINATIONS else "en"].get(
                outcome.termination.value, outcome.termination.value
            ),
            "tags": row.tags,
            "simulated": self.sim is not None,
            "token_required": bool(self.token),
        }


#: the results a player may enter or correct: any variant's style (the writer gives the variant's)
RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "*")
MAX_TAGS = 64  # tags in one request


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _text_or_none(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} must be text, not {_shown(value)}")
    return value


def _check_result(result: Any) -> str:
    if not isinstance(result, str) or result.strip() not in RESULTS:
        raise ValueError(f"invalid result {_shown(result)} (one of {', '.join(RESULTS)})")
    return result.strip()


def _check_tags(tags: Any) -> None:
    """Tags from the page: an object of PDN tag names and text values (``""`` removes one)."""
    if not isinstance(tags, dict):
        raise ValueError("tags must be an object of tag names and values")
    if len(tags) > MAX_TAGS:
        raise ValueError(f"too many tags ({len(tags)}; at most {MAX_TAGS})")
    for key, value in tags.items():
        check_tag(key, value, strict=True)


def _valid_tag(key: str, value: Any) -> bool:
    try:
        check_tag(key, value, strict=True)
    except PdnTagError:
        return False
    return True


def sim_occupancy(session: GameSession, sim: SimulatedBoard) -> None:
    """After a resume, the simulated board holds what the journal says it held."""
    sim.set_squares(session.raw)
    for name in session.raw_cells:
        f, r = sim.layout.geometry.parse_cell(name)
        sim.place_cell(sim.layout.physical(f, r))
    while not sim.transitions.empty():
        sim.transitions.get_nowait()


def reconcile(session: GameSession, io: BoardIO, now: float) -> None:
    """After a resume, feed what differs between the journal and the real board."""
    squares, cells = io.occupied()
    for sq in sorted(session.raw - squares):
        session.feed(Transition(now, sq, False))
    for sq in sorted(squares - session.raw):
        session.feed(Transition(now, sq, True))
    for name in sorted(cells ^ session.raw_cells):
        session.feed(Transition(now, name, name in cells))
