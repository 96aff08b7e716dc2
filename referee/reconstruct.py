"""Moves the board made while nobody was watching: which legal move sequences lead from
the last known position to the occupancy the board reports now?

When the link to the board's sensors drops (a cable pulled out, frames lost on a noisy
line), the players may go on moving. When the board reports again, only its occupancy is
known — no order, no touch-downs, no colours, no crowns. If exactly one sequence of
legal moves (up to a few plies) turns the last known position into that occupancy, the
moves are certain and can be recorded (kings follow from the rules). If several do, or
none within the search, the referee must not guess: it asks for the last known position
to be restored.

A board caught part-way through a move is an explanation too: a sequence of moves, then
the next one under way (its piece lifted, perhaps set down, its captures partly taken
off). It competes with the complete sequences: "c3-d4, then f6 in the hand" and a
four-move sequence ending on the same squares make the board ambiguous.

Pure: positions in, moves out; it imports only ``rules``.

>>> from rules import Position
>>> start = Position.start("brazilian")
>>> after = start.apply(start.parse_pdn("c3-d4"))
>>> r = reconstruct(start, after.occupied())
>>> r.unique, [start.pdn(m) for m in r.moves]
(True, ['c3-d4'])
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from rules import Move, Position

#: how many plies a reconnect may explain (longer gaps need the position restored)
MAX_PLIES = 4
#: positions the search may visit (flying kings on an open board branch widely): a search
#: cut short cannot prove a sequence unique, so it counts as ambiguous
MAX_NODES = 200_000


class _Cut(Exception):
    pass


@dataclass(frozen=True)
class Reconstruction:
    """What the search found: the explanations (at most two are kept: two already mean
    the board cannot tell which one was played). ``partial[i]``: explanation ``i`` ends
    with a move under way after its sequence."""

    target: frozenset[int]
    sequences: tuple[tuple[Move, ...], ...]
    partial: tuple[bool, ...] = ()
    #: False when the search was cut short (``MAX_NODES``): then nothing is unique
    complete: bool = True

    @property
    def under_way(self) -> bool:
        """The unique explanation ends with a move under way (its sequence is complete)."""
        return self.unique and bool(self.partial) and self.partial[0]

    @property
    def unique(self) -> bool:
        """Exactly one sequence explains the board (it may be empty: nothing was played)."""
        return self.complete and len(self.sequences) == 1

    @property
    def ambiguous(self) -> bool:
        return len(self.sequences) > 1 or not self.complete

    @property
    def moves(self) -> tuple[Move, ...]:
        """The unique sequence (empty when there is none, or more than one)."""
        return self.sequences[0] if self.unique else ()


def reconstruct(
    position: Position, target: Iterable[int], max_plies: int = MAX_PLIES, *, max_nodes: int = MAX_NODES
) -> Reconstruction:
    """The legal move sequences of at most ``max_plies`` plies from ``position`` whose
    result occupies exactly ``target``, and the sequences of 1 to ``max_plies - 1`` plies
    after which ``target`` is a move under way (the search stops at the second found).

    Sequences that differ only in the order of their moves are different sequences: the
    record would differ, so they make the board ambiguous too. (A move under way right
    from ``position`` is not searched: the caller knows it without a search.)
    """
    if max_plies < 0:
        raise ValueError(f"max_plies must not be negative: {max_plies!r}")
    goal = frozenset(target)
    found: list[tuple[Move, ...]] = []
    partial: list[bool] = []
    # A ply adds at most one occupied square (the destination), a move under way adds at
    # most its landing square after its origin is lifted, and pieces never come back once
    # captured: a branch that cannot reach ``goal`` in the plies left is cut.
    goal_count = len(goal)
    nodes = [0]

    def search(pos: Position, line: tuple[Move, ...], left: int) -> None:
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise _Cut
        occ = pos.occupied()
        if occ == goal:
            found.append(line)
            partial.append(False)
        elif line and left and under_way(pos, occ, goal):
            found.append(line)
            partial.append(True)
        if len(found) > 1 or left == 0 or len(occ) < goal_count or len(goal - occ) > left:
            return
        for move, child in pos.children():
            search(child, (*line, move), left - 1)
            if len(found) > 1:
                return

    try:
        search(position, (), max_plies)
    except _Cut:
        return Reconstruction(goal, tuple(found), tuple(partial), complete=False)
    return Reconstruction(goal, tuple(found), tuple(partial))


def under_way(pos: Position, occ: frozenset[int], s: frozenset[int]) -> bool:
    """Could the board ``s`` be part-way through a legal move from ``pos`` (not its end)?
    The mover's piece is lifted (and perhaps set down on a landing or its destination),
    and only pieces it captures are missing besides."""
    missing = occ - s
    added = s - occ
    if not missing or len(added) > 1:
        return False
    for move in pos.legal_moves:
        origin, dest = move.from_square, move.to_square
        if not missing <= {origin, *move.captured}:
            continue
        if added:
            if origin in s:
                continue
            landings = {dest}
            if move.captured:
                landings.update(sq for r in pos.routes(move) for sq in r.path[1:-1])
            if not added <= landings:
                continue
        if s != pos.apply(move).occupied():
            return True
    return False


__all__ = ["MAX_NODES", "MAX_PLIES", "Reconstruction", "reconstruct"]
