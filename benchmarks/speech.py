"""The talking board's cost to the board: a whole game played on the simulated board by hands
in real time, the board loop running as ``damas play`` runs it, once with the voice off and
once with it on (espeak-ng really rendering every phrase, played through ALSA's ``null``
device, so that nothing waits for a loudspeaker and espeak-ng works back to back: more
contention than a real voice, which paces itself) — side by side, alternated.

Measured per hand event (lift or place): the time from the event to the LEDs showing its
effect (``show`` with a new frame; the 50 ms debounce window included), 50th and 99th
percentile; the target is a p99 within 5 ms of the same run with the voice off. Also: the
phrases said, and whether they are the game's, in order.

    .venv/bin/python benchmarks/speech.py [--rounds 2] [--game N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_hal.layout import Cell, Layout  # noqa: E402
from board_hal.leds import Role  # noqa: E402
from board_hal.simulated import SimulatedBoard  # noqa: E402
from board_hal.speech import EspeakNg, EspeakSettings, Speaker  # noqa: E402
from damas.board.loop import PlayApp  # noqa: E402
from damas.records.session import GameSession  # noqa: E402
from damas.records.store import Store  # noqa: E402
from damas.speech import phrases  # noqa: E402
from damas.speech.announcer import Announcer  # noqa: E402
from rules import Move, Position  # noqa: E402
from rules.pdn import load_pdn  # noqa: E402

GAMES = ROOT / "tests" / "data" / "games" / "brazilian" / "lidraughts-brazilian.pdn"
GAP = 0.08  # seconds between two hand events (more than the 50 ms debounce window)
WINDOW = 0.05


class Watched(SimulatedBoard):
    """The simulated board, noting when each new LED frame was shown."""

    def __init__(self, *args: object, **kw: object) -> None:
        super().__init__(*args, **kw)  # type: ignore[arg-type]
        self.frames: list[tuple[float, dict[Cell, Role]]] = []

    def show(self, intents: Mapping[Cell, Role]) -> None:
        frame = dict(intents)
        if not self.frames or self.frames[-1][1] != frame:
            self.frames.append((time.perf_counter(), frame))
        super().show(intents)


def hand_events(moves: list[Move]) -> list[tuple[str, int]]:
    out: list[tuple[str, int]] = []
    for move in moves:
        out.append(("lift", move.path[0]))
        for i, q in enumerate(move.path[1:]):
            out.append(("place", q))
            if i < len(move.path) - 2:
                out.append(("lift", q))
        out += [("lift", q) for q in move.captured]
    return out


def one_run(moves: list[Move], voice: str, workdir: Path) -> tuple[list[float], list[str], list[str]]:
    """The game played once; (latencies in seconds, the phrases said, espeak-ng's errors)."""
    layout = Layout("brazilian")
    sim = Watched(layout, occupied=Position.start("brazilian").occupied(), clock=time.time)
    store = Store(workdir / f"{voice}-{time.monotonic_ns()}.sqlite3")
    session = GameSession.start(store, "brazilian", None, "casual", sim.occupied_squares(), {}, window=WINDOW)
    backend = None
    speaker = None
    if voice == "espeak-ng":
        backend = EspeakNg(EspeakSettings(device="null"))
        speaker = Speaker(backend)
    said: list[str] = []  # (a piece held up, pieces left to take off: said when the hands were slow)
    if speaker is not None:
        speaker.on_said = lambda p: said.append(("(held) " if p.group in ("piece", "remove") else "") + p.text)
    app = PlayApp(store, sim.io(), session, window=WINDOW, speech=Announcer(language="pt-BR", speaker=speaker))
    latencies: list[float] = []
    events = hand_events(moves)
    done = threading.Event()

    def hands() -> None:
        time.sleep(0.5)
        for op, square in events:
            before = len(sim.frames)
            t0 = time.perf_counter()
            (sim.lift if op == "lift" else sim.place)(square)
            deadline = t0 + 1.0
            while len(sim.frames) == before and time.perf_counter() < deadline:
                time.sleep(0.0005)
            if len(sim.frames) > before:
                latencies.append(sim.frames[before][0] - t0)
            time.sleep(max(0.0, GAP - (time.perf_counter() - t0)))
        done.set()

    async def main() -> None:
        loop_task = asyncio.create_task(app.run_loop())
        worker = threading.Thread(target=hands)
        worker.start()
        while not done.is_set():
            await asyncio.sleep(0.05)
        worker.join()
        loop_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await loop_task

    asyncio.run(main())
    if speaker is not None:
        speaker.wait_idle(120.0)
    errors = list(backend.errors) if backend is not None else []
    app.close()
    store.close()
    return latencies, said, errors


def expected(moves: list[Move]) -> list[str]:
    pos = Position.start("brazilian")
    out = [
        phrases.say("pt-BR", "game_new", variant=phrases.say("pt-BR", "variant_brazilian")),
        phrases.turn_phrase("pt-BR", pos),
    ]
    for move in moves:
        out.append(phrases.move_phrase("pt-BR", pos, move))
        pos = pos.apply(move)
        if pos.has_captures():
            out.append(phrases.must_capture_phrase("pt-BR", pos))
    return [phrases.spoken(t, "pt-BR") for t in out]


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2, help="runs of each (alternated)")
    ap.add_argument("--game", type=int, default=0, help="which game of the lidraughts sample")
    args = ap.parse_args()
    pg = load_pdn(GAMES)[args.game]
    pos = Position.start("brazilian")
    moves: list[Move] = []
    for m in pg.moves:
        move = pos.routes(pos.parse_pdn(m.text))[0]
        moves.append(move)
        pos = pos.apply(move)
    print(
        f"Python {sys.version.split()[0]}; a game of {len(moves)} plies, {len(hand_events(moves))} hand events, "
        f"one every {GAP * 1000:.0f} ms"
    )
    got: dict[str, list[float]] = {"off": [], "espeak-ng": []}
    said_all: list[list[str]] = []
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for voice in ("off", "espeak-ng"):
                lat, said, errs = one_run(moves, voice, Path(tmp))
                got[voice] += lat
                if voice != "off":
                    said_all.append(said)
                    errors += errs
    for voice, lat in got.items():
        print(
            f"voice {voice:9}: event -> LEDs p50 {pct(lat, 0.5) * 1e3:6.2f} ms, p99 {pct(lat, 0.99) * 1e3:6.2f} ms, "
            f"mean {statistics.fmean(lat) * 1e3:6.2f} ms over {len(lat)} events"
        )
    diff = (pct(got["espeak-ng"], 0.99) - pct(got["off"], 0.99)) * 1e3
    print(f"p99 with the voice on minus off: {diff:+.2f} ms (target: within 5 ms)")
    want = expected(moves)
    for i, everything in enumerate(said_all):
        said = [t for t in everything if not t.startswith("(held) ")]
        held = len(everything) - len(said)
        if held:
            print(f"run {i + 1}: {held} phrases for a piece held up or pieces left (hands slower than the grace)")
        verdict = (
            "the game's phrases, in order, none lost" if said == want else f"DIFFERENT ({len(said)} of {len(want)})"
        )
        print(f"run {i + 1} with the voice: {len(said)} phrases said: {verdict}")
        if said != want:
            extra = [t for t in said if t not in want]
            lost = [t for t in want if t not in said]
            print(f"  said beyond the game's: {extra}; not said: {lost}")
    if errors:
        print("espeak-ng errors:", "; ".join(sorted(set(errors))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
