"""An emulator of the board's microcontroller: the real firmware logic
(hardware/firmware/board_fw.py) on a simulated matrix, behind a pseudo-terminal, so the
host talks to it through a real serial device path.

``machine``, ``neopixel`` and ``micropython`` are small fakes here; the firmware file and
the codec (``link.py``) run unchanged. Faults can be injected on the line, the firmware
can be reset mid-stream, and the "cable" unplugged and plugged back (the port path is a
symlink: removed on unplug, as a real device node disappears, so nothing opens a freed
pseudo-terminal another program may have taken; plugging in makes a new one).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import random
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from board_hal.pty import plug_pty
from firmware_bridge import link


def firmware_dir() -> Path:
    """Where the Pico firmware is: hardware/firmware in a source tree, else the copy an installed
    wheel carries (the package ``firmware_bridge.firmware``, built from that folder)."""
    source = Path(__file__).resolve().parents[1] / "hardware" / "firmware"
    if (source / "board_fw.py").is_file():
        return source
    return Path(__file__).resolve().parent / "firmware"


FIRMWARE_DIR = firmware_dir()

Cell = tuple[int, int]
BUTTON_PINS = (26, 27)  # the clock's buttons, as hardware/firmware/main.py wires them
READOUT_PIN = 1  # the talking board's read-out button (protocol 3, gestures)
LINEAR_BUTTON_PINS = (20, 21)  # a linear Hall board's (GP26 is its ADC)
PAIRS_PINS = (2, 3, 4)  # a two-switch Hall board's 74HC165 chain: SH/LD, CLK, QH (main.py's PAIRS)
SELECT_PINS = (2, 3, 4, 5)  # a linear Hall board's multiplexer select lines (main.py's SELECT)
ADC_PIN = 26


class _Matrix:
    """The switches: which cells are closed, seen through the row and column pins."""

    def __init__(self) -> None:
        self.closed: set[Cell] = set()
        self.rows: list[Any] = []
        self.cols: list[Any] = []
        self.lock = threading.Lock()
        self.button_pins: tuple[int, ...] = ()  # the clock's push buttons (white's, black's)
        self.pressed: set[int] = set()  # the button pins held down
        # with a clock (microseconds): every row driven low and column read, timed (for the tests)
        self.clock_us: Callable[[], int] | None = None
        self.log: list[tuple[str, int, int]] = []  # ("drive", row, t) / ("read", column, t)
        # a column a closed switch held low rises again only this long after its row is released
        # (its pull-up charging the wire: the settling time the firmware must wait; needs clock_us)
        self.rise_us = 0
        self.low_until: dict[int, int] = {}  # column -> when it reads high again
        # a Hall-sensor board (hardware/wiring-hall.md): what stands on each cell (link.WHITE_MAN...),
        # and its wiring: ("pairs", load, clock, data) or ("linear", select pins, enable pins, adc pin)
        self.hall: tuple[Any, ...] | None = None
        self.cols_n = 0  # the board's columns (a cell's index is row * columns + column)
        self.pieces: dict[Cell, int] = {}
        self.upside_down: set[Cell] = set()  # pieces whose magnet is the other way up
        self.shift: list[bool] = []  # the 74HC165 chain's latched bits (True: a switch sees its pole)
        self.shifted = 0  # bits clocked out since the load
        self.noise = 0  # ADC counts of noise on a linear sensor's reading (a seeded random amount)
        self.rng = random.Random(0)

    def field(self, cell: Cell) -> int:
        """A linear sensor's reading over ``cell``: ADC counts from the no-field level
        (hardware/wiring-hall.md: a man about 530, a king about 815; positive: north up)."""
        state = self.pieces.get(cell, link.EMPTY)
        size = {link.EMPTY: 0, link.OCCUPIED: 120}.get(
            state, 815 if state in (link.WHITE_KING, link.BLACK_KING) else 530
        )
        sign = 1 if state in (link.WHITE_MAN, link.WHITE_KING, link.OCCUPIED) else -1
        if cell in self.upside_down:
            sign = -sign
        noise = self.rng.randint(-self.noise, self.noise) if self.noise else 0
        return sign * size + noise if size else noise

    def latch(self) -> None:
        """The 74HC165s copy their inputs: cell i's white switch is bit 2i, its black switch 2i + 1."""
        n = len(self.shift) // 2
        bits = [False] * (2 * n)
        for (r, c), _state in self.pieces.items():
            i = r * self.cols_n + c
            if i < n:
                f = self.field((r, c))
                bits[2 * i] = f >= 200  # a white piece (north up): the switch mounted marked side up
                bits[2 * i + 1] = f <= -200  # a black one: the switch mounted marked side down
        self.shift = bits
        self.shifted = 0


