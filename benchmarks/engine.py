"""The engine: speed, depth, time discipline and strength.

    .venv/bin/python benchmarks/engine.py --quick            # a quick look (minutes; nothing recorded)
    .venv/bin/python benchmarks/engine.py --parts peer --pairings turbo-international --move-times 0.2 \
        --games 250 --jobs 2
    .venv/bin/python benchmarks/engine.py --parts match --variant brazilian --a damas:weights=W.json \
        --b damas:weights=hand --move-times 0.2 --games 250
    .venv/bin/python benchmarks/engine.py --parts ladder --variant international --games 40
    .venv/bin/python benchmarks/engine.py --summary [RECORD.jsonl ...]   # figures of recorded matches

1. ``speed``: nodes per second and the depth reached in 1 s, from the start and from three
   middle-game positions per variant (reached by a seeded level-5 game: the same every run).
2. ``time``: the worst overrun of the time budget over many searches (move time 0.05-0.5 s,
   clocks, a stop from another thread): it must stay within 10 % + 50 ms.
3. ``levels``: level 10 (0.2 s a move) against level 1, 20 games per variant.
4. ``peer``: against py-draughts 1.10.1 (GPL-3.0: a benchmark-only peer, loaded from
   ``.bench/py-draughts`` as ``make bench`` installs it; never imported by the project) at
   equal time per move: SimpleEngine in Brazilian and International, TurboEngine in
   International (``--pairings``).
5. ``match``: any two players (``--a``, ``--b``: see benchmarks/engine_match.py: our engine
   with a level, a weights table, another git revision's search, endgame databases; or
   py-draughts' engines) in ``--variant``, from openings or endgame starts (``--starts
   endgames:6``); ``self`` is this search against ``--baseline``'s, ``weights`` two weights
   tables (``--weights-a``, ``--weights-b``).
6. ``ladder``: each level against the one below at the levels' own settings (``--games`` a
   step; ``--levels 2-10``).
7. ``evalspeed``: nodes per CPU second of a fixed-depth International search, per table.
8. ``depth``: the depth and nodes each engine reaches in ``--move-times`` CPU seconds a move
   on the same International positions (quiet ones from a seeded level-5 game, plies 10-90),
   ours against py-draughts' TurboEngine.
9. ``loss``: what a move at each of ``--levels`` costs in ``--variant``, against a depth-6
   search, over the positions of a seeded level-6 game (plies 6-60, forced moves left out): the
   mean loss in hundredths of a man (ten men at most a move) and the moves losing more than a
   man. A quick look (seconds) at where a ply or an error is worth more, before a ladder's
   matches measure it.

Every match (4-6) writes each game to its record as it ends (``.bench/matches/``, or
``--record``), resumes where it stopped and adds runs together (``--games`` is the total):
see benchmarks/engine_match.py. Games run ``--jobs`` at a time, each pinned to one core with
both its engines (they alternate, never thinking at once), both held to the same wall-clock
time a move; the summary prints the W/D/L, the score with its 95 % interval, each side's
mean wall and CPU time a move and the load average the games were played under.

The machine's load shifts every figure: compare runs made side by side.
"""

from __future__ import annotations

import argparse
import random
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine_match import (  # noqa: E402
    Match,
    Peer,
    Spec,
    describe,
    evaluator_of,
    record_paths,
    run_match,
    summary,
    use_cpu_clock,
)

from engine import Engine, Limits, level_settings  # noqa: E402
from engine.evaluate import WEIGHTS_10  # noqa: E402
from rules import Game, Move  # noqa: E402

VARIANTS = ("brazilian", "portuguese", "international")
PAIRINGS = {
    "simple-brazilian": ("simple", "brazilian"),
    "simple-international": ("simple", "international"),
    "turbo-international": ("turbo", "international"),
}


