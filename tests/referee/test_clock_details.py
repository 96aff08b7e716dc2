"""The game clock as players and the page see it: the notices' text, a power cut's resume by
a press, the times kept when the game ends, the face the page draws, the clock comments in the
record (each was changed by a mutant no other test noticed; see docs/mutation.md)."""

from __future__ import annotations

import pytest

from board_hal.debounce import Transition
from referee import Action, Link, MoveMade, Pipeline, Referee, Report, ReportKind
from referee.clock import ClockAction, ClockError, ClockKeeper, duration_text, parse_control, ticks
from referee.core import RECONSTRUCTED_COMMENT
from rules import Color
from tests.referee.test_clock import CAPTURE_FEN, Game, sq

W, B = Color.WHITE, Color.BLACK


def test_a_move_on_the_opponents_time_says_who_did_not_press() -> None:
    g = Game(mode="tournament").press(B, 0)
    g.move("-c3", "+d4").move("-f6", "+e5")
    (r,) = [v for v in g.out if isinstance(v, Report)]
    assert r.message == "Black moved while white's clock was running: white did not press the clock"


def test_after_a_power_cut_a_press_resumes_the_clocks() -> None:
    g = Game("5").press(B, 0).wait(10)
    g.at(0).feed(ClockAction(g.t, "clock-pause", source="power"))
    face = g.keeper.face(g.t)
    assert face["paused"] and face["paused_by"] == "power"
    g.wait(100).press(W)
    assert not g.keeper.clock.paused and g.keeper.face(g.t)["paused_by"] is None
    resumed = [v for v in g.out if isinstance(v, Report) and v.kind is ReportKind.CLOCK_RESUMED]
    assert [r.message for r in resumed] == ["the clocks run again"]
    assert g.left(W) == 290
    g.wait(10)
    assert g.left(W) == 280  # running again, from where the cut stopped it


def test_an_arbiters_pause_is_not_resumed_by_a_press() -> None:
    g = Game("5").press(B, 0).wait(10)
    g.at(0).feed(ClockAction(g.t, "clock-pause"))  # no source: the arbiter
    assert g.keeper.face(g.t)["paused_by"] == "arbiter"
    g.press(W)
    assert g.keeper.clock.paused


def test_the_clocks_keep_what_they_showed_when_the_game_ends() -> None:
    g = Game("5").press(B, 0).wait(10)
    g.out += g.pipe.feed(Action(g.t, "resign", side=W))
    assert g.ref.ended and g.keeper.clock.stopped
    g.wait(100)
    assert g.left(W) == 290 and g.left(B) == 300
    assert g.keeper.face(g.t)["white_text"] == "4:50"


def test_the_face_says_whether_the_clock_is_pressed_by_the_referee() -> None:
    assert Game("5", mode="casual", auto=True).keeper.face(0)["auto"] is True
    assert Game("5").keeper.face(0)["auto"] is False
    ref = Referee("brazilian", mode="casual")
    keeper = ClockKeeper.from_header({"clock": "5+3", "clock_auto": True}, ref)
    assert keeper is not None and keeper.auto
    tournament = ClockKeeper.from_header({"clock": "5+3", "clock_auto": True}, Referee("brazilian", mode="tournament"))
    assert tournament is not None and not tournament.auto  # a player presses in tournament mode


def test_moves_recorded_after_a_link_gap_are_stamped_for_the_side_that_made_each() -> None:
    g = Game("5+3", mode="casual", auto=True)
    g.move("-c3", "+d4", dt=4)  # the clock starts with black's
    pos = g.ref.position
    b6a5 = next(m for m in pos.legal_moves if pos.pdn(m) == "b6-a5")
    after = pos.apply(b6a5)
    b2c3 = next(m for m in after.legal_moves if after.pdn(m) == "b2-c3")
    board = after.apply(b2c3).occupied()
    g.out += g.pipe.feed(Link(g.at(5).t, "down"))
    g.out += g.pipe.feed(Link(g.at(20).t, "up", board=tuple(sorted(board))))
    assert [v.pdn for v in g.out if isinstance(v, MoveMade)] == ["c3-d4", "b6-a5", "b2-c3"]
    assert [s.mover for s in g.keeper.stamps] == [W, B, W]
    assert g.keeper.clock.running is B
    # the clock's comment first, then the note that the move was reconstructed
    comments = [pm.comments for pm in g.pipe.pdn_game().moves]
    assert [c[0].startswith("[%clock ") for c in comments] == [True, True, True]
    assert [c[1:] for c in comments] == [[], [RECONSTRUCTED_COMMENT], [RECONSTRUCTED_COMMENT]]


def test_a_clock_started_beside_a_game_under_way_stamps_the_moves_at_their_own_ply() -> None:
    ref = Referee("brazilian", mode="casual")
    plain = Pipeline(ref, 0.0)
    for t, square, placed in [(1, "c3", False), (2, "d4", True), (3, "b6", False), (4, "a5", True)]:
        plain.feed(Transition(float(t), sq(square), placed))
    keeper = ClockKeeper(parse_control("5"), ref, auto=True)
    pipe = Pipeline(ref, 0.0, keeper)
    pipe.feed(Transition(5.0, sq("b2"), False))
    pipe.feed(Transition(6.0, sq("c3"), True))
    assert ref.game.ply == 3 and len(keeper.stamps) == 3
    assert keeper.stamps[2].mover is W and keeper.stamps[2].running is B
    moves = pipe.pdn_game().moves
    assert all(pm.clock is not None for pm in moves)


