"""Boot entry of the damas firmware (copied to the Pico as main.py; see hardware/firmware/README.md).

Escape hatch: hold the pin ESCAPE_PIN to ground (a jumper to GND) while the Pico starts,
and the firmware does not run: the REPL stays free for mpremote. The host can also send a
REPL frame (``damas firmware repl``) to stop a running firmware.
"""

import sys

import machine

# the wiring (hardware/wiring.md): 8x8 shown; a 10x10 board lists ten of each
ROWS = (2, 3, 4, 5, 6, 7, 8, 9)
COLS = (10, 11, 12, 13, 14, 15, 16, 17)
LED_PIN = 22  # WS2812 data in, through a 330 ohm resistor
BUTTONS = (26, 27)  # the clock's push buttons, white's and black's, each to GND
ESCAPE_PIN = 28


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
    escape = machine.Pin(ESCAPE_PIN, machine.Pin.IN, machine.Pin.PULL_UP)
    if escape.value() == 0:
        print("damas firmware: escape pin held, staying in the REPL")
        return
    from board_fw import Firmware

    Firmware(ROWS, COLS, LED_PIN, UsbStream(), buttons=BUTTONS).run()


main()
