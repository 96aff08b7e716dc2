"""The damas firmware for the Raspberry Pi Pico (MicroPython).

Scans the reed-switch diode matrix (waiting a settling time after driving each row) — or,
on a board with Hall-effect sensors, reads every cell's piece, its colour and crown
(hall.py) —, debounces every cell, sends the whole occupancy on every change and as a heartbeat,
reports the game clock's two push buttons (press counts, sent at each press and once more
a moment later) and, in protocol 3, the talking board's gestures (a read-out button, both
clock buttons down together, which buttons are held: sent at every press and release), and
drives WS2812/SK6812 LEDs with the built-in ``neopixel`` module — laid under the board in
the strip order the host configures, written only when what they show changes — over the
USB serial line (the protocol: hardware/protocol.md; the codec: link.py, the same file the
host uses). It speaks link protocols 3 and 2: the one of the host's HELLO. A host may arm a
watchdog (``watchdog``: main.py's, for the chip), which the REPL hand-over stops.

The logic is plain MicroPython and runs unchanged under CPython in the tests and in the
emulator (``damas emulator``), and under MicroPython's unix port in the tests, with small
stand-ins for ``machine``, ``neopixel``, ``micropython`` and the serial stream.
"""

import time

import link
import machine
import micropython
import neopixel

FIRMWARE = (3, 1)  # 3.1: the talking board's gestures
BUTTON_REPEAT_MS = 100  # each BUTTON frame goes out twice (the host counts presses, so a copy is harmless)
SETTLE_US = 30  # after driving a row low, before reading the columns (protocol.md, Board behaviour)

try:
    ticks_diff = time.ticks_diff  # MicroPython: tick counters wrap around
except AttributeError:  # CPython (tests, emulator)

    def ticks_diff(a, b):
        return a - b


