"""Levels 1-10: how deep the engine looks, how long it thinks by default, how much it errs.

Levels 1-7 are bounded by depth alone, so a level with a seed plays the same moves on any
machine; their error is a random amount (up to ``noise`` hundredths of a man) added to
every root move's exact score before the best is chosen, drawn from the engine's seeded
generator. Levels 8-10 search to a depth cap or a number of nodes (when the caller gives no
limit of its own), whichever comes first; levels 8 and 9 err as 1-7 do, level 10 does not and
has no depth cap. A node
count, unlike a time, does not depend on the machine or its load: a level plays the same
move in the same position on a loaded server and on a Raspberry Pi (which takes longer).

Calibrated by games (``benchmarks/engine.py --parts ladder``): each level scores 60-75 %
against the one below (the README has the ladder measured in each variant).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    number: int
    depth: int
    nodes: int | None  # nodes a move when the caller gives no limit; None: depth only
    noise: int  # hundredths of a man


LEVELS: tuple[Level, ...] = (
    Level(1, 1, None, 200),
    Level(2, 2, None, 200),
    Level(3, 2, None, 100),
    Level(4, 3, None, 120),
    Level(5, 3, None, 40),
    Level(6, 4, None, 80),
    Level(7, 5, None, 100),
    # 8 and 9 err too: without an error a level a ply deeper scored 87-95 % against the one below
    Level(8, 6, 100_000, 100),
    Level(9, 7, 250_000, 100),
    Level(10, 100, 600_000, 0),
)


def level_settings(level: int) -> Level:
    """The settings of level 1-10 (anything else is an error naming the level)."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= len(LEVELS):
        raise ValueError(f"level must be 1-{len(LEVELS)}, not {level!r}")
    return LEVELS[level - 1]
