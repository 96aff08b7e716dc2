"""``damas hall``: the tournament hall (the ``hall`` package) from the command line."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from damas.commands.common import command
from damas.errors import UserError


def default_db() -> str:
    """``$DAMAS_HALL_DB``, else ``hall.sqlite3`` in the user's data directory (XDG)."""
    env = os.environ.get("DAMAS_HALL_DB")
    if env:
        return env
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return str(Path(base) / "damas" / "hall.sqlite3")


def register(sub: Any) -> None:
    p = command(
        sub,
        "hall",
        "the tournament hall: collect the boards' games over MQTT, the hall page, pairings and standings",
        "damas hall --broker mqtt://hall:secret@127.0.0.1:1883 --players players.csv --rounds 7",
        description="The tournament hall: every board's games through an MQTT broker (a private Mosquitto on "
        "the loopback interface when no --broker is given), the live hall page, the broadcast feed /live.pdn, "
        "Swiss pairings (FIDE Dutch), standings and the FENACEF tie-break.",
    )
    p.add_argument(
        "--broker",
        help="the MQTT broker, mqtt://[user:password@]host[:port] or mqtts://... "
        "(default: start a private Mosquitto on 127.0.0.1)",
    )
    p.add_argument("--username", help="the broker user name (default: the URL's)")
    p.add_argument("--password", help="the broker password (default: the URL's, else $DAMAS_MQTT_PASSWORD)")
    p.add_argument("--tls-ca", help="CA file for a TLS broker (mqtts://)")
    p.add_argument("--db", help="the hall's database (default: hall.sqlite3 in the user's data directory)")
    p.add_argument("--host", default="127.0.0.1", help="address the hall page listens on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8090, help="port of the hall page (default 8090)")
    p.add_argument("--token", help="the arbiter's token (default: the one kept in the database, else a new one)")
    p.add_argument("--players", metavar="CSV", help="import players from a CSV with a name column (rating, club)")
    p.add_argument("--rounds", type=int, help="the planned number of rounds (default 7)")
    p.add_argument("--event", help="the event's name")
    p.add_argument("--boards", help="board ids for tables 1, 2, ... (comma separated; default: the table number)")
    p.add_argument(
        "--lang",
        choices=["pt-BR", "pt-PT", "en", "pt"],
        help="language of the hall's pages: Brazilian or European Portuguese, English (pt: pt-BR; kept in the "
        "hall's database; default: each browser's)",
    )
    p.add_argument("--tiebreak", choices=["literal", "progressive"], help="reading of FENACEF Art. 5 (default literal)")
    p.add_argument(
        "--auto-confirm",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a finished game's result goes to the standings without the arbiter confirming it",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from hall.serve import HallError, Options
    from hall.serve import run as run_hall

    if not 1 <= args.port <= 65535:
        raise UserError(f"--port must be between 1 and 65535, not {args.port}")
    opts = Options(
        db=args.db or default_db(),
        broker=args.broker,
        username=args.username,
        password=args.password or os.environ.get("DAMAS_MQTT_PASSWORD"),
        tls_ca=args.tls_ca,
        host=args.host,
        port=args.port,
        token=args.token,
        players=args.players,
        rounds=args.rounds,
        event=args.event,
        boards=args.boards,
        tiebreak=args.tiebreak,
        language=args.lang,
        auto_confirm=args.auto_confirm,
    )
    try:
        return run_hall(opts)
    except HallError as exc:
        raise UserError(str(exc)) from None
