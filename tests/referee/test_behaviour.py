"""A scripted test for every behaviour of DESIGN.md §5, in the variants where rules differ."""

from __future__ import annotations

import pytest

from referee import ReportKind, Role
from rules import Color, Position
from tests.referee.driver import Board

R = ReportKind


# -- plain moves, adjustments, corrections, hints ------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "a", "b", "pdn"),
    [("brazilian", 22, 18, "c3-d4"), ("international", 32, 28, "32-28"), ("portuguese", 10, 14, "10-14")],
)
def test_plain_move(variant: str, a: int, b: int, pdn: str) -> None:
    board = Board(variant)
    board.lift(a)
    assert board.moves() == []
    board.place(b)
    assert board.moves() == [pdn]
    assert board.ref.game.turn is Color.BLACK
    assert board.lit(Role.LAST) == {a, b}  # the last move (issue 28: its own role, not a lift)
    assert board.kinds() == []


def test_adjustment_is_not_a_move_casual() -> None:
    board = Board("international")
    board.lift(32).place(32).wait()
    assert board.moves() == [] and board.kinds() == []


def test_adjustment_is_a_touch_move_notice_in_tournament() -> None:
    board = Board("international", mode="tournament")
    board.lift(32).place(32)
    assert board.kinds() == ["touch-move"]
    assert board.last(R.TOUCH_MOVE).squares == (32,)
    board.move(33, 29)
    assert board.moves() == ["33-29"]
    # the notice is not repeated for the move itself
    assert board.kinds() == ["touch-move"]


def test_touching_one_piece_and_playing_another_is_noted_in_tournament() -> None:
    board = Board("portuguese", mode="tournament")
    board.lift(10).place(10).move(11, 15)
    assert board.moves() == ["11-15"]
    assert board.kinds() == ["touch-move"]


def test_correction_of_the_last_move_casual() -> None:
    board = Board("brazilian")
    board.move(22, 18)
    board.lift(18).place(17)  # c3 was meant to go to b4
    assert board.takebacks() == [1]
    assert board.moves() == ["c3-d4", "c3-b4"]
    assert board.ref.game.move_stack[0].to_square == 17
    assert board.kinds() == []


def test_correction_is_an_irregularity_in_tournament() -> None:
    board = Board("brazilian", mode="tournament")
    board.move(22, 18)
    board.lift(18).place(17)
    assert board.kinds() == []  # not before the board has kept it for the grace period
    board.wait(0.4)
    assert board.takebacks() == []
    assert board.kinds() == ["correction"]
    r = board.last(R.CORRECTION)
    assert r.missing == (18,) and r.extra == (17,)
    assert board.lit(Role.MISSING) == {18} and board.lit(Role.EXTRA) == {17}
    board.lift(17).place(18)  # put back as it was
    assert board.kinds() == ["correction", "restored"]
    board.move(11, 15)
    assert board.moves() == ["c3-d4", "f6-e5"]


def test_tournament_opponent_plays_on_from_a_corrected_position() -> None:
    board = Board("brazilian", mode="tournament")
    board.move(22, 18)
    board.lift(18).place(17)  # white moves again
    board.move(9, 13)  # black plays on: the position stands
    assert board.kinds() == ["correction", "irregularity-accepted"]
    text = board.ref.pdn_game().pdn()
    assert '/FEN "B:Wb4,' in text and "c3-d4" in text
    assert board.ref.game.position.piece_at(17) is not None


def test_hint_lights_legal_destinations_casual_only() -> None:
    board = Board("international")
    board.lift(32)
    assert board.lit(Role.HINT) == {27, 28}
    assert board.lit(Role.FROM) == {32}
    t = Board("international", mode="tournament")
    t.lift(32)
    assert t.lit(Role.HINT) == set()


# -- captures -------------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["brazilian", "international"])
def test_backward_capture_by_a_man(variant: str) -> None:
    fen = {"brazilian": "W:W18,28:B22", "international": "W:W23:B28"}[variant]
    board = Board(variant, fen)
    (m,) = Position.from_fen(fen, variant).legal_moves
    board.move(m.from_square, m.to_square, *m.captured)
    assert len(board.moves()) == 1 and board.kinds() == []


