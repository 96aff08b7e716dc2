"""Readings of the board when one sensor may be silent: which move sequences could the hands
have played since the board last matched the game, if the reed switch under one square
never answered?

A reed switch breaks, sticks or goes intermittent, and a square that cannot report hides
every change on it: a piece put on it looks like a piece still in the hand, a piece taken
from it looks like a piece appearing from nowhere, a captured piece on it looks like one
left on the board. The referee must never record a guess, so before it records what the
board shows it asks whether the evidence — the board now and which squares were lifted or
set down since it last matched the game — admits another reading in which one square that
has never answered hid a change. If one does, it does not record (``referee.core``).

A reading is a sequence of legal moves from the last matched position (each move's origin
lifted, destination set down and captured pieces lifted, as far as the sensors could see),
optionally followed by a move under way, whose result matches the board on every square
but the hidden one. The search is bounded (``MAX_PLIES``, ``MAX_NODES``); a search cut
short proves nothing, so it counts as ambiguous.

Pure: positions in, moves out; it imports only ``rules`` and the referee's candidates.

>>> from board_hal.debounce import Transition
>>> from rules import Position
>>> start = Position.start("brazilian")
>>> move = start.parse_pdn("c3-d4")
>>> # c3 lifted, and d4's sensor is dead: the board shows c3 empty and nothing else
>>> lift = Transition(1.0, move.from_square, False)
>>> r = readings(start, start.occupied() - {move.from_square}, [lift], set(range(1, 33)) - {move.from_square})
>>> sorted(start.pdn(x.moves[0]) for x in r.found if x.moves and not x.under_way)
['c3-b4', 'c3-d4']
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from board_hal.debounce import Transition
from referee.candidates import Candidate, CandidateCache
from rules import Move, Position

#: plies a reading may hold (moves made while the referee could not follow, and one under way)
MAX_PLIES = 3
#: positions the search may visit: a search cut short proves nothing, so it counts as ambiguous
MAX_NODES = 400
#: readings kept (past two the board is ambiguous anyway; a few more tell the page the choices)
MAX_READINGS = 8


@dataclass(frozen=True)
class Reading:
    """``moves`` complete from the last matched position; ``hidden``: the square whose sensor
    hid a change (None: every change was seen); ``under_way``: a next move is part-way."""

    moves: tuple[Move, ...]
    hidden: int | None
    under_way: bool = False
    #: when each move's piece landed (as far as the sensors tell: a hidden landing, at its lift)
    landed: tuple[float, ...] = ()
    #: it holds only if a piece lifted now (a sleeve, a wrong piece, an adjustment) is put back
    disturbed: bool = False


@dataclass(frozen=True)
class Readings:
    found: tuple[Reading, ...]
    #: False when the search was cut short: then anything may be possible
    complete: bool = True

    def hidden_readings(self) -> list[Reading]:
        return [r for r in self.found if r.hidden is not None]


class _Cut(Exception):
    pass


def progress(c: Candidate, s: frozenset[int], hide: Collection[int]) -> bool:
    """Could ``s`` be part-way through ``c`` (something of it done, not all) when the squares
    ``hide`` cannot be seen?"""
    missing = (c.before - s).difference(hide)
    added = (s - c.before).difference(hide)
    if not missing <= ({c.origin} | c.captured):
        return False
    if len(added) > 1 or not added <= ({c.dest} | c.landings):
        return False
    origin_seen = c.origin not in hide
    if origin_seen and c.origin in s and (added or c.origin not in missing):
        return False  # the piece has not left its square
    if not missing and not added:
        return False  # nothing of it can be seen
    return bool((c.after ^ s).difference(hide))  # and it is not complete


def readings(
    position: Position,
    board: Iterable[int],
    events: Iterable[Transition],
    silent: Collection[int],
    masked: Collection[int] = frozenset(),
    *,
    max_plies: int = MAX_PLIES,
    max_nodes: int = MAX_NODES,
    cache: CandidateCache | None = None,
    air: float | None = None,
) -> Readings:
    """The readings of ``board`` from ``position`` (the last position it matched), given the
    square ``events`` since then: move sequences of at most ``max_plies`` plies, each move's
    origin lifted, destination set down and captured pieces lifted, in turn (a move starts
    after the one before it landed), but for one square of ``silent`` (never heard from),
    whose result matches ``board`` but on that square, or with a move under way after them.
    ``masked``: squares known not to answer (never compared). ``air``: also the readings
    that hold if one piece lifted since that time, off its square now, is put back (a sleeve
    brushing it, say: marked ``disturbed``).
    """
    s = frozenset(board)
    known = frozenset(masked)
    quiet = frozenset(silent) - known
    lifts: dict[int, list[float]] = {}
    places: dict[int, list[float]] = {}
    for ev in events:
        if isinstance(ev.key, int):
            (places if ev.occupied else lifts).setdefault(ev.key, []).append(ev.t)
    last: dict[int, Transition] = {}
    for ev in events:
        if isinstance(ev.key, int):
            last[ev.key] = ev
    off = frozenset(sq for sq, ev in last.items() if air is not None and not ev.occupied and ev.t >= air) - known
    cands = cache or CandidateCache()
    found: list[Reading] = []
    seen: set[Reading] = set()
    nodes = [0]

    def first(times: dict[int, list[float]], sq: int, after: float) -> float | None:
        return next((t for t in times.get(sq, ()) if t >= after), None)

    def add(r: Reading) -> None:
        if r not in seen:
            seen.add(r)
            found.append(r)

    def timed(c: Candidate, hide: frozenset[int], ready: float) -> float | None:
        """When ``c``'s piece landed, its origin lifted after ``ready`` (None: it cannot have)."""
        lifted = ready if c.origin in hide else first(lifts, c.origin, ready)
        if lifted is None:
            return None
        if any(sq not in hide and first(lifts, sq, ready) is None for sq in c.captured):
            return None
        return lifted if c.dest in hide else first(places, c.dest, lifted)

    def started(c: Candidate, hide: frozenset[int], ready: float) -> bool:
        """Did ``c``'s piece leave its square after ``ready`` (or a square that cannot be seen)?"""
        return c.origin in hide or first(lifts, c.origin, ready) is not None

    def search(
        pos: Position, line: tuple[Move, ...], hidden: int | None, left: int, ready: float, times: tuple[float, ...]
    ) -> None:
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise _Cut
        hide = known if hidden is None else known | {hidden}
        occ = pos.occupied()
        diff = (occ ^ s) - hide
        if not diff:
            add(Reading(line, hidden, landed=times))
        elif hidden is None and line and len(diff) == 1 and diff <= quiet:
            add(Reading(line, next(iter(diff)), landed=times))
        for a in diff & off & occ:  # a piece of this reading is off its square for a moment
            rest = diff - {a}
            if not rest:
                add(Reading(line, hidden, landed=times, disturbed=True))
            elif hidden is None and line and len(rest) == 1 and rest <= quiet:
                add(Reading(line, next(iter(rest)), landed=times, disturbed=True))
        options = cands.of(pos)
        for c in options:
            hides = (hidden,) if hidden is not None else (None, *({c.origin} & quiet), *(diff & quiet))
            for h in hides:
                mask = known if h is None else known | {h}
                if progress(c, s, mask) and started(c, mask, ready):
                    add(Reading(line, h, under_way=True, landed=times))
                else:
                    for a in (diff & off & occ) - {c.origin} - c.captured:
                        if progress(c, s, mask | {a}) and started(c, mask, ready):
                            add(Reading(line, h, under_way=True, landed=times, disturbed=True))
        if len(found) >= MAX_READINGS:
            return
        for c in options:
            unseen = {sq for sq in (c.origin, *c.captured) if sq not in lifts and sq not in known}
            if c.dest not in places and c.dest not in known:
                unseen.add(c.dest)  # (a circular capture sets its piece down where it started)
            if len(unseen) > 1:
                continue
            seen_any = any(sq in lifts for sq in (c.origin, *c.captured) if sq not in known) or (
                c.dest in places and c.dest not in known
            )
            if not seen_any or (unseen and len({c.origin, c.dest, *c.captured} - known - unseen) == 0):
                continue  # a move nobody saw any part of is not a reading
            h = hidden
            if unseen:
                (sq,) = unseen
                if hidden is None:
                    if sq not in quiet:
                        continue
                    h = sq
                elif sq != hidden:
                    continue
            landed = timed(c, known if h is None else known | {h}, ready)
            if landed is None:
                continue
            if left == 0:
                raise _Cut  # the evidence may hold more moves than the search looks at
            search(pos.apply(c.move), (*line, c.move), h, left - 1, landed, (*times, landed))

    try:
        search(position, (), None, max_plies, -math.inf, ())
    except _Cut:
        return Readings(tuple(found), complete=False)
    return Readings(tuple(found))


__all__ = ["MAX_NODES", "MAX_PLIES", "Reading", "Readings", "progress", "readings"]
