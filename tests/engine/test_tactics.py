"""Tactical positions per variant: shots and forced wins, solved at a fixed depth.

The positions (``tests/data/engine-tactics-<variant>.json``) were built by
``tests/engine/make_tactics.py``: each answer is the only move that wins, found by a deep
search and confirmed by a deeper one with fresh tables. The default run solves a handful of
each variant; ``pytest -m slow`` solves them all.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine import Engine, Limits
from rules import Game
from tests.conftest import DATA

VARIANTS = ("brazilian", "portuguese", "international")
IN_DEFAULT_RUN = 2  # per variant


def load(variant: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = json.loads((DATA / f"engine-tactics-{variant}.json").read_text())
    return records


def cases(default: bool) -> list[Any]:
    out = []
    for variant in VARIANTS:
        for i, rec in enumerate(load(variant)):
            if (i < IN_DEFAULT_RUN) == default:
                mark = () if default else (pytest.mark.slow,)
                out.append(pytest.param(rec, id=f"{variant}-{i + 1}", marks=mark))
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_variant_has_at_least_20_verified_positions(variant: str) -> None:
    records = load(variant)
    assert len(records) >= 20
    for rec in records:
        game = Game(variant, rec["fen"])
        move = game.position.parse_pdn(rec["move"])
        assert not game.position.has_captures()  # a quiet move starts every shot
        assert move in game.legal_moves
        assert rec["verify_depth"] > rec["test_depth"] + 2
        assert rec["score"] >= 80 and rec["kind"] in ("shot", "forced win")


def solve(rec: dict[str, Any]) -> None:
    variant = rec["variant"]
    game = Game(variant, rec["fen"])
    expected = game.position.parse_pdn(rec["move"])
    result = Engine(variant, level=10, seed=0, tt_mb=16).search(game, Limits(depth=rec["test_depth"]))
    assert result.move == expected, f"{rec['fen']}: played {result.move}, the shot is {rec['move']}"


@pytest.mark.parametrize("rec", cases(default=True))
def test_solves_a_shot_at_a_fixed_depth(rec: dict[str, Any]) -> None:
    solve(rec)


@pytest.mark.parametrize("rec", cases(default=False))
def test_solves_every_shot_at_a_fixed_depth(rec: dict[str, Any]) -> None:
    solve(rec)


@pytest.mark.slow
@pytest.mark.parametrize("rec", cases(default=True) + cases(default=False))
def test_every_shot_is_the_only_good_move_at_its_verifying_depth(rec: dict[str, Any]) -> None:
    """Every other move, searched as deep as the check that verified the shot, scores at least
    the margin less (a player who finds another winning move has not missed the shot)."""
    from tests.engine.make_tactics import MARGIN, rival

    variant = rec["variant"]
    game = Game(variant, rec["fen"])
    found = rival(variant, game, game.position.parse_pdn(rec["move"]), rec["score"], rec["verify_depth"], MARGIN)
    assert found is None, f"{rec['fen']}: {rec['move']} scores {rec['score']}, {found[0]} scores {found[1]}"
