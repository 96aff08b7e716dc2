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

import copy
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from board_hal.debounce import Transition
from board_hal.squares import SquareState
from referee.candidates import (
    Candidate,
    CandidateCache,
    may_slide_on,
    route_followed,
    route_like,
    slides_past,
    stopped_mid_chain,
)
from referee.diagnose import capture_goes_on, classify, names, required_capture
from referee.expect import engine_text, expected_message, parse_engine_move
from referee.faults import MAX_NODES, Reading, Readings, readings
from referee.faults import MAX_PLIES as READING_PLIES
from referee.leds import asked_intents, led_intents
from referee.reconstruct import MAX_PLIES, reconstruct
from referee.vocabulary import (
    DEFAULT_MODE,
    MODES,
    ActionName,
    GameEnd,
    LedIntent,
    LinkState,
    Mode,
    MoveMade,
    Report,
    ReportKind,
    Takeback,
    Verdict,
)
from rules import Color, Game, Move, Outcome, Position, find_variant
from rules.pdn import PdnGame
from rules.variants import Variant

DEFAULT_SETTLE = 1.0
#: how long a state must hold before it raises an alarm (or a king's stop counts as its move)
DEFAULT_GRACE = 1 / 3
#: how long the board must be still before a move whose landing no sensor saw is taken as made
#: when nothing else happens (the other side's reply landing tells at once)
HIDDEN_LANDING = 3.0
#: how long a sensor that answered before may read empty under a piece (an intermittent reed
#: switch drops out for seconds): a landing it may have missed is weighed that long
DROPOUT = 5.0
#: positions whose candidates the readings' search keeps (it visits up to faults.MAX_NODES of them)
FAULT_CACHE_SIZE = 1024
#: settled events kept while the board differs from the game (a move needs a few dozen; a board
#: left in disarray must not make every event slower than the last)
MAX_EVENTS = 256


@dataclass(frozen=True)
class Action:
    """Something the players entered: resign (with side), draw, result (with result), new-game;
    confirm (on the page, after a ``sensor-confirm`` report: the move played, in square
    numbers; or a ``square`` whose sensor is broken); or the app: computer (the side it plays
    from now, with its level; no side: nobody), computer-move (with the move, ``22-17`` or
    ``fromxtoxcaptured...``; see referee.expect)."""

    t: float
    action: ActionName
    side: Color | None = None
    result: str | None = None
    move: str | None = None
    level: int | None = None
    square: int | None = None
    #: computer: its time a move in seconds, when its strength was chosen by time (the level's otherwise)
    move_time: float | None = None
    #: position: the position the game starts again from (a FEN of the game's variant)
    fen: str | None = None


@dataclass(frozen=True)
class Link:
    """The board's link (DESIGN.md §4): ``down``; ``up`` again, with the whole occupancy
    then (``board`` squares, ``cells`` non-playing cells) — also after frames were lost on
    a noisy line, with ``lost``, how many frames (the board sends one on every change, so
    no more moves can hide in the gap); ``reconstructed``: a note of the moves an ``up``
    recorded (``moves``, as the record wrote them; a replay derives them again)."""

    t: float
    state: LinkState
    board: tuple[int, ...] = ()
    cells: tuple[str, ...] = ()
    moves: tuple[str, ...] = ()
    lost: int | None = None
    #: a board that senses colour: what stood on each square of ``board`` (square, state)
    pieces: tuple[tuple[int, SquareState], ...] = ()


#: the PDN comment on a move recorded from the occupancy after a link gap
RECONSTRUCTED_COMMENT = "reconstructed: played while the board was not connected"
#: the PDN comment on a move read with a sensor that does not answer
INFERRED_COMMENT = "inferred: the sensor under {square} did not answer"


@dataclass(frozen=True)
class _Deferred:
    """A readings' search nothing needed yet, as it would have been made then (``air``: the
    pieces lifted since then may be put back; ``deep``: the deeper search)."""

    air: float
    deep: bool


@dataclass(frozen=True)
class _Pending:
    """A move the readings leave but for a sensor that may have dropped out under another
    (``squares``: it and the silent square of the move): recorded at ``due`` unless one of
    ``squares`` answers first."""

    move: Move
    hidden: int | None
    landed: float
    squares: frozenset[int]
    due: float
    #: the search stopped at its cap: readings it did not look for may begin otherwise, so at
    #: ``due`` (the drop-outs' readings no longer filling the cap) the board is read again
    capped: bool = False


@dataclass
class _Shadow:
    """A reading the page is asked about (``move``, with the square whose sensor would not
    answer), played on by a copy of the referee: what it recorded meanwhile, and whether the
    evidence refuted it since (the square answered, or a board came that it cannot explain)."""

    move: Move | None  # (None: no move at all, or the last one taken back)
    hidden: int | None
    ref: Referee
    verdicts: list[Verdict] = field(default_factory=list)
    refuted: bool = False

    @property
    def dest(self) -> int | None:
        return None if self.move is None else self.move.to_square


def _first_hidden(r: Reading) -> int | None:
    """The square whose change ``r``'s first move needs hidden (None: its own changes were seen;
    a later move of the reading may hide one, read again once this move is recorded)."""
    if r.hidden is None or not r.moves:
        return r.hidden
    m = r.moves[0]
    return r.hidden if r.hidden in (m.from_square, m.to_square, *m.captured) else None


def _lost_way(sh: _Shadow) -> bool:
    """Did the reading ``sh`` come to a board it cannot explain (a blocking report)?"""
    return any(isinstance(v, Report) and v.kind in _BLOCKING for v in sh.verdicts)


#: reports that say the board is not explained (a reading that comes to one is dropped)
_BLOCKING = frozenset(ReportKind) - {
    ReportKind.TOUCH_MOVE,
    ReportKind.PROCEDURE,
    ReportKind.IRREGULARITY_ACCEPTED,
    ReportKind.SETUP_OK,
    ReportKind.RESTORED,
    ReportKind.GAME_OVER,
    ReportKind.RECONSTRUCTED,
    ReportKind.SENSOR,
    ReportKind.SENSOR_CONFIRM,
}


@dataclass(frozen=True)
class _Raised:
    """The state a report (or alarm) was last raised for, so that the same state raises it
    once: ``what``, the report's kind or one of the referee's own occasions, and the board
    (squares, non-playing cells) it judged."""

    what: ReportKind | Literal["capture", "stopped", "over", "setup", "link-gap", "sensor"]
    board: frozenset[int] = frozenset()
    cells: frozenset[str] = frozenset()


def _squares(events: Iterable[Transition], *, placed: bool) -> list[int]:
    """The squares pieces were put on (``placed``) or lifted from, in order (the referee
    keeps only square events)."""
    return [ev.key for ev in events if ev.occupied == placed and isinstance(ev.key, int)]


