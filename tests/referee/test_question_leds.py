"""The LEDs while the page asks which move was played (issue 31): play may go on, so the squares
whose sensor may not answer are lit as such, not as a move that is not allowed."""

from __future__ import annotations

from referee import ReportKind, Role
from tests.referee.driver import Board


def test_the_squares_a_question_names_are_lit_as_sensors_not_as_an_error() -> None:
    board = Board("brazilian")
    board.place(17)  # a3-b4, a3's sensor dead (c3-b4 reads the same)
    board.wait(2.0)
    assert board.ref.report is not None and board.ref.report.kind is ReportKind.SENSOR_CONFIRM
    assert board.lit(Role.SENSOR) == {21, 22}
    assert board.lit(Role.ERROR) == set()
