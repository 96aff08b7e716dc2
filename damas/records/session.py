"""A live game: raw events are journalled (durably) first, then run through the same
pipeline as ``damas replay`` (debounce -> referee), then recorded and announced.

Resuming replays the journal, so a restarted ``damas play`` is exactly where it was.
"""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
import time
from collections.abc import Callable, Iterable
from typing import Any

from board_hal.backends import LinkStatus
from board_hal.buttons import ButtonPress
from board_hal.debounce import DEFAULT_WINDOW, Transition
from board_hal.squares import SquareState
from damas.records.journal import events_phrase, holes, prefix
from damas.records.store import ABANDONED, ANALYSIS, INTERRUPTED, GameRow, Store, StoreError
from referee import (
    Action,
    ClockAction,
    ClockKeeper,
    GameEnd,
    Link,
    MoveMade,
    Pipeline,
    Referee,
    Report,
    Takeback,
    Verdict,
)
from referee.clock import ClockError, parse_control, shown_seconds
from referee.colour import make_referee, pieces_from_json
from referee.log import COLOUR_FORMAT, UID_FORMAT, LogError, LogEvent, LogHeader, event_to_json, parse_log
from referee.vocabulary import Mode
from rules import Color, DraughtsError, Game, Move, Position, Termination
from rules.pdn import Clock as PdnClock
from rules.pdn import PdnGame

Records = tuple[list[tuple[int, str, int, int, list[int], float]], list[int], list[tuple[float, str, list[int], str]]]


class DamagedGame(StoreError):
    """A game whose journal cannot be replayed (one line: which game, which event, why)."""


def load_log(store: Store, row: GameRow, *, partial: bool = False) -> tuple[LogHeader, list[LogEvent], str | None]:
    """A stored game's log. When it is damaged, raise :class:`DamagedGame`, or with
    ``partial`` return the events before the damage and what was wrong."""
    problem = None
    if row.damage:
        problem = f"game {row.id}: {'; '.join(row.damage)}"
    try:
        rows = store.journal_rows(row.id)
    except StoreError as exc:
        rows = []
        problem = problem or f"game {row.id}: its journal cannot be read ({exc})"
    whole = prefix(seq for seq, _text in rows)
    if whole < len(rows):  # a hole: the events after it cannot be replayed
        missing = holes(seq for seq, _text in rows)
        problem = problem or (
            f"game {row.id}: its journal in the database lacks {events_phrase(missing)} "
            f"(it holds {events_phrase(seq for seq, _text in rows)})"
        )
        rows = rows[:whole]
    lines = [json.dumps(row.header)] + [str(text) for _seq, text in rows]
    try:
        header, events = parse_log(lines, f"game {row.id}", row.variant)
    except LogError as exc:
        why = str(exc).split(": ", 1)[-1]
        if exc.line >= 2:
            problem = problem or f"game {row.id}: journal event {rows[exc.line - 2][0]} is damaged ({why})"
        else:
            problem = problem or f"game {row.id}: its header is damaged ({why})"
        lines = lines[: max(exc.line - 1, 1)]
        header, events = parse_log(lines, f"game {row.id}", row.variant) if exc.line > 1 else (LogHeader(), [])
    if problem is not None and not partial:
        raise DamagedGame(problem)
    return header, events, problem


