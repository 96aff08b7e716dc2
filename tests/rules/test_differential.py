"""Differential test against pydraughts (MIT; a test-only oracle).

On at least 2,000 positions per variant (random playouts and real games), the sets of
distinct legal moves (origin, destination, captured set) agree. pydraughts numbers the
Brazilian board from a1 (1 = a1, 2 = c1, ...); positions are exchanged in algebraic FEN
and its squares converted through algebraic names.
"""

from __future__ import annotations

import random

import pytest

from rules import Position, find_variant, geometry_for
from rules.pdn import load_pdn
from tests.conftest import SHARED

draughts = pytest.importorskip("draughts", reason="pydraughts (a test dependency) is not installed")

N_POSITIONS = 2000
Key = tuple[int, int, frozenset[int]]


def random_positions(variant: str, n: int, seed: int) -> list[Position]:
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.start(variant)
        for _ply in range(rng.randint(20, 160)):
            moves = pos.legal_moves()
            if not moves:
                break
            pos = pos.apply(rng.choice(moves))
            if rng.random() < 0.5:
                out.append(pos)
    return out[:n]


def real_positions(variant: str) -> list[Position]:
    out: list[Position] = []
    folder = SHARED / "games" / variant
    for path in sorted(folder.glob("*.pdn")) if folder.exists() else []:
        for g in load_pdn(path):
            pos = g.start_position
            for pm in g.moves:
                pos = pos.apply(pm.move)
                out.append(pos)
    return out


def pydraughts_moves(variant: str, pos: Position) -> set[Key]:
    geo = geometry_for(find_variant(variant))
    if variant == "brazilian":
        board = draughts.Board(variant="brazilian", fen=pos.fen("algebraic"))

        def sq(n: int) -> int:
            row, k = divmod(n - 1, 4)
            file = 2 * k + (row % 2)
            return geo.square_at(file, row)  # type: ignore[return-value]
    else:
        board = draughts.Board(variant="standard", fen=pos.fen("numeric"))

        def sq(n: int) -> int:
            return n

    out = set()
    for m in board.legal_moves():
        steps = m.steps_move
        caps = m.captures or []
        out.add((sq(steps[0]), sq(steps[-1]), frozenset(sq(c) for c in caps if c)))
    return out


@pytest.mark.parametrize("variant", ["brazilian", "international"])
def test_legal_moves_agree_with_pydraughts(variant: str) -> None:
    real = real_positions(variant)
    rng = random.Random(7)
    rng.shuffle(real)
    positions = real[: N_POSITIONS // 2]
    positions += random_positions(variant, N_POSITIONS - len(positions), seed=11)
    assert len(positions) >= N_POSITIONS
    kings = sum(1 for p in positions if p.wk or p.bk)
    captures = sum(1 for p in positions if p.has_captures())
    assert kings > 100 and captures > 200, (kings, captures)  # the sample exercises kings and captures
    for pos in positions:
        ours = {m.key for m in pos.legal_moves()}
        theirs = pydraughts_moves(variant, pos)
        assert ours == theirs, pos.fen()
