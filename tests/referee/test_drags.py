"""A king slid slowly across the board, resting on the squares it crosses, is the one move
played: a rest long enough to look like a finished move is recorded for the moment, and read
again (a takeback and the move, one entry in the game) when the same king slides on; the fault
hypotheses of issue 31 never turn it into another move, nor into a question about a sensor the
referee has heard (one never heard is named when another move would explain the board as well
were it dead). Through the live pipeline, followed the way ``damas play``'s loop does."""

from __future__ import annotations

import random

import pytest

from referee import Action, MoveMade, Report, ReportKind, Takeback
from rules import Position
from tests.referee.drags import KingMove, crossed, drag, king_moves
from tests.referee.driver import Board

#: the drags of the real games that the referee, fault hypotheses on, did not record as played
#: (rests of 0.35 s or more: the first stop was recorded, then a sensor-confirm named no square)
SLID_ON = [
    ("W:WK17,18,31,33:BK44", "17-28"),
    ("B:W19,26,K27,32:B10,18,K33", "33-47"),
]
#: a drag with a second reading if the king's sensor on 25 had never answered: 20-14 stood and
#: black's king 25 took it, touching 9 on its way to 3 (the board shows the same)
TWO_READINGS = ("W:WK20,26,35:B12,13,18,19,23,K25", "20-3")


def _moves(verdicts: list[object]) -> list[str]:
    return [v.pdn for v in verdicts if isinstance(v, MoveMade)]


@pytest.mark.parametrize("faults", [True, False], ids=["faults-on", "faults-off"])
@pytest.mark.parametrize("rest", [0.35, 0.45, 0.6])
@pytest.mark.parametrize(("fen", "played"), [*SLID_ON, TWO_READINGS])
def test_a_king_that_rests_then_slides_on_is_the_move_played(fen: str, played: str, rest: float, faults: bool) -> None:
    pos = Position.from_fen(fen, "international")
    move = pos.parse_pdn(played)
    heard = {25} if (fen, played) == TWO_READINGS else ()  # (its king came there by a move the sensor saw)
    d = drag(pos, move, rest, heard=heard, sensor_faults=faults)
    assert d.played, (d.referee.report, d.referee.game.move_stack)
    assert [v for v in d.verdicts if isinstance(v, Report)] == []  # no question, no notice
    # each stop read for the moment, then read again: a takeback and the move, the same ply
    made = _moves(d.verdicts)
    assert made[-1] == played and len(made) == len(crossed(pos, move)) + 1
    assert [v.ply for v in d.verdicts if isinstance(v, Takeback)] == [1] * (len(made) - 1)
    assert d.referee.pdn_game().pdn().count(played) == 1


def test_a_second_reading_through_a_square_never_heard_is_asked_naming_it() -> None:
    """20-3 dragged with rests, the king on 25 never heard since the referee started (a position
    set up with the board in place): 20-14, then 25x3 with 25's sensor dead, shows the same board.
    Not a guess: the page is asked, naming 25 and both moves; its answer is the one entry."""
    fen, played = TWO_READINGS
    pos = Position.from_fen(fen, "international")
    d = drag(pos, pos.parse_pdn(played), 0.35)
    report = d.referee.report
    assert report is not None and report.kind is ReportKind.SENSOR_CONFIRM
    assert report.squares == (25,) and report.params["choices"] == ["20-3", "25x3"]
    assert report.message.startswith("the sensor under 25 may not answer")
    out = d.referee.feed(Action(d.referee.t + 1, "confirm", move="20-3"))
    assert [str(v.ply) + ":" + v.pdn for v in out if isinstance(v, MoveMade)] == ["1:20-3"]
    assert [str(m) for m in d.referee.game.move_stack] == ["20-3"] and d.referee.suspects == set()


