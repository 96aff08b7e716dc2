"""The damas firmware for the Raspberry Pi Pico (MicroPython).

Scans the reed-switch diode matrix, debounces every cell, sends the whole occupancy on
every change and as a heartbeat, reports the game clock's two push buttons (press counts,
sent at each press and once more a moment later), and drives WS2812/SK6812 LEDs with the
built-in ``neopixel`` module, over the USB serial line (the protocol: hardware/protocol.md; the
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

FIRMWARE = (2, 0)
BUTTON_REPEAT_MS = 100  # each BUTTON frame goes out twice (the host counts presses, so a copy is harmless)

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
        buttons=None,
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
        # the clock's buttons (white's, black's): to ground, with pull-ups (pressed reads 0)
        self.buttons = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in (buttons or ())]
        self.button_down = [b.value() == 0 for b in self.buttons]
        self.button_pending = [False] * len(self.buttons)
        self.button_since = [0] * len(self.buttons)
        self.presses = [0, 0]
        self.button_repeat_at = None  # when the last BUTTON frame goes out again

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

    def read_buttons(self, now):
        """Debounce the buttons like the cells; True when one was pressed (counted)."""
        pressed = False
        for i, pin in enumerate(self.buttons):
            down = pin.value() == 0
            if down == self.button_down[i]:
                self.button_pending[i] = False
            elif not self.button_pending[i]:
                self.button_pending[i] = True
                self.button_since[i] = now
            elif ticks_diff(now, self.button_since[i]) >= self.debounce_ms:
                self.button_down[i] = down
                self.button_pending[i] = False
                if down:
                    self.presses[i] = (self.presses[i] + 1) & 0xFFFF
                    pressed = True
        return pressed

    def send_buttons(self, now):
        self.send(link.BUTTON, link.pack_button(self.presses[0], self.presses[1], now))

    # -- the serial line ---------------------------------------------------------------------
    def send(self, kind, payload=b""):
        self.stream.write(link.encode(kind, self.seq, payload))
        self.seq = (self.seq + 1) & 0xFFFF

    def send_snapshot(self, now):
        occupied = [i for i in range(self.cells) if self.stable[i]]
        self.send(link.SNAPSHOT, link.pack_snapshot(self.n_rows, self.n_cols, occupied, now))
        self.last_sent = now

    def hello_payload(self):
        return link.pack_hello(FIRMWARE, self.n_rows, self.n_cols, self.led_count, self.presses)

    def send_hello(self):
        self.send(link.HELLO, self.hello_payload())

    def receive(self, now):
        data = self.stream.read_available()
        if not data:
            return
        before = self.deframer.dropped
        frames = self.deframer.feed(data)
        foreign = self.deframer.foreign
        if foreign is not None:
            # a host of another protocol version asks who we are: answer in its version, with
            # ours inside, so that it can refuse this board with a clear message
            self.deframer.foreign = None
            if foreign[1] == link.HELLO:
                self.stream.write(link.encode(link.HELLO, self.seq, self.hello_payload(), foreign[0]))
                self.seq = (self.seq + 1) & 0xFFFF
        for kind, _seq, payload in frames:
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
        if self.read_buttons(now):
            self.send_buttons(now)
            self.button_repeat_at = now
        elif self.button_repeat_at is not None and ticks_diff(now, self.button_repeat_at) >= BUTTON_REPEAT_MS:
            self.button_repeat_at = None
            self.send_buttons(now)
        self.receive(now)
        self.render(now)

    def run(self):
        # binary data on the line must not stop the program (0x03 would be Ctrl-C)
        micropython.kbd_intr(-1)
        self.send_hello()
        while self.running:
            self.step()
            self.sleep_ms(max(1, 1000 // self.scan_hz))
