"""``damas deploy``: print a file a Raspberry Pi installation needs, as the installed package
carries it — the systemd unit, the udev rule, the install guide, an example board configuration,
the hardware docs (wiring, parts, protocol) and schematics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import board_hal
import firmware_bridge
from damas.commands.common import command, shipped
from damas.errors import UserError


def register(sub: Any) -> None:
    p = command(
        sub,
        "deploy",
        "print the systemd unit, the udev rule, the install guide, an example configuration or a hardware doc",
        "damas deploy unit | sudo tee /etc/systemd/system/damas.service",
        description="Print a file a Raspberry Pi installation needs, as this installation carries it: "
        "`damas deploy guide` is the install guide (it says where each file goes); `damas deploy --list` "
        "names them all.",
    )
    p.add_argument("what", nargs="?", help="unit, udev, guide, an example configuration or a doc (see --list)")
    p.add_argument("--list", action="store_true", help="name every file it prints, with where it is installed")
    p.set_defaults(func=run)


def files() -> dict[str, tuple[Path, str]]:
    """Each printable file by name, with what it is."""
    deploy = shipped("deploy", Path(__file__).resolve().parents[1] / "deploy")
    hardware = shipped("hardware", Path(board_hal.__file__).resolve().parent / "examples")
    firmware = shipped("hardware/firmware", Path(firmware_bridge.__file__).resolve().parent / "firmware")
    found = {
        "unit": (deploy / "damas.service", "systemd unit, for /etc/systemd/system/damas.service"),
        "udev": (deploy / "99-damas-pico.rules", "udev rule for the Pico, for /etc/udev/rules.d/"),
        "guide": (deploy / "README.md", "install guide: Raspberry Pi OS, the service"),
        "hardware": (hardware / "README.md", "building the board: the builds, which doc says what"),
        "firmware": (firmware / "README.md", "the Pico firmware, putting it on the Pico"),
    }
    for f in sorted(deploy.glob("*.service")):  # other units beside the board's (the hall's)
        if f.name != "damas.service":
            found[f.stem] = (f, "systemd unit, for /etc/systemd/system/" + f.name)
    for f in sorted(hardware.iterdir()):
        if f.suffix == ".toml":
            found[f.stem] = (f, "example configuration, for /etc/damas/board.toml")
        elif f.suffix == ".md" and f.name != "README.md":
            found[f.stem] = (f, "a hardware doc")
        elif f.suffix == ".svg":
            found[f.name] = (f, "a schematic")
    return found


def run(args: argparse.Namespace) -> int:
    known = files()
    if args.list or args.what is None:
        width = max(map(len, known))
        for name, (path, what) in known.items():
            print(f"{name:<{width}}  {what}  ({path})")
        return 0
    if args.what not in known:
        raise UserError(f"nothing called {args.what!r} to print (`damas deploy --list` names them)")
    sys.stdout.write(known[args.what][0].read_text(encoding="utf-8"))
    return 0
