"""Runs the Pico firmware's logic through a scripted scenario and prints what it did, the same
under MicroPython's unix port and CPython (tests/bridge/test_micropython.py compares the two
byte for byte, and reads the frames with the host's codec).

    micropython scenario.py FIRMWARE_DIR LINK_DIR SCENARIO

SCENARIO, one command a line: ``size N`` (first: an N x N matrix), ``close R C`` / ``open R C``
(a switch), ``press PIN`` / ``release PIN`` (a clock button: 26, 27), ``in HEX`` (bytes on the
line for the firmware's next read), ``hello`` (its start-up HELLO), ``step N`` (N passes of
its main loop, 5 ms apart), ``scan`` (one scan, timed at the pins), ``watchdog`` (give it a
watchdog), ``fail`` (its next step raises). A Hall-sensor board (hardware/wiring-hall.md):
``hall pairs`` or ``hall linear`` before ``size`` (main.py's ``sensor()`` then makes the
reader, on main.py's pins), ``piece I FIELD`` (the field over cell I, in ADC counts: a man
about +-530, a king about +-820; positive: a white piece), ``lift I``. Printed: ``out HEX`` per write to the line,
``strip`` per write to the LED strip (the lit positions and colours), ``settle US`` (the
shortest delay between driving a row and reading a column), at the end the watchdog's
record and, on stderr, the heap the firmware uses (its code and its data).
"""

import sys

sys.path.insert(0, sys.argv[1])  # board_fw.py
sys.path.insert(0, sys.argv[2])  # link.py
import stub_machine
import stub_neopixel

sys.modules["machine"] = stub_machine
sys.modules["neopixel"] = stub_neopixel
try:
    import micropython  # noqa: F401  (MicroPython's own)
except ImportError:  # CPython
    import stub_micropython

    sys.modules["micropython"] = stub_micropython
import gc  # noqa: E402


def hexed(data):
    return "".join(f"{b:02x}" for b in data)


class Stream:
    def __init__(self):
        self.inbox = b""

    def read_available(self):
        data = self.inbox
        self.inbox = b""
        return data

    def write(self, data):
        print("out", hexed(data))


class Dog:
    def __init__(self):
        self.wdt = None
        self.stopped = 0

    def arm(self, ms):
        self.wdt = stub_machine.WDT(timeout=min(ms, 8388))
        return min(ms, 8388)

    def feed(self):
        self.wdt.feed()

    def stop(self):
        self.stopped += 1


def strip(buf):
    lit = [f"{i}:{c[0]:02x}{c[1]:02x}{c[2]:02x}" for i, c in enumerate(buf) if tuple(c) != (0, 0, 0)]
    print("strip", " ".join(lit))


def main():
    with open(sys.argv[3]) as f:
        lines = [line.split() for line in f if line.strip()]
    gc.collect()
    base = gc.mem_alloc() if hasattr(gc, "mem_alloc") else 0  # the stubs and the scenario: not the firmware's
    import board_fw

    clock = [1000]
    us = [0]

    def sleep_us(n):
        us[0] += n

    def clock_us():
        us[0] += 1
        return us[0]

    stub_neopixel.on_write = strip
    fw = None
    dog = None
    stream = Stream()
    for words in lines:
        what = words[0]
        if what == "hall":
            stub_machine.hall = words[1]
            if words[1] == "linear":
                stub_machine.buttons = (20, 21)
        elif what == "piece":
            stub_machine.fields[int(words[1])] = int(words[2])
        elif what == "lift":
            stub_machine.fields.pop(int(words[1]), None)
        elif what == "size" and stub_machine.hall is not None:
            import main as pico_main  # hardware/firmware/main.py: its pins, its sensor()

            n = int(words[1])
            pico_main.SENSOR = stub_machine.hall
            reader, buttons = pico_main.sensor()
            fw = board_fw.Firmware(
                (),
                (),
                22,
                stream,
                ticks_ms=lambda: clock[0],
                sleep_ms=lambda ms: None,
                sleep_us=sleep_us,
                buttons=buttons,
                watchdog=dog,
                sensor=reader,
                size=(n, n),
            )
        elif what == "size":
            n = int(words[1])
            fw = board_fw.Firmware(
                tuple(range(2, 2 + n)),
                tuple(range(12, 12 + n)),
                22,
                stream,
                ticks_ms=lambda: clock[0],
                sleep_ms=lambda ms: None,
                sleep_us=sleep_us,
                buttons=(26, 27),
                watchdog=dog,
            )
        elif what == "watchdog":
            dog = Dog()
        elif what == "close":
            stub_machine.closed.add((int(words[1]), int(words[2])))
        elif what == "open":
            stub_machine.closed.discard((int(words[1]), int(words[2])))
        elif what == "press":
            stub_machine.pressed.add(int(words[1]))
        elif what == "release":
            stub_machine.pressed.discard(int(words[1]))
        elif what == "in":
            stream.inbox += bytes(int(words[1][i : i + 2], 16) for i in range(0, len(words[1]), 2))
        elif what == "hello":
            fw.send_hello()
        elif what == "step":
            for _ in range(int(words[1])):
                clock[0] += 5
                fw.step()
        elif what == "scan":
            stub_machine.log = []
            stub_machine.clock_us = clock_us
            fw.scan()
            stub_machine.clock_us = None
            least = None
            driven = 0
            for kind, _i, t in stub_machine.log:
                if kind == "drive":
                    driven = t
                elif least is None or t - driven < least:
                    least = t - driven
            print("settle", least)
        elif what == "fail":

            def broken():
                raise MemoryError("memory allocation failed, allocating 512 bytes")

            fw.step = broken
            try:
                fw.run()
            except MemoryError as exc:
                print("raised", type(exc).__name__)
    print("watchdog", stub_machine.arms, stub_machine.feeds, dog.stopped if dog else None)
    gc.collect()
    if hasattr(gc, "mem_alloc"):
        sys.stderr.write(f"heap {gc.mem_alloc() - base}\n")  # the firmware's code and data


main()
