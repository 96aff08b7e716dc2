"""Levels 1-10: how deep the engine looks, how long it thinks by default, how much it errs.

Levels 1-6 err: a random amount (up to ``noise`` hundredths of a man) is added to every root
move's exact score before the best is chosen, drawn from the engine's seeded generator, so a
level with a seed plays the same moves again. They look 2-6 plies deep, and 4-6 stop at level
7's nodes too, whichever comes first (in International a ply costs more: without that bound
depth 6 searched more than level 7 does). Levels 7-10 do not err and have no depth cap: they
stop at a number of nodes (when the caller gives no limit of its own), four times as many a
level (International's levels 9 and 10 fewer). So each level searches at most what the one
above does and, as deep, errs more, in every variant.
A node count, unlike a time, does not depend on the machine or its load: a level plays the same
move in the same position on a loaded server and on a Raspberry Pi (which takes longer).

Calibrated by games (``benchmarks/engine.py --parts ladder``, and the matches in
data/matches/): each level against the one below, first in Brazilian; the README has the ladder.
Where a variant's step was out of the 60-75 % band with this table, a level errs more or less
there, looks a ply deeper, or searches fewer nodes (``VARIANT_LEVELS``; ``level_settings(level, variant)``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rules import Variant, find_variant

NO_CAP = 100  # the depth of a level bounded by nodes alone: deeper than its nodes ever reach


@dataclass(frozen=True)
class Level:
    number: int
    depth: int
    nodes: int | None  # nodes a move when the caller gives no limit; None: depth only
    noise: int  # hundredths of a man


LEVELS: tuple[Level, ...] = (
    Level(1, 2, None, 150),
    Level(2, 3, None, 160),
    Level(3, 4, None, 120),
    Level(4, 5, 10_000, 100),
    Level(5, 6, 10_000, 80),
    Level(6, 6, 10_000, 20),
    # no error and no depth cap from here: an error is worth a lot (level 7 without one scored
    # 90 % against depth 6 with an error of 80), so these are spaced by nodes
    Level(7, NO_CAP, 10_000, 0),
    Level(8, NO_CAP, 40_000, 0),
    Level(9, NO_CAP, 150_000, 0),
    Level(10, NO_CAP, 600_000, 0),
)


def _errs(level: int, noise: int, depth: int | None = None) -> Level:
    """LEVELS' level with another error (its nodes kept; its depth too unless given)."""
    return replace(LEVELS[level - 1], noise=noise, depth=depth or LEVELS[level - 1].depth)


# where a variant's ladder measured a step out of the band, its own settings for that level
# (the rest of LEVELS holds; the README's ladder has the matches). An error counts from half a
# man: the error is drawn from -noise..+noise for each move, so at 50 or less a level never
# prefers a move that loses a whole man to the best one, and above it each few points more
# cost a lot (International 5 v 4: 67.5 % of 40 with level 4 at 60, 76.9 % of 13 at 67, 92.9 %
# of 14 at 75).
# Brazilian: 3 v 2 was above the band (76.9 % of 80), so its level 3 errs more (135) and levels 2
# and 1 less (140, 110): 3 v 2 68.1 %, 2 v 1 70.0 % (80 games each), 4 v 3 72.5 %.
# International and Portuguese: their steps from level 1 to level 7 were at the top of the band
# or above it, more than six steps inside it can span. So, from the top down, their levels
# below 7 err less, each so that its step is inside the band (40 games each): International
# 6 (20) v 5 (50) 66.2 %, 5 v 4 (60) 67.5 %, 4 v 3 (55) 70.0 %, 3 v 2 (45) 70.0 %; its level 1
# looks 3 plies deep (at depth 2 and an error of 10, 2 v 1 was still 80.0 %) and errs by up to
# 68: 2 v 1 70.0 % (at 65 48.5 %, at 70 75.0 %). Portuguese 7 v 6 (10) 67.5 %, 6 v 5 (45)
# 66.2 %, 5 v 4 (65) 63.7 %, 4 v 3 (75) 73.8 %, 3 v 2 (80) 68.8 %, 2 v 1 (40) 70.0 %.
# International's level 9 searches fewer nodes: near the top more nodes are worth much more
# there than in Brazilian (9 v 8 with LEVELS' 150,000: 93.8 % of 8; Brazilian 62.5 % of 40).
# Against level 8 (40,000), 40 games each unless said: 80,000 54.3 % (23), 100,000 72.5 %,
# 110,000 67.5 % (the middle of the band). Its level 10 too (LEVELS' 600,000 would be far above
# that level 9): 300,000 against it 66.2 % of 40.


VARIANT_LEVELS: dict[str, dict[int, Level]] = {
    "brazilian": {1: _errs(1, 110), 2: _errs(2, 140), 3: _errs(3, 135)},
    "international": {
        1: _errs(1, 68, depth=3),
        2: _errs(2, 45),
        3: _errs(3, 55),
        4: _errs(4, 60),
        5: _errs(5, 50),
        9: replace(LEVELS[8], nodes=110_000),
        10: replace(LEVELS[9], nodes=300_000),
    },
    "portuguese": {
        1: _errs(1, 40),
        2: _errs(2, 80),
        3: _errs(3, 75),
        4: _errs(4, 65),
        5: _errs(5, 45),
        6: _errs(6, 10),
    },
}


def level_settings(level: int, variant: Variant | str | None = None) -> Level:
    """The settings of level 1-10 in ``variant`` (None: the table every variant starts from;
    anything else than 1-10 is an error naming the level)."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= len(LEVELS):
        raise ValueError(f"level must be 1-{len(LEVELS)}, not {level!r}")
    if variant is not None:
        own = VARIANT_LEVELS.get(find_variant(variant).name, {})
        if level in own:
            return own[level]
    return LEVELS[level - 1]
