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
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from board_hal.debounce import Transition
from referee.candidates import Bits, Candidate, CandidateCache, square_bits
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
    #: when each move's piece landed (as far as the sensors tell: a hidden landing, at its lift;
    #: a piece held in the hand while the next move began, at its lift too: the events after
    #: that time are the next moves')
    landed: tuple[float, ...] = ()
    #: it holds only if a piece lifted now (a sleeve, a wrong piece, an adjustment) is put back
    disturbed: bool = False
    #: ``hidden`` is a sensor that answered before and dropped out under the piece set down on
    #: it (an intermittent reed switch): the reading holds only until then (a drop-out ends)
    until: float | None = None
    #: ``hidden`` answered before: it dropped out under a piece (and showed it late, or will)
    dropped: bool = False
    #: ``hidden`` read a lift, but its sensor dropped out under the piece still standing there
    #: (until ``until``): no change of the moves hides behind it
    standing: bool = False
    #: ``hidden`` dropped out under a piece set down on it and taken before it answered again
    #: (``readings(vanished=True)``): only ever offered to the page, never recorded by itself
    gone: bool = False


@dataclass(frozen=True)
class Readings:
    found: tuple[Reading, ...]
    #: False when the search was cut short: then anything may be possible
    complete: bool = True
    #: the search stopped at the readings' cap, readings that begin otherwise found: ambiguous,
    #: but only while they hold (one that needs a drop-out may stop holding, and the readings
    #: the search did not look for would be missing)
    capped: bool = False

    def hidden_readings(self) -> list[Reading]:
        return [r for r in self.found if r.hidden is not None]

    def at(self, t: float) -> Readings:
        """The readings that still hold at ``t`` (a drop-out they need would have ended)."""
        if all(r.until is None or r.until > t for r in self.found):
            return self
        kept = tuple(r for r in self.found if r.until is None or r.until > t)
        return Readings(kept, self.complete and not self.capped, self.capped)

    def expiry(self) -> float | None:
        """When the next reading that needs a drop-out to hide a change stops holding (None: no
        such reading; one whose sensor dropped out under a piece still standing hides none)."""
        return min((r.until for r in self.found if r.until is not None and not r.standing), default=None)


class _Cut(Exception):
    pass


def _finite(t: float) -> float | None:
    return None if t == math.inf else t


@dataclass(frozen=True)
class _Stood:
    """A reading's drop-out under a standing piece: the sensor under ``square`` read a lift,
    but the piece stayed; it must have left (or the sensor answered again) by ``end``."""

    square: int
    end: float


@dataclass(frozen=True)
class _Drop:
    """A reading's drop-out: the move set down on a sensor that dropped out was ``lifted`` then;
    the reading holds ``until`` then (None: no move has followed it yet)."""

    lifted: float | None = None
    until: float | None = None
    #: a later move of the reading captured the piece on that square while the drop-out lasted:
    #: it came and went unseen (the sensor read empty throughout), and the square is empty now
    gone: bool = False


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


def _progress(bits: Bits, s: int, hide: int) -> bool:
    """:func:`progress` on bit masks (``bits``: the candidate's, :data:`referee.candidates.Bits`; ``s``
    and ``hide`` as :func:`referee.candidates.square_bits` gives them): the search asks it of
    every candidate of every position it visits."""
    before, after, origin, dest, captured, landings = bits
    seen = ~hide
    missing = before & ~s & seen
    added = s & ~before & seen
    if missing & ~(origin | captured) or added & ~(dest | landings) or added & (added - 1):
        return False
    if origin & seen and origin & s and (added or not origin & missing):
        return False  # the piece has not left its square
    if not missing and not added:
        return False  # nothing of it can be seen
    return bool((after ^ s) & seen)  # and it is not complete


def _strays(bits: Bits, s: int, hide: int) -> int:
    """The squares (a bit mask) where ``s`` differs from anything the candidate's execution
    may show, ``hide`` aside: :func:`_progress` holds only if every one of them is hidden."""
    before, _, origin, dest, captured, landings = bits
    return (before & ~s & ~(origin | captured) | s & ~before & ~(dest | landings)) & ~hide


