"""The public surface of the rules engine: pseudo-legal moves, the move views, the notation
names and the errors they raise (issue 18 §2 and §5)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

import pytest

import rules
from rules import (
    CaptureLaw,
    DraughtsError,
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidResultError,
    Move,
    Position,
    find_variant,
    parse_result,
    perft,
)
from rules.engine import engine_for, make_move
from tests.conftest import random_positions

Key = tuple[int, int, frozenset[int]]


def keys(moves: Iterable[Move]) -> set[Key]:
    return {m.key for m in moves}


# -- pseudo-legal moves -----------------------------------------------------------------------------
def test_pseudo_legal_moves_ignore_the_majority_law_and_compulsory_capture() -> None:
    # Brazilian: 22x15x8 takes two, 22x13 one; 31-26 and 31-27 are plain moves while a capture is due
    pos = Position.from_fen("W:W22,31:B11,17,18", "brazilian")
    assert keys(pos.legal_moves) == {(22, 8, frozenset({11, 18}))}
    assert keys(pos.pseudo_captures()) == {(22, 8, frozenset({11, 18})), (22, 13, frozenset({17}))}
    plain = {(31, 26, frozenset()), (31, 27, frozenset())}
    assert keys(pos.pseudo_legal_moves) == keys(pos.pseudo_captures()) | plain
    assert Move((31, 26)) in pos.pseudo_legal_moves and Move((31, 26)) not in pos.legal_moves
    assert Move((22, 13), (17,)) in pos.pseudo_legal_moves and Move((22, 13), (17,)) not in pos.legal_moves
    assert len(pos.pseudo_legal_moves) == 4 and len(pos.legal_moves) == 1


def test_pseudo_captures_ignore_the_quality_law() -> None:
    # Portuguese: taking the king on 19 is the law (PT 3.1.1c); taking the man on 18 is pseudo-legal
    pos = Position.from_fen("W:W14:B18,K19", "portuguese")
    assert keys(pos.legal_moves) == {(14, 23, frozenset({19}))}
    assert keys(pos.pseudo_captures()) == {(14, 23, frozenset({19})), (14, 21, frozenset({18}))}


def test_a_pseudo_legal_capture_still_takes_all_it_can_on_its_route() -> None:
    # the man on 22 that jumps 17 must go on over 9 (a capture is not stopped half-way); a
    # king lands where its capture continues (INT 4.6)
    pos = Position.from_fen("W:W22:B17,9,18", "brazilian")
    assert keys(pos.pseudo_captures()) == {(22, 6, frozenset({17, 9})), (22, 15, frozenset({18}))}
    king = Position.from_fen("W:WK46:B41,32,23", "international")
    assert len(king.pseudo_captures()) == 4
    assert all(len(m.captured) == 3 for m in king.pseudo_captures())


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_pseudo_legal_moves_are_the_legal_moves_of_a_free_capture_law(variant: str) -> None:
    """Against the way the referee found them before: a copy of the variant whose capture law
    is free; and with the legal moves inside them, the plain moves always there."""
    v = find_variant(variant)
    free = engine_for(dataclasses.replace(v, capture_law=CaptureLaw.FREE, name="free"))
    positions = random_positions(variant, 1500, seed=18)
    with_choice = 0
    for pos in positions:
        own_m, own_k, opp_m, opp_k, side = pos._sides()
        sq = pos.geometry.square_of_bit
        expected = {
            (sq[o], sq[d], frozenset(sq[b] for b in routes[0][1]))
            for o, d, _cm, _p, routes in free.captures(own_m, own_k, opp_m, opp_k, side)
            if routes is not None
        }
        assert keys(pos.pseudo_captures()) == expected, pos.fen()
        legal = keys(pos.legal_moves)
        pseudo = keys(pos.pseudo_legal_moves)
        assert legal <= pseudo, pos.fen()
        plain = {k for k in pseudo if not k[2]}
        assert pseudo == plain | expected
        if not pos.has_captures():
            assert plain == legal
        with_choice += len(expected) > len({m.key for m in pos.capture_moves()})
    assert with_choice >= 10  # the sample holds positions where the law chooses


# -- one make-move -------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_perft_and_apply_make_the_same_children(variant: str) -> None:
    for pos in random_positions(variant, 60, seed=7):
        assert perft(pos, 2) == sum(len(child.legal_moves) for _m, child in pos.children())
        own_m, own_k, opp_m, opp_k, _side = pos._sides()
        for raw, (_move, child) in zip(pos._raw_moves(), pos.children(), strict=True):
            after = make_move(raw, own_m, own_k, opp_m, opp_k)
            assert after == child._sides()[:4]


def test_a_capture_ending_where_it_started_keeps_the_piece() -> None:
    pos = Position.from_fen("W:W18:B6,7,14,15", "brazilian")
    (move,) = pos.legal_moves
    after = pos.apply(move)
    assert after.squares(rules.WHITE) == [18] and after.squares(rules.BLACK) == []
    assert perft(pos, 1) == 1


# -- the legal-move view ----------------------------------------------------------------------------
def test_legal_moves_is_a_view_with_in_len_bool_and_iteration() -> None:
    pos = Position.start("international")
    view = pos.legal_moves
    assert isinstance(view, rules.LegalMoves)
    assert len(view) == view.count() == 9 and bool(view)
    assert Move((32, 28)) in view and Move((32, 23)) not in view and "32-28" not in view
    assert [str(m) for m in view] == [str(m) for m in view]  # iterable again
    assert {m.numeric() for m in view} == {
        "31-26",
        "31-27",
        "32-27",
        "32-28",
        "33-28",
        "33-29",
        "34-29",
        "34-30",
        "35-30",
    }
    assert repr(view).startswith("<LegalMoves (") and "32-28" in repr(view)
    blocked = Position.from_fen("W:W46:B41,37", "international")
    assert not blocked.legal_moves and len(blocked.legal_moves) == 0 and list(blocked.legal_moves) == []


def test_a_games_legal_moves_are_none_once_it_has_ended() -> None:
    game = Game("brazilian")
    assert len(game.legal_moves) == 7
    game.resign(rules.WHITE)
    assert len(game.legal_moves) == 0 and Move((22, 18)) not in game.legal_moves
    assert Move((22, 18)) in game.position.legal_moves


# -- notation names and errors ----------------------------------------------------------------------
def test_one_naming_pattern_for_notation() -> None:
    pos = Position.start("international")
    move = pos.parse_pdn("32-28")
    assert pos.pdn(move) == "32-28"
    game = Game("international")
    assert game.push_pdn("32-28") == move
    for old in ("move_pdn", "parse_move"):
        assert not hasattr(pos, old)


@pytest.mark.parametrize("text", ["32x", "hello", "32-99", "", "32/28"])
def test_text_that_is_not_a_move_raises_invalid_move_error(text: str) -> None:
    pos = Position.start("international")
    with pytest.raises(InvalidMoveError, match="invalid move text") as info:
        pos.parse_pdn(text)
    assert not isinstance(info.value, IllegalMoveError)
    assert isinstance(info.value, DraughtsError) and isinstance(info.value, ValueError)
    with pytest.raises(InvalidMoveError):
        Game("international").push_pdn(text)


def test_a_move_that_is_not_legal_raises_illegal_move_error() -> None:
    pos = Position.start("international")
    with pytest.raises(IllegalMoveError, match="illegal move: '32-23'") as info:
        pos.parse_pdn("32-23")
    assert not isinstance(info.value, InvalidMoveError)
    assert isinstance(info.value, DraughtsError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("text", ["1-2", "white wins", "3-0", "x" * 500])
def test_parse_result_raises_a_draughts_error(text: str) -> None:
    with pytest.raises(InvalidResultError, match="invalid result") as info:
        parse_result(text)
    assert isinstance(info.value, DraughtsError) and isinstance(info.value, ValueError)
    assert len(str(info.value)) < 80  # one line, however long the input


def test_the_new_names_are_exported() -> None:
    for name in ("InvalidMoveError", "InvalidResultError", "LegalMoves", "PseudoLegalMoves"):
        assert name in rules.__all__ and hasattr(rules, name)
