"""What a player reads and sees in the reports the referee raises: their exact text, the
squares they name, the LEDs left lit, and the position that stands after an irregularity
(each of these was changed by a mutant that no other test noticed; see docs/mutation.md)."""

from __future__ import annotations

from board_hal.debounce import Transition
from referee import Action, Link, Referee, Report, ReportKind, Role, Takeback, reconstruct
from rules import Color, Position
from tests.referee.driver import Board

R = ReportKind


def test_a_report_still_active_when_the_move_is_completed_is_cleared_with_a_restored_notice() -> None:
    board = Board("brazilian")
    board.lift(22).cell("d3", True).wait()  # c3 set down beside the squares
    assert board.kinds() == ["off-square"]
    board.cell("d3", False).place(18)  # and then on d4: the move is made, the report is over
    assert board.moves() == ["c3-d4"]
    assert board.kinds() == ["off-square", "restored"]
    assert board.ref.report is None
    assert board.leds() == {22: Role.LAST, 18: Role.LAST}


def test_an_adjustment_notice_says_the_touched_piece_must_be_moved_in_tournament() -> None:
    board = Board("portuguese", mode="tournament")
    board.lift(10).place(10).move(11, 15)
    touch = board.reports()[0]
    assert touch.squares == (10,) and touch.message == (
        "the piece on 10 was touched and must be moved (unless it was an announced adjustment)"
    )
    assert board.moves() == ["11-15"] and board.kinds() == ["touch-move"]  # not repeated for the move


def test_a_piece_that_is_not_the_one_played_lifted_during_the_move_is_noted_once() -> None:
    board = Board("portuguese", mode="tournament")
    board.lift(10, 11).place(15, 10)  # 10 lifted and put back while 11 went to 15
    assert board.moves() == ["11-15"]
    (r,) = board.reports()
    assert r.kind is R.TOUCH_MOVE and r.squares == (10, 11)
    assert r.message == "the piece on 10 was touched but 11 was played"
    assert r.params == {"touched": 10, "played": 11}
    assert board.ref.report is None  # a notice: nothing to restore, nothing lit as an error
    assert board.leds() == {11: Role.LAST, 15: Role.LAST}


def test_the_setup_report_says_what_to_put_and_what_to_remove() -> None:
    pos = Position.start("brazilian")
    board = Board("brazilian", board=set(pos.occupied()) - {1, 32} | {15})
    board.wait()
    r = board.last(R.SETUP)
    assert r.message == "set up the position: put pieces on b8, g1; remove the pieces from e5"
    assert r.squares == (1, 15, 32)


def test_a_link_gap_report_says_how_to_restore_the_last_known_position() -> None:
    ref = Referee("brazilian")
    start = ref.position.occupied()
    # c3-d4 and f6 in the hand, or a four-move sequence: they end alike, nothing is recorded
    out = ref.resync(start - {22, 11} | {18}, 2.0)
    (r,) = [v for v in out if isinstance(v, Report)]
    assert out == [r] and r.kind is R.LINK_GAP and r.squares == (11, 18, 22)
    assert r.message == (
        "the moves made while the board was not connected cannot be told apart: restore the last "
        "known position (the game on the page): put pieces on f6, c3; remove the pieces from d4"
    )


def test_a_report_active_when_the_link_comes_back_with_a_move_is_cleared_before_the_move_is_recorded() -> None:
    board = Board("international")
    board.lift(46, 47).wait()
    assert board.kinds() == ["own-piece-removed"]
    start = Position.start("international").occupied()
    board.pipe.feed(Link(board.t + 1, "down"))
    out = board.pipe.feed(Link(board.t + 5, "up", board=tuple(sorted(start - {32} | {28}))))
    assert [getattr(v, "kind", None) for v in out][:2] == [R.RESTORED, R.RECONSTRUCTED]
    assert board.ref.game.ply == 1 and board.ref.report is None
    assert board.leds() == {32: Role.LAST, 28: Role.LAST}


def test_a_piece_on_a_cell_when_the_link_comes_back_is_seen_when_it_is_taken_away() -> None:
    board = Board("brazilian")
    start = tuple(sorted(board.ref.position.occupied()))
    board.pipe.feed(Link(board.t + 1, "down"))
    board.t += 5
    board.pipe.feed(Link(board.t, "up", board=start, cells=("d3",)))
    assert board.ref.cells == {"d3"}
    board.cell("d3", False)
    assert board.ref.cells == set()
    board.move(22, 18)
    assert board.moves() == ["c3-d4"]


