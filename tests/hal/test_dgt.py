"""DGT's draughts board: the codec (from DGT's published header), the backend through a
pseudo-terminal to the emulator, the numbering, a lost link, damage on the line, and the
one-line errors for a wrong port or a device of another kind."""

from __future__ import annotations

import os
import random
import threading
import time
import tty
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from board_hal import dgt
from board_hal.backends import BoardIO, LinkStatus
from board_hal.config import ConfigError, parse_config
from board_hal.debounce import Transition
from board_hal.dgt import DgtBoard, Message, Parser
from board_hal.dgt_emulator import DgtEmulator, DgtFaults
from board_hal.factory import open_board
from board_hal.layout import Layout, cell_name
from board_hal.squares import Sensing, SquareState
from rules import Position
from tests.conftest import wait_until

LAYOUT = Layout("international")
W, B, WK, BK, E = (
    SquareState.WHITE_MAN,
    SquareState.BLACK_MAN,
    SquareState.WHITE_KING,
    SquareState.BLACK_KING,
    SquareState.EMPTY,
)


def start_pieces(layout: Layout = LAYOUT) -> dict[tuple[int, int], SquareState]:
    pos = Position.start(layout.variant)
    return {layout.cell_of(sq): SquareState.of(p.color.value, p.king) for sq, p in pos.pieces().items()}


def start_squares() -> dict[int | str, SquareState]:
    return {sq: SquareState.of(p.color.value) for sq, p in Position.start("international").pieces().items()}


@pytest.fixture
def emulator() -> Iterator[DgtEmulator]:
    with DgtEmulator(start_pieces()) as emu:
        yield emu


def drain(io: BoardIO, want: int, timeout: float = 3.0) -> list[Transition]:
    got: list[Transition] = []
    wait_until(lambda: got.extend(io.poll()) or len(got) >= want, timeout, f"{want} transitions")
    return got


# -- the codec -------------------------------------------------------------------------------------
def test_messages_are_framed_as_the_header_says() -> None:
    update = dgt.message(dgt.FIELD_UPDATE, bytes([42, 0x07]))
    assert update == bytes([0x8E, 0x00, 0x05, 42, 0x07])  # DGT_SIZE_FIELD_UPDATE 5, MSB of size first
    dump = dgt.message(dgt.BOARD_DUMP, bytes(100))
    assert dump[:3] == bytes([0x86, 0x00, 103])  # DGT_SIZE_BOARD_DUMP_DRAUGHTS
    assert len(dgt.message(dgt.BOARD_DUMP_50B, bytes(50))) == 53
    assert dgt.message(0xA0, bytes(200))[1:3] == bytes([203 >> 7, 203 & 0x7F])  # 14-bit sizes in two 7-bit bytes
    with pytest.raises(ValueError):
        dgt.message(0x0E, b"")  # no top bit on the id
    with pytest.raises(ValueError):
        dgt.message(dgt.FIELD_UPDATE, bytes([0x80, 1]))  # a data byte with its top bit set


def test_piece_codes_and_out_of_range_values() -> None:
    table = dgt.piece_table()
    assert [table[c] for c in (0, 1, 4, 7, 10)] == [E, W, B, WK, BK]  # WDISK, BDISK, WCROWN, BCROWN
    assert dgt.decode_update(bytes([99, 10]), table) == (99, BK)
    for data, words in (
        (bytes([100, 1]), "field 100 is off"),
        (bytes([5, 2]), "piece code 0x02 on field 5 is not a draughts piece"),  # a chess rook
        (bytes([5]), "2 data bytes"),
    ):
        with pytest.raises(ValueError, match=words):
            dgt.decode_update(data, table)
    with pytest.raises(ValueError, match="at field 3"):
        dgt.decode_pieces(bytes([0, 1, 4, 0x0B]), table)
    assert dgt.piece_table(dgt.CODES_BEFORE_2011)[7] is B  # the header's history: WCROWN and BDISK swapped


def test_the_parser_finds_its_place_again_at_the_next_message() -> None:
    p = Parser()
    good = dgt.message(dgt.FIELD_UPDATE, bytes([3, 1]))
    cut = dgt.message(dgt.BOARD_DUMP, bytes(100))[:40]
    stream = b"\x01\x02garbage" + cut + good + bytes([0x8E, 0, 9]) + b"\x01" * 6 + good
    assert p.feed(stream) == [Message(dgt.FIELD_UPDATE, bytes([3, 1]))] * 2
    assert p.dropped == 3  # the stray bytes, the cut dump, the update of a wrong size (and its tail)
    assert "field update of 9 bytes (expected 5)" in p.reason
    q = Parser()  # byte by byte, the same
    assert [m for b in stream for m in q.feed(bytes([b]))] == [Message(dgt.FIELD_UPDATE, bytes([3, 1]))] * 2


