"""Hands on a board that sees colours and crowns: the events of ``hands.Hands`` with each
piece's identity (a piece lifted is in the hand; the one put down is the one lifted last,
a captured piece stays in the hand under the next), and a crown put on a promoted man a
moment after its move (as players do)."""

from __future__ import annotations

from board_hal.debounce import Transition
from board_hal.squares import SquareState
from rules import Move, Position
from tests.referee.hands import Hands, Style

#: a crown put on (the piece becomes its colour's king); only a marker until pieces are assigned
CROWN = SquareState.WHITE_KING


def piece_of(pos: Position, square: int) -> SquareState:
    p = pos.piece_at(square)
    return SquareState.EMPTY if p is None else SquareState.of(p.color.value, p.king)


def promotes(pos: Position, move: Move) -> bool:
    before = pos.piece_at(move.from_square)
    after = pos.apply(move).piece_at(move.to_square)
    return before is not None and after is not None and after.king and not before.king


def colour_game_log(
    start: Position, moves: list[Move], seed: int, style: Style | None = None, *, crown: bool = True
) -> tuple[list[Transition], list[Move]]:
    """The events of a whole game with pieces (and crowns put on), and the routes followed."""
    hands = Hands(seed, style)
    pos = start
    routes = []
    out: list[Transition] = []
    board = {sq: piece_of(start, sq) for sq in start.occupied()}
    for move in moves:
        fast = hands.rng.random() < hands.style.fast_reply
        first = len(hands.events)
        routes.append(hands.play(pos, move, fast))
        out += with_pieces(board, hands.events[first:], piece_of(pos, move.from_square))
        if crown and promotes(pos, move):
            hands.wait(0.3, 0.9)
            board[move.to_square] = board[move.to_square].crowned()
            out.append(Transition(round(hands.t, 4), move.to_square, True, board[move.to_square]))
            hands.events.append(out[-1])
            hands.t += 0.001
        pos = pos.apply(move)
    return out, routes


def with_pieces(board: dict[int, SquareState], events: list[Transition], mover: SquareState) -> list[Transition]:
    """One move's events with the piece each shows (``board`` follows them): a lift empties
    a square, a piece put down is the one lifted from that square if it is still in hand (a
    sleeve, an adjustment, a wrong piece put back), else the piece that moves."""
    hand: dict[int, SquareState] = {}
    out = []
    for ev in events:
        key = ev.key
        if isinstance(key, str):
            out.append(ev)
            continue
        if not ev.occupied:
            lifted = board.pop(key, None)
            if lifted is not None:
                hand[key] = lifted
            out.append(Transition(ev.t, key, False, SquareState.EMPTY))
        else:
            board[key] = hand.pop(key, mover)
            out.append(Transition(ev.t, key, True, board[key]))
    return out
