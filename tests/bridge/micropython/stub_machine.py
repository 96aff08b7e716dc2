"""``machine`` for the firmware under MicroPython's unix port (and CPython): the reed-switch
matrix and clock buttons behind the pins, a watchdog and ``mem32`` that only record.

Runs unchanged on both interpreters (the tests compare what each does byte for byte)."""

closed = set()  # (row, column) of the closed switches
pressed = set()  # pins of the buttons held down
rows = []  # the row pins, in the order the firmware made them
cols = []
log = []  # ("drive", row, µs) / ("read", column, µs) when clock_us is set
clock_us = None
on_scan = None  # called when row 0 is driven (a scan starts): a test can change the switches
mem32 = {}
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
        if pin in (26, 27):
            pass  # a clock button to ground
        elif mode == Pin.OUT:
            rows.append(self)
        elif pull == Pin.PULL_UP:
            cols.append(self)

    def value(self, v=None):
        if v is not None:
            self.level = v
            if v == 0 and self in rows:
                r = rows.index(self)
                if r == 0 and on_scan is not None:
                    on_scan()
                if clock_us is not None:
                    log.append(("drive", r, clock_us()))
            return v
        if self.id in (26, 27):
            return 0 if self.id in pressed else 1
        if self.mode == Pin.OUT:
            return self.level
        c = cols.index(self)
        if clock_us is not None:
            log.append(("read", c, clock_us()))
        for r, row in enumerate(rows):
            if row.level == 0 and (r, c) in closed:
                return 0
        return 1


class WDT:
    def __init__(self, id=0, timeout=5000):
        arms.append(timeout)

    def feed(self):
        global feeds
        feeds += 1
