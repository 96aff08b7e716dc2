"""The Hall-sensor builds on the Pico (hardware/wiring-hall.md, firmware hall.py): the firmware
reads the emulated sensors at the pins — a 74HC165 chain of two switches per square, or linear
sensors through multiplexers into the ADC — and sends SQUARES (protocol 3's colour feature);
the host reads colours (and crowns), fields and thresholds; a damaged line never makes a corrupt
frame a state; an old host still gets the occupancy; the self-test names a magnet the other way up."""

from __future__ import annotations

import time

import pytest

from board_hal.backends import BoardIO
from board_hal.layout import Layout
from board_hal.selftest import Prompt, SelfTest
from board_hal.squares import Sensing, SquareState
from firmware_bridge import link
from firmware_bridge.bridge import PicoBoard
from firmware_bridge.emulator import Emulator, Faults
from rules import Position
from tests.conftest import wait_until

LAYOUT = Layout("brazilian")
START = {
    LAYOUT.cell_of(sq): (link.WHITE_MAN if p.color.value == "white" else link.BLACK_MAN)
    for sq, p in Position.start("brazilian").pieces().items()
}
W, B, WK = SquareState.WHITE_MAN, SquareState.BLACK_MAN, SquareState.WHITE_KING


def transitions(io: BoardIO, want: int) -> list[tuple[object, bool, SquareState | None]]:
    got: list[tuple[object, bool, SquareState | None]] = []
    wait_until(lambda: got.extend((t.key, t.occupied, t.piece) for t in io.poll()) or len(got) >= want)
    return got


@pytest.mark.parametrize(("colour", "senses"), [("pairs", Sensing.COLOUR), ("linear", Sensing.CROWN)])
def test_the_board_reads_colours_and_the_linear_one_crowns(colour: str, senses: Sensing) -> None:
    with Emulator(8, colour=colour, pieces=START, heartbeat_ms=200) as emu:
        board = PicoBoard(emu.port, 8)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            features = link.COLOUR | link.FIELD_READINGS | (link.CROWNS if colour == "linear" else 0)
            assert emu.firmware.features() & ~(link.STRIP_ORDER | link.WATCHDOG | link.GESTURES) == features
            assert io.senses is senses
            start = {sq: SquareState.of(p.color.value) for sq, p in Position.start("brazilian").pieces().items()}
            assert io.pieces() == start
            emu.lift(LAYOUT.cell_of(22))
            time.sleep(0.08)
            emu.place(LAYOUT.cell_of(18), link.WHITE_MAN)
            assert transitions(io, 2) == [(22, False, SquareState.EMPTY), (18, True, W)]
            emu.place(LAYOUT.cell_of(18), link.WHITE_KING)  # a crown put on
            if colour == "linear":
                assert transitions(io, 1) == [(18, True, WK)]
            else:  # two switches see the pole, not the crown: nothing changed for them
                time.sleep(0.4)
                assert io.poll() == []
            emu.place(LAYOUT.cell_of(18), link.BLACK_MAN)  # a piece of the other colour
            assert transitions(io, 1) == [(18, True, B)]


def test_fields_and_thresholds_of_the_linear_board() -> None:
    with Emulator(8, colour="linear", pieces={(0, 0): link.WHITE_MAN, (0, 2): link.BLACK_KING}) as emu:
        board = PicoBoard(emu.port, 8)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            fields = board.fields()
            assert fields is not None and fields[(0, 0)] == 530 and fields[(0, 2)] == -815 and fields[(1, 1)] == 0
            assert board.calibrate(0, 1000)  # kings from 1000 counts on: this one now reads as a man
            wait_until(lambda: io.pieces().get(LAYOUT.key_of(0, 2)) is SquareState.BLACK_MAN)
            assert board.calibrate(700, 0)  # a piece from 700 on: the white man is gone, the king a man
            wait_until(lambda: LAYOUT.key_of(0, 0) not in io.pieces())


def test_a_reed_board_answers_fields_with_an_error() -> None:
    with Emulator(8, cells={(0, 0)}) as emu:
        board = PicoBoard(emu.port, 8)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            assert io.senses is Sensing.PRESENCE and board.fields() is None
            board._send(link.FIELDS)
            wait_until(lambda: board.last_error is not None and "reed board" in board.last_error[1])


def test_an_old_host_gets_the_occupancy_from_a_colour_board() -> None:
    """Protocol 2 has no SQUARES: the colour firmware sends SNAPSHOTs to a host that speaks 2."""
    with Emulator(8, colour="pairs", pieces=START) as emu:
        emu.firmware.speak(2)  # as after an old host's HELLO
        assert emu.firmware.version == 2
        emu.firmware.send_snapshot(0)
        sent = emu.stream.written[-1]  # type: ignore[union-attr]
        [(kind, _seq, payload)] = link.Deframer(2).feed(sent)
        assert kind == link.SNAPSHOT
        assert set(link.unpack_snapshot(payload)[2]) == {r * 8 + c for r, c in START}