def test_a_flag_falls_and_what_the_hands_did_meanwhile_is_still_seen() -> None:
    g = Game("1", window=0.05).press(B, 0)
    g.at(59.98).feed(Transition(g.t, sq("c3"), False))  # white lifts c3 just before the flag
    g.wait(5)
    assert g.keeper.clock.flag is W and g.ref.ended
    assert sq("c3") not in g.ref.occupied  # the lift, confirmed after the flag fell, was delivered


def test_a_bad_control_quotes_at_most_sixty_characters_of_it() -> None:
    text = "0/5" + " " * 100
    with pytest.raises(ClockError) as exc:
        parse_control(text)
    assert str(exc.value).startswith(f"invalid clock {text[:60]!r}: 0 moves in a period")


def test_moves_made_without_a_press_are_each_paid_by_a_later_press() -> None:
    g = Game(mode="tournament").press(B, 0)
    g.move("-c3", "+d4").move("-b6", "+a5").move("-g3", "+h4")  # nobody presses: white owes two
    assert g.reports() == [ReportKind.CLOCK_NOT_PRESSED]
    g.press(W).press(B).press(W)  # the late presses: each pays a move
    assert g.reports() == [ReportKind.CLOCK_NOT_PRESSED] and g.keeper.clock.running is B


def test_a_press_with_the_capturing_piece_still_in_the_hand_is_a_press_without_a_move() -> None:
    g = Game(mode="tournament", fen=CAPTURE_FEN).press(B, 0)
    g.move("-d4").press(W, 1)  # not landed yet: no capture on the board
    assert g.reports() == [ReportKind.CLOCK_NO_MOVE]
    (r,) = [v for v in g.out if isinstance(v, Report)]
    assert r.t == g.t and r.message == "White pressed the clock without having moved: the clock was not switched"


def test_a_press_ahead_of_a_move_leaves_the_earlier_moves_times_alone() -> None:
    g = Game("5+3", mode="tournament", window=0.05)
    g.move("-c3", "+d4").move("-f6", "+g5")  # before the clock was started: no press owed
    g.press(B, 0.5)  # the clock starts, white's
    g.move("-g3", "+h4").press(W, 0.5)
    earlier = [s.to_json() for s in g.keeper.stamps]
    g.move("-g7", "+f6").press(B, 0.02)  # before the debounce window confirmed black's move
    g.wait(1.0)
    assert [v.pdn for v in g.out if isinstance(v, MoveMade)] == ["c3-d4", "f6-g5", "g3-h4", "g7-f6"]
    assert [s.to_json() for s in g.keeper.stamps[:3]] == earlier
    assert g.keeper.stamps[3].mover is B and g.keeper.clock.running is W


def test_a_move_pressed_ahead_can_be_taken_back() -> None:
    g = Game("5+3", mode="casual", window=0.05).press(B, 0)
    g.move("-c3", "+d4").press(W, 0.02)  # pressed before the move was confirmed
    g.wait(1.0)
    assert len(g.keeper.stamps) == 1 and g.keeper.stamps[0].mover is W
    g.move("-d4", "+c3").wait(1.0)  # taken back
    assert g.ref.game.ply == 0 and g.keeper.stamps == []


def test_an_automatic_clock_started_during_a_pause_waits_for_the_resume() -> None:
    g = Game("5", mode="casual", auto=True)
    g.at(1).feed(ClockAction(g.t, "clock-pause"))
    g.move("-c3", "+d4", dt=4)  # the first move starts black's clock, paused
    g.wait(100)
    assert g.keeper.clock.running is B and not g.keeper.face(g.t)["ticking"]
    assert g.left(B) == 300
    g.at(1).feed(ClockAction(g.t, "clock-resume"))
    g.wait(10)
    assert g.left(B) == 290


def test_a_moves_clock_is_written_in_seconds() -> None:
    g = Game("5+3").press(B, 0)
    g.move("-c3", "+d4", dt=5).press(W, 1)
    (made,) = [v for v in g.out if isinstance(v, MoveMade)]
    assert made.to_json()["clock"] == {"running": "white", "white": 290.0, "black": 300.0, "took": 10.0}
    assert g.keeper.stamps[0].to_json() == {"running": "black", "white": 292.0, "black": 300.0, "took": 11.0}


def test_texts_of_no_clock_a_duration_and_a_control_that_is_not_text() -> None:
    assert parse_control("none").text() == "none"
    assert duration_text(ticks(7.4)) == "0:07" and duration_text(ticks(7.6)) == "0:08"
    assert duration_text(ticks(3723)) == "1:02:03"
    with pytest.raises(ClockError) as exc:
        parse_control(5)  # type: ignore[arg-type]
    assert str(exc.value).startswith("invalid clock 5: expected text (e.g. fenacef")
