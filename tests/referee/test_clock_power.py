"""After a power cut, the player whose clock ran finished the move meanwhile: one press ends
that turn (issue 28; it used to start the mover's clock again, and a second press switched it)."""

from __future__ import annotations

from referee.clock import ClockAction
from rules import Color
from tests.referee.test_clock import Game

W, B = Color.WHITE, Color.BLACK


def test_the_movers_one_press_after_a_power_cut_ends_the_move_made_meanwhile() -> None:
    g = Game("5").press(B, 0).wait(2).move("-c3", "+d4").press(W).wait(3)
    g.at(0).feed(ClockAction(g.t, "clock-pause", source="power"))  # Black's clock stopped by the cut
    g.wait(60).move("-f6", "+e5")  # Black finishes the move meanwhile...
    g.wait(1).press(B)  # ...and presses once
    clock = g.keeper.clock
    assert not clock.paused and clock.running is W
    assert g.left(B) == 297  # the outage cost Black nothing
    assert g.keeper.stamps[-1].running is W  # the record: White's clock runs after 1... f6-e5


def test_a_press_by_the_side_to_move_only_starts_its_clock_again() -> None:
    g = Game("5").press(B, 0).wait(2).move("-c3", "+d4").press(W).wait(3)
    g.at(0).feed(ClockAction(g.t, "clock-pause", source="power"))
    g.wait(60).press(W)  # White (not to move) presses: Black's clock runs again, nothing else
    assert not g.keeper.clock.paused and g.keeper.clock.running is B
    g.wait(1).press(B)  # Black has not moved: a tournament notice, the clock not switched
    assert g.keeper.clock.running is B