class GameSession:
    def __init__(self, store: Store, row: GameRow, *, window: float = 0.05) -> None:
        self.store = store
        self.row = row
        h = row.header
        self.pipeline = _pipeline(row, window)
        self.referee = self.pipeline.referee
        self.clock = self.pipeline.clock
        self.seq = 0
        self.last_t = -math.inf
        self.history: list[Verdict] = []
        self.listeners: list[Callable[[list[Verdict]], None]] = []
        self.raw: set[int] = set(h["board"]) if h.get("board") is not None else set(self.referee.occupied)
        self.raw_cells: set[str] = set()
        self._unwritten: list[tuple[Records, GameEnd | None]] = []  # records a failed write left to do
        self.record_error: str | None = None  # why the last write of the records failed
        self.link = "up"  # the board's link, as journalled
        self.link_since: float | None = None  # when it last changed

    # -- creating and resuming ---------------------------------------------------------------
    @classmethod
    def start(
        cls,
        store: Store,
        variant: str,
        fen: str | None,
        mode: Mode,
        board: Iterable[int],
        tags: dict[str, str],
        *,
        window: float = 0.05,
        clock: str | None = None,
        clock_auto: bool = False,
        clock_name: str | None = None,
        senses: str | None = None,
        pieces: dict[int, SquareState] | None = None,
        broken: Iterable[int] = (),
        purpose: str | None = None,
        study: int | None = None,
        aside: int | None = None,
    ) -> GameSession:
        """A new game; ``clock``: its time control (None or ``none``: no clock), ``clock_auto``:
        in casual mode, a recorded move presses the clock; ``clock_name``: the name the control
        was chosen by (``fenacef``), kept for the page; ``senses``: what a board that senses
        colour tells (``colour``, ``crown``), ``pieces``: what it read (its journal is then of
        format 2, and its referee reads pieces: ``referee.colour``); ``broken``: the squares whose
        sensor the self-test found broken (``board_hal.health``); ``purpose``: a session that is
        not a game (``training``, ``analysis``: ``Store.new_game``), said in its log's header too;
        ``aside``: the game a training leaves, played on when it stops (``damas games`` says so)."""
        extra: dict[str, Any] = {}
        if clock is not None and not parse_control(clock).none:
            extra = {"clock": clock, "clock_auto": clock_auto}
            if clock_name is not None:
                extra["clock_name"] = clock_name
        if purpose is not None:
            extra["purpose"] = purpose
        if study is not None:  # (an analysis on the board: the study its lines are followed in)
            extra["study"] = study
        if aside is not None:  # (a training: the game it leaves)
            extra["aside"] = aside
        header = LogHeader(
            variant=variant,
            fen=fen,
            mode=mode,
            board=sorted(board),
            extra=extra,
            senses=senses or None,
            pieces=pieces if senses else None,
            broken=sorted(broken) or None,
        ).to_json()
        tags = {"Date": datetime.date.today().strftime("%Y.%m.%d"), **tags}  # every new game has its date
        game_id = store.new_game(variant, fen, mode, header, tags, uid=True, purpose=purpose)
        return cls(store, store.game(game_id), window=window)

    @classmethod
    def resume(cls, store: Store, row: GameRow, *, window: float = 0.05, now: float | None = None) -> GameSession:
        """Rebuild a game from its journal (nothing is written but the derived moves, and the
        clock's pause); time then catches up with ``now``, as it did while the program was away.

        A running game clock comes back paused with the times it showed when the program
        stopped (its last sign of life, :meth:`Store.alive`): no time is charged for the
        outage; a press of the player to move, or the arbiter, resumes it.
        A journal that cannot be replayed raises :class:`DamagedGame`."""
        _header, events, _problem = load_log(store, row)
        s = cls._replayed(store, row, events, window)
        now = max(time.time() if now is None else now, s.last_t)
        if s.clock is not None and s.clock.clock.ticking:
            alive = store.alive(row.id)
            stopped = min(now, max(s.last_t, alive if alive is not None else s.last_t))
            s.history += s.pipeline.advance(stopped)  # a flag that fell before the outage falls again
            if s.clock.clock.ticking:
                s.feed(ClockAction(stopped, "clock-pause", source="power"))
        s.history += s.pipeline.advance(now)
        store.rewrite_moves(row.id, s._move_rows())
        o = s.referee.game.outcome()
        if o is not None and row.ended is None:
            store.finish(row.id, o.result(s.referee.variant), o.termination.value)
        return s

    @classmethod
    def _replayed(cls, store: Store, row: GameRow, events: list[LogEvent], window: float) -> GameSession:
        s = cls(store, row, window=window)
        for ev in events:
            s._apply_raw(ev)
            s.history += s.pipeline.feed(ev)
            s.last_t = ev.t
            s.seq += 1
        return s

    def _move_rows(self) -> list[tuple[int, str, int, int, list[int], float]]:
        rows: list[tuple[int, str, int, int, list[int], float]] = []
        times = self.referee.clock
        for pos, entry in self.referee.game.steps():
            if isinstance(entry, Move):  # (set-ups of accepted irregularities are not moves)
                ply = len(rows) + 1
                rows.append(
                    (ply, pos.pdn(entry), entry.from_square, entry.to_square, list(entry.captured), times[ply - 1])
                )
        return rows

    # -- live input ------------------------------------------------------------------------
    def _apply_raw(self, ev: Transition | Action | Link | ClockAction) -> None:
        if isinstance(ev, Link):
            if ev.state in ("up", "down"):
                self.link, self.link_since = ev.state, ev.t
            if ev.state == "up":
                self.raw, self.raw_cells = set(ev.board), set(ev.cells)
            return
        if isinstance(ev, (Action, ClockAction)):
            return
        if isinstance(ev.key, str):
            (self.raw_cells.add if ev.occupied else self.raw_cells.discard)(ev.key)
        else:
            (self.raw.add if ev.occupied else self.raw.discard)(ev.key)

    def feed(self, ev: Transition | Action | ClockAction | ButtonPress | LinkStatus) -> list[Verdict]:
        """A raw event: journal it durably, then run it through the pipeline. When it cannot
        be journaled, :class:`StoreError` is raised and nothing has changed.

        Its time is taken as the journal writes it (to 0.1 ms), so that a replay of the
        journal computes exactly what live play showed (the clock's times to the unit)."""
        if isinstance(ev, LinkStatus):
            return self.link_changed(ev)
        if isinstance(ev, ButtonPress):
            ev = ClockAction(ev.t, "clock", Color(ev.side), ev.source)
        t = max(round(ev.t, 4), self.last_t)
        if t != ev.t:  # the same event at the journal's time (every field kept: a computer's level, a move)
            ev = dataclasses.replace(ev, t=t)
        if isinstance(ev, Transition) and ev.piece is not None and not self.row.header.get("senses"):
            ev = dataclasses.replace(ev, piece=None)  # a game begun as presence only stays so (format 1)
        self.store.append(self.row.id, self.seq, event_to_json(ev))
        self.seq += 1
        self.last_t = t
        self._apply_raw(ev)
        verdicts = self.pipeline.feed(ev)
        if isinstance(ev, Action) and ev.action == "position":  # another line: the moves recorded are not its
            self._unwritten.append((([], [1], []), None))
            self.write_records()
        return self._record(verdicts)

    def link_changed(self, status: LinkStatus) -> list[Verdict]:
        """The board's link went down or came back (journalled like any event); after a
        reconnect the referee reconciles, and the moves it recorded are noted too."""
        t = max(status.t, self.last_t)
        if status.up:
            pieces = tuple(sorted(status.pieces.items())) if self.row.header.get("senses") else ()
            ev = Link(
                t, "up", tuple(sorted(status.squares)), tuple(sorted(status.cells)), lost=status.lost, pieces=pieces
            )
        else:
            ev = Link(t, "down")
        self.store.append(self.row.id, self.seq, event_to_json(ev))
        self.seq += 1
        self.last_t = t
        self._apply_raw(ev)
        verdicts = self.pipeline.feed(ev)
        made = [v.pdn for v in verdicts if isinstance(v, MoveMade) and v.reconstructed]
        if made:  # a note only (a replay derives the moves again from the "up" line): never fatal
            try:
                self.store.append(self.row.id, self.seq, event_to_json(Link(t, "reconstructed", moves=tuple(made))))
                self.seq += 1
            except StoreError:
                pass
        self._record(verdicts)
        if not verdicts:  # nothing judged, but the page shows the link's state
            for listener in list(self.listeners):
                listener(verdicts)
        return verdicts

    def tick(self, now: float) -> list[Verdict]:
        if now < self.last_t:
            return []
        return self._record(self.pipeline.advance(now))

    def _record(self, verdicts: list[Verdict]) -> list[Verdict]:
        if not verdicts:
            return verdicts
        moves = []
        withdrawn = []
        reports = []
        end: GameEnd | None = None
        for v in verdicts:
            if isinstance(v, MoveMade):
                moves.append((v.ply, v.pdn, v.move.from_square, v.move.to_square, list(v.move.captured), v.t))
            elif isinstance(v, Takeback):
                withdrawn.append(v.ply)
                moves = [m for m in moves if m[0] < v.ply]
            elif isinstance(v, Report):
                reports.append((v.t, v.kind.value, list(v.squares), v.message))
            elif isinstance(v, GameEnd) and self.row.purpose != ANALYSIS:  # (an analysis' line ends, not the session)
                end = v
                if v.termination == "time-forfeit" and self.clock is not None and self.clock.clock.flag is not None:
                    self._note_flag(v.t, self.clock.clock.flag)
        self.history += verdicts
        self._unwritten.append(((moves, withdrawn, reports), end))
        self.write_records()
        for listener in list(self.listeners):
            listener(verdicts)
        return verdicts

    def _note_flag(self, t: float, side: Color) -> None:
        """A note in the journal that the flag fell (the replay derives it from the times; the
        note makes the log reach that time). Never fatal: the times tell it anyway."""
        t = max(round(t, 4), self.last_t)
        try:
            self.store.append(self.row.id, self.seq, event_to_json(ClockAction(t, "flag", side)))
        except StoreError:
            return
        self.seq += 1
        self.last_t = t

    def write_records(self) -> bool:
        """Write the moves, reports and end that are still to be written, in order. The
        journal already holds their events, so a failure here loses nothing: it is noted in
        ``record_error`` and the next call tries again."""
        while self._unwritten:
            (moves, withdrawn, reports), end = self._unwritten[0]
            try:
                if moves or withdrawn or reports:
                    self.store.record(self.row.id, moves, withdrawn, reports)
                    self._unwritten[0] = (([], [], []), end)
                if end is not None:
                    self.store.finish(self.row.id, end.result, end.termination)
            except StoreError as exc:
                self.record_error = str(exc)
                return False
            self._unwritten.pop(0)
        self.record_error = None
        return True

    # -- views -------------------------------------------------------------------------------
    @property
    def ended(self) -> bool:
        return self.referee.ended

    def tags(self) -> dict[str, str]:
        row = self.store.game(self.row.id)
        self.row = row
        return dict(row.tags)

    def pdn_game(self) -> PdnGame:
        row = self.store.game(self.row.id)
        tags = dict(row.tags)
        result = row.result if (row.result_locked or self.referee.ended) else None
        pg = self.pipeline.pdn_game(tags)
        if result is not None:
            pg.result = result
        return with_ending(pg, self.pipeline, row)

    def reports(self) -> list[Report]:
        return [v for v in self.history if isinstance(v, Report)]

    def snapshot(self) -> dict[str, Any]:
        return {"occupied": sorted(self.raw), "cells": sorted(self.raw_cells)}


