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
        with serial.serial_for_url(port, baudrate=115200, timeout=0.1) as ser:
            version = spoken_version(ser)
            if version in link.SPEAKS:
                ser.write(link.encode(link.REPL, 0, b"", version))  # in the version the firmware answered in
                ser.flush()
    except (serial.SerialException, OSError) as exc:
        raise UserError(f"cannot open {port}: {exc}") from None
    if version is None:
        raise UserError(
            f"no damas firmware answers on {port}: is it at the REPL already (mpremote connect {port}), "
            f"or is this another device?"
        )
    if version not in link.SPEAKS:
        raise UserError(f"the firmware on {port} speaks link protocol {version}, which this damas does not: update it")
    print(f"asked the firmware on {port} to stop: mpremote can connect now (it restarts on the next reset)")
    return 0


def spoken_version(ser: Any, wait: float = 2.0) -> int | None:
    """The link protocol the firmware on ``ser`` speaks, from its answer to a HELLO (protocol.md,
    Versions: a firmware answers in our newest version, naming its own), or None if none came."""
    import time

    from firmware_bridge import link

    deframer = link.Deframer()
    ser.write(link.encode(link.HELLO, 0))
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        for kind, _seq, payload in deframer.feed(ser.read(256)):
            if kind == link.HELLO:
                return int(link.unpack_hello(payload)[0])
    return None
