"""``damas play``: the board (or the simulated board) with the live web page."""

from __future__ import annotations

import argparse
from typing import Any

from damas.commands.common import command, port_number, variants_help
from referee.vocabulary import DEFAULT_MODE, MODES


def register(sub: Any) -> None:
    p = command(
        sub,
        "play",
        "play on the board (or the simulated board) with the live web page",
        "damas play --variant international --white Ana --black Rui --event 'Club night'",
    )
    p.add_argument("--variant", help=variants_help("default: config, else brazilian"))
    p.add_argument("--fen", help="start from this position (K for kings)")
    p.add_argument("--white", help="White's name")
    p.add_argument("--black", help="Black's name")
    p.add_argument("--event", help="the event's name")
    p.add_argument("--mode", choices=MODES, help=f"{' or '.join(MODES)} (default {DEFAULT_MODE})")
    p.add_argument(
        "--clock",
        metavar="CONTROL",
        help="the game clock: fenacef (21 min), 21, 5+3 (Fischer), 5d3/5b3 (delay), 40/90,30+30, none "
        "(default: the config's clock.control, else none)",
    )
    p.add_argument("--config", help="board configuration (TOML; see hardware/); without it, the simulated board")
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1; other hosts need a token)")
    p.add_argument("--port", type=port_number, default=None, help="port, 1-65535 (default 8080)")
    p.add_argument("--db", help="the game database (default: the user's data directory)")
    p.add_argument(
        "--lang",
        choices=["pt-BR", "pt-PT", "en", "pt"],
        help="language of the page: Brazilian or European Portuguese, English (pt: pt-BR; "
        "default: config, else the browser's)",
    )
    resume = p.add_mutually_exclusive_group()
    resume.add_argument("--resume", dest="resume", action="store_true", default=None, help="resume an unfinished game")
    resume.add_argument("--no-resume", dest="resume", action="store_false", help="start a new game")
    p.add_argument("--no-browser", action="store_true", help="do not open the page in a browser")
    p.add_argument(
        "--opponent",
        choices=["human", "engine"],
        help="engine: play against the computer (default: the config's engine.opponent, else human)",
    )
    p.add_argument(
        "--level",
        type=int,
        choices=range(1, 11),
        metavar="1-10",
        help="the computer's level: 1 a beginner can beat, 10 its best (default: engine.level, else 3)",
    )
    p.add_argument(
        "--move-time",
        type=float,
        metavar="SECONDS",
        help="the computer's strength by time: seconds a move instead of its level's (default: engine.move_time)",
    )
    p.add_argument(
        "--side", choices=["white", "black"], help="the side the computer plays (default: engine.side, else black)"
    )
    speak = p.add_mutually_exclusive_group()
    speak.add_argument(
        "--speak",
        dest="speak",
        action="store_true",
        default=None,
        help="the board speaks: every move, report and clock warning aloud (espeak-ng; see [speech])",
    )
    speak.add_argument("--no-speak", dest="speak", action="store_false", help="the board stays silent")
    p.add_argument("--broker", help="publish the games to the tournament hall: mqtt://host:1883 (default: [hall])")
    p.add_argument("--board-id", help="this board's id in the hall (default: [hall] board_id)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from damas.serve import serve  # aiohttp and the board: only for the command that needs them

    return serve(args)