def test_captured_piece_left_says_which_to_remove() -> None:
    board = Board("international", "W:W37,48:B31,21,10")
    board.lift(37).place(17).lift(21)
    board.lift(10).wait()
    assert board.last(R.CAPTURED_PIECE_LEFT).message == "remove the captured piece on 31 before the next move"


def test_pieces_out_of_place_name_every_square_and_what_to_put_back() -> None:
    board = Board("international")
    board.lift(31, 36, 37, 41).place(26).wait()
    r = board.last(R.KNOCKED_OVER)
    assert r.squares == (26, 31, 36, 37, 41)
    assert r.message == "pieces are out of place: put back 31, 36, 37, 41"
    extra = Board("international")
    extra.place(23, 24).wait()  # two pieces from outside the board, none missing
    r = extra.last(R.KNOCKED_OVER)
    assert r.squares == (23, 24) and r.message == "pieces are out of place"
    assert extra.lit(Role.EXTRA) == {23, 24}


def test_an_irregular_king_move_that_stands_keeps_the_king() -> None:
    board = Board("international", "W:WK28,45:B5,10", mode="tournament")
    board.move(28, 29).wait()  # a king cannot go sideways
    assert board.kinds() == ["illegal-square"]
    board.move(10, 14)  # black plays on: the position stands
    assert board.kinds() == ["illegal-square", "irregularity-accepted"]
    accepted = board.last(R.IRREGULARITY_ACCEPTED)
    stood = Position.from_fen(str(accepted.params["fen"]), "international")
    king = stood.piece_at(29)
    assert king is not None and king.king and king.color is Color.WHITE
    assert stood.piece_at(28) is None and stood.turn is Color.BLACK
    after = board.ref.position.piece_at(29)
    assert after is not None and after.king


def test_a_takeback_is_written_for_the_page_as_its_ply_and_time() -> None:
    board = Board("brazilian")
    board.move(22, 18).lift(18).place(22)
    (tb,) = [v for v in board.all if isinstance(v, Takeback)]
    assert tb.to_json() == {"type": "takeback", "ply": 1, "t": round(tb.t, 3)}


def test_the_search_after_a_link_gap_looks_at_no_more_positions_than_its_bound() -> None:
    pos = Position.start("brazilian")
    c3d4 = next(m for m in pos.legal_moves if pos.pdn(m) == "c3-d4")
    goal = pos.apply(c3d4).occupied()
    # one ply: the start and its 7 children, 8 positions
    assert reconstruct(pos, goal, 1, max_nodes=8).moves == (c3d4,)
    cut = reconstruct(pos, goal, 1, max_nodes=7)
    assert not cut.complete and not cut.unique and cut.ambiguous


def test_another_capture_played_instead_of_the_one_that_ended_the_game_is_not_read_again() -> None:
    # 28x19 and 29x18 both take black's last piece: the game is over after the first
    board = Board("international", "W:W28,29:B23", mode="tournament")
    board.move(28, 19, 23)
    assert [e.termination for e in board.ends()] == ["no-pieces"]
    board.lift(19).place(28).lift(29).place(18).wait()
    assert board.moves() == ["28x19"] and board.takebacks() == []
    assert board.kinds() == ["game-over"]


def test_a_piece_touched_twice_before_the_move_is_noted_once_in_tournament() -> None:
    board = Board("international", mode="tournament")
    board.lift(32).place(32).lift(32).place(32)
    assert board.kinds() == ["touch-move"]
    assert board.last(R.TOUCH_MOVE).params == {"touched": 32}
    board.move(32, 28)
    assert board.moves() == ["32-28"] and board.kinds() == ["touch-move"]
    board.lift(19).place(19)  # black's turn: a new notice for black's own touch
    assert board.kinds() == ["touch-move", "touch-move"]


def test_a_capture_completed_while_a_report_is_active_notes_the_procedure_and_clears_the_report() -> None:
    board = Board("brazilian", "W:W22:B18", mode="tournament")  # c3 takes d4, lands on e5
    board.lift(22, 18).cell("d3", True).wait()  # d4 taken off first and set down beside the squares
    assert board.kinds() == ["off-square"]
    board.cell("d3", False).place(15)
    assert board.moves() == ["c3xe5"]
    assert board.kinds() == ["off-square", "procedure", "restored"]
    assert board.ref.report is None


