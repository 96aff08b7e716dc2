"""The rest of the rules engine's public surface: positions built by hand, FEN and move text in
a notation other than the variant's, the text picture, the draw thresholds at their smallest,
a finished game, copies, and the small helpers other packages lean on (the referee, the engine,
the page). Each test pins behaviour that a mutation run showed no other test of tests/rules
checked (docs/mutation.md)."""

from __future__ import annotations

import pytest

from rules import (
    AmbiguousMoveError,
    Color,
    Game,
    IllegalMoveError,
    InvalidSquareError,
    Move,
    Outcome,
    Piece,
    Position,
    Termination,
    find_variant,
    geometry_for,
    parse_result,
)
from rules.engine import engine_for
from tests.conftest import random_positions

VARIANTS = ["brazilian", "international", "portuguese"]


# -- positions built from square lists ----------------------------------------------------------
def test_two_pieces_on_one_square_are_refused_with_the_square_named() -> None:
    with pytest.raises(InvalidSquareError, match=r"^square 5 holds two pieces$"):
        Position("brazilian", white_men=[5], black_men=[5])
    with pytest.raises(InvalidSquareError, match=r"^square 31 holds two pieces$"):
        Position("international", white_men=[31, 32], white_kings=[31])
    # one square each is fine
    pos = Position("brazilian", white_men=[22], black_kings=[5])
    assert pos.pieces() == {5: Piece(Color.BLACK, True), 22: Piece(Color.WHITE, False)}


def test_pieces_occupied_and_with_turn() -> None:
    pos = Position.from_fen("W:W31,K40:B19,K4", "international")
    assert pos.pieces() == {
        4: Piece(Color.BLACK, True),
        19: Piece(Color.BLACK, False),
        31: Piece(Color.WHITE, False),
        40: Piece(Color.WHITE, True),
    }
    assert list(pos.pieces()) == [4, 19, 31, 40]  # in square order
    assert [pos.piece_at(sq) for sq in (4, 19, 31, 40, 5)] == [*pos.pieces().values(), None]
    assert [pos.piece_at(sq).king for sq in (4, 19, 31, 40)] == [True, False, False, True]  # type: ignore[union-attr]
    assert pos.occupied() == frozenset({4, 19, 31, 40})
    assert Position.start("brazilian").occupied() == frozenset(range(1, 13)) | frozenset(range(21, 33))
    black = pos.with_turn(Color.BLACK)
    assert black.turn is Color.BLACK and black.fen() == "B:W31,K40:BK4,19"
    assert black.pieces() == pos.pieces() and black != pos
    assert black.with_turn(Color.WHITE) == pos
    assert {str(m) for m in black.legal_moves} != {str(m) for m in pos.legal_moves}


def test_the_text_picture_of_a_position() -> None:
    pos = Position.from_fen("B:W22,K32:B9,K1", "brazilian")
    assert pos.diagram() == "\n".join(
        [
            " 8   B   .   .   .",
            " 7 .   .   .   .  ",
            " 6   b   .   .   .",
            " 5 .   .   .   .  ",
            " 4   .   .   .   .",
            " 3 .   w   .   .  ",
            " 2   .   .   .   .",
            " 1 .   .   .   W  ",
            "   a b c d e f g h",
        ]
    )
    assert str(pos) == pos.diagram()
    # Portuguese: h1 is the dark corner; International: ten ranks, the numbers right-aligned
    assert Position.start("portuguese").diagram().splitlines()[-2] == " 1   w   w   w   w"
    ten = Position.start("international").diagram().splitlines()
    assert ten[0] == "10   b   b   b   b   b" and ten[-1] == "   a b c d e f g h i j"


def test_playable_cells() -> None:
    br, pt, it = (geometry_for(find_variant(v)) for v in ("brazilian", "portuguese", "international"))
    assert br.is_playable_cell(0, 0) and not br.is_playable_cell(1, 0)  # a1 dark, b1 light
    assert pt.is_playable_cell(7, 0) and not pt.is_playable_cell(0, 0)  # h1 dark, a1 light
    assert it.is_playable_cell(9, 9) and not it.is_playable_cell(0, 9)
    for geo in (br, pt, it):
        size = geo.size
        assert not any(geo.is_playable_cell(f, r) for f, r in ((-1, 0), (0, -1), (size, 0), (0, size)))
        cells = {(f, r) for f in range(size) for r in range(size) if geo.is_playable_cell(f, r)}
        assert cells == {geo.coord(sq) for sq in geo.squares()}


# -- notation: the one asked for, not the variant's ---------------------------------------------
def test_fen_and_moves_in_the_other_notation() -> None:
    pos = Position.from_fen("W:Wc3,e3:Bd4", "brazilian")
    assert pos.fen() == "W:Wc3,e3:Bd4"
    assert pos.fen("numeric") == "W:W22,23:B18"
    assert sorted(pos.pdn(m) for m in pos.legal_moves) == ["c3xe5", "e3xc5"]
    assert sorted(pos.pdn(m, "numeric") for m in pos.legal_moves) == ["22x15", "23x14"]
    it = Position.from_fen("W:W31,32,33,K45:B1", "international")
    assert it.fen("algebraic") == "W:Wb4,d4,f4,Kj2:Bb10"
    assert it.pdn(Move((31, 26)), "algebraic") == "b4-a5"