def replay_check(store: Store, game_id: int, *, partial: bool = False) -> str | None:
    """Replay a stored game's journal as a resume does (its moves written again from it):
    ``None`` when it replays, else what stops it (one line). ``partial``: a game known to be
    damaged, whose moves are those of the events before the damage."""
    try:
        row = store.game(game_id)
        if partial:
            _header, events, problem = load_log(store, row, partial=True)
            session = GameSession._replayed(store, row, events, 0.05)
            session.history += session.pipeline.advance(session.last_t + 60.0)
            store.rewrite_moves(game_id, session._move_rows())
            return problem
        GameSession.resume(store, row)
    except DamagedGame as exc:
        return str(exc)
    except (DraughtsError, ValueError) as exc:  # a row or a header the referee cannot take
        return f"game {game_id}: cannot be replayed ({exc})"
    return None


def _pipeline(row: GameRow, window: float = DEFAULT_WINDOW) -> Pipeline:
    """A stored game's pipeline before its first event, as live play, a resume and an export
    all replay its journal through it: the referee its row asks for (variant, start position,
    mode, the board as the log began) and the game clock its header names."""
    h = row.header
    senses = h.get("senses") if h.get("format") in (COLOUR_FORMAT, UID_FORMAT) else None
    referee = make_referee(
        row.variant,
        row.fen,
        mode=row.mode,
        board=h.get("board"),
        senses=senses if senses in ("colour", "crown") else None,
        pieces=pieces_from_json(h.get("pieces")),
        suspects=_squares(h.get("broken")),
        draw_rules=row.purpose != ANALYSIS,  # an analysis' line goes on after a draw rule (it is said)
    )
    return Pipeline(referee, window, _keeper(row.header, referee))


