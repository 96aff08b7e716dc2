"""The host side of the serial link: a ``board_hal`` sensor and LED backend.

pyserial's ``serial_for_url`` opens the port (so ``loop://``, a pseudo-terminal and a
real ``/dev/ttyACM0`` work the same). A background reader splits the byte stream into
frames (``link.Deframer``: a damaged frame is dropped, never half-used), turns each
occupancy snapshot into cell transitions, and reconnects with back-off when the cable is
unplugged or the board stops answering. The LED frame is re-sent after every reconnect.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Mapping
from typing import Any

from board_hal.backends import Clock, LedBackend, SensorBackend, stop_worker
from board_hal.layout import Cell
from board_hal.leds import DEFAULT_LOOKS, Look, Pattern, Role
from firmware_bridge import link

PATTERNS = {Pattern.OFF: link.OFF, Pattern.STEADY: link.STEADY, Pattern.SLOW: link.SLOW, Pattern.FAST: link.FAST}
PICO_USB_VID = 0x2E8A  # Raspberry Pi


class BridgeError(Exception):
    """A problem with the serial link, as one line."""


def find_pico_port() -> str | None:
    """The first serial port of a Raspberry Pi (Pico) USB device, if one is plugged in."""
    from serial.tools import list_ports

    for port in sorted(list_ports.comports(), key=lambda p: p.device):
        if port.vid == PICO_USB_VID:
            return str(port.device)
    return None


class PicoBoard(SensorBackend, LedBackend):
    def __init__(
        self,
        url: str,
        size: int,
        *,
        baudrate: int = 115200,
        looks: Mapping[Role, Look] | None = None,
        clock: Clock = time.monotonic,
        backoff: tuple[float, float] = (0.1, 2.0),
        silence: float = 3.0,
    ) -> None:
        SensorBackend.__init__(self, size, clock)
        self.url = url
        self.baudrate = baudrate
        self.looks = dict(looks or DEFAULT_LOOKS)
        self.backoff = backoff
        self.silence = silence
        self._state: frozenset[Cell] = frozenset()
        self._serial: Any = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._first = threading.Event()
        self._thread: threading.Thread | None = None
        self._leds = link.pack_leds([])
        self.info: tuple[Any, ...] | None = None
        self.last_error: tuple[int, str] | None = None
        self.stats = {"frames": 0, "dropped": 0, "snapshots": 0, "bad_payloads": 0, "connects": 0, "disconnects": 0}
        self.accepted: list[bytes] = []  # payloads of accepted snapshots (kept for the tests, last 1000)
        self.connected = threading.Event()

    # -- running -------------------------------------------------------------------------------
    def start(self, wait: float = 3.0) -> None:
        """Start the reader; wait (a little) for the first snapshot."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="pico-bridge", daemon=True)
            self._thread.start()
        self._first.wait(wait)

    def _open(self) -> Any:
        import serial

        return serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05, write_timeout=0.5)

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                ser = self._open()
            except Exception:  # the port is missing: plugged out, or not yet there
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self.stats["connects"] += 1
            with self._write_lock:
                self._serial = ser
            self.connected.set()
            try:
                self._session(ser)
            except Exception:  # unplugged, reset, I/O error: start over
                pass
            finally:
                self.connected.clear()
                with self._write_lock:
                    self._serial = None
                with contextlib.suppress(Exception):
                    ser.close()
                self.stats["disconnects"] += 1
            if not self._stop.is_set():
                self._stop.wait(delay)

    def _session(self, ser: Any) -> None:
        deframer = link.Deframer()
        self._send(link.HELLO)
        self._send(link.LEDS, self._leds)
        last_frame = time.monotonic()
        poked = False
        while not self._stop.is_set():
            data = ser.read(max(1, ser.in_waiting))
            now = time.monotonic()
            if data:
                dropped = deframer.dropped
                for kind, _seq, payload in deframer.feed(data):
                    self.stats["frames"] += 1
                    last_frame = now
                    poked = False
                    self._handle(kind, payload)
                self.stats["dropped"] += deframer.dropped - dropped
            elif now - last_frame > self.silence:
                if poked:
                    return  # no answer: reconnect
                self._send(link.HELLO)
                poked = True
                last_frame = now

    def _handle(self, kind: int, payload: bytes) -> None:
        try:
            if kind == link.SNAPSHOT:
                rows, cols, cells, _uptime = link.unpack_snapshot(payload)
                if rows != self.size or cols != self.size:
                    self.last_error = (0, f"the board reports {rows}x{cols}, the layout needs {self.size}x{self.size}")
                    return
                self._snapshot(frozenset(divmod(i, cols) for i in cells), payload)
            elif kind == link.HELLO:
                self.info = link.unpack_hello(payload)
            elif kind == link.ERROR:
                self.last_error = link.unpack_error(payload)
        except ValueError:
            self.stats["bad_payloads"] += 1

    def _snapshot(self, new: frozenset[Cell], payload: bytes) -> None:
        self.stats["snapshots"] += 1
        self.accepted.append(payload[6:])
        del self.accepted[:-1000]
        now = self.clock()
        old = self._state
        self._state = new
        if not self._first.is_set():  # the first snapshot is the starting state, not a change
            self._first.set()
            return
        for cell in sorted(old ^ new):  # after a reconnect: what changed while the line was down
            self._emit(cell, cell in new, now)

    def _send(self, kind: int, payload: bytes = b"") -> bool:
        with self._write_lock:
            ser = self._serial
            if ser is None:
                return False
            try:
                ser.write(link.encode(kind, 0, payload))
                return True
            except Exception:
                return False

    # -- the backend interfaces -----------------------------------------------------------------
    def snapshot(self) -> frozenset[Cell]:
        return self._state

    def show(self, intents: Mapping[Cell, Role]) -> None:
        entries = []
        for (r, c), role in intents.items():
            look = self.looks[role]
            entries.append((r * self.size + c, *look.colour, PATTERNS[look.pattern]))
        self._leds = link.pack_leds(sorted(entries))
        self._send(link.LEDS, self._leds)

    def configure(self, scan_hz: int = 200, debounce_ms: int = 20, heartbeat_ms: int = 500) -> bool:
        return self._send(link.CONFIG, link.pack_config(scan_hz, debounce_ms, heartbeat_ms))

    def repl(self) -> bool:
        """Ask the firmware to give the line back to the REPL (for an update with mpremote)."""
        return self._send(link.REPL)

    def close(self) -> None:
        if self.closed:
            return
        stop_worker(self._stop, self._thread, timeout=2.0)
        super().close()
