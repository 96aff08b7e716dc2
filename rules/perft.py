"""Perft: the number of legal move sequences of a given length.

Captures that share origin, destination and captured set count once ("drop
duplicates", as Scan, BikDam and the published tables count). Leaves are
bulk-counted: at depth 1 only the number of moves is needed.
"""

from __future__ import annotations

from rules.engine import Engine, make_move
from rules.position import Position


def _perft(eng: Engine, own_m: int, own_k: int, opp_m: int, opp_k: int, side: int, depth: int) -> int:
    caps = eng.captures(own_m, own_k, opp_m, opp_k, side)
    if depth == 1:
        if caps:
            return len(caps)
        return eng.count_quiet(own_m, own_k, opp_m, opp_k, side)
    moves = caps or eng.quiet_moves(own_m, own_k, opp_m, opp_k, side)
    total = 0
    other = 1 - side
    for raw in moves:
        total += _perft(eng, *make_move(raw, own_m, own_k, opp_m, opp_k), other, depth - 1)
    return total


def perft(position: Position, depth: int) -> int:
    """Count the legal move sequences of ``depth`` plies from ``position``.

    >>> perft(Position.start("brazilian"), 3)
    302
    """
    if depth < 0:
        raise ValueError(f"perft depth must be at least 0, not {depth!r}")
    if depth == 0:
        return 1
    own_m, own_k, opp_m, opp_k, side = position._sides()
    return _perft(position.engine, own_m, own_k, opp_m, opp_k, side, depth)