def test_portuguese_man_may_not_capture_backward() -> None:
    board = Board("portuguese", "W:W14:B10")
    board.move(14, 6, 10).wait()  # a backward "capture"
    assert board.moves() == []
    assert board.kinds() == ["backward-man"]


def test_capture_with_touch_downs_and_removals_after() -> None:
    board = Board("international", "W:W37:B31,21")
    board.lift(37).place(26).lift(26).place(17)
    assert board.moves() == []
    assert board.lit(Role.REMOVE) == {21, 31}
    board.lift(21)
    assert board.moves() == []
    board.lift(31)
    assert board.moves() == ["37x17"]


def test_capture_removals_before_landing_in_any_order() -> None:
    board = Board("international", "W:W37:B31,21")
    board.lift(21).lift(37).lift(31).place(17)
    assert board.moves() == ["37x17"]
    assert board.kinds() == []


def test_removal_before_the_end_is_noted_in_tournament() -> None:
    board = Board("international", "W:W37:B31,21", mode="tournament")
    board.lift(37).lift(21).place(17).lift(31)
    assert board.moves() == ["37x17"]
    assert board.kinds() == ["procedure"]
    assert "before the capture was complete" in board.last(R.PROCEDURE).message
    assert "order" not in board.last(R.PROCEDURE).message  # 21 then 31: reverse jump order is fine


def test_removal_out_of_jump_order_is_noted_in_tournament() -> None:
    board = Board("international", "W:W47:B42,33,24", mode="tournament")
    board.lift(47).place(20).lift(33, 42, 24)
    assert board.moves() == ["47x20"]
    assert board.kinds() == ["procedure"]
    assert "not removed in the order" in board.last(R.PROCEDURE).message
    casual = Board("international", "W:W47:B42,33,24")
    casual.lift(47).place(20).lift(33, 42, 24)
    assert casual.moves() == ["47x20"] and casual.kinds() == []


def test_circular_capture_ending_on_the_start_square() -> None:
    board = Board("international", "W:WK2:B7,8,17,18")
    board.lift(2).place(13).lift(13).place(22).lift(22).place(11).lift(11).place(2)
    assert board.moves() == []
    board.lift(7, 17, 8, 18)
    assert board.moves() == ["2x2"]
    (move,) = board.ref.game.move_stack
    assert move.path == (2, 13, 22, 11, 2)  # the route the touch-downs followed


def test_circular_capture_by_a_brazilian_man_without_touch_downs() -> None:
    board = Board("brazilian", "W:W18:B6,7,14,15")
    board.lift(18).place(18).lift(6, 7, 14, 15)
    assert board.moves() == ["d4xd4"]


def test_two_captures_with_the_same_ending_told_apart_by_the_removals() -> None:
    fen = "W:WK4:B13,20,32,37"
    board = Board("international", fen)
    board.lift(4).place(15)
    assert board.lit(Role.REMOVE) == {13, 20}
    assert board.lit(Role.CAPTURABLE) == {32, 37}
    board.lift(13, 20, 37)
    assert board.moves() == ["4x31x42x15"]
    other = Board("international", fen)
    other.lift(4).place(15).lift(13, 20, 32)
    assert other.moves() == ["4x27x38x15"]


def test_route_taken_from_touch_downs() -> None:
    board = Board("international", "W:WK47:B14,19,29,31,42")
    board.lift(47).place(33).lift(33).place(24).lift(24).place(13).lift(13).place(36)
    board.lift(19, 29, 31, 42)
    (move,) = board.ref.game.move_stack
    assert move.path == (47, 33, 24, 13, 36)
    assert board.moves() == ["47x33x24x13x36"] or board.moves() == ["47x38x24x13x36"]


@pytest.mark.parametrize(
    ("variant", "fen", "a", "b"),
    [("international", "W:W6:B45", 6, 1), ("portuguese", "W:W25:B9", 25, 29), ("brazilian", "W:W5:B26", 5, 1)],
)
def test_kings_are_made_by_the_game_state(variant: str, fen: str, a: int, b: int) -> None:
    board = Board(variant, fen)
    board.move(a, b)
    assert len(board.moves()) == 1
    piece = board.ref.position.piece_at(b)
    assert piece is not None and piece.king


