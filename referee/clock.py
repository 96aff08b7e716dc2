"""The game clock: a pure state machine fed by event times (no wall clock inside).

Like the referee, the clock takes its time only from the events, so a log replays to
exactly the same times at any speed. Times are counted in integer units of 0.1 ms
(:data:`TICKS` per second, the event log's resolution): no rounding accumulates, so a
two-hour game ends with exactly the times its events give.

Time controls (:func:`parse_control`), one or more periods separated by commas::

    none              no clock
    fenacef           the FENACEF's semi-rapid: 21 minutes each for the game (RULES.md §8)
    21                sudden death: 21 minutes each
    5+3               5 minutes, Fischer increment of 3 s after every move
    5d3               5 minutes, simple (US) delay of 3 s: each move's first 3 s are free
    5b3               5 minutes, Bronstein delay: after each move, the time it took, at most 3 s, is given back
    40/90,30+30       40 moves in 90 minutes, then 30 minutes with 30 s per move for the rest
    40/120            40 moves in 120 minutes, repeated (a last period with a move count repeats)

Minutes may have decimals (``0.5`` is 30 s); increments and delays are seconds.

The clock (:class:`Clock`) is the two-faced device: ``press(side)`` ends ``side``'s turn
and starts the other's; ``pause``, ``resume``, ``adjust`` are the arbiter's; a flag falls at
:meth:`Clock.deadline`. :class:`ClockKeeper` puts it beside a referee: it judges each press
against the board (what only an electronic board can check), presses by itself in casual
mode when asked, stamps every move with both clocks, and ends the game on time.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from referee.vocabulary import ClockActionName, GameEnd, MoveMade, Report, ReportKind, Takeback, Verdict
from rules import Color, Position
from rules.pdn import Clock as PdnClock
from rules.pdn import PdnGame

if TYPE_CHECKING:
    from referee.core import Referee

TICKS = 10_000  # clock units per second
MAX_MINUTES = 24 * 60  # a period of more than a day is a typing error
MAX_SECONDS = 3600  # an increment or a delay
MAX_MOVES = 1000
MAX_CLOCK_SECONDS = 100 * 3600  # what the arbiter may set a clock to
PRESETS = {"fenacef": "21", "none": "none"}
#: a clock action's ``source`` (who pressed, or why the clock paused)
SOURCES = ("button", "pico", "page", "power", "arbiter")
EXAMPLES = "e.g. fenacef, 21, 5+3, 5d3, 5b3, 40/90,30+30, none"


class ClockError(ValueError):
    """A time control that cannot be read (one line quoting it)."""


def ticks(seconds: float) -> int:
    return round(seconds * TICKS)


def _num(text: str) -> str:
    """A number as short as it reads (``1.5``, ``21``)."""
    return f"{float(text):g}" if "." in text else str(int(text))


@dataclass(frozen=True)
class Period:
    """One period: ``seconds`` added when it starts, for ``moves`` moves (None: the rest of
    the game), with a Fischer ``increment`` or a ``delay`` (simple, or Bronstein)."""

    seconds: int  # in TICKS
    moves: int | None = None
    increment: int = 0  # TICKS per move
    delay: int = 0  # TICKS
    bronstein: bool = False

    def text(self) -> str:
        out = f"{self.moves}/" if self.moves else ""
        out += f"{self.seconds / TICKS / 60:g}"
        if self.increment:
            out += f"+{self.increment / TICKS:g}"
        if self.delay:
            out += f"{'b' if self.bronstein else 'd'}{self.delay / TICKS:g}"
        return out

    def pdn(self) -> str:
        out = f"{self.moves}/" if self.moves else ""
        out += f"{self.seconds / TICKS:g}"
        if self.increment:
            out += f"+{self.increment / TICKS:g}"
        if self.delay:
            out += f"{'b' if self.bronstein else 'd'}{self.delay / TICKS:g}"
        return out


@dataclass(frozen=True)
class TimeControl:
    periods: tuple[Period, ...]

    @property
    def none(self) -> bool:
        return not self.periods

    def text(self) -> str:
        """The control in the syntax :func:`parse_control` reads."""
        return ",".join(p.text() for p in self.periods) if self.periods else "none"

    def pdn(self) -> str:
        """The PDN/PGN ``TimeControl`` tag: seconds, ``moves/seconds`` periods joined by ``:``,
        ``+increment`` (delays written ``d``/``b``, as in the control's syntax); ``-`` for none."""
        return ":".join(p.pdn() for p in self.periods) if self.periods else "-"


_PERIOD_RE = re.compile(r"(?:(\d{1,4})/)?(\d{1,5}(?:\.\d{1,3})?)(?:([+db])(\d{1,4}(?:\.\d{1,3})?))?")


def parse_control(text: str, presets: dict[str, str] | None = None) -> TimeControl:
    """A time control from its text (see the module's docstring); ``presets``: user-defined
    names (the configuration's ``[clock.controls]``), besides ``fenacef`` and ``none``.

    >>> parse_control("40/90,30+30").text()
    '40/90,30+30'
    >>> parse_control("fenacef").pdn()
    '1260'
    """
    if not isinstance(text, str):
        raise ClockError(f"invalid clock {text!r}: expected text ({EXAMPLES})")
    given = text
    name = text.strip().lower()
    for _ in range(2):  # a user preset may name a built-in one
        if presets and name in presets and name not in PRESETS:
            name = presets[name].strip().lower()
        elif name in PRESETS:
            name = PRESETS[name]
    if name == "none":
        return TimeControl(())
    periods: list[Period] = []
    parts = [p.strip() for p in name.split(",")]
    for i, part in enumerate(parts):
        m = _PERIOD_RE.fullmatch(part)
        if not m:
            raise ClockError(f"invalid clock {given[:60]!r}: cannot read {part[:30]!r} ({EXAMPLES})")
        moves_text, minutes_text, kind, amount_text = m.groups()
        moves = int(moves_text) if moves_text else None
        minutes = float(minutes_text)
        if moves is not None and not 1 <= moves <= MAX_MOVES:
            raise ClockError(f"invalid clock {given[:60]!r}: {moves} moves in a period (1-{MAX_MOVES})")
        if not 0 < minutes <= MAX_MINUTES:
            raise ClockError(f"invalid clock {given[:60]!r}: {_num(minutes_text)} minutes (more than 0, at most a day)")
        if moves is None and i != len(parts) - 1:
            raise ClockError(f"invalid clock {given[:60]!r}: only the last period can be for the rest of the game")
        amount = ticks(float(amount_text)) if amount_text else 0
        if amount > MAX_SECONDS * TICKS:
            raise ClockError(f"invalid clock {given[:60]!r}: {_num(amount_text)} s per move (at most {MAX_SECONDS})")
        periods.append(
            Period(
                ticks(minutes * 60),
                moves,
                increment=amount if kind == "+" else 0,
                delay=amount if kind in ("d", "b") else 0,
                bronstein=kind == "b",
            )
        )
    return TimeControl(tuple(periods))


def clock_text(t: int) -> str:
    """What a clock face shows for ``t`` TICKS left: ``h:mm:ss``/``m:ss``, tenths under 10 s
    (rounded up: a clock shows 0 only when the flag has fallen)."""
    if t <= 0:
        return "0:00"
    if t < 10 * TICKS:
        tenths = -(-t // (TICKS // 10))
        if tenths < 100:
            return f"0:0{tenths // 10}.{tenths % 10}"
    s = -(-t // TICKS)
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def duration_text(t: int) -> str:
    """How long something took, to the second (``0:07``, ``12:30``, ``1:02:03``)."""
    s = (t + TICKS // 2) // TICKS
    h, rest = divmod(s, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def shown_seconds(t: int) -> int:
    """Whole seconds a clock shows (rounded up), as the record writes them."""
    return max(0, -(-t // TICKS))


class Clock:
    """Two clocks and the lever between them (TICKS in, TICKS out; no wall clock).

    >>> c = Clock(parse_control("5+3"))
    >>> c.start(Color.WHITE, 0)
    >>> c.press(Color.WHITE, ticks(10))
    >>> c.remaining(Color.WHITE, ticks(10)) / TICKS
    293.0
    """

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        first = control.periods[0].seconds if control.periods else 0
        self.left = {Color.WHITE: first, Color.BLACK: first}  # at the start of the running side's turn
        self.period = {Color.WHITE: 0, Color.BLACK: 0}
        self.in_period = {Color.WHITE: 0, Color.BLACK: 0}  # moves made in the current period
        self.moves = {Color.WHITE: 0, Color.BLACK: 0}
        self.running: Color | None = None  # whose clock runs (or would, while paused)
        self.since: int | None = None  # when the present run began (None: stopped)
        self.used = 0  # time used in this turn before ``since`` (across pauses)
        self.paused = False
        self.stopped = False  # the game ended: the clock keeps what it showed
        self.flag: Color | None = None

    def _period(self, side: Color) -> Period:
        return self.control.periods[min(self.period[side], len(self.control.periods) - 1)]

    def _charge(self, side: Color, used: int) -> int:
        p = self._period(side)
        if p.delay and not p.bronstein:
            return max(0, used - p.delay)
        return used

    def used_now(self, t: int) -> int:
        """Time used in the running side's present turn."""
        return self.used + (t - self.since if self.since is not None else 0)

    @property
    def started(self) -> bool:
        return self.running is not None

    @property
    def ticking(self) -> bool:
        return self.since is not None

    def remaining(self, side: Color, t: int) -> int:
        if side is not self.running or self.stopped or self.flag is not None:
            return self.left[side]
        return max(0, self.left[side] - self._charge(side, self.used_now(t)))

    def deadline(self) -> int | None:
        """When the running side's flag falls (None while stopped)."""
        if self.since is None or self.running is None or self.control.none:
            return None
        side = self.running
        p = self._period(side)
        allowance = self.left[side] + (p.delay if p.delay and not p.bronstein else 0)
        return self.since + allowance - self.used

    def start(self, side: Color, t: int) -> None:
        self.running = side
        self.used = 0
        self.since = None if self.paused else t

    def press(self, side: Color, t: int, *, counted: bool = True) -> int:
        """``side`` ends its turn (it must be the one running); ``counted``: a move was made
        (increments, delays and periods count only moves). Returns the time the turn took."""
        assert side is self.running and self.flag is None and not self.stopped
        used = self.used_now(t)
        self.left[side] = max(0, self.left[side] - self._charge(side, used))
        if counted and not self.control.none:
            p = self._period(side)
            self.left[side] += p.increment + (min(p.delay, used) if p.bronstein else 0)
            self.moves[side] += 1
            self.in_period[side] += 1
            if p.moves is not None and self.in_period[side] == p.moves:
                self.period[side] += 1
                self.in_period[side] = 0
                self.left[side] += self._period(side).seconds
        self.start(side.other, t)
        return used

    def pause(self, t: int) -> None:
        if self.since is not None:
            self.used = self.used_now(t)
            self.since = None
        self.paused = True

    def resume(self, t: int) -> None:
        self.paused = False
        if self.running is not None and not self.stopped and self.flag is None:
            self.since = t

    def adjust(self, t: int, white: int | None, black: int | None) -> None:
        """Set what the clocks show now (the running side's turn starts again from it)."""
        for side, value in ((Color.WHITE, white), (Color.BLACK, black)):
            if value is None:
                continue
            if side is self.running and not self.stopped and self.flag is None:
                self.used = 0
                if self.since is not None:
                    self.since = t
            self.left[side] = max(0, value)

    def stop(self, t: int) -> None:
        """The game is over: the clocks keep what they show."""
        if self.running is not None and self.flag is None and not self.stopped:
            self.left[self.running] = self.remaining(self.running, t)
        self.since = None
        self.stopped = True

    def fall(self, t: int) -> Color:
        """The running side's time ran out."""
        assert self.running is not None
        side = self.running
        self.left[side] = 0
        self.flag = side
        self.since = None
        return side


@dataclass(frozen=True)
class ClockAction:
    """A clock event of the log: ``clock`` (a press of ``side``'s button; ``source`` button,
    pico or page), ``clock-pause`` / ``clock-resume`` (``source`` arbiter or power),
    ``clock-adjust`` (``white`` / ``black``: seconds shown from now on), ``flag`` (a note: the
    flag of ``side`` fell then; the clock derives it from the times)."""

    t: float
    action: ClockActionName
    side: Color | None = None
    source: str | None = None
    white: float | None = None
    black: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"t": round(self.t, 4), "action": self.action}
        if self.side is not None:
            out["side"] = self.side.value
        if self.source is not None:
            out["source"] = self.source
        if self.white is not None:
            out["white"] = self.white
        if self.black is not None:
            out["black"] = self.black
        return out


Undo = tuple[int, int, int, int]  # what a press gave the mover, its period, moves in it, moves


@dataclass
class Stamp:
    """Both clocks after a move (after the press that ended it, once there was one)."""

    white: int
    black: int
    running: Color | None
    took: int  # the mover's time for the move
    mover: Color
    #: what the press gave the mover (increment, delay, a new period), to undo on a takeback
    undo: Undo | None = None

    def pdn(self) -> PdnClock:
        return PdnClock(shown_seconds(self.white), shown_seconds(self.black), self.running)

    def to_json(self) -> dict[str, Any]:
        return {
            "running": None if self.running is None else self.running.value,
            "white": round(self.white / TICKS, 4),
            "black": round(self.black / TICKS, 4),
            "took": round(self.took / TICKS, 4),
        }


def _side_name(side: Color) -> str:
    return "White" if side is Color.WHITE else "Black"


@dataclass
class ClockKeeper:
    """A clock beside a referee: presses judged against the board, moves stamped, flag fall.

    ``auto`` (casual mode only): the clock is pressed when the referee records a move.
    Irregular presses are reported in tournament mode and do not move the lever (the
    arbiter sees what happened; the player's own clock keeps running); in casual mode a
    press always moves it."""

    control: TimeControl
    referee: Referee
    auto: bool = False
    clock: Clock = field(init=False)
    stamps: list[Stamp] = field(default_factory=list)
    paused_by: str | None = None
    _owed: dict[Color, int] = field(default_factory=dict)  # moves made, not yet paid by a press
    #: pressed for a move not recorded yet (its time: the move's stamp takes it when it comes)
    _paid: dict[Color, Stamp | None] = field(default_factory=dict)
    #: auto: switched for a ply the page is asked about, every reading of it a move (by ply)
    _ahead: dict[int, Stamp] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.clock = Clock(self.control)
        self.stamps = []
        self.paused_by = None
        self._owed = {Color.WHITE: 0, Color.BLACK: 0}
        self._paid = {Color.WHITE: None, Color.BLACK: None}
        self._ahead = {}

    @classmethod
    def from_header(cls, header: dict[str, Any], referee: Referee, control: str | None = None) -> ClockKeeper | None:
        """The clock a log header asks for (``clock``: the control; ``clock_auto``), or None."""
        text = control if control is not None else header.get("clock")
        if text is None:
            return None
        tc = parse_control(str(text))
        if tc.none:
            return None
        return cls(tc, referee, auto=bool(header.get("clock_auto", False)) and referee.mode == "casual")

    @property
    def casual(self) -> bool:
        return self.referee.mode == "casual"

    # -- time ------------------------------------------------------------------------------
    def next_deadline(self) -> float | None:
        due = self.clock.deadline()
        return None if due is None else due / TICKS

    def tick(self, now: float) -> list[Verdict]:
        """Let time pass: a flag falls at its deadline (never at an unknown end of input)."""
        due = self.clock.deadline()
        if due is None or not math.isfinite(now) or due > ticks(now):
            return []
        side = self.clock.fall(due)
        t = due / TICKS
        out: list[Verdict] = []
        self._report(
            out,
            ReportKind.FLAG_FALL,
            t,
            f"{_side_name(side)}'s time has run out: {_side_name(side).lower()} loses on time",
            side,
        )
        if not self.referee.ended:
            self.referee.game.lose_on_time(side)
            o = self.referee.game.outcome()
            assert o is not None
            out.append(GameEnd(o.result(self.referee.variant), o.termination.value, t))
        return out

    # -- presses and the arbiter's actions ------------------------------------------------------
    def feed(self, a: ClockAction, board: frozenset[int] | None = None) -> list[Verdict]:
        """A clock action; ``board``: the occupied squares as the sensors show them now, settled
        or not (a press a few milliseconds after the piece landed comes before the debounce
        window has confirmed the move: it is judged by the board, not by the record)."""
        out: list[Verdict] = []
        t = ticks(a.t)
        c = self.clock
        if a.action == "flag":
            return out  # a note: the flag fell by the times already (tick)
        if c.flag is not None or c.stopped:
            return out  # the game is over for the clock
        if a.action == "clock-pause":
            if not c.paused:
                c.pause(t)
                self.paused_by = a.source or "arbiter"
                self._report(out, ReportKind.CLOCK_PAUSED, a.t, "the clocks are paused", None)
            return out
        if a.action == "clock-resume":
            if c.paused:
                self._resume(out, a.t)
            return out
        if a.action == "clock-adjust":
            c.adjust(t, None if a.white is None else ticks(a.white), None if a.black is None else ticks(a.black))
            self._report(
                out,
                ReportKind.CLOCK_ADJUSTED,
                a.t,
                "the arbiter set the clocks: "
                f"white {clock_text(c.remaining(Color.WHITE, t))}, black {clock_text(c.remaining(Color.BLACK, t))}",
                None,
            )
            return out
        assert a.action == "clock" and a.side is not None
        self._press(a.side, a.t, out, frozenset(self.referee.occupied) if board is None else board)
        return out

    def _resume(self, out: list[Verdict], t: float) -> None:
        self.clock.resume(ticks(t))
        self.paused_by = None
        self._report(out, ReportKind.CLOCK_RESUMED, t, "the clocks run again", None)

    def _press(self, side: Color, t: float, out: list[Verdict], board: frozenset[int]) -> None:
        c = self.clock
        T = ticks(t)
        if c.paused:
            if self.paused_by != "power":
                return
            self._resume(out, t)  # after a power cut, the players resume by pressing
            # the side whose clock ran may have finished its move meanwhile: then its press also
            # ends its turn (else the press only started its clock again)
            if c.running is not side or not (self._owed[side] > 0 or self._move_on_board(side, board)):
                return
        if self.referee.ended:
            return
        if not c.started:  # the first press starts the clock of the side to move
            c.start(self.referee.position.turn, T)
            self._owed = {Color.WHITE: 0, Color.BLACK: 0}  # moves before the clock ran owe no press
            return
        if c.running is not side:
            if not self.casual:
                self._report(
                    out,
                    ReportKind.CLOCK_WRONG_SIDE,
                    t,
                    f"{_side_name(side)} pressed the clock, but {_side_name(side.other).lower()}'s clock is running",
                    side,
                )
            return
        if self._owed[side] > 0:
            self._owed[side] -= 1
            self._switch(side, T, counted=True)
            return
        if self._move_on_board(side, board):  # made, not recorded yet (debounce, a king's grace)
            self._pay_ahead(side, T)
            return
        if self._agreed(side):  # made, whichever reading the page is asked about: the press ends it
            self._pay_ahead(side, T)
            return
        early = self._capture_incomplete(side, board)
        if early is not None:
            if not self.casual:
                self._report(
                    out,
                    ReportKind.CLOCK_EARLY,
                    t,
                    f"{_side_name(side)} pressed the clock before the captured pieces were off the board "
                    f"({self._names(early)}): the clock was not switched",
                    side,
                    squares=early,
                )
                return
            self._pay_ahead(side, T)
            return
        if not self.casual:
            self._report(
                out,
                ReportKind.CLOCK_NO_MOVE,
                t,
                f"{_side_name(side)} pressed the clock without having moved: the clock was not switched",
                side,
            )
            return
        self._switch(side, T, counted=False)

    def _names(self, squares: tuple[int, ...]) -> str:
        return ", ".join(self.referee.position.square_text(q) for q in squares)

    def _move_on_board(self, side: Color, s: frozenset[int]) -> bool:
        """Does the board show a whole legal move of ``side`` that the record does not have yet?"""
        pos = self.referee.position
        if pos.turn is not side or s == pos.occupied():
            return False
        return any(pos.apply(m).occupied() == s for m in pos.legal_moves)

    def _agreed(self, side: Color) -> bool:
        """While the page is asked which move was played, has ``side`` made a move that every
        reading has (``Referee.agreed_moves``), not paid by a press yet?"""
        return self._paid[side] is None and side in self._movers(len(self.referee.agreed_moves()))

    def _movers(self, n: int) -> list[Color]:
        """Who makes each of the next ``n`` plies: the side to move first, then alternately."""
        turn = self.referee.position.turn
        return [turn if k % 2 == 0 else turn.other for k in range(n)]

    def _capture_incomplete(self, side: Color, s: frozenset[int]) -> tuple[int, ...] | None:
        """The captured pieces still on the board when ``side``'s capturing piece has landed."""
        pos = self.referee.position
        if pos.turn is not side:
            return None
        e = pos.occupied()
        if s == e:
            return None
        for m in pos.legal_moves:
            if not m.captured:
                continue
            landed = m.to_square in s and (m.from_square not in s or m.from_square == m.to_square)
            left = tuple(sorted(set(m.captured) & s))
            if landed and left and s - e <= {m.to_square} and (e - s) <= {m.from_square, *m.captured}:
                return left
        return None

    def _switch(self, side: Color, T: int, *, counted: bool, ahead: bool = False) -> tuple[int, Undo]:
        """Press for ``side``: the move it ends gets the clocks now (``ahead``: a move not
        recorded yet, which takes them when it comes). Returns the time the turn took, and
        what the press gave (to undo with a takeback)."""
        c = self.clock
        before = (c.left[side], c.period[side], c.in_period[side], c.moves[side])
        left_at_press = c.remaining(side, T)
        took = c.press(side, T, counted=counted)
        undo = (c.left[side] - left_at_press, before[1], before[2], before[3])
        stamp = None if ahead else self._last_stamp(side)
        if stamp is not None and counted:
            stamp.white = c.remaining(Color.WHITE, T)
            stamp.black = c.remaining(Color.BLACK, T)
            stamp.running = c.running
            stamp.took = took
            stamp.undo = undo
        return took, undo

    def _pay_ahead(self, side: Color, T: int) -> None:
        """A press for a move the record does not have yet: its stamp, ready for when it comes."""
        took, undo = self._switch(side, T, counted=True, ahead=True)
        c = self.clock
        self._paid[side] = Stamp(c.remaining(Color.WHITE, T), c.remaining(Color.BLACK, T), c.running, took, side, undo)

    def _last_stamp(self, side: Color) -> Stamp | None:
        """The stamp of ``side``'s last move, if no press has ended it yet."""
        for s in reversed(self.stamps):
            if s.mover is side:
                return s if s.undo is None else None
        return None

    # -- what the referee decided -----------------------------------------------------------------
    def observe(self, verdicts: list[Verdict]) -> list[Verdict]:
        """The referee's verdicts, with the clock's own added (and moves stamped)."""
        if self.auto:
            self._read_ahead()
        if not verdicts:
            return verdicts
        out: list[Verdict] = []
        for v in verdicts:
            if isinstance(v, MoveMade):
                extra: list[Verdict] = []
                stamp = self._moved(v, extra)
                out.append(_with_clock(v, stamp))
                out += extra
                continue
            out.append(v)
            if isinstance(v, Takeback):
                self._taken_back(v)
            elif isinstance(v, GameEnd) and v.termination != "time-forfeit":
                self.clock.stop(ticks(v.t))
        return out

    def _read_ahead(self) -> None:
        """While the page is asked which move was played and every reading is a move of the same
        side (``Referee.agreed_moves``), the auto clock switches as for a recorded move, when the
        readings recorded it: the time is the player's, whatever the reading; the move's stamp
        waits for the answer (nothing is charged again then)."""
        times = self.referee.agreed_moves()
        ply = self.referee.game.ply
        for i, (mover, t) in enumerate(zip(self._movers(len(times)), times, strict=True), start=ply + 1):
            if i not in self._ahead:
                self._ahead[i] = self._auto_press(mover, ticks(t))

    def _auto_press(self, mover: Color, T: int) -> Stamp:
        """The auto clock after ``mover``'s move at ``T``: its stamp (the move's)."""
        c = self.clock
        took = c.used_now(T) if c.running is mover and not c.stopped else 0
        stamp = Stamp(c.remaining(Color.WHITE, T), c.remaining(Color.BLACK, T), c.running, took, mover)
        if c.flag is not None or c.stopped:
            return stamp
        if not c.started:
            c.start(mover.other, T)
            stamp.running = c.running
        elif c.running is mover and not c.paused:
            stamp.took, stamp.undo = self._switch(mover, T, counted=True, ahead=True)
            stamp.white, stamp.black = c.remaining(Color.WHITE, T), c.remaining(Color.BLACK, T)
            stamp.running = c.running
        return stamp

    def new_game(self) -> None:
        self.reset()

    def _moved(self, v: MoveMade, out: list[Verdict]) -> Stamp:
        c = self.clock
        T = ticks(v.t)
        mover = self._mover(v.ply)
        del self.stamps[v.ply - 1 :]
        while len(self.stamps) < v.ply - 1:  # moves before the clock knew (never in one session)
            self.stamps.append(Stamp(c.left[Color.WHITE], c.left[Color.BLACK], None, 0, Color.WHITE))
        ahead = self._ahead.pop(v.ply, None)
        self._ahead = {i: s for i, s in self._ahead.items() if i > v.ply}
        if self.auto:
            stamp = ahead if ahead is not None and ahead.mover is mover else self._auto_press(mover, T)
            self.stamps.append(stamp)
            return stamp
        took = c.used_now(T) if c.running is mover and not c.stopped else 0
        stamp = Stamp(c.remaining(Color.WHITE, T), c.remaining(Color.BLACK, T), c.running, took, mover)
        self.stamps.append(stamp)
        if c.flag is not None or c.stopped:
            return stamp
        paid = self._paid[mover]
        if paid is not None:  # its press came first
            self._paid[mover] = None
            self.stamps[-1] = paid
            return paid
        if c.started and c.running is mover.other and not c.paused:
            self._report(
                out,
                ReportKind.CLOCK_NOT_PRESSED,
                v.t,
                f"{_side_name(mover)} moved while {_side_name(mover.other).lower()}'s clock was running: "
                f"{_side_name(mover.other).lower()} did not press the clock",
                mover.other,
            )
        self._owed[mover] += 1
        return stamp

    def _mover(self, ply: int) -> Color:
        n = 0
        for pos, entry in self.referee.game.steps():
            if not isinstance(entry, Position):  # a move, not a set-up
                n += 1
                if n == ply:
                    return pos.turn
        return self.referee.position.turn.other

    def _taken_back(self, v: Takeback) -> None:
        if len(self.stamps) < v.ply:
            return
        stamp = self.stamps[v.ply - 1]
        del self.stamps[v.ply - 1 :]
        c = self.clock
        mover = stamp.mover
        if self._owed[mover] > 0:
            self._owed[mover] -= 1
        if not self.auto or c.flag is not None or c.stopped:
            return
        T = ticks(v.t)
        if c.running is mover.other and stamp.undo is not None:  # the move's press is undone too
            gained, period, in_period, moves = stamp.undo
            c.press(mover.other, T, counted=False)
            c.left[mover] = max(0, c.left[mover] - gained)
            c.period[mover], c.in_period[mover], c.moves[mover] = period, in_period, moves

    def _report(
        self,
        out: list[Verdict],
        kind: ReportKind,
        t: float,
        message: str,
        side: Color | None,
        squares: tuple[int, ...] = (),
    ) -> None:
        params: dict[str, object] = {}
        if side is not None:
            params["side"] = side.value
        if squares:
            params["squares"] = list(squares)
        out.append(Report(kind, squares, message, t, params=params))

    # -- views --------------------------------------------------------------------------------
    def face(self, now: float) -> dict[str, Any]:
        """What the clock shows at ``now`` (for the page)."""
        c = self.clock
        T = ticks(now)
        return {
            "control": self.control.text(),
            "white": c.remaining(Color.WHITE, T) / TICKS,
            "black": c.remaining(Color.BLACK, T) / TICKS,
            "white_text": clock_text(c.remaining(Color.WHITE, T)),
            "black_text": clock_text(c.remaining(Color.BLACK, T)),
            "running": None if c.running is None else c.running.value,
            "ticking": c.ticking,
            "paused": c.paused,
            "paused_by": self.paused_by if c.paused else None,
            "flag": None if c.flag is None else c.flag.value,
            "stopped": c.stopped,
            "auto": self.auto,
        }

    def shown(self, now: float) -> tuple[Any, ...]:
        """What a look at the clock would see change (compared by the board loop)."""
        c = self.clock
        T = ticks(now)
        return (
            clock_text(c.remaining(Color.WHITE, T)),
            clock_text(c.remaining(Color.BLACK, T)),
            c.running,
            c.paused,
            c.flag,
            c.stopped,
        )

    def annotate(self, pg: PdnGame) -> PdnGame:
        """The record with ``{[%clock …]}`` after every move and the ``TimeControl`` tag."""
        pg.tags.setdefault("TimeControl", self.control.pdn())
        for pm, stamp in zip(pg.moves, self.stamps, strict=False):
            pm.comments.insert(0, stamp.pdn().comment())
        return pg


def _with_clock(v: MoveMade, stamp: Stamp) -> MoveMade:
    return MoveMade(v.ply, v.move, v.pdn, v.t, v.reconstructed, clock=stamp.to_json())
