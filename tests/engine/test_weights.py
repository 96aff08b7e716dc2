"""International's weights table: read from its file, refused with one line when malformed,
and the tuner's linear form exact where the back-rank and runaway terms count."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import evaluate
from engine.evaluate import (
    NEW_SCALARS,
    Evaluator,
    hand_weights_10,
    weight_dict_10,
    weight_names_10,
    weight_vector_10,
)
from rules import Color, Position, find_variant


def test_the_weights_file_is_the_evaluation_s_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variant = find_variant("international")
    pos = Position.from_fen("W:WK46,33,34,35:B5,6,7", "international")
    monkeypatch.setattr(evaluate, "WEIGHTS_10", tmp_path / "absent.json")
    hand = Evaluator(variant).evaluate(pos.wm, pos.wk, pos.bm, pos.bk, 0)
    table = hand_weights_10()
    table["king"] += 70
    path = tmp_path / "weights_international.json"
    path.write_text(json.dumps(table))
    monkeypatch.setattr(evaluate, "WEIGHTS_10", path)
    assert evaluate.weights_10() == table
    # a new evaluator takes the file's king: one king more on the board, +70 exactly
    assert Evaluator(variant).evaluate(pos.wm, pos.wk, pos.bm, pos.bk, 0) == hand + 70


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("{not json", "Expecting property name"),
        ("[1, 2]", "not a JSON object"),
        ('{"king": 300}', "no 'men_opening'"),
        ("SHORT", "wrong size"),
        ("WORD", "non-number"),
    ],
)
def test_a_malformed_weights_file_is_refused_in_one_line(refusal: Callable[[str], str], text: str, names: str) -> None:
    table = hand_weights_10()
    if text == "SHORT":
        table["runaway"] = table["runaway"][:2]
        text = json.dumps(table)
    elif text == "WORD":
        table["support"] = "strong"
        text = json.dumps(table)
    message = refusal(text)
    assert names in message
    assert "tools/tune_eval.py" in message


def test_weight_dict_is_the_inverse_of_weight_vector() -> None:
    table = hand_weights_10()
    vector = [int(v) for v in weight_vector_10(table)]
    assert len(vector) == len(weight_names_10())
    assert weight_dict_10(vector) == table
    # each entry lands on its own name (not only the round trip of the whole)
    vector[weight_names_10().index("back_rank")] = 99
    vector[weight_names_10().index("runaway[2]")] = 77
    back = weight_dict_10(vector)
    assert back["back_rank"] == 99 and back["runaway"][2] == 77 and back["runaway"][:2] == table["runaway"][:2]


@pytest.mark.parametrize(
    ("fen", "term", "count"),
    [
        # the opening: more than half the men, no king: the back rank guards (White 46-50 v Black 1-5)
        (
            "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50"
            ":B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
            "back_rank",
            0,
        ),
        (
            "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
            "back_rank",
            1,
        ),
        # White's man on 6 runs free (past the middle, two rows from crowning); Black's 45 is blocked by 50
        ("W:W6,50:B45", "runaway[0]", 1),
        ("W:W6,50:B45", "runaway[1]", 1),
        ("W:W6,50:B45", "runaway[2]", 1),
    ],
)
def test_the_tuner_s_linear_form_holds_with_back_rank_and_runaways(fen: str, term: str, count: int) -> None:
    pos = Position.from_fen(fen, "international")
    ev = Evaluator(find_variant("international"))
    vector = weight_vector_10(evaluate.weights_10())  # the table the evaluator loaded
    part, factors = ev.features_10(pos.wm, pos.wk, pos.bm, pos.bk, 0)
    assert factors.get(weight_names_10().index(term), 0) == count
    linear = part + sum(vector[i] * f for i, f in factors.items())
    assert abs(ev.evaluate(pos.wm, pos.wk, pos.bm, pos.bk, 0) - linear) <= 0.5 * (pos.wm | pos.bm).bit_count() + 1e-9


@pytest.mark.parametrize(
    ("fen", "counts"),
    [
        ("W:W32,37:B28", {"trade": 9}),  # a piece ahead with 37 of the 40 men gone: 9 quarters
        ("W:W32:B28", {}),
        # 24 in Black's half with both squares behind (29, 30) held: an outpost; 29 alone: none
        ("W:W24,29,30:B5", {"trade": 18, "outposts": 1}),
        ("W:W24,29:B5", {"trade": 9}),
        ("W:WK46:BK50", {"king_diagonal": 1}),  # 46-5 is the long diagonal, 50 is not on it
        ("B:WK46:BK5", {}),
    ],
)
def test_the_terms_of_the_scan_fit_count_what_they_name(fen: str, counts: dict[str, int]) -> None:
    """The pieces ahead times the board's emptiness (quarters of the 40 men at the start),
    outposts, kings on the long diagonal: own minus the opponent's, for the side to move."""
    ev = Evaluator(find_variant("international"))
    ev.use_weights_10(hand_weights_10())
    pos = Position.from_fen(fen, "international")
    own = (pos.wm, pos.wk, pos.bm, pos.bk, 0) if pos.turn is Color.WHITE else (pos.bm, pos.bk, pos.wm, pos.wk, 1)
    _part, factors = ev.features_10(*own)
    names = weight_names_10()
    assert {k: factors.get(names.index(k), 0) for k in NEW_SCALARS} == {k: counts.get(k, 0) for k in NEW_SCALARS}