# -- required capture ---------------------------------------------------------------------------
def test_lifting_a_piece_that_cannot_capture() -> None:
    board = Board("international", "W:W32,45:B27")
    board.lift(45)
    assert board.kinds() == [] and board.lit(Role.MUST_CAPTURE) == set()  # maybe a sleeve: wait
    board.wait(0.4)
    r = board.last(R.REQUIRED_CAPTURE)
    assert r.squares == (32,)
    assert board.lit(Role.MUST_CAPTURE) == {32} and board.lit(Role.CAPTURABLE) == {27}
    board.place(45)
    assert board.kinds() == ["required-capture", "restored"]
    board.move(32, 21, 27)
    assert board.moves() == ["32x21"]


def test_plain_move_when_a_capture_is_compulsory() -> None:
    board = Board("brazilian", "W:W18,28:B22")  # d4 must take backward
    board.lift(28).wait(0.4)
    assert board.kinds() == ["required-capture"]  # lifting a piece that cannot capture
    board.place(24)
    assert board.kinds() == ["required-capture"]  # the same report: only its guidance changes
    r = board.ref.report
    assert r is not None and r.kind is R.REQUIRED_CAPTURE
    assert r.squares == (18,) and "d4" in r.message
    assert r.missing == (28,) and r.extra == (24,)
    assert board.lit(Role.MISSING) == {28} and board.lit(Role.EXTRA) == {24}
    assert board.moves() == []
    board.lift(24).place(28).move(18, 25, 22)
    assert board.moves() == ["d4xb2"]


def test_capture_of_fewer_pieces_than_the_majority_law_requires() -> None:
    board = Board("brazilian", "W:W22:B11,17,18")
    board.move(22, 13, 17).wait()
    assert board.moves() == []
    r = board.last(R.REQUIRED_CAPTURE)
    assert "2 pieces" in r.message
    assert board.lit(Role.CAPTURABLE) == {11, 18}
    board.place(17).lift(13).place(22)
    assert board.kinds()[-1] == "restored"
    board.lift(22).place(8).lift(18, 11)
    assert board.moves() == ["c3xg7"]


def test_portuguese_quality_law_king_first() -> None:
    board = Board("portuguese", "W:W14:B18,K19")
    board.move(14, 21, 18).wait()  # takes the man: the king must be taken
    assert board.moves() == []
    r = board.last(R.REQUIRED_CAPTURE)
    assert "king" in r.message
    assert board.lit(Role.CAPTURABLE) == {19}


def test_stopping_mid_chain_is_reported_when_the_board_settles() -> None:
    board = Board("international", "W:W37:B31,21")
    board.lift(37).place(26).lift(31)
    assert board.kinds() == []  # maybe a touch-down
    board.wait()
    assert board.kinds() == ["required-capture"]
    board.lift(26).place(17).lift(21)
    assert board.moves() == ["37x17"]


# -- illegal and unexplained positions -------------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "a", "b"),
    [("brazilian", 9, 13), ("international", 19, 23), ("portuguese", 22, 18)],
)
def test_wrong_side(variant: str, a: int, b: int) -> None:
    board = Board(variant)
    board.lift(a).place(b)
    assert board.kinds() == []  # waits for the board to settle
    board.wait()
    r = board.last(R.WRONG_SIDE)
    assert r.missing == (a,) and r.extra == (b,)
    assert board.lit(Role.MISSING) == {a} and board.lit(Role.EXTRA) == {b}
    board.lift(b).place(a)
    assert board.kinds() == ["wrong-side", "restored"]
    assert board.moves() == []


def test_backward_man() -> None:
    board = Board("international", "W:W28:B5")
    board.move(28, 32).wait()
    assert board.kinds() == ["backward-man"]
    board.lift(32).place(28)
    board.move(28, 22)
    assert board.moves() == ["28-22"]


def test_piece_on_a_non_playing_cell() -> None:
    board = Board("brazilian")
    board.lift(22).cell("d3", True).wait()
    r = board.last(R.OFF_SQUARE)
    assert r.cells == ("d3",) and r.missing == (22,)
    board.cell("d3", False).place(22)
    assert board.kinds() == ["off-square", "restored"]


def test_own_piece_removed() -> None:
    board = Board("international")
    board.lift(46, 47).wait()
    assert board.last(R.OWN_PIECE_REMOVED).missing == (46, 47)


