"""``damas hall-setup``: the production broker for a hall (``hall.setup``): Debian's Mosquitto
with TLS for the boards, a password per board, the ACL, and the event's certificates."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from damas.commands.common import command
from damas.errors import UserError


def register(sub: Any) -> None:
    p = command(
        sub,
        "hall-setup",
        "set up Mosquitto for a hall: TLS certificates, a password per board, the ACL (run as root)",
        "damas hall-setup --boards 1-100 --host hall.local --ip 192.168.1.10",
        description="Writes Mosquitto's configuration for a tournament hall under /etc/mosquitto: "
        "conf.d/damas.conf and damas.acl (shipped with damas), the event's certificate authority and the "
        "broker's TLS certificate (certs/), a password for the hall and for each board (damas.passwd), and "
        "every login with its password in damas-boards.csv (readable by root only). What exists is kept: "
        "the CA is made once and the boards keep their passwords; new boards are added.",
    )
    p.add_argument("--boards", required=True, help="the board ids: 1-100, or 1,2,7 (each board's login)")
    p.add_argument("--host", action="append", default=[], help="a name the boards reach the hall by (repeat)")
    p.add_argument("--ip", action="append", default=[], help="an address the boards reach the hall by (repeat)")
    p.add_argument("--etc", default="/etc/mosquitto", help="Mosquitto's configuration directory")
    p.add_argument("--renew", action="store_true", help="a new CA, certificate and passwords for everyone")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hall.setup import Setup, SetupError, parse_boards

    try:
        setup = Setup(Path(args.etc), parse_boards(args.boards), hosts=args.host, ips=args.ip, renew=args.renew)
        added = setup.run()
    except SetupError as exc:
        raise UserError(str(exc)) from None
    except PermissionError as exc:
        raise UserError(f"cannot write {exc.filename}: run it as root (sudo damas hall-setup ...)") from None
    etc = Path(args.etc)
    print(f"Mosquitto's hall setup is in {etc}: restart it (sudo systemctl restart mosquitto).")
    print(f"The boards trust {etc / 'certs' / 'damas-ca.crt'} (copy it to each board: tls_ca in [hall]).")
    if added:
        print(f"New logins ({len(added)}), also in {etc / 'damas-boards.csv'}:")
        for user, password in added:
            print(f"  {user}\t{password}")
    return 0
