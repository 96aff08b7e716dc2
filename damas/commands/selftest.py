"""``damas selftest``: every LED, then every square's sensor and the board's orientation."""

from __future__ import annotations

import argparse
from typing import Any

from damas.commands.common import command, variants_help


def register(sub: Any) -> None:
    p = command(
        sub,
        "selftest",
        "check the board's LEDs, sensors and orientation",
        "damas selftest --config /etc/damas/board.toml",
    )
    p.add_argument("--config", help="the board configuration (TOML); without it, the simulated board")
    p.add_argument("--variant", help=variants_help("default: the config's, else brazilian") + "; whose squares to test")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for each square (default 30)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from board_hal.config import load_config
    from board_hal.factory import open_board
    from board_hal.selftest import Prompt, SelfTest
    from board_hal.simulated import SimulatedBoard

    config = load_config(args.config)
    io = open_board(config, args.variant or config.variant or "brazilian")
    sim = io.sensors if isinstance(io.sensors, SimulatedBoard) else None
    if sim is not None:
        print("no hardware configured: the self-test runs on the simulated board, with simulated hands")

    def ask(p: Prompt) -> bool | None:
        print(f"- {p.text}")
        if sim is not None:  # the simulated hands do what is asked
            if p.kind == "clear":
                sim.set_squares([])
            elif p.kind == "place" and p.square is not None:
                sim.place(p.square, piece=p.piece)
            elif p.kind == "lift" and p.square is not None:
                sim.lift(p.square)
            elif p.kind == "point":
                return False  # simulated hands cannot see where a real LED is lit
            return True if p.kind == "leds" and p.text.endswith("(y/n)") else None
        if p.kind == "leds" and p.text.endswith("(y/n)"):
            return input("  answer y or n: ").strip().lower().startswith("y")
        if p.kind == "clear":
            input("  press Enter when the board is empty ")
        return None

    with io:
        io.start()
        result = SelfTest(io, ask, timeout=args.timeout, led_step=0.0 if sim else 0.15).run()
    for line in result.messages:
        print(f"  {line}")
    print(
        f"{len(result.confirmed)} squares confirmed, {len(result.dead)} dead, {len(result.stuck)} stuck, "
        f"{len(result.misplaced)} answered elsewhere"
    )
    return 0 if result.ok else 1
