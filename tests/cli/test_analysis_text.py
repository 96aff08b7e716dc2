"""The line ``damas analyze`` prints for each marked move: the move, its mark, what it loses and
the better move, with scores as people read them (men, level, a forced result)."""

from __future__ import annotations

from damas.analysis import Mark, score_text
from engine import MATE_BOUND


def test_scores_read_as_men_level_or_a_forced_result() -> None:
    assert [score_text(s) for s in (MATE_BOUND + 3, MATE_BOUND, -MATE_BOUND, -MATE_BOUND - 9)] == [
        "wins",
        "wins",
        "loses",
        "loses",
    ]
    assert [score_text(s) for s in (0, 9, -9, 10, -10, 150, -230)] == ["=", "=", "=", "+0.1", "-0.1", "+1.5", "-2.3"]


def test_each_kind_of_mark_as_printed() -> None:
    assert Mark(5, "3.", "c3-d4", "g3-h4", 700, "material", 20, -680).text() == (
        "3. c3-d4?  loses material (-6.8): better 3. g3-h4 (+0.2)"
    )
    assert Mark(6, "3...", "f6-e5", "b6-a5", 900, "game", 0, -MATE_BOUND - 1).text() == (
        "3... f6-e5??  loses the game (loses): better 3... b6-a5 (=)"
    )
    assert Mark(7, "4.", "a1-b2", "e3-f4", 900, "win", MATE_BOUND + 1, 40).text() == (
        "4. a1-b2?  lets the win go (+0.4): better 4. e3-f4 (wins)"
    )