def fake_modules(matrix: _Matrix) -> dict[str, types.ModuleType]:
    """``machine``, ``neopixel`` and ``micropython`` for the firmware under CPython."""
    machine = types.ModuleType("machine")

    class Pin:
        OUT = 1
        IN = 0
        PULL_UP = 1

        def __init__(self, pin: int, mode: int = 0, pull: int | None = None, value: int | None = None) -> None:
            self.id = pin
            self.mode = mode
            self._value = 1 if value is None else value
            if pin in matrix.button_pins:
                pass  # a push button to ground: reads 0 while held
            elif mode == Pin.OUT and self not in matrix.rows:
                matrix.rows.append(self)
            elif mode == Pin.IN and pull == Pin.PULL_UP:
                matrix.cols.append(self)

        def value(self, v: int | None = None) -> int:
            hall = matrix.hall
            if hall is not None and hall[0] == "pairs" and self.id in hall[1:]:
                return self._pairs(v)
            if v is not None:
                was, self._value = self._value, v
                if matrix.clock_us is not None and self in matrix.rows:
                    r = matrix.rows.index(self)
                    now = matrix.clock_us()
                    if v == 0:
                        matrix.log.append(("drive", r, now))
                    elif was == 0 and matrix.rise_us:  # released: its closed switches' columns rise slowly
                        for c in range(len(matrix.cols)):
                            if (r, c) in matrix.closed:
                                matrix.low_until[c] = now + matrix.rise_us
                return v
            if self.id in matrix.button_pins:
                return 0 if self.id in matrix.pressed else 1
            if self.mode == Pin.OUT:
                return self._value
            c = matrix.cols.index(self)
            if matrix.clock_us is not None:
                now = matrix.clock_us()
                matrix.log.append(("read", c, now))
                if now < matrix.low_until.get(c, 0):
                    return 0  # still on its way up: read too early, a ghost
            with matrix.lock:
                for r, row in enumerate(matrix.rows):
                    if row._value == 0 and (r, c) in matrix.closed:
                        return 0  # through the closed switch and its diode to the driven row
            return 1

        def _pairs(self, v: int | None) -> int:
            """The 74HC165 chain of a two-switch Hall board: SH/LD low copies the inputs, a
            rising CLK moves the next bit to QH; QH reads 0 where a switch sees its pole."""
            assert matrix.hall is not None
            _kind, load, clk, data = matrix.hall
            if v is not None:
                was, self._value = self._value, v
                with matrix.lock:
                    if self.id == load and v == 0:
                        matrix.latch()
                    elif self.id == clk and v == 1 and was == 0:
                        matrix.shifted += 1
                return v
            if self.id != data:
                return self._value
            with matrix.lock:
                k = matrix.shifted
                return 0 if k < len(matrix.shift) and matrix.shift[k] else 1

    machine.Pin = Pin  # type: ignore[attr-defined]

    class ADC:
        """ADC0 of a linear Hall board: the multiplexer enabled (its /E low) and the channel
        S0-S3 select, read as a 16-bit value (the 12-bit reading shifted up, as MicroPython's)."""

        def __init__(self, pin: Any) -> None:
            self.pin = pin

        def read_u16(self) -> int:
            hall = matrix.hall
            reading = 0
            if hall is not None and hall[0] == "linear":
                _kind, select, enable, _adc = hall
                pins = {p.id: p for p in matrix.rows}  # (outputs register as "rows")
                on = [m for m, e in enumerate(enable) if e in pins and pins[e]._value == 0]
                if len(on) == 1:
                    ch = sum(pins[s]._value << b for b, s in enumerate(select) if s in pins)
                    i = on[0] * 16 + ch
                    with matrix.lock:
                        reading = matrix.field(divmod(i, matrix.cols_n)) if matrix.cols_n else 0
            return max(0, min(4095, 2048 + reading)) << 4

    machine.ADC = ADC  # type: ignore[attr-defined]

    neopixel = types.ModuleType("neopixel")

    class NeoPixel:
        def __init__(self, pin: Any, n: int) -> None:
            self.n = n
            self.buf = [(0, 0, 0)] * n
            self.shown = list(self.buf)
            self.writes = 0

        def __setitem__(self, i: int, colour: tuple[int, int, int]) -> None:
            self.buf[i] = colour

        def __getitem__(self, i: int) -> tuple[int, int, int]:
            return self.buf[i]

        def write(self) -> None:
            self.shown = list(self.buf)
            self.writes += 1

    neopixel.NeoPixel = NeoPixel  # type: ignore[attr-defined]

    micropython = types.ModuleType("micropython")
    micropython.kbd = 3  # type: ignore[attr-defined]

    def kbd_intr(c: int) -> None:
        micropython.kbd = c  # type: ignore[attr-defined]

    micropython.kbd_intr = kbd_intr  # type: ignore[attr-defined]
    return {"machine": machine, "neopixel": neopixel, "micropython": micropython, "link": link}


