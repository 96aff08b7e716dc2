"""The MicroPython firmware's logic, run unchanged under CPython with small fakes."""

from __future__ import annotations

from typing import Any

import pytest

from board_hal.ws2812 import StripLayout, every_layout
from firmware_bridge import link
from firmware_bridge.emulator import FakeWatchdog, _Matrix, fake_modules, load_firmware


class Stream:
    def __init__(self) -> None:
        self.inbox = b""
        self.out = bytearray()

    def read_available(self) -> bytes:
        data, self.inbox = self.inbox, b""
        return data

    def write(self, data: bytes) -> None:
        self.out += data

    def frames(self) -> list[tuple[int, int, bytes]]:
        frames = link.Deframer().feed(bytes(self.out))
        self.out.clear()
        return frames


def make(
    rows: int = 8, debounce_ms: int = 20, watchdog: Any = None, rise_us: int = 0
) -> tuple[Any, _Matrix, Stream, list[int], Any]:
    """The firmware on a fake matrix whose clock the test moves (``clock[0]``, ms); the pins log
    when each row is driven and each column read, on a microsecond clock the firmware's
    ``sleep_us`` moves (``matrix.log``); a column rises ``rise_us`` after its row is released."""
    matrix = _Matrix()
    modules = fake_modules(matrix)
    mod = load_firmware(modules)
    clock = [1000]
    us = [0]

    def sleep_us(n: int) -> None:
        us[0] += n

    def clock_us() -> int:
        us[0] += 1  # every pin access takes a microsecond
        return us[0]

    matrix.clock_us = clock_us
    matrix.rise_us = rise_us
    stream = Stream()
    fw = mod.Firmware(
        list(range(2, 2 + rows)),
        list(range(12, 12 + rows)),
        22,
        stream,
        debounce_ms=debounce_ms,
        heartbeat_ms=500,
        ticks_ms=lambda: clock[0],
        sleep_ms=lambda ms: None,
        sleep_us=sleep_us,
        watchdog=watchdog,
    )
    return fw, matrix, stream, clock, modules


def config3(
    settle_us: int = 30, strip: Any = ((0, 0), link.ALONG_ROWS, link.SERPENTINE), watchdog_ms: int = 0
) -> bytes:
    """A protocol-3 CONFIG that keeps the scan rate, debounce time and heartbeat."""
    return link.encode(link.CONFIG, 0, link.pack_config(link.KEEP, link.KEEP, link.KEEP, settle_us, strip, watchdog_ms))


@pytest.mark.parametrize("n", [8, 10])
def test_scan_reads_the_matrix(n: int) -> None:
    fw, matrix, _stream, _clock, _m = make(n)
    cells = {(r, c) for r in range(n) for c in range(n) if (r * 7 + c * 3) % 5 == 0}
    matrix.closed = cells
    raw = fw.scan()
    assert {divmod(i, n) for i, v in enumerate(raw) if v} == cells


