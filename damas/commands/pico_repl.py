"""``damas pico-repl``: ask the firmware to give the serial line back to the MicroPython REPL (to update it)."""

from __future__ import annotations

import argparse
from typing import Any

from damas.commands.common import command
from damas.errors import UserError


def register(sub: Any) -> None:
    p = command(
        sub, "pico-repl", "stop the Pico firmware so that mpremote can update it", "damas pico-repl --port /dev/ttyACM0"
    )
    p.add_argument("--port", help="the Pico's serial port (default: found by its USB id)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import serial

    from firmware_bridge import link
    from firmware_bridge.bridge import find_pico_port

    port = args.port or find_pico_port()
    if port is None:
        raise UserError("no Raspberry Pi Pico found on USB (give --port)")
    try:
        with serial.serial_for_url(port, baudrate=115200, timeout=1) as ser:
            ser.write(link.encode(link.REPL, 0))
            ser.flush()
    except (serial.SerialException, OSError) as exc:
        raise UserError(f"cannot open {port}: {exc}") from None
    print(f"asked the firmware on {port} to stop: mpremote can connect now (it restarts on the next reset)")
    return 0
