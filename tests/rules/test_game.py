"""Game: push/pop, end of game, every draw rule of RULES.md §5 with its thresholds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules import Color, Game, IllegalMoveError, InvalidMoveError, Move, Position, Termination, find_variant


def _quiet_options(game: Game, avoid: frozenset[int]) -> list[Move]:
    """King moves that capture nothing, leave the opponent no capture and avoid ``avoid``."""
    pos = game.position
    seen = {p.key for p in game.positions()}
    options = []
    for m in pos.legal_moves:
        piece = pos.piece_at(m.from_square)
        assert piece is not None
        if not piece.king or m.captured or m.to_square in avoid:
            continue
        after = pos.apply(m)
        if not after.has_captures():
            options.append((after.key in seen, m.from_square, m.to_square, m))
    return [o[3] for o in sorted(options, key=lambda o: o[:3])]


def play_quiet(game: Game, plies: int, avoid: frozenset[int] = frozenset(), white_only: bool = True) -> None:
    """Play ``plies`` quiet king moves (searching ahead so that neither side gets stuck)."""
    failed: set[tuple[object, int]] = set()

    def line(n: int) -> bool:
        if n == 0:
            return True
        key = (game.position.key, n)
        if key in failed:
            return False
        banned = avoid if (game.turn is Color.WHITE or not white_only) else frozenset()
        for m in _quiet_options(game, banned):
            game.push(m)
            if (game.outcome() is None or n == 1) and line(n - 1):
                return True
            game.pop()
        failed.add(key)
        return False

    assert line(plies), f"no quiet line of {plies} plies from {game.fen()}"


def quiet_king_move(game: Game, avoid: frozenset[int] = frozenset()) -> Move:
    options = _quiet_options(game, avoid)
    assert options, f"no quiet king move in {game.fen()}"
    return options[0]


def sacrifice_then_quiet(game: Game, plies: int) -> Move:
    """The side to move puts a king where the opponent's king must take it (that king alone);
    then ``plies`` quiet king moves follow. Returns the capture."""
    pos = game.position
    for offer in pos.legal_moves:
        after = pos.apply(offer)
        if offer.captured or not after.has_captures():
            continue
        for capture in after.legal_moves:
            taker, taken = after.piece_at(capture.from_square), [after.piece_at(sq) for sq in capture.captured]
            if taker is None or not taker.king or len(taken) != 1 or taken[0] is None or not taken[0].king:
                continue
            game.push(offer)
            game.push(capture)
            if game.outcome() is None:
                try:
                    play_quiet(game, plies)
                    return capture
                except AssertionError:
                    pass
            game.pop()
            game.pop()
    raise AssertionError(f"no king sacrifice followed by {plies} quiet plies in {game.fen()}")


def test_push_pop_history() -> None:
    g = Game("international")
    start = g.position
    g.push_pdn("32-28")
    g.push_pdn("19-23")
    g.push_pdn("28x19")
    assert g.turn is Color.BLACK
    assert [m.numeric() for m in g.move_stack] == ["32-28", "19-23", "28x19"]
    assert g.pop().numeric() == "28x19"  # type: ignore[union-attr]
    g.pop()
    g.pop()
    assert g.position == start
    with pytest.raises(IndexError):
        g.pop()


def test_illegal_push_is_refused_and_changes_nothing() -> None:
    g = Game("brazilian")
    with pytest.raises(IllegalMoveError):
        g.push(Move((22, 17, 12)))
    with pytest.raises(IllegalMoveError):
        g.push_pdn("c3-e5")
    with pytest.raises(InvalidMoveError):  # c4 is not a playing square: not a move at all
        g.push_pdn("c3-c4")
    assert g.ply == 0


def test_int_7_2_no_pieces_loses() -> None:
    g = Game("international", "W:W28:B23")
    g.push_pdn("28x19")
    o = g.outcome()
    assert o is not None and o.termination is Termination.NO_PIECES and o.winner is Color.WHITE
    assert g.result() == "2-0"
    with pytest.raises(IllegalMoveError):
        g.push_pdn("19-14")


def test_int_7_2_blocked_side_loses() -> None:
    g = Game("international", "B:W50:B45")
    o = g.outcome()
    assert o is not None and o.termination is Termination.NO_MOVES and o.winner is Color.WHITE


def test_portuguese_result_style() -> None:
    g = Game("portuguese", "W:W14:B18")
    (capture,) = g.legal_moves
    g.push(capture)
    assert capture.captured == (18,)
    assert g.result() == "1-0"


def test_repetition_third_time_same_side() -> None:
    g = Game("international", "W:WK46,K50:BK1,K5,20")
    assert g.repetitions() == 1
    cycle = ["50-45", "1-6", "45-50", "6-1"]
    for m in cycle * 2:
        assert g.outcome() is None
        g.push_pdn(m)
    assert g.repetitions() == 3
    o = g.outcome()
    assert o is not None and o.termination is Termination.REPETITION and o.winner is None
    assert g.result() == "1-1"


def test_repetition_threshold_is_a_parameter() -> None:
    g = Game("international", "W:WK46,K50:BK1,K5,20", repetition_count=4)
    for m in ["50-45", "1-6", "45-50", "6-1"] * 2:
        g.push_pdn(m)
    assert g.outcome() is None


@pytest.mark.parametrize(
    ("variant", "fen", "moves"),
    [
        # two kings and a man each side: no small-ending rule applies
        ("international", "W:WK46,K50,35:BK1,K5,16", 25),
        ("brazilian", "W:WK21,K28,24:BK1,K12,9", 20),
        ("portuguese", "W:WK1,K4,9:BK29,K32,24", 20),
    ],
)
def test_int_6_2_fen_25a_pt_3_2_1a_kings_only_moves(variant: str, fen: str, moves: int) -> None:
    assert find_variant(variant).kings_only_moves == moves
    g = Game(variant, fen, repetition_count=0)
    play_quiet(g, 2 * moves)
    g.pop()
    assert g.outcome() is None
    play_quiet(g, 1)
    o = g.outcome()
    assert o is not None and o.termination is Termination.KINGS_ONLY


def test_man_move_resets_the_kings_only_count() -> None:
    g = Game("international", "W:WK46,K50,35:BK1,K5,16", repetition_count=0)
    play_quiet(g, 48)
    assert g.turn is Color.WHITE
    g.push_pdn("35-30")
    play_quiet(g, 50)
    o = g.outcome()
    assert o is not None and o.termination is Termination.KINGS_ONLY
    g.pop()
    assert g.outcome() is None


def test_kings_only_threshold_is_a_parameter() -> None:
    g = Game("international", "W:WK46,K50,35:BK1,K5,16", repetition_count=0, kings_only_moves=3)
    play_quiet(g, 6)
    o = g.outcome()
    assert o is not None and o.termination is Termination.KINGS_ONLY


@pytest.mark.parametrize(
    ("variant", "fen", "moves"),
    [
        ("international", "W:WK28,K33:BK18", 5),  # INT 6.4: 2K v 1K
        ("international", "W:WK28,35:BK18", 5),  # INT 6.4: 1K+1m v 1K
        ("brazilian", "W:WK21,K32:BK1,K12", 5),  # FEN 25b: 2K v 2K
        ("brazilian", "W:WK21:BK12,6", 5),  # FEN 25f: 1K v 1K+1m
    ],
)
def test_int_6_4_fen_25_small_endings(variant: str, fen: str, moves: int) -> None:
    g = Game(variant, fen, repetition_count=0)
    play_quiet(g, 2 * moves)
    o = g.outcome()
    assert o is not None and o.termination is Termination.SMALL_ENDING
    assert g.result() == find_variant(variant).results[1]
    g.pop()
    assert g.outcome() is None


def test_ending_thresholds_are_the_documented_ones() -> None:
    i, b, p = (find_variant(v) for v in ("international", "brazilian", "portuguese"))
    assert {e.moves: set(e.material) for e in i.endings} == {
        10: {(3, 0, 1, 0), (2, 1, 1, 0), (1, 2, 1, 0)},  # INT 6.3 (the document's ten)
        5: {(2, 0, 1, 0), (1, 1, 1, 0), (1, 0, 1, 0)},  # INT 6.4
    }
    assert {e.moves: set(e.material) for e in b.endings} == {
        5: {(2, 0, 2, 0), (2, 0, 1, 0), (2, 0, 1, 1), (1, 0, 1, 0), (1, 0, 1, 1)}  # FEN 25 b-f
    }
    assert [(e.moves, e.material) for e in p.endings] == [(12, ((3, 0, 1, 0),))]  # PT 3.2.1b


def test_int_6_3_three_kings_v_one_threshold_is_a_parameter() -> None:
    """3K v 1K usually ends in a capture long before ten moves; the count itself is
    checked with shorter thresholds (the thresholds are parameters)."""
    v = find_variant("international")
    short = tuple(replace(e, moves=2) if e.moves == 10 else e for e in v.endings)
    g = Game(v, "W:WK16,K38,K35:BK9", endings=short, repetition_count=0)
    play_quiet(g, 4)
    o = g.outcome()
    assert o is not None and o.termination is Termination.SMALL_ENDING
    g.pop()
    assert g.outcome() is None
    three = tuple(replace(e, moves=3) if e.moves == 10 else e for e in v.endings)
    g = Game(v, "W:WK16,K38,K35:BK9", endings=three, repetition_count=0)
    play_quiet(g, 5)
    assert g.outcome() is None


def test_pt_3_2_1b_forced_rule_counts_from_the_rio() -> None:
    v = find_variant("portuguese")
    rio = v.endings[0].counted_from_squares
    assert rio == frozenset({1, 5, 10, 14, 19, 23, 28, 32})
    short = (replace(v.endings[0], moves=2),)
    g = Game(v, "W:WK11,K3,K20:BK2", endings=short, repetition_count=0)
    # white keeps off the rio: no count
    play_quiet(g, 8, avoid=rio)
    assert g.outcome() is None
    # a white king steps onto the rio: from here 2 moves each
    onto = [m for m in g.legal_moves if m.to_square in rio and not g.position.apply(m).has_captures()]
    g.push(onto[0])
    play_quiet(g, 3)
    assert g.outcome() is None
    play_quiet(g, 1)
    o = g.outcome()
    assert o is not None and o.termination is Termination.SMALL_ENDING


def test_entered_results() -> None:
    g = Game("brazilian")
    g.resign(Color.WHITE)
    o = g.outcome()
    assert o is not None and o.termination is Termination.RESIGNATION and o.winner is Color.BLACK
    assert g.result() == "0-1"
    g.set_result("*")
    assert g.outcome() is None
    g.agree_draw()
    assert g.result() == "1/2-1/2"
    g.set_result("2-0")
    assert g.result() == "1-0"
    with pytest.raises(ValueError):
        g.set_result("3-0")


def test_setup_is_part_of_the_history() -> None:
    g = Game("international")
    g.push_pdn("32-28")
    pos = Position.from_fen("B:W28,31-49:B1-20", "international")
    g.setup(pos)
    assert g.position == pos
    g.push_pdn("19-23")
    assert [type(e).__name__ for e in g.history()] == ["Move", "Position", "Move"]
    steps = g.steps()
    assert [e for _, e in steps] == g.history()
    assert [p for p, _ in steps] == [g.start, g.positions()[1], pos]  # each entry with the position it met
    g.pop()
    assert g.pop() == pos
    assert g.ply == 1


# -- captures restart the counts (issue 19.3) -------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "fen", "moves"),
    [
        ("international", "W:WK46,K50,K41,K45:BK1,K5,K10", 25),  # INT 6.2: 4K v 3K, then 3K v 3K
        ("brazilian", "W:WK21,K28,K32,K29:BK1,K12,K4", 20),  # FEN 25a
        ("portuguese", "W:WK1,K4,K8,K5:BK29,K32,K28", 20),  # PT 3.2.1a
    ],
)
def test_a_king_capture_resets_the_kings_only_count(variant: str, fen: str, moves: int) -> None:
    assert find_variant(variant).kings_only_moves == moves
    g = Game(variant, fen, repetition_count=0)
    play_quiet(g, 2 * moves - 4)  # the count nearly full
    capture = sacrifice_then_quiet(g, 2 * moves - 1)  # without the reset: drawn a few plies after it
    assert g.position.material() == (3, 0, 3, 0) and len(capture.captured) == 1
    assert g.outcome() is None
    play_quiet(g, 1)  # the threshold, counted from the capture
    o = g.outcome()
    assert o is not None and o.termination is Termination.KINGS_ONLY


@pytest.mark.parametrize(
    ("variant", "fen", "material"),
    [
        # FEN 25 b-c: 2K v 2K, a king taken, 2K v 1K: the same rule, counted again from the capture
        ("brazilian", "W:WK21,K32:BK1,K12", (1, 0, 2, 0)),
        # INT 6.4: 2K v 1K, the lone king takes one, 1K v 1K: the same rule, counted again
        ("international", "W:WK28,K33:BK18", (1, 0, 1, 0)),
    ],
)
def test_a_capture_restarts_the_small_ending_count(variant: str, fen: str, material: tuple[int, ...]) -> None:
    (rule,) = [e for e in find_variant(variant).endings if e.moves == 5]
    assert rule.moves == 5
    g = Game(variant, fen, repetition_count=0)
    play_quiet(g, 2 * rule.moves - 4)  # the count nearly full
    sacrifice_then_quiet(g, 2 * rule.moves - 1)  # without the restart: drawn right after the capture
    assert g.position.material() == material
    assert g.outcome() is None
    play_quiet(g, 1)  # five moves each since the capture
    o = g.outcome()
    assert o is not None and o.termination is Termination.SMALL_ENDING


def test_pt_3_2_1b_a_capture_out_of_the_forced_ending_ends_its_count() -> None:
    """Portuguese: the forced rule has one balance (3K v 1K), so a capture leaves it (the lone king
    takes one: 2K v 1K, no rule) and the twelve moves counted no longer apply."""
    v = find_variant("portuguese")
    (rule,) = v.endings
    assert rule.moves == 12
    g = Game(v, "W:WK11,K3,K19:BK2", repetition_count=0)  # a white king on the rio: counting
    play_quiet(g, 2 * rule.moves - 4)
    sacrifice_then_quiet(g, 2 * rule.moves)
    assert g.position.material() == (2, 0, 1, 0)
    assert g.outcome() is None
