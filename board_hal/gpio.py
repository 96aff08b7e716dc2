"""Direct wiring on the Pi's GPIO, through gpiozero (never RPi.GPIO directly).

gpiozero picks its pin factory itself: lgpio on a Pi 5, RPi.GPIO (or lgpio) on older
Pis. Tests pass ``pin_factory=MockFactory()``.

**Sensors — a diode matrix.** Each reed switch sits in series with a diode between a
row line and a column line. Rows are outputs, idle high; the scan drives one row low at
a time, waits the settling time, and reads every column (inputs with pull-ups): a closed
switch pulls its column low through its diode. The diodes stop current flowing back
through other closed switches, which would otherwise make "ghost" cells appear
(hardware/wiring.md). The settling time (default 30 µs) lets a column that a closed switch
on the previous row held low rise again through its pull-up and the wire's capacitance:
read too early it is a ghost on every scan. Columns are polled (``InputDevice``): a
``DigitalInputDevice`` would also run a Python callback at every edge of every column.

**LEDs — 74HC595 shift registers.** Single-colour LEDs, one bit per cell, a chain of
registers fed on three pins (data, clock, latch). Roles are rendered as steady, slow or
fast blinking (board_hal.leds).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from board_hal.backends import Clock, LedBackend, ScanningSensors, stop_worker
from board_hal.layout import Cell
from board_hal.leds import DEFAULT_LOOKS, Look, Role, blinks, render_mono


class MatrixScanner(ScanningSensors):
    """Scans a diode matrix of reed switches (``rows`` driven, ``columns`` read)."""

    thread_name = "matrix-scan"

    def __init__(
        self,
        rows: Sequence[int | str],
        columns: Sequence[int | str],
        *,
        rate: float = 100.0,
        pin_factory: Any = None,
        clock: Clock = time.monotonic,
        settle: float = 30e-6,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if len(rows) != len(columns):
            raise ValueError(f"a square matrix needs as many rows as columns ({len(rows)} and {len(columns)})")
        super().__init__(len(rows), clock, rate=rate)  # (its stop event first: close() after a pin that failed)
        from gpiozero import DigitalOutputDevice, InputDevice

        self.settle = settle  # seconds between driving a row low and reading the columns
        self._sleep = sleep  # (time.sleep sleeps at least that long)
        self.row_pins = list(rows)
        self.column_pins = list(columns)
        self._rows = []
        self._cols = []
        try:
            for p in rows:
                self._rows.append(
                    DigitalOutputDevice(p, active_high=False, initial_value=False, pin_factory=pin_factory)
                )
            for p in columns:
                self._cols.append(InputDevice(p, pull_up=True, pin_factory=pin_factory))
        except Exception:
            self.close()
            raise
        self._state = self.scan()

    def scan(self) -> frozenset[Cell]:
        """One full pass over the matrix: the occupied cells."""
        found = []
        cols = self._cols
        settle, sleep = self.settle, self._sleep
        for r, row in enumerate(self._rows):
            row.on()  # drive the row low
            if settle:
                sleep(settle)  # let a column the previous row held low rise again
            for c, col in enumerate(cols):
                if col.value:  # pulled low through a closed switch and its diode
                    found.append((r, c))
            row.off()
        return frozenset(found)

    def line_wiring(self, axis: str, index: int) -> str:
        """The pin of a row or a column (for the self-test's messages)."""
        pins = self.row_pins if axis == "rows" else self.column_pins
        return f"gpio.{axis}[{index}] = GPIO {pins[index]}"

    def wiring_groups(self) -> list[tuple[str, list[Cell], str]]:
        """The cells on each row wire and on each column wire, and what to check when none answers."""
        n = len(self.row_pins)
        rows = [
            (f"row {r + 1}", [(r, c) for c in range(n)], f"check its wire, {self.line_wiring('rows', r)}")
            for r in range(n)
        ]
        cols = [
            (
                f"column {'abcdefghij'[c]}",
                [(r, c) for r in range(n)],
                f"check its wire, {self.line_wiring('columns', c)}",
            )
            for c in range(n)
        ]
        return rows + cols

    def close(self) -> None:
        if self.closed:
            return
        stop_worker(self._stop, self._thread)
        for dev in self._rows + self._cols:
            dev.close()
        super().close()


class ShiftRegisterLeds(LedBackend):
    """Single-colour LEDs on a chain of 74HC595 shift registers (one bit per cell).

    Bit ``row * size + col`` of the chain drives the LED of cell (row, col); the first
    bit shifted out ends in the last register.
    """

    def __init__(
        self,
        size: int,
        *,
        data: int | str,
        clock: int | str,
        latch: int | str,
        looks: Mapping[Role, Look] | None = None,
        pin_factory: Any = None,
        time_source: Clock = time.monotonic,
        blink_rate: float = 20.0,
    ) -> None:
        from gpiozero import DigitalOutputDevice

        self.size = size
        self.bits = ((size * size + 7) // 8) * 8
        self.looks = dict(looks or DEFAULT_LOOKS)
        self.time = time_source
        self._devices: list[Any] = []
        # before the pins: close() needs them when a pin cannot be opened
        self._lock = threading.Lock()  # one frame is shifted and latched at a time
        self._control = threading.Lock()  # one show() or close() at a time starts or stops the blink thread
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        try:
            self._data = DigitalOutputDevice(data, pin_factory=pin_factory)
            self._devices.append(self._data)
            self._clock = DigitalOutputDevice(clock, pin_factory=pin_factory)
            self._devices.append(self._clock)
            self._latch = DigitalOutputDevice(latch, pin_factory=pin_factory)
            self._devices.append(self._latch)
        except Exception:
            self.close()
            raise
        self._intents: dict[int, Role] = {}
        self.frame: list[bool] = [False] * self.bits  # what the registers hold now
        self.blink_rate = blink_rate

    def show(self, intents: Mapping[Cell, Role]) -> None:
        """Show these intents now. One writer at a time (gpiozero's rule for a blinking LED):
        the blink thread is stopped before this foreground write, and started again only
        when something blinks."""
        with self._control:
            self._stop_blink()
            self._intents = {r * self.size + c: role for (r, c), role in intents.items()}
            self.refresh()
            if any(blinks(self.looks[r].pattern) for r in self._intents.values()):
                self._start_blink()

    def refresh(self, now: float | None = None) -> None:
        """Shift the current frame out (blinking roles are evaluated at ``now``)."""
        with self._lock:
            on = render_mono(self._intents, self.looks, self.time() if now is None else now)
            bits = [i in on for i in range(self.bits)]
            for bit in reversed(bits):
                self._data.value = bit
                self._clock.on()
                self._clock.off()
            self._latch.on()
            self._latch.off()
            self.frame = bits

    def _start_blink(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._blink, args=(self._stop,), name="led-blink", daemon=True)
        self._thread.start()

    def _stop_blink(self) -> None:
        stop_worker(self._stop, self._thread)
        self._thread = None

    def _blink(self, stop: threading.Event) -> None:
        while not stop.wait(1.0 / self.blink_rate):
            self.refresh()

    def close(self) -> None:
        if self.closed:
            return
        with self._control:
            self._stop_blink()
        for dev in self._devices:
            dev.close()
        super().close()
