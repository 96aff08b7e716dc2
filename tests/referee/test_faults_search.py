"""The readings' search (``referee.faults``) is made fast without reading the board otherwise.

It asks its questions of every candidate of every position it visits on bit masks, and skips
what cannot hold: each shortcut must answer as the plain set-based question does
(:func:`referee.faults.progress`) — random positions of all three variants, boards part-way
through a move, random squares hidden and pieces put back."""

from __future__ import annotations

import random

import pytest

from referee.candidates import Bits, Candidate, candidate_bits, candidates, square_bits
from referee.faults import _progress, _put_back, _strays, progress
from rules import Position
from tests.conftest import random_game


def _cases(variant: str, seed: int) -> list[tuple[Candidate, Bits, frozenset[int]]]:
    """Candidates of a random game's positions with boards near their execution: part-way
    through them, or one of them with a few squares changed."""
    rng = random.Random(seed)
    start, moves = random_game(variant, rng, 200, capture_bias=0.5)
    pos: Position = start
    squares = list(pos.geometry.squares())
    out = []
    for move in moves:
        masked = frozenset(rng.sample(squares, rng.choice((0, 0, 1, 2))))
        cands = candidates(pos, masked)
        for c, bits in zip(cands, candidate_bits(cands), strict=True):
            s = set(c.before)
            steps = [("lift", c.origin), *(("lift", x) for x in c.captured), *(("place", x) for x in c.landings)]
            for kind, sq in rng.sample(steps, rng.randint(0, len(steps))):
                (s.discard if kind == "lift" else s.add)(sq)
            if rng.random() < 0.5:
                s.add(c.dest)
            for sq in rng.sample(squares, rng.choice((0, 0, 1, 2))):
                s ^= {sq}  # a square that reads otherwise
            out.append((c, bits, frozenset(s)))
        pos = pos.apply(move)
    return out


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
@pytest.mark.parametrize("seed", range(3))
def test_the_searchs_bit_mask_questions_answer_as_the_plain_ones(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    squares = list(Position.start(variant).geometry.squares())
    asked = held = back = 0
    for c, bits, s in _cases(variant, seed):
        assert bits[0] == square_bits(c.before) and bits[1] == square_bits(c.after)
        sb = square_bits(s)
        for _ in range(3):
            hide = frozenset(rng.sample(squares, rng.choice((0, 1, 1, 2))))
            hb = square_bits(hide)
            plain = progress(c, s, hide)
            assert _progress(bits, sb, hb) == plain, (c.move, sorted(s), sorted(hide))
            asked += 1
            held += plain
            # the search skips a candidate with more strays than squares it may hide
            if plain:
                assert not _strays(bits, sb, 0) & ~hb
            if plain:
                continue
            # a piece lifted a moment ago, put back: only the one stray beyond the move can be it
            occ = c.base.occupied()
            aired = frozenset(sq for sq in occ - s - hide if rng.random() < 0.7)
            put_back = any(progress(c, s, hide | {a}) for a in aired - {c.origin} - c.captured)
            assert _put_back(bits, sb, hb, square_bits(aired)) == put_back, (c.move, sorted(s), sorted(aired))
            back += put_back
    assert asked > 400 and held > 40 and back > 5  # the cases reach every answer
