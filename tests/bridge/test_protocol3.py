"""Link protocol 3 between a real host bridge and the emulated firmware behind a pty (issue 25):
the version each pair settles on (an old firmware and an old host keep working), the LED
strip's layout as the firmware writes it, the watchdog restarting a hung or failed firmware
and the host saying so, and pico-repl stopping the watchdog."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
import serial

from board_hal.backends import BoardIO
from board_hal.layout import Layout
from board_hal.leds import Role
from board_hal.ws2812 import strip_cells
from firmware_bridge import link
from firmware_bridge.bridge import PicoBoard
from firmware_bridge.emulator import Emulator, load_link
from rules import Position
from tests.conftest import ROOT, wait_until

LAYOUT = Layout("brazilian")
CELLS = {LAYOUT.cell_of(sq) for sq in Position.start("brazilian").occupied()}
FIRMWARE_V2 = ROOT / "tests" / "data" / "firmware-v2"  # the firmware of protocol 2, as it shipped


def lit_leds(emu: Emulator) -> set[int]:
    """The strip positions the firmware last wrote lit (what the strip shows)."""
    return {i for i, colour in enumerate(emu.firmware.np.shown) if colour != (0, 0, 0)}


def serpentine(cells: set[tuple[int, int]], n: int = 8) -> set[int]:
    """Where a strip laid serpentine from a1 along rows has the LEDs of these cells."""
    under = strip_cells(n, (0, 0), "rows", "serpentine")
    return {under.index(cell) for cell in cells}


# squares 5 (c1... in brazilian numbering, whatever cells they are) lit as "must-capture": a whole second row
SECOND_ROW = {(1, c) for c in range(8)}


def light_second_row(io: BoardIO) -> None:
    io.leds.show({cell: Role.ERROR for cell in SECOND_ROW})  # type: ignore[union-attr]


def test_a_protocol_3_host_and_firmware_lay_the_leds_on_a_serpentine_strip() -> None:
    with Emulator(8, heartbeat_ms=200, cells=CELLS) as emu:
        board = PicoBoard(emu.port, 8)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            assert board.version == 3 and io.link == "up"
            wait_until(lambda: emu.firmware.strip is not None, 3, "the host's CONFIG")
            assert emu.firmware.strip == ((0, 0), link.ALONG_ROWS, link.SERPENTINE)
            assert emu.firmware.settle_us == 30 and emu.firmware.watchdog_ms == 4000
            light_second_row(io)
            # row 2 of a serpentine strip runs backwards: LEDs 8..15 all the same, the set is the test
            wait_until(lambda: lit_leds(emu) == serpentine(SECOND_ROW), 3, "the second row lit")
            io.leds.show({(1, 0): Role.ERROR})  # type: ignore[union-attr]
            wait_until(lambda: lit_leds(emu) == {15}, 3, "a2 alone: LED 15, the end of the strip's second line")


def test_a_protocol_3_host_speaks_2_to_the_old_firmware_and_lays_its_strip_itself() -> None:
    """The firmware of protocol 2 (kept as it shipped) answers the new host's HELLO in version 3
    naming protocol 2; the host then speaks 2: pieces arrive, and since that firmware writes a
    LED index to that strip position, the host sends strip positions."""
    with Emulator(8, heartbeat_ms=200, cells=CELLS, firmware=FIRMWARE_V2) as emu:
        assert emu.firmware.__class__.__module__ == "board_fw_emulated" and not hasattr(emu.firmware, "watchdog")
        board = PicoBoard(emu.port, 8)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            assert board.version == 2 and io.link == "up" and board.info is not None
            assert board.info[:2] == (2, (2, 0))
            assert len(io.occupied()[0]) == 24
            emu.lift((2, 1))
            wait_until(lambda: (2, 1) not in board.snapshot(), 3, "the lifted piece")
            io.leds.show({(1, 0): Role.ERROR})  # type: ignore[union-attr]
            wait_until(lambda: lit_leds(emu) == {15}, 3, "a2 on LED 15 of the old firmware's strip")
            assert board.last_error is None and board.stats["bad_payloads"] == 0


def test_an_old_host_gets_protocol_2_from_the_new_firmware() -> None:
    """A host of protocol 2 (its codec as it shipped) asks HELLO in version 2: the new firmware
    answers in version 2 with protocol 2's HELLO and snapshots, and shows its LEDs as that
    host means them (strip positions)."""
    old = load_link(FIRMWARE_V2)
    assert old.VERSION == 2
    with Emulator(8, heartbeat_ms=200, cells=CELLS) as emu, serial.serial_for_url(emu.port, timeout=0.05) as line:
        line.write(old.encode(old.HELLO, 0, b""))
        deframer = old.Deframer()
        frames: list[tuple[int, int, bytes]] = []
        wait_until(lambda: frames.extend(deframer.feed(line.read(512))) or old.SNAPSHOT in [f[0] for f in frames], 3)
        hello = next(p for k, _s, p in frames if k == old.HELLO)
        assert len(hello) == 11 and old.unpack_hello(hello)[0] == 2 and old.hello_presses(hello) == (0, 0)
        snapshot = next(p for k, _s, p in frames if k == old.SNAPSHOT)
        assert {divmod(i, 8) for i in old.unpack_snapshot(snapshot)[2]} == CELLS
        line.write(old.encode(old.LEDS, 0, old.pack_leds([(8, 255, 0, 0, old.STEADY)])))
        wait_until(lambda: lit_leds(emu) == {8}, 3, "strip position 8, as protocol 2 means it")


def test_a_hung_firmware_is_restarted_by_its_watchdog_and_the_host_says_so(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="firmware_bridge.bridge")
    with Emulator(8, heartbeat_ms=200, cells=CELLS) as emu:
        board = PicoBoard(emu.port, 8, watchdog_ms=1000)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            wait_until(lambda: emu.watchdog is not None and emu.watchdog.timeout_ms == 1000, 3, "the watchdog armed")
            emu.hang()
            wait_until(lambda: emu.watchdog_resets == 1, 5, "the watchdog's restart")
            wait_until(lambda: board.stats["watchdog_resets"] == 1, 5, "the host's report")
            assert any(
                "was restarted by its watchdog" in r.getMessage() and "its firmware hung or failed" in r.getMessage()
                for r in caplog.records
            )
            # the restarted firmware is trusted again, armed again, and sees the board
            wait_until(lambda: emu.watchdog is not None and emu.watchdog.timeout_ms == 1000, 5, "re-armed")
            emu.lift((2, 1))
            wait_until(lambda: (2, 1) not in board.snapshot(), 5, "a piece lifted after the restart")
            time.sleep(0.3)
            assert board.stats["watchdog_resets"] == 1  # said once, though each HELLO repeats it


def test_a_failing_firmware_names_its_error_then_the_watchdog_restarts_it(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="firmware_bridge.bridge")
    with Emulator(8, heartbeat_ms=200, cells=CELLS) as emu:
        board = PicoBoard(emu.port, 8, watchdog_ms=1000)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            wait_until(lambda: emu.watchdog is not None and emu.watchdog.timeout_ms == 1000, 3, "the watchdog armed")
            emu.crash()
            wait_until(lambda: board.stats["watchdog_resets"] == 1, 5, "the restart reported")
            messages = [r.getMessage() for r in caplog.records]
            assert any("firmware on" in m and "failed: MemoryError: memory allocation failed" in m for m in messages)
            assert any("(the last error it sent: MemoryError" in m for m in messages)


def test_pico_repl_stops_the_watchdog_so_an_update_is_not_cut_short(tmp_path: Path) -> None:
    from damas.commands.pico_repl import spoken_version

    with Emulator(8, heartbeat_ms=200, cells=CELLS) as emu:
        board = PicoBoard(emu.port, 8, watchdog_ms=1000)
        with BoardIO(LAYOUT, board, board) as io:
            io.start()
            wait_until(lambda: emu.watchdog is not None and emu.watchdog.timeout_ms == 1000, 3, "the watchdog armed")
        with serial.serial_for_url(emu.port, timeout=0.05) as line:
            assert spoken_version(line) == 3
            line.write(link.encode(link.REPL, 0))
        wait_until(lambda: not emu.firmware.running, 3, "the firmware to stop")
        assert emu.watchdog is not None and emu.watchdog.timeout_ms == 0
        time.sleep(1.5)  # longer than the watchdog's timeout: at the REPL, nothing restarts it
        assert emu.watchdog_resets == 0 and emu.resets == 0


def test_a_colour_boards_squares_give_the_occupancy() -> None:
    """SQUARES (protocol 3, colour sensing): a host without colour logic still sees the pieces."""
    board = PicoBoard("loop://", 8)
    board._verified = True
    states = [link.EMPTY] * 64
    states[9], states[20], states[63] = link.WHITE_MAN, link.BLACK_KING, 11  # 11: reserved, read as occupied
    board._handle(link.SQUARES, 0, link.pack_squares(8, 8, states, 5))
    assert board.snapshot() == {(1, 1), (2, 4), (7, 7)}
    assert board.squares is not None and board.squares[63] == link.OCCUPIED
