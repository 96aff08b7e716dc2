"""One known position per rule, with its exact list of legal moves.

Test names carry the article they check (RULES.md: INT = FMJD laws, PT = Portuguese
federation, BR/FEN = Brazilian rules). Moves are compared as sets of full paths
(origin, every landing square); each distinct move by one of its routes is enough
because ``routes`` are compared separately where they matter.
"""

from __future__ import annotations

import json

import pytest

from rules import Move, Position
from tests.conftest import shared_path


def moves(variant: str, fen: str) -> set[tuple[int, int, frozenset[int]]]:
    return {m.key for m in Position.from_fen(fen, variant).legal_moves}


def keys(*texts: str) -> set[tuple[int, int, frozenset[int]]]:
    """Expected moves written as ``from-to`` or ``fromxto/captured,captured``."""
    out = set()
    for t in texts:
        if "/" in t:
            path, caps = t.split("/")
            sq = [int(x) for x in path.split("x")]
            out.add((sq[0], sq[-1], frozenset(int(c) for c in caps.split(","))))
        else:
            a, b = t.split("-")
            out.add((int(a), int(b), frozenset()))
    return out


# -- plain moves --------------------------------------------------------------------------------
def test_int_3_4_man_moves_forward_one_square() -> None:
    assert moves("international", "W:W28:B5") == keys("28-22", "28-23")
    assert moves("international", "B:W50:B23") == keys("23-28", "23-29")


def test_pt_2_2_8_man_moves_forward_portuguese_numbering() -> None:
    # square 14 is d4 in Portuguese numbering; White moves up to 18 (e5) and 19 (c5)
    assert moves("portuguese", "W:W14:B32") == keys("14-18", "14-19")


def test_br_man_moves_forward_edge() -> None:
    # a3 (21) on the edge has one forward square, b4 (17)
    assert moves("brazilian", "W:W21:B4") == keys("21-17")


def test_int_3_9_flying_king_moves_any_distance() -> None:
    got = moves("international", "W:WK46:B5")
    assert got == keys("46-41", "46-37", "46-32", "46-28", "46-23", "46-19", "46-14", "46-10")


def test_int_3_9_king_blocked_by_own_piece() -> None:
    assert moves("international", "W:WK46,28:B5") == keys("46-41", "46-37", "46-32", "28-22", "28-23")


# -- captures ------------------------------------------------------------------------------------
def test_int_4_1_capture_is_compulsory() -> None:
    # a plain move is available but the capture must be played
    assert moves("international", "W:W32,45:B27") == keys("32x21/27")


def test_int_4_2_man_captures_backward() -> None:
    assert moves("international", "W:W23:B28") == keys("23x32/28")


def test_br_man_captures_backward() -> None:
    assert moves("brazilian", "W:W18,28:B22") == keys("18x25/22")


def test_pt_2_2_8_man_does_not_capture_backward() -> None:
    assert moves("portuguese", "W:W14:B10") == keys("14-18", "14-19")


def test_int_4_3_king_captures_at_distance_lands_anywhere_beyond() -> None:
    # king on 46 takes 28 (far up the long diagonal) and may land on 23, 19, 14, 10 or 5
    got = moves("international", "W:WK46:B28")
    assert got == {(46, s, frozenset({28})) for s in (23, 19, 14, 10, 5)}


def test_int_4_3_king_cannot_jump_two_adjacent_pieces() -> None:
    assert moves("international", "W:WK46:B28,23") == keys("46-41", "46-37", "46-32")


def test_int_4_5_multi_capture_is_one_move() -> None:
    assert moves("international", "W:W37:B31,21") == keys("37x26x17/31,21")


def test_int_4_6_king_must_land_where_capture_continues() -> None:
    # after taking 28 the king must stop on 19 (from where it takes 24); 23, 14, 10, 5 are not allowed
    got = moves("international", "W:WK46:B28,24")
    assert got == {(46, 30, frozenset({28, 24})), (46, 35, frozenset({28, 24}))}


def test_int_4_8_captured_pieces_block_turkish_strike() -> None:
    # py-draughts issue: the king may not cross square 32 twice; 41 and 6 survive
    assert moves("international", "B:W6,24,28,38,41:B13,K49") == keys("49x32x19x30/24,28,38", "49x32x19x35/24,28,38")


def test_int_4_8_piece_cannot_be_jumped_twice_circular_capture() -> None:
    got = Position.from_fen("W:WK2:B7,8,17,18", "international")
    (only,) = got.legal_moves
    assert only.key == (2, 2, frozenset({7, 8, 17, 18}))
    assert {r.path for r in got.routes(only)} == {(2, 11, 22, 13, 2), (2, 13, 22, 11, 2)}


def test_fen_18_two_adjacent_enemy_pieces_cannot_be_jumped_brazilian() -> None:
    assert moves("brazilian", "W:W22:B18,15") == keys("22-17")


def test_int_4_13_majority_law() -> None:
    # taking two (37x26x17) beats taking one (37x28... no: 32x21)
    assert moves("international", "W:W37,32:B31,21,27") == keys("37x26x17/31,21")


