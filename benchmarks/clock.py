"""Game clock figures (issue 13):

* press → page: the time from a press of a clock button to the page's WebSocket receiving
  the state with the other clock running (50th/99th percentile) — the Pi's GPIO button
  (gpiozero mock pin: the callback the real pin would fire) and the page's own button (HTTP),
  on ``damas play``'s board loop and web server, in this process;
* press → LED: from the press to the board loop's next LED frame (the frame that shows the
  state after the press), and from a flag's deadline to the LED frame showing it;
* drift: a simulated two-hour game (thousands of presses at awkward times, pauses) against
  exact decimal arithmetic on the event times, live and replayed from its log: must be 0.

    .venv/bin/python benchmarks/clock.py
"""

from __future__ import annotations

import asyncio
import json
import random
import socket
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web
from gpiozero.pins.mock import MockFactory

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_hal.buttons import ClockButtons  # noqa: E402
from board_hal.layout import Layout  # noqa: E402
from board_hal.leds import Role  # noqa: E402
from board_hal.simulated import SimulatedBoard  # noqa: E402
from damas.board.loop import PlayApp  # noqa: E402
from damas.records.session import GameSession  # noqa: E402
from damas.records.store import Store  # noqa: E402
from damas.web.routes import build_app  # noqa: E402
from referee import ClockAction, ClockKeeper, Pipeline, Referee  # noqa: E402
from referee.clock import TICKS, Clock, parse_control, ticks  # noqa: E402
from referee.log import LogHeader, dump_log, parse_log  # noqa: E402
from rules import Color, Position  # noqa: E402

PRESSES = 200


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TimedBoard(SimulatedBoard):
    """The simulated board, noting when each LED frame was written."""

    frames: list[tuple[float, dict[Any, Role]]]

    def show(self, intents: Any) -> None:
        super().show(intents)
        self.frames.append((time.perf_counter(), dict(intents)))


