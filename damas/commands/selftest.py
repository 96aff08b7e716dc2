"""``damas selftest``: every LED, then every square's sensor and the board's orientation."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from damas.commands.common import command, variants_help

if TYPE_CHECKING:
    from board_hal.layout import Layout
    from board_hal.selftest import SelfTestResult


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
    p.add_argument(
        "--db",
        help="the game database damas play uses (default: the config's, else the user's data directory): "
        "what the self-test finds broken is written beside it, in board-health.json, for damas play",
    )
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
        + (f", {len(result.dead_leds)} LEDs dark" if result.dead_leds else "")
    )
    if sim is None:
        _keep(result, io.layout, args.db or config.app.get("database"))
    return 0 if result.ok else 1


#: more broken sensors than this: the board needs its wiring or its switches mended first
MAX_KEPT = 4


def _keep(result: SelfTestResult, layout: Layout, db: str | None) -> None:
    """What was found broken, for damas play (board_hal.health): only a board whose wiring and
    orientation are right (otherwise every square would look broken: mend those first)."""
    from board_hal.health import BoardHealth, default_path, now_text
    from board_hal.layout import cell_name
    from damas.board.sensor_memory import forget_checked

    if result.misplaced or result.wiring or result.numbering or result.led_order:
        print("not kept for damas play: put the wiring and orientation right, then run the self-test again")
        return
    if len(result.dead_leds) == len(layout.cells()):
        result.dead_leds = []  # no LED at all: a chain's power or data, not LEDs to play around
    sensors = set(result.stuck) | {layout.cell_of(sq) for sq in result.dead}
    if len(sensors) > MAX_KEPT:
        print(f"not kept for damas play: {len(sensors)} sensors do not answer (a board to repair, not to play around)")
        return
    health = BoardHealth(layout.size, sensors, set(result.dead_leds), now_text())
    path = default_path(db) if db else default_path()
    try:
        health.save(path)
    except OSError as exc:
        print(f"could not keep the findings for damas play: {path}: {exc.strerror}")
        return
    if sensors or health.leds:
        print(f"kept for damas play in {path}: it plays around these until the self-test finds them mended")
    else:
        print(f"kept for damas play in {path}: every sensor and LED answers")
    # the sensors found broken in play that the self-test checked: sound, or in board-health.json now
    checked = {layout.cell_of(sq) for sq in (*result.confirmed, *result.dead)} | set(result.stuck)
    gone = forget_checked(path, layout, checked)
    if gone:
        print(f"no longer played around as found broken in play: {', '.join(map(cell_name, gone))}")