def test_another_piece_held_up_on_the_computers_turn_is_reported_once_the_board_is_still() -> None:
    b = Board("international")
    b.all += b.pipe.feed(Action(0.1, "computer", Color.BLACK, level=3))
    b.move(32, 28)
    b.all += b.pipe.feed(Action(b.t + 0.1, "computer-move", move="19-23"))
    b.lift(18)  # a black piece that can move, but not the computer's
    assert b.kinds() == []  # it may be put back
    b.wait(2)
    r = b.last(R.COMPUTER_MOVE)
    assert r.message == "play the computer's move 19-23: put the piece back on 18"
    assert r.missing == (18,) and r.extra == ()
    assert b.ref.reports == b.reports()  # the referee's own record of its reports


def test_the_moves_found_after_a_link_gap_are_told_in_one_report() -> None:
    ref = Referee("brazilian")
    pos = ref.position
    c3d4 = next(m for m in pos.legal_moves if pos.pdn(m) == "c3-d4")
    c3b4 = next(m for m in pos.legal_moves if pos.pdn(m) == "c3-b4")
    h6g5 = next(m for m in pos.apply(c3b4).legal_moves if pos.apply(c3b4).pdn(m) == "h6-g5")
    (one,) = [v for v in Referee("brazilian").resync(pos.apply(c3d4).occupied(), 1.0) if isinstance(v, Report)]
    assert one.message == "the board was not connected: 1 move made meanwhile recorded (c3-d4)"
    out = ref.resync(pos.apply(c3b4).apply(h6g5).occupied(), 1.0)
    (two,) = [v for v in out if isinstance(v, Report)]
    assert two.message == "the board was not connected: 2 moves made meanwhile recorded (c3-b4 h6-g5)"
    assert two.params == {"moves": ["c3-b4", "h6-g5"]}


def test_an_off_square_report_names_the_cells_for_the_page() -> None:
    board = Board("brazilian")
    board.lift(22).cell("d3", True).wait()
    data = board.last(R.OFF_SQUARE).to_json()
    assert data["cells"] == ["d3"] and data["missing"] == [22]


def test_a_gap_that_ends_with_the_reply_in_the_hand_is_found_with_the_reply_under_way() -> None:
    pos = Position.start("brazilian")
    for text in ["g3-h4", "h6-g5", "e3-f4", "g5xe3", "f2xd4", "b6-c5"]:
        pos = pos.apply(pos.parse_pdn(text))
    capture = pos.parse_pdn("d4xb6")
    after = pos.apply(capture)
    a7 = after.parse_pdn("a7xc5").from_square
    found = reconstruct(pos, after.occupied() - {a7})  # d4xb6, and black's a7 lifted to take back
    assert found.unique and found.moves == (capture,) and found.under_way
    assert not reconstruct(pos, after.occupied()).under_way  # d4xb6 and nothing more


def test_tournament_takeback_and_correction_messages() -> None:
    board = Board("brazilian", mode="tournament")
    board.move(22, 18).lift(18).place(22).wait(0.4)
    assert board.last(R.TAKEBACK).message == "the last move was taken back: put it back"
    board.lift(22).place(17).wait(0.4)  # c3 moved again, now to b4
    assert board.last(R.CORRECTION).message == "a piece was moved again after it was released"


def test_the_opponent_holding_a_piece_to_play_on_from_an_irregular_position_raises_nothing() -> None:
    board = Board("brazilian", mode="tournament")
    board.move(22, 18)
    board.lift(18).place(17).wait(0.4)  # white moves again: a correction
    board.lift(9).wait(3)  # black thinks with a piece in the hand, then plays on
    board.place(13)
    assert board.kinds() == ["correction", "irregularity-accepted"]


def test_a_report_is_dated_when_the_board_had_been_still_for_the_settle_time() -> None:
    ref = Referee("brazilian")
    ref.feed(Transition(1.0, 22, False))
    ref.feed(Transition(1.5, 19, True))  # c3 put on a square no move reaches
    (r,) = [v for v in ref.tick(10.0) if isinstance(v, Report)]
    assert r.t == 2.5