def test_lifting_a_blocked_piece_and_holding_it() -> None:
    board = Board("international")
    board.lift(46).wait()
    assert board.kinds() == ["no-legal-move"]
    board.place(46)
    assert board.kinds() == ["no-legal-move", "restored"]


def test_captured_piece_left_while_the_opponent_starts_moving() -> None:
    board = Board("international", "W:W37,48:B31,21,10")
    board.lift(37).place(17).lift(21)  # 31 is still on the board
    board.lift(10).wait()  # black starts moving
    r = board.last(R.CAPTURED_PIECE_LEFT)
    assert r.extra == (31,) and r.squares == (31,)
    assert board.moves() == []
    board.lift(31)  # white takes the piece off: the capture stands, black's lift goes on
    assert board.moves() == ["37x17"]
    board.place(15)
    assert board.moves() == ["37x17", "10-15"]


def test_knocked_over_group() -> None:
    board = Board("international")
    board.lift(31, 36, 37, 41).place(26).wait()
    assert board.kinds() == ["knocked-over"]
    r = board.last(R.KNOCKED_OVER)
    assert set(r.missing) == {31, 36, 37, 41} and r.extra == (26,)
    board.lift(26).place(31, 36, 37, 41)
    assert board.kinds() == ["knocked-over", "restored"]
    board.move(32, 28)
    assert board.moves() == ["32-28"]


def test_tournament_irregular_move_then_opponent_plays_on() -> None:
    board = Board("international", "W:W28,45:B5,10", mode="tournament")
    board.move(28, 33).wait()  # a backward man move
    assert board.kinds() == ["backward-man"]
    board.move(10, 14)  # black plays on: the position stands
    assert board.kinds() == ["backward-man", "irregularity-accepted"]
    assert board.moves() == ["10-14"]
    pdn = board.ref.pdn_game().pdn()
    assert '/FEN "B:W33,45:B5,10"/' in pdn


def test_casual_irregular_move_is_not_accepted() -> None:
    board = Board("international", "W:W28,45:B5,10")
    board.move(28, 33).wait().move(10, 14).wait()
    assert board.moves() == []
    assert board.kinds()[0] == "backward-man"


# -- takeback ----------------------------------------------------------------------------------------
def test_takeback_casual_repeatable() -> None:
    board = Board("international")
    board.move(32, 28).move(19, 23).move(28, 19, 23)
    assert board.moves() == ["32-28", "19-23", "28x19"]
    board.lift(19).place(28, 23)  # take back the capture
    assert board.takebacks() == [3]
    board.lift(23).place(19)
    assert board.takebacks() == [3, 2]
    assert board.ref.game.ply == 1
    board.move(18, 23)
    assert board.moves()[-1] == "18-23"


def test_takeback_is_an_irregularity_in_tournament() -> None:
    board = Board("international", mode="tournament")
    board.move(32, 28).lift(28).place(32).wait(0.4)
    assert board.takebacks() == []
    assert board.kinds() == ["takeback"]
    board.lift(32).place(28)
    assert board.kinds() == ["takeback", "restored"]


# -- setup and end -----------------------------------------------------------------------------------
def test_setup_check_before_the_first_move() -> None:
    pos = Position.start("brazilian")
    squares = set(pos.occupied()) - {1, 32}
    board = Board("brazilian", board=squares | {15})
    board.wait()
    r = board.last(R.SETUP)
    assert r.missing == (1, 32) and r.extra == (15,)
    assert board.lit(Role.MISSING) == {1, 32} and board.lit(Role.EXTRA) == {15}
    board.place(1, 32).lift(15)
    assert board.kinds() == ["setup", "setup-ok"]
    board.move(22, 18)
    assert board.moves() == ["c3-d4"]


def test_setup_check_of_a_fen_position() -> None:
    board = Board("portuguese", "W:W14:B18,K19", board=[])
    board.place(14, 18).wait()
    assert board.last(R.SETUP).missing == (19,)
    board.place(19)
    assert board.kinds()[-1] == "setup-ok"


def test_end_by_the_rules_then_no_more_moves() -> None:
    board = Board("international", "W:W28:B23")
    board.move(28, 19, 23)
    (end,) = board.ends()
    assert end.result == "2-0" and end.termination == "no-pieces"
    board.move(19, 14)
    assert board.moves() == ["28x19"]
    assert board.kinds() == ["game-over"]


