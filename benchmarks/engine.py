"""The engine: speed, depth, time discipline and strength.

    .venv/bin/python benchmarks/engine.py                    # everything (hours: see below)
    .venv/bin/python benchmarks/engine.py --quick            # a quick look (minutes)
    .venv/bin/python benchmarks/engine.py --parts peer --pairings turbo-international --move-times 0.2 --games 40
    .venv/bin/python benchmarks/engine.py --parts self --baseline main --move-times 0.1 --games 40

1. Nodes per second and the depth reached in 1 s, from the start and from three
   middle-game positions per variant (reached by a seeded level-5 game: the same every run).
2. The worst overrun of the time budget over many searches (move time 0.05-0.5 s, clocks,
   a stop from another thread): it must stay within 10 % + 50 ms.
3. Level 10 (0.2 s a move) against level 1, 20 games per variant, both colours (goal 90 %).
4. Matches against py-draughts 1.10.1 (GPL-3.0: a benchmark-only peer, loaded from
   ``.bench/py-draughts`` as ``make bench`` installs it; never imported by the project) at
   equal time per move (0.2 s and 1 s): SimpleEngine in Brazilian and International,
   TurboEngine in International; 40 games per pairing from 20 two-move openings, each played
   with both colours, the draw rules applied by :class:`rules.Game` (a game still running
   after 300 plies counts as a draw). W/D/L and the score (goal 75 %).
   Equal CPU: the games run one at a time in this one process and the two engines alternate,
   so they never think at the same time; each gets the same wall-clock time a move, and the
   mean time each really took is printed. A 40-game match takes about 40 x 120 plies x the
   move time (0.2 s: ~20 min a pairing; 1 s: ~1.5 h).
5. (``--parts self``, not in the default run) this search against the search of another git
   revision (``--baseline``, default main), both with today's evaluation: 40 games per variant
   (``--self-variants``) from the same openings, both colours, the engines alternating. W/D/L,
   the score and the mean depth each reached: whether a change to the search plays better.
6. International's evaluation weights (``--parts weights``): two weights tables' engines
   against each other (``--weights-a``, ``--weights-b``: a JSON file written by
   tools/tune_eval.py, or ``hand`` for the hand-set values; default: the shipped table v
   hand), ``--games`` games from the same openings with both colours at ``--move-times``
   (the first); and (``--parts evalspeed``) the nodes per CPU second of a fixed-depth search
   (``--depth``, ``time.process_time``) from the start and the three middle games, per table.
   ``--weights FILE`` gives our engine that table in the matches against py-draughts too.

The machine's load shifts every figure: compare runs made side by side.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PEER = ROOT / ".bench" / "py-draughts"

from engine import Engine, Limits  # noqa: E402
from engine.evaluate import WEIGHTS_10, Evaluator, hand_weights_10  # noqa: E402
from rules import Color, Game, Move, Position  # noqa: E402

VARIANTS = ("brazilian", "portuguese", "international")


def middle_games(variant: str) -> list[Game]:
    """Three middle-game positions: the first quiet ones from plies 14, 22 and 30 of a seeded
    level-5 game (the same every run)."""
    out: list[Game] = []
    targets = [14, 22, 30]
    game = Game(variant)
    eng = Engine(variant, level=5, seed=2026, tt_mb=4)
    while targets and game.outcome() is None:
        move = eng.search(game).move
        assert move is not None
        game.push(move)
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


def play(variant: str, white: Callable[[Game], Move], black: Callable[[Game], Move], max_plies: int = 300) -> Game:
    game = Game(variant)
    while game.outcome() is None and game.ply < max_plies:
        mover = white if game.turn is Color.WHITE else black
        game.push(mover(game))
    return game


def score_of(game: Game, color: Color) -> float:
    """1 for a win, 0.5 for a draw (or a game stopped at the ply limit), 0 for a loss."""
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner is color else 0.0


def level_match(games: int, move_time: float) -> None:
    print(f"\n## Level 10 ({move_time:g} s a move) against level 1, {games} games per variant, both colours")
    for variant in VARIANTS:
        total = 0.0
        wdl = [0, 0, 0]
        for i in range(games):
            strong = Engine(variant, level=10, tt_mb=16)
            weak = Engine(variant, level=1, seed=i, tt_mb=4)

            def s(g: Game, strong: Engine = strong) -> Move:
                m = strong.search(g, Limits(move_time=move_time)).move
                assert m is not None
                return m

            def w(g: Game, weak: Engine = weak) -> Move:
                m = weak.search(g).move
                assert m is not None
                return m

            color = Color.WHITE if i % 2 == 0 else Color.BLACK
            game = play(variant, s, w) if color is Color.WHITE else play(variant, w, s)
            sc = score_of(game, color)
            total += sc
            wdl[0 if sc == 1 else 1 if sc == 0.5 else 2] += 1
        print(f"{variant:<13} level 10: +{wdl[0]} ={wdl[1]} -{wdl[2]}  score {100 * total / games:.0f} %")


#: the first moves each side may open with (two plies make an opening: White's, then Black's)
FIRST_MOVES = {
    "brazilian": (
        ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"],
        ["9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"],
    ),
    "international": (
        ["31-26", "31-27", "32-27", "32-28", "33-28", "33-29", "34-29", "34-30", "35-30"],
        ["16-21", "17-21", "17-22", "18-22", "18-23", "19-23", "19-24", "20-24", "20-25"],
    ),
}
PAIRINGS = {
    "simple-brazilian": ("SimpleEngine", "brazilian"),
    "simple-international": ("SimpleEngine", "international"),
    "turbo-international": ("TurboEngine", "international"),
}


def openings(variant: str, count: int) -> list[str]:
    """``count`` distinct two-move openings, every White first move used in turn (the same
    list every run: a seeded pick of Black's replies)."""
    whites, blacks = FIRST_MOVES[variant]
    rng = random.Random(2026)
    pairs = [(w, b) for w in whites for b in blacks]
    rng.shuffle(pairs)
    pairs.sort(key=lambda wb: whites.index(wb[0]))
    by_white: dict[str, list[str]] = {}
    for w, b in pairs:
        by_white.setdefault(w, []).append(b)
    out: list[str] = []
    while len(out) < min(count, len(pairs)):
        for w in whites:
            if by_white[w] and len(out) < count:
                out.append(f"{w} {by_white[w].pop()}")
    return out


def evaluator_of(weights: str) -> Evaluator:
    """International's evaluator with a weights table (a JSON file, or ``hand``)."""
    from rules import find_variant

    ev = Evaluator(find_variant("international"))
    ev.use_weights_10(hand_weights_10() if weights == "hand" else json.loads(Path(weights).read_text()))
    return ev


def engine_match(
    variant: str, games: int, move_time: float, pair: Callable[[], tuple[Any, Any]], name: str, verbose: bool
) -> tuple[list[int], float, list[float]]:
    """Two of our engines, ``pair()`` making a fresh (a, b) each game, ``move_time`` a move each,
    from :func:`openings` with both colours; one game at a time, the engines alternating (never
    thinking at once). Returns a's W/D/L, a's score in % and each side's mean depth."""
    book = openings(variant, max(1, (games + 1) // 2))
    wdl = [0, 0, 0]
    total = 0.0
    depth = [0, 0]
    moves = [0, 0]
    for i in range(games):
        opening = book[(i // 2) % len(book)].split()
        a_color = Color.WHITE if i % 2 == 0 else Color.BLACK
        engines = pair()
        game = Game(variant)
        for text in opening:
            game.push_pdn(text)
        while game.outcome() is None and game.ply < 300:
            k = 0 if game.turn is a_color else 1
            r = engines[k].search(game, Limits(move_time=move_time))
            assert r.move is not None
            depth[k] += r.depth
            moves[k] += 1
            game.push(r.move)
        sc = score_of(game, a_color)
        total += sc
        wdl[0 if sc == 1 else 1 if sc == 0.5 else 2] += 1
        if verbose:
            end = game.outcome()
            how = end.termination.value if end is not None else "ply limit"
            print(
                f"  {variant} game {i + 1} ({' '.join(opening)}): {name} "
                f"{'White' if a_color is Color.WHITE else 'Black'}, {game.result()} ({how}, {game.ply} plies)",
                flush=True,
            )
    return wdl, 100 * total / games, [depth[k] / max(1, moves[k]) for k in (0, 1)]


def weights_match(games: int, move_time: float, a: str, b: str, verbose: bool) -> None:
    """International: the engine with table ``a`` against the one with table ``b`` (the score
    is ``a``'s)."""
    print(f"\n## International weights: {a} v {b}, {move_time:g} s a move each, {games} games")
    evs = (evaluator_of(a), evaluator_of(b))

    def pair() -> tuple[Engine, Engine]:
        engines = (Engine("international", tt_mb=16), Engine("international", tt_mb=16))
        engines[0].evaluator, engines[1].evaluator = evs
        return engines

    t_start = time.monotonic()
    wdl, score, _depth = engine_match("international", games, move_time, pair, a, verbose)
    print(
        f"international {a} v {b} {move_time:g} s: +{wdl[0]} ={wdl[1]} -{wdl[2]}  score {score:.1f} % "
        f"of {games} games ({time.monotonic() - t_start:.0f} s)",
        flush=True,
    )


def eval_speed(depth: int, tables: list[str]) -> None:
    """Nodes per CPU second of a fixed-depth International search, per weights table."""
    print(f"\n## International: nodes per CPU second at depth {depth} (time.process_time), per weights table")
    games = [("start", Game("international"))] + [(f"ply {g.ply}", g) for g in middle_games("international")]
    for weights in tables:
        ev = evaluator_of(weights)
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


def peer_match(games: int, move_time: float, pairings: list[str], verbose: bool, weights: str | None = None) -> None:
    """Our engine (level 10) against a py-draughts engine, both at ``move_time`` a move.

    Fair CPU: one process, one game at a time, the two engines alternating (never thinking at
    once), each held to the same wall-clock time a move; the board bookkeeping between moves
    (following the other side's move) is not counted in anybody's time."""
    print(f"\n## Against py-draughts 1.10.1, {move_time:g} s a move each, {games} games per pairing")
    if not PEER.exists():
        print(f"py-draughts not found in {PEER}; `make bench` installs it")
        return
    sys.path.insert(0, str(PEER))
    import draughts  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from draughts.engines import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
        SimpleEngine,
        TurboEngine,
    )

    boards = {"brazilian": draughts.BrazilianBoard, "international": draughts.StandardBoard}

    def fen_of(board: Any) -> str:
        return str(board.fen).replace("[FEN", "").replace("]", "").strip().strip('"')

    for name in pairings:
        peer_name, variant = PAIRINGS[name]
        book = openings(variant, max(1, (games + 1) // 2))
        wdl = [0, 0, 0]
        total = 0.0
        think = [0.0, 0.0]
        moves = [0, 0]
        t_start = time.monotonic()
        for i in range(games):
            opening = book[(i // 2) % len(book)].split()
            ours_color = Color.WHITE if i % 2 == 0 else Color.BLACK
            ours = Engine(variant, tt_mb=16)
            if weights is not None and variant == "international":
                ours.evaluator = evaluator_of(weights)
            peer = (TurboEngine if peer_name == "TurboEngine" else SimpleEngine)(depth_limit=40, time_limit=move_time)
            game = Game(variant)
            board = boards[variant]()
            for text in opening:
                mv = game.push_pdn(text)
                _sync(board, game, mv, fen_of)
            while game.outcome() is None and game.ply < 300:
                if game.turn is ours_color:
                    t0 = time.monotonic()
                    mv = ours.search(game, Limits(move_time=move_time)).move
                    think[0] += time.monotonic() - t0
                    moves[0] += 1
                    assert mv is not None
                    game.push(mv)
                    _sync(board, game, mv, fen_of)
                else:
                    t0 = time.monotonic()
                    theirs = peer.get_best_move(board)
                    think[1] += time.monotonic() - t0
                    moves[1] += 1
                    board.push(theirs)
                    target = Position.from_fen(fen_of(board), variant)
                    matches = [m for m in game.legal_moves if game.position.apply(m) == target]
                    assert len(matches) >= 1, f"cannot follow py-draughts' {theirs} in {game.fen()}"
                    game.push(matches[0])
            sc = score_of(game, ours_color)
            total += sc
            wdl[0 if sc == 1 else 1 if sc == 0.5 else 2] += 1
            end = game.outcome()
            how = end.termination.value if end is not None else "ply limit"
            if verbose:
                print(
                    f"  {name} game {i + 1} ({' '.join(opening)}): damas "
                    f"{'White' if ours_color is Color.WHITE else 'Black'}, {game.result()} ({how}, {game.ply} plies)",
                    flush=True,
                )
        mean = [think[k] / max(1, moves[k]) for k in (0, 1)]
        print(
            f"{variant:<13} damas v {peer_name:<12} {move_time:g} s: +{wdl[0]} ={wdl[1]} -{wdl[2]}  "
            f"score {100 * total / games:.1f} % of {games} games ({len(book)} openings, both colours; "
            f"mean time a move {mean[0]:.3f} s v {mean[1]:.3f} s; {time.monotonic() - t_start:.0f} s)",
            flush=True,
        )


def baseline_engine(rev: str) -> Any:
    """The ``Engine`` class of the search at git revision ``rev`` (its engine/search.py and
    engine/tt.py), with today's evaluation and levels: only the search differs."""
    import subprocess
    import types

    def source(path: str) -> str:
        try:
            return subprocess.run(
                ["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True, check=True
            ).stdout
        except subprocess.CalledProcessError as exc:
            raise SystemExit(f"engine.py: cannot read {path} at revision {rev!r}: {exc.stderr.strip()}") from None

    tag = "".join(c if c.isalnum() else "_" for c in rev)
    tt = types.ModuleType(f"baseline_tt_{tag}")
    sys.modules[tt.__name__] = tt
    exec(compile(source("engine/tt.py"), f"{rev}:engine/tt.py", "exec"), tt.__dict__)
    search = types.ModuleType(f"baseline_search_{tag}")
    sys.modules[search.__name__] = search
    code = source("engine/search.py").replace("from engine.tt import", f"from {tt.__name__} import")
    exec(compile(code, f"{rev}:engine/search.py", "exec"), search.__dict__)
    return search.Engine


def self_match(games: int, move_time: float, variants: list[str], rev: str, verbose: bool) -> None:
    """This search against the search at revision ``rev`` (same evaluation), ``move_time`` a
    move each (:func:`engine_match`)."""
    base_cls = baseline_engine(rev)
    print(f"\n## This search against the search at {rev}, {move_time:g} s a move each, {games} games per variant")
    for variant in variants:
        t_start = time.monotonic()
        wdl, score, depth = engine_match(
            variant,
            games,
            move_time,
            lambda v=variant: (Engine(v, tt_mb=16), base_cls(v, tt_mb=16)),
            "this search",
            verbose,
        )
        print(
            f"{variant:<13} this search v {rev} {move_time:g} s: +{wdl[0]} ={wdl[1]} -{wdl[2]}  "
            f"score {score:.1f} % of {games} games (mean depth {depth[0]:.1f} v {depth[1]:.1f}; "
            f"{time.monotonic() - t_start:.0f} s)",
            flush=True,
        )


def _sync(board: Any, game: Game, move: Move, fen_of: Callable[[Any], str]) -> None:
    """Play on py-draughts' board the move that leads to our game's position."""
    target = game.position
    for cand in list(board.legal_moves):
        board.push(cand)
        if Position.from_fen(fen_of(board), game.variant) == target:
            return
        board.pop()
    raise AssertionError(f"py-draughts has no move to {target.fen()} ({move})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="a quick look: fewer searches, 4 games a match, 0.2 s only")
    ap.add_argument("--parts", default="speed,time,levels,peer", help="what to run (default speed,time,levels,peer)")
    ap.add_argument("--games", type=int, default=40, help="games per pairing against py-draughts (default 40)")
    ap.add_argument(
        "--pairings",
        default=",".join(PAIRINGS),
        help=f"comma-separated pairings against py-draughts (default all: {','.join(PAIRINGS)})",
    )
    ap.add_argument("--move-times", default="0.2,1", help="seconds a move for the matches (default 0.2,1)")
    ap.add_argument("--level-games", type=int, default=20, help="level 10 v level 1 games per variant (default 20)")
    ap.add_argument("--quiet", action="store_true", help="no line per game, only each match's result")
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
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    pairings = [p for p in args.pairings.split(",") if p]
    for p in parts - {"speed", "time", "levels", "peer", "self", "weights", "evalspeed"}:
        ap.error(f"unknown part {p!r} (speed, time, levels, peer, self, weights, evalspeed)")
    for p in pairings:
        if p not in PAIRINGS:
            ap.error(f"unknown pairing {p!r} ({', '.join(PAIRINGS)})")
    try:
        move_times = [float(t) for t in args.move_times.split(",")]
    except ValueError:
        ap.error(f"--move-times must be seconds separated by commas, not {args.move_times!r}")
    if args.quick:
        move_times = move_times[:1]
    print(f"Python {sys.version.split()[0]}")
    if "speed" in parts:
        speed(1.0)
    if "time" in parts:
        overruns(8 if args.quick else 24)
    if "levels" in parts:
        level_match(2 if args.quick else args.level_games, 0.2)
    if "peer" in parts:
        for t in move_times:
            peer_match(4 if args.quick else args.games, t, pairings, not args.quiet, args.weights)
    if "self" in parts:
        self_variants = [v for v in args.self_variants.split(",") if v]
        for v in self_variants:
            if v not in VARIANTS:
                ap.error(f"unknown variant {v!r} ({', '.join(VARIANTS)})")
        for t in move_times:
            self_match(4 if args.quick else args.games, t, self_variants, args.baseline, not args.quiet)
    if "evalspeed" in parts:
        eval_speed(args.depth, list(dict.fromkeys([args.weights_b, args.weights_a])))
    if "weights" in parts:
        weights_match(4 if args.quick else args.games, move_times[0], args.weights_a, args.weights_b, not args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())
