"""One simulated board in its own process, as ``damas play --broker`` runs it: the real PlayApp,
game store, referee and publisher, with simulated hands playing a game from the test data.

    python -m tests.hall.board_sim --db DB --broker URL --board-id 7 --pdn FILE --index 3
        --plies 30 --gap 0.06 --out OUT [--clock 21] [--tls-ca CA]

When the game is played (and its result entered), the board's own export of it is written to
OUT (``<game id>`` on the first line, then the PDN); the board then keeps running (answering
the hall) until SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import time
from pathlib import Path

from board_hal.config import load_config
from board_hal.factory import open_board
from damas.board.loop import PlayApp
from damas.hall_link.publish import Publisher
from damas.records.session import GameSession, export_game
from damas.records.store import Store
from hall.protocol import Broker
from rules import Position
from rules.pdn import load_pdn


async def _play(app: PlayApp, moves: list, gap: float, result: str | None) -> None:
    start_plies = len(app.session.referee.game.move_stack)
    for i, m in enumerate(moves):
        actions = [("lift", m.from_square), ("place", m.to_square)] + [("lift", c) for c in m.captured]
        for op, sq in actions:
            app.sim_event(op, sq, None)
            await asyncio.sleep(gap)
        deadline = time.monotonic() + 10
        while len(app.session.referee.game.move_stack) < start_plies + i + 1:
            if time.monotonic() > deadline:
                raise RuntimeError(f"move {i + 1} was not taken")
            await asyncio.sleep(0.01)
    if result and not app.session.ended:
        app.action({"action": "result", "result": result})


async def main_async(args: argparse.Namespace) -> None:
    game = load_pdn(args.pdn)[args.index]
    variant = game.variant.name
    config = load_config(None)
    store = Store(args.db, exclusive=True)
    io = open_board(config, variant, clock=time.time)
    io.start()
    tags = {k: v for k, v in game.tags.items() if k in ("Event", "White", "Black", "Date")}
    tags["Round"] = args.round
    session = GameSession.start(
        store, variant, None, "casual", Position.start(variant).occupied(), tags, clock=args.clock, clock_auto=True
    )
    app = PlayApp(store, io, session)
    app.publisher = Publisher(store, args.board_id, Broker.parse(args.broker, tls_ca=args.tls_ca), assign=app.assign)
    app.publisher.start()
    loop_task = asyncio.create_task(app.run_loop())
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        moves = [pm.move for pm in game.moves][: args.plies]
        full = len(moves) == len(game.moves)
        await _play(app, moves, args.gap, game.result if full and game.result != "*" else "1-1")
        await asyncio.sleep(0.1)  # a loop turn publishes what the result changed
        gid = app.session.row.id
        text = f"{gid}\n{export_game(store, gid).pdn()}"
        tmp = Path(args.out + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, args.out)
        await stop.wait()
    finally:
        loop_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loop_task
        app.publisher.close()
        io.close()
        store.close()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--db", required=True)
    p.add_argument("--broker", required=True)
    p.add_argument("--board-id", required=True)
    p.add_argument("--pdn", required=True)
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--plies", type=int, default=1000)
    p.add_argument("--gap", type=float, default=0.06)
    p.add_argument("--round", default="1")
    p.add_argument("--clock", help="the game clock's control (pressed by the moves); default none")
    p.add_argument("--out", required=True)
    p.add_argument("--tls-ca", help="the event's CA (a broker's TLS listener, as the board's [hall] tls_ca)")
    args = p.parse_args()
    logging.basicConfig(level=logging.WARNING, format=f"board {args.board_id}: %(message)s")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