def test_a_capture_is_written_short_unless_its_ends_are_ambiguous() -> None:
    pos = Position.from_fen("W:W28,33:B22,23,12", "international")
    (move,) = pos.legal_moves
    assert pos.pdn(move) == "28x8" and move.numeric() == "28x17x8"
    assert pos.pdn(move, full=True) == "28x17x8"
    # two captures from 4 to 15 with different pieces taken: the full path says which
    amb = Position.from_fen("W:WK4:B13,20,32,37", "international")
    assert sorted(amb.pdn(m) for m in amb.legal_moves) == ["4x27x38x15", "4x31x42x15"]


# -- results and finished games -------------------------------------------------------------------
def test_a_result_written_with_the_half_sign() -> None:
    assert parse_result("½-½") is None
    assert parse_result(" ½-½ ") is None
    assert parse_result("0-2") is Color.BLACK and parse_result("2-0") is Color.WHITE


def test_a_finished_game_refuses_moves_unless_told_to_go_on() -> None:
    g = Game("brazilian", "W:WKa1:BKb8", kings_only_moves=1)
    g.push_pdn("a1-b2")
    g.push_pdn("b8-a7")
    assert g.outcome() is not None
    move = next(iter(g.position.legal_moves))
    with pytest.raises(IllegalMoveError, match=r"\(the game is over\)$"):
        g.push(move)
    assert g.ply == 2
    assert g.push(move, after_end=True) == move and g.ply == 3


def test_the_smallest_kings_only_threshold() -> None:
    # one move by each player with kings only: a draw (RULES.md: "N moves by each player")
    g = Game("brazilian", "W:WKa1:BKb8", kings_only_moves=1)
    g.push_pdn("a1-b2")
    assert g.outcome() is None
    g.push_pdn("b8-a7")
    assert g.outcome() == Outcome(Termination.KINGS_ONLY, None)
    assert g.result() == "1/2-1/2"
    # 0 switches the rule off (the 1K v 1K small ending still counts its five moves)
    off = Game("brazilian", "W:WKa1:BKb8", kings_only_moves=0)
    off.push_pdn("a1-b2")
    off.push_pdn("b8-a7")
    assert off.outcome() is None and off.result() == "*"


def test_pop_from_a_game_with_no_moves() -> None:
    with pytest.raises(IndexError, match=r"^pop from a game with no moves$"):
        Game("international").pop()


def test_a_copy_plays_on_alone() -> None:
    g = Game("international", kings_only_moves=7, repetition_count=4)
    g.push_pdn("32-28")
    g.agree_draw()
    c = g.copy()
    assert c.kings_only_moves == 7 and c.repetition_count == 4 and c.outcome() == g.outcome()
    c.set_result("*")
    c.push_pdn("19-23")
    assert c.ply == 2 and c.fen() == "W:W28,31,33-50:B1-18,20,23"
    assert g.ply == 1 and g.fen() == "B:W28,31,33-50:B1-20" and g.outcome() is not None
    assert [str(m) for m in g.move_stack] == ["32-28"] and len(g.positions()) == 2
    g.set_result("*")
    g.pop()
    assert c.ply == 2 and [str(m) for m in c.move_stack] == ["32-28", "19-23"]


# -- the plain-move count the engine's search uses --------------------------------------------------
@pytest.mark.parametrize("variant", VARIANTS)
def test_count_quiet_counts_the_plain_moves(variant: str) -> None:
    eng = engine_for(find_variant(variant))
    for pos in random_positions(variant, 150, seed=11, plies=(10, 120)):
        for side_pos in (pos, pos.with_turn(pos.turn.other)):
            sides = side_pos._sides()
            assert eng.count_quiet(*sides) == len(eng.quiet_moves(*sides)), side_pos.fen()


def test_an_ambiguous_move_names_every_reading_in_full() -> None:
    pos = Position.from_fen("W:WK4:B13,20,32,37", "international")
    with pytest.raises(AmbiguousMoveError, match=r"^ambiguous move: '4x15' could be 4x27x38x15, 4x31x42x15$") as info:
        pos.parse_pdn("4x15")
    assert sorted(sorted(m.captured) for m in info.value.candidates) == [[13, 20, 32], [13, 20, 37]]  # type: ignore[attr-defined]


def test_cells_and_squares_by_name() -> None:
    br = geometry_for(find_variant("brazilian"))
    assert [br.parse_cell(t) for t in ("a1", "h8", " B1 ", "h1")] == [(0, 0), (7, 7), (1, 0), (7, 0)]
    with pytest.raises(InvalidSquareError, match=r"^no cell 'a9' on a 8x8 board$"):
        br.parse_cell("a9")
    # a light square is named as such; a name off the board is not a square at all
    for text in ("a8", "b1", "h1"):
        with pytest.raises(InvalidSquareError, match=rf"^'{text}' is not a playing square$"):
            br.parse_square(text)
    for text in ("i1", "a9", "a0"):
        with pytest.raises(InvalidSquareError, match=rf"^no square '{text}' on a 8x8 board$"):
            br.parse_square(text)


def test_an_empty_fen_field_is_skipped() -> None:
    assert Position.from_fen("W:W31-50::B1-20", "international") == Position.start("international")
    assert Position.from_fen("W:W31-50:B1-20:", "international") == Position.start("international")
