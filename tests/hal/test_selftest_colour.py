"""The self-test on boards that sense colour: the placement check (pieces of each kind on
named squares) confirms or corrects the DGT board's numbering and piece codes, and finds a
magnet the other way up, a sensor mounted reversed, a crown not sensed."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from board_hal import dgt
from board_hal.dgt import DgtBoard
from board_hal.dgt_emulator import DgtEmulator
from board_hal.layout import Cell, Layout
from board_hal.selftest import Prompt, SelfTest, SelfTestResult
from board_hal.simulated import SimulatedBoard
from board_hal.squares import Sensing, SquareState

W, B, WK, BK = SquareState.WHITE_MAN, SquareState.BLACK_MAN, SquareState.WHITE_KING, SquareState.BLACK_KING
FLIP = {W: B, B: W, WK: BK, BK: WK}


def run_on_simulated(
    board: SimulatedBoard, hand: Callable[[SquareState], SquareState] = lambda p: p, squares: list[int] | None = None
) -> SelfTestResult:
    def ask(p: Prompt) -> bool | None:
        if p.kind == "clear":
            board.set_squares([])
        elif p.kind == "place" and p.square is not None:
            board.place(p.square, piece=hand(p.piece) if p.piece is not None else None)
        elif p.kind == "lift" and p.square is not None:
            board.lift(p.square)
        return True if p.kind == "leds" and p.text.endswith("(y/n)") else None

    with board.io() as io:
        return SelfTest(io, ask, timeout=0.5, led_step=0.0, squares=squares).run()


def test_a_colour_board_with_everything_right_passes() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.CROWN)
    res = run_on_simulated(board)
    assert res.ok and res.messages == [] and len(res.confirmed) == 32


def test_the_placement_check_asks_for_each_kind_of_piece() -> None:
    prompts: list[Prompt] = []
    board = SimulatedBoard(Layout("international"), senses=Sensing.CROWN)

    def ask(p: Prompt) -> None:
        prompts.append(p)
        if p.kind == "place" and p.square is not None:
            board.place(p.square, piece=p.piece)
        elif p.kind == "lift" and p.square is not None:
            board.lift(p.square)
        elif p.kind == "clear":
            board.set_squares([])

    with board.io() as io:
        SelfTest(io, ask, timeout=0.5, led_step=0.0, squares=[]).run()
    placed = [(p.piece, p.text) for p in prompts if p.kind == "place"]
    assert placed == [
        (W, "put a white man on square 50 (i1)"),
        (B, "put a black man on square 1 (b10)"),
        (WK, "put a white king (a man with a crown) on square 24 (h6)"),
        (BK, "put a black king (a man with a crown) on square 29 (g5)"),
    ]


def test_a_magnet_the_other_way_up_is_named() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.CROWN)
    res = run_on_simulated(board, lambda p: B if p is W else p, squares=[])
    assert not res.ok
    assert res.pieces == [
        "the white man put on square 32 (g1) reads black: its magnet is the other way up (white pieces north up)"
    ]


def test_every_piece_the_other_colour_is_the_board_s_poles() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.COLOUR)
    res = run_on_simulated(board, lambda p: FLIP[p], squares=[])
    assert res.pieces == [
        "every piece reads the other colour: the magnets are all the other way up, or the board's poles are "
        "swapped (white pieces north up)"
    ]


def test_a_sensor_mounted_the_other_way_up_is_named() -> None:
    lay = Layout("brazilian")
    board = SimulatedBoard(lay, senses=Sensing.COLOUR)
    board.reversed.add(lay.cell_of(14))
    res = run_on_simulated(board)
    assert res.pieces == [
        "square 14 (c5) reads the white man as black: its sensor is mounted the other way up (or its two "
        "switches are swapped)"
    ]


def test_a_crown_not_sensed_is_named() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.CROWN)
    res = run_on_simulated(board, lambda p: p.crowned(False), squares=[])
    assert [m for m in res.pieces if "crown" in m] == [
        "the white king put on square 15 (e5) reads as a man: its crown is not sensed",
        "the black king put on square 20 (h4) reads as a man: its crown is not sensed",
    ]


# -- the DGT board: its numbering and its piece codes, on the emulator ----------------------------
def run_on_dgt(emu: DgtEmulator, board: DgtBoard) -> SelfTestResult:
    lay = Layout("international")
    where: list[Cell] = []

    def ask(p: Prompt) -> None:
        if p.kind == "place" and p.cell is not None:
            emu.place(p.cell, p.piece or W)
            where.append(p.cell)
        elif p.kind == "lift" and where:
            emu.lift(where.pop())  # the hands lift the piece where they put it, whatever the board said

    from board_hal.backends import BoardIO

    with BoardIO(lay, board) as io:
        io.start()
        return SelfTest(io, ask, timeout=3.0, led_step=0.0, squares=[1, 46]).run()


@pytest.mark.parametrize(("first", "along"), [((0, 9), "columns"), ((0, 0), "rows"), ((9, 0), "columns")])
def test_the_dgt_numbering_is_confirmed_or_corrected(first: Cell, along: str) -> None:
    with DgtEmulator(first=first, along=along, scan_time=0.05) as emu:
        res = run_on_dgt(emu, DgtBoard(emu.port))
        corner = "abcdefghij"[first[1]] + str(first[0] + 1)
        assert res.numbering == (
            f'the DGT board numbers its fields from {corner} along {along}: set dgt.first = "{corner}", '
            f'dgt.along = "{along}"'
        )
        assert not res.ok
    with DgtEmulator(first=first, along=along, scan_time=0.05) as emu:
        res = run_on_dgt(emu, DgtBoard(emu.port, first=first, along=along))
        assert res.numbering is None and res.ok, res.messages


def test_the_dgt_piece_codes_of_before_2011_are_found() -> None:
    with DgtEmulator(codes=dgt.CODES_BEFORE_2011, scan_time=0.05) as emu:
        res = run_on_dgt(emu, DgtBoard(emu.port))
        assert res.pieces == ["the DGT board uses the header's before 2011 piece codes: set dgt.codes = [1, 7, 4, 10]"]