@settings(max_examples=300)
@given(st.binary(max_size=400), st.integers(0, 99), st.sampled_from([0, 1, 4, 7, 10]))
def test_fuzzed_lines_never_crash_and_a_whole_message_after_them_is_read(noise: bytes, fld: int, code: int) -> None:
    p = Parser()
    got = p.feed(noise)
    for m in got:  # whatever it read from noise is of a size the header allows
        assert 3 + len(m.data) in dgt.SIZES.get(m.id, range(3, dgt.MAX_MESSAGE + 1))
    good = dgt.message(dgt.FIELD_UPDATE, bytes([fld, code]))
    assert p.feed(good)[-1:] == [Message(dgt.FIELD_UPDATE, bytes([fld, code]))]


# -- the numbering ---------------------------------------------------------------------------------
def test_fields_run_from_a10_along_rows_by_default() -> None:
    cells = dgt.field_cells()
    assert [cell_name(cells[f]) for f in (0, 1, 9, 10, 99)] == ["a10", "b10", "j10", "a9", "j1"]
    # the dark squares (a1 is dark) in field order are International's squares 1..50
    dark = dgt.fifty(cells, True)
    assert [LAYOUT.square_of(*cells[f]) for f in dark] == list(range(1, 51))
    assert dgt.field_cells((0, 0), "columns")[1] == (1, 0)
    with pytest.raises(ValueError, match="corner"):
        dgt.field_cells((3, 0))


def test_explain_numbering_names_the_settings_that_fit() -> None:
    truth = dgt.field_cells((0, 9), "columns")  # a board that numbers from j1 up the columns
    seen = {f: truth[f] for f in (0, 13, 57)}
    assert dgt.explain_numbering(seen, (9, 0), "rows") == (
        'the DGT board numbers its fields from j1 along columns: set dgt.first = "j1", dgt.along = "columns"'
    )
    assert dgt.explain_numbering(seen, (0, 9), "columns") is None
    assert "fit no numbering" in (dgt.explain_numbering({0: (4, 4)}, (9, 0), "rows") or "")


# -- the backend through a pty ---------------------------------------------------------------------
def test_the_board_is_read_with_colours_and_crowns(emulator: DgtEmulator) -> None:
    board = DgtBoard(emulator.port)
    with BoardIO(LAYOUT, board) as io:
        io.start()
        assert io.senses is Sensing.CROWN and board.version == "1.04"
        assert io.pieces() == start_squares()
        # reset, version, update mode, then dumps until two agree
        assert emulator.commands[:5] == [dgt.RESET, dgt.SEND_VERSION, dgt.SEND_UPDATE_BRD, dgt.SEND_BRD, dgt.SEND_BRD]
        emulator.lift(LAYOUT.cell_of(32))
        emulator.place(LAYOUT.cell_of(28), W)
        got = drain(io, 2)
        assert sorted((t.key, t.occupied, t.piece) for t in got) == [(28, True, W), (32, False, E)]
        emulator.place(LAYOUT.cell_of(28), WK)  # a crown put on: a change on an occupied square
        assert [(t.key, t.occupied, t.piece) for t in drain(io, 1)] == [(28, True, WK)]


def test_changes_come_in_the_order_of_the_scan_not_of_the_hands(emulator: DgtEmulator) -> None:
    """The header: a piece moved may be seen on its new square before its old one is empty."""
    board = DgtBoard(emulator.port)
    with BoardIO(LAYOUT, board) as io:
        io.start()
        wait_until(lambda: dgt.SEND_UPDATE_BRD in emulator.commands)
        orders = set()
        for _ in range(6):  # black moves 19-23 and back, the hands lifting first every time
            for a, b in ((19, 23), (23, 19)):
                emulator.lift(LAYOUT.cell_of(a))
                emulator.place(LAYOUT.cell_of(b), B)
                got = drain(io, 2)
                orders.add(tuple(t.occupied for t in got))
                time.sleep(random.Random(a).uniform(0, 0.2))
        assert (True, False) in orders  # placed before lifted: the scan met field 23 first


