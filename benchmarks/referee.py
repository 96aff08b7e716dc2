"""Referee speed: the human-like event logs of the real games (tests/data/games) through the live pipeline.

Prints events per second and the 50th/99th-percentile processing time per raw event
(debounce + referee), for careful hands and for the sloppier hands of issue 17 (sleeve
brushes, reed dropouts, slow king drags, wrong pieces picked up during removals).
Target: p99 under 1 ms here (a Raspberry Pi Zero 2 is roughly ten times slower, and the
player must see the LED answer within one debounce window).

Each line is printed with the fault hypotheses of issue 31 on (the referee weighs the
readings in which a sensor does not answer) and off (every sensor trusted, as before), and
once more on with one sensor dead per game (chosen at random among the squares the game
uses, unknown to the referee).

Then the slow king drag: every plain king move of the games, dragged with rests of
0.15-0.45 s on each square it crosses, followed the way damas play's loop does (it wakes
at the next debounce or referee deadline). It prints how long after the last placement
the LEDs show the final move (from/to) and the referee's verdict records it.

    .venv/bin/python benchmarks/referee.py [--seeds N] [--hands careful|sloppy|both]

The broken-sensor campaigns (share of games recorded whole, misrecords) are
``benchmarks/sensors.py``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from board_hal.debounce import Transition  # noqa: E402
from referee import MoveMade, Pipeline, Referee, Role  # noqa: E402
from rules import Game, Move, Position  # noqa: E402
from rules.pdn import load_pdn  # noqa: E402
from tests.referee.hands import Style, game_log  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--hands", choices=["careful", "sloppy", "both"], default="both")
    args = parser.parse_args()
    games = ROOT / "tests" / "data" / "games"
    files = sorted(games.glob("*/*.pdn"))
    if not files:
        print(f"no games under {games}")
        return 2
    print(f"Python {sys.version.split()[0]}")
    for hands in ("careful", "sloppy") if args.hands == "both" else (args.hands,):
        style = Style.sloppy() if hands == "sloppy" else Style()
        for faults, dead in ((False, False), (True, False), (True, True)):
            label = f"{hands} hands, fault hypotheses {'on' if faults else 'off'}" + (
                ", one dead sensor" if dead else ""
            )
            speed(files, args.seeds, style, label, faults=faults, dead=dead)
    drag_latency(files)
    return 0


def speed(files: list[Path], seeds: int, style: Style, label: str, *, faults: bool, dead: bool) -> None:
    timings: list[float] = []
    cpu: list[float] = []  # CPU time of this thread: what the event cost, whatever else the machine runs
    moves = games = whole = 0
    wall = 0.0
    for path in files:
        for g in load_pdn(path):
            game = Game(g.variant, g.start)
            for pm in g.moves:
                if game.outcome() is not None:
                    break
                game.push(pm.move)
            if not game.move_stack:
                continue
            for seed in range(seeds):
                events, _ = game_log(g.start, list(game.move_stack), seed, style)
                if dead:  # one sensor the game uses never answers
                    used = sorted({sq for m in game.move_stack for sq in (m.from_square, m.to_square, *m.captured)})
                    gone = random.Random(seed * 1000 + g.index).choice(used)
                    events = [ev for ev in events if ev.key != gone]
                ref = Referee(g.variant, g.start.fen(), sensor_faults=faults)
                pipe = Pipeline(ref)
                t_start = time.perf_counter()
                for ev in events:
                    c0 = time.thread_time_ns()
                    t0 = time.perf_counter()
                    pipe.feed(ev)
                    ref.led_intents()  # what live play asks after every event
                    timings.append(time.perf_counter() - t0)
                    cpu.append((time.thread_time_ns() - c0) / 1e9)
                pipe.finish()
                made = ref.game.ply  # a king's stop read again when it slid on is one move
                wall += time.perf_counter() - t_start
                played = list(game.move_stack)
                if dead:
                    assert list(ref.game.move_stack) == played[:made], (path, g.index, seed)  # never another move
                    whole += made == len(played)
                else:
                    assert list(ref.game.move_stack) == played, (path, g.index, seed)
                moves += made
                games += 1
    timings.sort()
    n = len(timings)
    p50 = timings[n // 2] * 1e3
    p99 = timings[int(n * 0.99)] * 1e3
    print(f"{label}: {games} game replays, {moves:,} moves recorded, {n:,} raw events")
    if dead:
        print(f"  recorded whole: {whole}/{games}")
    print(f"  events per second: {n / wall:,.0f}")
    print(
        f"  per event: p50 {p50:.3f} ms, p99 {p99:.3f} ms, max {timings[-1] * 1e3:.3f} ms, "
        f"mean {statistics.fmean(timings) * 1e3:.3f} ms"
    )
    cpu.sort()
    cpu99 = cpu[int(n * 0.99)] * 1e3
    print(f"  CPU time per event: p50 {cpu[n // 2] * 1e3:.3f} ms, p99 {cpu99:.3f} ms, max {cpu[-1] * 1e3:.3f} ms")
    print(
        f"  target p99 < 1 ms: {'met' if p99 < 1.0 else 'NOT met'} (wall), {'met' if cpu99 < 1.0 else 'NOT met'} (CPU)"
    )


def king_moves(files: list[Path]) -> list[tuple[Position, Move]]:
    """Every plain king move of two squares or more in the games, with its position."""
    out = []
    for path in files:
        for g in load_pdn(path):
            game = Game(g.variant, g.start)
            for pm in g.moves:
                if game.outcome() is not None:
                    break
                pos = game.position
                piece = pos.piece_at(pm.move.from_square)
                game.push(pm.move)
                if piece is not None and piece.king and not pm.move.captured:
                    (fa, _), (fb, _) = pos.geometry.coord(pm.move.from_square), pos.geometry.coord(pm.move.to_square)
                    if abs(fa - fb) >= 2:
                        out.append((pos, pm.move))
    return out


def drag_latency(files: list[Path]) -> None:
    """Last placement of a slow drag -> LEDs show the move, and -> the verdict records it."""
    moves = king_moves(files)
    print(f"slow king drags: {len(moves)} plain king moves of the games")
    for rest in (0.15, 0.25, 0.35, 0.45):
        leds: list[float] = []
        verdict: list[float] = []
        astray: list[str] = []  # drags not recorded as the one move played
        for pos, move in moves:
            ref = Referee(pos.variant, pos.fen())
            pipe = Pipeline(ref)
            geo = pos.geometry
            (fa, ra), (fb, rb) = geo.coord(move.from_square), geo.coord(move.to_square)
            n = abs(fb - fa)
            crossed = [geo.square_at(fa + (fb - fa) // n * k, ra + (rb - ra) // n * k) for k in range(1, n)]
            t = 1.0
            pipe.feed(Transition(t, move.from_square, False))
            t += 0.3
            for sq in crossed:
                pipe.feed(Transition(t, sq, True))
                t += rest
                pipe.feed(Transition(t, sq, False))
                t += 0.04
            placed = t
            out = pipe.feed(Transition(placed, move.to_square, True))
            shown = recorded = None
            now = placed
            for step in range(100):  # damas play's loop: wake at the next deadline
                if step:
                    due = [d for d in (pipe.debouncer.next_deadline(), ref.next_deadline()) if d is not None]
                    if not due:
                        break
                    now = max(now, min(due))
                    out += pipe.advance(now)
                roles = {i.square: i.role for i in ref.led_intents()}
                if shown is None and (
                    (roles.get(move.from_square), roles.get(move.to_square))
                    in ((Role.FROM, Role.TO), (Role.LAST, Role.LAST))
                ):  # the move lit as under way, or at once as the last move recorded
                    shown = now
                if recorded is None and any(isinstance(v, MoveMade) and v.ply == 1 for v in out):
                    recorded = now
            made = [v.move for v in out if isinstance(v, MoveMade)]
            if made[-1:] != [move] or ref.game.ply != 1 or shown is None or recorded is None:
                astray.append(pos.pdn(move))
                continue
            leds.append(shown - placed)
            verdict.append(recorded - placed)
        held = [v for v in verdict if v > 0.06]
        print(
            f"  rest {rest:.2f} s per square: LEDs show the move after {statistics.median(leds) * 1e3:.0f} ms "
            f"(max {max(leds) * 1e3:.0f}); the verdict after {statistics.median(verdict) * 1e3:.0f} ms "
            f"(max {max(verdict) * 1e3:.0f}; {len(held)} stops where the king could slide on: "
            f"{statistics.median(held) * 1e3 if held else 0:.0f} ms)"
        )
        if astray:
            print(f"    {len(astray)} of {len(moves)} drags not recorded as played: {'; '.join(astray[:5])}")


if __name__ == "__main__":
    sys.exit(main())
