"""The transposition table: a fixed-size list of packed ints, so its memory is bounded.

An entry is one Python int: ``key << 40 | (score + 2**21) << 18 | depth << 10 | flag << 8 |
move``, where ``key`` is the position's 64-bit Zobrist key (checked in full on a probe),
``move`` the index of the best move in the rules engine's (deterministic) move list, 255
for none. One entry costs the int object (``sys.getsizeof`` of a 104-bit int: 40 bytes on
64-bit CPython) plus the list's 8-byte slot; the table holds the largest power of two of
entries that fits the budget.
"""

from __future__ import annotations

import sys

EXACT, LOWER, UPPER = 0, 1, 2
NO_MOVE = 255
_SCORE_OFF = 1 << 21
#: added to a score to store it (the search decodes entries inline: the format above)
SCORE_OFF = _SCORE_OFF

#: bytes one filled slot really costs: the packed int plus the list's pointer
ENTRY_BYTES = sys.getsizeof((1 << 104) - 1) + 8


def entries_for(megabytes: float) -> int:
    """The number of entries (a power of two, at least 1024) that fits in ``megabytes``."""
    budget = int(megabytes * 1024 * 1024)
    n = 1024
    while n * 2 * ENTRY_BYTES <= budget:
        n *= 2
    return n


class TranspositionTable:
    """Always-replace, except that a deeper result for the same position is kept."""

    def __init__(self, megabytes: float = 64) -> None:
        if megabytes <= 0:
            raise ValueError(f"transposition table size must be positive, not {megabytes!r} MB")
        self.megabytes = megabytes
        self.size = entries_for(megabytes)
        self.mask = self.size - 1
        self.table: list[int] = [0] * self.size

    def clear(self) -> None:
        self.table = [0] * self.size

    def probe(self, key: int) -> tuple[int, int, int, int] | None:
        """(score, depth, flag, move index) stored for ``key``, or None."""
        e = self.table[key & self.mask]
        if e >> 40 != key:
            return None
        return (((e >> 18) & 0x3FFFFF) - _SCORE_OFF, (e >> 10) & 0xFF, (e >> 8) & 3, e & 0xFF)

    def store(self, key: int, score: int, depth: int, flag: int, move: int) -> None:
        i = key & self.mask
        old = self.table[i]
        if old >> 40 == key and (old >> 10) & 0xFF > depth and flag != EXACT:
            return
        if move >= NO_MOVE or move < 0:
            move = NO_MOVE
        self.table[i] = (
            (key << 40) | ((score + _SCORE_OFF) << 18) | (min(max(depth, 0), 255) << 10) | (flag << 8) | move
        )

    def used(self) -> int:
        """Filled entries (a full scan: for tests and statistics)."""
        return sum(1 for e in self.table if e)
