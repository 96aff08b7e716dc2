"""Boot entry of the damas firmware (copied to the Pico as main.py; see hardware/firmware/README.md).

The pins follow the Pico pin table of hardware/wiring-pico.md: set SIZE to 10 for a 10x10
board. Escape hatch: hold ESCAPE_PIN to ground (a jumper to GND) while the Pico starts,
and the firmware does not run: the REPL stays free for mpremote. The host can also send a
REPL frame (``damas pico-repl``) to stop a running firmware, which stops its watchdog too.
"""

import sys

import link
import machine

SIZE = 8  # 8 (Brazilian, Portuguese) or 10 (International)
ROWS = tuple(range(2, 2 + SIZE))  # GP2-GP9 (GP2-GP11 on 10x10), driven low one at a time
COLS = tuple(range(12, 12 + SIZE))  # GP12-GP19 (GP12-GP21), inputs with pull-ups
LED_PIN = 22  # WS2812 data in, through the 74AHCT125 level shifter and a 330 ohm resistor
BUTTONS = (26, 27)  # the clock's push buttons, white's and black's, each to GND
READOUT = 1  # the talking board's read-out button, to GND (protocol 3, gestures)
ESCAPE_PIN = 28  # to GND at start-up: the firmware does not start

# The sensors (hardware/wiring-hall.md): "reed" (the diode matrix above), or Hall-effect
# sensors that see colours: "pairs" (two unipolar switches per square on a 74HC165 chain:
# colour) or "linear" (a linear sensor per square through CD74HC4067 multiplexers into ADC0:
# colour and crowns).
SENSOR = "reed"
PAIRS = (2, 3, 4)  # "pairs": SH/LD, CLK, QH of the 74HC165 chain
SELECT = (2, 3, 4, 5)  # "linear": S0-S3 of every multiplexer
MUX_ENABLE = tuple(range(6, 6 + (SIZE * SIZE + 15) // 16))  # "linear": /E of multiplexer 1, 2, ...
ADC_PIN = 26  # "linear": ADC0, the multiplexers' common outputs
LINEAR_BUTTONS = (20, 21)  # "linear": the clock's buttons (GP26 is the ADC)


def sensor():
    """The Hall sensor reader SENSOR names (None: the reed matrix), and the clock's buttons."""
    if SENSOR == "reed":
        return None, BUTTONS
    import hall

    if SENSOR == "pairs":
        return hall.HallPairs(PAIRS[0], PAIRS[1], PAIRS[2], SIZE * SIZE), BUTTONS
    import time

    # (MUX_ENABLE, not ENABLE: that name is the watchdog's bit below, and a module-level name
    # bound twice is the last one when sensor() runs)
    settle = getattr(time, "sleep_us", None)  # (CPython, running this file in the tests, has none)
    return hall.LinearHall(SELECT, MUX_ENABLE, ADC_PIN, SIZE * SIZE, settle), LINEAR_BUTTONS


# The chip's watchdog block (RP2040 datasheet §4.7, RP2350 datasheet §12.9): CTRL at the base
# (bit 30 ENABLE: "when not enabled the watchdog timer is paused"), REASON at +0x08 (bit 0: a
# timeout, bit 1: a forced reset such as machine.reset()); +0x3000 is the atomic bit-clear alias.
WATCHDOG = {"RP2040": (0x40058000, 8388), "RP2350": (0x400D8000, 16777)}  # base, longest timeout (ms)
ENABLE = 1 << 30
CLEAR = 0x3000


class Watchdog:
    """machine.WDT, armed when the host asks, and stopped at the REPL hand-over (MicroPython's
    WDT has no stop: this clears the chip's ENABLE bit)."""

    def __init__(self, base, longest):
        self.base = base
        self.longest = longest
        self.wdt = None

    def arm(self, ms):
        ms = min(ms, self.longest)
        self.wdt = machine.WDT(timeout=ms)
        return ms

    def feed(self):
        self.wdt.feed()

    def stop(self):
        machine.mem32[self.base | CLEAR] = ENABLE


def chip():
    """The chip's watchdog (base address, longest timeout), or None on a chip not known here."""
    name = getattr(sys.implementation, "_machine", "")
    for key in WATCHDOG:
        if key in name:
            return WATCHDOG[key]
    return None


def why_started(base):
    """Why the chip last started (link.RESET_*), from the watchdog's REASON register."""
    reason = machine.mem32[base + 0x08] & 3
    if reason & 1:
        return link.RESET_WATCHDOG  # a timeout: the firmware hung or failed with the watchdog armed
    if reason & 2:
        return link.RESET_REQUESTED  # machine.reset(), mpremote reset
    return link.RESET_POWER


class UsbStream:
    """The USB serial line as a non-blocking byte stream."""

    def __init__(self):
        import select

        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)

    def read_available(self):
        data = b""
        while self.poll.poll(0):
            chunk = self.inp.read(1)
            if not chunk:
                break
            data += chunk
            if len(data) >= 256:
                break
        return data

    def write(self, data):
        self.out.write(data)


def main():
    watchdog = None
    reset = link.RESET_POWER
    found = chip()
    if found is not None:
        base, longest = found
        reset = why_started(base)
        machine.mem32[base | CLEAR] = ENABLE  # a watchdog left running: paused until the host arms one
        watchdog = Watchdog(base, longest)
    escape = machine.Pin(ESCAPE_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    if escape.value() == 0:
        print("damas firmware: escape pin held, staying in the REPL")
        return
    from board_fw import Firmware

    reader, buttons = sensor()
    if reader is None:
        Firmware(
            ROWS, COLS, LED_PIN, UsbStream(), buttons=buttons, watchdog=watchdog, reset=reset, readout=READOUT
        ).run()
    else:
        Firmware(
            (),
            (),
            LED_PIN,
            UsbStream(),
            buttons=buttons,
            watchdog=watchdog,
            reset=reset,
            readout=READOUT,
            sensor=reader,
            size=(SIZE, SIZE),
        ).run()


if __name__ == "__main__":  # the Pico runs main.py as __main__ at start-up; the tests import it
    main()