def _squares(obj: object) -> list[int]:
    """A header's list of square numbers (``broken``), or none if it is not one."""
    if not isinstance(obj, list):
        return []
    return [x for x in obj if isinstance(x, int) and not isinstance(x, bool)]


def _keeper(header: dict[str, Any], referee: Referee) -> ClockKeeper | None:
    """The game clock a stored header asks for (a damaged one: none; ``load_log`` says why)."""
    try:
        return ClockKeeper.from_header(header, referee)
    except ClockError:
        return None


def export_game(store: Store, game_id: int, notes: list[str] | None = None) -> PdnGame:
    """A stored game as PDN: its journal replayed (set-ups included), with its tags and result.
    A damaged journal gives the game up to the damage, and the problem goes to ``notes``."""
    row = store.game(game_id)
    _header, events, problem = load_log(store, row, partial=True)
    if problem is not None and notes is not None:
        notes.append(problem)
    pipe = _pipeline(row)
    pipe.run(events)
    pg = pipe.pdn_game(dict(row.tags))
    if row.result_locked or row.ended is not None:
        pg.result = row.result
    return with_ending(pg, pipe, row)


def lines_played(store: Store, game_id: int) -> list[tuple[Position, list[Move]]]:
    """The lines a session played on the board (an analysis: each position of its study set up),
    in order: each start (its log's, then each ``position`` line's, or the header's again after a
    ``new-game``) and the moves made from it as they stood when the next was set up (a move taken
    back on the board is not in them). A damaged journal: the lines before the damage."""
    row = store.game(game_id)
    _header, events, _problem = load_log(store, row, partial=True)
    pipe = _pipeline(row)
    lines: list[tuple[Position, list[Move]]] = []

    def line() -> None:
        game = pipe.referee.game
        start, moves = game.positions()[0], []
        for _before, step in game.steps():
            if isinstance(step, Move):
                moves.append(step)
            else:  # (a set-up: an irregular position accepted, the line goes on from it)
                start, moves = step, []
        lines.append((start, moves))

    for ev in events:
        if isinstance(ev, Action) and ev.action in ("position", "new-game"):
            pipe.advance(ev.t)  # (what settled before it belongs to the line before)
            line()
        pipe.feed(ev)
    pipe.finish()
    line()
    return lines


