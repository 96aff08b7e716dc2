"""Differential test against pydraughts (MIT; a test-only oracle).

On at least 2,000 positions per variant (random playouts and real games), the sets of
distinct legal moves (origin, destination, captured set) agree. pydraughts numbers the
Brazilian board from a1 (1 = a1, 2 = c1, ...); positions are exchanged in algebraic FEN
and its squares converted through algebraic names.

Without the real games or the oracle the test skips, except under CI (``CI=true``),
where either missing is a failure: a green CI run has compared them.
"""

from __future__ import annotations

import importlib
import os
import random
from types import ModuleType

import pytest

from rules import Position, find_variant, geometry_for
from rules.pdn import load_pdn
from tests.conftest import random_positions, shared_path


def _oracle() -> ModuleType:
    try:
        return importlib.import_module("draughts")
    except ImportError as exc:
        reason = f"pydraughts (a test dependency) is not installed: {exc}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason, allow_module_level=True)


draughts = _oracle()
MIN_REAL = 400  # real-game positions per variant in ../shared/games (486 Brazilian, 12,078 international)

N_POSITIONS = 2000
Key = tuple[int, int, frozenset[int]]


def real_positions(variant: str) -> list[Position]:
    out: list[Position] = []
    folder = shared_path("games", variant)  # skips, or fails under CI, when the data is absent
    for path in sorted(folder.glob("*.pdn")):
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
    assert len(real) >= MIN_REAL, f"only {len(real)} real-game positions under {shared_path('games', variant)}"
    rng = random.Random(7)
    rng.shuffle(real)
    positions = real[: N_POSITIONS // 2]
    positions += random_positions(variant, N_POSITIONS - len(positions), seed=11, plies=(20, 160), keep=0.5)
    assert len(positions) >= N_POSITIONS
    kings = sum(1 for p in positions if p.wk or p.bk)
    captures = sum(1 for p in positions if p.has_captures())
    assert kings > 100 and captures > 200, (kings, captures)  # the sample exercises kings and captures
    for pos in positions:
        ours = {m.key for m in pos.legal_moves}
        theirs = pydraughts_moves(variant, pos)
        assert ours == theirs, pos.fen()


@pytest.mark.parametrize(
    ("what", "ci", "outcome"),
    [("data", "true", "failed"), ("data", "", "skipped"), ("oracle", "true", "error"), ("oracle", "", "skipped")],
)
def test_missing_data_or_oracle_fails_under_ci(tmp_path: os.PathLike[str], what: str, ci: str, outcome: str) -> None:
    """Under CI a missing piece is a failure, never a silent skip (nor a silent drop of the real games)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "CI": ci}
    if what == "data":
        env["DAMAS_SHARED"] = env["DAMAS_TEST_DATA"] = str(tmp_path)  # empty folders: no data anywhere
    else:
        fake = Path(tmp_path) / "draughts"
        fake.mkdir()
        (fake / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(root)])
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "brazilian", __file__],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    last = proc.stdout.strip().splitlines()[-1]
    assert outcome in last, proc.stdout[-2000:]
    assert (proc.returncode in (0, 5)) == (outcome == "skipped"), last  # 5: the module skipped itself