def test_a_lost_link_is_resynchronised_from_a_full_dump(emulator: DgtEmulator) -> None:
    board = DgtBoard(emulator.port, backoff=(0.05, 0.2))
    with BoardIO(LAYOUT, board) as io:
        io.start()
        emulator.unplug()
        events: list[object] = []
        wait_until(lambda: events.extend(io.poll_events()) or io.link == "down", 5, "the link down")
        emulator.lift(LAYOUT.cell_of(31))
        emulator.place(LAYOUT.cell_of(26), W)
        emulator.seen = list(emulator.board)  # the board scanned meanwhile
        emulator.plug()
        wait_until(lambda: events.extend(io.poll_events()) or io.link == "up", 5, "the link up")
        wait_until(lambda: events.extend(io.poll_events()) or any(isinstance(e, LinkStatus) and e.up for e in events))
        up = next(e for e in events if isinstance(e, LinkStatus) and e.up)
        assert 26 in up.squares and 31 not in up.squares and up.pieces[26] is W
        assert board.stats["connects"] >= 2


def test_periodic_dumps_repair_what_a_damaged_update_said() -> None:
    """No checksum: a flipped bit in a piece code is a valid message (a white man read as a
    black one). The next full dump puts it right."""
    lied: list[bytes] = []

    def white_to_black(data: bytes) -> bytes:
        if data[0] == dgt.FIELD_UPDATE and data[4] == 0x01 and not lied:
            lied.append(data)
            return data[:4] + bytes([0x04])  # bit 0 -> bit 2: still a piece code
        return data

    with DgtEmulator(start_pieces(), faults=white_to_black) as emu:
        board = DgtBoard(emu.port, dump_every=0.5)
        with BoardIO(LAYOUT, board) as io:
            io.start()
            emu.place(LAYOUT.cell_of(28), W)
            seen = drain(io, 1)
            assert [(t.key, t.piece) for t in seen] == [(28, B)]  # believed: nothing tells it apart
            seen = drain(io, 1, timeout=5)  # the next dump that two in a row confirm
            assert [(t.key, t.piece) for t in seen] == [(28, W)] and board.stats["repaired"] == 1
            assert io.pieces() == {**start_squares(), 28: W}


def test_a_noisy_line_costs_no_wrong_square_in_the_end() -> None:
    faults = DgtFaults(seed=11, code=0.002, drop=0.002, garbage=0.02)
    rng = random.Random(2)
    with DgtEmulator(start_pieces(), faults=faults) as emu:
        board = DgtBoard(emu.port, dump_every=0.5)
        with BoardIO(LAYOUT, board) as io:
            io.start()
            squares = list(LAYOUT.geometry.squares())
            for _ in range(60):
                sq = rng.choice(squares)
                emu.put(LAYOUT.cell_of(sq), rng.choice([E, W, B, WK, BK]))
                time.sleep(0.01)
            truth = {LAYOUT.square_of(*c): s for c, s in zip(emu.cells, emu.board, strict=True) if s.occupied}
            wait_until(lambda: io.pieces() == truth, 8, "the board as it is")
            assert board.stats["dropped"] + board.stats["refused"] + board.stats["repaired"] > 0


def test_fifty_square_dumps_of_the_squares_played_on() -> None:
    with DgtEmulator(start_pieces()) as emu:
        board = DgtBoard(emu.port, dump=50)
        with BoardIO(LAYOUT, board) as io:
            io.start()
            assert dgt.SEND_BRD_50B in emu.commands and dgt.SEND_BRD not in emu.commands
            assert set(io.pieces()) == set(Position.start("international").occupied())
    turned = Layout("international", rotation=90)  # the board turned a quarter: its light squares are played
    with DgtEmulator(start_pieces(turned)) as emu:
        board = DgtBoard(emu.port, dump=50, dark_squares=False)
        with BoardIO(turned, board) as io:
            io.start()
            assert dgt.SEND_BRD_50W in emu.commands
            assert set(io.pieces()) == set(Position.start("international").occupied())


def test_another_numbering_from_the_configuration() -> None:
    with DgtEmulator(start_pieces(), first=(0, 9), along="columns") as emu:
        board = DgtBoard(emu.port, first=(0, 9), along="columns")
        with BoardIO(LAYOUT, board) as io:
            io.start()
            assert set(io.pieces()) == set(Position.start("international").occupied())