async def latencies(tmp: Path) -> dict[str, list[float]]:
    layout = Layout("brazilian")
    start = Position.start("brazilian")
    board = TimedBoard(layout, occupied=start.occupied(), clock=time.time)
    board.frames = []
    factory = MockFactory()
    buttons = ClockButtons(20, 21, pin_factory=factory, clock=time.time, bounce=0.0)
    store = Store(tmp / "bench.sqlite3")
    session = GameSession.start(store, "brazilian", None, "casual", start.occupied(), {}, clock="600")
    app = PlayApp(store, board.io(), session, buttons=buttons)
    runner = web.AppRunner(build_app(app), access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    out: dict[str, list[float]] = {"gpio_page": [], "http_page": [], "gpio_led": [], "flag_led": []}
    try:
        async with aiohttp.ClientSession() as http:
            ws = await http.ws_connect(f"http://127.0.0.1:{port}/ws")

            async def running_after(t0: float, side: str) -> float:
                while True:
                    msg = await ws.receive(timeout=5)
                    state = json.loads(msg.data)
                    if state["clock"]["running"] == side:
                        return time.perf_counter() - t0

            side = "white"  # the first press (black's button) starts white's clock
            for i in range(PRESSES):
                presser = "black" if side == "white" else "white"
                pin = factory.pin(21 if presser == "black" else 20)
                frames = len(board.frames)
                if i % 2 == 0:  # the Pi's button
                    t0 = time.perf_counter()
                    pin.drive_low()
                    out["gpio_page"].append(await running_after(t0, side))
                    out["gpio_led"].append(next(t for t, _ in board.frames[frames:]) - t0)
                    pin.drive_high()
                else:  # the page's button
                    t0 = time.perf_counter()
                    async with http.post(
                        f"http://127.0.0.1:{port}/api/action", json={"action": "clock", "side": presser}
                    ) as r:
                        assert r.status == 200, await r.text()
                    out["http_page"].append(await running_after(t0, side))
                side = "black" if side == "white" else "white"
                await asyncio.sleep(0.03)
            # flags: set the running clock to a moment, and see when its fall is lit
            for _ in range(20):
                keeper = app.session.clock
                assert keeper is not None
                app.action({"action": "new-game"})
                keeper = app.session.clock
                assert keeper is not None
                app.action({"action": "clock", "side": "black"})
                app.action({"action": "clock-adjust", "white": 0.3})
                due = keeper.clock.deadline()
                assert due is not None
                frames = len(board.frames)
                while not any(Role.ERROR in f.values() for _, f in board.frames[frames:]):
                    await asyncio.sleep(0.001)
                lit = next(t for t, f in board.frames[frames:] if Role.ERROR in f.values())
                wall = time.time() - (time.perf_counter() - lit)
                out["flag_led"].append(wall - due / TICKS)
            await ws.close()
    finally:
        await runner.cleanup()
        buttons.close()
        store.close()
    return out


def drift() -> tuple[int, int, int, float]:
    """(ticks off live, ticks off replayed, presses, hours) over a simulated two-hour game."""
    rnd = random.Random(13)
    ref = Referee("brazilian", mode="casual")
    keeper = ClockKeeper(parse_control("120"), ref)
    pipe = Pipeline(ref, 0.0, keeper)
    events: list[ClockAction] = []
    t = Decimal("0")
    spent = {Color.WHITE: Decimal(0), Color.BLACK: Decimal(0)}
    events.append(ClockAction(0.0, "clock", Color.BLACK, "button"))
    pipe.feed(events[-1])
    side = Color.WHITE
    while t < 7200 - 2:
        dt = Decimal(f"{rnd.uniform(0.0001, 3.0):.4f}")
        if rnd.random() < 0.01:  # the arbiter pauses and resumes: not charged
            pause = t + (dt / 2).quantize(Decimal("0.0001"))
            events.append(ClockAction(float(pause), "clock-pause", source="arbiter"))
            events.append(ClockAction(float(pause + 60), "clock-resume", source="arbiter"))
            for ev in events[-2:]:
                pipe.feed(ev)
            t += 60
        t += dt
        spent[side] += dt
        events.append(ClockAction(float(t), "clock", side, "button"))
        pipe.feed(events[-1])
        side = side.other
    text = dump_log(LogHeader(variant="brazilian", extra={"clock": "120"}), events)
    h, parsed = parse_log(text.splitlines())
    ref2 = Referee("brazilian")
    again = ClockKeeper.from_header(h.to_json(), ref2)
    assert again is not None
    Pipeline(ref2, 0.0, again).run(parsed)
    off_live = off_replay = 0
    for c in (Color.WHITE, Color.BLACK):
        exact = int((7200 - spent[c]) * TICKS)
        off_live = max(off_live, abs(keeper.clock.remaining(c, ticks(float(t))) - exact))
        off_replay = max(off_replay, abs(again.clock.remaining(c, ticks(float(t))) - exact))
    return off_live, off_replay, len(events), float(t) / 3600


def float_drift() -> float:
    """For comparison: the same game kept in float seconds, as a naive clock would."""
    rnd = random.Random(13)
    c = Clock(parse_control("120"))
    t = 0.0
    left = 7200.0
    exact = Decimal(7200)
    while t < 7200 - 2:
        dt = round(rnd.uniform(0.0001, 3.0), 4)
        t += dt
        left -= dt
        exact -= Decimal(f"{dt:.4f}")
    del c
    return abs(left - float(exact))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        figures = asyncio.run(latencies(Path(tmp)))
    print(
        f"press -> page, GPIO button  p50 {pct(figures['gpio_page'], 0.5) * 1000:6.1f} ms   "
        f"p99 {pct(figures['gpio_page'], 0.99) * 1000:6.1f} ms   ({len(figures['gpio_page'])} presses)"
    )
    print(
        f"press -> page, page button  p50 {pct(figures['http_page'], 0.5) * 1000:6.1f} ms   "
        f"p99 {pct(figures['http_page'], 0.99) * 1000:6.1f} ms   ({len(figures['http_page'])} presses)"
    )
    print(
        f"press -> LED frame          p50 {pct(figures['gpio_led'], 0.5) * 1000:6.1f} ms   "
        f"p99 {pct(figures['gpio_led'], 0.99) * 1000:6.1f} ms"
    )
    print(
        f"flag deadline -> LED frame  p50 {pct(figures['flag_led'], 0.5) * 1000:6.1f} ms   "
        f"p99 {pct(figures['flag_led'], 0.99) * 1000:6.1f} ms   ({len(figures['flag_led'])} flags)"
    )
    live, replayed, n, hours = drift()
    print(
        f"drift over a {hours:.2f} h game ({n} clock events): live {live} units, replayed {replayed} units "
        f"(1 unit = 0.1 ms; must be 0); float seconds would be off by {float_drift():.2e} s"
    )
    return 0 if live == replayed == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