def seeded_game(variant: str, level: int, seed: int, tt_mb: float = 4) -> Iterator[Game]:
    """A game our engine plays against itself at ``level`` with ``seed`` (the same every run):
    the game after each move, until it ends (the caller stops it sooner)."""
    game = Game(variant)
    eng = Engine(variant, level=level, seed=seed, tt_mb=tt_mb)
    while game.outcome() is None:
        move = eng.search(game).move
        assert move is not None
        game.push(move)
        yield game


def middle_games(variant: str) -> list[Game]:
    """Three middle-game positions: the first quiet ones from plies 14, 22 and 30 of a seeded
    level-5 game (the same every run)."""
    out: list[Game] = []
    targets = [14, 22, 30]
    for game in seeded_game(variant, 5, 2026):
        if not targets:
            break
        if game.ply >= targets[0] and not game.position.has_captures():
            out.append(game.copy())
            targets.pop(0)
    return out


def speed(seconds: float) -> None:
    print(f"\n## Nodes per second and depth in {seconds:g} s (a fresh 64 MB table each)")
    for variant in VARIANTS:
        for label, game in [("start", Game(variant))] + [(f"ply {g.ply}", g) for g in middle_games(variant)]:
            eng = Engine(variant)
            t0 = time.monotonic()
            r = eng.search(game, Limits(move_time=seconds))
            took = time.monotonic() - t0
            print(
                f"{variant:<13} {label:<7} depth {r.depth:>2}  {r.nodes:>7,} nodes  {r.nodes / took:>7,.0f} n/s  "
                f"{took:.2f} s  best {r.move}"
            )


def overruns(count: int) -> None:
    print(f"\n## Time budget: {count} searches per kind")
    rng = random.Random(5)
    games = [g for v in VARIANTS for g in [Game(v), *middle_games(v)]]

    def hard(limits: Limits) -> float:
        budget = limits.budget()
        assert budget is not None
        return budget[1]

    def move_time() -> tuple[Limits, float]:
        t = rng.choice((0.05, 0.1, 0.2, 0.5))
        return Limits(move_time=t), t

    def sudden_death() -> tuple[Limits, float]:
        lim = Limits(time=rng.choice((1.0, 3.0, 10.0)))
        return lim, hard(lim)

    def fischer() -> tuple[Limits, float]:
        lim = Limits(time=rng.choice((1.0, 3.0)), inc=0.1)
        return lim, hard(lim)

    def moves_in_time() -> tuple[Limits, float]:
        lim = Limits(moves=rng.choice((1, 2, 5)), time=1.0)
        return lim, hard(lim)

    kinds: list[tuple[str, Callable[[], tuple[Limits, float]]]] = [
        ("move-time", move_time),
        ("time (sudden death)", sudden_death),
        ("time + inc (Fischer)", fischer),
        ("moves in time", moves_in_time),
    ]
    for name, make in kinds:
        worst = -1.0
        worst_ratio = 0.0
        for i in range(count):
            game = games[i % len(games)]
            limits, budget = make()
            eng = Engine(game.variant, tt_mb=8)
            t0 = time.monotonic()
            eng.search(game, limits)
            over = time.monotonic() - t0 - budget
            worst = max(worst, over)
            worst_ratio = max(worst_ratio, over / (0.1 * budget + 0.05))
        verdict = "ok" if worst_ratio <= 1 else "OVER"
        print(
            f"{name:<22} worst overrun {worst * 1000:+7.1f} ms "
            f"({worst_ratio:.2f} of the 10 % + 50 ms allowance) {verdict}"
        )
    # a stop from another thread
    worst = 0.0
    for i in range(count):
        game = games[i % len(games)]
        stop = threading.Event()
        eng = Engine(game.variant, tt_mb=8)
        delay = 0.05 + 0.05 * (i % 5)
        timer = threading.Timer(delay, stop.set)
        t0 = time.monotonic()
        timer.start()
        eng.search(game, Limits(infinite=True), stop)
        worst = max(worst, time.monotonic() - t0 - delay)
    print(f"{'stop (another thread)':<22} worst latency {worst * 1000:7.1f} ms")