# -- configuration and one-line errors -------------------------------------------------------------
def test_the_backend_from_a_configuration(emulator: DgtEmulator) -> None:
    text = f'variant = "international"\n[board]\nbackend = "dgt"\n[dgt]\nport = "{emulator.port}"\n'
    cfg = parse_config(text, "b.toml", env={})
    with open_board(cfg, "international") as io:
        io.start()
        assert io.senses is Sensing.CROWN and io.leds is None
        assert len(io.pieces()) == 40


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ('first = "e5"', 'dgt.first must be a corner of the board ("a1", "a10", "j1" or "j10"), not \'e5\''),
        ('along = "diagonals"', 'dgt.along must be "rows" or "columns"'),
        ("codes = [1, 4, 7]", "dgt.codes must be 4 different piece codes"),
        ("codes = [1, 1, 7, 10]", "dgt.codes must be 4 different piece codes"),
        ("dump = 64", "dgt.dump must be 100 (every square) or 50"),
        ("dump_every = 0.1", "dgt.dump_every must be seconds between 0.5 and 3600"),
        ("port = 3", "dgt.port must be a device path"),
        ("baud = 9600", "unknown setting dgt.baud"),
    ],
)
def test_a_bad_setting_is_one_line(table: str, words: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_config(f'[board]\nbackend = "dgt"\n[dgt]\n{table}\n', "b.toml", env={})
    assert str(err.value).startswith("b.toml: ") and words in str(err.value) and "\n" not in str(err.value)


def _one_line(cfg_text: str, variant: str = "international") -> str:
    cfg = parse_config(cfg_text, "b.toml", env={})
    with pytest.raises(ConfigError) as err:
        open_board(cfg, variant)
    text = str(err.value)
    assert "\n" not in text and text.startswith("b.toml: ")
    return text


def test_a_wrong_port_is_one_line(tmp_path: object) -> None:
    text = _one_line('[board]\nbackend = "dgt"\n[dgt]\nport = "/dev/ttyUSB97"\n')
    assert text == "b.toml: dgt.port: /dev/ttyUSB97 does not exist (is the DGT board plugged in?)"


def test_an_8x8_variant_on_the_dgt_board_is_one_line(emulator: DgtEmulator) -> None:
    text = _one_line(f'[board]\nbackend = "dgt"\n[dgt]\nport = "{emulator.port}"\n', "brazilian")
    assert "10x10" in text and "brazilian" in text.lower()


class _Pty:
    """A serial device of another kind: answers each command with ``answer`` (or nothing)."""

    def __init__(self, answer: bytes) -> None:
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.slave = slave
        self.port = os.ttyname(slave)
        self.answer = answer
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        os.set_blocking(self.master, False)
        while not self.stop.wait(0.01):
            try:
                if os.read(self.master, 64) and self.answer:
                    os.write(self.master, self.answer)
            except (BlockingIOError, OSError):
                pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(1)
        os.close(self.master)
        os.close(self.slave)


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        (b"", "does not answer in 2 s: is it a DGT board, switched on, at 9600 baud?"),
        (b"AT+OK\r\n>>> ", "is not a DGT board: it answered"),  # a modem, a REPL...
        (dgt.message(dgt.VERSION, bytes([1, 2])), "answers, but sends no draughts board dump"),
    ],
)
def test_a_device_that_is_no_dgt_draughts_board_is_one_line(answer: bytes, words: str) -> None:
    dev = _Pty(answer)
    try:
        text = _one_line(f'[board]\nbackend = "dgt"\n[dgt]\nport = "{dev.port}"\n')
        assert text.startswith(f"b.toml: dgt.port: the device on {dev.port} ") and words in text
    finally:
        dev.close()


def test_a_dgt_chess_board_is_one_line() -> None:
    with DgtEmulator(chess=True) as emu:
        text = _one_line(f'[board]\nbackend = "dgt"\n[dgt]\nport = "{emu.port}"\n')
        assert text.endswith("is a DGT chess board (a 64-square dump), not a draughts board")


# -- the command line ------------------------------------------------------------------------------
def test_damas_emulator_board_dgt_plays_and_shows_the_board() -> None:
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "damas", "emulator", "--board", "dgt"],
        input="lift 32\nplace 28\ncrown 28\nplace 27\nlift 99\nboard\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("emulated DGT draughts board (10x10, international squares) on /")
    assert "error: say which piece: place SQ w|b|W|B" in lines
    assert "error: " in r.stdout and "99" in r.stdout  # no square 99: one line, and it goes on
    board = lines[-10:]
    assert board[3] == "b . b . b . b . b ."  # rank 7, from White's side
    assert board[6] == ". w . . . w . w . w"  # 32 lifted
    assert board[5] == ". . . . W . . . . ."  # 28 (e5), crowned


def test_damas_emulator_refuses_an_8x8_variant_on_the_dgt_board_in_one_line() -> None:
    from tests.conftest import damas, one_line_error

    one_line_error(damas("emulator", "--board", "dgt", "--variant", "brazilian", stdin=""), "10x10", "brazilian")


def test_damas_deploy_prints_the_dgt_example_that_reads_as_is() -> None:
    from tests.conftest import damas

    r = damas("deploy", "dgt")
    assert r.returncode == 0
    cfg = parse_config(r.stdout, "dgt.toml", env={})
    assert cfg.backend == "dgt" and cfg.backend_settings["dgt"] == dgt.Settings()
