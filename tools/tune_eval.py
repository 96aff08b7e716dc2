"""Tune an evaluation's weights (Texel-style; standard library only).

    python tools/tune_eval.py selfplay POSITIONS.txt --minutes 20 --seed 1   # collect positions
    python tools/tune_eval.py fit LABELLED.txt[,MORE.txt] [--variant V] [--out engine/weights_V.json]

``fit`` reads positions labelled by tools/positions.py (``<position (Hub)> <score> <depth>
<game>``: a teacher's score at a fixed depth), or International self-play lines as
``selfplay`` writes them: ``wm wk bm bk`` (hex bitboards, the rules engine's layout), the side
to move (0 White), the game's result for White (1, 0.5, 0), the search's score and depth
(``selfplay`` plays the engine against itself, a search of depth 3-5 a move, 3 % random moves,
and keeps every quiet position after ply 10).

It fits the weights of :meth:`engine.evaluate.Evaluator.features` (a man is fixed at 100) so
that ``sigmoid(K x evaluation)`` predicts ``sigmoid(K x score)``, or for self-play lines a mix
of that and the game's result (``--mix``: the result's share), by Adam on the mean squared
error, starting from (and held towards) the hand-set weights; the men patterns start at 0
and are held towards 0 (``--l2``), so a configuration the data never shows weighs 0. ``K``
is ``--scale`` for scores alone (0.006: a man is worth 65 %), else the scale that fits the
hand-set evaluation to the results best. Every tenth game (``--holdout``) is kept out of the
fit: its positions' error is printed before and after, the check that the fit learned
something general rather than the games it saw (on 8x8 also the hand-set evaluation's own
error, which the start table only comes near: that evaluation is not a table). On 8x8 the
men's values are fitted square by square (on 10x10 a value per row plus one per file). The
weights are written as JSON, which the engine loads (``engine/weights_<variant>.json``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from operator import mul
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Engine, Limits  # noqa: E402
from engine.evaluate import (  # noqa: E402
    PATTERN_SIZE,
    Evaluator,
    evaluator_for,
    hand_weights,
    pattern_count,
    weight_dict,
    weight_names,
    weight_vector,
    weights_path,
)
from engine.hub import parse_position  # noqa: E402
from rules import Color, Game, Variant, find_variant  # noqa: E402

#: the terms ``fit --drop`` can hold at 0 (the weighted evaluation skips a term weighing 0)
SCALAR_TERMS = ("mobility", "balance", "support", "trade", "outposts", "king_diagonal")

Sample = tuple[int, tuple[int, ...], tuple[float, ...], float | None, int | None]


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


def _games(lines: list[str]) -> list[int]:
    """A game number per line: the self-play writes each game's positions together, and a
    game never gains pieces nor changes its result, so a new one starts where either happens."""
    out, game, last = [], 0, (99, "")
    for line in lines:
        p = line.split()
        pieces = sum(int(h, 16).bit_count() for h in p[:4])
        if pieces > last[0] or p[5] != last[1]:
            game += 1
        last = (pieces, p[5])
        out.append(game)
    return out


Raw = tuple[int, dict[int, float], float | None, int | None]


def read_samples(
    files: list[Path], variant: Variant, ev: Evaluator, holdout: int, plain: bool = False
) -> tuple[list[Raw], list[Raw]]:
    """Each file's positions as (material part, features, result for the side to move or None,
    score or None), split into the fit's and the held-out games' (every ``holdout``-th game);
    with ``plain``, (``ev``'s evaluation, no features, ...): the error of an evaluation that is
    not a table (8x8's hand-set one).

    A line is either a labelled position as tools/positions.py writes it (``<position (Hub)>
    <score> <depth> <game>``) or, for International, the self-play's (``wm wk bm bk side
    result score depth``, hex bitboards)."""
    from positions import read_lines

    data: list[Raw] = []
    test: list[Raw] = []
    width = variant.squares + 1
    for fn in files:
        rows = list(read_lines(fn))
        hub = bool(rows) and len(rows[0][0]) == width and rows[0][0][0] in "WB"
        games = [int(r[3]) if hub and len(r) == 4 else 0 for r in rows] if hub else _games([" ".join(r) for r in rows])
        for p, game in zip(rows, games, strict=True):
            if hub:
                if len(p) != 4:
                    continue  # a line cut off by a stopped labelling run
                pos = parse_position(p[0], variant.name)
                side = 0 if pos.turn is Color.WHITE else 1
                wm, wk, bm, bk = pos.wm, pos.wk, pos.bm, pos.bk
                res: float | None = None
                score: int | None = int(p[1])
            else:
                wm, wk, bm, bk, side = int(p[0], 16), int(p[1], 16), int(p[2], 16), int(p[3], 16), int(p[4])
                res = float(p[5]) if side == 0 else 1 - float(p[5])
                score = int(p[6]) if len(p) > 6 else None
            om, ok, xm, xk = (wm, wk, bm, bk) if side == 0 else (bm, bk, wm, wk)
            if (ok.bit_count(), om.bit_count(), xk.bit_count(), xm.bit_count()) in ev.drawish:
                continue  # scaled towards a draw: not a linear score
            c, x = (ev.evaluate(om, ok, xm, xk, side), {}) if plain else ev.features(om, ok, xm, xk, side)
            (test if holdout and game % holdout == 0 else data).append((c, x, res, score))
    return data, test


def fit(
    files: list[Path],
    out: Path,
    mix: float,
    epochs: int,
    lr: float,
    hold: float,
    rows: bool,
    patterns: bool = True,
    l2: float = 1e-4,
    holdout: int = 10,
    lr_patterns: float = 1.0,
    variant: Variant | None = None,
    scale: float = 0.006,
    drop: tuple[str, ...] = (),
) -> None:
    """Fit the weights (see the module's text); every ``holdout``-th game is kept out of the
    fit and its positions' error printed before and after (0: no hold-out). The terms named
    in ``drop`` (:data:`SCALAR_TERMS`) are held at 0: the evaluation skips a term weighing 0."""
    variant = variant or find_variant("international")
    ev = evaluator_for(variant)
    hand = [float(v) for v in weight_vector(hand_weights(variant), variant)]
    tables = pattern_count(variant)
    first_pattern = len(hand) - tables * PATTERN_SIZE
    if rows and variant.board_size == 10:
        parts, w0 = _rows_shape(hand[:first_pattern])
    else:
        parts, w0 = [[(i, 1.0)] for i in range(first_pattern)], hand[:first_pattern]
    names = weight_names(variant)
    for term in drop:
        assert term in SCALAR_TERMS, term
        for i in (k for k, name in enumerate(names) if name.partition("[")[0] == term):
            parts[i] = []  # (the term's features reach no weight, so it is written as 0)
    n_base = len(w0)
    w0 = w0 + [0.0] * (tables * PATTERN_SIZE)  # the patterns: an unseen one weighs 0

    def shaped(sample: Raw) -> Sample:
        c, x, res, score = sample
        px: dict[int, float] = {}
        for i, v in x.items():
            if i >= first_pattern:
                if patterns:
                    j = n_base + i - first_pattern
                    px[j] = px.get(j, 0.0) + v
                continue
            for j, a in parts[i]:
                px[j] = px.get(j, 0.0) + a * v
        return (c, tuple(px), tuple(px.values()), res, score)

    raw_data, raw_test = read_samples(files, variant, ev, holdout)
    data = [shaped(x) for x in raw_data]
    test = [shaped(x) for x in raw_test]
    print(f"{len(data)} positions to fit, {len(test)} held out (every {holdout}th game)" if holdout else "")
    results = all(r is not None for _c, _i, _v, r, _s in data)

    def value(w: list[float], c: int, idx: tuple[int, ...], val: tuple[float, ...]) -> float:
        return c + sum(map(mul, map(w.__getitem__, idx), val))

    if results:
        k_best = min(
            (sum((_sig(k * value(w0, c, i, v)) - (r or 0)) ** 2 for c, i, v, r, _s in data) / len(data), k)
            for k in (0.001 + 0.0005 * i for i in range(40))
        )
        K = k_best[1]
        print(f"K = {K} (hand weights' error on the results {k_best[0]:.5f})")
    else:
        K = scale
        print(f"K = {K} (the scores' scale: no game results in the data)")

    def target(r: float | None, s: int | None) -> float:
        if s is None:
            assert r is not None
            return r
        t = _sig(K * max(-1500, min(1500, s)))
        return t if r is None else mix * r + (1 - mix) * t

    ys = [target(r, sc) for _c, _i, _v, r, sc in data]

    def errors(w: list[float], sample: list[Sample]) -> str:
        if not sample:
            return "-"
        e_y = e_r = 0.0
        for c, i, v, r, sc in sample:
            p = _sig(K * value(w, c, i, v))
            e_y += (p - target(r, sc)) ** 2
            e_r += (p - r) ** 2 if r is not None else 0.0
        alone = f" (on the results alone {e_r / len(sample):.5f})" if results else ""
        return f"{e_y / len(sample):.5f}{alone}"

    w = list(w0)
    n = len(w)
    m1, m2 = [0.0] * n, [0.0] * n
    # Adam, lazily: a weight moves only in the batches where its feature is present (the
    # patterns are sparse), with its own count of moves for the bias correction
    seen = [0] * n  # the batch each weight last moved in
    moves = [0] * n
    rates = [lr] * n_base + [lr_patterns] * (n - n_base)
    order = list(range(len(data)))
    rng = random.Random(1)
    batch, step = 512, 0
    if variant.board_size != 10:
        # 8x8's hand-set evaluation is not a table (the start below is the nearest table to it):
        # its own error, the figure a fitted table has to beat
        hand_ev = Evaluator(variant, tuned=False)
        plain_data, plain_test = (
            [shaped(x) for x in part] for part in read_samples(files, variant, hand_ev, holdout, plain=True)
        )
        print(f"the hand-set evaluation: error {errors(w, plain_data)}; held out {errors(w, plain_test)}")
    print(f"start: error {errors(w, data)}; held out {errors(w, test)}", flush=True)
    t0 = time.monotonic()
    for ep in range(epochs):
        rng.shuffle(order)
        for b0 in range(0, len(order), batch):
            g: dict[int, float] = {}
            chunk = order[b0 : b0 + batch]
            for j in chunk:
                const, idx, val, _r, _s = data[j]
                pred = _sig(K * value(w, const, idx, val))
                d = 2 * (pred - ys[j]) * pred * (1 - pred) * K
                for i, f in zip(idx, val, strict=True):
                    g[i] = g.get(i, 0.0) + d * f
            step += 1
            size = len(chunk)
            for i in range(n_base):
                g.setdefault(i, 0.0)
            for i, gi in g.items():
                # the other weights held towards the hand-set ones, the patterns towards 0
                gi = gi / size + (hold * (w[i] - w0[i]) if i < n_base else l2 * w[i] / size)
                gap = step - seen[i]
                seen[i] = step
                moves[i] += 1
                t = moves[i]
                m1[i] = 0.9**gap * m1[i] + 0.1 * gi
                m2[i] = 0.999**gap * m2[i] + 0.001 * gi * gi
                w[i] -= rates[i] * (m1[i] / (1 - 0.9**t)) / (math.sqrt(m2[i] / (1 - 0.999**t)) + 1e-8)
        if ep % 5 == 4 or ep == epochs - 1:
            print(
                f"epoch {ep + 1}: error {errors(w, data)}; held out {errors(w, test)} ({time.monotonic() - t0:.0f} s)",
                flush=True,
            )
    wi = [round(sum(w[j] * a for j, a in part)) for part in parts] + [round(v) for v in w[n_base:]]
    out.write_text(json.dumps(weight_dict(wi, variant), separators=(",", ":")) + "\n")
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
    fp.add_argument("--variant", default="international")
    fp.add_argument("--out", type=Path, help="the table written (default engine/weights_<variant>.json)")
    fp.add_argument("--scale", type=float, default=0.006, help="K for scores without results (default 0.006)")
    fp.add_argument("--mix", type=float, default=0.5, help="the game result's share of the target (default 0.5)")
    fp.add_argument("--epochs", type=int, default=60)
    fp.add_argument("--lr", type=float, default=0.3)
    fp.add_argument("--hold", type=float, default=1e-6, help="pull towards the hand-set weights (default 1e-6)")
    fp.add_argument("--squares", action="store_true", help="a value per square (default: per row plus per file)")
    fp.add_argument("--no-patterns", action="store_true", help="fit the other weights only (the patterns stay 0)")
    fp.add_argument("--l2", type=float, default=1e-4, help="pull of the pattern weights towards 0 (default 1e-4)")
    fp.add_argument("--lr-patterns", type=float, default=1.0, help="the patterns' learning rate (default 1)")
    fp.add_argument("--holdout", type=int, default=10, help="keep every Nth game out of the fit (default 10; 0: none)")
    fp.add_argument(
        "--drop",
        default="",
        help=f"comma-separated terms held at 0, which the evaluation then skips ({', '.join(SCALAR_TERMS)})",
    )
    args = ap.parse_args()
    if args.cmd == "selfplay":
        selfplay(args.out, args.minutes, args.seed)
    else:
        variant = find_variant(args.variant)
        drop = tuple(t for t in args.drop.split(",") if t)
        for term in drop:
            if term not in SCALAR_TERMS:
                ap.error(f"--drop: no term {term!r} ({', '.join(SCALAR_TERMS)})")
        fit(
            [Path(f) for f in args.files.split(",")],
            args.out or weights_path(variant),
            args.mix,
            args.epochs,
            args.lr,
            args.hold,
            not args.squares,
            not args.no_patterns,
            args.l2,
            args.holdout,
            args.lr_patterns,
            variant,
            args.scale,
            drop,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