def eval_speed(depth: int, tables: list[str]) -> None:
    """Nodes per CPU second of a fixed-depth International search, per weights table."""
    print(f"\n## International: nodes per CPU second at depth {depth} (time.process_time), per weights table")
    games = [("start", Game("international"))] + [(f"ply {g.ply}", g) for g in middle_games("international")]
    for weights in tables:
        ev = evaluator_of("international", weights)
        nodes = 0
        cpu = 0.0
        for label, game in games:
            eng = Engine("international", tt_mb=16)
            eng.evaluator = ev
            t0 = time.process_time()
            r = eng.search(game, Limits(depth=depth))
            took = time.process_time() - t0
            nodes += r.nodes
            cpu += took
            print(f"{weights:<40} {label:<7} {r.nodes:>8,} nodes  {r.nodes / took:>7,.0f} n/s  best {r.move}")
        print(f"{weights:<40} all     {nodes:>8,} nodes  {nodes / cpu:>7,.0f} n/s", flush=True)


def depth_against_turbo(move_time: float) -> None:
    """Depth and nodes a move of ours and TurboEngine's on the same positions, CPU time each."""
    print(f"\n## International: depth and nodes in {move_time:g} s CPU a move, ours and TurboEngine's")
    positions: list[Game] = []
    targets = list(range(10, 100, 10))
    for game in seeded_game("international", 5, 2026):
        if not targets:
            break
        if game.ply >= targets[0] and not game.position.has_captures() and len(game.legal_moves) > 1:
            positions.append(game.copy())
            targets.pop(0)
    sums = [0, 0, 0, 0]
    for g in positions:
        peer = Peer(Spec("turbo"), "international", move_time)
        peer.start(g)
        use_cpu_clock()  # (once py-draughts is loaded: its clock too)
        ours = Engine("international", tt_mb=16).search(g, Limits(move_time=move_time))
        peer.engine.get_best_move(peer.board)
        theirs = (peer.engine.completed_depth, peer.engine.nodes)
        print(
            f"ply {g.ply:>3}: ours depth {ours.depth:>2} {ours.nodes:>7,} nodes; "
            f"TurboEngine depth {theirs[0]:>2} {theirs[1]:>7,}"
        )
        for k, v in enumerate((ours.depth, ours.nodes, *theirs)):
            sums[k] += v
    n = len(positions)
    print(
        f"mean of {n}: ours depth {sums[0] / n:.2f}, {sums[1] / n:,.0f} nodes; "
        f"TurboEngine depth {sums[2] / n:.2f}, {sums[3] / n:,.0f} nodes",
        flush=True,
    )


def tc(t: float | None) -> str:
    return "the levels' own settings" if t is None else f"{t:g} s"


def play(match: Match, games: int, jobs: int, record: Path | None, quick: bool, verbose: bool) -> None:
    t0 = time.monotonic()
    records = run_match(match, games, jobs=jobs, record=record, verbose=verbose, keep=not quick)
    print(f"{match.key}: {describe(records)} ({time.monotonic() - t0:.0f} s this run)", flush=True)


LOSS_PLIES = (6, 60)  # the plies of the seeded game whose positions ``loss`` reads
LOSS_DEPTH = 6  # the depth of the search a move's loss is measured against
LOSS_CAP = 1000  # a move's loss counts at most ten men (a move into a lost ending: not a mate score)