def link_of_version(version: int) -> types.ModuleType:
    """The codec speaking another protocol version (an older firmware, for the tests)."""
    spec = importlib.util.spec_from_file_location(f"link_v{version}", Path(link.__file__))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.VERSION = version  # type: ignore[attr-defined]
    mod.SPEAKS = (version,)  # type: ignore[attr-defined]
    return mod


def load_link(folder: Path) -> types.ModuleType:
    """The codec of the firmware in ``folder`` (an older firmware's own link.py), as a module."""
    spec = importlib.util.spec_from_file_location(f"link_{folder.name}", folder / "link.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class FakeWatchdog:
    """The chip's watchdog as main.py gives it to the firmware: armed with a timeout, fed,
    stopped. The emulator restarts the firmware when it is armed and not fed in time."""

    def __init__(self, longest: int = 8388) -> None:
        self.longest = longest
        self.timeout_ms = 0  # 0: not armed
        self.fed = time.monotonic()
        self.feeds = 0

    def arm(self, ms: int) -> int:
        self.timeout_ms = min(ms, self.longest)
        self.fed = time.monotonic()
        return self.timeout_ms

    def feed(self) -> None:
        self.fed = time.monotonic()
        self.feeds += 1

    def stop(self) -> None:
        self.timeout_ms = 0

    def expired(self) -> bool:
        return bool(self.timeout_ms) and time.monotonic() - self.fed > self.timeout_ms / 1000


def load_firmware(
    modules: dict[str, types.ModuleType], folder: Path = FIRMWARE_DIR, name: str = "board_fw"
) -> types.ModuleType:
    """board_fw.py (or another file, ``name``) of ``folder`` (hardware/firmware), imported with the fakes in place."""
    saved = {k: sys.modules.get(k) for k in modules}
    sys.modules.update(modules)
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_emulated", folder / f"{name}.py")
        if spec is None or spec.loader is None:
            raise ImportError(f"no firmware in {folder}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v


class Faults:
    """Damage on the line from the board to the host (rates per byte or per write)."""

    def __init__(
        self,
        seed: int = 0,
        flip: float = 0.0,
        drop: float = 0.0,
        duplicate: float = 0.0,
        truncate: float = 0.0,
        garbage: float = 0.0,
    ) -> None:
        self.rng = random.Random(seed)
        self.flip, self.drop, self.duplicate, self.truncate, self.garbage = flip, drop, duplicate, truncate, garbage

    def __call__(self, data: bytes) -> bytes:
        rng = self.rng
        out = bytearray()
        if rng.random() < self.garbage:
            out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 40)))
        for b in data:
            if rng.random() < self.drop:
                continue
            if rng.random() < self.flip:
                b ^= 1 << rng.randrange(8)
            out.append(b)
            if rng.random() < self.duplicate:
                out.append(b)
        if out and rng.random() < self.truncate:
            del out[rng.randrange(len(out)) :]
        return bytes(out)


