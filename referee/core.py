"""The referee: settled square events in, verdicts and LED intents out.

It never touches hardware or files, and time comes only from the events. The idea:
after every event the sensed occupancy ``S`` is compared with

* the game's position ``E`` (in sync: nothing pending, or an adjustment);
* the result of each legal move (a match *is* the move: distinct legal moves never
  leave the same occupancy; touch-downs pick the route for the record);
* in casual mode, the previous position (a takeback) or the result of another move
  from it (a correction of the last move); in tournament mode these are reported;
* the intermediate states of every legal move (origin lifted, touch-downs on landing
  squares, captured pieces removed in any order, before or after the landing): then
  the referee waits.

Anything else is reported once the board has been still for ``settle_time`` seconds,
with restore guidance (missing / extra squares). It never records a guess.

A state that would be reported at once (a piece that cannot capture held up while a
capture is compulsory, a tournament takeback or correction, pieces moved after the end)
is reported only once the board has kept it for ``grace_time`` (a third of a second):
a sleeve brushing a piece off its sensor and back raises no alarm. A king that stops on
a square from which it could slide on along the same line is recorded after the same
grace (a slow drag is one move); if it rests longer and then slides on, the move is
read again, silently, in both modes.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass

from board_hal.debounce import Transition
from referee.expect import expected_leds, expected_message, parse_engine_move
from referee.reconstruct import MAX_PLIES, reconstruct
from referee.vocabulary import GameEnd, LedIntent, MoveMade, Report, ReportKind, Role, Takeback, Verdict
from rules import CaptureLaw, Color, Game, Move, Position, find_variant
from rules.engine import engine_for
from rules.pdn import PdnGame
from rules.variants import Variant

MODES = ("casual", "tournament")
DEFAULT_SETTLE = 1.0
#: how long a state must hold before it raises an alarm (or a king's stop counts as its move)
DEFAULT_GRACE = 1 / 3
#: settled events kept while the board differs from the game (a move needs a few dozen; a board
#: left in disarray must not make every event slower than the last)
MAX_EVENTS = 256


@dataclass(frozen=True)
class Action:
    """Something the players entered: resign (with side), draw, result (with result), new-game;
    or the app: computer (the side it plays from now, with its level; no side: nobody),
    computer-move (with the move, ``22-17`` or ``fromxtoxcaptured...``; see referee.expect)."""

    t: float
    action: str
    side: Color | None = None
    result: str | None = None
    move: str | None = None
    level: int | None = None


ACTIONS = ("resign", "draw", "result", "new-game", "computer", "computer-move")


@dataclass(frozen=True)
class Link:
    """The board's link (DESIGN.md §4): ``down``; ``up`` again, with the whole occupancy
    then (``board`` squares, ``cells`` non-playing cells) — also after frames were lost on
    a noisy line, with ``lost``, how many frames (the board sends one on every change, so
    no more moves can hide in the gap); ``reconstructed``: a note of the moves an ``up``
    recorded (``moves``, as the record wrote them; a replay derives them again)."""

    t: float
    state: str
    board: tuple[int, ...] = ()
    cells: tuple[str, ...] = ()
    moves: tuple[str, ...] = ()
    lost: int | None = None


LINK_STATES = ("down", "up", "reconstructed")
#: the PDN comment on a move recorded from the occupancy after a link gap
RECONSTRUCTED_COMMENT = "reconstructed: played while the board was not connected"


def _key(ev: Transition) -> int:
    """The square of a square event (the referee keeps only those in ``events``)."""
    assert isinstance(ev.key, int)
    return ev.key


@dataclass(frozen=True)
class _Candidate:
    """A legal move seen from a base position, with what its execution may look like."""

    base: Position
    move: Move
    before: frozenset[int]
    after: frozenset[int]
    landings: frozenset[int]
    origin: int
    dest: int
    captured: frozenset[int]

    def in_progress(self, s: frozenset[int]) -> bool:
        """Could ``s`` be the board part-way through this move?"""
        missing = self.before - s
        added = s - self.before
        if not missing <= ({self.origin} | self.captured):
            return False
        if len(added) > 1 or not added <= ({self.dest} | self.landings):
            return False
        return not (added and self.origin in s)


def _candidates(pos: Position) -> list[_Candidate]:
    out = []
    before = pos.occupied()
    for m in pos.legal_moves():
        routes = pos.routes(m)
        landings = frozenset(sq for r in routes for sq in r.path[1:-1])
        after = pos.apply(m).occupied()
        out.append(_Candidate(pos, m, before, after, landings, m.from_square, m.to_square, frozenset(m.captured)))
    return out


def _stopped_mid_chain(live: list[_Candidate], s: frozenset[int], e: frozenset[int]) -> bool:
    """Is the capturing piece standing on an intermediate landing square (of every
    capture still possible), not on a final one?"""
    added = s - e
    return bool(live) and bool(added) and all(added <= c.landings - {c.dest} for c in live)


def _slides_past(pos: Position, short: Move, long: Move) -> bool:
    """Does ``long`` take the same piece the same way as ``short``, then further along the
    same line (``short``'s destination strictly inside ``long``'s last leg)?"""
    if (
        short.from_square != long.from_square
        or set(short.captured) != set(long.captured)
        or len(short.path) != len(long.path)
        or short.path[-2] != long.path[-2]
    ):
        return False
    geo = pos.geometry
    (fa, ra), (fb, rb), (fs, rs) = geo.coord(long.path[-2]), geo.coord(long.to_square), geo.coord(short.to_square)
    if abs(fb - fa) != abs(rb - ra):
        return False
    n, k = abs(fb - fa), abs(fs - fa)
    return 0 < k < n and (fs - fa) * n == k * (fb - fa) and (rs - ra) * n == k * (rb - ra)


class Referee:
    """Turns settled square events into moves, reports and LED intents for one game."""

    def __init__(
        self,
        variant: Variant | str = "brazilian",
        fen: str | None = None,
        *,
        mode: str = "casual",
        hints: bool = True,
        settle_time: float = DEFAULT_SETTLE,
        board: Iterable[int] | None = None,
        grace_time: float = DEFAULT_GRACE,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode: {mode!r} (casual or tournament)")
        self.variant = find_variant(variant)
        self.fen = fen
        self.mode = mode
        self.hints = hints
        self.settle_time = settle_time
        self.grace_time = grace_time
        self.game = Game(self.variant, fen)
        self.occupied: set[int] = set(board) if board is not None else set(self.game.position.occupied())
        self.cells: set[str] = set()
        self.events: list[Transition] = []  # settled events since the board last matched the game
        self.report: Report | None = None  # the active report (an irregular state)
        self.reports: list[Report] = []  # every report, for the record
        self.clock: list[float] = []  # time of each move
        self._reported: object = None
        self._deadline: float | None = None
        self._irregular: Position | None = None
        self._since = 0.0  # time of the last square or cell event: the board has been still since
        self._grace: float | None = None  # when the present state will have held for grace_time
        self._setup = frozenset(self.occupied) != self.game.position.occupied()
        if self._setup:
            self._deadline = -math.inf  # report the set-up at the first tick
        self._touch_noticed: set[int] = set()
        self._cache: dict[Position, list[_Candidate]] = {}
        self._free = engine_for(dataclasses.replace(self.variant, capture_law=CaptureLaw.FREE, name="free"))
        self.t = 0.0
        self.reconstructed: set[int] = set()  # plies recorded from the occupancy after a link gap
        self._batch: tuple[Move, ...] = ()  # the moves the last reconnect recorded (lit until the next move)
        self.computer: Color | None = None  # the side whose moves are set from outside (referee.expect)
        self.computer_level: int | None = None
        self._expected: dict[Position, Move] = {}  # the computer's move in each position it was given for

    # -- helpers ---------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        return self.game.position

    # -- the computer's side (referee.expect) ------------------------------------------------
    def expected(self) -> Move | None:
        """The computer's move the hands are to play now (None: not its turn, or not known yet)."""
        if self.computer is None or self.position.turn is not self.computer:
            return None
        return self._expected.get(self.position)

    def _directed(self, pos: Position) -> bool:
        """Are the moves of ``pos``'s side to move set from outside?"""
        return self.computer is not None and pos.turn is self.computer

    def _allowed(self, c: _Candidate) -> bool:
        """May the hands play ``c``? On the computer's side, only the computer's move."""
        return not self._directed(c.base) or self._expected.get(c.base) == c.move

    def _computer_action(self, a: Action, out: list[Verdict]) -> None:
        if a.action == "computer":
            self.computer = a.side
            self.computer_level = a.level if a.side is not None else None
        elif self._directed(self.position) and not self.ended and a.move is not None:
            move = parse_engine_move(self.position, a.move)
            if move is None:
                return  # not a move of this position (a log written for another): nothing is expected
            self._expected[self.position] = move
        if not self._setup and not self.ended:
            self._reported = None
            self._evaluate(out)

    @property
    def ended(self) -> bool:
        return self.game.outcome() is not None

    def _cands(self, pos: Position) -> list[_Candidate]:
        c = self._cache.get(pos)
        if c is None:
            if len(self._cache) > 64:
                self._cache.clear()
            c = self._cache[pos] = _candidates(pos)
        return c

    def _name(self, sq: int) -> str:
        return self.position.square_text(sq)

    def _names(self, squares: Iterable[int]) -> str:
        return ", ".join(self._name(s) for s in sorted(squares))

    def _prev(self) -> Position | None:
        """The position before the last move (None at the start or after a set-up)."""
        hist = self.game.history()
        if not hist or not isinstance(hist[-1], Move):
            return None
        return self.game.positions()[-2]

    def _emit_report(
        self,
        out: list[Verdict],
        kind: ReportKind,
        squares: Iterable[int],
        message: str,
        *,
        missing: Iterable[int] = (),
        extra: Iterable[int] = (),
        active: bool = True,
        params: dict[str, object] | None = None,
    ) -> Report:
        r = Report(
            kind,
            tuple(sorted(set(squares))),
            message,
            self.t,
            tuple(sorted(set(missing))),
            tuple(sorted(set(extra))),
            tuple(sorted(self.cells)) if kind is ReportKind.OFF_SQUARE else (),
            dict(params or {}),
        )
        same = self.report is not None and (self.report.kind, self.report.squares, self.report.message) == (
            r.kind,
            r.squares,
            r.message,
        )
        if active and same:
            self.report = r  # only the restore guidance changed: the LEDs follow, nothing new to announce
            return r
        out.append(r)
        self.reports.append(r)
        if active:
            self.report = r
        return r

    def _clear_report(self, out: list[Verdict]) -> None:
        if self.report is not None and self.report.kind not in (ReportKind.TOUCH_MOVE, ReportKind.PROCEDURE):
            self._emit_report(out, ReportKind.RESTORED, (), "the board matches the game again", active=False)
        self.report = None
        self._reported = None
        self._deadline = None

    # -- input -------------------------------------------------------------------------------
    def feed(self, event: Transition | Action) -> list[Verdict]:
        """Take one settled event (or an entered action); returns the verdicts it causes."""
        out = self.tick(event.t)
        self.t = max(self.t, event.t)
        if isinstance(event, Action):
            self._action(event, out)
            return out
        key = event.key
        self._since = max(self._since, event.t)
        self._grace = None
        if isinstance(key, str):
            if event.occupied:
                self.cells.add(key)
            else:
                self.cells.discard(key)
        else:
            if event.occupied:
                self.occupied.add(_key(event))
            else:
                self.occupied.discard(_key(event))
            self.events.append(event)
            if len(self.events) > MAX_EVENTS:
                del self.events[: len(self.events) - MAX_EVENTS]
        self._evaluate(out)
        return out

    def tick(self, now: float) -> list[Verdict]:
        """Let time pass: a state held for the grace period raises its alarm (or its move),
        a board that has been still long enough gets its report."""
        out: list[Verdict] = []
        while (due := self.next_deadline()) is not None and now >= due:
            if due == self._grace:
                self._grace = None
                self.t = max(self.t, due)
                self._evaluate(out)
                continue
            self.t = max(self.t, due if math.isfinite(due) else now)
            self._deadline = None
            self._settled(out)
        return out

    def next_deadline(self) -> float | None:
        due = [d for d in (self._grace, self._deadline) if d is not None]
        return min(due) if due else None

    def _held(self) -> bool:
        """Has the board kept its present state for ``grace_time``? If not, look again then."""
        due = self._since + self.grace_time
        if self.t >= due:
            return True
        self._grace = due
        return False

    # -- actions -----------------------------------------------------------------------------
    def _action(self, a: Action, out: list[Verdict]) -> None:
        if a.action in ("computer", "computer-move"):
            self._computer_action(a, out)
            return
        if a.action == "new-game":
            self.game = Game(self.variant, self.fen)
            self.events.clear()
            self.report = None
            self._reported = None
            self._deadline = None
            self._grace = None
            self._irregular = None
            self.clock.clear()
            self.reconstructed.clear()
            self._expected.clear()
            self._setup = frozenset(self.occupied) != self.position.occupied()
            self._evaluate(out)
            return
        if self.ended:
            return
        if a.action == "resign":
            side = a.side or self.game.turn
            self.game.resign(side)
        elif a.action == "draw":
            self.game.agree_draw()
        elif a.action == "result":
            self.game.set_result(a.result or "*")
        else:
            raise ValueError(f"unknown action: {a.action!r}")
        self._end(out)

    def _end(self, out: list[Verdict]) -> None:
        o = self.game.outcome()
        if o is not None:
            out.append(GameEnd(o.result(self.variant), o.termination.value, self.t))

    # -- the core ----------------------------------------------------------------------------
    def _evaluate(self, out: list[Verdict]) -> None:
        pos = self.position
        s = frozenset(self.occupied)
        e = pos.occupied()
        if self._setup:
            if s == e and not self.cells:
                self._setup = False
                self.events.clear()
                self.report = None
                self._deadline = None
                self._emit_report(out, ReportKind.SETUP_OK, (), "the board is set up; play can start", active=False)
            else:
                self._deadline = self.t + self.settle_time
            return
        if self.ended:
            if self._read_again_at_the_end(s, out):
                return
            if s == e and not self.cells:
                self._reported = None
            elif self._reported != "over" and self._held():
                self._reported = "over"
                self._emit_report(
                    out, ReportKind.GAME_OVER, sorted(s ^ e), "the game is over: no more moves", active=False
                )
            return
        if self.cells:
            self._deadline = self.t + self.settle_time
            return
        if s == e:
            self._sync(out)
            return
        cands = self._cands(pos)
        for c in cands:
            if c.after == s and self._allowed(c):
                if self._may_slide_on(c) and not self._held():
                    self._deadline = None  # a king on its way: the move is read once it stops
                    return
                self._commit(c, out)
                return
        if self._irregular is not None and not self._directed(self._irregular):
            for c in self._cands(self._irregular):
                if c.after == s:
                    self._accept(c, out)
                    return
        prev = self._prev()
        if prev is not None:
            last = self.game.move_stack[-1]
            if s == prev.occupied():
                if self.mode == "casual":
                    self._takeback(out)
                    return
                if self._held():
                    self._irregular_report(
                        out, s, ReportKind.TAKEBACK, last.path, "the last move was taken back: put it back", target=e
                    )
                self._deadline = None
                return
            for c in self._cands(prev):
                if c.after != s or c.move == last or not self._allowed(c):
                    continue
                # the board is the result of another move from the previous position
                if self.mode == "casual" or self._slid_on(prev, last, c) or self._removals_told(last, c):
                    self._takeback(out)
                    # read again: the removals and touches were judged with the first reading
                    self._commit(self._cands(self.position)[self._index(self.position, c.move)], out, again=last)
                elif self._held():
                    moved_again = any(ev.key == last.to_square and not ev.occupied for ev in self.events)
                    shown = prev.move_pdn(c.move)
                    self._irregular = prev.apply(c.move)
                    self._irregular_report(
                        out,
                        s,
                        ReportKind.CORRECTION,
                        c.move.path,
                        "a piece was moved again after it was released"
                        if moved_again
                        else f"the last move was changed after it was released: the board shows {shown}",
                        target=e,
                    )
                else:
                    self._deadline = None
                return
        # a fast reply: the move is complete except that the opponent already lifted a piece
        for c in cands:
            gone = c.after - s
            if not s - c.after and len(gone) == 1 and self._allowed(c):
                (x,) = gone
                piece = pos.apply(c.move).piece_at(x)
                if piece is not None and piece.color is pos.turn.other and x not in c.captured:
                    lift = [ev for ev in self.events if ev.key == x and not ev.occupied]
                    self._commit(c, out)
                    self.events = lift[-1:]
                    self._evaluate(out)
                    return
        if self._directed(pos):
            self._computer_turn(s, e, cands, out)
            return
        live = [c for c in cands if c.in_progress(s)]
        # a piece the last move captured is back on its square (brushed off and back, taken for
        # its removal): that removal is still going on, so nothing is an alarm before settle_time
        back = bool(self.game.move_stack and s & set(self.game.move_stack[-1].captured))
        if not live and not back and self._required_capture_now(s, e, out):
            self._deadline = None
            return
        if live or self._in_progress(s):
            # a move under way; a capture paused on an intermediate landing is reported
            # only once the board has been still there (it may be a touch-down)
            self._deadline = self.t + self.settle_time if _stopped_mid_chain(live, s, e) else None
            if not live and self._irregular is None:
                # a takeback or correction under way (the last move's piece lifted, its captured
                # pieces put back): if the board stays so, it is out of step with the game
                self._deadline = self.t + self.settle_time
            if self.report is not None and self.report.kind in (
                ReportKind.REQUIRED_CAPTURE,
                ReportKind.NO_LEGAL_MOVE,
            ):
                self._clear_report(out)
            return
        self._deadline = self.t + self.settle_time

    def _computer_turn(self, s: frozenset[int], e: frozenset[int], cands: list[_Candidate], out: list[Verdict]) -> None:
        """The computer's turn, the board differing from the game: its move under way (or a
        takeback of the player's move) is waited for; anything else is reported once held."""
        expected = [c for c in cands if self._allowed(c) and c.in_progress(s)]
        prev = self._prev()
        taking_back = prev is not None and any(c.in_progress(s) for c in self._cands(prev))
        if expected or taking_back:
            self._deadline = None if expected else self.t + self.settle_time
            if self.report is not None and self.report.kind is ReportKind.COMPUTER_MOVE:
                self._clear_report(out)
            return
        if any(c.in_progress(s) and c.after != s for c in cands):
            # another piece in the hand: said once the board has been still (it may be put back)
            self._deadline = self.t + self.settle_time
            return
        if self._held():
            self._computer_report(s, e, out)

    def _computer_report(self, s: frozenset[int], e: frozenset[int], out: list[Verdict]) -> None:
        move = self._expected.get(self.position)
        pdn = None if move is None else self.position.move_pdn(move)
        message = expected_message(pdn, e - s, s - e, self._names)
        self._irregular_report(
            out, s, ReportKind.COMPUTER_MOVE, (e - s) | (s - e), message, target=e, params={"move": pdn}
        )

    def _index(self, pos: Position, move: Move) -> int:
        for i, c in enumerate(self._cands(pos)):
            if c.move == move:
                return i
        raise ValueError(move)

    def _may_slide_on(self, c: _Candidate) -> bool:
        """Could the king that stopped at ``c``'s destination be sliding on along the same line
        (another legal move of the same piece, the same captures, further along its last leg)?"""
        piece = c.base.piece_at(c.origin)
        if piece is None or not piece.king:
            return False
        return any(
            c2.origin == c.origin and c2.dest != c.dest and _slides_past(c.base, c.move, c2.move)
            for c2 in self._cands(c.base)
        )

    def _slid_on(self, prev: Position, last: Move, c: _Candidate) -> bool:
        """Is ``c`` the last move's king slid on along the same line soon after it stopped
        (a slow drag read as the move too early)? Then it is the same move, in both modes."""
        piece = prev.piece_at(last.from_square)
        if piece is None or not piece.king or not _slides_past(prev, last, c.move):
            return False
        lifts = [ev.t for ev in self.events if ev.key == last.to_square and not ev.occupied]
        return bool(lifts) and bool(self.clock) and lifts[0] - self.clock[-1] <= self.settle_time

    def _read_again_at_the_end(self, s: frozenset[int], out: list[Verdict]) -> bool:
        """The last move ended the game by the rules, but it was read too early: the king slid
        on, or the removals told another capture apart. Read it again (the end follows it)."""
        prev = self._prev()
        if prev is None or self.game.entered is not None or self.cells:
            return False
        last = self.game.move_stack[-1]
        for c in self._cands(prev):
            if (
                c.after == s
                and c.move != last
                and self._allowed(c)
                and (self._slid_on(prev, last, c) or self._removals_told(last, c))
            ):
                self._takeback(out)
                self._commit(self._cands(self.position)[self._index(self.position, c.move)], out, again=last)
                return True
        return False

    def _removals_told(self, last: Move, c: _Candidate) -> bool:
        """Is ``c`` the last move's travel (same origin, same destination, the piece not moved
        again) with other captured pieces: a piece that was not captured was taken off by
        mistake and put back, and the removals now tell the move apart? Then it is the same move."""
        moved_again = any(ev.key == last.to_square and not ev.occupied for ev in self.events)
        return c.origin == last.from_square and c.dest == last.to_square and not moved_again

    def _in_progress(self, s: frozenset[int]) -> bool:
        bases = [self.position]
        prev = self._prev()
        if prev is not None:
            bases.append(prev)
        if self._irregular is not None:
            bases.append(self._irregular)
        return any(c.in_progress(s) for b in bases for c in self._cands(b))

    def _sync(self, out: list[Verdict]) -> None:
        """The board matches the game: adjustments, a restored irregularity."""
        pos = self.position
        lifted = {_key(ev) for ev in self.events if not ev.occupied}
        # a circular capture passes through the start position: keep waiting for the removals
        if any(c.origin == c.dest and c.origin in lifted for c in self._cands(pos)):
            if self.report is not None:
                self._clear_report(out)
            return
        if self.mode == "tournament":
            movable = {c.origin for c in self._cands(pos)}
            for sq in sorted(lifted & movable - self._touch_noticed):
                piece = pos.piece_at(sq)
                if piece is not None and piece.color is pos.turn:
                    self._touch_noticed.add(sq)
                    self._emit_report(
                        out,
                        ReportKind.TOUCH_MOVE,
                        (sq,),
                        f"touch-move: the piece on {self._name(sq)} was touched and must be moved "
                        "(unless it was an announced adjustment)",
                        active=False,
                        params={"touched": sq},
                    )
        if self.report is not None:
            self._clear_report(out)
        self._irregular = None
        self._deadline = None
        self.events.clear()

    def _route(self, c: _Candidate) -> Move:
        """The route the hands followed (touch-downs), else the canonical one."""
        routes = c.base.routes(c.move)
        if len(routes) == 1:
            return routes[0]
        touched = [_key(ev) for ev in self.events if ev.occupied and ev.key in c.landings]
        best, score = routes[0], -1
        for r in routes:
            landings = iter(r.path[1:-1])
            n = sum(1 for sq in touched if any(sq == x for x in landings))  # in order
            if n > score:
                best, score = r, n
        return best

    def _procedure(self, c: _Candidate, route: Move, out: list[Verdict]) -> None:
        """Tournament mode: note removals before the landing or out of jump order."""
        if self.mode != "tournament" or not c.captured:
            return
        # a captured piece is removed by its last lift (a touch put back before does not count)
        final = {_key(ev): i for i, ev in enumerate(self.events) if not ev.occupied and ev.key in c.captured}
        removals = sorted(final, key=final.__getitem__)
        # the piece first put on its destination ends the travel (a brush of it later does not)
        landing_times = [i for i, ev in enumerate(self.events) if ev.occupied and ev.key == c.dest]
        first_removal = min(final.values(), default=None)
        notes = []
        if landing_times and first_removal is not None and first_removal < landing_times[0]:
            notes.append("captured pieces were removed before the capture was complete")
        order = list(route.captured)
        seen = [sq for sq in removals if sq in order]
        if seen not in (order, order[::-1]):
            notes.append("captured pieces were not removed in the order they were jumped")
        if notes:
            self._emit_report(out, ReportKind.PROCEDURE, c.captured, "; ".join(notes) + " (INT 4.11)", active=False)

    def _commit(self, c: _Candidate, out: list[Verdict], *, again: Move | None = None) -> None:
        """Record ``c`` (``again``: the move it replaces, whose route it follows up to its last leg)."""
        pos = self.position
        route = self._route(c)
        if again is not None:
            route = next((r for r in c.base.routes(c.move) if r.path[:-1] == again.path[:-1]), route)
        pdn = pos.move_pdn(route)
        if again is None:
            self._procedure(c, route, out)
        if self.mode == "tournament" and again is None:
            # a piece touched before the move first landed (not one brushed after it, while it was read)
            landed = min((i for i, ev in enumerate(self.events) if ev.occupied and ev.key == c.dest), default=None)
            lifted = {_key(ev) for ev in self.events[:landed] if not ev.occupied}
            movable = {m.origin for m in self._cands(pos)}  # touch-move binds a piece that can be played
            own_touched = {
                sq
                for sq in lifted & movable - {c.origin} - self._touch_noticed
                if (p := pos.piece_at(sq)) is not None and p.color is pos.turn
            }
            for sq in sorted(own_touched):
                self._emit_report(
                    out,
                    ReportKind.TOUCH_MOVE,
                    (sq, c.origin),
                    f"touch-move: the piece on {self._name(sq)} was touched but {self._name(c.origin)} was played",
                    active=False,
                    params={"touched": sq, "played": c.origin},
                )
        self.game.push(route)
        self.clock.append(self.t)
        self._touch_noticed.clear()
        if self.report is not None:
            self._clear_report(out)
        self._irregular = None
        self._deadline = None
        self._reported = None
        self.events.clear()
        out.append(MoveMade(self.game.ply, route, pdn, self.t))
        self._end(out)

    def _accept(self, c: _Candidate, out: list[Verdict]) -> None:
        """Tournament: the opponent played on from an irregular position; it stands."""
        assert self._irregular is not None
        self._emit_report(
            out,
            ReportKind.IRREGULARITY_ACCEPTED,
            (),
            "the opponent played on: the irregular position stands (recorded as a set-up)",
            active=False,
            params={"fen": self._irregular.fen()},
        )
        self.report = None
        self.game.setup(self._irregular)
        self._irregular = None
        self._commit(self._cands(self.position)[self._index(self.position, c.move)], out)

    def _takeback(self, out: list[Verdict]) -> None:
        ply = self.game.ply
        self.game.pop()
        if self.clock:
            self.clock.pop()
        self.reconstructed.discard(ply)
        out.append(Takeback(ply, self.t))
        if self.report is not None:
            self._clear_report(out)
        self._deadline = None
        self.events.clear()

    # -- reports ---------------------------------------------------------------------------------
    def _required_capture_now(self, s: frozenset[int], e: frozenset[int], out: list[Verdict]) -> bool:
        """Lifting a piece that cannot capture, or a plain move, while a capture is compulsory."""
        pos = self.position
        if not pos.has_captures():
            return False
        missing, added = e - s, s - e
        own = set(pos.squares(pos.turn))
        cands = self._cands(pos)
        origins = {c.origin for c in cands}
        lifted_wrong = len(missing) == 1 and not added and missing <= own - origins
        plain = False
        if len(missing) == 1 and len(added) == 1 and missing <= own:
            (a,) = missing
            (b,) = added
            plain = self._pseudo_plain(pos, a, b)
        if not (lifted_wrong or plain):
            return False
        key = ("capture", s)
        if self._reported == key:
            return True
        raised = self.report is not None and self.report.kind is ReportKind.REQUIRED_CAPTURE
        if not raised and not self._held():
            return True  # a new alarm waits for the grace period; an active one follows the board
        self._reported = key
        self._report_required(out, s, e)
        return True

    def _required(self, taken: int = 0) -> tuple[list[int], str, dict[str, object]]:
        """Squares, message and parameters of a required-capture report (``taken``: the
        number of pieces an insufficient capture took)."""
        cands = self._cands(self.position)
        must = sorted({c.origin for c in cands})
        capturable = sorted({sq for c in cands for sq in c.captured})
        n = max(len(c.captured) for c in cands)
        law = ""
        if taken and taken < n:
            law = f"the law requires taking {n} pieces: "
        elif taken:
            law = "the law requires taking the most kings: "
        msg = f"{law}a capture is compulsory: capture with {self._names(must)}"
        return must, msg, {"must_capture": must, "capturable": capturable}

    def _report_required(self, out: list[Verdict], s: frozenset[int], target: frozenset[int]) -> None:
        must, msg, params = self._required()
        self._emit_report(
            out, ReportKind.REQUIRED_CAPTURE, must, msg, missing=target - s, extra=s - target, params=params
        )

    def _pseudo_plain(self, pos: Position, a: int, b: int) -> bool:
        """Would a -> b be a plain move if no capture were compulsory?"""
        own_m, own_k, opp_m, opp_k, side = pos._sides()
        geo = pos.geometry
        for o, d, _cm, _p, _r in pos.engine.quiet_moves(own_m, own_k, opp_m, opp_k, side):
            if geo.square_of_bit[o] == a and geo.square_of_bit[d] == b:
                return True
        return False

    def _pseudo_captures(self, pos: Position) -> list[tuple[int, int, frozenset[int]]]:
        own_m, own_k, opp_m, opp_k, side = pos._sides()
        sq = pos.geometry.square_of_bit
        out = []
        for o, d, _cm, _p, routes in self._free.captures(own_m, own_k, opp_m, opp_k, side):
            assert routes is not None
            out.append((sq[o], sq[d], frozenset(sq[b] for b in routes[0][1])))
        return out

    def _irregular_report(
        self,
        out: list[Verdict],
        s: frozenset[int],
        kind: ReportKind,
        squares: Iterable[int],
        message: str,
        *,
        target: frozenset[int],
        params: dict[str, object] | None = None,
    ) -> None:
        key = (kind, s)
        if self._reported == key:
            return
        self._reported = key
        self._deadline = None
        self._emit_report(out, kind, squares, message, missing=target - s, extra=s - target, params=params)

    def _settled(self, out: list[Verdict]) -> None:
        """The board has been still in a state nothing explains: say what is wrong."""
        pos = self.position
        s = frozenset(self.occupied)
        e = pos.occupied()
        if self._setup:
            if self._reported != ("setup", s, frozenset(self.cells)):
                self._reported = ("setup", s, frozenset(self.cells))
                missing, extra = e - s, s - e
                parts = []
                if missing:
                    parts.append(f"put pieces on {self._names(missing)}")
                if extra:
                    parts.append(f"remove the pieces from {self._names(extra)}")
                if self.cells:
                    parts.append(f"clear {', '.join(sorted(self.cells))}")
                self._emit_report(
                    out,
                    ReportKind.SETUP,
                    missing | extra,
                    "set up the position: " + "; ".join(parts),
                    missing=missing,
                    extra=extra,
                )
            return
        if self.ended:
            return
        if self._directed(pos) and not self.cells:
            self._computer_report(s, e, out)
            return
        live = [c for c in self._cands(pos) if c.in_progress(s)]
        if not self.cells and _stopped_mid_chain(live, s, e):
            must, msg, params = self._required()
            key = ("stopped", s)
            if self._reported != key:
                self._reported = key
                self._emit_report(
                    out,
                    ReportKind.REQUIRED_CAPTURE,
                    must,
                    "the capture is not finished: " + msg,
                    missing=e - s,
                    extra=s - e,
                    params=params,
                )
            return
        kind, squares, message, target, params = self._classify(s, e)
        self._irregular_report(out, s, kind, squares, message, target=target, params=params)

    def _classify(
        self, s: frozenset[int], e: frozenset[int]
    ) -> tuple[ReportKind, Iterable[int], str, frozenset[int], dict[str, object]]:
        pos = self.position
        turn = pos.turn
        missing, added = e - s, s - e
        if self.cells:
            return (
                ReportKind.OFF_SQUARE,
                missing,
                f"a piece stands on {', '.join(sorted(self.cells))}, which is not a playing square",
                e,
                {},
            )
        cands = self._cands(pos)
        # a capture made, but its pieces still on the board while the opponent moves
        for c in cands:
            left = s - c.after
            gone = c.after - s
            if c.captured and left and left <= c.captured and c.dest in s and c.origin not in s - {c.dest}:
                if not gone:
                    break  # a capture in progress, just not finished: the LEDs show what to remove
                self._irregular = None
                return (
                    ReportKind.CAPTURED_PIECE_LEFT,
                    left,
                    f"remove the captured piece{'s' if len(left) > 1 else ''} on {self._names(left)} "
                    "before the next move",
                    c.after,
                    {},
                )
        own = set(pos.squares(turn))
        opp = set(pos.squares(turn.other))
        if len(missing) + len(added) >= 4 or (added and len(missing & own) >= 2) or len(added) >= 2:
            return (
                ReportKind.KNOCKED_OVER,
                missing | added,
                f"pieces are out of place: put back {self._names(missing)}" if missing else "pieces are out of place",
                e,
                {},
            )
        if len(added) == 1 and missing:
            (b,) = added
            movers = [a for a in missing if pos.piece_at(a) is not None]
            moved = [a for a in movers if a in own] or [a for a in movers if a in opp]
            a = moved[0]
            piece = pos.piece_at(a)
            assert piece is not None
            self._irregular = self._irregular_position(pos, a, b, missing - {a})
            if piece.color is not turn:
                return (
                    ReportKind.WRONG_SIDE,
                    (a, b),
                    f"it is {turn.value}'s move: put the piece back on {self._name(a)}",
                    e,
                    {},
                )
            captures = self._pseudo_captures(pos)
            taken = frozenset(missing - {a})
            larger = any(x[:2] == (a, b) and x[2] == taken for x in captures)
            if pos.has_captures() and (larger or self._pseudo_plain(pos, a, b)):
                must, msg, params = self._required(len(taken) if larger else 0)
                return (ReportKind.REQUIRED_CAPTURE, must, msg, e, params)
            if taken & own:
                return (
                    ReportKind.OWN_PIECE_REMOVED,
                    taken & own,
                    f"your own piece on {self._names(taken & own)} was removed: put it back",
                    e,
                    {},
                )
            if not piece.king and self._backward(pos, a, b):
                return (ReportKind.BACKWARD_MAN, (a, b), f"a man cannot move backward ({self._name(a)})", e, {})
            return (
                ReportKind.ILLEGAL_SQUARE,
                (a, b),
                f"the piece on {self._name(a)} cannot go to {self._name(b)}",
                e,
                {},
            )
        if not added and missing:
            if missing & own and len(missing) == 1:
                (a,) = missing
                if not any(c.origin == a for c in cands):
                    return (
                        ReportKind.NO_LEGAL_MOVE,
                        (a,),
                        f"the piece on {self._name(a)} has no legal move: put it back",
                        e,
                        {},
                    )
            if missing & own:
                return (
                    ReportKind.OWN_PIECE_REMOVED,
                    missing & own,
                    f"put back the piece on {self._names(missing & own)}",
                    e,
                    {},
                )
            if len(missing) == 1 and not pos.has_captures():
                return (
                    ReportKind.WRONG_SIDE,
                    missing,
                    f"it is {turn.value}'s move: put the piece back on {self._names(missing)}",
                    e,
                    {},
                )
            return (
                ReportKind.WRONG_PIECE_REMOVED,
                missing,
                f"the piece on {self._names(missing)} was not captured: put it back",
                e,
                {},
            )
        if added and not missing:
            return (ReportKind.UNEXPLAINED, added, f"remove the extra piece on {self._names(added)}", e, {})
        return (
            ReportKind.UNEXPLAINED,
            missing | added,
            f"the board does not match the game: put back {self._names(missing)}, remove {self._names(added)}",
            e,
            {},
        )

    def _backward(self, pos: Position, a: int, b: int) -> bool:
        ra = pos.geometry.coord(a)[1]
        rb = pos.geometry.coord(b)[1]
        return rb < ra if pos.turn is Color.WHITE else rb > ra

    def _irregular_position(self, pos: Position, a: int, b: int, removed: Iterable[int]) -> Position | None:
        """The position an irregular move leaves (tournament: it may stand)."""
        if self.mode != "tournament":
            return None
        pieces = pos.pieces()
        piece = pieces.pop(a)
        for sq in removed:
            pieces.pop(sq, None)
        geo = pos.geometry
        far = geo.size - 1 if piece.color is Color.WHITE else 0
        king = piece.king or geo.coord(b)[1] == far
        pieces[b] = type(piece)(piece.color, king)
        groups: dict[tuple[Color, bool], list[int]] = {}
        for sq, p in pieces.items():
            groups.setdefault((p.color, p.king), []).append(sq)
        return Position(
            pos.variant,
            white_men=groups.get((Color.WHITE, False), []),
            white_kings=groups.get((Color.WHITE, True), []),
            black_men=groups.get((Color.BLACK, False), []),
            black_kings=groups.get((Color.BLACK, True), []),
            turn=piece.color.other,
        )

    # -- LEDs ---------------------------------------------------------------------------------
    def led_intents(self) -> list[LedIntent]:
        """What the LEDs should show now."""
        pos = self.position
        s = frozenset(self.occupied)
        e = pos.occupied()
        out: dict[int, Role] = {}

        def put(squares: Iterable[int], role: Role) -> None:
            for sq in squares:
                out.setdefault(sq, role)

        r = self.report
        expected = self.expected()
        if self._setup:
            put(e - s, Role.MISSING)
            put(s - e, Role.EXTRA)
        elif expected is not None and r is None and not self.ended:
            for intent in expected_leds(pos, expected, s):  # the computer's move, for the hands to make
                put((intent.square,), intent.role)
        elif r is not None and r.kind is ReportKind.REQUIRED_CAPTURE:
            put(r.extra, Role.EXTRA)
            put(set(r.missing) - set(r.params.get("must_capture", ())), Role.MISSING)
            put(r.params.get("must_capture", ()), Role.MUST_CAPTURE)
            put(r.params.get("capturable", ()), Role.CAPTURABLE)
        elif r is not None and r.kind not in (ReportKind.TOUCH_MOVE, ReportKind.PROCEDURE):
            put(r.missing, Role.MISSING)
            put(r.extra, Role.EXTRA)
            put(r.squares, Role.ERROR)
        elif s != e and not self.ended:
            live = [c for c in self._cands(pos) if c.in_progress(s)]
            lifted = e - s
            origins = {c.origin for c in live if c.origin in lifted}
            put(origins, Role.FROM)
            for c in live:
                if c.dest in s - e:
                    put((c.dest,), Role.TO)
            touched = {_key(ev) for ev in self.events if ev.occupied}
            put({sq for c in live for sq in c.landings} & touched, Role.PATH)
            if live:
                landed = [c for c in live if c.dest in s - e or (c.dest == c.origin and c.dest in s)]
                group = landed or live
                common = set.intersection(*(set(c.captured) for c in group)) & s
                some = set().union(*(set(c.captured) for c in group)) & s
                if landed or lifted & {c.origin for c in live}:
                    put(common, Role.REMOVE)
                    put(some - common, Role.CAPTURABLE)
                if self.hints and self.mode == "casual":
                    put({c.dest for c in live if c.origin in origins and c.dest not in s}, Role.HINT)
        elif self.game.move_stack:
            n = len(self._batch)
            shown = self._batch if n > 1 and tuple(self.game.move_stack[-n:]) == self._batch else ()
            for last in reversed(shown or self.game.move_stack[-1:]):  # after a reconnect: every move it recorded
                put((last.from_square,), Role.FROM)
                put((last.to_square,), Role.TO)
        return [LedIntent(sq, role) for sq, role in sorted(out.items())]

    # -- record -------------------------------------------------------------------------------
    def pdn_game(self, tags: dict[str, str] | None = None) -> PdnGame:
        """The game as recorded so far (set-ups for accepted irregularities)."""
        pg = PdnGame.from_game(self.game, tags)
        for ply in sorted(self.reconstructed):
            if ply <= len(pg.moves):
                pg.moves[ply - 1].comments.append(RECONSTRUCTED_COMMENT)
        return pg

    # -- after a link gap ---------------------------------------------------------------------
    def resync(
        self, board: Iterable[int], t: float, cells: Iterable[str] = (), *, max_plies: int = MAX_PLIES
    ) -> list[Verdict]:
        """The board reports its whole occupancy after a gap (its link was down, or frames
        were lost): what happened meanwhile is unknown but the result.

        When exactly one sequence of legal moves (up to ``max_plies``) leads there from the
        last known position, the moves are recorded, marked reconstructed. When several do,
        nothing is recorded: a ``link-gap`` report asks for the last known position back
        (unless the board may simply be part-way through a move). Anything else (a move
        under way, a longer gap) is the board as it is now, judged as usual (restore
        guidance once it has been still).
        """
        out = self.tick(t)
        self.t = max(self.t, t)
        s = frozenset(board)
        new_cells = set(cells)
        changed = [Transition(self.t, sq, sq in s) for sq in sorted(s ^ frozenset(self.occupied))]
        if not changed and new_cells == self.cells:
            return out
        self.occupied = set(s)
        self.cells = new_cells
        e = self.position.occupied()
        under_way = any(c.in_progress(s) and c.after != s for c in self._cands(self.position))  # a piece in the hand
        if not (self._setup or self.ended or self.cells or under_way) and s != e:
            found = reconstruct(self.position, s, max_plies)
            if found.unique:
                self._record_gap(found.moves, out)
                if found.under_way:  # then the next move is under way: judged as usual
                    self.events = [Transition(self.t, sq, sq in s) for sq in sorted(s ^ self.position.occupied())]
                    self._evaluate(out)
                return out
            if found.ambiguous:
                self.events.clear()
                self._irregular = None
                self._deadline = None
                self._reported = ("link-gap", s)
                self._emit_report(
                    out,
                    ReportKind.LINK_GAP,
                    e ^ s,
                    "the moves made while the board was not connected cannot be told apart: "
                    "restore the last known position (the game on the page): "
                    + "; ".join(
                        ([f"put pieces on {self._names(e - s)}"] if e - s else [])
                        + ([f"remove the pieces from {self._names(s - e)}"] if s - e else [])
                    ),
                    missing=e - s,
                    extra=s - e,
                )
                return out
        self.events.extend(changed)
        self._evaluate(out)
        return out

    def _record_gap(self, moves: tuple[Move, ...], out: list[Verdict]) -> None:
        """Record the moves a reconnect found, marked reconstructed."""
        if self.report is not None:
            self._clear_report(out)
        texts = []
        pos = self.position
        for m in moves:
            texts.append(pos.move_pdn(m))
            pos = pos.apply(m)
        self._emit_report(
            out,
            ReportKind.RECONSTRUCTED,
            {sq for m in moves for sq in (m.from_square, m.to_square)},
            f"the board was not connected: {len(moves)} move{'s' if len(moves) != 1 else ''} "
            f"made meanwhile recorded ({' '.join(texts)})",
            active=False,
            params={"moves": texts},
        )
        self.events.clear()
        self._irregular = None
        self._deadline = None
        self._reported = None
        self._touch_noticed.clear()
        pushed = []
        for m, text in zip(moves, texts, strict=True):
            if self.ended:  # a draw rule ended the game part-way: the rest are moves after the end
                self._evaluate(out)
                break
            route = self.game.push(m)
            pushed.append(route)
            self.clock.append(self.t)
            self.reconstructed.add(self.game.ply)
            out.append(MoveMade(self.game.ply, route, text, self.t, reconstructed=True))
            self._end(out)
        self._batch = tuple(pushed)
