"""Tune International's evaluation weights (Texel-style; standard library only).

    python tools/tune_eval.py selfplay POSITIONS.txt --minutes 20 --seed 1   # collect positions
    python tools/tune_eval.py fit POSITIONS.txt[,MORE.txt] [--out engine/weights_international.json]

``selfplay`` plays the engine against itself (a few random opening plies, then a search of
depth 3-5 a move, 3 % random moves for variety) and writes every quiet position (no capture
for the side to move) after ply 10 as a line: ``wm wk bm bk`` (hex bitboards, the rules
engine's layout), the side to move (0 White), the game's result for White (1, 0.5, 0) and
the search's score and depth for the side to move.

``fit`` fits the weights of :meth:`engine.evaluate.Evaluator.features_10` (a man is fixed at
100) so that ``sigmoid(K x evaluation)`` predicts a mix of the game's result and the
search's score (``--mix``: the result's share), by Adam on the mean squared error, starting
from (and held towards) the hand-set weights; ``K`` is the scale that fits the hand-set
evaluation to the results best. The weights are written as JSON, which the engine loads.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Engine, Limits  # noqa: E402
from engine.evaluate import (  # noqa: E402
    WEIGHTS_10,
    evaluator_for,
    hand_weights_10,
    weight_dict_10,
    weight_vector_10,
)
from rules import Color, Game, find_variant  # noqa: E402

Sample = tuple[int, list[tuple[int, float]], float, int | None]


def selfplay(out: Path, minutes: float, seed: int) -> None:
    rng = random.Random(seed)
    end = time.monotonic() + minutes * 60
    with out.open("a") as f:
        while time.monotonic() < end:
            game = Game("international")
            for _ in range(rng.randint(2, 8)):
                game.push(rng.choice(list(game.legal_moves)))
            depths = (rng.choice((3, 4, 4, 5)), rng.choice((3, 4, 4, 5)))
            engines = (Engine("international", tt_mb=4), Engine("international", tt_mb=4))
            records = []
            while game.outcome() is None and game.ply < 250:
                p = game.position
                side = 0 if p.turn is Color.WHITE else 1
                moves = list(game.legal_moves)
                r = engines[side].search(game, Limits(depth=depths[side]))
                if game.ply >= 10 and not p.has_captures():
                    records.append(f"{p.wm:x} {p.wk:x} {p.bm:x} {p.bk:x} {side}")
                    records[-1] += f" {{res}} {r.score} {r.depth}"
                move = rng.choice(moves) if len(moves) > 1 and rng.random() < 0.03 else r.move
                assert move is not None
                game.push(move)
            o = game.outcome()
            res = 0.5 if o is None or o.winner is None else (1.0 if o.winner is Color.WHITE else 0.0)
            f.writelines(rec.format(res=res) + "\n" for rec in records)
            f.flush()


def _sig(z: float) -> float:
    return 1 / (1 + math.exp(-max(-50.0, min(50.0, z))))


def _rows_shape(hand: list[float]) -> tuple[list[list[tuple[int, float]]], list[float]]:
    """The men's squares as a row value plus a file value per phase: for each weight, its
    parts among the fewer parameters, and those parameters' start (the hand-set ones)."""
    from engine.evaluate import ADVANCE_10, CENTRE_FILE_10

    geo = evaluator_for(find_variant("international")).geo
    count, size = geo.count, geo.size
    parts: list[list[tuple[int, float]]] = [[(0, 1.0)]]
    start = [hand[0]]
    for phase in (0, 1):
        rows0 = len(start)
        start += [ADVANCE_10[min(r, len(ADVANCE_10) - 1)] * (3 if phase else 2) / 2 for r in range(size)]
        files0 = len(start)
        start += [float(v) for v in CENTRE_FILE_10]
        for s in range(1, count + 1):
            f, r = geo.coords[s]
            parts.append([(rows0 + r, 1.0), (files0 + f, 1.0)])
    for i in range(1 + 2 * count, len(hand)):
        parts.append([(len(start), 1.0)])
        start.append(hand[i])
    return parts, start


