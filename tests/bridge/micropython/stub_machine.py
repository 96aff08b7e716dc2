"""``machine`` for the firmware under MicroPython's unix port (and CPython): the reed-switch
matrix and clock buttons behind the pins, a watchdog and ``mem32`` that only record.

Or, with ``hall`` set before the firmware makes its pins, a Hall-sensor board
(hardware/wiring-hall.md) behind main.py's pins: ``"pairs"``, a chain of 74HC165s (SH/LD GP2,
CLK GP3, QH GP4) with two active-low switches per cell (bit 2i sees a white piece, 2i + 1 a
black one), or ``"linear"``, CD74HC4067 multiplexers (S0-S3 GP2-GP5, /E from GP6) into ADC0,
read as the rp2 port's ``read_u16`` scales the 12-bit sample. ``fields``: each cell's field
in ADC counts from the no-field level (positive: a north pole up, a white piece).

Runs unchanged on both interpreters (the tests compare what each does byte for byte)."""

closed = set()  # (row, column) of the closed switches
pressed = set()  # pins of the buttons held down
rows = []  # the row pins, in the order the firmware made them
cols = []
log = []  # ("drive", row, µs) / ("read", column, µs) when clock_us is set
clock_us = None
on_scan = None  # called when row 0 is driven (a scan starts): a test can change the switches
mem32 = {}
hall = None  # None: the reed matrix; "pairs" or "linear": a Hall-sensor board
fields = {}  # cell index -> field (ADC counts from mid-scale)
buttons = (26, 27)  # the clock's button pins (a linear board's are 20, 21)
pins = {}  # a Hall board's pins by number (the last made)
SWITCH = 200  # a switch sees its pole from this field on (about 3.9 mT: the DRV5032's BOP)
_chain = []  # the 74HC165s' latched bits
_shifted = [0]
arms = []  # the watchdog's timeouts, each time it was armed
feeds = 0


class Pin:
    OUT = 1
    IN = 0
    PULL_UP = 1

    def __init__(self, pin, mode=0, pull=None, value=None):
        self.id = pin
        self.mode = mode
        self.level = 1 if value is None else value
        if hall is not None:
            pins[pin] = self  # a Hall board: no matrix
        elif pin in buttons:
            pass  # a clock button to ground
        elif mode == Pin.OUT:
            rows.append(self)
        elif pull == Pin.PULL_UP:
            cols.append(self)

    def value(self, v=None):
        if hall == "pairs" and self.id in (2, 3, 4):
            return _chain_pin(self, v)
        if v is not None:
            self.level = v
            if v == 0 and self in rows:
                r = rows.index(self)
                if r == 0 and on_scan is not None:
                    on_scan()
                if clock_us is not None:
                    log.append(("drive", r, clock_us()))
            return v
        if self.id in buttons:
            return 0 if self.id in pressed else 1
        if self.mode == Pin.OUT or hall is not None:
            return self.level
        c = cols.index(self)
        if clock_us is not None:
            log.append(("read", c, clock_us()))
        for r, row in enumerate(rows):
            if row.level == 0 and (r, c) in closed:
                return 0
        return 1


def _chain_pin(pin, v):
    """SH/LD low copies the switches into the chain, a rising CLK moves the next bit to QH."""
    if v is not None:
        was = pin.level
        pin.level = v
        if pin.id == 2 and v == 0:
            if on_scan is not None:
                on_scan()
            n = max(fields) + 1 if fields else 0
            bits = [False] * (2 * 100)
            for i in range(n):
                f = fields.get(i, 0)
                bits[2 * i] = f >= SWITCH
                bits[2 * i + 1] = f <= -SWITCH
            _chain[:] = bits
            _shifted[0] = 0
        elif pin.id == 3 and v == 1 and was == 0:
            _shifted[0] += 1
        return v
    if pin.id != 4:
        return pin.level
    k = _shifted[0]
    return 0 if k < len(_chain) and _chain[k] else 1


class ADC:
    """ADC0 behind the multiplexers: the one enabled (/E low), the channel S0-S3 select."""

    def __init__(self, pin):
        self.pin = pin

    def read_u16(self):
        on = [m for m in range(7) if 6 + m in pins and pins[6 + m].level == 0]
        raw = 2048
        if len(on) == 1:
            ch = 0
            for b in range(4):
                ch |= pins[2 + b].level << b
            i = on[0] * 16 + ch
            if i == 0 and on_scan is not None:
                on_scan()
            raw = max(0, min(4095, 2048 + fields.get(i, 0)))
        return raw << 4 | raw >> 8  # the rp2 port's scaling of its 12-bit sample to 16 bits


class WDT:
    def __init__(self, id=0, timeout=5000):
        arms.append(timeout)

    def feed(self):
        global feeds
        feeds += 1