def test_a_damaged_line_never_makes_a_corrupt_frame_a_state() -> None:
    """The Pico decoder's fuzzing, for SQUARES: flipped bits, drops, duplicates, cut frames and
    garbage on the line; every state the host accepted is one the firmware sent."""
    faults = Faults(seed=7, flip=0.003, drop=0.002, duplicate=0.002, truncate=0.03, garbage=0.05)
    with Emulator(8, colour="linear", pieces=START, heartbeat_ms=60, faults=faults) as emu:
        board = PicoBoard(emu.port, 8)
        with BoardIO(LAYOUT, board, board) as io:
            board.start(wait=5)
            cells = sorted(START)
            for i in range(40):
                cell = cells[i % len(cells)]
                emu.place(cell, (link.WHITE_KING, link.BLACK_MAN, link.WHITE_MAN)[i % 3])
                time.sleep(0.03)
            wait_until(lambda: board.stats["dropped"] > 0 and len(board.accepted_squares) > 20, 10)
            sent = set()
            for data in emu.stream.written:  # type: ignore[union-attr]
                for kind, _seq, payload in link.Deframer().feed(data):
                    if kind == link.SQUARES:
                        sent.add(payload[6:])
            assert set(board.accepted_squares) <= sent  # 0 corrupt frames accepted
            io.poll_events()


def test_the_self_test_names_a_magnet_the_other_way_up() -> None:
    with Emulator(8, colour="linear", pieces={}) as emu:
        board = PicoBoard(emu.port, 8)
        placed: list[tuple[int, int]] = []

        def ask(p: Prompt) -> None:
            if p.kind == "place" and p.cell is not None:
                if p.piece is SquareState.WHITE_MAN:
                    emu.matrix.upside_down.add(p.cell)  # the white man's magnet: south up
                else:
                    emu.matrix.upside_down.discard(p.cell)
                emu.place(p.cell, int(p.piece or SquareState.WHITE_MAN))
                placed.append(p.cell)
            elif p.kind == "lift" and placed:
                emu.lift(placed.pop())

        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            res = SelfTest(io, ask, timeout=3.0, led_step=0.0, squares=[]).run()
        assert res.pieces[0] == (
            "the white man put on square 32 (g1) reads black: its magnet is the other way up (white pieces north up)"
        )
        assert res.fields == {
            SquareState.WHITE_MAN: -530,
            SquareState.BLACK_MAN: -530,
            SquareState.WHITE_KING: 815,
            SquareState.BLACK_KING: -815,
        }
        assert (
            "field readings: white man -530, black man -530, white king +815, black king -815 "
            "(set pico.king = 672: halfway between its men and its kings)"
        ) in res.messages


def test_the_thresholds_of_the_configuration_are_sent_again_after_a_restart() -> None:
    """``[pico] present``/``king``: a hobbyist's kings read stronger or weaker than the firmware's
    defaults; the host sends its thresholds after every HELLO the board answers, so a board
    that restarted (and forgot them) reads with them again."""
    from board_hal.config import parse_config
    from firmware_bridge import open_pico

    with Emulator(8, colour="linear", pieces={(0, 0): link.WHITE_KING, (0, 2): link.BLACK_MAN}) as emu:
        toml = f'variant = "brazilian"\n[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\nking = 900\n'
        cfg = parse_config(toml, "pico.toml", env={})
        assert cfg.pico is not None and (cfg.pico.present, cfg.pico.king) == (0, 900)
        with open_pico(cfg, LAYOUT) as io:
            io.start()
            a1, c1 = LAYOUT.key_of(0, 0), LAYOUT.key_of(0, 2)
            wait_until(lambda: io.pieces().get(a1) is W)  # 815 counts: a man below 900
            emu.reset()
            wait_until(lambda: emu.firmware.sensor.king == 900, 10, "the thresholds sent to the restarted board")
            assert io.pieces() == {a1: W, c1: B}


@pytest.mark.parametrize(
    ("table", "words"),
    [
        ("king = 3000", "pico.king must be ADC counts from the no-field reading, 1 to 2047"),
        ('present = "low"', "pico.present must be ADC counts"),
        ("present = 700\nking = 600", "pico.king (600) must be above pico.present (700)"),
    ],
)
def test_bad_thresholds_are_one_line(table: str, words: str) -> None:
    from board_hal.config import ConfigError, parse_config

    with pytest.raises(ConfigError) as err:
        parse_config(f'[board]\nbackend = "pico"\n[pico]\nport = "/dev/ttyACM0"\n{table}\n', "b.toml", env={})
    assert words in str(err.value) and "\n" not in str(err.value)