def move_losses(variant: str, levels: range) -> None:
    """Each level's mean loss a move against a deeper search, on the same positions."""
    print(f"\n## {variant}: a move's loss at levels {levels.start}-{levels.stop - 1} against depth {LOSS_DEPTH}")
    ref = Engine(variant, level=10, seed=1, tt_mb=32)

    def value(game: Game, move: Move) -> int:
        after = Game(game.variant, game.position)
        after.push(move)
        ref.new_game()  # (each value its own: the same whichever levels are measured)
        return -ref.search(after, Limits(depth=LOSS_DEPTH - 1)).score

    losses: dict[int, list[int]] = {n: [] for n in levels}
    for game in seeded_game(variant, 6, 7, tt_mb=16):
        if game.ply > LOSS_PLIES[1]:
            break
        if game.ply < LOSS_PLIES[0] or game.outcome() is not None or len(game.legal_moves) < 2:
            continue
        ref.new_game()
        best = ref.search(Game(game.variant, game.position), Limits(depth=LOSS_DEPTH))
        for n in levels:
            lv = level_settings(n, variant)
            move = (
                Engine(variant, level=n, seed=game.ply, tt_mb=16)
                .search(Game(game.variant, game.position), Limits(depth=lv.depth, nodes=lv.nodes))
                .move
            )
            lost = 0 if move == best.move else best.score - value(game, move)  # type: ignore[arg-type]
            losses[n].append(min(LOSS_CAP, max(0, lost)))
    for n, xs in losses.items():
        mean, bad = sum(xs) / max(1, len(xs)), sum(x > 100 for x in xs)
        print(f"level {n:2d}: mean loss {mean:5.1f} over {len(xs)} moves, {bad} losing more than a man")


