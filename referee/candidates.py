"""Candidate matching: the legal moves from a position, and what their execution may look
like on the board.

A move is read by comparing the sensed occupancy with each candidate's result (distinct
legal moves never leave the same occupancy) and with its intermediate states: the origin
lifted, touch-downs on its landing squares, captured pieces removed in any order, before
or after the landing. The touch-downs then pick the route written in the record.

The pseudo-legal moves the diagnosis needs (a plain move or a capture a player might try
when the law forbids it) are the rules' own: :attr:`rules.Position.pseudo_legal_moves`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from rules import Move, Position

#: positions whose candidates are kept (the game's, the previous one, an irregular one, ...)
CACHE_SIZE = 64


@dataclass(frozen=True)
class Candidate:
    """A legal move seen from a base position, with what its execution may look like."""

    base: Position
    move: Move
    before: frozenset[int]
    after: frozenset[int]
    landings: frozenset[int]
    origin: int
    dest: int
    captured: frozenset[int]

    @cached_property
    def result(self) -> Position:
        """The position the move leaves (kept: a search over readings goes on from it)."""
        return self.base.apply(self.move)

    def in_progress(self, s: frozenset[int]) -> bool:
        """Could ``s`` be the board part-way through this move?"""
        missing = self.before - s
        added = s - self.before
        if not missing <= ({self.origin} | self.captured):
            return False
        if len(added) > 1 or not added <= ({self.dest} | self.landings):
            return False
        return not (added and self.origin in s)


def square_bits(squares: Iterable[int]) -> int:
    """``squares`` as a bit mask (bit n: square n)."""
    bits = 0
    for sq in squares:
        bits |= 1 << sq
    return bits


#: a candidate's ``before``, ``after``, ``origin``, ``dest``, ``captured`` and ``landings`` as bit
#: masks (bit n: square n): the readings' search tests them in a few integer operations
Bits = tuple[int, int, int, int, int, int]


def candidate_bits(cands: Sequence[Candidate]) -> list[Bits]:
    """The bit masks of candidates from one position (:data:`Bits`), in order."""
    if not cands:
        return []
    seen = square_bits(cands[0].before)
    out = []
    for c in cands:
        origin, dest, taken = 1 << c.origin, 1 << c.dest, square_bits(c.captured)
        # (the destination is in ``after`` unless its sensor does not answer)
        after = seen & ~origin & ~taken | (dest if c.dest in c.after else 0)
        out.append((seen, after, origin, dest, taken, square_bits(c.landings)))
    return out


def candidates(pos: Position, masked: frozenset[int] = frozenset()) -> list[Candidate]:
    """Every legal move from ``pos`` as a candidate; ``masked``: squares whose sensor does not
    answer, left out of every occupancy (a piece set down there is never seen)."""
    out = []
    occupied = pos.occupied()
    before = occupied - masked
    for m in pos.legal_moves:
        captured = frozenset(m.captured)
        if len(m.path) > 2 or len(captured) > 1:  # a chain: its routes may touch down elsewhere
            landings = frozenset(sq for r in pos.routes(m) for sq in r.path[1:-1]) - masked
        else:
            landings = frozenset()
        after = before.difference((m.from_square,), captured)  # (the piece moved, the captured off)
        if m.to_square not in masked:
            after |= {m.to_square}
        out.append(Candidate(pos, m, before, after, landings, m.from_square, m.to_square, captured))
    return out


class CandidateCache:
    """The candidates of the positions the referee looks at, computed once each (``masked``:
    squares left out of their occupancies, see :func:`candidates`)."""

    def __init__(self, masked: frozenset[int] = frozenset(), size: int = CACHE_SIZE) -> None:
        self._cache: OrderedDict[Position, list[Candidate]] = OrderedDict()
        self._bits: dict[Position, list[Bits]] = {}  # (only for the positions the readings' search asks)
        self.masked = masked
        self.size = size

    def mask(self, masked: frozenset[int]) -> None:
        if masked != self.masked:
            self.masked = masked
            self._cache.clear()
            self._bits.clear()

    def of(self, pos: Position) -> list[Candidate]:
        c = self._cache.get(pos)
        if c is not None:
            self._cache.move_to_end(pos)  # the last used is the last
            return c
        if len(self._cache) >= self.size:
            gone, _ = self._cache.popitem(last=False)  # the least recently used one goes (a dict's
            # first key would be found past every key deleted before it: slow in a cache of a thousand)
            self._bits.pop(gone, None)
        c = self._cache[pos] = candidates(pos, self.masked)
        return c

    def bits(self, pos: Position) -> list[Bits]:
        """The bit masks of :meth:`of`'s candidates of ``pos``, in order (built once, when asked)."""
        cands = self.of(pos)
        found = self._bits.get(pos)
        if found is None:
            found = self._bits[pos] = candidate_bits(cands)
        return found

    def find(self, pos: Position, move: Move) -> Candidate:
        """The candidate of ``move`` from ``pos`` (ValueError if it is not legal there)."""
        for c in self.of(pos):
            if c.move == move:
                return c
        raise ValueError(move)


def stopped_mid_chain(live: list[Candidate], s: frozenset[int], e: frozenset[int]) -> bool:
    """Is the capturing piece standing on an intermediate landing square (of every
    capture still possible), not on a final one?"""
    added = s - e
    return bool(live) and bool(added) and all(added <= c.landings - {c.dest} for c in live)


def slides_past(pos: Position, short: Move, long: Move) -> bool:
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


def may_slide_on(c: Candidate, others: Iterable[Candidate]) -> bool:
    """Could the king that stopped at ``c``'s destination be sliding on along the same line
    (another legal move of the same piece, the same captures, further along its last leg)?
    ``others``: the candidates from ``c``'s base position."""
    piece = c.base.piece_at(c.origin)
    if piece is None or not piece.king:
        return False
    return any(c2.origin == c.origin and c2.dest != c.dest and slides_past(c.base, c.move, c2.move) for c2 in others)


def route_followed(c: Candidate, touched: Sequence[int]) -> Move:
    """The route the hands followed (``touched``: the squares pieces were put on, in order),
    else the canonical one."""
    routes = c.base.routes(c.move)
    if len(routes) == 1:
        return routes[0]
    on_route = [sq for sq in touched if sq in c.landings]
    best, score = routes[0], -1
    for r in routes:
        landings = iter(r.path[1:-1])
        n = sum(1 for sq in on_route if any(sq == x for x in landings))  # in order
        if n > score:
            best, score = r, n
    return best


def route_like(c: Candidate, earlier: Move, default: Move) -> Move:
    """``c``'s route that follows ``earlier``'s path up to its last leg (a move read again),
    else ``default``."""
    return next((r for r in c.base.routes(c.move) if r.path[:-1] == earlier.path[:-1]), default)