def test_debounce_on_a_bouncing_switch() -> None:
    fw, matrix, stream, clock, _m = make()
    fw.step()
    stream.frames()
    # the switch chatters for 6 ms, then stays closed
    for k in range(6):
        (matrix.closed.add if k % 2 == 0 else matrix.closed.discard)((3, 4))
        clock[0] += 1
        fw.step()
    matrix.closed.add((3, 4))
    assert not any(kind == link.SNAPSHOT for kind, _s, _p in stream.frames())  # nothing yet

    def scan_for(ms: int) -> list[tuple[int, int, list[int], int]]:
        for _ in range(ms // 5):  # a scan every 5 ms (200 Hz)
            clock[0] += 5
            fw.step()
        return [link.unpack_snapshot(p) for kind, _s, p in stream.frames() if kind == link.SNAPSHOT]

    assert scan_for(15) == []  # less than the debounce time
    snaps = scan_for(15)
    assert [s[2] for s in snaps] == [[3 * 8 + 4]]
    # a brush shorter than the debounce time leaves no trace
    matrix.closed.add((0, 0))
    assert scan_for(10) == []
    matrix.closed.discard((0, 0))
    assert scan_for(100) == []


def test_heartbeat_snapshots_and_hello() -> None:
    fw, matrix, stream, clock, _m = make()
    matrix.closed = {(7, 7)}
    fw.stable = fw.scan()
    fw.send_hello()
    for _ in range(4):
        clock[0] += 510
        fw.step()
    frames = stream.frames()
    kinds = [k for k, _s, _p in frames]
    assert kinds[0] == link.HELLO and kinds.count(link.SNAPSHOT) == 4
    assert [s for _k, s, _p in frames] == list(range(5))  # sequence numbers
    assert link.unpack_snapshot(frames[-1][2])[2] == [63]


def test_leds_patterns_and_bad_frames() -> None:
    fw, _matrix, stream, clock, _m = make()
    stream.inbox = (
        b"\x13\x37garbage\x00"
        + link.encode(link.LEDS, 1, link.pack_leds([(0, 255, 0, 0, link.STEADY), (9, 0, 0, 255, link.FAST)]))[:-4]
        + b"\x00"  # a truncated frame: ignored
        + link.encode(link.LEDS, 2, link.pack_leds([(0, 255, 0, 0, link.STEADY), (9, 0, 0, 255, link.FAST)]))
        + link.encode(link.LEDS, 3, b"\x05\x00")  # a bad payload: answered with an error frame
        + link.encode(link.LEDS, 4, b"\x05")  # too short to hold its count: the same
    )
    clock[0] = 100_000  # fast blinkers are on in the first half of each 250 ms
    fw.step()
    assert fw.np.shown[0] == (255, 0, 0) and fw.np.shown[9] == (0, 0, 255) and fw.np.shown[1] == (0, 0, 0)
    clock[0] += 130
    fw.step()
    assert fw.np.shown[0] == (255, 0, 0) and fw.np.shown[9] == (0, 0, 0)
    assert fw.bad_in == 2  # the garbage and the truncated frame
    # the error frames say what was wrong: the text the host shows as the board's last error
    errors = [link.unpack_error(p) for k, _s, p in stream.frames() if k == link.ERROR]
    assert errors == [(1, "bad leds: leds size does not match its count"), (1, "bad leds: short leds")]


def test_config_and_repl_escape() -> None:
    fw, _matrix, stream, _clock, modules = make()
    stream.inbox = link.encode(link.CONFIG, 1, link.pack_config(100, 30, 250))
    fw.step()
    assert (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms) == (100, 30, 250)
    fw.run_steps = 0
    modules["micropython"].kbd_intr(-1)  # what run() does: Ctrl-C off
    stream.inbox = link.encode(link.REPL, 2)
    fw.step()
    assert fw.running is False
    assert modules["micropython"].kbd == 3  # Ctrl-C works again: mpremote can take over


def test_run_disables_ctrl_c_and_stops_on_repl() -> None:
    fw, _matrix, stream, _clock, modules = make()
    seen = []

    def sleep(_ms: int) -> None:  # between two steps: note Ctrl-C's state, then the host asks for the REPL
        seen.append(modules["micropython"].kbd)
        stream.inbox = link.encode(link.REPL, 1)

    fw.sleep_ms = sleep
    fw.run()
    assert seen[0] == -1  # while running, a 0x03 byte on the line cannot stop the firmware
    assert modules["micropython"].kbd == 3 and not fw.running


def test_a_config_of_the_wrong_size_is_answered_with_an_error_frame_naming_it() -> None:
    fw, _matrix, stream, _clock, _modules = make()
    before = (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms)
    stream.inbox = link.encode(link.CONFIG, 1, link.pack_config(100, 30, 250)[:5])
    fw.step()
    assert (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms) == before
    errors = [link.unpack_error(p) for k, _s, p in stream.frames() if k == link.ERROR]
    assert errors == [(1, "bad config: bad config size")]


def test_the_firmware_waits_the_settling_time_between_driving_a_row_and_reading_it() -> None:
    """Measured at the pins: every column read comes at least 30 µs after its row was driven low."""
    fw, matrix, _stream, _clock, _m = make()
    matrix.log.clear()
    fw.scan()
    delays = []
    driven = None
    for what, _index, t in matrix.log:
        if what == "drive":
            driven = t
        else:
            assert driven is not None
            delays.append(t - driven)
    assert len(delays) == 64 and min(delays) >= 30
    # the host can set it (protocol 3): 0 reads at once, 1000 is the most it takes
    for settle, least in ((0, 0), (120, 120), (5000, 1000)):
        fw.receive_data = None
        fw.stream.inbox = config3(settle_us=settle)
        fw.step()
        matrix.log.clear()
        fw.scan()
        reads = [t for what, _i, t in matrix.log if what == "read"]
        drives = [t for what, _i, t in matrix.log if what == "drive"]
        assert reads[0] - drives[0] >= least and (least or reads[0] - drives[0] < 30)


def test_a_slow_column_makes_a_ghost_only_without_the_settling_time() -> None:
    """A piece on a1 holds column a low while row 1 is scanned; its wire then takes 20 µs to rise
    again. Read at once, row 2 sees a piece on a2 that is not there (on every scan: no debounce
    removes it); after 30 µs of settling, nothing."""
    fw, matrix, stream, clock, _m = make(rise_us=20)
    matrix.closed = {(0, 0)}
    assert {i for i, v in enumerate(fw.scan()) if v} == {0}
    stream.inbox = config3(settle_us=0)
    fw.step()
    assert {i for i, v in enumerate(fw.scan()) if v} >= {0, 8}  # the ghost on a2 (and a3: 10 µs a row)
    for _ in range(10):  # debounced all the same: it is there on every scan
        clock[0] += 5
        fw.step()
    assert 8 in {i for i, v in enumerate(fw.stable) if v}
    stream.inbox = config3(settle_us=30)
    fw.step()
    for _ in range(10):
        clock[0] += 5
        fw.step()
    assert {i for i, v in enumerate(fw.scan()) if v} == {0} == {i for i, v in enumerate(fw.stable) if v}


def lit_positions(fw: Any) -> set[int]:
    return {i for i, colour in enumerate(fw.np.shown) if colour != (0, 0, 0)}


@pytest.mark.parametrize("n", [8, 10])
def test_every_strip_layout_lights_the_squares_it_is_laid_under(n: int) -> None:
    """What the firmware writes to the strip, for each of the 16 ways a strip can lie under the
    board (4 corners, along rows or columns, serpentine or matrix): LED k is lit exactly when
    the cell the Pi's own WS2812 backend puts under LED k is lit."""
    lit = [0, 1, n - 1, n, n + 1, 2 * n - 1, n * n - 1, 3 * n + 4]  # corners and both ends of lines 0, 1
    for layout in every_layout(n):
        fw, _matrix, stream, clock, _m = make(n)
        strip = (layout.first, ["rows", "columns"].index(layout.along), ["serpentine", "matrix"].index(layout.order))
        stream.inbox = config3(strip=strip) + link.encode(
            link.LEDS, 1, link.pack_leds([(i, 0, 255, 0, link.STEADY) for i in lit])
        )
        clock[0] += 5
        fw.step()
        under = layout.cells(n)  # the reference: board_hal.ws2812.strip_cells
        assert lit_positions(fw) == {k for k, (r, c) in enumerate(under) if r * n + c in lit}, layout
    # the usual strip: serpentine from a1 along rows; cells a2..h2 (8..15) are LEDs 15..8
    fw, _matrix, stream, clock, _m = make(8)
    stream.inbox = config3() + link.encode(link.LEDS, 1, link.pack_leds([(8, 9, 9, 9, link.STEADY)]))
    fw.step()
    assert lit_positions(fw) == {15}


def test_without_a_layout_the_strip_position_is_the_index_as_in_protocol_2() -> None:
    fw, _matrix, stream, _clock, _m = make()
    stream.inbox = link.encode(link.LEDS, 1, link.pack_leds([(8, 9, 9, 9, link.STEADY)]))
    fw.step()
    assert lit_positions(fw) == {8} and StripLayout((0, 0), "rows", "matrix").cells(8)[8] == (1, 0)


def test_a_strip_that_does_not_start_at_a_corner_refuses_the_whole_config() -> None:
    fw, _matrix, stream, _clock, _m = make()
    before = (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms, fw.settle_us, fw.strip)
    for strip in (((0, 3), 0, 0), ((0, 0), 2, 0), ((0, 0), 0, 7)):
        stream.inbox = link.encode(link.CONFIG, 0, link.pack_config(100, 5, 100, 99, strip, 0))
        fw.step()
    assert (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms, fw.settle_us, fw.strip) == before
    errors = [link.unpack_error(p) for k, _s, p in stream.frames() if k == link.ERROR]
    assert errors == [
        (link.BAD_FRAME, "bad config: the strip must start at a corner"),
        (link.BAD_FRAME, "bad config: bad strip layout"),
        (link.BAD_FRAME, "bad config: bad strip layout"),
    ]


def test_65535_keeps_a_setting_and_a_protocol_2_config_leaves_the_rest() -> None:
    fw, _matrix, stream, _clock, _m = make()
    stream.inbox = link.encode(link.CONFIG, 0, link.pack_config(100, link.KEEP, 250, 40, None, 0))
    fw.step()
    assert (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms, fw.settle_us) == (100, 20, 250, 40)
    stream.inbox = link.encode(link.CONFIG, 1, link.pack_config(300, 7, 60))
    fw.step()
    assert (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms, fw.settle_us) == (300, 7, 60, 40)


def steps(fw: Any, clock: list[int], ms: int, every: int = 5) -> None:
    for _ in range(ms // every):
        clock[0] += every
        fw.step()


def test_the_strip_is_written_only_when_it_changes_or_a_blink_edge_falls() -> None:
    """Each write holds interrupts off ~30 µs per LED: steady LEDs are written once, slow
    blinkers twice a second, fast ones eight times (the old firmware: every 5 ms loop, 200/s)."""
    fw, _matrix, stream, clock, _m = make()
    clock[0] = 100_000
    steps(fw, clock, 1000)
    assert fw.np.writes == 1  # all dark, once
    stream.inbox = config3() + link.encode(link.LEDS, 1, link.pack_leds([(3, 1, 2, 3, link.STEADY)]))
    steps(fw, clock, 2000)
    assert fw.np.writes == 2
    stream.inbox = link.encode(link.LEDS, 2, link.pack_leds([(3, 1, 2, 3, link.STEADY)]))  # the same again
    steps(fw, clock, 1000)
    assert fw.np.writes == 2
    stream.inbox = link.encode(link.LEDS, 3, link.pack_leds([(3, 1, 2, 3, link.STEADY), (5, 9, 9, 9, link.SLOW)]))
    before = fw.np.writes
    steps(fw, clock, 3000)
    assert fw.np.writes - before == 1 + 6  # the new frame, then off and on three times
    stream.inbox = link.encode(link.LEDS, 4, link.pack_leds([(5, 9, 9, 9, link.FAST)]))
    before = fw.np.writes
    steps(fw, clock, 2000)
    assert fw.np.writes - before == 1 + 16
    # the blink duty: fast is lit the first 125 ms of every 250 of the board's uptime
    clock[0] = 200_000 - 5
    fw.step()
    for t, on in ((200_000, True), (200_120, True), (200_125, False), (200_245, False), (200_250, True)):
        clock[0] = t
        fw.step()
        assert (lit_positions(fw) == {5}) is on, t  # cell 5 (f1): LED 5, on the strip's first line


def test_the_watchdog_is_armed_when_the_host_asks_fed_every_loop_and_stopped_at_the_repl() -> None:
    dog = FakeWatchdog(longest=8388)
    fw, _matrix, stream, clock, modules = make(watchdog=dog)
    fw.send_hello()
    steps(fw, clock, 100)
    assert dog.timeout_ms == 0 and dog.feeds == 0  # not armed before the host asks
    hello = next(link.hello_board(p) for k, _s, p in stream.frames() if k == link.HELLO)
    assert hello[:3] == (link.STRIP_ORDER | link.WATCHDOG | link.GESTURES, link.RESET_POWER, 0)
    stream.inbox = config3(watchdog_ms=20_000)  # more than the chip can: its longest
    steps(fw, clock, 100)
    assert dog.timeout_ms == 8388 and dog.feeds == 19  # fed at every loop after the one that armed it
    stream.inbox = config3(watchdog_ms=2000)  # armed once: a running watchdog keeps its timeout
    steps(fw, clock, 100)
    assert dog.timeout_ms == 8388 and fw.watchdog_ms == 8388
    stream.inbox = link.encode(link.HELLO, 0)
    fw.step()
    hello = next(link.hello_board(p) for k, _s, p in stream.frames() if k == link.HELLO)
    assert hello[2] == 8388
    modules["micropython"].kbd_intr(-1)
    stream.inbox = link.encode(link.REPL, 0)
    fw.step()
    assert dog.timeout_ms == 0 and not fw.running and modules["micropython"].kbd == 3  # stopped: mpremote works


def test_a_short_watchdog_is_a_second_and_a_board_without_one_says_so() -> None:
    dog = FakeWatchdog()
    fw, _matrix, stream, clock, _m = make(watchdog=dog)
    stream.inbox = config3(watchdog_ms=10)
    steps(fw, clock, 10)
    assert dog.timeout_ms == 1000
    fw, _matrix, stream, clock, _m = make()
    stream.inbox = config3(watchdog_ms=4000) + link.encode(link.HELLO, 0)
    steps(fw, clock, 10)
    hello = next(link.hello_board(p) for k, _s, p in stream.frames() if k == link.HELLO)
    assert hello[:3] == (link.STRIP_ORDER | link.GESTURES, link.RESET_POWER, 0) and fw.watchdog_ms == 0


def test_a_failing_firmware_says_what_failed_before_it_stops() -> None:
    fw, _matrix, stream, _clock, modules = make()

    def broken() -> None:
        raise MemoryError("memory allocation failed, allocating 512 bytes")

    fw.step = broken
    with pytest.raises(MemoryError):
        fw.run()
    errors = [link.unpack_error(p) for k, _s, p in stream.frames() if k == link.ERROR]
    assert errors == [(link.FAILED, "MemoryError: memory allocation failed, allocating 512 bytes")]
    assert modules["micropython"].kbd == 3  # the REPL works again (and an armed watchdog restarts the board)


def test_the_firmware_speaks_protocol_2_to_a_host_of_protocol_2() -> None:
    """An old host's HELLO (version 2): answered in version 2 with protocol 2's 11-byte HELLO,
    its LED indexes taken as strip positions, its buttons' frames 8 bytes; a HELLO of version 3
    brings protocol 3 back."""
    fw, matrix, stream, clock, _m = make()
    v2 = link.encode(link.HELLO, 0, version=2)
    stream.inbox = v2
    fw.step()
    frames = link.Deframer(2).feed(bytes(stream.out))
    stream.out.clear()
    assert [k for k, _s, _p in frames][:2] == [link.HELLO, link.SNAPSHOT]
    assert len(frames[0][2]) == 11 and link.unpack_hello(frames[0][2])[0] == 2
    stream.inbox = link.encode(link.LEDS, 0, link.pack_leds([(8, 9, 9, 9, link.STEADY)]), version=2)
    steps(fw, clock, 10)
    assert lit_positions(fw) == {8}
    matrix.pressed.add(26)
    matrix.button_pins = (26, 27)
    fw.buttons = [type(fw.rows[0])(26, 0, 1)]
    fw.button_down = [False]
    fw.button_pending = [False]
    fw.button_since = [0]
    steps(fw, clock, 50)
    buttons = [p for k, _s, p in link.Deframer(2).feed(bytes(stream.out)) if k == link.BUTTON]
    assert buttons and all(len(p) == 8 for p in buttons) and link.unpack_button(buttons[0])[0] == 1
    stream.out.clear()
    stream.inbox = link.encode(link.HELLO, 0)
    fw.step()
    frames = link.Deframer(3).feed(bytes(stream.out))
    assert frames[0][0] == link.HELLO and len(frames[0][2]) == 19
