"""International's men patterns: a block's configuration is worth its table's weight in the
evaluation, for White as for Black (the turned block shares the table), the evaluation stays
the tuner's linear form with the patterns in it, and the tuner fits them."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import evaluate
from engine.evaluate import (
    PATTERN_SIZE,
    PATTERN_TABLES,
    Evaluator,
    hand_weights_10,
    pattern_blocks_10,
    weight_names_10,
    weight_vector_10,
)
from rules import Game, Position, find_variant
from tests.conftest import random_positions

ROOT = Path(__file__).resolve().parents[2]


def _with_pattern(table: int, index: int, value: int) -> dict[str, object]:
    w = hand_weights_10()
    w["patterns"][table][index] = value
    return w


def _eval(ev: Evaluator, fen: str) -> tuple[int, int]:
    pos = Position.from_fen(fen, "international")
    return ev.evaluate(pos.wm, pos.wk, pos.bm, pos.bk, 0), ev.evaluate(pos.bm, pos.bk, pos.wm, pos.wk, 1)


def test_the_blocks_cover_the_board_in_turned_pairs() -> None:
    blocks = pattern_blocks_10()
    assert len(blocks) == 2 * PATTERN_TABLES
    variant = find_variant("international")
    geo = Position.start(variant).geometry
    bands = evaluate.pattern_bands(variant)
    squares = [{geo.square_of_bit[bands[band][0] + o] for o in offsets} for band, _t, offsets, _s in blocks]
    assert set().union(*squares) == set(range(1, 51))
    # every two neighbouring rows are seen together (in the bands and across them)
    for row in range(9):
        assert any({geo.coords[s][1] for s in block} == {row, row + 1} for block in squares), row
    for table in range(PATTERN_TABLES):
        signs = sorted(s for _b, t, _o, s in blocks if t == table)
        assert signs == [-1, 1]


def test_a_configuration_is_worth_its_weight_for_white_and_for_black() -> None:
    variant = find_variant("international")
    plain = Evaluator(variant)
    plain.use_weights_10(hand_weights_10())  # whatever table is shipped: no patterns here
    # table 0 is the left window of the top band (squares 1-4 over 6-9, digit i at 3^i in
    # the order 1, 2, 3, 4, 6, 7, 8, 9; White's man 1, Black's 2): Black's man on 1 alone
    # there is index 2; the same men elsewhere (the other blocks) are all empty or unchanged
    ev = Evaluator(variant)
    ev.use_weights_10(_with_pattern(0, 2, 25))
    white_view, black_view = _eval(plain, "W:W33:B1")
    assert _eval(ev, "W:W33:B1") == (white_view + 25, black_view - 25)
    # the board turned and the colours swapped: White's man on 50 in the bottom band's right
    # window is the same configuration for Black: worth 25 to Black
    turned = _eval(plain, "B:W50:B18")
    assert _eval(ev, "B:W50:B18") == (turned[0] - 25, turned[1] + 25)
    # a man that is not in the configuration (Black's man on 2 as well): not index 2
    assert _eval(ev, "W:W33:B1,2") == _eval(plain, "W:W33:B1,2")
    # kings are not men: Black's king on 1 leaves the block empty
    assert _eval(ev, "W:W33:BK1") == _eval(plain, "W:W33:BK1")


def test_without_pattern_weights_nothing_is_added() -> None:
    ev = Evaluator(find_variant("international"))
    ev.use_weights_10(hand_weights_10())
    assert ev.pat_tables == ()
    without = hand_weights_10()
    del without["patterns"]  # a table written before the patterns: they all weigh 0
    assert weight_vector_10(without) == weight_vector_10(hand_weights_10())


def test_the_evaluation_with_patterns_is_the_tuner_s_linear_form_and_colour_blind() -> None:
    variant = find_variant("international")
    rng = random.Random(7)
    w = hand_weights_10()
    w["patterns"] = [[rng.randint(-30, 30) for _ in range(PATTERN_SIZE)] for _ in range(PATTERN_TABLES)]
    ev = Evaluator(variant)
    ev.use_weights_10(w)
    vector = weight_vector_10(w)
    first = weight_names_10().index("patterns[0][0]")
    patterned = 0
    for pos in random_positions("international", 40, seed=3, keep=0.2):
        for om, ok, xm, xk, side in ((pos.wm, pos.wk, pos.bm, pos.bk, 0), (pos.bm, pos.bk, pos.wm, pos.wk, 1)):
            if (ok.bit_count(), om.bit_count(), xk.bit_count(), xm.bit_count()) in ev.drawish:
                continue
            part, factors = ev.features_10(om, ok, xm, xk, side)
            patterned += any(i >= first and f for i, f in factors.items())
            linear = part + sum(vector[i] * f for i, f in factors.items())
            assert abs(ev.evaluate(om, ok, xm, xk, side) - linear) <= 0.5 * (om | xm).bit_count() + 1e-9
        # what one side gains the other loses
        assert ev.evaluate(pos.wm, pos.wk, pos.bm, pos.bk, 0) == -ev.evaluate(pos.bm, pos.bk, pos.wm, pos.wk, 1)
    assert patterned >= 40


@pytest.mark.parametrize(
    ("patterns", "names"),
    [
        ("nope", "patterns: not a list of tables"),
        ([[0] * PATTERN_SIZE] * (PATTERN_TABLES - 1), "wrong size"),
        ([[0] * (PATTERN_SIZE - 1)] + [[0] * PATTERN_SIZE] * (PATTERN_TABLES - 1), "wrong size"),
        ([["x"] * PATTERN_SIZE] * PATTERN_TABLES, "non-number"),
    ],
)
def test_malformed_patterns_are_refused_in_one_line(
    refusal: Callable[[str], str], patterns: object, names: str
) -> None:
    table = hand_weights_10()
    table["patterns"] = patterns
    assert names in refusal(json.dumps(table))


def test_the_tuner_fits_patterns_and_reports_the_held_out_error(tmp_path: Path) -> None:
    # positions of a few quick games, written as the self-play writes them
    rng = random.Random(11)
    lines = []
    for g in range(12):
        game = Game("international")
        records = []
        while game.outcome() is None and game.ply < 60:
            p = game.position
            if not p.has_captures():
                side = 0 if game.ply % 2 == 0 else 1
                records.append(f"{p.wm:x} {p.wk:x} {p.bm:x} {p.bk:x} {side}")
            game.push(rng.choice(list(game.legal_moves)))
        res = (1.0, 0.0, 0.5)[g % 3]
        lines += [f"{r} {res} {rng.randint(-200, 200)} 3" for r in records]
    data = tmp_path / "positions.txt"
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "weights.json"
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "tune_eval.py"), "fit", str(data), "--out", str(out), "--epochs", "2"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "held out" in run.stdout
    fitted = json.loads(out.read_text())
    assert any(v for t in fitted["patterns"] for v in t)  # some configuration learned a weight
    ev = Evaluator(find_variant("international"))
    ev.use_weights_10(fitted)  # and the engine takes the table
    assert ev.pat_tables
