"""The search tree's bookkeeping: what the transposition table is told."""

from __future__ import annotations

import time

import pytest

from engine import Engine, Limits
from engine.search import INF
from rules import Game

#: positions where the side to move has exactly one legal move (a capture)
FORCED = {
    "brazilian": "B:Wd4,f4,a3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,e7,g7,d6,h6,a5,g5",
    "international": "B:W16,23,31-33,35,36,38-50:B1-13,15,17,18,20,24,25",
}


def prepared(variant: str, fen: str) -> tuple[Engine, tuple[int, int, int, int, int], int]:
    eng = Engine(variant, tt_mb=4)
    game = Game(variant, fen)
    eng._prepare(game, Limits(depth=9), None, None, time.monotonic())
    sides = eng._sides(game.position)
    return eng, sides, eng._key(*sides)


@pytest.mark.parametrize("variant", sorted(FORCED))
def test_a_forced_move_is_stored_at_the_depth_it_was_asked_for(variant: str) -> None:
    """A single legal move costs no depth (its child gets the whole depth), but the table
    must record the depth asked for: recorded one ply deeper, a later probe at that depth
    takes a result a ply short for the real thing (a shot missed at depth 6)."""
    fen = FORCED[variant]
    assert len(Game(variant, fen).legal_moves) == 1
    eng, (om, ok, xm, xk, side), key = prepared(variant, fen)
    for depth in (1, 3, 4):
        eng.tt.clear()
        eng._negamax(depth, 0, -INF, INF, om, ok, xm, xk, side, key, eng.root_quiet, eng.root_ending)
        hit = eng.tt.probe(eng._tt_key(key, eng.root_quiet, eng.root_ending))
        assert hit is not None
        assert hit[1] == depth
