"""What the referee says and lights when a player goes wrong (issue 11 §3, §4), read at the LED
and report level: a pause on a touch-down square during a chain capture says where to go
on and lights the right squares; a piece put where no move goes always gets its mark."""

from __future__ import annotations

import random

import pytest

from referee import ReportKind, Role
from rules import Game, Position
from tests.conftest import random_game
from tests.referee.driver import Board

R = ReportKind


def sq(name: str, variant: str = "brazilian") -> int:
    return Position.start(variant).geometry.parse_square(name)


def test_a_pause_mid_chain_says_where_to_continue() -> None:
    """f2xd4xb6: the hand stops on d4 (a touch-down) long enough to be reported."""
    f2, e3, d4, c5, b6 = (sq(n) for n in ("f2", "e3", "d4", "c5", "b6"))
    board = Board("brazilian", f"W:W{f2},{sq('h2')}:B{e3},{c5},{sq('h8')}")
    board.lift(f2).place(d4).wait()
    r = board.last(R.REQUIRED_CAPTURE)
    assert r.message == "continue the capture from d4: next jump to b6"
    assert r.squares == (d4,) and r.params["at"] == d4 and r.params["next"] == [b6]
    assert r.missing == () and r.extra == ()  # nothing to put back: the capture goes on
    # the piece in hand must capture on, where it lands next, what it takes; its own piece is no "extra"
    assert board.leds() == {
        d4: Role.MUST_CAPTURE,
        b6: Role.HINT,
        f2: Role.FROM,
        e3: Role.REMOVE,
        c5: Role.REMOVE,
    }
    board.lift(d4).place(b6).lift(e3, c5)
    assert board.moves() == ["f2xb6"]
    assert board.leds() == {f2: Role.LAST, b6: Role.LAST}


def test_a_pause_mid_chain_names_the_next_jump_of_the_route_taken() -> None:
    """International 38x27x18x29x38 goes round either way: paused on 18 with no touch-down
    before, both ways on are named; after a touch-down on 27, only 29."""
    fen = "W:W38:B32,33,22,23,12"
    board = Board("international", fen)
    board.lift(38).place(18).wait()
    r = board.last(R.REQUIRED_CAPTURE)
    assert r.message == "continue the capture from 18: next jump to 27 or 29"
    assert board.leds()[18] is Role.MUST_CAPTURE
    assert {q for q, role in board.leds().items() if role is Role.HINT} == {27, 29}
    assert Role.EXTRA not in board.leds().values() and Role.MISSING not in board.leds().values()
    board = Board("international", fen)
    board.lift(38).place(27).lift(27).place(18).wait()
    assert board.last(R.REQUIRED_CAPTURE).message == "continue the capture from 18: next jump to 29"
    assert board.leds()[27] is Role.PATH and board.leds()[29] is Role.HINT
    board.lift(18).place(29).lift(29).place(38).lift(32, 22, 23, 33)
    assert board.moves() == ["38x38"]


def test_a_pause_mid_chain_in_portuguese_words() -> None:
    from damas.sentences import message

    f2, d4, b6 = sq("f2"), sq("d4"), sq("b6")
    board = Board("brazilian", f"W:W{f2}:B{sq('e3')},{sq('c5')},{sq('h8')}")
    board.lift(f2).place(d4).wait()
    r = board.last(R.REQUIRED_CAPTURE)
    pos = board.ref.position

    def names(squares: tuple[int, ...]) -> str:
        return ", ".join(pos.square_text(q) for q in squares)

    assert message(r, "pt-BR", names) == "Continue a captura a partir de d4: próximo salto para b6"
    assert message(r, "en", names) == "continue the capture from d4: next jump to b6"
    assert b6 == r.params["next"][0]


def wrong_placements(variant: str, seeds: int) -> list[tuple[str, int, int]]:
    """(position, own piece, empty square no move of it reaches), a few per position."""
    out = []
    for seed in range(seeds):
        rng = random.Random(seed)
        start, moves = random_game(variant, rng, rng.randrange(6, 40), capture_bias=0.5)
        game = Game(variant, start.fen())
        for m in moves:
            game.push(m)
        pos = game.position
        if game.outcome() is not None:
            continue
        reach = {(m.from_square, m.to_square) for m in pos.legal_moves}
        empty = [q for q in pos.geometry.squares() if q not in pos.occupied()]
        own = pos.squares(pos.turn)
        for a in rng.sample(own, min(2, len(own))):
            for b in rng.sample(empty, min(2, len(empty))):
                if (a, b) not in reach and not any(a == m.from_square and b in m.path for m in pos.legal_moves):
                    out.append((pos.fen(), a, b))
    return out


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_a_piece_put_where_no_move_goes_always_gets_its_mark(variant: str) -> None:
    """A plain move while a capture is due, a wrong side's or an illegal one: the square the
    piece was put on is lit as wrong (extra), whichever report it makes."""
    cases = wrong_placements(variant, 12)
    assert len(cases) >= 20
    due = 0
    for fen, a, b in cases:
        board = Board(variant, fen)
        due += Position.from_fen(fen, variant).has_captures()
        board.lift(a).place(b).wait()
        lit = board.leds()
        assert lit.get(b) in (Role.EXTRA, Role.ERROR), (fen, a, b, lit, board.kinds())
    assert due >= 3  # among them, moves while a capture was due
