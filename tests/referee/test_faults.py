"""Broken sensors (issue 31): a referee that never records a guessed move.

A dead reed switch hides every change on its square. The hands model plays the game, the
events of one (or two) squares the game uses are dropped, and nobody tells the referee which.
Whatever it records must be what was played: it may stop short (a stall), never differ.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import MoveMade, Pipeline, Referee, ReportKind, Role
from rules import Move, Position
from tests.conftest import random_game
from tests.referee.driver import Board
from tests.referee.hands import Style, game_log, silenced
from tests.referee.test_campaigns import real_games

VARIANTS = ["brazilian", "international", "portuguese"]


def replay_dead(
    start: Position, moves: list[Move], seed: int, dead: set[int], style: Style | None = None
) -> list[Move]:
    """The moves the referee records when the sensors under ``dead`` never answer."""
    events, _ = game_log(start, moves, seed, style)
    ref = Referee(start.variant, start.fen())
    Pipeline(ref).run(silenced(events, dead))
    return list(ref.game.move_stack)


def used_squares(start: Position, moves: list[Move]) -> list[int]:
    """The squares a game changes (the ones whose dead sensor matters)."""
    out: set[int] = set()
    for m in moves:
        out.update((m.from_square, m.to_square, *m.captured))
    return sorted(out)


def test_the_reply_after_a_landing_on_a_dead_square_is_not_read_as_another_move() -> None:
    """f6-e5 lands on e5, whose sensor is dead: the board shows f6 lifted and nothing more.
    White answers h4-g5. The board then looks like f6-g5 with h4 lifted for the reply, which
    the referee used to record; but g5 was set down after h4 was lifted, so the only reading
    is f6-e5 (e5 unseen) and h4-g5: recorded, f6-e5 marked inferred, e5 named once."""
    board = Board("brazilian")
    board.lift(24).place(20)  # g3-h4
    board.lift(11)  # f6-e5: the landing on e5 is never seen
    board.wait(1.0)
    board.lift(20).place(16)  # h4-g5
    board.wait(2.0)
    assert board.moves() == ["g3-h4", "f6-e5", "h4-g5"]
    made = [v for v in board.all if isinstance(v, MoveMade)]
    assert [v.inferred for v in made] == [None, 15, None]
    assert made[1].to_json()["inferred"] is True and made[1].to_json()["sensor"] == 15
    (sensor,) = [r for r in board.reports() if r.kind is ReportKind.SENSOR]
    assert sensor.squares == (15,) and "e5" in sensor.message
    assert board.kinds() == ["sensor"]
    assert "{inferred: the sensor under e5 did not answer}" in board.ref.pdn_game().pdn()
    assert board.lit(Role.SENSOR) == {15}


def test_a_board_out_of_step_for_plies_is_not_read_as_the_move_it_happens_to_show() -> None:
    """f4-g5 lands on the dead g5; black captures it f6xh4 (its removal unseen); then g3-f4 and
    g7-f6 leave a board that is g3-h4's result. The referee used to record g3-h4; now the
    readings leave one: every move as played, the two over g5 marked inferred."""
    board = Board("brazilian")
    board.lift(23).place(19)  # e3-f4
    board.lift(10).place(14)  # d6-c5
    board.lift(19)  # f4-g5: the landing on g5 (16) is never seen
    board.wait(1.5)
    board.lift(11).place(20)  # f6xh4, g5's removal unseen
    board.wait(1.5)
    board.lift(24).place(19)  # g3-f4
    board.wait(1.5)
    board.lift(8).place(11)  # g7-f6
    board.wait(2.0)
    assert board.moves() == ["e3-f4", "d6-c5", "f4-g5", "f6xh4", "g3-f4", "g7-f6"]
    assert board.ref.inferred == {3: 16, 4: 16}
    assert board.kinds() == ["sensor"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(VARIANTS),
    st.integers(0, 10**9),
    st.booleans(),
    st.integers(1, 2),
)
def test_dead_sensors_never_make_a_misrecord(variant: str, seed: int, sloppy: bool, n_dead: int) -> None:
    """A random game, hands careful or sloppy, one or two sensors dead among the squares it uses:
    what is recorded is the game as played, perhaps cut short; never another move."""
    rng = random.Random(seed)
    start, moves = random_game(variant, rng, 80, capture_bias=0.7)
    dead = set(rng.sample(used_squares(start, moves), n_dead))
    recorded = replay_dead(start, moves, seed, dead, Style.sloppy() if sloppy else None)
    assert recorded == moves[: len(recorded)], (variant, seed, sloppy, dead)


@pytest.mark.slow
@pytest.mark.parametrize("n_dead", [1, 2])
@pytest.mark.parametrize("hands", ["careful", "sloppy"])
def test_dead_sensor_campaign_never_misrecords(hands: str, n_dead: int) -> None:
    """Every real game and 60 generated games of each variant, one or two dead sensors each."""
    style = Style.sloppy() if hands == "sloppy" else None
    games = [(name, start, moves) for name, start, moves in real_games()]
    for variant in VARIANTS:
        for i in range(60):
            start, moves = random_game(variant, 1000 + i, 200, capture_bias=0.7)
            games.append((f"{variant}#{i}", start, moves))
    whole = 0
    for k, (name, start, moves) in enumerate(games):
        dead = set(random.Random(k).sample(used_squares(start, moves), n_dead))
        recorded = replay_dead(start, moves, k, dead, style)
        assert recorded == moves[: len(recorded)], (name, dead)
        whole += recorded == moves
    print(f"{hands} hands, {n_dead} dead: {whole}/{len(games)} recorded whole")