@pytest.mark.parametrize(
    ("action", "side", "result", "expect"),
    [
        ("resign", Color.WHITE, None, ("0-1", "resignation")),
        ("draw", None, None, ("1/2-1/2", "agreement")),
        ("result", None, "1-0", ("1-0", "result-entered")),
    ],
)
def test_entered_end(action: str, side: Color | None, result: str | None, expect: tuple[str, str]) -> None:
    board = Board("portuguese")
    board.move(10, 14)
    board.action(action, side, result)
    (end,) = board.ends()
    assert (end.result, end.termination) == expect
    board.move(22, 18)
    assert board.moves() == ["10-14"]


def test_new_game_action() -> None:
    board = Board("international")
    board.move(32, 28).action("resign", Color.BLACK)
    board.lift(28).place(32).action("new-game")
    assert board.ref.game.ply == 0
    board.move(33, 28)
    assert board.moves() == ["32-28", "33-28"]


# -- noise -------------------------------------------------------------------------------------------
def test_fast_reply_right_after_a_capture() -> None:
    board = Board("international", "W:W37,48:B31,21,10")
    board.lift(37).place(17).lift(21)
    board.t += 0.3
    from board_hal.debounce import Transition

    board.all += board.pipe.feed(Transition(board.t, 31, False))
    board.all += board.pipe.feed(Transition(board.t + 0.01, 10, False))  # 10 ms later
    board.all += board.pipe.feed(Transition(board.t + 0.4, 15, True))
    board.wait()
    assert board.moves() == ["37x17", "10-15"]
    assert board.kinds() == []


def test_bounce_and_brush_produce_nothing() -> None:
    from board_hal.debounce import Transition

    board = Board("international", "W:WK46:B5")
    feed = board.pipe.feed
    t = 1.0
    for tr in [(46, False), (46, True), (46, False)]:
        board.all += feed(Transition(t, *tr))
        t += 0.0005
    for sq in (41, 37, 32):  # the king brushes the squares it crosses
        board.all += feed(Transition(t, sq, True))
        board.all += feed(Transition(t + 0.015, sq, False))
        t += 0.03
    board.all += feed(Transition(t + 0.1, 28, True))
    board.wait()
    assert board.moves() == ["46-28"]
    assert board.kinds() == []


# -- a way out of every state "in progress from the previous position" (issue 19.1) -----------------
def test_another_piece_put_where_the_last_move_started_is_a_correction_casual() -> None:
    board = Board("brazilian")
    board.move(22, 18)  # 1. c3-d4
    board.lift(23).place(22)  # e3 to c3: the board is the position after 1. e3-d4
    assert board.takebacks() == [1]
    assert board.moves() == ["c3-d4", "e3-d4"]
    assert board.ref.game.move_stack[0].from_square == 23
    board.wait(30)
    assert board.kinds() == []
    assert board.ref.position.occupied() == frozenset(board.ref.occupied)  # in step with the game
    board.move(9, 13)
    assert board.moves()[-1] == "b6-a5"


def test_another_piece_put_where_the_last_move_started_is_reported_in_tournament() -> None:
    board = Board("brazilian", mode="tournament")
    board.move(22, 18)
    board.lift(23).place(22)
    board.wait(0.4)
    assert board.takebacks() == [] and board.moves() == ["c3-d4"]
    assert board.kinds() == ["correction"]
    r = board.last(R.CORRECTION)
    assert r.missing == (23,) and r.extra == (22,) and "e3-d4" in r.message
    assert board.lit(Role.MISSING) == {23} and board.lit(Role.EXTRA) == {22}
    board.move(9, 13)  # black plays on: the position stands
    assert board.kinds() == ["correction", "irregularity-accepted"]
    assert board.ref.position.piece_at(23) is None and board.ref.position.piece_at(22) is not None


