"""The Pico firmware as main.py starts it, on its standard input and output, under MicroPython's
unix port: tests/bridge/test_micropython.py puts a pseudo-terminal there and the host's bridge
on the other side.

    micropython serve.py FIRMWARE_DIR LINK_DIR STATE_DIR

STATE_DIR/closed: the closed switches, ``row column`` a line (read as each scan starts);
STATE_DIR/strip: rewritten at each write to the LED strip, ``position:rrggbb`` of the lit LEDs.
"""

import sys

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import stub_machine
import stub_neopixel

sys.modules["machine"] = stub_machine
sys.modules["neopixel"] = stub_neopixel
import board_fw  # noqa: E402
import main  # noqa: E402  (hardware/firmware/main.py: its pins, its USB stream, its watchdog)

state = sys.argv[3]


def read_switches():
    closed = set()
    try:
        with open(state + "/closed") as f:
            for line in f:
                if line.strip():
                    r, c = line.split()
                    closed.add((int(r), int(c)))
    except OSError:
        pass
    stub_machine.closed = closed


def show(buf):
    with open(state + "/strip.new", "w") as f:
        f.write(" ".join(f"{i}:{c[0]:02x}{c[1]:02x}{c[2]:02x}" for i, c in enumerate(buf) if tuple(c) != (0, 0, 0)))
    import os

    os.rename(state + "/strip.new", state + "/strip")


stub_machine.on_scan = read_switches
stub_neopixel.on_write = show
read_switches()
watchdog = main.Watchdog(main.WATCHDOG["RP2040"][0], main.WATCHDOG["RP2040"][1])
board_fw.Firmware(main.ROWS, main.COLS, main.LED_PIN, main.UsbStream(), buttons=main.BUTTONS, watchdog=watchdog).run()