def test_int_4_14_kings_and_men_count_the_same() -> None:
    assert moves("international", "W:W32:B27,K28") == keys("32x21/27", "32x23/28")


def test_br_majority_law() -> None:
    assert moves("brazilian", "W:W22:B11,17,18") == keys("22x15x8/11,18")


def test_pt_3_1_1b_quantity_first() -> None:
    assert moves("portuguese", "W:W14:BK18,19,28") == keys("14x23x32/19,28")


def test_pt_3_1_1c_quality_most_kings() -> None:
    assert moves("portuguese", "W:W14:B18,K19") == keys("14x23/19")
    assert moves("portuguese", "W:W14:B18,K19,26,28") == keys("14x23x32/19,28")


def test_br_no_quality_law() -> None:
    # the same position as the Portuguese quality test, in Brazilian numbering: both captures
    assert moves("brazilian", "W:W18:B14,K15") == keys("18x9/14", "18x11/15")


def test_int_4_15_man_passing_crown_row_stays_man() -> None:
    pos = Position.from_fen("W:W13:B9,10", "international")
    (move,) = pos.legal_moves
    assert move.path == (13, 4, 15) and not move.promotes
    after = pos.apply(move)
    assert after.piece_at(15) == (after.piece_at(15)[0], False)  # type: ignore[index]


def test_br_man_passing_crown_row_stays_man() -> None:
    pos = Position.from_fen("W:W10:B7,8", "brazilian")
    (move,) = pos.legal_moves
    assert move.path == (10, 3, 12) and not move.promotes


def test_int_3_7_promotion_on_ending_on_far_row() -> None:
    pos = Position.from_fen("W:W6:B45", "international")
    got = {m.path: m.promotes for m in pos.legal_moves}
    assert got == {(6, 1): True}
    after = pos.apply(Move((6, 1)))
    assert after.piece_at(1).king  # type: ignore[union-attr]


def test_pt_2_2_6_promotion_and_no_king_move_in_same_turn() -> None:
    # a Portuguese man reaching the far row by capture is crowned but the move ends
    pos = Position.from_fen("W:W22:B26,K20", "portuguese")
    (move,) = pos.legal_moves
    assert move.captured == (26,) and move.promotes and move.to_square == 29


def test_int_4_8_circular_capture_ends_on_start_square_counted_once() -> None:
    pos = Position.from_fen(
        "W:W20,28,31,32,33,34,36,37,38,40,41,42,43,44,45,46,47,48,49,50:"
        "B1,2,3,4,5,6,7,8,10,11,12,13,14,15,16,17,19,22,23,24",
        "international",
    )
    assert [m.key for m in pos.legal_moves] == [(20, 20, frozenset({13, 14, 23, 24}))]


def test_br_circular_capture_by_a_man() -> None:
    pos = Position.from_fen("W:W18:B6,7,14,15", "brazilian")
    (move,) = pos.legal_moves
    assert move.key == (18, 18, frozenset({6, 7, 14, 15})) and not move.promotes


def test_routes_keep_every_landing_path() -> None:
    pos = Position.from_fen("W:WK47:B14,19,29,31,42", "international")
    for move in pos.legal_moves:
        routes = {r.path for r in pos.routes(move)}
        assert all(r[0] == 47 and r[-1] == 36 for r in routes)
        assert len(routes) == 2


def test_no_moves_when_blocked() -> None:
    assert moves("international", "W:W46:B41,37") == set()


# -- the shared positions file ------------------------------------------------------------------
def _entries() -> list[dict[str, object]]:
    return json.loads(shared_path("perft", "positions.json").read_text())


def test_positions_json_exact_moves_and_routes() -> None:
    entries = _entries()
    assert len(entries) >= 27
    for e in entries:
        pos = Position.from_fen(str(e["fen"]), str(e["variant"]))
        got = {}
        for m in pos.legal_moves:
            routes = sorted(
                "x".join(map(str, r.path)) if r.captured else f"{r.path[0]}-{r.path[1]}" for r in pos.routes(m)
            )
            got[(m.from_square, m.to_square, tuple(sorted(m.captured)))] = routes
        expected = {}
        for x in e["legal_moves"]:  # type: ignore[attr-defined]
            expected[(x["from"], x["to"], tuple(x["captured"]))] = sorted(x["routes"]) or [x["pdn"]]
        assert got == expected, e["id"]
        if "fen_algebraic" in e:
            assert Position.from_fen(str(e["fen_algebraic"]), str(e["variant"])) == pos, e["id"]
            algebraic = {pos.pdn(m, full=True) for m in pos.legal_moves}
            assert algebraic <= {
                r
                for x in e["legal_moves"]
                for r in (x["routes_algebraic"] or [x["pdn_algebraic"]])  # type: ignore[attr-defined]
            }, e["id"]


@pytest.mark.parametrize("variant", ["brazilian", "portuguese", "international"])
def test_start_position_moves(variant: str) -> None:
    pos = Position.start(variant)
    n = {"brazilian": 7, "portuguese": 7, "international": 9}[variant]
    assert len(pos.legal_moves) == n
    assert all(not m.captured for m in pos.legal_moves)