class Referee:
    """Turns settled square events into moves, reports and LED intents for one game."""

    def __init__(
        self,
        variant: Variant | str = "brazilian",
        fen: str | None = None,
        *,
        mode: Mode = DEFAULT_MODE,
        hints: bool = True,
        settle_time: float = DEFAULT_SETTLE,
        board: Iterable[int] | None = None,
        grace_time: float = DEFAULT_GRACE,
        suspects: Iterable[int] = (),
        heard: Iterable[int] = (),
        sensor_faults: bool = True,
        draw_rules: bool = True,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"unknown mode: {mode!r} (casual or tournament)")
        self.variant = find_variant(variant)
        self.fen = fen
        self.mode = mode
        self.hints = hints
        self.settle_time = settle_time
        self.grace_time = grace_time
        #: the variant's draw rules (move counts, repetition) end the game; off in an analysis, where
        #: a line goes on after them (``rule_outcome`` says when one applies)
        self.draw_rules = draw_rules
        self.game = self._new_game(fen)
        self.occupied: set[int] = set(board) if board is not None else set(self.game.position.occupied())
        self.cells: set[str] = set()
        self.events: list[Transition] = []  # settled events since the board last matched the game
        self._trimmed = False  # events were dropped since then (MAX_EVENTS)
        #: squares whose sensor does not answer (the self-test found them, or play showed it): left
        #: out of every comparison, their changes inferred (``heard``: sensors the self-test confirmed)
        self.suspects: set[int] = set(suspects)
        #: weigh the readings in which a sensor did not answer (off: every sensor is trusted, as
        #: before issue 31; for comparison in benchmarks/referee.py)
        self.sensor_faults = sensor_faults
        #: squares whose sensor has never answered (a dead one hides every change: referee.faults)
        heard = frozenset(heard)
        self._silent: set[int] = set(self.game.position.geometry.squares()) - heard - self.suspects
        #: when each sensor first answered (one that answered may drop out later: DROPOUT)
        self._heard_at: dict[int, float] = dict.fromkeys(heard, -math.inf)
        #: when each square last read a lift, while it reads empty (its sensor may have dropped out)
        self._emptied_at: dict[int, float] = {}
        self._named: set[int] = set(self.suspects)  # suspects already announced (a report each, once)
        self.inferred: dict[int, int] = {}  # ply -> the square whose change the move's reading inferred
        self._choices: dict[Move, int | None] = {}  # the moves the page is asked to choose from, with their square
        self._reread: Move | None = None  # the last move as the page may confirm it instead (from the position before)
        #: the page is asked whether a king slid on to a square no sensor answers, or one never
        #: heard from (_ask_slid), its move taken back meanwhile: (the move as read, its reply or
        #: None; the king slid on, its reply)
        self._slid: tuple[Move, Candidate | None, Candidate, Candidate] | None = None
        #: the king of that question was seen set down where it slid on (held in the hand while
        #: the reply was made): its square answered, no sensor under it is in doubt
        self._slid_seen = False
        self._slid_told: tuple[int, Move] | None = None  # (ply, move): the page said it was as read
        self._readings: Readings | None = None  # of the board as it is (None: not looked at yet)
        self._readings_air: Readings | _Deferred | None = None  # the same, and those a piece put back would make
        #: the drop-out readings :meth:`_gone_too` weighed, and the moment and state they were of
        self._gone: tuple[tuple[float, int, int, int], Readings] | None = None
        self._fault_cache = CandidateCache(size=FAULT_CACHE_SIZE)  # the readings' search: a few hundred positions
        self._waiting = False  # a move is held back until the board has been still (_another_reading)
        self._pending: _Pending | None = None  # a move held while a sensor may answer yet (_infer)
        #: the page's answer naming a move whose landing, on a square never heard from, may still
        #: come (the piece in the hand): taken at the time given unless the landing is seen first
        self._answer: tuple[Action, float] | None = None
        self._catching_up = False  # reading the plies played while a move was held (a deeper search)
        self._deep_until = -math.inf  # until then too (a move is held while a sensor may answer)
        #: a sensor may have dropped out under a standing piece until then: while the evidence read
        #: since it began is read, the deeper search goes on (the move that took the piece started
        #: within the drop-out, but the plies after it may be played later)
        self._standing_until = -math.inf
        self._reread_deeper = -math.inf  # when a still board the search was cut short on was read deeper
        self._lost = False  # nothing explained the board at some moment since it last matched the game
        #: a still board that no reading explains (a complete search found none): what the board
        #: shows cannot have happened as this referee reads the sensors (a reading followed while
        #: the page is asked that comes to one is ruled out, as if its silent square had answered)
        self._impossible = False
        self._follows = False  # a copy that plays a reading on while the page is asked (_clone)
        self._doubt = False  # a takeback (or correction) is held while a silent square could have hidden a move
        self._shadows: list[_Shadow] = []  # while the page is asked: each reading played on (see _follow)
        self._asked_moves = False  # ...and each of them is a move of the side to move (agreed_moves)
        self.report: Report | None = None  # the active report (an irregular state)
        self.reports: list[Report] = []  # every report, for the record
        self.clock: list[float] = []  # time of each move
        self._reported: _Raised | None = None
        self._deadline: float | None = None
        self._irregular: Position | None = None
        self._since = 0.0  # time of the last square or cell event: the board has been still since
        self._grace: float | None = None  # when the present state will have held for grace_time
        self._candidates = CandidateCache(frozenset(self.suspects))
        self._setup = self._sensed() != self._expect(self.game.position)
        if self._setup:
            self._deadline = -math.inf  # report the set-up at the first tick
        self._touch_noticed: set[int] = set()
        #: a touch counts from then on: a move read late (``_adopt``) keeps the events after its
        #: landing, but a piece brushed before its captured pieces were all off was touched on
        #: the other side's turn
        self._touch_from = -math.inf
        self.t = 0.0
        self.reconstructed: set[int] = set()  # plies recorded from the occupancy after a link gap
        self._batch: tuple[Move, ...] = ()  # the moves the last reconnect recorded (lit until the next move)
        self.computer: Color | None = None  # the side whose moves are set from outside (referee.expect)
        self.computer_level: int | None = None
        self.computer_move_time: float | None = None  # seconds a move, when chosen by time (else the level's)
        self._expected: dict[Position, Move] = {}  # the computer's move in each position it was given for

    # -- helpers ---------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        return self.game.position

    @property
    def held_answer(self) -> str | None:
        """The page's answer held until its piece is seen set down (:meth:`_confirmed`): the
        move, as the report's ``moves`` give it (None: no answer is held)."""
        if self._answer is None or self._answer[0].move is None:
            return None
        move = parse_engine_move(self.position, self._answer[0].move)
        return None if move is None else engine_text(move)

    def agreed_moves(self) -> list[float]:
        """While the page is asked which move was played and every reading is a move of the side
        to move (not "no move", a piece in the hand, or the last move read again): when each
        ply after the game's that every reading left has recorded was recorded (by the last
        of them). Those moves were made, whichever the answer: the clock switches for them
        (referee.clock)."""
        if not self._shadows or not self._asked_moves:
            return []
        live = [sh.ref.clock for sh in self._shadows if not sh.refuted]
        n = len(self.clock)
        return [max(c[i] for c in live) for i in range(n, min(map(len, live), default=n))]

    # -- the computer's side (referee.expect) ------------------------------------------------
    def expected(self) -> Move | None:
        """The computer's move the hands are to play now (None: not its turn, or not known yet)."""
        if self.computer is None or self.position.turn is not self.computer:
            return None
        return self._expected.get(self.position)

    def _directed(self, pos: Position) -> bool:
        """Are the moves of ``pos``'s side to move set from outside?"""
        return self.computer is not None and pos.turn is self.computer

    def _allowed(self, c: Candidate) -> bool:
        """May the hands play ``c``? On the computer's side, only the computer's move."""
        return not self._directed(c.base) or self._expected.get(c.base) == c.move

    def _computer_action(self, a: Action, out: list[Verdict]) -> None:
        if a.action == "computer":
            self.computer = a.side
            self.computer_level = a.level if a.side is not None else None
            self.computer_move_time = a.move_time if a.side is not None else None
        elif self._directed(self.position) and not self.ended and a.move is not None:
            move = parse_engine_move(self.position, a.move)
            if move is None:
                return  # not a move of this position (a log written for another): nothing is expected
            self._expected[self.position] = move
        if not self._setup and not self.ended:
            self._reported = None
            self._evaluate(out)

    def _computer_turn(self, s: frozenset[int], e: frozenset[int], cands: list[Candidate], out: list[Verdict]) -> None:
        """The computer's turn, the board differing from the game: its move under way (or a
        takeback of the player's move) is waited for; anything else is reported once held."""
        expected = [c for c in cands if self._allowed(c) and c.in_progress(s)]
        prev = self._prev()
        taking_back = prev is not None and any(c.in_progress(s) for c in self._candidates.of(prev))
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
        pdn = None if move is None else self.position.pdn(move)
        message = expected_message(pdn, e - s, s - e, self._names)
        self._irregular_report(
            out, s, ReportKind.COMPUTER_MOVE, (e - s) | (s - e), message, target=e, params={"move": pdn}
        )

    @property
    def ended(self) -> bool:
        return self.game.outcome() is not None

    def _new_game(self, fen: str | None) -> Game:
        if self.draw_rules:
            return Game(self.variant, fen)
        return Game(self.variant, fen, kings_only_moves=0, endings=(), repetition_count=0)

    def rule_outcome(self) -> Outcome | None:
        """How the variant's rules end the game as it stands, draw rules included (the game's own
        outcome, unless the draw rules are off: then a draw they would declare, the game going on)."""
        found = self.game.outcome()
        if found is not None or self.draw_rules:
            return found
        game = Game(self.variant, self.game.start)
        for _pos, entry in self.game.steps():
            if not isinstance(entry, Move):
                return None  # (a set-up: its moves' counts start again; not judged here)
            game.push(entry, after_end=True)
        return game.outcome()

    def _name(self, sq: int) -> str:
        return self.position.square_text(sq)

    def _names(self, squares: Iterable[int]) -> str:
        return names(self.position, squares)

    def _prev(self) -> Position | None:
        """The position before the last move (None at the start or after a set-up)."""
        hist = self.game.history()
        if not hist or not isinstance(hist[-1], Move):
            return None
        return self.game.positions()[-2]

    # -- a sensor that may not answer (referee.faults) ---------------------------------------
    def _forget(self, events: Iterable[Transition] = ()) -> None:
        """The board matches the game (or a move was recorded): the evidence starts again."""
        self.events = list(events)
        self._pending = None
        self._lost = False
        self._doubt = False
        self._reread = None
        self._slid = None
        self._shadows = []
        self._answer = None
        self._trimmed = False
        self._readings = self._readings_air = None

    @property
    def _mask(self) -> frozenset[int]:
        return self._candidates.masked

    def _sensed(self) -> frozenset[int]:
        """The occupancy the sensors that answer report."""
        return frozenset(self.occupied) - self._mask

    def _expect(self, pos: Position) -> frozenset[int]:
        """``pos``'s occupancy as the sensors that answer can see it."""
        return pos.occupied() - self._mask

    def _suspect(self, square: int, out: list[Verdict]) -> None:
        """The sensor under ``square`` does not answer: play goes on without it (named once)."""
        self.suspects.add(square)
        self._silent.discard(square)
        self._candidates.mask(frozenset(self.suspects))
        self._readings = self._readings_air = None
        if square not in self._named:
            self._named.add(square)
            self._emit_report(
                out,
                ReportKind.SENSOR,
                (square,),
                f"the sensor under {self._name(square)} does not answer: the game goes on; have it checked",
                active=False,
                params={"square": square},
            )

    def _infer(self, out: list[Verdict], *, held: bool) -> bool:
        """Nothing explains the board with every sensor answering. If exactly one reading
        remains in which one silent square hid a change — the same first move, the same
        square — record that move (marked inferred) and go on without that sensor: at once
        when the other side's move after it is complete too; once the board has been still
        (``held``) when nothing is under way after it."""
        if self._trimmed or self._setup or self.ended or self.cells or self._asked_stands():
            return False
        r = self._board_readings(air=not held)  # a piece lifted a moment ago may be put back
        every = [x for x in r.found if x.moves or x.under_way]
        found = [x for x in every if x.until is None]  # (without a sensor that may still answer)
        if r.complete and not found and any(x.standing for x in every):
            # a sensor may have dropped out under a piece still standing there: once it answers
            # again, the plies played meanwhile are read with a deeper search
            self._deep_until = max(self._deep_until, *(x.until for x in every if x.until is not None))
            self._standing_until = max(self._standing_until, self._deep_until)
        if not r.complete or not found or (r.capped and not held):
            return False  # (capped: readings it did not look for may begin otherwise; the still board is read)
        # (a sensor that dropped out and showed its piece late does not make another reading)
        firsts = {(x.moves[0] if x.moves else None, None if x.dropped else _first_hidden(x)) for x in found}
        if len(firsts) != 1:
            return False
        ((move, hidden),) = firsts
        late = {_first_hidden(x) for x in found if x.dropped} - {None}
        # (only if every reading of this move blames that sensor: one that blames another, a drop-out
        # under a piece standing elsewhere say, leaves the move as sure and the square in doubt)
        blamed = {x.hidden for x in every if x.moves[:1] == (move,)}
        if hidden is None and len(late) == 1 and all(x.dropped for x in found) and blamed == late:
            (hidden,) = late  # its sensor dropped out under the piece: named, as a dead one is
        if hidden is not None and self.t == self._reread_deeper:
            return False  # (a reading that far is no evidence against a sensor not heard yet: the page is asked)
        if move is None or not (
            all(len(x.moves) >= 2 for x in found) or (held and not any(x.under_way for x in found))
        ):
            return False  # a piece in the hand after it may still be put back (a captured piece left, say)
        if all(x.disturbed for x in found):
            return False
        landing_unseen = len(found) == 1 and len(found[0].moves) == 1 and move.to_square in self._mask | {hidden}
        if landing_unseen and self.t < self._since + HIDDEN_LANDING:
            self._deadline = self._since + HIDDEN_LANDING  # the piece may still be in the hand
            return False
        if self._maybe_in_hand(move, hidden, found):
            return False
        if self._gone_too(move, found, out):
            return True  # (asked: nothing recorded)
        if all(self._rested_after(x) for x in found):
            return False  # (a piece set down since, at rest where every reading leaves nothing: another move)
        landed = min(x.landed[0] for x in found if x.landed)
        # a sensor that answered before may have dropped out under another first move: until it
        # could no longer (DROPOUT), that one stands too; if the sensor answers meanwhile, the
        # board is read again, else this move is the one reading left (more plies played
        # meanwhile change nothing: every reading of the board then began with this move)
        others = [x for x in every if x.until is not None and not x.standing and x.moves[:1] != (move,)]
        if others:
            weighed = frozenset(sq for sq in {x.hidden for x in others} | {hidden} if sq is not None)
            due = max(x.until for x in others if x.until is not None)
            self._pending = _Pending(move, hidden, landed, weighed, due, r.capped)
            self._deep_until = max(self._deep_until, due)  # the plies played meanwhile: a deeper search
            return False
        self._adopt(move, hidden, landed, out)
        return True

    def _rested_after(self, x: Reading) -> bool:
        """Was a piece set down, after ``x``'s last move landed, on a square ``x`` leaves empty
        (one a sensor answers)? A reading complete since then does not say where that piece
        went: a king set down there and moving on (hold campaign game 7305: 32-10 held while
        27-30 was played, the king lifted again for 10-28 and resting on 14, was read as 32-14,
        which it had crossed). Only after a landing seen: one unseen is given at its lift, and
        the move's own touch-downs and rests come after it; nor on the moves' own landings."""
        if x.under_way or not x.landed or not x.moves or x.moves[-1].to_square in self._mask | {x.hidden}:
            return False
        pos = self.position
        for m in x.moves:
            pos = pos.apply(m)
        own = {sq for m in x.moves for sq in m.path}
        occ, since = pos.occupied() | self._mask | own, x.landed[-1]
        return any(ev.occupied and isinstance(ev.key, int) and ev.key not in occ and ev.t > since for ev in self.events)

    def _maybe_in_hand(self, move: Move, hidden: int | None, found: list[Reading]) -> bool:
        """``move`` read as landed unseen on a square never heard, the reply played since: its
        piece may still be in the hand (the reply made before it was set down; no piece set down
        since its lift that it may be). It is not inferred until HIDDEN_LANDING after the reply
        landed: seen meanwhile, the landing records it with nothing hidden, no sound sensor named."""
        if hidden is None or hidden != move.to_square or hidden in self._heard_at:
            return False
        if (self._set_down_since(move) or 0) > 0:
            return False
        # the readings that leave the piece in the hand: in the others a later move takes the
        # piece there, or moves it on, or its side moved again after the reply (it was set down
        # before). One such reading is enough to wait (hold campaign game 7044: 12-16 held while
        # the king captured 2x20, also read as the king landing on 15, where it rested, and the
        # man going on 16-20)
        held = [
            x
            for x in found
            if len(x.moves) <= 2 and not any(hidden in (m.from_square, *m.captured) for m in x.moves[1:])
        ]
        if not held:
            return False
        due = max((x.landed[1] for x in held if len(x.landed) > 1), default=self.t) + HIDDEN_LANDING
        if self.t >= due:
            return False
        self._deadline = due if self._deadline is None else max(self._deadline, due)
        return True

    def _gone_too(self, move: Move, found: list[Reading], out: list[Verdict]) -> bool:
        """About to record ``move`` read with a square never heard from hiding a change: if a
        sensor that answered before may instead have dropped out under a piece set down on it,
        taken (captured or moved on) before it answered again, and that reading explains the
        same events with another first move, the events admit both (g3-f4 on an f4 out, then
        f4-g5, reads as g3-h4 and h4-g5 on a dead h4): the page is asked, nothing recorded.
        Only with such a drop-out in evidence: a dead sensor alone asks no more than before."""
        if self._follows or self._shadows or not any(x.hidden in self._silent and not x.dropped for x in found):
            return False
        key = (self.t, self.game.ply, len(self.events), len(self.suspects))
        if self._gone is None or self._gone[0] != key:  # (_infer is asked again while a move is pending)
            self._gone = (key, self._search(vanished=True))
        broad = self._gone[1].at(self.t)
        gone = [
            x for x in broad.found if x.gone and x.moves and x.moves[0] != move and not x.under_way and not x.disturbed
        ]
        return bool(gone) and self._ask(out, extra=gone)

    def _asked_stands(self) -> bool:
        """Was the page asked, and has a reading it offered played on, its silent square unheard
        and every board since explained, for three plies or more past this game? Then a board
        that another reading explains (a clean move, say) may be two silent squares at work in
        that one: only the page's answer, or the square answering, decides (the referee stalls).
        Nearer than three plies, a reading that explains a board with a second silent square is
        common with one sensor dead (the game's own reading was the right one in every such
        game of benchmarks/sensors.py): it is not held against the game's reading."""
        return self._played_on_past(2)

    def _played_on_past(self, plies: int) -> bool:
        """Has a reading the page was offered played on more than ``plies`` plies past this
        game, its silent square unheard and every board since explained?"""
        return any(
            not sh.refuted and not _lost_way(sh) and sh.ref.game.ply > self.game.ply + plies for sh in self._shadows
        )

    def _asked_past(self) -> bool:
        """Is the page asked which move was played, and has a reading it offered played on past
        the game, its square unheard and every board since explained? Then a board whose sensors
        read as the game has it restores nothing (a3-b4 on a dead a3, d6-c5, b4xd6 reads as the
        start position): the question stands, the readings played on."""
        return self.report is not None and self.report.kind is ReportKind.SENSOR_CONFIRM and self._played_on_past(0)

    def _seen_late(self, move: Move, hidden: int | None, landed: float) -> bool:
        """Was ``move``'s landing, read as hidden on its square, seen there since (the square
        answered with the piece, and shows it now)? A piece held in the hand while the other side
        replied reads so, as does a sensor that dropped out a moment: its sensor is not named."""
        return (
            hidden == move.to_square
            and hidden in self.occupied
            and hidden not in self._mask
            and any(ev.key == hidden and ev.occupied and ev.t >= landed for ev in self.events)
        )

    def _adopt(self, move: Move, hidden: int | None, landed: float, out: list[Verdict]) -> None:
        """Record ``move``, read with the sensor under ``hidden`` not answering; the events after
        its landing (``landed``) are the next move's."""
        if self._seen_late(move, hidden, landed):
            hidden = None  # (the piece held in the hand, or the sensor a moment late: nothing hidden)
        later = [ev for ev in self.events if ev.t > landed]
        # its landing and its captured pieces taken off, as far as the sensors saw them (``landed``
        # may be a hidden landing's lift): its turn ends then
        done = [
            next((ev.t for ev in self.events if ev.key == move.to_square and ev.occupied and ev.t >= landed), landed),
            *(
                next((ev.t for ev in self.events if ev.key == sq and not ev.occupied), landed)
                for sq in set(move.captured) - self._mask - {hidden}
            ),
        ]
        self._choices = {}
        # (the move is marked with the square only if it hid a change of its own: a reading
        # whose later move a silent square hid names that square, its move marked when read)
        own = hidden if hidden in (move.from_square, move.to_square, *move.captured) else None
        self._commit(self._candidates.find(self.position, move), out, inferred=own)
        if hidden is not None:
            self._suspect(hidden, out)
        self._forget(later)
        self._touch_from = max(done)
        self._evaluate(out)

    def _ask(self, out: list[Verdict], extra: Sequence[Reading] = ()) -> bool:
        """Nothing explains the board and several readings with a silent square remain: ask
        the page which move was played (``confirm``), naming the squares that may not answer
        (``extra``: readings the usual search does not hold, offered too: :meth:`_gone_too`)."""
        if self._shadows:
            return True  # asked already: the readings are being played on (_follow)
        r = self._board_readings()
        if not r.complete:
            return False
        if extra:
            r = Readings((*r.found, *extra), r.complete, r.capped)
        expiry = r.expiry()
        if expiry is not None:  # a sensor that dropped out may answer yet: ask once it cannot
            self._deadline = max(expiry, self._since + self.settle_time)
            return True
        hiddens: dict[Move, set[int | None]] = {}
        standing: set[int] = set()  # sensors that may have dropped out under a piece still there
        for x in r.found:
            if x.moves and x.standing and x.hidden is not None:
                standing.add(x.hidden)  # (named, but the move read with it hides nothing: its
                hiddens.setdefault(x.moves[0], set()).add(None)  # square answering refutes nothing)
            elif x.moves:
                hiddens.setdefault(x.moves[0], set()).add(x.hidden)
        # the square a choice blames, when its readings agree on one (else nobody is blamed)
        choices = {m: (next(iter(h)) if len(h) == 1 else None) for m, h in hiddens.items()}
        reread = self._reread if self._doubt else None
        prev = self._prev()
        under_way = reread is not None and any(x.under_way for x in r.found)  # or a move under way since
        # a move set down on a square known not to answer, or its piece still in the hand: after
        # a still board, the page is asked (no reply may follow: the game's last move, say)
        in_hand = any(x.under_way and not x.moves and not x.standing for x in r.found) and all(
            h is None and m.to_square in self.suspects for m, h in choices.items()
        )
        # the board as the game has it (moves a silent square hid may have left it so: a capture
        # from it of the piece just moved, say), or as it was before the last move (a takeback,
        # or a capture the same way): no move at all is a reading too
        # (only with moves over a square known not to answer: a square merely unheard so far is
        # no evidence of a move, and the next event tells)
        sensed = self._sensed()
        known = any(
            x.moves
            and x.hidden is None
            and not x.under_way
            and any(self._mask & {*m.path, *m.captured} for m in x.moves)
            for x in r.found
        )
        unmoved = known and not self._doubt and sensed == self._expect(self.position)
        taken_back = known and self._doubt and reread is None and prev is not None and sensed == self._expect(prev)
        alone = not (under_way or in_hand or unmoved or taken_back)  # (one reading with moves is no question)
        if (len(choices) + (reread is not None) < 2 and alone) or (reread is not None and prev is None):
            return False
        squares = sorted(
            standing
            | {
                sq
                for m, h in choices.items()
                for sq in ({h} if h is not None else {m.from_square, m.to_square, *m.captured} & self._mask)
            }
        ) or sorted({x.hidden for x in r.found if x.hidden is not None})  # (a move under way: the square hiding it)
        if not squares and not self._mask:
            return False  # no sensor to name: not a sensor's question (the board is judged as usual)
        texts = [self.position.pdn(m) for m in choices]
        answers = [engine_text(m) for m in choices]  # what the page sends back (``confirm``)
        if reread is not None and prev is not None:
            texts.insert(0, prev.pdn(reread))  # the last move read again
            answers.insert(0, engine_text(reread))
        still = "a piece still in the hand" if in_hand and reread is None else "a move under way"
        if unmoved:
            still = "no move"
        elif taken_back and prev is not None:
            still = f"{prev.pdn(self.game.move_stack[-1])} taken back"
        key = _Raised("sensor", frozenset(self.occupied))
        if self._reported != key:
            self._reported = key
            self._choices = choices
            self._shadows = []
            self._asked_moves = alone and reread is None
            for move, hidden in choices.items():
                sh = _Shadow(move, hidden, self._clone())
                times = [x.landed[0] for x in r.found if x.moves[:1] == (move,) and x.landed]
                sh.ref._adopt(move, hidden, min(times, default=self.t), sh.verdicts)
                self._shadows.append(sh)
            if unmoved or taken_back:  # no move at all (or the last one taken back) is played on too
                sh = _Shadow(None, None, self._clone())
                if taken_back:
                    sh.ref._takeback(sh.verdicts)
                sh.ref._forget()
                self._shadows.append(sh)
            self._emit_report(
                out,
                ReportKind.SENSOR_CONFIRM,
                squares,
                f"the sensor under {self._names(squares) or self._names(self._mask)} may not answer: the board "
                f"cannot tell {' from '.join(texts if len(texts) > 1 and alone else [*texts, still])}: "
                "the move is noted and play may go on (the next moves may tell); "
                "or confirm the move played on the page",
                params={"choices": texts, "moves": answers, "squares": squares},
            )
        return True

    def _ask_vanished(self, out: list[Verdict]) -> bool:
        """A still board that no reading explains, where the referee would wait for ever: if a
        sensor that answered before may have dropped out under a piece set down on it, captured
        before the drop-out ended (the sensor silent throughout), ask the page which move was
        played among the readings that needs (never recorded by itself: a knocked-over piece put
        back reads so too, every sensor sound). A board no such drop-out explains (a piece
        knocked off its square, say) gets its report as before."""
        if self._follows or self._trimmed or self._setup or self.ended or self._shadows:
            return False
        r = self._board_readings()
        if any(x.moves or x.under_way for x in r.found):
            return False  # (another reading stands: the page is asked about it, or it is awaited)
        broad = self._search(deeper=2, vanished=True).at(self.t)  # (played on meanwhile: a deeper search)
        lines: dict[Move, tuple[Move, ...]] = {}
        hiddens: dict[Move, set[int | None]] = {}
        for x in broad.found:
            if x.gone and x.moves and not x.under_way and not x.disturbed and x.hidden is not None:
                lines.setdefault(x.moves[0], x.moves)
                hiddens.setdefault(x.moves[0], set()).add(x.hidden)
        if not lines:
            return False
        choices = {m: (next(iter(h)) if len(h) == 1 else None) for m, h in hiddens.items()}
        squares = sorted({sq for h in hiddens.values() for sq in h if sq is not None})
        key = _Raised("sensor", frozenset(self.occupied))
        if self._reported != key:
            self._reported = key
            self._choices = choices
            self._asked_moves = False
            texts = [" ".join(self._line_text(line)) for line in lines.values()]
            self._emit_report(
                out,
                ReportKind.SENSOR_CONFIRM,
                squares,
                f"the sensor under {self._names(squares)} may not answer: the board may show "
                f"{' or '.join(texts)}, a piece set down there and taken while it did not answer: "
                "confirm the move played on the page",
                params={"choices": texts, "moves": [engine_text(m) for m in lines], "squares": squares},
            )
        return True

    def _line_text(self, line: tuple[Move, ...]) -> list[str]:
        """``line``'s moves as PDN, from the position now."""
        pos, texts = self.position, []
        for m in line:
            texts.append(pos.pdn(m))
            pos = pos.apply(m)
        return texts

    def _told_apart_never(self) -> bool:
        """Two readings or more, each with the other side's move after its first one complete
        and nothing under way: more play will not choose between them before the search can
        no longer hold them (the page is asked then, without waiting for a still board)."""
        r = self._board_readings(air=True)  # (the search _infer just made: its undisturbed readings)
        found = [x for x in r.found if not x.disturbed and x.until is None]  # (a drop-out ends soon)
        firsts = {x.moves[0] for x in found if x.moves}
        return r.complete and len(firsts) >= 2 and all(len(x.moves) >= 2 and not x.under_way for x in found)

    def _clone(self) -> Referee:
        """A copy that plays on by itself (a reading followed while the page is asked)."""
        c = copy.copy(self)
        c.game = self.game.copy()
        c.occupied = set(self.occupied)
        c.cells = set(self.cells)
        c.events = list(self.events)
        c.reports = list(self.reports)
        c.clock = list(self.clock)
        c.suspects = set(self.suspects)
        c._silent = set(self._silent)
        c._heard_at = dict(self._heard_at)
        c._emptied_at = dict(self._emptied_at)
        c._named = set(self._named)
        c.inferred = dict(self.inferred)
        c._choices = {}
        c._impossible = False
        c._follows = True
        c._touch_noticed = set(self._touch_noticed)
        c._touch_from = self._touch_from
        c.reconstructed = set(self.reconstructed)
        c._expected = dict(self._expected)
        c._candidates = CandidateCache(self._mask)
        c._shadows = []
        c._answer = None
        return c

    def _follow(self, out: list[Verdict]) -> None:
        """The readings the page was asked about, each played on: one whose square answered, or
        that came to a board it cannot explain, is dropped; when one alone is left, it was the
        game: the referee takes it up, with the moves it recorded meanwhile."""
        for sh in self._shadows:
            sh.refuted = sh.refuted or sh.ref._impossible
        confused = [sh for sh in self._shadows if _lost_way(sh)]
        alive = [sh for sh in self._shadows if not sh.refuted and sh not in confused]
        if len(alive) == len(self._shadows):
            return
        if len(alive) != 1 or any(not sh.refuted for sh in self._shadows if sh is not alive[0]):
            # only evidence rules a reading out (its square answered, or a still board that no
            # reading of it explains: a complete search found none); one that merely lost its way
            # (a search cut short) may still be the game, so the page's answer is needed
            self._shadows = [sh for sh in self._shadows if not sh.refuted]
            if all(sh in confused for sh in self._shadows):
                self._shadows = []
            return
        self._take_up(alive[0], out)

    def _landed_late(self, sh: _Shadow, out: list[Verdict]) -> None:
        """The page was asked about ``sh``'s move as landed unseen, and the landing was seen now
        (:meth:`_landing_seen_late`): the piece was in the hand (the other side may have replied
        meanwhile). That does not refute the reading (its square answered, but as it said): the
        board is read afresh; if nothing then explains it (the reply began before the landing),
        the move is recorded as played, with nothing hidden, and the events after its lift read on."""
        self._shadows = []
        ply = self.game.ply
        self._evaluate(out)
        if self.game.ply != ply or self._shadows:
            return
        r = self._board_readings()
        if not r.complete or any(x.moves for x in r.found):
            return  # (a search cut short proves nothing: more plies than it looks at, say)
        assert sh.move is not None
        if self.report is not None and self.report.kind is ReportKind.SENSOR_CONFIRM:
            self._clear_report(out)
        self._adopt(sh.move, None, self._lifted(sh.move), out)

    def _landing_seen_late(self, square: int) -> _Shadow | None:
        """The reading the page was asked about whose move landed unseen on ``square``, seen
        set down now (the last event), if its piece was the only one in the hand then:
        every other piece lifted since its lift set down again (else another piece may have been
        set down there, and that square answering refutes the reading)."""
        sh = next((sh for sh in self._shadows if sh.hidden == square == sh.dest), None)
        if sh is None or sh.move is None:
            return None
        held = self._set_down_since(sh.move, before=-1)
        if held == 0:
            return sh
        # pieces lifted since and not set down: the reply's captured pieces, taken off, if the
        # move as landed here and the later events read as moves leave the board the game's, no
        # sensor named (else one of them may be the piece set down here)
        if held is None or held >= 0:
            return None
        return sh if self._landing_explains(sh) or self._only_first(sh.move) else None

    def _only_first(self, move: Move) -> bool:
        """Does every reading of the board (a complete search) begin with ``move``? A late
        landing then stands, though the reply played meanwhile has its own silent square (a dead
        one under its landing, say), which the board read afresh infers and names."""
        r = self._board_readings()
        return r.complete and not r.capped and bool(r.found) and all(x.moves[:1] == (move,) for x in r.found)

    def _set_down_since(self, move: Move, before: int | None = None) -> int | None:
        """The pieces set down less those lifted since ``move``'s origin was first lifted (up
        to the event ``before``; None: not lifted): 0, each piece lifted since was set down
        again; below 0, some are still off (in the hand, or captured); above 0, a piece was set
        down whose lift was not seen (``move``'s own, say, gone on unseen)."""
        i = self._first_lift(move.from_square)
        return None if i is None else sum(1 if ev.occupied else -1 for ev in self.events[i + 1 : before])

    def _held_landing(self, out: list[Verdict]) -> bool:
        """A still board nothing explains, where a square never heard before answered first with
        a piece set down after a move's origin was lifted: the piece held in the hand while the
        other side replied (and began its reply before the landing, which no reading allows).
        That move, with the events after its lift read on, is recorded if it alone leaves the
        board the game's, nothing inferred, no sensor named."""
        works = []
        changed = self._sensed() ^ self._expect(self.position)
        for m in self.position.legal_moves:
            i = self._first_lift(m.from_square)
            first = next((ev for ev in self.events if ev.key == m.to_square), None)
            if i is None or first is None or not first.occupied or self._heard_at.get(m.to_square) != first.t:
                continue  # (its square heard before, or first heard as a lift)
            if any(ev.key in changed for ev in self.events[:i]):
                continue  # (a square the board shows changed changed before its lift: not a reply to it)
            if first.t > self.events[i].t and self._reads_whole(m, self.events[i].t):
                works.append((m, self.events[i].t))
        if len(works) != 1:
            return False
        ((move, lifted),) = works
        self._adopt(move, None, lifted, out)
        return True

    def _reads_whole(self, move: Move, lifted: float) -> bool:
        """Does ``move``, recorded on a copy as lifted at ``lifted`` with nothing hidden and the
        events after read on, leave the board the game's, nothing inferred, no sensor named?"""
        c = self._clone()
        c._adopt(move, None, lifted, [])
        return self._whole(c)

    def _whole(self, c: Referee) -> bool:
        """Did the copy ``c`` record moves that leave the board its game's, inferring nothing
        and naming no sensor more than this referee?"""
        return (
            c.game.ply > self.game.ply
            and c._sensed() == c._expect(c.position)
            and c.inferred == self.inferred
            and c._named == self._named
        )

    def _landing_explains(self, sh: _Shadow) -> bool:
        """Does the landing of ``sh``'s move seen late, read on a copy, explain the board whole?"""
        c = self._clone()
        c._landed_late(sh, [])
        return self._whole(c)

    def _take_up(self, sh: _Shadow, out: list[Verdict]) -> None:
        """``sh``'s reading was the game: the referee becomes its copy, moves recorded meanwhile and all."""
        emitted = [v for v in sh.verdicts if not (isinstance(v, Report) and v.kind is ReportKind.RESTORED)]
        follows = self._follows
        self.__dict__.update(sh.ref.__dict__)
        self._follows = follows  # (the game, if it was: not a copy following a reading from now on)
        self._impossible = self._impossible and follows
        self._shadows = []
        if self.report is None:
            self._emit_report(out, ReportKind.RESTORED, (), "the board matches the game again", active=False)
        out += emitted

    def _board_readings(self, *, air: bool = False) -> Readings:
        """The readings of the board since it last matched the game, one silent square allowed,
        or a sensor that answered before dropped out under a landing (``DROPOUT``; those that
        no longer hold at this moment left out); ``air``: and those that hold if a piece lifted
        within ``grace_time``, off its square now, is put back."""
        if air:
            if self._readings_air is None:
                self._readings_air = self._search(air=self.t - self.grace_time)
            elif isinstance(self._readings_air, _Deferred):
                self._readings_air = self._search(air=self._readings_air.air, deep=self._readings_air.deep)
            return self._readings_air.at(self.t)
        if self._readings is None:
            self._readings = self._search()
        return self._readings.at(self.t)

    def _deepened(self) -> bool:
        """Are the readings searched deeper now (plies played while a move was held)?"""
        return (
            self._catching_up
            or self.t <= self._deep_until
            or (self._lost and bool(self.events) and self.events[0].t <= self._standing_until)
        )

    def _search(
        self, air: float | None = None, deeper: int = 1, deep: bool | None = None, *, vanished: bool = False
    ) -> Readings:
        if self._deepened() if deep is None else deep:  # (``deep``: as it was when a search was deferred)
            deeper = max(deeper, 2)
        return readings(
            self.position,
            self.occupied,
            self.events,
            self._silent,
            self._mask,
            cache=self._fault_cache,
            air=air,
            dropout=DROPOUT,
            hold=HIDDEN_LANDING,
            heard=self._heard_at,
            emptied=self._emptied_at,
            now=self.t,
            max_plies=READING_PLIES * deeper,
            max_nodes=MAX_NODES * deeper**3,
            vanished=vanished,
        )

    def _another_reading(self, move: Move | None, *, slid: bool = False) -> bool:
        """Does the evidence admit a reading other than recording ``move`` now (None: other
        than no move at all: a takeback, or a board that matches the game; ``slid``: other
        than the last move's king slid on from where it stopped, the move read again)? Then
        the referee must not record (nor forget what it saw): it waits for the next event to tell.

        A reading in which a silent square hid a move that is complete is always another
        reading. One in which the other side's move is only under way after it (a piece in
        the hand) counts once the board was in a state nothing explained since it last
        matched the game (after a clean move it is a coincidence of a sensor that has not
        been heard yet; after a board nothing explained, a sensor that may be dead): then
        the move is recorded once the board has been still for ``settle_time``. So it is when
        the last move's king slid on (``slid``): the opponent's move under way, its start hidden
        by a square not heard yet, while the king's own lift and landings are all the sensors
        saw, is such a coincidence (a complete move so read is another reading: the page is asked)."""
        if not self.sensor_faults:
            return False
        if self._asked_stands():
            return True
        if move is not None and not self._lost and not self._mask:
            return False
        if self._trimmed:
            return True  # what happened since the board matched the game is no longer known
        r = self._board_readings()
        if not r.complete:
            return True
        if move is not None and not any(x.moves[:1] == (move,) for x in r.found):
            return True  # the move itself is not a reading of what the sensors saw (in that order)
        if move is None:  # a takeback or a board that matches: any move since, or one under way, is another reading
            return any(
                (x.moves or (x.under_way and not (slid and x.hidden is not None and not self._lost)))
                and x.until is None
                for x in r.found
            )
        pending = False
        for x in r.found:
            other = bool(x.moves) and (move is None or x.moves[0] != move)
            if other and not (
                move is not None and x.under_way and x.hidden is not None and len(x.moves) == 1 and not x.standing
            ):
                return True
            if (other or not x.moves) and x.under_way and x.hidden is not None:
                pending = True
        if pending and self._lost and self.t < self._since + self.settle_time:
            self._waiting = True
            return True
        return False

    def _more_after(self, move: Move) -> float | None:
        """When ``move`` landed, if a reading has more moves after it (moves that left the board
        as it was, a square that does not answer hiding them): their events are kept."""
        if not self.sensor_faults or not (self._lost or self._mask) or self._readings is None:
            return None
        longer = [x.landed[0] for x in self._readings.found if len(x.moves) >= 2 and x.moves[0] == move and x.landed]
        return min(longer) if longer else None

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
        self._readings = self._readings_air = None
        self._grace = None
        if isinstance(key, str):
            if event.occupied:
                self.cells.add(key)
            else:
                self.cells.discard(key)
        else:
            if event.occupied:
                self.occupied.add(key)
                self._emptied_at.pop(key, None)
            else:
                self.occupied.discard(key)
                self._emptied_at[key] = event.t
            self._silent.discard(key)
            self._heard_at.setdefault(key, event.t)
            if self._pending is not None and key in self._pending.squares:
                self._pending = None  # a sensor it weighed answered: the board is read again
            self.events.append(event)
            if len(self.events) > MAX_EVENTS:
                del self.events[: len(self.events) - MAX_EVENTS]
                self._trimmed = True
            if self._slid is not None and event.occupied and self._slid_landed(key, out):
                pass  # (the king held in the hand, set down further along its line: recorded)
            elif self._slid is not None and key == self._slid[2].dest and key not in self._mask and not self._slid_seen:
                self._slid_moot(out)
        self._evaluate(out)
        late = self._landing_seen_late(key) if isinstance(key, int) and event.occupied else None
        if late is not None:
            self._landed_late(late, out)
        elif self._shadows:
            for sh in self._shadows:
                if sh.hidden == key or key in sh.ref.suspects - self.suspects:
                    sh.refuted = True  # the square it took for dead answered (or one its moves since did)
                sh.verdicts += sh.ref.feed(event)
            self._follow(out)
        return out

    def tick(self, now: float) -> list[Verdict]:
        """Let time pass: a state held for the grace period raises its alarm (or its move),
        a board that has been still long enough gets its report."""
        out: list[Verdict] = []
        while (due := self._own_deadline()) is not None and now >= due:
            if self._answer is not None and due == self._answer[1]:
                a, self._answer = self._answer[0], None
                self.t = max(self.t, due)
                self._confirmed(a, out, held=True)  # (no landing was seen: the square is named)
                continue
            if self._pending is not None and due == self._pending.due:
                p, self._pending = self._pending, None
                self.t = max(self.t, due)
                if p.capped:  # (a reading the cap left out may begin otherwise: 22-18 4x21, say)
                    self._readings = self._readings_air = None
                    self._evaluate(out)
                elif self._doubt or self._sensed() == self._expect(self.position):
                    self._evaluate(out)  # the board went back: the readings tell
                else:  # every reading but the drop-out's began with it, and no sensor answered since
                    self._catching_up = True  # the plies played meanwhile are read with a deeper search
                    try:
                        self._adopt(p.move, p.hidden, p.landed, out)
                    finally:
                        self._catching_up = False
                continue
            if due == self._grace:
                self._grace = None
                self.t = max(self.t, due)
                self._evaluate(out)
                continue
            self.t = max(self.t, due if math.isfinite(due) else now)
            self._deadline = None
            self._settled(out)
        if self._shadows:
            for sh in self._shadows:
                sh.verdicts += sh.ref.tick(now)
            self._follow(out)
        return out

    def _own_deadline(self) -> float | None:
        pending = None if self._pending is None else self._pending.due
        answer = None if self._answer is None else self._answer[1]
        due = [d for d in (self._grace, self._deadline, pending, answer) if d is not None]
        return min(due) if due else None

    def next_deadline(self) -> float | None:
        due = [d for d in (self._own_deadline(), *(sh.ref.next_deadline() for sh in self._shadows)) if d is not None]
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
        if a.action == "confirm":
            self._confirmed(a, out)
            return
        if a.action in ("new-game", "position"):
            if a.action == "position":  # (the analysis mode on the board: another position to set up)
                self.fen = a.fen
            self.game = self._new_game(self.fen)
            self._forget()
            self.report = None
            self._reported = None
            self._deadline = None
            self._grace = None
            self._irregular = None
            self.clock.clear()
            self.reconstructed.clear()
            self._expected.clear()
            self._setup = self._sensed() != self._expect(self.position)
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

    def _confirmed(self, a: Action, out: list[Verdict], held: bool = False) -> None:
        """The page confirmed the move played among the readings it was asked about, or that
        the sensor under a square is broken (a set-up it keeps from completing, say); ``held``:
        an answer kept until now for its landing, never seen."""
        if a.square is not None:
            if a.square in self.position.geometry.squares() and a.square not in self.suspects:
                self._suspect(a.square, out)
                self._reported = None
                self._evaluate(out)
            return
        if self._slid is not None and a.move is not None:
            last, c, slid, reply = self._slid
            answer = parse_engine_move(self.position, a.move)
            if answer in (last, slid.move):  # the move as read, or its king slid on: with its reply
                self.report = None
                if answer == slid.move:
                    if slid.dest not in self._mask and not self._slid_seen:
                        self._suspect(slid.dest, out)  # (never heard: the king stands on it unseen)
                    self._record_pair(slid.move, reply, last, self.events, out)
                elif c is not None:
                    self._record_pair(last, c, last, self.events, out)
                else:  # as read, the king lifted since: the reply is read as usual (not asked again)
                    self._stands_as_read(last, out)
                    self._slid_told = (self.game.ply, last)
                self._evaluate(out)
            return
        prev = self._prev()
        again = None if a.move is None or prev is None else parse_engine_move(prev, a.move)
        if self._doubt and again is not None and again == self._reread:
            last = self.game.move_stack[-1]
            self.report = None
            self._takeback(out)
            self._commit(self._candidates.find(self.position, again), out, again=last)
            return
        move = None if a.move is None else parse_engine_move(self.position, a.move)
        if move is None or move not in self._choices or self.ended or self._setup:
            return  # not a move it was asked about (a log written for another moment): nothing happens
        hidden = self._choices[move]
        if hidden is not None and hidden == move.to_square and hidden not in self._mask:  # its landing unseen
            heard, lifted = self._heard_at.get(hidden), self._lifted(move)
            if heard is not None and heard > lifted:
                hidden = None  # (never heard before its lift, its landing was seen since: nothing was hidden)
            elif heard is None and not held and (self._set_down_since(move) or 0) <= 0:
                # never heard, and no piece set down since the lift that it may have been: the
                # piece may still be in the hand. Taken now, the answer would name a sound sensor
                # (the player answering before setting it down): it waits for the landing (the
                # board read afresh) or HIDDEN_LANDING after the answer
                self._answer = (a, self.t + HIDDEN_LANDING)  # (the page's question stands until then)
                return
        shadow = next((sh for sh in self._shadows if sh.move == move and sh.hidden == hidden), None)
        if shadow is not None:  # that reading was played on meanwhile: with the moves made since
            self.report = None
            self._take_up(shadow, out)
            return
        r = self._board_readings()
        times = [x.landed[0] for x in r.found if x.moves and x.moves[0] == move and x.landed]
        if not times:  # (offered by _ask_vanished: the events after its landing are the next moves')
            r = self._search(deeper=2, vanished=True).at(self.t)
            times = [x.landed[0] for x in r.found if x.moves and x.moves[0] == move and x.landed]
        self.report = None
        self._adopt(move, hidden, min(times, default=self.t), out)

    def _set_down_before_lifted(self, c: Candidate) -> bool:
        """Did ``c``'s destination last read a piece set down before its origin ever read a
        lift (since the board matched the game)? Then the board only looks like ``c``: a piece
        on its destination not yet taken off (a captured one, its sensor bouncing) and a piece
        lifted off its origin (a sleeve brushing it), say. Campaign property seed 29513 recorded
        1-5 so, 5's captured piece still there and 1 brushed."""
        i = self._first_lift(c.origin)
        landed = max((ev.t for ev in self.events if ev.key == c.dest and ev.occupied), default=None)
        return i is not None and landed is not None and landed < self.events[i].t

    def _first_lift(self, square: int) -> int | None:
        """The index in ``events`` of ``square``'s first lift since the board matched the game."""
        return next((i for i, ev in enumerate(self.events) if ev.key == square and not ev.occupied), None)

    def _lifted(self, move: Move) -> float:
        """When ``move``'s piece was lifted: its origin's first lift (now, if not seen)."""
        i = self._first_lift(move.from_square)
        return self.t if i is None else self.events[i].t

    def _end(self, out: list[Verdict]) -> None:
        o = self.game.outcome()
        if o is not None:
            out.append(GameEnd(o.result(self.variant), o.termination.value, self.t))

    # -- the core ----------------------------------------------------------------------------
    def _evaluate(self, out: list[Verdict]) -> None:
        self._waiting = False
        pos = self.position
        s = self._sensed()
        e = self._expect(pos)
        if self._setup:
            if s == e and not self.cells:
                self._setup = False
                self._forget()
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
            elif self._reported != _Raised("over") and self._held():
                self._reported = _Raised("over")
                self._emit_report(
                    out, ReportKind.GAME_OVER, sorted(s ^ e), "the game is over: no more moves", active=False
                )
            return
        if self.cells:
            self._deadline = self.t + self.settle_time
            return
        if self._slid is not None:
            self._deadline = None  # the page is asked whether a king slid on: nothing is read until it answers
            return
        if self._doubt and not self._another_reading(None):
            # the board was the last move taken back (or changed) while a silent square could
            # have hidden another move; nothing else explains what followed: it was taken back
            # (once the board matches the game, or has been still: a piece adjusted or brushed
            # for a moment does not end the other reading)
            if s != e and self.t < self._since + self.settle_time:
                self._deadline = self._since + self.settle_time
                self._waiting = True
                return
            seen = self.events
            self._takeback(out)
            self._forget(seen)
            self._evaluate(out)
            return
        if s == e:
            self._sync(out)
            return
        cands = self._candidates.of(pos)
        for c in cands:
            if c.after == s and self._allowed(c) and not self._set_down_before_lifted(c):
                if may_slide_on(c, self._candidates.of(c.base)) and not self._held():
                    self._deadline = None  # a king on its way: the move is read once it stops
                    return
                if c.dest in self._mask:
                    # set down where no sensor answers, or still in the hand (or about to be put
                    # back): the reply landing tells, or a board still for long (_infer)
                    self._lost = True
                    self._deadline = self._since + HIDDEN_LANDING
                    return
                if self._slid_asked(c, s, out):
                    return  # the last move's king may have slid on to a square no sensor answers
                if self._another_reading(c.move):
                    self._deadline = self._since + self.settle_time  # a silent square may have hidden another
                    self._lost = True
                    return
                when = self._more_after(c.move)
                if when is not None:  # moves whose changes the board cannot show were made after it
                    self._adopt(c.move, None, when, out)
                    return
                self._commit(c, out)
                return
        if self._irregular is not None and not self._directed(self._irregular):
            for c in self._candidates.of(self._irregular):
                if c.after == s:
                    self._accept(c, out)
                    return
        prev = self._prev()
        if prev is not None:
            last = self.game.move_stack[-1]
            if s == self._expect(prev) and (last.from_square == last.to_square or self._moved_to(e, s)):
                if self.mode == "casual":
                    if self._another_reading(None):
                        # a takeback, or a capture a silent square hid: the next event tells, or
                        # the page once the board has been still
                        self._deadline = self._since + self.settle_time if self._mask else None
                        self._doubt = True
                        return
                    self._takeback(out)
                    return
                if self._held():
                    self._irregular_report(
                        out, s, ReportKind.TAKEBACK, last.path, "the last move was taken back: put it back", target=e
                    )
                self._deadline = None
                return
            for c in self._candidates.of(prev):
                if c.after != s or c.move == last or not self._allowed(c):
                    continue
                same_travel = c.origin == last.from_square and c.dest == last.to_square
                slid_unseen = c.dest in self._mask and self._slid_on(prev, last, c)
                if not same_travel and not slid_unseen and not self._moved_to(e, c.after):
                    continue  # set down before any piece was lifted: not a change of the last move
                # set down where no sensor answers, or still in the hand: a king that slid on is
                # read again once the board has been still (or the reply started, below)
                unseen = c.dest in self._mask and not same_travel
                if unseen and (not self._slid_on(prev, last, c) or self.t < self._since + HIDDEN_LANDING):
                    self._lost = True
                    self._deadline = self._since + HIDDEN_LANDING
                    self._waiting = self._slid_on(prev, last, c)
                    return
                # the board is the result of another move from the previous position
                slid = self._slid_on(prev, last, c)
                king = prev.piece_at(last.from_square)
                if king is not None and king.king and not slid and not same_travel and not self._held():
                    # a king's move changed is read once the king is released: one that only passes
                    # over another of its squares is on its way (to its next move, the opponent's
                    # piece lifted from a square never heard: hold campaign game 7087)
                    return
                if self.mode == "casual" or slid or self._removals_told(last, c):
                    if self._another_reading(None, slid=slid):
                        # another move, or one a silent square hid: the next event tells, or the page
                        self._deadline = self._since + self.settle_time
                        self._doubt = True
                        self._reread = c.move
                        return
                    self._takeback(out)
                    # read again: the removals and touches were judged with the first reading
                    self._commit(self._candidates.find(self.position, c.move), out, again=last)
                elif self._held():
                    moved_again = any(ev.key == last.to_square and not ev.occupied for ev in self.events)
                    shown = prev.pdn(c.move)
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
        if prev is not None and self._slid_on_unseen(prev, s, out):
            return
        # a fast reply: the move is complete except that the opponent already lifted a piece
        for c in cands:
            gone = c.after - s
            if not s - c.after and len(gone) == 1 and self._allowed(c):
                (x,) = gone
                piece = pos.apply(c.move).piece_at(x)
                if piece is not None and piece.color is pos.turn.other and x not in c.captured:
                    lift = [i for i, ev in enumerate(self.events) if ev.key == x and not ev.occupied]
                    landed = [i for i, ev in enumerate(self.events) if ev.key == c.dest and ev.occupied]
                    if c.dest in self._mask:
                        continue  # set down where no sensor answers: the reply must land to tell (_infer)
                    if not (lift and landed and landed[-1] < lift[-1]) or self._another_reading(c.move):
                        continue
                    lifted = self.events[lift[-1]]
                    # (with what the other side did since the move was complete: a piece of its
                    # own touched and put back, say, which a move read at once would have noticed)
                    since = self._after(c, self.events)
                    self._commit(c, out)
                    self._forget(since if lifted in since else [lifted])
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
            self._deadline = self.t + self.settle_time if stopped_mid_chain(live, s, e) else None
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
        self._lost = True
        self._deadline = self.t + self.settle_time
        if self.sensor_faults and not self._infer(out, held=False):
            if self._shadows:  # asked already (_ask would change nothing): searched if a reading needs it
                if self._readings_air is None:
                    self._readings_air = _Deferred(self.t - self.grace_time, self._deepened())
            elif self._told_apart_never():
                self._ask(out)  # the game goes on while two readings stand: ask now, before they outgrow the search

    def _slid_on_unseen(self, prev: Position, s: frozenset[int], out: list[Verdict]) -> bool:
        """The last move's king slid on to a square no sensor answers, and the reply has
        landed since: read the move again, then the reply. On to a square never heard from
        (not known to be broken: the king may as well be in a hand), the page is asked."""
        last = self.game.move_stack[-1]
        held = self._slid_held(prev, s)
        if held is not None:
            if not self._another_reading(None, slid=True):
                self._read_slid_again(*held, out)
                return True
            # (a sensor that dropped out under the king where it was read, say, the king moved
            # on after the reply: the page is asked, naming it)
            r = self._board_readings()
            blamed = sorted({x.hidden for x in r.found if x.moves and x.hidden is not None})
            if r.complete and blamed:
                self._ask_slid(None, *held, out, squares=blamed, king_seen=True)
                return True
        told = self._slid_told == (self.game.ply, last)
        for c, reply in self._slid_readings(prev, s, unheard=not told):
            lifted = [ev.t for ev in self.events if ev.key == last.to_square and not ev.occupied]
            if lifted and self.t < lifted[-1] + self.grace_time:
                self._grace = lifted[-1] + self.grace_time  # a sleeve may put the king back: look again then
                continue
            if c.dest in self._mask:
                self._read_slid_again(c, reply, out)
            else:
                self._ask_slid(None, c, reply, out)
            return True
        return False

    def _slid_held(self, prev: Position, s: frozenset[int]) -> tuple[Candidate, Candidate] | None:
        """The last move's king slid on in the hand: lifted off the square it was read on and
        held while the other side replied, then set down further along its line (seen there,
        after the reply began). The one such move and reply that leave the board as it is (every
        sensor answering: the king lifted twice in a row is no reading), or None."""
        last = self.game.move_stack[-1]
        left = self._first_lift(last.to_square)
        if left is None:
            return None
        found = []
        for c in self._candidates.of(prev):
            if c.move == last or c.dest not in s or c.dest in self._mask or not self._slid_on(prev, last, c):
                continue
            placed = next((i for i, ev in enumerate(self.events) if ev.key == c.dest and ev.occupied), None)
            if placed is None:
                continue
            for reply in self._candidates.of(c.result):
                began = self._first_lift(reply.origin)
                if reply.after == s and began is not None and left < began < placed and not self._rested(left, reply):
                    found.append((c, reply))
        return found[0] if len(found) == 1 else None

    def _rested(self, since: int, reply: Candidate) -> bool:
        """Was a piece set down, from the event ``since`` on, on a square that reads empty now,
        but on ``reply``'s way (a touch-down of its capture)? A king that rested there and went
        on (a move of its own after the reply, say): not one king held in the hand all along."""
        way = set(reply.move.path)
        return any(
            ev.occupied and isinstance(ev.key, int) and ev.key not in self.occupied and ev.key not in way
            for ev in self.events[since:]
        )

    def _slid_readings(
        self, prev: Position, s: frozenset[int], *, unheard: bool = False
    ) -> Iterator[tuple[Candidate, Candidate]]:
        """The last move read again as its king slid on to a square no sensor answers (or,
        ``unheard``, one never heard from that reads empty), with the one reply that leaves the
        board as it is (``s``) but for that square, begun after the king left the square it
        was read on (a reply lifted before answered the move as read)."""
        last = self.game.move_stack[-1]
        for c in self._candidates.of(prev):
            silent = unheard and c.dest in self._silent and c.dest not in s
            if not (c.dest in self._mask or silent) or c.move == last or not self._slid_on(prev, last, c):
                continue
            hide = {c.dest} if silent else set()
            replies = [r for r in self._candidates.of(prev.apply(c.move)) if r.after - hide == s]
            if len(replies) != 1:
                continue
            (reply,) = replies
            left = [i for i, ev in enumerate(self.events) if ev.key == last.to_square and not ev.occupied]
            began = [i for i, ev in enumerate(self.events) if ev.key == reply.origin and not ev.occupied]
            if not (left and began and began[0] > left[0]):
                continue
            # the reply's landing, where a sensor answers, after its lift: one seen before it is
            # the king set back where it was read (hold campaign game 7047: the king lifted and
            # put back on 14, then 10 lifted, was read as the king slid on unseen and 10-14)
            landed = [i for i, ev in enumerate(self.events) if ev.key == reply.dest and ev.occupied]
            if reply.dest in self._mask or (landed and landed[-1] > began[0]):
                yield c, reply

    def _read_slid_again(self, c: Candidate, reply: Candidate, out: list[Verdict]) -> None:
        """Record the last move again as ``c`` (its king slid on), then ``reply``."""
        last = self.game.move_stack[-1]
        seen = self.events
        self._takeback(out)
        self._record_pair(c.move, reply, last, seen, out)

    def _record_pair(
        self, first: Move, reply: Candidate, replaced: Move, seen: list[Transition], out: list[Verdict]
    ) -> None:
        """Record ``first`` as a re-reading of ``replaced`` (judged once already; a move over a
        silent square is marked inferred), then ``reply``, both read from the events ``seen``
        (those after the reply's landing and removals are the next move's: a page answered
        late, the game played on)."""
        self._commit(self._candidates.find(self.position, first), out, again=replaced)
        self._forget(seen)
        self._commit(reply, out)
        self._forget(self._after(reply, seen))

    def _after(self, c: Candidate, seen: list[Transition]) -> list[Transition]:
        """The events of ``seen`` after ``c``'s lift, landing and removals (those a sensor saw)."""
        began = next((i for i, ev in enumerate(seen) if ev.key == c.origin and not ev.occupied), None)
        if began is None:
            return []
        end = began
        for sq in {c.dest, *c.captured} - self._mask:
            placed = sq == c.dest  # (the landing is a placing; a removal, a lift)
            i = next((i for i in range(began, len(seen)) if seen[i].key == sq and seen[i].occupied is placed), None)
            if i is None:
                return []
            end = max(end, i)
        return seen[end + 1 :]

    def _slid_asked(self, c: Candidate, s: frozenset[int], out: list[Verdict]) -> bool:
        """``c`` (a reply to the last move) leaves the board as it is, and so does the last move's
        king slid on to a square no sensor answers, then another reply (the king captured
        there, its removal unseen, where ``c`` takes it where it was read, lifted before ``c``
        began): the last move is taken back and the page asked which; nothing is recorded
        until it answers (the record stops short, never guesses)."""
        prev = self._prev()
        if not self._mask or prev is None:
            return False
        other = next(self._slid_readings(prev, s), None)
        if other is None:
            return False
        self._ask_slid(c, *other, out)
        return True

    def _ask_slid(
        self,
        c: Candidate | None,
        again: Candidate,
        reply: Candidate,
        out: list[Verdict],
        squares: list[int] | None = None,
        king_seen: bool = False,
    ) -> None:
        """Take the last move back and ask the page: was it ``again`` (its king slid on to a
        square that did not answer) then ``reply``, or as read, then ``c`` (None: the king
        lifted off where it stopped, the reply made meanwhile)? ``squares``: the sensors named
        (``again``'s landing by default); ``king_seen``: the king was seen set down on it (held)."""
        prev = self._prev()
        assert prev is not None
        last = self.game.move_stack[-1]
        first = f"{prev.pdn(again.move)} {prev.apply(again.move).pdn(reply.move)}"
        second = prev.pdn(last) if c is None else f"{prev.pdn(last)} {self.position.pdn(c.move)}"
        told = second if c is not None else f"{second} with the king lifted off {self._name(last.to_square)} since"
        seen = self.events
        self._takeback(out)
        self._forget(seen)
        self._slid = (last, c, again, reply)
        self._slid_seen = king_seen
        self._choices = {}
        self._reported = _Raised("sensor", frozenset(self.occupied))
        squares = squares or [again.dest]
        self._emit_report(
            out,
            ReportKind.SENSOR_CONFIRM,
            squares,
            f"the sensor under {self._names(squares)} may not answer: the board cannot tell "
            f"{first} from {told}: confirm the moves played on the page; nothing is read until then",
            params={
                "choices": [first, second],
                "moves": [engine_text(again.move), engine_text(last)],
                "squares": squares,
                "wait": True,  # (not the usual question: the game is not played on meanwhile)
            },
        )

    def _slid_moot(self, out: list[Verdict]) -> None:
        """The square a slide question blamed answered: its sensor works, the king was in a
        hand. Set down there with the reply made, the king slid on (both recorded, nothing
        inferred); else the last move stands as read, and the board is read on."""
        assert self._slid is not None
        last, _, again, reply = self._slid
        seen = self.events
        self.report = None
        if self._sensed() == self._expect(reply.result):
            self._record_pair(again.move, reply, last, seen, out)
        else:
            self._stands_as_read(last, out)

    def _slid_landed(self, square: int, out: list[Verdict]) -> bool:
        """The page is asked whether a king slid on (:meth:`_ask_slid`), and the king was set
        down on ``square``, further along its line than it was read, the board now that move and
        one reply: it was in the hand (the reply made meanwhile), and the sensor the question
        named is not in doubt. Both are recorded, the question dropped."""
        assert self._slid is not None
        last, _, again, _ = self._slid
        if square == again.dest or square in self._mask:
            return False  # (that square answering: _slid_moot)
        pos, sensed, left = self.position, self._sensed(), self._first_lift(last.to_square)
        if left is None:
            return False
        found = [
            (c, r)
            for c in self._candidates.of(pos)
            if c.dest == square and c.move != last and slides_past(pos, last, c.move)
            for r in self._candidates.of(c.result)
            if self._expect(r.result) == sensed and not self._rested(left, r)
        ]
        if len(found) != 1:
            return False
        self.report = None
        self._record_pair(found[0][0].move, found[0][1], last, self.events, out)
        return True

    def _stands_as_read(self, last: Move, out: list[Verdict]) -> None:
        """A slide question's move taken back meanwhile stands as read: recorded again, the
        events since kept (the reply's, read as usual)."""
        seen = self.events
        self._commit(self._candidates.find(self.position, last), out, again=last)
        self._forget(seen)

    def _moved_to(self, before: frozenset[int], after: frozenset[int]) -> bool:
        """Could a piece have been carried from a square of ``before`` that ``after`` empties to
        one it fills (set down there after that square was lifted, since the last move)?"""
        gone, came = before - after, after - before
        first = [i for i, ev in enumerate(self.events) if ev.key in gone and not ev.occupied]
        return bool(first) and any(ev.key in came and ev.occupied for ev in self.events[first[0] :])

    def _slid_on(self, prev: Position, last: Move, c: Candidate) -> bool:
        """Is ``c`` the last move's king slid on along the same line soon after it stopped
        (a slow drag read as the move too early)? Then it is the same move, in both modes."""
        piece = prev.piece_at(last.from_square)
        if piece is None or not piece.king or not slides_past(prev, last, c.move):
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
        for c in self._candidates.of(prev):
            if (
                c.after == s
                and c.move != last
                and self._allowed(c)
                and ((slid := self._slid_on(prev, last, c)) or self._removals_told(last, c))
                and not self._another_reading(None, slid=slid)
            ):
                if c.dest in self._mask and self.t < self._since + HIDDEN_LANDING:
                    # set down where no sensor answers, or still in the hand: look again once the
                    # board has been still that long (random property case 152127438: 2x11 read
                    # at a rest, the king lifted, read at once as landed on the dead 16, then
                    # set down on 20)
                    self._grace = self._since + HIDDEN_LANDING
                    return True
                self._takeback(out)
                self._commit(self._candidates.find(self.position, c.move), out, again=last)
                return True
        return False

    def _removals_told(self, last: Move, c: Candidate) -> bool:
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
        return any(c.in_progress(s) for b in bases for c in self._candidates.of(b))

    def _touching(self, events: list[Transition]) -> list[Transition]:
        """``events`` made on this side's turn (:attr:`_touch_from`)."""
        return [ev for ev in events if ev.t > self._touch_from]

    def _sync(self, out: list[Verdict]) -> None:
        """The board matches the game: adjustments, a restored irregularity."""
        pos = self.position
        lifted = set(_squares(self.events, placed=False))
        # a circular capture passes through the start position: keep waiting for the removals
        if any(c.origin == c.dest and c.origin in lifted for c in self._candidates.of(pos)):
            if self.report is not None:
                self._clear_report(out)
            return
        if self.mode == "tournament":
            movable = {c.origin for c in self._candidates.of(pos)}
            touched = set(_squares(self._touching(self.events), placed=False))
            for sq in sorted(touched & movable - self._touch_noticed):
                piece = pos.piece_at(sq)
                if piece is not None and piece.color is pos.turn:
                    self._touch_noticed.add(sq)
                    self._emit_report(
                        out,
                        ReportKind.TOUCH_MOVE,
                        (sq,),
                        f"the piece on {self._name(sq)} was touched and must be moved "
                        "(unless it was an announced adjustment)",
                        active=False,
                        params={"touched": sq},
                    )
        if self._asked_past():
            return  # (plies of a reading asked about can leave the sensors reading as the game has it)
        if self.report is not None:
            self._clear_report(out)
        self._irregular = None
        self._deadline = None
        if self._trimmed or not self._another_reading(None):
            self._forget()
        elif self._mask:
            self._deadline = self._since + self.settle_time  # if nothing follows, the page may be asked (_settled)

    def _procedure(self, c: Candidate, route: Move, out: list[Verdict]) -> None:
        """Tournament mode: note removals before the landing or out of jump order."""
        if self.mode != "tournament" or not c.captured:
            return
        # a captured piece is removed by its last lift (a touch put back before does not count)
        final = {
            ev.key: i
            for i, ev in enumerate(self.events)
            if isinstance(ev.key, int) and not ev.occupied and ev.key in c.captured
        }
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

    def _commit(
        self, c: Candidate, out: list[Verdict], *, again: Move | None = None, inferred: int | None = None
    ) -> None:
        """Record ``c`` (``again``: the move it replaces, whose route it follows up to its last leg;
        ``inferred``: the square whose change the sensors did not see)."""
        pos = self.position
        route = route_followed(c, _squares(self.events, placed=True))
        if again is not None:
            route = route_like(c, again, route)
        pdn = pos.pdn(route)
        if again is None:
            self._procedure(c, route, out)
        if self.mode == "tournament" and again is None:
            # a piece touched before the move first landed (not one brushed after it, while it was read)
            landed = min((i for i, ev in enumerate(self.events) if ev.occupied and ev.key == c.dest), default=None)
            before = self._touching(self.events[:landed])
            lifted = set(_squares(before, placed=False))
            movable = {m.origin for m in self._candidates.of(pos)}  # touch-move binds a piece that can be played
            # the piece played, touched and put back first (a board read late, or that never
            # matched the game meanwhile: the notice the put-back would have had)
            if c.origin not in self._touch_noticed and any(ev.key == c.origin and ev.occupied for ev in before):
                self._emit_report(
                    out,
                    ReportKind.TOUCH_MOVE,
                    (c.origin,),
                    f"the piece on {self._name(c.origin)} was touched and put back before it was played",
                    active=False,
                    params={"touched": c.origin},
                )
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
                    f"the piece on {self._name(sq)} was touched but {self._name(c.origin)} was played",
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
        self._forget()
        if inferred is None:  # a move over a square known not to answer: that change is inferred too
            inferred = next(iter(sorted({c.origin, c.dest, *c.captured} & self._mask)), None)
        if inferred is not None:
            self.inferred[self.game.ply] = inferred
        out.append(MoveMade(self.game.ply, route, pdn, self.t, inferred=inferred))
        self._end(out)

    def _accept(self, c: Candidate, out: list[Verdict]) -> None:
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
        self._commit(self._candidates.find(self.position, c.move), out)

    def _takeback(self, out: list[Verdict]) -> None:
        ply = self.game.ply
        self.game.pop()
        if self.clock:
            self.clock.pop()
        self.reconstructed.discard(ply)
        self.inferred.pop(ply, None)
        out.append(Takeback(ply, self.t))
        if self.report is not None:
            self._clear_report(out)
        self._deadline = None
        self._forget()

    # -- reports ---------------------------------------------------------------------------------
    def _required_capture_now(self, s: frozenset[int], e: frozenset[int], out: list[Verdict]) -> bool:
        """Lifting a piece that cannot capture, or a plain move, while a capture is compulsory."""
        pos = self.position
        if not pos.has_captures():
            return False
        missing, added = e - s, s - e
        own = set(pos.squares(pos.turn))
        cands = self._candidates.of(pos)
        origins = {c.origin for c in cands}
        lifted_wrong = len(missing) == 1 and not added and missing <= own - origins
        plain = False
        if len(missing) == 1 and len(added) == 1 and missing <= own:
            (a,) = missing
            (b,) = added
            plain = Move((a, b)) in pos.pseudo_legal_moves  # a plain move, were no capture compulsory
        if not (lifted_wrong or plain):
            return False
        key = _Raised("capture", s)
        if self._reported == key:
            return True
        raised = self.report is not None and self.report.kind is ReportKind.REQUIRED_CAPTURE
        if not raised and not self._held():
            return True  # a new alarm waits for the grace period; an active one follows the board
        self._reported = key
        self._report_required(out, s, e)
        return True

    def _required(self) -> tuple[list[int], str, dict[str, object]]:
        """Squares, message and parameters of a required-capture report."""
        return required_capture(self.position, self._candidates.of(self.position))

    def _report_required(self, out: list[Verdict], s: frozenset[int], target: frozenset[int]) -> None:
        must, msg, params = self._required()
        self._emit_report(
            out, ReportKind.REQUIRED_CAPTURE, must, msg, missing=target - s, extra=s - target, params=params
        )

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
        key = _Raised(kind, s)
        if self._reported == key:
            return
        self._reported = key
        self._deadline = None
        self._emit_report(out, kind, squares, message, missing=target - s, extra=s - target, params=params)

    def _settled(self, out: list[Verdict]) -> None:
        """The board has been still in a state nothing explains: say what is wrong."""
        if self._waiting:
            self._waiting = False
            self._evaluate(out)  # a move held back while another reading was under way
            return
        pos = self.position
        s = self._sensed()
        e = self._expect(pos)
        if self._setup:
            if self._reported != _Raised("setup", s, frozenset(self.cells)):
                self._reported = _Raised("setup", s, frozenset(self.cells))
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
        live = [c for c in self._candidates.of(pos) if c.in_progress(s)]
        if not self.cells and stopped_mid_chain(live, s, e):
            # the hand rests on a touch-down square: say where the capture goes on (the piece
            # there is the player's own, on its way: nothing to put back, nothing extra)
            (at,) = s - e
            squares, msg, params = capture_goes_on(pos, live, at, _squares(self.events, placed=True))
            key = _Raised("stopped", s)
            if self._reported != key:
                self._reported = key
                self._emit_report(out, ReportKind.REQUIRED_CAPTURE, squares, msg, params=params)
            return
        doubt = self._doubt and (self._reread is not None or self._mask)  # (a takeback: with a known silent square)
        if self.sensor_faults and doubt and not self.cells and self._ask(out):
            return
        if self.sensor_faults and self._mask and not self.cells and s == e:
            if self.events and not self._trimmed:
                self._ask(out)  # moves since that left the board as it was (else nothing is wrong)
            return
        lost = self.sensor_faults and self._lost and not self.cells and not self._trimmed and len(self.suspects) == 1
        if lost and self.t > self._deep_until and not self._board_readings().complete:
            # a still board the search was cut short on: read once more, deeper (what it finds
            # is recorded only if no square but one known not to answer hid a change; with none
            # known, a board out of step, a link gap say, is judged as before)
            self._deep_until = self._reread_deeper = self.t
            self._readings = self._readings_air = None
        if self.sensor_faults and self._lost and not self.cells and (self._infer(out, held=True) or self._ask(out)):
            return
        if self.sensor_faults and self._lost and not self.cells and self._ask_vanished(out):
            return
        if self.sensor_faults and self._lost and not self.cells and not self._trimmed and self._held_landing(out):
            return
        if self._follows and self._lost and not self.cells and not self._trimmed and not self._impossible:
            r = self._board_readings()
            if not r.complete:  # (cut short: a deeper search may still prove it, at a board still this long)
                r = self._search(deeper=2).at(self.t)
            self._impossible = r.complete and not any(x.moves or x.under_way for x in r.found)
        shown = s | (pos.occupied() & self._mask)  # a square that cannot answer is taken as the game has it
        d = classify(pos, shown, self.cells, self._fault_cache.of(pos), tournament=self.mode == "tournament")
        if d.sets_irregular:
            self._irregular = d.irregular
        self._irregular_report(out, shown, d.kind, d.squares, d.message, target=d.target, params=d.params)

    # -- LEDs ---------------------------------------------------------------------------------
    def led_intents(self) -> list[LedIntent]:
        """What the LEDs should show now."""
        if self._shadows and self.report is not None and self.report.kind is ReportKind.SENSOR_CONFIRM:
            live = [sh.ref.led_intents() for sh in self._shadows if not sh.refuted]
            return asked_intents(self.report, live, self._mask)  # (play goes on while the page is asked)
        return led_intents(
            self.position,
            frozenset(self.occupied),
            self._candidates,
            masked=self._mask,
            setup=self._setup,
            report=self.report,
            ended=self.ended,
            touched=_squares(self.events, placed=True),
            hints=self.hints and self.mode == "casual",
            move_stack=self.game.move_stack,
            batch=self._batch,
            expected=self.expected(),
        )

    # -- record -------------------------------------------------------------------------------
    def pdn_game(self, tags: dict[str, str] | None = None) -> PdnGame:
        """The game as recorded so far (set-ups for accepted irregularities)."""
        pg = PdnGame.from_game(self.game, tags)
        for ply in sorted(self.reconstructed):
            if ply <= len(pg.moves):
                pg.moves[ply - 1].comments.append(RECONSTRUCTED_COMMENT)
        for ply, sq in sorted(self.inferred.items()):
            if ply <= len(pg.moves):
                pg.moves[ply - 1].comments.append(INFERRED_COMMENT.format(square=self._name(sq)))
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
        # a piece in the hand
        under_way = any(c.in_progress(s) and c.after != s for c in self._candidates.of(self.position))
        if not (self._setup or self.ended or self.cells or under_way) and s != e:
            found = reconstruct(self.position, s, max_plies)
            if found.unique:
                self._record_gap(found.moves, out)
                if found.under_way:  # then the next move is under way: judged as usual
                    self._forget([Transition(self.t, sq, sq in s) for sq in sorted(s ^ self.position.occupied())])
                    self._evaluate(out)
                return out
            if found.ambiguous:
                self._forget()
                self._irregular = None
                self._deadline = None
                self._reported = _Raised("link-gap", s)
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
        self._readings = self._readings_air = None
        self._evaluate(out)
        return out

    def _record_gap(self, moves: tuple[Move, ...], out: list[Verdict]) -> None:
        """Record the moves a reconnect found, marked reconstructed."""
        if self.report is not None:
            self._clear_report(out)
        texts = []
        pos = self.position
        for m in moves:
            texts.append(pos.pdn(m))
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
        self._forget()
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

    def trust(self, square: int, t: float) -> list[Verdict]:
        """The sensor under ``square`` was repaired, or read as the game had it (the journal's
        ``sensor-repaired``): read again from ``t`` on as any other — the moves recorded stay as
        they were, and it is named again if it fails again. Returns the verdicts it causes."""
        out = self.tick(t)
        self.t = max(self.t, t)
        if square not in self.suspects:
            return out
        self.suspects.discard(square)
        self._named.discard(square)
        if square not in self._heard_at:
            self._silent.add(square)  # (as at a game's start: a sensor not heard yet may be dead)
        self._candidates.mask(frozenset(self.suspects))
        self._readings = self._readings_air = None
        self._evaluate(out)
        for sh in self._shadows:
            sh.verdicts += sh.ref.trust(square, t)
        if self._shadows:
            self._follow(out)
        return out
