"""Round-trip properties (Hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import Color, Game, Position, find_variant, geometry_for
from rules.pdn import PdnGame, read_game

VARIANTS = ["brazilian", "international", "portuguese"]


@st.composite
def positions(draw: st.DrawFn) -> Position:
    v = find_variant(draw(st.sampled_from(VARIANTS)))
    geo = geometry_for(v)
    squares = draw(st.lists(st.sampled_from(list(geo.squares())), unique=True, max_size=24))
    wm, wk, bm, bk = [], [], [], []
    top = {s for s in geo.squares() if geo.coord(s)[1] == geo.size - 1}
    bottom = {s for s in geo.squares() if geo.coord(s)[1] == 0}
    for s in squares:
        kind = draw(st.integers(0, 3))
        if kind == 0 and s not in top:
            wm.append(s)
        elif kind == 2 and s not in bottom:
            bm.append(s)
        elif kind in (0, 1):
            wk.append(s)
        else:
            bk.append(s)
    turn = draw(st.sampled_from([Color.WHITE, Color.BLACK]))
    return Position(v, white_men=wm, white_kings=wk, black_men=bm, black_kings=bk, turn=turn)


@given(positions())
def test_fen_round_trip(pos: Position) -> None:
    assert Position.from_fen(pos.fen(), pos.variant) == pos
    assert Position.from_fen(pos.fen("numeric"), pos.variant) == pos
    assert Position.from_fen(pos.fen("algebraic"), pos.variant) == pos


@given(positions())
def test_every_legal_move_parses_back_from_its_pdn(pos: Position) -> None:
    for move in pos.legal_moves:
        assert pos.parse_pdn(pos.pdn(move)) == move
        for route in pos.routes(move):
            assert pos.parse_pdn(pos.pdn(route, full=True)) == move


@st.composite
def random_games(draw: st.DrawFn) -> Game:
    variant = draw(st.sampled_from(VARIANTS))
    game = Game(variant)
    for _ in range(draw(st.integers(0, 120))):
        moves = list(game.legal_moves)
        if not moves:
            break
        game.push(moves[draw(st.integers(0, len(moves) - 1))])
    return game


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_push_pop_returns_to_the_start(game: Game) -> None:
    positions = game.positions()
    while game.move_stack:
        game.pop()
        assert game.position == positions[len(game.move_stack)]
    assert game.position == game.start


@settings(max_examples=60, deadline=None)
@given(random_games())
def test_pdn_round_trip(game: Game) -> None:
    pg = PdnGame.from_game(game, {"White": "A", "Black": "B"})
    back = read_game(pg.pdn())
    assert back.variant is game.variant
    assert [m.move for m in back.moves] == game.move_stack
    assert back.game().position == game.position
    assert back.result == game.result() or game.result() == "*"