def _put_back(bits: Bits, s: int, hide: int, aired: int) -> bool:
    """Would ``s`` be part-way through the candidate (:func:`_progress`) if one piece of ``aired``
    (squares the candidate's position occupies, ``s`` empty, ``hide`` not among them) that is not
    the candidate's own were put back? Asked when it is not part-way without: then only the one
    square its occupancy misses beyond the move's own can be that piece."""
    before, _, origin, _, captured, _ = bits
    extra = before & ~s & ~hide & ~(origin | captured)
    return bool(extra & aired) and not extra & (extra - 1) and _progress(bits, s, hide | extra)


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
    dropout: float | None = None,
    hold: float = 0.0,
    heard: Mapping[int, float] | None = None,
    emptied: Mapping[int, float] | None = None,
    now: float | None = None,
    vanished: bool = False,
) -> Readings:
    """The readings of ``board`` from ``position`` (the last position it matched), given the
    square ``events`` since then: move sequences of at most ``max_plies`` plies, each move's
    origin lifted, destination set down and captured pieces lifted, in turn (a move starts
    after the one before it landed; or, leaving that move's square alone, after its lift, when
    it was a plain move whose piece may have been held in the hand meanwhile: nothing set down
    meanwhile on a square empty then but the move's own landing, no drop-out at work, one such
    piece a reading; such a move's ``landed`` is its lift, the events after it read on), but
    for one square of ``silent`` (never heard from),
    whose result matches ``board`` but on that square, or with a move under way after them.
    ``masked``: squares known not to answer (never compared). ``air``: also the readings
    that hold if one piece lifted since that time, off its square now, is put back (a sleeve
    brushing it, say: marked ``disturbed``). ``dropout``: also the readings in which a sensor
    that answered before, reading empty now, dropped out under the piece one move set down on
    it (an intermittent reed switch), for at most ``dropout`` seconds: the piece was set down
    at the latest when the next move started (or ``hold`` seconds after its lift, when no
    move follows), and the reading holds until ``dropout`` seconds after that (``until``);
    ``vanished`` (with ``dropout``): also for good if a later move captured the piece, or moved
    it on, while the drop-out lasted, the sensor silent throughout (a piece set down and taken
    within one drop-out). Such a reading is never recorded by itself: a knocked-over piece put back, all
    sensors sound, can read so too; the referee offers it to the page when nothing else
    explains a still board (``referee.core``);
    ``heard``: when each sensor first answered (one that had not answered before the piece
    was lifted is a silent one, not one that dropped out). ``emptied``: when each square that
    reads empty now last read a lift; with ``dropout``, also the readings in which that lift
    was the sensor dropping out under a piece that stood there (``stood``): the piece stays
    until a move of the reading takes it, which started within ``dropout`` seconds of that
    lift (else the reading holds until then: ``until``). Such a lift is no move's start, so
    a move that started before the move it follows landed is read as it was played. ``now``:
    readings that no longer hold then (``until``) are left out, so they do not fill the cap.
    """
    s = frozenset(board)
    known = frozenset(masked)
    quiet = frozenset(silent) - known
    #: when the sensors that answered first did: one may have dropped out under a landing later
    dropping = {} if dropout is None else (heard or {})
    lifts: dict[int, list[float]] = {}
    places: dict[int, list[float]] = {}
    last: dict[int, Transition] = {}
    moments: list[float] = []
    for ev in events:
        if isinstance(ev.key, int):
            (places if ev.occupied else lifts).setdefault(ev.key, []).append(ev.t)
            last[ev.key] = ev
            moments.append(ev.t)
    #: the events came in time order (as the referee keeps them): each square's times are sorted
    order = sorted(moments)
    ordered, moments = order == moments, order
    off = frozenset(sq for sq, ev in last.items() if air is not None and not ev.occupied and ev.t >= air) - known
    #: squares reading empty since a lift: their sensor may have dropped out under a standing piece
    went = {} if dropout is None else {sq: t for sq, t in (emptied or {}).items() if sq not in s and sq not in known}
    cands = cache or CandidateCache()
    # the same sets as bit masks, for the tests the search makes of every candidate
    s_bits, known_bits = square_bits(s), square_bits(known)
    lifted_bits, placed_bits = square_bits(lifts) & ~known_bits, square_bits(places) & ~known_bits
    found: list[Reading] = []
    seen: set[Reading] = set()
    nodes = [0]
    capped = [False]

    def first(times: dict[int, list[float]], sq: int, after: float) -> float | None:
        ts = times.get(sq)
        if not ts:
            return None
        if ordered:
            i = bisect_left(ts, after)
            return ts[i] if i < len(ts) else None
        return next((t for t in ts if t >= after), None)

    def add(r: Reading) -> None:
        if r.until is not None and now is not None and r.until <= now:
            return  # (a drop-out it needs would have ended: kept, it would only fill the cap)
        if r not in seen:
            seen.add(r)
            found.append(r)

    def timed(c: Candidate, hide: frozenset[int], ready: float, stood: _Stood | None = None) -> float | None:
        """When ``c``'s piece landed, its origin lifted after ``ready`` (None: it cannot have;
        ``stood``: a sensor dropped out under a standing piece, which ``c`` may move only while
        the drop-out lasts)."""
        if stood is not None and stood.square in {c.origin, c.dest, *c.captured} and ready > stood.end:
            return None
        lifted = ready if c.origin in hide else first(lifts, c.origin, ready)
        if lifted is None:
            return None
        if any(sq not in hide and first(lifts, sq, ready) is None for sq in c.captured):
            return None
        return lifted if c.dest in hide else first(places, c.dest, lifted)

    def started(c: Candidate, hide: frozenset[int], ready: float) -> bool:
        """Did ``c``'s piece leave its square after ``ready`` (or a square that cannot be seen)?"""
        return c.origin in hide or first(lifts, c.origin, ready) is not None

    def late(c: Candidate, ready: float) -> bool:
        """Could the sensor under ``c``'s destination have dropped out under its piece: it had
        answered before the piece was lifted, and the landing was not seen right after the
        lift (nothing seen, or other squares changed in between)?"""
        lifted = first(lifts, c.origin, ready)
        if lifted is None or c.dest in known or dropping.get(c.dest, math.inf) >= lifted:
            return False
        landed = first(places, c.dest, lifted)
        return landed is None or bisect_right(moments, lifted) < bisect_left(moments, landed)

    def closed(c: Candidate, hide: frozenset[int], ready: float, drop: _Drop) -> _Drop:
        """``drop`` once ``c`` started: a landing a sensor dropped out under was made by then."""
        if drop.lifted is None or drop.until is not None or dropout is None:
            return drop
        began = ready if c.origin in hide else first(lifts, c.origin, ready)
        return _Drop(drop.lifted, (ready if began is None else began) + dropout)

    def vacated(c: Candidate, hidden: int, ready: float, landed: float, drop: _Drop) -> _Drop | None:
        """``drop`` once ``c`` captured the piece on ``hidden``, the square whose sensor dropped
        out under it (None: it cannot have): gone, if ``c`` started while the drop-out could
        still last, the sensor silent from the piece's landing until ``c`` ``landed`` (a piece
        set down and captured, or moved on, within one drop-out leaves no trace on it). Only
        offered to the page: a king set down on one square or another of its line, moved on
        later, reads alike (recorded, that was a misread: campaign game 284, intermittent careful)."""
        if not vanished or drop.lifted is None or drop.gone or dropout is None or known:
            return None  # (nor beside a sensor known not to answer: one fault at a time)
        end = drop.until if drop.until is not None else drop.lifted + hold + dropout
        began = ready if c.origin == hidden else first(lifts, c.origin, ready)
        if began is None or began <= drop.lifted or began > end:
            return None  # (at the same moment: a board read whole after a link gap, no hands at work)
        # (the sensor read nothing until ``c`` landed: one that showed the piece, or read a lift,
        # was answering, and another reading explains what it read)
        if any(drop.lifted < t <= landed for t in (*lifts.get(hidden, ()), *places.get(hidden, ()))):
            return None
        return _Drop(drop.lifted, end, gone=True)

    def interleaved(
        c: Candidate, mask: frozenset[int], ready: float, hand: tuple[float, int, int] | None, occ: frozenset[int]
    ) -> float | None:
        """When ``c``'s origin was lifted, if ``c`` began while the piece of the move before it
        was still in the hand (lifted from ``hand[2]`` at ``hand[0]``, set down on ``hand[1]`` at
        ``ready``): a reply played before the other side's piece was set down, leaving its square
        alone, its origin not lifted since the landing (None: it did not, or cannot have). Its
        origin hidden, it began at that lift if it landed, seen, before that piece."""
        if hand is None or hand[1] in c.captured or first(lifts, c.origin, ready) is not None:
            return None  # (lifted again since the landing: read as begun then)
        if c.origin in mask:  # (its start unseen: its landing, seen before that one's, tells; not on its origin)
            landed = None if c.dest in mask or c.dest == hand[2] else first(places, c.dest, hand[0])
            lifted = hand[0] if landed is not None and landed < ready else None
        else:
            lifted = first(lifts, c.origin, hand[0])
        if lifted is None or lifted >= ready:
            return None
        # (the piece was in the hand: nothing set down meanwhile on a square empty then, its origin
        # included, but this move's own landings: a set-down elsewhere was that piece, at rest,
        # unless it was lifted again before this move began: a king dragged, resting on its way,
        # then held (hold campaign game 7230: 4-11 rested on 7, held while 9-13 was played))
        own = c.landings | {c.dest}
        for sq, ts in places.items():
            if sq in own or sq in occ:
                continue
            for t in ts:
                if hand[0] < t < ready and ((again := first(lifts, sq, t)) is None or again >= lifted):
                    return None
        return lifted

    def until(drop: _Drop, hidden: int | None, occ: frozenset[int]) -> float:
        """Until when a reading whose sensor under ``hidden`` dropped out holds (math.inf: for
        good, the piece shown when it answered again, or captured while it was out; -math.inf:
        it does not hold: a drop-out hides a piece standing there, or one that came and went
        while it lasted, not one that came and went unseen otherwise)."""
        if drop.lifted is None or dropout is None or hidden is None:
            return math.inf
        if hidden not in occ:
            return math.inf if drop.gone else -math.inf
        end = drop.until if drop.until is not None else drop.lifted + hold + dropout
        if hidden not in s:
            return end  # still dropped out: until then
        shown = first(places, hidden, drop.lifted)
        return math.inf if shown is not None and shown <= end else -math.inf

    def search(
        pos: Position,
        line: tuple[Move, ...],
        hidden: int | None,
        left: int,
        ready: float,
        times: tuple[float, ...],
        drop: _Drop,
        stood: _Stood | None = None,
        hand: tuple[float, int, int] | None = None,
        mixed: bool = False,
    ) -> None:
        """``hand``: the last move of ``line`` was plain and its lift and landing seen: (when its
        piece was lifted, where it landed, where from); the next move may have begun while that
        piece was in the hand (:func:`interleaved`). ``mixed``: a move of ``line`` did (one such
        piece a reading, or the search outgrows its bound on long evidence)."""
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise _Cut
        hide = known if hidden is None else known | {hidden}
        occ = pos.occupied()
        diff = (occ ^ s) - hide
        end = until(drop, hidden, occ)
        if stood is not None and stood.square in occ:
            end = min(end, stood.end)  # the piece still stands on it: the drop-out ends by then
        shown_late = drop.lifted is not None or stood is not None
        if end == -math.inf:
            return  # not a drop-out
        if not diff:
            add(Reading(line, hidden, landed=times, until=_finite(end), dropped=shown_late, gone=drop.gone))
        elif hidden is None and line and len(diff) == 1 and diff <= quiet:
            add(Reading(line, next(iter(diff)), landed=times))
        # a piece of this reading is off its square for a moment (not on top of a drop-out: one
        # fault at a time, or a later move's landing could pass for any drop-out's end)
        for a in () if shown_late else diff & off & occ:
            rest = diff - {a}
            if not rest:
                add(Reading(line, hidden, landed=times, disturbed=True))
            elif hidden is None and line and len(rest) == 1 and rest <= quiet:
                add(Reading(line, next(iter(rest)), landed=times, disturbed=True))
        options = cands.of(pos)
        masks = cands.bits(pos)
        # a square that read a lift may have dropped out under the piece still standing there (not
        # beside a piece held in the hand: one oddity at a time)
        for sq in () if hidden is not None or shown_late or mixed else sorted(diff & occ & went.keys()):
            mask, due = known | {sq}, went[sq] + (dropout or 0.0)
            if diff == {sq}:
                add(Reading(line, sq, landed=times, until=due, dropped=True, standing=True))
            for c, bits in zip(options, masks, strict=True):
                if (
                    sq not in {c.origin, *c.captured}
                    and _progress(bits, s_bits, known_bits | 1 << sq)
                    and started(c, mask, ready)
                ):
                    add(Reading(line, sq, under_way=True, landed=times, until=due, dropped=True, standing=True))
        aired = 0 if shown_late else square_bits(diff & off & occ)  # pieces that may be put back
        unheard = tuple(diff & quiet)
        for c, bits in zip(options, masks, strict=True):
            # every square that differs from ``c``'s execution must be hidden: one square that
            # does not answer, and one piece that may be put back, at most
            stray = _strays(bits, s_bits, known_bits)
            if stray.bit_count() > (2 if aired else 1):
                continue
            hides = (hidden,) if hidden is not None else (None, *((c.origin,) if c.origin in quiet else ()), *unheard)
            if stray and not (stray.bit_count() == 1 and stray & aired):
                hides = tuple(h for h in hides if h is not None and stray >> h & 1)  # hiding a stray, or none
            for h in hides:
                hide_bits = known_bits if h is None else known_bits | 1 << h
                # part-way (or only if a piece lifted a moment ago is put back)? (asked first: it
                # rarely is, and it costs least)
                if _progress(bits, s_bits, hide_bits):
                    moving = True
                elif aired and _put_back(bits, s_bits, hide_bits, aired):
                    moving = False
                else:
                    continue
                mask = known if h is None else known | {h}
                if not started(c, mask, ready) and interleaved(c, mask, ready, hand, occ) is None:
                    continue
                later = until(closed(c, mask, ready, drop), h, occ)
                if stood is not None and stood.square in {c.origin, *c.captured}:
                    later = later if ready <= stood.end else -math.inf  # it took the piece while the drop-out lasted
                elif stood is not None and stood.square in occ:
                    later = min(later, stood.end)
                if later == -math.inf:
                    continue
                if moving:
                    add(Reading(line, h, under_way=True, landed=times, until=_finite(later), dropped=shown_late))
                else:
                    add(Reading(line, h, under_way=True, landed=times, disturbed=True))
        if len(found) >= MAX_READINGS:
            if len({x.moves[:1] for x in found}) < 2:
                raise _Cut  # they all begin alike: a reading left unseen could begin otherwise
            capped[0] = True
            return
        for c, (_, _, origin, dest, captured, _) in zip(options, masks, strict=True):
            taken = origin | captured
            # the squares of the move no lift or landing was read on (a circular capture sets its
            # piece down where it started)
            unseen = (taken & ~lifted_bits | dest & ~placed_bits) & ~known_bits
            if unseen & (unseen - 1):
                continue  # two or more
            if not (taken & lifted_bits or dest & placed_bits):
                continue  # a move nobody saw any part of is not a reading
            if unseen and not (taken | dest) & ~known_bits & ~unseen:
                continue  # (nor one whose every other square cannot answer)
            tries: list[int | None] = []
            if unseen:
                sq = unseen.bit_length() - 1
                if hidden is None and sq in quiet:
                    tries.append(sq)
                elif hidden is not None and sq == hidden:
                    tries.append(hidden)
            else:
                tries.append(hidden)
            # a piece whose lift was read before the move it follows landed (so it cannot start
            # this move, nor be captured by it): its sensor may have dropped out under it then,
            # the piece taken later (one such square at most)
            early = (
                [sq for sq in (c.origin, *c.captured) if sq in went and first(lifts, sq, ready) is None]
                if hidden is None and not shown_late
                else []
            )
            early = early if len(early) == 1 else []
            held = stood
            # (and only a move whose landing was seen, the first after that lift, after the move
            # before it landed: a lift alone is no evidence of a move, nor one that landed before;
            # a landing there of a move of this reading between them is that move's, not this one's)
            if (
                early
                and not unseen & ~(1 << early[0])
                and ready <= went[early[0]] + (dropout or 0.0)
                and c.dest not in known
                and (landing := first(places, c.dest, went[early[0]])) is not None
                and (landing >= ready or (landing in times and first(places, c.dest, ready) is not None))
            ):
                tries = [early[0]]
                held = _Stood(early[0], went[early[0]] + (dropout or 0.0))
            # a sensor that answered before may have dropped out under the piece set down on it
            # (and shown it late, when it answered again: worth weighing if anything came between)
            flaky = hidden is None and c.dest not in tries and late(c, ready)
            for h in (*tries, c.dest) if flaky else tries:
                mask = known if h is None else known | {h}
                landed = timed(c, mask, ready, held)
                if landed is not None:
                    if left == 0:
                        raise _Cut  # the evidence may hold more moves than the search looks at
                    after = closed(c, mask, ready, drop)
                    if flaky and h == c.dest:
                        after = _Drop(landed)
                    elif h is not None and h == hidden and (h in c.captured or h == c.origin):
                        after = vacated(c, h, ready, landed, drop) or after
                    # (its piece may be held in the hand while the next move is played: a plain
                    # move whose lift and landing were seen, no drop-out at work, none held before)
                    lifted = first(lifts, c.origin, ready)
                    hold_next = (
                        (lifted, c.dest, c.origin)
                        if not c.captured
                        and c.dest not in mask
                        and c.origin not in mask
                        and lifted is not None
                        and landed > lifted
                        and after.lifted is None
                        and held is None
                        and not mixed
                        else None
                    )
                    search(
                        c.result, (*line, c.move), h, left - 1, landed, (*times, landed), after, held, hold_next, mixed
                    )
                # begun while the piece of the move before was in the hand: the events after that
                # move's lift are read on (its landing, in ``landed``, at its lift), and the move
                # after this one begins once both pieces are down
                began = interleaved(c, mask, ready, hand, occ)
                if began is None or (flaky and h == c.dest):
                    continue
                assert hand is not None
                landed = timed(c, mask, hand[0], held)
                if landed is None:
                    continue
                if left == 0:
                    raise _Cut
                search(
                    c.result,
                    (*line, c.move),
                    h,
                    left - 1,
                    max(landed, ready),
                    (*times[:-1], hand[0], landed),
                    closed(c, mask, began, drop),
                    held,
                    None,
                    True,
                )

    try:
        search(position, (), None, max_plies, -math.inf, (), _Drop())
    except _Cut:
        return Readings(tuple(found), complete=False)
    return Readings(tuple(found), capped=capped[0])


__all__ = ["MAX_NODES", "MAX_PLIES", "Reading", "Readings", "progress", "readings"]
