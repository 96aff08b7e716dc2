"""The Pico firmware as main.py starts it, on its standard input and output, under MicroPython's
unix port: tests/bridge/test_micropython.py puts a pseudo-terminal there and the host's bridge
on the other side.

    micropython serve.py FIRMWARE_DIR LINK_DIR STATE_DIR [pairs|linear]

STATE_DIR/closed: the closed switches, ``row column`` a line (read as each scan starts); on a
Hall-sensor board (main.py's SENSOR, the last argument) STATE_DIR/fields instead: ``cell field``
a line (the field in ADC counts; positive: a white piece);
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
kind = sys.argv[4] if len(sys.argv) > 4 else "reed"


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


def read_fields():
    fields = {}
    try:
        with open(state + "/fields") as f:
            for line in f:
                if line.strip():
                    i, v = line.split()
                    fields[int(i)] = int(v)
    except OSError:
        pass
    stub_machine.fields = fields


stub_neopixel.on_write = show
watchdog = main.Watchdog(main.WATCHDOG["RP2040"][0], main.WATCHDOG["RP2040"][1])
if kind == "reed":
    stub_machine.on_scan = read_switches
    read_switches()
    board_fw.Firmware(
        main.ROWS, main.COLS, main.LED_PIN, main.UsbStream(), buttons=main.BUTTONS, watchdog=watchdog
    ).run()
else:
    stub_machine.hall = kind
    stub_machine.buttons = main.LINEAR_BUTTONS if kind == "linear" else main.BUTTONS
    stub_machine.on_scan = read_fields
    read_fields()
    main.SENSOR = kind
    reader, buttons = main.sensor()
    board_fw.Firmware(
        (),
        (),
        main.LED_PIN,
        main.UsbStream(),
        buttons=buttons,
        watchdog=watchdog,
        sensor=reader,
        size=(main.SIZE, main.SIZE),
    ).run()