def _states_in_progress_from(prev: Position) -> list[frozenset[int]]:
    """Every board a legal move from ``prev`` passes through (captured pieces removed in any
    subset, and the origin lifted with the piece in hand, on a landing or the destination)."""
    from itertools import combinations

    out = set()
    before = prev.occupied()
    for m in prev.legal_moves:
        spots: list[set[int]] = [set(), {m.to_square}] + [{sq} for r in prev.routes(m) for sq in r.path[1:-1]]
        caps = list(m.captured)
        subsets = [set(c) for n in range(len(caps) + 1) for c in combinations(caps, n)][:16]
        for gone in subsets:
            out.add(frozenset(before - gone))
            for spot in spots:
                if spot & (before - {m.from_square}):
                    continue
                out.add(frozenset((before - {m.from_square} - gone) | spot))
    return sorted(out, key=sorted)


@pytest.mark.parametrize("mode", ["casual", "tournament"])
@pytest.mark.parametrize(
    ("variant", "fen", "moves"),
    [
        ("brazilian", None, [(22, 18)]),
        ("brazilian", None, [(22, 18), (11, 15), (18, 11, 15)]),
        ("international", None, [(32, 28), (19, 23), (28, 19, 23)]),
        ("international", "W:WK46,31:B5", [(46, 28)]),
        ("international", "W:WK46,31:B5,14,28", [(46, 10, 28, 14)]),
        ("portuguese", None, [(10, 14)]),
        ("portuguese", "W:W14,K1:B18,23,K27", [(14, 21, 18)]),
    ],
)
def test_every_state_in_progress_from_the_previous_position_has_a_way_out(
    variant: str, fen: str | None, moves: list[tuple[int, ...]], mode: str
) -> None:
    """Left alone, each such board completes a move, is reported, or is corrected: the
    referee never stays silent while the board is out of step with the game."""
    setup = Board(variant, fen, mode=mode)
    for a, b, *caps in moves:
        setup.move(a, b, *caps).wait(0.5)
    assert len(setup.moves()) == len(moves)
    prev = setup.ref.game.positions()[-2]
    e = setup.ref.position.occupied()
    states = _states_in_progress_from(prev)
    assert len(states) >= 3
    for s in states:
        if s == e:
            continue
        board = Board(variant, fen, mode=mode)
        for a, b, *caps in moves:
            board.move(a, b, *caps).wait(0.5)
        board.lift(*sorted(e - s)).place(*sorted(s - e))
        board.wait(5)
        pos = board.ref.position
        live = s in _states_in_progress_from(pos)  # a move under way now
        changed = board.ref.game.ply != len(moves) or board.ref.game.position.occupied() == s
        assert changed or board.ref.report is not None or live, (sorted(s), board.kinds())
        if board.ref.report is not None:
            assert board.leds(), sorted(s)  # an active report lights its squares


# -- sloppy hands: undone disturbances raise no alarm (issue 17) --------------------------------------
def _raw(board: Board, *events: tuple[float, int, bool]) -> None:
    """Raw transitions at times relative to the board's clock."""
    from board_hal.debounce import Transition

    t0 = board.t
    for dt, sq, occ in events:
        board.all += board.pipe.feed(Transition(t0 + dt, sq, occ))
    board.t = t0 + max(dt for dt, _sq, _occ in events)
    board.all += board.pipe.advance(board.t)


@pytest.mark.parametrize("mode", ["casual", "tournament"])
@pytest.mark.parametrize("held", [0.07, 0.15, 0.28, 0.3])
def test_a_brushed_piece_raises_no_alarm_when_a_capture_is_compulsory(mode: str, held: float) -> None:
    # black must capture 19x28 (international); 5 (black, not involved), 45 (white) and 1 (black,
    # cannot capture) are brushed off their sensors and back
    board = Board("international", "B:W23,45:B19,5,1", mode=mode)
    for sq in (5, 45, 1):
        _raw(board, (0.5, sq, False), (0.5 + held, sq, True))
        assert board.kinds() == [] and board.lit(Role.MUST_CAPTURE) == set(), sq
        board.wait(2)
        assert board.kinds() == [], sq
    board.move(19, 28, 23)
    assert board.moves() == ["19x28"]
    assert board.kinds() == []


def test_a_piece_that_cannot_capture_held_up_past_the_grace_period_is_reported() -> None:
    board = Board("international", "B:W23,45:B19,5,1")
    _raw(board, (0.5, 1, False))
    board.wait(0.2)
    assert board.kinds() == []
    board.wait(0.2)  # 0.4 s held: more than a third of a second
    assert board.kinds() == ["required-capture"]
    assert board.lit(Role.MUST_CAPTURE) == {19}
    board.place(1)
    assert board.kinds() == ["required-capture", "restored"]