class _PtyStream:
    def __init__(self, master: int, faults: Callable[[bytes], bytes] | None) -> None:
        self.master = master
        self.faults = faults
        self.written: list[bytes] = []  # every frame the firmware sent (for the tests)

    def read_available(self) -> bytes:
        try:
            return os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return b""

    def write(self, data: bytes) -> None:
        self.written.append(data)
        if self.faults is not None:
            data = self.faults(data)
        # nobody reading, or unplugged: the data is lost, as on a real line
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self.master, data)


class Emulator:
    """The firmware on a simulated ``rows`` x ``cols`` matrix, serving a pseudo-terminal."""

    def __init__(
        self,
        rows: int = 8,
        cols: int | None = None,
        *,
        faults: Callable[[bytes], bytes] | None = None,
        debounce_ms: int = 20,
        heartbeat_ms: int = 500,
        scan_hz: int = 200,
        cells: set[Cell] | None = None,
        protocol: int = link.VERSION,
        firmware: Path | None = None,
        watchdog: bool = True,
        colour: str | None = None,
        pieces: dict[Cell, int] | None = None,
    ) -> None:
        if colour not in (None, "pairs", "linear"):
            raise ValueError(f"colour must be pairs or linear, not {colour!r}")
        self.colour = colour  # a Hall-sensor board (hardware/wiring-hall.md): "pairs" or "linear"
        self.protocol = protocol  # another: a firmware speaking only that link version
        self.folder = firmware or FIRMWARE_DIR  # another: an older firmware's board_fw.py and link.py
        self.watchdog: FakeWatchdog | None = FakeWatchdog() if watchdog else None
        self.watchdog_resets = 0
        self.n_rows = rows
        self.n_cols = cols or rows
        self.faults = faults
        self.settings = (debounce_ms, heartbeat_ms, scan_hz)
        self.matrix = _Matrix()
        self.matrix.closed = set(cells or ())  # the pieces on the board when it is switched on
        self.matrix.cols_n = self.n_cols
        if colour is not None:  # a piece on each closed cell: white unless told
            self.matrix.pieces = (
                dict(pieces) if pieces is not None else dict.fromkeys(self.matrix.closed, link.WHITE_MAN)
            )
            self.matrix.closed = set(self.matrix.pieces)
        self.dir = tempfile.mkdtemp(prefix="damas-emulator-")
        self.port = os.path.join(self.dir, "pico")
        self.resets = 0
        self._fds: tuple[int, int] | None = None
        self._thread: threading.Thread | None = None
        self._watcher: threading.Thread | None = None
        self._stop = threading.Event()
        self._unhang = threading.Event()
        self._hung = False
        self._crash: Exception | None = None
        self.firmware: Any = None
        # one restart, plug or unplug at a time: the watchdog restarts the board from its own
        # thread, and a test (or the app) may unplug it meanwhile
        self._life = threading.RLock()
        self.stream: _PtyStream | None = None
        self.plug()

    # -- the cable ---------------------------------------------------------------------------
    def plug(self) -> None:
        with self._life:
            self._fds = plug_pty(self.port)
            self._boot()

    def unplug(self) -> None:
        with self._life:
            self._halt()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.port)  # the device is gone: its path too
            if self._fds is not None:
                for fd in self._fds:
                    os.close(fd)
                self._fds = None

    def reset(
        self,
        banner: bytes = b"\r\nMicroPython v1.24 on 2026-01-01; Raspberry Pi Pico\r\n",
        why: int = link.RESET_REQUESTED,
    ) -> None:
        """The microcontroller restarts: a boot banner on the line, a fresh firmware (``why``:
        what its HELLO then says: a requested reset, or its watchdog's)."""
        with self._life:
            self._halt()
            self.resets += 1
            if self._fds is not None:
                with contextlib.suppress(OSError):
                    os.write(self._fds[0], banner)
            self._boot(why)

    def hang(self) -> None:
        """The firmware hangs: it stops scanning, answering and feeding its watchdog (which,
        if the host armed it, restarts the board after its timeout)."""
        self._unhang.clear()
        self._hung = True

    def crash(self, error: Exception | None = None) -> None:
        """The firmware fails with an exception at its next step (it sends ERROR 2 and stops)."""
        self._crash = error or MemoryError("memory allocation failed, allocating 512 bytes")

    # -- the firmware --------------------------------------------------------------------------
    def _boot(self, why: int = link.RESET_POWER) -> None:
        assert self._fds is not None
        self.matrix.rows.clear()
        self.matrix.cols.clear()
        buttons = LINEAR_BUTTON_PINS if self.colour == "linear" else BUTTON_PINS
        self.matrix.button_pins = (*buttons, READOUT_PIN)
        cells = self.n_rows * self.n_cols
        if self.colour == "pairs":
            self.matrix.hall = ("pairs", *PAIRS_PINS)
            self.matrix.shift = [False] * (2 * cells)
        elif self.colour == "linear":
            enable = tuple(range(6, 6 + (cells + 15) // 16))
            self.matrix.hall = ("linear", SELECT_PINS, enable, ADC_PIN)
        modules = fake_modules(self.matrix)
        if self.protocol != link.VERSION:
            modules["link"] = link_of_version(self.protocol)
        elif self.folder != FIRMWARE_DIR:
            modules["link"] = load_link(self.folder)
        mod = load_firmware(modules, self.folder)
        self.stream = _PtyStream(self._fds[0], self.faults)
        debounce_ms, heartbeat_ms, scan_hz = self.settings
        n = self.n_rows
        rows = list(range(2, 2 + n))  # as main.py wires them
        cols = list(range(12, 12 + self.n_cols))
        self._stop = threading.Event()
        self._unhang = threading.Event()
        self._hung = False
        self._crash = None
        extra: dict[str, Any] = {}
        if self.folder == FIRMWARE_DIR:  # (an older firmware has neither)
            if self.watchdog is not None:
                self.watchdog = FakeWatchdog()
            # (no capacitance on an emulated column: no settling time to wait)
            extra = {"watchdog": self.watchdog, "reset": why, "sleep_us": lambda us: None, "readout": READOUT_PIN}
        stop = self._stop
        booted = time.monotonic()
        if self.colour is not None:
            hall = load_firmware(modules, self.folder, "hall")
            if self.colour == "pairs":
                extra["sensor"] = hall.HallPairs(*PAIRS_PINS, cells)
            else:
                extra["sensor"] = hall.LinearHall(SELECT_PINS, self.matrix.hall[2], ADC_PIN, cells)  # type: ignore[index]
            extra["size"] = (self.n_rows, self.n_cols)
            rows, cols = [], []
        self.firmware = mod.Firmware(
            rows,
            cols,
            22,
            self.stream,
            scan_hz=scan_hz,
            debounce_ms=debounce_ms,
            heartbeat_ms=heartbeat_ms,
            ticks_ms=lambda: int((time.monotonic() - booted) * 1000),  # since its start, as on the Pico
            sleep_ms=lambda ms: stop.wait(ms / 1000),
            buttons=buttons,
            **extra,
        )
        step = self.firmware.step

        def stepping() -> None:  # the firmware's step, with the faults the tests inject
            if self._crash is not None:
                raise self._crash
            if self._hung:
                self._unhang.wait()  # hung until the board restarts
                return
            step()

        self.firmware.step = stepping
        self._thread = threading.Thread(target=self._run, args=(self.firmware,), name="emulated-pico", daemon=True)
        self._thread.start()
        self._watcher = threading.Thread(target=self._watch, args=(stop,), name="emulated-watchdog", daemon=True)
        self._watcher.start()

    def _run(self, fw: Any) -> None:
        with contextlib.suppress(Exception):  # a failed firmware stops, as on the Pico (ERROR 2 sent)
            fw.run()

    def _watch(self, stop: threading.Event) -> None:
        """The chip's watchdog: armed and not fed in time (the firmware hung, failed, or stopped
        without stopping it), it restarts the board."""
        while not stop.wait(0.05):
            if self.watchdog is not None and self.watchdog.expired():
                threading.Thread(target=self._bark, name="emulated-watchdog", daemon=True).start()
                return

    def _bark(self) -> None:
        with self._life:
            if self._fds is None:  # unplugged meanwhile: nothing to restart
                return
            self.watchdog_resets += 1
            self.reset(why=link.RESET_WATCHDOG)

    def _halt(self) -> None:
        self._stop.set()
        if self.firmware is not None:
            self.firmware.running = False
        self._unhang.set()
        for thread in (self._thread, self._watcher):
            if thread is not None and thread is not threading.current_thread():
                thread.join(timeout=2)
        self._thread = self._watcher = None

    def close(self) -> None:
        self.unplug()
        for name in (self.port,):
            if os.path.lexists(name):
                os.unlink(name)
        os.rmdir(self.dir)

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the switches ----------------------------------------------------------------------------
    def place(self, cell: Cell, piece: int | None = None) -> None:
        """A piece put on ``cell`` (on a Hall board: ``piece``, link.WHITE_MAN ... BLACK_KING;
        a white man unless told)."""
        with self.matrix.lock:
            self.matrix.closed.add(cell)
            if self.colour is not None:
                self.matrix.pieces[cell] = link.WHITE_MAN if piece is None else piece

    def lift(self, cell: Cell) -> None:
        with self.matrix.lock:
            self.matrix.closed.discard(cell)
            self.matrix.pieces.pop(cell, None)

    def set_cells(self, cells: set[Cell]) -> None:
        with self.matrix.lock:
            self.matrix.closed = set(cells)

    def bounce(self, cell: Cell, times: int = 3, step: float = 0.0005) -> None:
        """Chatter on a switch, ending where it was."""
        with self.matrix.lock:
            state = cell in self.matrix.closed
        for _ in range(times):
            (self.lift if state else self.place)(cell)
            time.sleep(step)
            (self.place if state else self.lift)(cell)
            time.sleep(step)

    def hold(self, side: str, down: bool) -> None:
        """Hold the clock button of ``side`` (``white``/``black``), or the read-out button
        (``read-out``), down, or let it go."""
        with self.matrix.lock:
            (self.matrix.pressed.add if down else self.matrix.pressed.discard)(self._button_pin(side))

    def press(self, side: str, hold: float = 0.08, within: float = 5.0) -> None:
        """A press of a clock button: down for ``hold`` seconds and until the firmware's debounce
        has taken it, then released until it has taken that too (a hand holds a button until it
        gives; on a loaded machine the firmware's scan may not come round in ``hold``). Each wait
        is bounded by ``within`` seconds: a hung or unplugged firmware takes nothing."""
        pin = self._button_pin(side)
        self.hold(side, True)
        time.sleep(hold)
        self._until_taken(pin, True, within)
        self.hold(side, False)
        self._until_taken(pin, False, within)

    @staticmethod
    def _button_pin(side: str) -> int:
        return READOUT_PIN if side == "read-out" else BUTTON_PINS[0 if side == "white" else 1]

    def _until_taken(self, pin: int, down: bool, within: float) -> None:
        """Wait (at most ``within`` seconds) until the firmware's debounce has the button on
        ``pin`` ``down`` (at once when no firmware reads that pin)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            fw = self.firmware
            seen = [
                d
                for b, d in zip(getattr(fw, "buttons", ()), getattr(fw, "button_down", ()), strict=False)
                if getattr(b, "id", None) == pin
            ]
            if not seen or seen[0] == down:
                return
            time.sleep(0.005)

    def leds(self) -> dict[int, tuple[int, int, int, int]]:
        """What the host asked the LEDs to show (cell index -> r, g, b, pattern)."""
        return dict(self.firmware.leds) if self.firmware else {}

    @property
    def plugged(self) -> bool:
        return self._fds is not None


#: short names of the LED roles for the grid (the list under it gives the full ones)
SHORT = {"must-capture": "must", "capturable": "capt", "remove": "remove", "missing": "missing", "error": "error"}
PATTERN_NAMES = {link.OFF: "off", link.STEADY: "steady", link.SLOW: "slow blink", link.FAST: "fast blink"}


def led_label(r: int, g: int, b: int, pattern: int) -> str:
    """The LED role a colour and pattern show with the default looks, else ``#rrggbb``."""
    from board_hal.leds import DEFAULT_LOOKS
    from firmware_bridge.bridge import PATTERNS

    for role, look in DEFAULT_LOOKS.items():
        if look.colour == (r, g, b) and PATTERNS[look.pattern] == pattern:
            return role.value
    return f"#{r:02x}{g:02x}{b:02x}"


def board_text(
    emu: Emulator,
    key_of: Callable[[int, int], int | str],
    physical: Callable[[int, int], Cell],
    name_of: Callable[[int | str], str],
) -> str:
    """The emulated board as a user at the real one would see it: a grid from White's side
    (rank 1 at the bottom), each square with its piece (``o``) or none (``.``) and the LED
    under it (its role, or its colour when the host uses its own colours), then the lit
    LEDs one per line with colour and pattern.

    ``key_of(row, col)``: the square number or cell name of a physical cell; ``physical(file,
    rank)``: the physical cell under a board coordinate; ``name_of(key)``: how to name a square.
    """
    n = emu.n_rows
    with emu.matrix.lock:
        closed = set(emu.matrix.closed)
    leds = emu.leds() if emu.plugged else {}  # unplugged, the Pico has no power: its LEDs are dark
    files = "abcdefghij"[:n]
    width = 9
    lines = [("    " + "".join(f"{f:<{width}}" for f in files)).rstrip()]
    lit: list[str] = []
    for rank in range(n - 1, -1, -1):
        row_text = []
        for file in range(n):
            cell = physical(file, rank)
            key = key_of(*cell)
            piece = "o" if cell in closed else ("." if isinstance(key, int) else " ")
            entry = leds.get(cell[0] * emu.n_cols + cell[1])
            label = ""
            if entry is not None and entry[3] != link.OFF:
                full = led_label(*entry)
                label = SHORT.get(full, full)
                r, g, b, pattern = entry
                lit.append(f"  {name_of(key)}: {full} (#{r:02x}{g:02x}{b:02x}, {PATTERN_NAMES.get(pattern, '?')})")
            row_text.append(f"{piece} {label:<{width - 2}}")
        lines.append(f"{rank + 1:>2}  " + "".join(row_text).rstrip())
    state = "plugged in" if emu.plugged else "UNPLUGGED (the host cannot reach the LEDs)"
    lines.append(f"o piece   . empty square   cable {state}")
    if not emu.plugged:
        lines.append("LEDs lit: 0 (no power while unplugged)")
    else:
        lines.append(f"LEDs lit: {len(lit)}" + (":" if lit else " (the host has not lit any)"))
    lines.extend(lit)
    return "\n".join(lines)