def recorded_game(store: Store, game_id: int) -> Game:
    """A stored game as the referee played it (its journal replayed; a damaged journal: the game
    up to the damage)."""
    row = store.game(game_id)
    _header, events, _problem = load_log(store, row, partial=True)
    pipe = _pipeline(row)
    pipe.run(events)
    return pipe.referee.game


def with_ending(pg: PdnGame, pipe: Pipeline, row: GameRow) -> PdnGame:
    """The record's end as the players saw it: a ``Termination`` tag (as PGN and lidraughts write
    it: ``Normal``, ``Time forfeit``, ``Abandoned``), and the clocks when the game ended, after
    the last move, when they differ from its own (a flag, a resignation while a clock ran)."""
    outcome = pipe.referee.game.outcome()
    if "Termination" not in pg.tags:
        if outcome is not None:
            forfeit = outcome.termination is Termination.TIME_FORFEIT
            pg.tags["Termination"] = "Time forfeit" if forfeit else "Normal"
        elif row.state in (ABANDONED, INTERRUPTED):
            pg.tags["Termination"] = "Abandoned"
    keeper = pipe.clock
    if keeper is not None and pg.moves and (keeper.clock.flag is not None or keeper.clock.stopped):
        left = keeper.clock.left
        final = PdnClock(shown_seconds(left[Color.WHITE]), shown_seconds(left[Color.BLACK]), None)
        shown = pg.moves[-1].clock
        if shown is None or (shown.white, shown.black) != (final.white, final.black):
            pg.moves[-1].comments.append(final.comment())
    return pg
