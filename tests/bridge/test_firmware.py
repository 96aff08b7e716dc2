"""The MicroPython firmware's logic, run unchanged under CPython with small fakes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge import link
from firmware_bridge.emulator import FIRMWARE_DIR, _Matrix, fake_modules, load_firmware
from tests.conftest import ROOT


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


def make(rows: int = 8, debounce_ms: int = 20) -> tuple[Any, _Matrix, Stream, list[int], Any]:
    matrix = _Matrix()
    modules = fake_modules(matrix)
    mod = load_firmware(modules)
    clock = [1000]
    stream = Stream()
    fw = mod.Firmware(
        list(range(2, 2 + rows)),
        list(range(2 + rows, 2 + 2 * rows)),
        28,
        stream,
        debounce_ms=debounce_ms,
        heartbeat_ms=500,
        ticks_ms=lambda: clock[0],
        sleep_ms=lambda ms: None,
    )
    return fw, matrix, stream, clock, modules


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


@pytest.mark.parametrize(
    "path",
    sorted(str(p.relative_to(ROOT)) for p in [*FIRMWARE_DIR.glob("*.py"), ROOT / "firmware_bridge" / "link.py"]),
)
def test_mpy_cross_compiles_every_firmware_file(path: str, tmp_path: Path) -> None:
    """MicroPython's own compiler rejects what MicroPython cannot run (syntax, features)."""
    exe = Path(sys.executable).with_name("mpy-cross")
    r = subprocess.run([str(exe), "-o", str(tmp_path / "out.mpy"), str(ROOT / path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_a_config_of_the_wrong_size_is_answered_with_an_error_frame_naming_it() -> None:
    fw, _matrix, stream, _clock, _modules = make()
    before = (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms)
    stream.inbox = link.encode(link.CONFIG, 1, link.pack_config(100, 30, 250)[:5])
    fw.step()
    assert (fw.scan_hz, fw.debounce_ms, fw.heartbeat_ms) == before
    errors = [link.unpack_error(p) for k, _s, p in stream.frames() if k == link.ERROR]
    assert errors == [(1, "bad config: bad config size")]
