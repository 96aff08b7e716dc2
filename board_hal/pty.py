"""A serial device path for an emulated board: a pseudo-terminal behind a symlink.

The emulators (the Pico's, ``firmware_bridge.emulator``; DGT's board, ``board_hal.dgt_emulator``)
serve their board on a pty. The path a host opens is a symlink to the pty's slave side,
replaced atomically on each plug-in and removed on unplug, as a device node appears and goes
away: nothing opens a freed pseudo-terminal another program may have taken meanwhile.
"""

from __future__ import annotations

import os
import tty


def plug_pty(port: str) -> tuple[int, int]:
    """A new pty in raw mode, its master non-blocking, ``port`` pointing at its slave side:
    (master, slave)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    tmp = port + ".new"
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(os.ttyname(slave), tmp)
    os.replace(tmp, port)
    return master, slave