def _sleep_us(us):  # CPython has no time.sleep_us
    time.sleep(us / 1000000)


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
        sleep_us=None,
        watchdog=None,
        reset=link.RESET_POWER,
        readout=None,
        sensor=None,
        size=None,
    ):
        # a Hall-sensor board (hall.py: colour, crowns) reads each cell's state through its
        # ``sensor`` on a board of ``size`` (rows, columns); a reed board scans its matrix
        self.sensor = sensor
        self.rows = [machine.Pin(p, machine.Pin.OUT, value=1) for p in rows]
        self.cols = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in cols]
        self.n_rows = len(rows) if sensor is None else size[0]
        self.n_cols = len(cols) if sensor is None else size[1]
        self.cells = self.n_rows * self.n_cols
        self.led_count = led_count or self.cells
        self.np = neopixel.NeoPixel(machine.Pin(led_pin), self.led_count)
        self.stream = stream  # .read_available() -> bytes, .write(bytes)
        self.ticks_ms = ticks_ms or time.ticks_ms
        self.sleep_ms = sleep_ms or time.sleep_ms
        self.sleep_us = sleep_us or getattr(time, "sleep_us", _sleep_us)
        self.settle_us = SETTLE_US
        self.watchdog = watchdog  # .arm(ms) -> ms armed, .feed(), .stop(); None: no watchdog
        self.watchdog_ms = 0  # armed with this timeout (0: not armed)
        self.reset = reset  # why the board last started (HELLO tells the host)
        self.version = link.VERSION  # the protocol spoken now: the one of the host's last HELLO
        self.last_sent = 0
        self.scan_hz = scan_hz
        self.debounce_ms = debounce_ms
        self.heartbeat_ms = heartbeat_ms
        self.seq = 0
        self.stable = [False] * self.cells  # debounced state
        self.raw_since = [0] * self.cells  # when the raw reading last differed from stable
        self.pending = [False] * self.cells
        self.pending_raw = [None] * self.cells  # what each pending cell reads
        self.leds = {}  # LED index as the host sent it -> (r, g, b, pattern)
        self.strip = None  # ((first row, first col), along, order); None: strip position = index
        self.where = list(range(self.led_count))  # index -> position on the strip
        self.shown = None  # what the strip shows: one colour per position (None: not written yet)
        self.dirty = True  # the strip must be looked at again (new LEDs or layout)
        self.phase = None  # the blink phases (slow on, fast on) of the last look
        self.strip_writes = 0
        self.deframer = link.Deframer(self.version)
        self.running = True
        self.frames_in = 0
        self.bad_in = 0
        self.stable = self.scan()  # at power-up the first reading is the truth: nothing to debounce
        # the clock's buttons (white's, black's), then the read-out button: to ground, with
        # pull-ups (pressed reads 0)
        pins = tuple(buttons or ()) + ((readout,) if readout is not None else ())
        self.buttons = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in pins]
        self.button_down = [b.value() == 0 for b in self.buttons]
        self.button_pending = [False] * len(self.buttons)
        self.button_since = [0] * len(self.buttons)
        self.presses = [0, 0]
        self.readouts = 0  # read-out button presses (protocol 3, gestures)
        self.chords = 0  # times both clock buttons were down together, counted when the second went down
        self.button_repeat_at = None  # when the last BUTTON frame goes out again

    # -- sensing --------------------------------------------------------------------------
    def scan(self):
        """One pass: the raw reading of every cell (True = closed switch; on a Hall-sensor board
        its state, link.EMPTY ... link.OCCUPIED). After driving a row low it waits ``settle_us``
        before reading: a column a closed switch on the row before held low rises only through
        its pull-up and the wire's capacitance."""
        if self.sensor is not None:
            return self.sensor.read()
        out = [False] * self.cells
        n = self.n_cols
        settle = self.settle_us
        for r, row in enumerate(self.rows):
            row.value(0)
            if settle:
                self.sleep_us(settle)
            for c, col in enumerate(self.cols):
                if col.value() == 0:
                    out[r * n + c] = True
            row.value(1)
        return out

    def debounce(self, raw, now):
        """A cell changes once its raw reading has differed for ``debounce_ms`` — the same
        reading all along (a Hall board's state as a whole: white, then black, starts again)."""
        changed = False
        pending_raw = self.pending_raw
        for i in range(self.cells):
            if raw[i] == self.stable[i]:
                self.pending[i] = False
            elif not self.pending[i] or raw[i] != pending_raw[i]:
                self.pending[i] = True
                pending_raw[i] = raw[i]
                self.raw_since[i] = now
            elif ticks_diff(now, self.raw_since[i]) >= self.debounce_ms:
                self.stable[i] = raw[i]
                self.pending[i] = False
                changed = True
        return changed

    def read_buttons(self, now):
        """Debounce the buttons like the cells; True when one was pressed (counted) — and, in
        protocol 3, released too (the host sees which are held)."""
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
                if down and i < 2:
                    self.presses[i] = (self.presses[i] + 1) & 0xFFFF
                    if len(self.button_down) > 1 and self.button_down[1 - i]:
                        self.chords = (self.chords + 1) & 0xFFFF  # the other clock button is down too
                elif down:
                    self.readouts = (self.readouts + 1) & 0xFFFF
                pressed = pressed or down or self.version >= 3
        return pressed

    def send_buttons(self, now):
        if self.version < 3:
            self.send(link.BUTTON, link.pack_button(self.presses[0], self.presses[1], now))
            return
        held = 0
        for i, down in enumerate(self.button_down):
            if down:
                held |= 1 << i
        self.send(
            link.BUTTON, link.pack_button(self.presses[0], self.presses[1], now, held, self.readouts, self.chords)
        )

    # -- the serial line ---------------------------------------------------------------------
    def send(self, kind, payload=b""):
        self.stream.write(link.encode(kind, self.seq, payload, self.version))
        self.seq = (self.seq + 1) & 0xFFFF

    def send_snapshot(self, now):
        if self.sensor is not None and self.version >= 3:  # each cell's state: SQUARES
            self.send(link.SQUARES, link.pack_squares(self.n_rows, self.n_cols, self.stable, now))
        else:  # a reed board, or an old host: the occupancy
            occupied = [i for i in range(self.cells) if self.stable[i]]
            self.send(link.SNAPSHOT, link.pack_snapshot(self.n_rows, self.n_cols, occupied, now))
        self.last_sent = now

    def features(self):
        out = link.STRIP_ORDER | link.GESTURES | (link.WATCHDOG if self.watchdog is not None else 0)
        if self.sensor is not None:
            out |= link.COLOUR | link.FIELD_READINGS | (link.CROWNS if self.sensor.crowns else 0)
        return out

    def hello_payload(self, protocol):
        return link.pack_hello(
            FIRMWARE,
            self.n_rows,
            self.n_cols,
            self.led_count,
            self.presses,
            self.features(),
            self.reset,
            self.watchdog_ms,
            self.ticks_ms(),
            protocol,
        )

    def send_hello(self):
        self.send(link.HELLO, self.hello_payload(self.version))

    def speak(self, version):
        """Speak ``version`` from now on (the one of the host's HELLO)."""
        if version != self.version:
            self.version = version
            self.deframer.version = version
            self.leds = {}  # an index means another thing in another version: the host sends them again
            self.dirty = True

    def receive(self, now):
        data = self.stream.read_available()
        if not data:
            return
        before = self.deframer.dropped
        frames = self.deframer.feed(data)
        foreign = self.deframer.foreign
        if foreign is not None:
            self.deframer.foreign = None
            version, kind = foreign
            if version in link.SPEAKS and kind in (link.HELLO, link.REPL):
                # a host of the other version this firmware speaks: answer in it from now on
                self.speak(version)
                frames.insert(0, (kind, 0, b""))
            elif kind == link.HELLO:
                # a host of a version this firmware does not speak asks who we are: answer in
                # its version, naming ours, so that it can refuse this board with a clear message
                self.stream.write(link.encode(link.HELLO, self.seq, self.hello_payload(link.VERSION), version))
                self.seq = (self.seq + 1) & 0xFFFF
        for kind, _seq, payload in frames:
            self.frames_in += 1
            try:
                self.handle(kind, payload, now)
            except ValueError as exc:
                text = "bad " + link.NAMES.get(kind, "?") + ": " + str(exc)
                self.send(link.ERROR, link.pack_error(link.BAD_FRAME, text))
        self.bad_in += self.deframer.dropped - before

    def handle(self, kind, payload, now):
        if kind == link.HELLO:
            self.send_hello()
            self.send_snapshot(now)
        elif kind == link.LEDS:
            leds = {}
            top = self.cells if self.version >= 3 else self.led_count
            for index, r, g, b, pattern in link.unpack_leds(payload):
                if index < top:
                    leds[index] = (r, g, b, pattern)
            self.leds = leds
            self.dirty = True
        elif kind == link.CONFIG:
            self.configure(payload)
        elif kind == link.FIELDS:
            if self.sensor is None:
                raise ValueError("no field readings on a reed board")
            self.send(link.FIELDS, link.pack_fields(self.n_rows, self.n_cols, self.sensor.fields(), now))
        elif kind == link.CALIBRATE:
            if self.sensor is not None:  # (a reed board ignores it)
                present, king = link.unpack_calibrate(payload)
                self.sensor.calibrate(present, king)
        elif kind == link.REPL:
            # give the line back: the watchdog stopped, Ctrl-C works again, mpremote can talk to the REPL
            if self.watchdog is not None and self.watchdog_ms:
                self.watchdog.stop()
                self.watchdog_ms = 0
            micropython.kbd_intr(3)
            self.running = False

    def configure(self, payload):
        scan_hz, debounce_ms, heartbeat_ms = link.unpack_config(payload)
        board = link.config_board(payload) if self.version >= 3 else None
        if board is not None:
            settle_us, strip, watchdog_ms = board
            where = [link.strip_position(i, self.n_rows, self.n_cols, strip) for i in range(self.cells)]
            # (a strip that does not start at a corner raised ValueError: the whole CONFIG is refused)
        keep = link.KEEP if board is not None else None  # (protocol 3: 65535 keeps the value)
        if scan_hz != keep:
            self.scan_hz = max(10, min(scan_hz, 1000))
        if debounce_ms != keep:
            self.debounce_ms = min(debounce_ms, 500)
        if heartbeat_ms != keep:
            self.heartbeat_ms = max(50, heartbeat_ms)
        if board is None:
            return
        self.settle_us = min(settle_us, 1000)
        if strip != self.strip:
            self.strip = strip
            self.where = where
            self.dirty = True
        if watchdog_ms and not self.watchdog_ms and self.watchdog is not None:
            self.watchdog_ms = self.watchdog.arm(max(1000, watchdog_ms))

    # -- LEDs -----------------------------------------------------------------------------------
    def render(self, now):
        """Write the strip if what it shows changed: new LEDs or layout, or a blink edge."""
        phase = ((now % 1000) < 500, (now % 250) < 125)  # slow (1 Hz), fast (4 Hz): 50 % duty
        if not self.dirty and (phase == self.phase or not self.blinking()):
            return
        self.phase = phase
        self.dirty = False
        slow, fast = phase
        frame = [(0, 0, 0)] * self.led_count
        where = self.where if self.version >= 3 else None
        for index, entry in self.leds.items():
            r, g, b, pattern = entry
            if pattern == link.STEADY or (pattern == link.SLOW and slow) or (pattern == link.FAST and fast):
                position = where[index] if where is not None else index
                if position < self.led_count:
                    frame[position] = (r, g, b)
        if frame == self.shown:
            return
        np = self.np
        for i in range(self.led_count):
            np[i] = frame[i]
        np.write()  # ~30 µs per LED with interrupts off: only when something changed
        self.shown = frame
        self.strip_writes += 1

    def blinking(self):
        return any(entry[3] in (link.SLOW, link.FAST) for entry in self.leds.values())

    # -- the main loop ------------------------------------------------------------------------
    def step(self):
        now = self.ticks_ms()
        if self.watchdog_ms:
            self.watchdog.feed()
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
        try:
            while self.running:
                self.step()
                self.sleep_ms(max(1, 1000 // self.scan_hz))
        except Exception as exc:
            # say what failed (the host logs it), then fail: the watchdog, if armed, restarts the board
            micropython.kbd_intr(3)
            self.send(link.ERROR, link.pack_error(link.FAILED, type(exc).__name__ + ": " + str(exc)))
            raise