def ladder(variant: str, levels: range, games: int, jobs: int, quick: bool, verbose: bool, clock: str) -> None:
    """Each level against the one below, at the levels' own settings (depth or nodes a move)."""
    print(f"\n## The level ladder, {variant}: each level against the one below, {games} games a step")
    for n in levels:
        match = Match(variant, Spec.parse(f"damas:level={n}"), Spec.parse(f"damas:level={n - 1}"), None, clock=clock)
        play(match, games, jobs, None, quick, verbose)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a quick look: fewer searches, 4 games a match, 0.2 s only")
    ap.add_argument("--parts", default="speed,time,levels,peer", help="what to run (default speed,time,levels,peer)")
    ap.add_argument("--games", type=int, default=40, help="games a match in all, recorded ones included (default 40)")
    ap.add_argument("--jobs", type=int, default=1, help="games at once, one core each (default 1)")
    ap.add_argument("--record", type=Path, help="the match's record (default .bench/matches/<match>.jsonl)")
    ap.add_argument(
        "--pairings",
        default=",".join(PAIRINGS),
        help=f"comma-separated pairings against py-draughts (default all: {','.join(PAIRINGS)})",
    )
    ap.add_argument(
        "--move-times", default="0.2,1", help="seconds a move for the matches (default 0.2,1; level: the levels' own)"
    )
    ap.add_argument("--level-games", type=int, default=20, help="level 10 v level 1 games per variant (default 20)")
    ap.add_argument("--quiet", action="store_true", help="no line per game, only each match's result")
    ap.add_argument("--variant", default="international", help="match, ladder: the variant (default international)")
    ap.add_argument("--a", default="damas", help="match: player A (default damas)")
    ap.add_argument("--b", default="damas:weights=hand", help="match: player B (default damas:weights=hand)")
    ap.add_argument(
        "--clock", default="cpu", choices=("cpu", "wall"), help="the engines' time: their CPU time (default) or wall"
    )
    ap.add_argument("--starts", default="openings", help="match: openings, or endgames:PIECES (default openings)")
    ap.add_argument(
        "--levels",
        default="2-10",
        help="ladder: the levels played against the one below; loss: the levels measured, 1-6 (default 2-10)",
    )
    default_a = str(WEIGHTS_10) if WEIGHTS_10.exists() else "hand"
    ap.add_argument("--weights-a", default=default_a, help="weights: table A (default the shipped one, else hand)")
    ap.add_argument("--weights-b", default="hand", help="weights: table B (default hand)")
    ap.add_argument("--weights", help="our International table in the matches against py-draughts (default shipped)")
    ap.add_argument("--depth", type=int, default=7, help="evalspeed: the fixed depth (default 7)")
    ap.add_argument(
        "--baseline", default="main", help="part 'self': the git revision whose search this one plays (default main)"
    )
    ap.add_argument(
        "--self-variants", default="international", help="part 'self': comma-separated variants (default international)"
    )
    ap.add_argument("--summary", nargs="*", metavar="RECORD", help="print the figures of recorded matches and stop")
    args = ap.parse_args()
    if args.summary is not None:
        summary(record_paths(args.summary))
        return 0
    parts = set(args.parts.split(","))
    pairings = [p for p in args.pairings.split(",") if p]
    known = {"speed", "time", "levels", "peer", "self", "weights", "evalspeed", "match", "ladder", "depth", "loss"}
    for p in parts - known:
        ap.error(f"unknown part {p!r} ({', '.join(sorted(known))})")
    for p in pairings:
        if p not in PAIRINGS:
            ap.error(f"unknown pairing {p!r} ({', '.join(PAIRINGS)})")
    try:
        move_times: list[float | None] = [None if t == "level" else float(t) for t in args.move_times.split(",")]
        lo, _, hi = args.levels.partition("-")
        levels = range(int(lo), int(hi or lo) + 1)
        a, b = Spec.parse(args.a), Spec.parse(args.b)
    except ValueError as exc:
        ap.error(f"{exc} (--move-times: seconds separated by commas; --levels: N-M)")
    if args.variant not in VARIANTS:
        ap.error(f"unknown variant {args.variant!r} ({', '.join(VARIANTS)})")
    if args.quick:
        move_times = move_times[:1]
    games = 4 if args.quick else args.games
    verbose = not args.quiet

    def run(match: Match) -> None:
        play(match, games, args.jobs, args.record, args.quick, verbose)

    print(f"Python {sys.version.split()[0]}")
    if "speed" in parts:
        speed(1.0)
    if "time" in parts:
        overruns(8 if args.quick else 24)
    if "levels" in parts:
        print(
            f"\n## Level 10 (0.2 s a move) against level 1, {2 if args.quick else args.level_games} games per variant"
        )
        for v in VARIANTS:
            m = Match(v, Spec.parse("damas"), Spec.parse("damas:level=1"), 0.2, clock=args.clock)
            play(m, 2 if args.quick else args.level_games, args.jobs, None, args.quick, False)
    if "peer" in parts:
        for t in move_times:
            print(f"\n## Against py-draughts 1.10.1, {tc(t)} a move each, {games} games per pairing")
            for name in pairings:
                peer, variant = PAIRINGS[name]
                ours = f"damas:weights={args.weights}" if args.weights and variant == "international" else "damas"
                run(Match(variant, Spec.parse(ours), Spec.parse(peer), t, clock=args.clock))
    if "match" in parts:
        for t in move_times:
            print(f"\n## {args.variant}: {a} v {b}, {tc(t)} a move each, {games} games")
            run(Match(args.variant, a, b, t, args.starts, args.clock))
    if "self" in parts:
        for t in move_times:
            print(f"\n## This search against the search at {args.baseline}, {tc(t)} a move each, {games} games")
            for v in args.self_variants.split(","):
                if v not in VARIANTS:
                    ap.error(f"unknown variant {v!r} ({', '.join(VARIANTS)})")
                run(Match(v, Spec.parse("damas"), Spec.parse(f"damas:rev={args.baseline}"), t, clock=args.clock))
    if "weights" in parts:
        t = move_times[0]
        print(f"\n## International weights: {args.weights_a} v {args.weights_b}, {tc(t)} a move each, {games} games")
        m = Match(
            "international",
            Spec.parse(f"damas:weights={args.weights_a}"),
            Spec.parse(f"damas:weights={args.weights_b}"),
            t,
            clock=args.clock,
        )
        run(m)
    if "ladder" in parts:
        ladder(args.variant, levels, games, args.jobs, args.quick, verbose, args.clock)
    if "loss" in parts:
        move_losses(args.variant, levels)
    if "evalspeed" in parts:
        eval_speed(args.depth, list(dict.fromkeys([args.weights_b, args.weights_a])))
    if "depth" in parts:
        for t in move_times:
            if t is not None:
                depth_against_turbo(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
