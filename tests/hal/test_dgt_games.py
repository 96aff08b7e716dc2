"""Games through DGT's board: human-like hands (touch-downs, bounce, removals in any order,
crowns put on promoted men) on the emulated board, whose scan reorders and delays what it
reports, read by the backend through a pseudo-terminal and recorded by the referee: every
game recorded exactly."""

from __future__ import annotations

import itertools
import time

import pytest

from board_hal.backends import BoardIO, LinkStatus
from board_hal.debounce import Transition
from board_hal.dgt import DgtBoard
from board_hal.dgt_emulator import DgtEmulator
from board_hal.layout import Layout
from board_hal.squares import SquareState
from referee import Link, MoveMade, Pipeline, Referee
from rules import Move, Position
from tests.conftest import random_game
from tests.referee.colour_hands import colour_game_log, piece_of
from tests.referee.hands import Style
from tests.referee.test_campaigns import real_games

LAYOUT = Layout("international")
LONGEST_WAIT = 0.5  # a player's thinking time, cut down: the scan and the referee's timers are unchanged


def play_through_dgt(
    start: Position, moves: list[Move], seed: int, style: Style | None = None
) -> tuple[list[Move], int]:
    """The hands' events played in real time on the emulator (thinking shortened); the
    referee's record, and how many times the board reported a pair of changes out of order."""
    events, _routes = colour_game_log(start, moves, seed, style)
    pieces = {LAYOUT.cell_of(sq): piece_of(start, sq) for sq in start.occupied()}
    ref = Referee(start.variant, start.fen())
    pipe = Pipeline(ref)
    made: list[Move] = []
    seen: list[Transition] = []
    with DgtEmulator(pieces) as emu:
        board = DgtBoard(emu.port)
        with BoardIO(LAYOUT, board) as io:
            io.start()

            def pump() -> None:
                for ev in io.poll_events():  # as the app: a link that came back is a resync
                    if isinstance(ev, LinkStatus):
                        pieces = tuple(sorted(ev.pieces.items()))
                        link = (
                            Link(ev.t, "up", tuple(sorted(ev.squares)), pieces=pieces) if ev.up else Link(ev.t, "down")
                        )
                        made.extend(v.move for v in pipe.feed(link) if isinstance(v, MoveMade))
                        continue
                    if not isinstance(ev, Transition):
                        continue
                    seen.append(ev)
                    made.extend(v.move for v in pipe.feed(ev) if isinstance(v, MoveMade))
                made.extend(v.move for v in pipe.advance(time.monotonic()) if isinstance(v, MoveMade))

            last = events[0].t if events else 0.0
            for ev in events:
                pause = min(ev.t - last, LONGEST_WAIT)
                last = ev.t
                until = time.monotonic() + pause
                while (left := until - time.monotonic()) > 0:
                    pump()
                    time.sleep(min(left, 0.01))
                assert isinstance(ev.key, int) and ev.piece is not None
                emu.put(LAYOUT.cell_of(ev.key), ev.piece)
            deadline = time.monotonic() + 4
            while len(made) < len(moves) and time.monotonic() < deadline:
                pump()
                time.sleep(0.02)
            pump()
    swapped = sum(1 for a, b in itertools.pairwise(seen) if a.occupied and not b.occupied and b.t - a.t < 0.25)
    return made, swapped


def same_moves(made: list[Move], moves: list[Move]) -> bool:
    return [(m.from_square, m.to_square, sorted(m.captured)) for m in made] == [
        (m.from_square, m.to_square, sorted(m.captured)) for m in moves
    ]


def test_a_game_with_captures_and_a_crown_through_the_dgt_board() -> None:
    start, moves = next(
        (s, m[: _crowns(s, m) + 2])
        for seed in range(200)
        for s, m in [random_game("international", seed, 60)]
        if _crowns(s, m) and sum(1 for x in m[: _crowns(s, m) + 2] if x.captured) >= 3
    )
    for m in moves[: len(moves) - 16]:  # from a middle game: 16 plies, with captures and the crown
        start = start.apply(m)
    moves = moves[len(moves) - 16 :]
    assert sum(1 for m in moves if m.captured) >= 3 and _crowns(start, moves)
    made, swapped = play_through_dgt(start, moves, seed=1)
    assert same_moves(made, moves)
    assert swapped > 0  # the board did report a placement before the lift it followed


def _crowns(start: Position, moves: list[Move]) -> int:
    """The index of the first move that promotes a man (0: none; the first move never does)."""
    from tests.referee.colour_hands import promotes

    pos = start
    for i, m in enumerate(moves):
        if promotes(pos, m):
            return i
        pos = pos.apply(m)
    return 0


@pytest.mark.slow
@pytest.mark.parametrize("index", range(6))
def test_real_games_through_the_dgt_board(index: int) -> None:
    games = [g for g in real_games() if "international" in g[0] or "ronde" in g[0] or "wk2003" in g[0]]
    assert len(games) >= 6
    name, start, moves = games[index * len(games) // 6]
    made, _ = play_through_dgt(start, moves, seed=index)
    assert same_moves(made, moves), name


@pytest.mark.slow
def test_a_game_with_sloppy_hands_through_the_dgt_board() -> None:
    start, moves = random_game("international", 7, 50)
    made, _ = play_through_dgt(start, moves, seed=3, style=Style.sloppy())
    assert same_moves(made, moves)


def test_the_pieces_follow_the_hands() -> None:
    start, moves = random_game("international", 3, 30)
    events, _ = colour_game_log(start, moves, 0)
    board = {sq: piece_of(start, sq) for sq in start.occupied()}
    for ev in events:
        assert isinstance(ev.key, int)
        if ev.occupied:
            board[ev.key] = ev.piece  # type: ignore[assignment]
        else:
            board.pop(ev.key, None)
    pos = start
    for m in moves:
        pos = pos.apply(m)
    assert board == {sq: piece_of(pos, sq) for sq in pos.occupied()}
    assert SquareState.OCCUPIED not in board.values()