def test_a_touch_of_ones_own_piece_is_a_touch_move_notice_in_tournament_even_when_brief() -> None:
    board = Board("international", mode="tournament")
    _raw(board, (0.5, 33, False), (0.6, 33, True))
    board.wait(1)
    assert board.kinds() == ["touch-move"]
    _raw(board, (0.5, 1, False), (0.6, 1, True))  # black's piece, white to move: nothing
    _raw(board, (0.5, 45, False), (0.6, 45, True))  # white's piece that cannot move: nothing
    board.wait(1)
    assert board.kinds() == ["touch-move"]


@pytest.mark.parametrize("mode", ["casual", "tournament"])
@pytest.mark.parametrize("rest", [0.15, 0.3, 0.45])
def test_a_king_dragged_slowly_is_one_move(mode: str, rest: float) -> None:
    board = Board("international", "W:WK46:B5", mode=mode)
    steps: list[tuple[float, int, bool]] = [(0.5, 46, False)]
    t = 0.6
    for sq in (41, 37, 32):  # resting on each square it crosses
        steps += [(t, sq, True), (t + rest, sq, False)]
        t += rest + 0.05
    steps.append((t, 28, True))
    _raw(board, *steps)
    board.wait(0.06)  # the debounce window
    # shown at once: the move made (the last move's role), or the king still on its way
    assert board.lit(Role.LAST) == {46, 28} or (board.lit(Role.FROM) == {46} and board.lit(Role.TO) == {28})
    board.wait(2)
    assert board.kinds() == []
    assert [str(m) for m in board.ref.game.move_stack] == [str(board.ref.game.move_stack[0])]
    assert board.ref.game.move_stack[0].path == (46, 28)
    assert "46-28" in board.ref.pdn_game().pdn() and "46-41" not in board.ref.pdn_game().pdn()
    if rest < 1 / 3:
        assert board.moves() == ["46-28"] and board.takebacks() == []  # never read too early


def test_a_king_that_rests_then_slides_on_much_later_is_a_correction_in_tournament() -> None:
    board = Board("international", "W:WK46:B5", mode="tournament")
    board.lift(46).place(37).wait(3).lift(37).place(28).wait(0.4)
    assert board.moves() == ["46-37"]
    assert board.kinds() == ["correction"]


@pytest.mark.parametrize("mode", ["casual", "tournament"])
def test_a_wrong_piece_picked_up_during_the_removals_that_looks_like_another_capture(mode: str) -> None:
    # the king on 49 takes 38, 23, 24 (via 32, 19) or 38, 11, 24 (via 16, 2): both end on 30
    board = Board("international", "W:WK49:B38,23,24,29,11", mode=mode)
    board.lift(49).place(30).lift(38, 24)
    board.lift(11)  # by mistake: the board is the other capture's result for a moment
    board.wait(0.5).place(11)
    board.lift(23)
    board.wait(2)
    (move,) = board.ref.game.move_stack
    assert set(move.captured) == {38, 23, 24}
    assert board.ref.position.piece_at(11) is not None
    # read again, silently: the same travel, the removals told it apart (in tournament mode the
    # removals were out of jump order, which the laws note)
    assert board.kinds() == ([] if mode == "casual" else ["procedure"])
    assert "/FEN" not in board.ref.pdn_game().pdn()


@pytest.mark.parametrize("mode", ["casual", "tournament"])
def test_a_king_dragged_slowly_on_the_last_capture_of_the_game(mode: str) -> None:
    board = Board("international", "W:WK46:B37", mode=mode)
    _raw(board, (0.5, 46, False), (0.7, 37, False), (0.9, 28, True), (1.35, 28, False), (1.4, 23, True))
    _raw(board, (0.45, 23, False), (0.5, 19, True))  # resting longer than the grace on 28 and 23
    board.wait(2)
    assert [str(m) for m in board.ref.game.move_stack] == ["46x19"]
    assert board.kinds() == ([] if mode == "casual" else ["procedure"])  # 37 came off before the landing
    assert [(e.result, e.termination) for e in board.ends()][-1] == ("2-0", "no-pieces")
