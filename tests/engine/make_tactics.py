"""Build the tactical test positions (``tests/data/engine-tactics-<variant>.json``), each verified.

    .venv/bin/python tests/engine/make_tactics.py [--per-variant 24] [--seed 1] [--recheck]

``--recheck`` first searches the recorded positions again as the last checks below do and drops
those with a second good move or that the engine no longer solves at the test depth, then fills
each file up to ``--per-variant``.

Positions come from games played by a weak level (so that shots are on the board); one is
kept when, from a quiet position (no capture for the side to move):

* a deep search (``DEEP`` plies) finds a move, other than a shallow search's (2 plies), that
  wins material (``--gain``, in hundredths of a man, more than the shallow search sees) — a
  shot (a sacrifice that wins material back with interest) — or a forced win of the game;
* that move is the only one: every other move scores at least ``--margin`` less at the same
  depth (each searched on its own);
* a deeper search (``VERIFY`` plies, fresh tables) chooses the same move with a winning score,
  and every other move, searched as deep, still scores at least ``--margin`` less;
* a fresh engine at the fixed test depth (``TEST_DEPTH``) finds it too.

The file records the variant, the FEN, the move, the deep score, the depth of each check.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from engine import MATE_BOUND, Engine, Limits  # noqa: E402
from rules import Game, Move  # noqa: E402

DATA = ROOT / "tests" / "data"
TEST_DEPTH = {"brazilian": 6, "portuguese": 6, "international": 5}
DEEP = {"brazilian": 7, "portuguese": 7, "international": 6}
VERIFY = {"brazilian": 10, "portuguese": 10, "international": 8}
TT_MB = 16
MARGIN = 100  # how much less every other move must score (hundredths of a man)


def fresh(variant: str) -> Engine:
    return Engine(variant, level=10, seed=0, tt_mb=TT_MB)


def rival(
    variant: str, game: Game, move: Move, score: int, depth: int, margin: int, engine: Engine | None = None
) -> tuple[Move, int] | None:
    """Another move that does nearly as well as ``move`` (scoring ``score`` at ``depth``): one
    within ``margin`` of it, or, when ``move`` wins the game by force, one that wins it too.
    Each is searched on its own, ``depth`` - 1 plies after it (``engine``: a fresh one each)."""
    forced_win = score >= MATE_BOUND
    for m in game.position.legal_moves:
        if m == move:
            continue
        g = game.copy()
        g.push(m)
        outcome = g.outcome()
        if outcome is not None:
            other = 0 if outcome.winner is None else 10**6
        else:
            other = -(engine or fresh(variant)).search(g, Limits(depth=depth - 1)).score
        if other > score - margin and not (forced_win and other < MATE_BOUND):
            return m, other
    return None


def recheck(variant: str, path: Path, margin: int) -> None:
    """Drop the recorded positions today's engine no longer solves at the test depth (its
    evaluation changed), then those where another move, searched on its own at the verifying
    depth, does nearly as well (a player who finds it has not missed the shot)."""
    records: list[dict[str, object]] = json.loads(path.read_text())
    kept = []
    for rec in records:
        if rec["variant"] != variant:
            kept.append(rec)
            continue
        game = Game(variant, str(rec["fen"]))
        move = game.position.parse_pdn(str(rec["move"]))
        why = ""
        at_test_depth = fresh(variant).search(game, Limits(depth=int(str(rec["test_depth"])))).move
        if at_test_depth != move:
            why = f"{game.position.pdn(at_test_depth) if at_test_depth else 'nothing'} at the test depth"
        elif found := rival(variant, game, move, int(str(rec["score"])), int(str(rec["verify_depth"])), margin):
            why = f"{game.position.pdn(found[0])} scores {found[1]}"
        if why:
            print(f"{variant}: dropped {rec['fen']} {rec['move']} ({rec['score']}): {why}", flush=True)
        else:
            kept.append(rec)
    path.write_text(json.dumps(kept, indent=1) + "\n")


def candidate(variant: str, game: Game, gain: int, margin: int) -> dict[str, object] | None:
    pos = game.position
    if pos.has_captures() or len(pos.legal_moves) < 2:
        return None
    shallow = fresh(variant).search(game, Limits(depth=2))
    deep_engine = fresh(variant)
    deep = deep_engine.search(game, Limits(depth=DEEP[variant]))
    assert deep.move is not None and shallow.move is not None
    forced_win = deep.score >= MATE_BOUND
    if not forced_win and (deep.score - shallow.score < gain or deep.score < 80 or deep.move == shallow.move):
        return None
    # the only move: every other one searched on its own, at the deep depth, then at the verifying one
    if rival(variant, game, deep.move, deep.score, DEEP[variant], margin, deep_engine) is not None:
        return None
    verify = fresh(variant).search(game, Limits(depth=VERIFY[variant]))
    if verify.move != deep.move or verify.score < 80:
        return None
    if rival(variant, game, deep.move, verify.score, VERIFY[variant], margin) is not None:
        return None
    at_test_depth = fresh(variant).search(game, Limits(depth=TEST_DEPTH[variant]))
    if at_test_depth.move != deep.move:
        return None
    return {
        "variant": variant,
        "fen": game.fen(),
        "move": deep.move.numeric(),
        "kind": "forced win" if verify.score >= MATE_BOUND else "shot",
        "score": verify.score,
        "shallow_score": shallow.score,
        "deep_depth": DEEP[variant],
        "verify_depth": VERIFY[variant],
        "test_depth": TEST_DEPTH[variant],
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--per-variant", type=int, default=24)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--gain", type=int, default=60)
    ap.add_argument("--depths", help="test,deep,verify plies (default: per variant)")
    ap.add_argument("--out", help="write here instead of tests/data/engine-tactics-<variant>.json")
    ap.add_argument("--weak-level", type=int, default=3, help="the level whose games give the positions")
    ap.add_argument("--margin", type=int, default=MARGIN)
    ap.add_argument("--variants", default="brazilian,portuguese,international")
    ap.add_argument(
        "--recheck", action="store_true", help="drop recorded positions with a second good move, then fill up"
    )
    args = ap.parse_args()
    rng = random.Random(args.seed)
    if args.depths:
        t, d, v = (int(x) for x in args.depths.split(","))
        for variant in args.variants.split(","):
            TEST_DEPTH[variant], DEEP[variant], VERIFY[variant] = t, d, v
    for variant in args.variants.split(","):
        out_path = Path(args.out) if args.out else DATA / f"engine-tactics-{variant}.json"
        if args.recheck and out_path.exists():
            recheck(variant, out_path, args.margin)
        out: list[dict[str, object]] = json.loads(out_path.read_text()) if out_path.exists() else []
        seen = {(str(r["variant"]), str(r["fen"])) for r in out}
        have = sum(1 for r in out if r["variant"] == variant)
        weak = Engine(variant, level=args.weak_level, seed=rng.randrange(1 << 30), tt_mb=4)
        t0 = time.time()
        while have < args.per_variant:
            game = Game(variant)
            for _ in range(rng.randrange(12, 70)):
                if game.outcome() is not None:
                    break
                game.push(weak.search(game).move)  # type: ignore[arg-type]
                if game.outcome() is None and (variant, game.fen()) not in seen and rng.random() < 0.6:
                    rec = candidate(variant, game, args.gain, args.margin)
                    if rec is not None:
                        seen.add((variant, game.fen()))
                        out.append(rec)
                        have += 1
                        print(f"{variant} {have} {time.time() - t0:.0f}s {rec}", flush=True)
                        out_path.write_text(json.dumps(out, indent=1) + "\n")
                        break
        out_path.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
