"""``neopixel`` for the firmware under MicroPython's unix port (and CPython): keeps what each
write would have sent down the strip."""

writes = []  # one list of (r, g, b) per write, in strip order
on_write = None


class NeoPixel:
    def __init__(self, pin, n):
        self.n = n
        self.buf = [(0, 0, 0)] * n

    def __setitem__(self, i, colour):
        self.buf[i] = colour

    def __getitem__(self, i):
        return self.buf[i]

    def write(self):
        writes.append(list(self.buf))
        if on_write is not None:
            on_write(self.buf)
