"""The damas firmware for the Raspberry Pi Pico (MicroPython).

Scans the reed-switch diode matrix, debounces every cell, sends the whole occupancy on
every change and as a heartbeat, and drives WS2812/SK6812 LEDs with the built-in
``neopixel`` module, over the USB serial line (the protocol: hardware/protocol.md; the
codec: link.py, the same file the host uses).

The logic is plain MicroPython and runs unchanged under CPython in the tests and in the
emulator (``damas emulator``) with small fakes for ``machine``, ``neopixel``,
``micropython`` and the serial stream.
"""

import time

import link
import machine
import micropython
import neopixel

FIRMWARE = (1, 0)

try:
    ticks_diff = time.ticks_diff  # MicroPython: tick counters wrap around
except AttributeError:  # CPython (tests, emulator)

    def ticks_diff(a, b):
        return a - b


class Firmware:
    def __init__(
        self,
        rows,
        cols,
        led_pin,
        stream,
        led_count=None,
        scan_hz=200,
        debounce_ms=20,
        heartbeat_ms=500,
        ticks_ms=None,
        sleep_ms=None,
    ):
        self.rows = [machine.Pin(p, machine.Pin.OUT, value=1) for p in rows]
        self.cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in cols]
        self.n_rows = len(rows)
        self.n_cols = len(cols)
        self.cells = self.n_rows * self.n_cols
        self.led_count = led_count or self.cells
        self.np = neopixel.NeoPixel(machine.Pin(led_pin), self.led_count)
        self.stream = stream  # .read_available() -> bytes, .write(bytes)
        self.ticks_ms = ticks_ms or time.ticks_ms
        self.sleep_ms = sleep_ms or time.sleep_ms
        self.last_sent = 0
        self.scan_hz = scan_hz
        self.debounce_ms = debounce_ms
        self.heartbeat_ms = heartbeat_ms
        self.seq = 0
        self.stable = [False] * self.cells  # debounced state
        self.raw_since = [0] * self.cells  # when the raw reading last differed from stable
        self.pending = [False] * self.cells
        self.leds = {}  # cell -> (r, g, b, pattern)
        self.deframer = link.Deframer()
        self.running = True
        self.frames_in = 0
        self.bad_in = 0
        self.stable = self.scan()  # at power-up the first reading is the truth: nothing to debounce

    # -- sensing --------------------------------------------------------------------------
    def scan(self):
        """One pass: the raw reading of every cell (True = closed switch)."""
        out = [False] * self.cells
        n = self.n_cols
        for r, row in enumerate(self.rows):
            row.value(0)
            for c, col in enumerate(self.cols):
                if col.value() == 0:
                    out[r * n + c] = True
            row.value(1)
        return out

    def debounce(self, raw, now):
        """A cell changes once its raw reading has differed for ``debounce_ms``."""
        changed = False
        for i in range(self.cells):
            if raw[i] == self.stable[i]:
                self.pending[i] = False
            elif not self.pending[i]:
                self.pending[i] = True
                self.raw_since[i] = now
            elif ticks_diff(now, self.raw_since[i]) >= self.debounce_ms:
                self.stable[i] = raw[i]
                self.pending[i] = False
                changed = True
        return changed

    # -- the serial line ---------------------------------------------------------------------
    def send(self, kind, payload=b""):
        self.stream.write(link.encode(kind, self.seq, payload))
        self.seq = (self.seq + 1) & 0xFFFF

    def send_snapshot(self, now):
        occupied = [i for i in range(self.cells) if self.stable[i]]
        self.send(link.SNAPSHOT, link.pack_snapshot(self.n_rows, self.n_cols, occupied, now))
        self.last_sent = now

    def send_hello(self):
        self.send(link.HELLO, link.pack_hello(FIRMWARE, self.n_rows, self.n_cols, self.led_count))

    def receive(self, now):
        data = self.stream.read_available()
        if not data:
            return
        before = self.deframer.dropped
        for kind, _seq, payload in self.deframer.feed(data):
            self.frames_in += 1
            try:
                self.handle(kind, payload, now)
            except ValueError as exc:
                self.send(link.ERROR, link.pack_error(1, "bad " + link.NAMES.get(kind, "?") + ": " + str(exc)))
        self.bad_in += self.deframer.dropped - before

    def handle(self, kind, payload, now):
        if kind == link.HELLO:
            self.send_hello()
            self.send_snapshot(now)
        elif kind == link.LEDS:
            leds = {}
            for index, r, g, b, pattern in link.unpack_leds(payload):
                if index < self.led_count:
                    leds[index] = (r, g, b, pattern)
            self.leds = leds
        elif kind == link.CONFIG:
            scan_hz, debounce_ms, heartbeat_ms = link.unpack_config(payload)
            self.scan_hz = max(10, min(scan_hz, 1000))
            self.debounce_ms = min(debounce_ms, 500)
            self.heartbeat_ms = max(50, heartbeat_ms)
        elif kind == link.REPL:
            # give the line back: Ctrl-C works again and mpremote can talk to the REPL
            micropython.kbd_intr(3)
            self.running = False

    # -- LEDs -----------------------------------------------------------------------------------
    def render(self, now):
        np = self.np
        for i in range(self.led_count):
            colour = (0, 0, 0)
            entry = self.leds.get(i)
            if entry is not None:
                r, g, b, pattern = entry
                if (
                    pattern == link.STEADY
                    or (pattern == link.SLOW and (now % 1000) < 500)
                    or (pattern == link.FAST and (now % 250) < 125)
                ):
                    colour = (r, g, b)
            np[i] = colour
        np.write()

    # -- the main loop ------------------------------------------------------------------------
    def step(self):
        now = self.ticks_ms()
        if self.debounce(self.scan(), now) or ticks_diff(now, self.last_sent) >= self.heartbeat_ms:
            self.send_snapshot(now)
        self.receive(now)
        self.render(now)

    def run(self):
        # binary data on the line must not stop the program (0x03 would be Ctrl-C)
        micropython.kbd_intr(-1)
        self.send_hello()
        while self.running:
            self.step()
            self.sleep_ms(max(1, 1000 // self.scan_hz))
