"""LED intents: what the LEDs should show for the referee's present state.

The referee says *what* a square means (a :class:`~referee.vocabulary.Role`); each LED
backend renders the roles in its own colours or patterns. One role per square: the first
that applies wins, in the order below.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.candidates import CandidateCache
from referee.expect import expected_leds
from referee.vocabulary import LedIntent, Report, ReportKind, Role
from rules import Move, Position


def led_intents(
    pos: Position,
    board: frozenset[int],
    candidates: CandidateCache,
    *,
    setup: bool,
    report: Report | None,
    ended: bool,
    touched: Iterable[int],
    hints: bool,
    move_stack: Sequence[Move],
    batch: tuple[Move, ...],
    expected: Move | None = None,
    masked: frozenset[int] = frozenset(),
) -> list[LedIntent]:
    """The (square, role) pairs for the game's position ``pos`` and the sensed ``board``.

    ``setup``: the board is being set up; ``report``: the active report; ``ended``: the game
    is over; ``touched``: the squares pieces were put on since the board last matched the
    game; ``hints``: show the legal destinations of a lifted piece; ``move_stack``: the moves
    played; ``batch``: the moves the last reconnect recorded (all shown while they are the
    last moves); ``expected``: the computer's move for the hands to make (``referee.expect``);
    ``masked``: squares whose sensor does not answer (left out of ``board``; lit ``sensor``
    where nothing else is lit)."""
    s = board - masked
    e = pos.occupied() - masked
    out: dict[int, Role] = {}

    def put(squares: Iterable[int], role: Role) -> None:
        for sq in squares:
            out.setdefault(sq, role)

    r = report
    if setup:
        put(e - s, Role.MISSING)
        put(s - e, Role.EXTRA)
    elif r is not None and r.kind is ReportKind.REQUIRED_CAPTURE and "at" in r.params:
        # a capture paused on a touch-down square: the piece there must capture on, to the
        # next landing square(s); the move's origin, path and captures as while it was moving
        at = r.params["at"]
        put((at,) if isinstance(at, int) else (), Role.MUST_CAPTURE)
        nxt = r.params.get("next", ())
        put(nxt if isinstance(nxt, list) else (), Role.HINT)
        live = [c for c in candidates.of(pos) if c.in_progress(s)]
        put({c.origin for c in live} & (e - s), Role.FROM)
        put({sq for c in live for sq in c.landings} & set(touched), Role.PATH)
        if live:
            common = set.intersection(*(set(c.captured) for c in live)) & s
            put(common, Role.REMOVE)
            put(set().union(*(set(c.captured) for c in live)) & s - common, Role.CAPTURABLE)
    elif expected is not None and r is None and not ended:
        for intent in expected_leds(pos, expected, s):  # the computer's move, for the hands to make
            put((intent.square,), intent.role)
    elif r is not None and r.kind is ReportKind.REQUIRED_CAPTURE:
        # what to take off and put back follows the board (a piece dropped after the report
        # was raised is lit at once, as a plain move's landing is)
        put(s - e, Role.EXTRA)
        put(e - s - set(r.params.get("must_capture", ())), Role.MISSING)
        put(r.params.get("must_capture", ()), Role.MUST_CAPTURE)
        put(r.params.get("capturable", ()), Role.CAPTURABLE)
    elif r is not None and r.kind is ReportKind.SENSOR_CONFIRM:
        # the page asks which move was played, and play may go on meanwhile: the squares whose
        # sensor may not answer, as such (not a move to undo)
        put(r.squares, Role.SENSOR)
    elif r is not None and r.kind not in (ReportKind.TOUCH_MOVE, ReportKind.PROCEDURE):
        put(r.missing, Role.MISSING)
        put(r.extra, Role.EXTRA)
        put(r.squares, Role.ERROR)
    elif s != e and not ended:
        live = [c for c in candidates.of(pos) if c.in_progress(s)]
        lifted = e - s
        origins = {c.origin for c in live if c.origin in lifted}
        put(origins, Role.FROM)
        for c in live:
            if c.dest in s - e:
                put((c.dest,), Role.TO)
        put({sq for c in live for sq in c.landings} & set(touched), Role.PATH)
        if live:
            landed = [c for c in live if c.dest in s - e or (c.dest == c.origin and c.dest in s)]
            group = landed or live
            common = set.intersection(*(set(c.captured) for c in group)) & s
            some = set().union(*(set(c.captured) for c in group)) & s
            if landed or lifted & {c.origin for c in live}:
                put(common, Role.REMOVE)
                put(some - common, Role.CAPTURABLE)
            if hints:
                put({c.dest for c in live if c.origin in origins and c.dest not in s}, Role.HINT)
    elif move_stack:
        n = len(batch)
        shown = batch if n > 1 and tuple(move_stack[-n:]) == batch else ()
        for last in reversed(shown or move_stack[-1:]):  # after a reconnect: every move it recorded
            put((last.from_square, last.to_square), Role.LAST)
    put(masked, Role.SENSOR)
    return [LedIntent(sq, role) for sq, role in sorted(out.items())]


def asked_intents(asked: Report, readings: Sequence[Sequence[LedIntent]], masked: frozenset[int]) -> list[LedIntent]:
    """While the page is asked which move was played (``asked``, a ``sensor-confirm`` report),
    play goes on: each reading still standing is played on by a copy of the referee, whose
    ``readings`` (their LED intents) are what the board would show were it the game. What every
    one of them lights, is lit — the moves played on as the last move, a move under way, the
    captures to take off, the computer's move to make — since it holds whichever the answer; the
    question's squares stay lit as the sensors that may not answer (never another role), and
    ``masked`` too where nothing else is."""
    out: dict[int, Role] = dict.fromkeys(asked.squares, Role.SENSOR)
    if readings:
        lit = [{(i.square, i.role) for i in r if i.role is not Role.SENSOR} for r in readings]
        for sq, role in set.intersection(*lit):
            out.setdefault(sq, role)
    for sq in masked:
        out.setdefault(sq, Role.SENSOR)
    return [LedIntent(sq, role) for sq, role in sorted(out.items())]