def test_a_sensor_question_always_names_a_square() -> None:
    """17-22, then the king lifted again and set down on 11 (a correction, not a slide): with the
    king on 44 never heard, black's 44x33x22 under way (touching down on 11) is another reading,
    so the page is asked. The message named an empty square ("the sensor under  may not answer"):
    it names 44, the square whose sensor would hide that move's start."""
    board = Board("international", "W:WK17,18,31,33:BK44")
    board.lift(17).place(22).wait(0.5).lift(22).place(11).wait(2)
    (report,) = [r for r in board.reports() if r.kind is ReportKind.SENSOR_CONFIRM]
    assert report.squares == (44,) and report.params["squares"] == [44]
    assert report.message.startswith(
        "the sensor under 44 may not answer: the board cannot tell 17-11 from a move under way: "
    )


def _check(km: KingMove, rests: list[float], *, live: bool) -> str | None:
    """What is wrong with the drag of ``km`` (None: nothing). ``live``: the referee has heard the
    squares the game's moves used before it (as in play); else none (a position just set up)."""
    d = drag(km.position, km.move, rests, heard=km.heard if live else ())
    text = f"{km.position.pdn(km.move)} from {km.position.fen()} resting {[round(r, 3) for r in rests]}"
    if d.misrecorded:
        return f"{text}: recorded {[str(m) for m in d.referee.game.move_stack]}"
    for r in (v for v in d.verdicts if isinstance(v, Report)):
        if r.kind is ReportKind.SENSOR_CONFIRM and (not r.squares or "under  " in r.message):
            return f"{text}: {r.message}"
    if d.played:
        return None
    report = d.referee.report
    if live or report is None or report.kind is not ReportKind.SENSOR_CONFIRM:
        return f"{text}: not recorded ({report.message if report else 'no report'})"
    # a position just set up: a question is the only other outcome, the move played among its
    # choices, about a square never heard (not one the king's drag was seen on)
    seen = {km.move.from_square, km.move.to_square, *crossed(km.position, km.move)}
    if km.position.pdn(km.move) not in report.params["choices"] or seen & set(report.squares):
        return f"{text}: {report.message}"
    return None


@pytest.mark.parametrize("live", [True, False], ids=["in-play", "set-up"])
def test_every_king_move_of_the_real_games_dragged_slowly(live: bool) -> None:
    """Every plain king move of the real games, dragged with rests of 0.15-0.6 s on the squares it
    crosses (the same on each, on a grid, and drawn at random per square): 0 misrecorded, and in
    play 0 not recorded; after a set-up (no sensor heard yet) only a question naming a square."""
    moves = king_moves()
    assert len(moves) >= 140
    rng = random.Random(31)
    wrong = []
    for km in moves:
        n = len(crossed(km.position, km.move))
        for rests in (
            *([rest] * n for rest in (0.15, 0.25, 0.3, 0.33, 0.34, 0.4, 0.5, 0.6)),
            [rng.uniform(0.15, 0.6) for _ in range(n)],
        ):
            problem = _check(km, rests, live=live)
            if problem is not None:
                wrong.append(problem)
    assert wrong == []


def test_a_king_held_in_the_hand_after_a_rest_while_the_reply_is_played_is_read_slid_on() -> None:
    """17-28 dragged: the king rests on 22 (read as 17-22 for the moment), is lifted off it and
    held while black replies 44-40 (a reply to 17-28: after 17-22 black would have to capture),
    then set down on 28, every sensor heard. No reading started the reply after the king's
    landing, so main reported the board knocked over for good. The king slid on in the hand:
    17-28 and 44-40 are recorded, nothing asked, no sensor in doubt."""
    board = Board("international", "W:WK17,18,31,33:BK44", heard=range(1, 51))
    board.lift(17).place(22).wait(0.5).lift(22)
    board.lift(44).place(40)
    board.place(28).wait(3)
    assert [str(m) for m in board.ref.game.move_stack] == ["17-28", "44-40"]
    assert board.reports() == [] and board.ref.suspects == set() and board.ref.inferred == {}