def fit(files: list[Path], out: Path, mix: float, epochs: int, lr: float, hold: float, rows: bool) -> None:
    ev = evaluator_for(find_variant("international"))
    hand = [float(v) for v in weight_vector_10(hand_weights_10())]
    if rows:
        parts, w0 = _rows_shape(hand)
    else:
        parts, w0 = [[(i, 1.0)] for i in range(len(hand))], hand
    data: list[Sample] = []
    for fn in files:
        for line in fn.read_text().splitlines():
            p = line.split()
            wm, wk, bm, bk, side = int(p[0], 16), int(p[1], 16), int(p[2], 16), int(p[3], 16), int(p[4])
            om, ok, xm, xk = (wm, wk, bm, bk) if side == 0 else (bm, bk, wm, wk)
            if (ok.bit_count(), om.bit_count(), xk.bit_count(), xm.bit_count()) in ev.drawish:
                continue  # scaled towards a draw: not a linear score
            c, x = ev.features_10(om, ok, xm, xk, side)
            px: dict[int, float] = {}
            for i, v in x.items():
                for j, a in parts[i]:
                    px[j] = px.get(j, 0.0) + a * v
            res = float(p[5]) if side == 0 else 1 - float(p[5])
            data.append((c, list(px.items()), res, int(p[6]) if len(p) > 6 else None))
    print(f"{len(data)} positions")

    def value(w: list[float], c: int, x: list[tuple[int, float]]) -> float:
        return c + sum(w[i] * v for i, v in x)

    k_best = min(
        (sum((_sig(k * value(w0, c, x)) - r) ** 2 for c, x, r, _s in data) / len(data), k)
        for k in (0.001 + 0.0005 * i for i in range(40))
    )
    K = k_best[1]
    print(f"K = {K} (hand weights' error on the results {k_best[0]:.5f})")
    ys = [r if s is None else mix * r + (1 - mix) * _sig(K * max(-1500, min(1500, s))) for _c, _x, r, s in data]

    def loss(w: list[float]) -> float:
        return sum((_sig(K * value(w, c, x)) - y) ** 2 for (c, x, _r, _s), y in zip(data, ys, strict=True)) / len(data)

    w = list(w0)
    n = len(w)
    m1, m2 = [0.0] * n, [0.0] * n
    idx = list(range(len(data)))
    rng = random.Random(1)
    batch, step = 512, 0
    print(f"start: error {loss(w):.5f}")
    t0 = time.monotonic()
    for ep in range(epochs):
        rng.shuffle(idx)
        for b0 in range(0, len(idx), batch):
            g = [0.0] * n
            chunk = idx[b0 : b0 + batch]
            for j in chunk:
                const, factors, _r, _s = data[j]
                pred = _sig(K * value(w, const, factors))
                d = 2 * (pred - ys[j]) * pred * (1 - pred) * K
                for i, f in factors:
                    g[i] += d * f
            step += 1
            for i in range(n):
                gi = g[i] / len(chunk) + hold * (w[i] - w0[i])
                m1[i] = 0.9 * m1[i] + 0.1 * gi
                m2[i] = 0.999 * m2[i] + 0.001 * gi * gi
                w[i] -= lr * (m1[i] / (1 - 0.9**step)) / (math.sqrt(m2[i] / (1 - 0.999**step)) + 1e-8)
        if ep % 10 == 9 or ep == epochs - 1:
            print(f"epoch {ep + 1}: error {loss(w):.5f} ({time.monotonic() - t0:.0f} s)", flush=True)
    wi = [round(sum(w[j] * a for j, a in part)) for part in parts]
    out.write_text(json.dumps(weight_dict_10(wi), indent=1) + "\n")
    print(f"written {out}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("selfplay", help="collect self-play positions")
    sp.add_argument("out", type=Path)
    sp.add_argument("--minutes", type=float, default=20)
    sp.add_argument("--seed", type=int, default=1)
    fp = sub.add_parser("fit", help="fit the weights to collected positions")
    fp.add_argument("files", help="comma-separated position files")
    fp.add_argument("--out", type=Path, default=WEIGHTS_10)
    fp.add_argument("--mix", type=float, default=0.5, help="the game result's share of the target (default 0.5)")
    fp.add_argument("--epochs", type=int, default=60)
    fp.add_argument("--lr", type=float, default=0.3)
    fp.add_argument("--hold", type=float, default=1e-6, help="pull towards the hand-set weights (default 1e-6)")
    fp.add_argument("--squares", action="store_true", help="a value per square (default: per row plus per file)")
    args = ap.parse_args()
    if args.cmd == "selfplay":
        selfplay(args.out, args.minutes, args.seed)
    else:
        fit(
            [Path(f) for f in args.files.split(",")],
            args.out,
            args.mix,
            args.epochs,
            args.lr,
            args.hold,
            not args.squares,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
