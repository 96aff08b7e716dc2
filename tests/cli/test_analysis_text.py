"""The line ``damas analyze`` prints for each marked move: the move, its mark, what it loses and
the better move, with scores as people read them (men, level, a forced result)."""

from __future__ import annotations

from damas.computer.analysis import Mark, analyze_game, score_text
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


def test_a_game_with_a_set_up_and_an_end_is_analysed_to_its_last_move() -> None:
    """A set-up starts afresh (the move before it is not judged against a position it did not
    lead to), a finished game's last move is scored by its result, and the progress counts
    every step."""
    from engine import Limits
    from rules import Game, Position

    game = Game("brazilian")
    for _ in range(2):
        game.push(next(iter(game.position.legal_moves)))
    game.setup(Position.from_fen("W:W22:B18", "brazilian"))
    game.push(next(iter(game.position.legal_moves)))  # 22x15 (the only move): takes Black's last man
    assert game.outcome() is not None and game.outcome().winner is not None  # type: ignore[union-attr]
    progress: list[tuple[int, int]] = []
    assert analyze_game(game, Limits(depth=2), progress=lambda i, n: progress.append((i, n))) == []
    assert progress == [(1, 4), (2, 4), (4, 4)]
