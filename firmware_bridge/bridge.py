"""The host side of the serial link: a ``board_hal`` sensor and LED backend.

pyserial's ``serial_for_url`` opens the port (so ``loop://``, a pseudo-terminal and a
real ``/dev/ttyACM0`` work the same). A background reader splits the byte stream into
frames (``link.Deframer``: a damaged frame is dropped, never half-used), turns each
occupancy snapshot into cell transitions, and reconnects with back-off when the cable is
unplugged or the board stops answering. The LED frame is re-sent after every reconnect.

After every (re)connect nothing the line says is trusted until the firmware has answered
HELLO (the protocol version and the matrix size must match): a port path that now leads
somewhere else (a pseudo-terminal reused by another program, another device) never turns
into pieces. The link's state is reported (``link``, and a ``LinkChange`` on the queue):
down when the line is lost, up again with the whole occupancy once the firmware answered.
A gap in the board's frame numbers (frames lost on a noisy line) is reported the same way
when the occupancy changed across it: what happened in between is known only as a result.

Link protocols 3 and 2 (hardware/protocol.md): the HELLO exchange settles which one this
connection speaks. With protocol 3 the host sends the firmware its CONFIG (row settling
time, the LED strip's layout, a watchdog) and LED indexes are cells; with a protocol-2
firmware it maps cells to strip positions itself. A board its watchdog restarted is
reported (a warning, ``stats["watchdog_resets"]``), and so is a firmware that failed.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Mapping
from typing import Any

from board_hal.backends import Clock, LedBackend, SensorBackend, stop_worker
from board_hal.buttons import SIDES, ButtonPress, ReadOut
from board_hal.layout import Cell
from board_hal.leds import DEFAULT_LOOKS, Look, Pattern, Role
from board_hal.squares import Sensing, SquareState
from firmware_bridge import link

log = logging.getLogger(__name__)

#: the link's patterns (protocol 3 knows four): the newer ones as the nearest the firmware shows (an
#: RGB strip tells those roles apart by colour: a suggested move's origin blinks, its destination
#: and the last move glow steady)
PATTERNS = {
    Pattern.OFF: link.OFF,
    Pattern.STEADY: link.STEADY,
    Pattern.SLOW: link.SLOW,
    Pattern.FAST: link.FAST,
    Pattern.FLASH: link.STEADY,
    Pattern.DOUBLE: link.SLOW,
    Pattern.WINK: link.STEADY,
}
PICO_USB_VID = 0x2E8A  # Raspberry Pi
WATCHDOG_MS = 4000  # the watchdog the host asks a protocol-3 firmware to arm (0: none)
DEFAULT_STRIP = ((0, 0), link.ALONG_ROWS, link.SERPENTINE)  # LED 0 at cell (0, 0), zig-zag along rows


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
        hello_every: float = 0.5,
        strip: tuple[tuple[int, int], int, int] = DEFAULT_STRIP,
        settle_us: int = 30,
        watchdog_ms: int = WATCHDOG_MS,
        scan_hz: int = link.KEEP,
        debounce_ms: int = link.KEEP,
        heartbeat_ms: int = link.KEEP,
        thresholds: tuple[int, int] = (0, 0),
    ) -> None:
        SensorBackend.__init__(self, size, clock)
        link.strip_position(0, size, size, strip)  # (a strip that does not start at a corner: ValueError now)
        self.strip = strip
        self.settings = (scan_hz, debounce_ms, heartbeat_ms, settle_us, watchdog_ms)
        # a linear Hall board's thresholds (present, king; 0 keeps the firmware's own): sent after
        # every HELLO it answers, since a firmware that restarts has forgotten them
        self.thresholds = thresholds
        self.version = link.VERSION  # the protocol this connection speaks (HELLO settles it)
        self._deframer: link.Deframer | None = None
        self._entries: list[tuple[int, int, int, int, int]] = []  # lit LEDs: (cell index, r, g, b, pattern)
        self._booted: float | None = None  # when the board whose watchdog reset was reported started
        self.squares: list[int] | None = None  # each cell's state, from a colour board (protocol 3)
        self._link_up = False  # until the firmware has answered and sent its first snapshot
        self.url = url
        self.baudrate = baudrate
        self.looks = dict(looks or DEFAULT_LOOKS)
        self.backoff = backoff
        self.silence = silence
        self.hello_every = hello_every
        self._state: frozenset[Cell] = frozenset()
        self._read: dict[Cell, SquareState] = {}  # a colour board: what stands on each occupied cell
        self.fields_read: dict[Cell, int] = {}  # the last FIELDS answer
        self.accepted_squares: list[bytes] = []  # states of accepted SQUARES (kept for the tests, last 1000)
        self._fields_came = threading.Event()
        self._serial: Any = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._first = threading.Event()
        self._thread: threading.Thread | None = None
        self.info: tuple[Any, ...] | None = None
        self.last_error: tuple[int, str] | None = None
        self.stats = {
            "frames": 0,
            "dropped": 0,
            "snapshots": 0,
            "bad_payloads": 0,
            "connects": 0,
            "disconnects": 0,
            "untrusted": 0,  # frames before the firmware answered HELLO (ignored)
            "gaps": 0,  # jumps in the board's frame numbers (frames lost)
            "duplicates": 0,
            "watchdog_resets": 0,  # the board said its watchdog restarted it (a hung or failed firmware)
        }
        self._announce_lock = threading.Lock()
        self._started = False  # start() has returned: a late first snapshot is announced
        self._verified = False  # this connection's firmware answered HELLO
        self._seq: int | None = None  # the board's last frame number
        self._gap = False  # frames were lost since the last snapshot
        self._lost: int | None = 0  # how many (None: unknown, the board restarted)
        self._reconnected = False  # the next snapshot is the first after a reconnect
        self._presses: tuple[int, int] | None = None  # the clock buttons' press counts last reported
        self._gestures: tuple[int, int] | None = None  # the read-out presses and chords last reported
        self.accepted: list[bytes] = []  # payloads of accepted snapshots (kept for the tests, last 1000)
        self.connected = threading.Event()

    # -- running -------------------------------------------------------------------------------
    def start(self, wait: float = 3.0) -> None:
        """Start the reader; wait (a little) for the first snapshot."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="pico-bridge", daemon=True)
            self._thread.start()
        self._first.wait(wait)
        with self._announce_lock:
            self._started = True

    def _open(self) -> Any:
        import serial

        return serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05, write_timeout=0.5)

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                ser = self._open()
            except Exception as exc:  # the port is missing: plugged out, or not yet there
                log.debug("cannot open %s (again in %.1f s): %s", self.url, delay, exc)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self.stats["connects"] += 1
            with self._write_lock:
                self._serial = ser
            self.connected.set()
            self._verified = False
            self._seq = None
            try:
                self._session(ser)
            except Exception as exc:  # unplugged, reset, I/O error: start over
                if not self._stop.is_set():
                    log.warning("the link to the Pico on %s broke: %s", self.url, str(exc) or type(exc).__name__)
                    log.debug("the link to the Pico on %s: the traceback", self.url, exc_info=exc)
            finally:
                self.connected.clear()
                self._verified = False
                if self._first.is_set():
                    self._reconnected = True
                if self._link_up:
                    self._link_change(False, self.clock())
                with self._write_lock:
                    self._serial = None
                with contextlib.suppress(Exception):
                    ser.close()
                self.stats["disconnects"] += 1
            if not self._stop.is_set():
                self._stop.wait(delay)

    def _session(self, ser: Any) -> None:
        self.version = link.VERSION  # each connection starts with the newest, HELLO settles it
        deframer = self._deframer = link.Deframer(self.version)
        self._send(link.HELLO)
        last_frame = opened = last_hello = time.monotonic()
        poked = False
        while not self._stop.is_set():
            data = ser.read(max(1, ser.in_waiting))
            now = time.monotonic()
            if data:
                dropped = deframer.dropped
                for kind, seq, payload in deframer.feed(data):
                    self.stats["frames"] += 1
                    if self._verified:
                        last_frame = now
                        poked = False
                    self._handle(kind, seq, payload)
                if deframer.dropped != dropped:
                    # a noisy line is diagnosable: `damas -v` shows what was thrown away, and why
                    log.debug(
                        "the Pico on %s: dropped %d bad frame(s) (the last: %s)",
                        self.url,
                        deframer.dropped - dropped,
                        deframer.reason,
                    )
                    self.stats["dropped"] += deframer.dropped - dropped
                if deframer.foreign is not None:
                    version = deframer.foreign[0]
                    deframer.foreign = None
                    if version in link.SPEAKS:  # the other version we speak: our next HELLO settles it
                        log.debug("the Pico on %s: a frame of protocol %d before HELLO settled it", self.url, version)
                    else:
                        self._foreign(version)
            if not self._verified:
                # whatever is on the line is not trusted until the firmware says who it is
                if now - opened > self.silence:
                    return  # no firmware answered: reconnect
                if now - last_hello >= self.hello_every:
                    self._send(link.HELLO)
                    last_hello = now
            elif not data and now - last_frame > self.silence:
                if poked:
                    return  # no answer: reconnect
                self._send(link.HELLO)
                poked = True
                last_frame = now

    def _handle(self, kind: int, seq: int, payload: bytes) -> None:
        try:
            if kind == link.HELLO:
                self._hello(seq, payload)
                return
            if not self._verified:
                self.stats["untrusted"] += 1
                return
            if self._seq is not None:
                expected = (self._seq + 1) & 0xFFFF
                if seq == self._seq:
                    self.stats["duplicates"] += 1
                    return
                if seq != expected:
                    self.stats["gaps"] += 1
                    self._gap = True
                    if self._lost is not None:
                        self._lost += (seq - expected) & 0xFFFF
            self._seq = seq
            if kind == link.SNAPSHOT:
                rows, cols, cells, _uptime = link.unpack_snapshot(payload)
                if rows != self.size or cols != self.size:
                    self.last_error = (0, f"the board reports {rows}x{cols}, the layout needs {self.size}x{self.size}")
                    return
                self._snapshot(frozenset(divmod(i, cols) for i in cells), payload)
            elif kind == link.SQUARES:  # a colour board: the occupancy is every cell not empty
                rows, cols, states, _uptime = link.unpack_squares(payload)
                if rows != self.size or cols != self.size:
                    self.last_error = (0, f"the board reports {rows}x{cols}, the layout needs {self.size}x{self.size}")
                    return
                self.squares = states
                cells = frozenset(divmod(i, cols) for i, state in enumerate(states) if state != link.EMPTY)
                bits = link.pack_snapshot(rows, cols, [r * cols + c for r, c in cells], 0)
                read = {divmod(i, cols): SquareState.from_wire(state) for i, state in enumerate(states) if state}
                self.accepted_squares.append(payload[6:])
                del self.accepted_squares[:-1000]
                self._snapshot(cells, bits, read)
            elif kind == link.FIELDS:  # the board's answer to a FIELDS request (the self-test)
                rows, cols, readings, _uptime = link.unpack_fields(payload)
                self.fields_read = {divmod(i, cols): r for i, r in enumerate(readings)}
                self._fields_came.set()
            elif kind == link.ERROR:
                self.last_error = link.unpack_error(payload)
                if self.last_error[0] == link.FAILED:
                    log.warning("the Pico's firmware on %s failed: %s", self.url, self.last_error[1])
            elif kind == link.BUTTON:
                white, black, _uptime = link.unpack_button(payload)
                self._buttons((white, black), link.button_gestures(payload))
        except ValueError as exc:
            self.stats["bad_payloads"] += 1
            log.debug("the Pico on %s: a bad %s payload ignored (%s)", self.url, link.NAMES.get(kind, kind), exc)

    def _foreign(self, version: int) -> None:
        """A peer speaking another protocol version: refused (nothing it says is used), once said."""
        update = "the Pico's firmware (hardware/firmware/README.md)" if version < link.VERSION else "damas on this host"
        ours = " and ".join(str(v) for v in sorted(link.SPEAKS))
        message = f"the board on {self.url} speaks link protocol {version}; this damas speaks {ours}: update {update}"
        if self.last_error != (0, message):
            log.error("%s", message)
        self.last_error = (0, message)

    def _hello(self, seq: int, payload: bytes) -> None:
        """The firmware says who it is: trusted from now on if it is ours, and this size."""
        info = link.unpack_hello(payload)
        proto, _fw, rows, cols, _leds = info
        if proto != self.version:
            if proto in link.SPEAKS and proto < self.version and self._deframer is not None:
                # an older firmware answered in our version, naming its own: speak that (protocol.md, Versions)
                log.info("the Pico on %s speaks link protocol %d: speaking it", self.url, proto)
                self.version = self._deframer.version = proto
                self._verified = False
                self._send(link.HELLO)
                return
            self._foreign(proto)
            self._verified = False
            return
        if rows != self.size or cols != self.size:
            self.last_error = (
                0,
                f"the board on {self.url} answers protocol {proto}, {rows}x{cols}; "
                f"this host needs protocol {self.version}, {self.size}x{self.size}",
            )
            self._verified = False
            return
        if self._verified and self._seq is not None and seq != (self._seq + 1) & 0xFFFF:
            self._gap = True  # frames were lost, or the board restarted: what it saw meanwhile is a result
            self.stats["gaps"] += 1
            if seq == 0 or self._lost is None:
                self._lost = None  # a restart (its counter starts at 0): how much it missed is unknown
            else:
                self._lost += (seq - self._seq - 1) & 0xFFFF
        first = not self._verified
        counts = link.hello_presses(payload)
        if self._presses is not None and seq != 0:
            self._buttons(counts)  # presses whose frames were lost count now
        self._presses = counts  # (a restarted board counts from 0 again)
        self.info = info
        self._verified = True
        self._seq = seq
        self._watchdog_report(payload)
        if first or seq == 0:  # ours now, or it restarted (its frame counter starts at 0): set it up
            self._gestures = None  # its read-out and chord counts: taken from its next BUTTON
            if self.version >= 3:  # the row settling time, the strip's layout, the watchdog
                self._send(link.CONFIG, self._config())
                fields = link.hello_board(payload)[0] & link.FIELD_READINGS
                if fields and any(self.thresholds):  # a linear board's thresholds (pico.present, pico.king)
                    self._send(link.CALIBRATE, link.pack_calibrate(*self.thresholds))
            self._send(link.LEDS, self._leds_payload())  # the LEDs as they should be

    def _watchdog_report(self, payload: bytes) -> None:
        """A board its watchdog restarted: said once per start of the board (its HELLOs all say so)."""
        features, reset, _armed, uptime = link.hello_board(payload)
        # what the board senses: a colour board (protocol 3's colour feature) tells white from
        # black, one with the crowns feature kings from men too
        colour = self.version >= 3 and bool(features & link.COLOUR)
        self.senses = (Sensing.CROWN if features & link.CROWNS else Sensing.COLOUR) if colour else Sensing.PRESENCE
        if reset != link.RESET_WATCHDOG or uptime is None:
            return
        booted = time.monotonic() - uptime / 1000
        if self._booted is not None and abs(booted - self._booted) < 2.0:
            return  # this start was reported already
        self._booted = booted
        last = f" (the last error it sent: {self.last_error[1]})" if self.last_error else ""
        log.warning(
            "the Pico on %s was restarted by its watchdog %.0f s ago: its firmware hung or failed%s",
            self.url,
            uptime / 1000,
            last,
        )
        self.stats["watchdog_resets"] += 1  # (after the warning: whoever sees the count finds it said)

    def _config(self) -> bytes:
        scan_hz, debounce_ms, heartbeat_ms, settle_us, watchdog_ms = self.settings
        return link.pack_config(scan_hz, debounce_ms, heartbeat_ms, settle_us, self.strip, watchdog_ms)

    def _leds_payload(self) -> bytes:
        """The LEDS frame: cell indexes (protocol 3: the firmware lays them on its strip), or the
        strip positions themselves for a protocol-2 firmware."""
        if self.version >= 3:
            return link.pack_leds(self._entries)
        n = self.size
        return link.pack_leds(sorted((link.strip_position(i, n, n, self.strip), *rest) for i, *rest in self._entries))

    def _buttons(self, counts: tuple[int, int], gestures: tuple[int, int, int] | None = None) -> None:
        """New press counts: one :class:`ButtonPress` per press not reported yet (the board
        sends each count twice, and a HELLO repeats them: copies add nothing). With the
        gestures feature (protocol 3), one :class:`ReadOut` per new chord (both clock buttons
        down together: its presses are held back by the board loop, board_hal.buttons'
        ChordFilter) and per new press of the read-out button."""
        before, self._presses = self._presses, counts
        now = self.clock()
        if before is not None:
            for side, old, new in zip(SIDES, before, counts, strict=True):
                for _ in range(min((new - old) & 0xFFFF, 16)):  # more at once is a restart's noise
                    self.transitions.put(ButtonPress(now, side, "pico"))
        if gestures is None:
            return
        held, readouts, chords = gestures
        if self._gestures is None:  # the first since it started or connected: a gesture under way counts
            self._gestures = (
                (readouts - 1) & 0xFFFF if held & 4 else readouts,
                (chords - 1) & 0xFFFF if held & 3 == 3 else chords,
            )
        (old_readouts, old_chords), self._gestures = self._gestures, (readouts, chords)
        for _ in range(min((chords - old_chords) & 0xFFFF, 16)):
            self.transitions.put(ReadOut(now, "pico"))
        for _ in range(min((readouts - old_readouts) & 0xFFFF, 16)):
            self.transitions.put(ReadOut(now, "pico", chord=False))

    def _snapshot(self, new: frozenset[Cell], payload: bytes, read: dict[Cell, SquareState] | None = None) -> None:
        """The board's whole occupancy (and, from a colour board, what stands on each cell:
        ``read``); what changed is reported (on a colour board, a piece changed too)."""
        self.stats["snapshots"] += 1
        self.accepted.append(payload[6:])
        del self.accepted[:-1000]
        now = self.clock()
        old = self._state
        before = self._read
        self._state = new
        self._read = dict(read) if read is not None else {}
        gap, self._gap = self._gap, False
        lost, self._lost = self._lost, 0
        if not self._first.is_set():  # the first snapshot is the starting state, not a change
            with self._announce_lock:
                self._first.set()
                late = self._started
            if late:  # start() gave up waiting: the board arrives now
                self._link_change(True, now, new, old ^ new, states=read)
            else:
                self._link_up = True
            return
        changed = old ^ new
        if read is not None:  # a colour board: a piece changed on a cell that stays occupied too
            changed |= {c for c in new & old if before.get(c) != read.get(c)}
        if self._reconnected or (gap and changed):
            # after a reconnect, or frames lost: the whole occupancy, what happened meanwhile unknown
            # (but on a line that stayed up, each change costs the board a frame: no more
            # changes were missed than frames were lost)
            self._link_change(True, now, new, changed, lost=None if self._reconnected else lost, states=read)
            self._reconnected = False
            return
        for cell in sorted(changed):
            self._emit(cell, cell in new, now, None if read is None else read.get(cell, SquareState.EMPTY))

    def _send(self, kind: int, payload: bytes = b"") -> bool:
        with self._write_lock:
            ser = self._serial
            if ser is None:
                return False
            try:
                ser.write(link.encode(kind, 0, payload, self.version))
                return True
            except Exception as exc:  # the session's reader sees the broken line and starts over
                log.debug("cannot write to %s: %s", self.url, exc)
                return False

    # -- the backend interfaces -----------------------------------------------------------------
    def snapshot(self) -> frozenset[Cell]:
        return self._state

    def states(self) -> dict[Cell, SquareState]:
        if self.senses <= Sensing.PRESENCE:
            return super().states()
        return dict(self._read)

    def fields(self, timeout: float = 2.0) -> dict[Cell, int] | None:
        """Each cell's field reading (a board with the *fields* feature: FIELDS), or None if
        it does not answer in ``timeout`` seconds."""
        self._fields_came.clear()
        if self.senses <= Sensing.PRESENCE or not self._send(link.FIELDS):
            return None
        return self.fields_read if self._fields_came.wait(timeout) else None

    def calibrate(self, present: int, king: int) -> bool:
        """A linear-sensor board's thresholds (ADC counts; 0 keeps the board's own), sent again
        whenever the board restarts."""
        was = self.thresholds
        self.thresholds = (present or was[0], king or was[1])
        return self.senses > Sensing.PRESENCE and self._send(link.CALIBRATE, link.pack_calibrate(present, king))

    def show(self, intents: Mapping[Cell, Role]) -> None:
        entries = []
        for (r, c), role in intents.items():
            look = self.looks[role]
            entries.append((r * self.size + c, *look.colour, PATTERNS[look.pattern]))
        self._entries = sorted(entries)
        if self._verified:  # else it goes out once the firmware has answered
            self._send(link.LEDS, self._leds_payload())

    def configure(self, scan_hz: int = 200, debounce_ms: int = 20, heartbeat_ms: int = 500) -> bool:
        """New scan rate, debounce time and heartbeat for the firmware (kept for reconnects)."""
        self.settings = (scan_hz, debounce_ms, heartbeat_ms, *self.settings[3:])
        if self.version >= 3:
            return self._send(link.CONFIG, self._config())
        return self._send(link.CONFIG, link.pack_config(scan_hz, debounce_ms, heartbeat_ms))  # (2: all three)

    def repl(self) -> bool:
        """Ask the firmware to give the line back to the REPL (for an update with mpremote)."""
        return self._send(link.REPL)

    def close(self) -> None:
        if self.closed:
            return
        stop_worker(self._stop, self._thread, timeout=2.0)
        super().close()
