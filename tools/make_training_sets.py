"""Build the training sets shipped in the package (``damas/study/``) from the test data.

    .venv/bin/python tools/make_training_sets.py [--variants brazilian,portuguese]

* ``games-<variant>.pdn``: a few whole games to replay on the board, chosen from the records
  ``tests/data/games/`` carries (see its README for their sources: the records are facts,
  re-written through our PDN writer with the seven-tag roster only);
* ``tactics-<variant>.json``: the project's own tactical positions
  (``tests/data/engine-tactics-<variant>.json``, found and verified by
  ``tests/engine/make_tactics.py``), each with its one winning move in the variant's notation
  and its whole solution line (:func:`solution_line`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from damas.study.training import LINE_DEPTH, line_engine  # noqa: E402
from engine import MATE_BOUND, Engine, Limits  # noqa: E402
from engine.hub import parse_hub_move  # noqa: E402
from rules import Color, Game, Move, Position  # noqa: E402
from rules.pdn import PdnGame, load_pdn, write_pdn  # noqa: E402

DATA = ROOT / "tests" / "data"
OUT = ROOT / "damas" / "study"
#: (file under tests/data/games, the games chosen: index in the file)
GAMES = {
    "brazilian": ("brazilian/lidraughts-brazilian.pdn", (5, 7, 1)),
    "international": ("international/wk2003.pdn", (3, 5, 2)),
}
ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
LINE_PLIES = 15  # a line's longest
VARIANTS = ("brazilian", "international", "portuguese")
MARGIN = 100  # a player's move after the key move: every other one scores a man less


def engine(variant: str) -> Engine:
    return line_engine(variant)


def balance(pos: Position, side: Color) -> int:
    """``side``'s material lead (a king counts three men)."""
    wk, wm, bk, bm = pos.material()
    lead = (wm + 3 * wk) - (bm + 3 * bk)
    return lead if side is Color.WHITE else -lead


def only_best(variant: str, game: Game) -> Move | None:
    """The side to move's one good move: the only legal one, or the engine's best when every
    other scores at least ``MARGIN`` less (each searched on its own); None when several are good."""
    moves = list(game.legal_moves)
    if len(moves) == 1:
        return moves[0]
    eng = engine(variant)
    best = eng.search(game, Limits(depth=LINE_DEPTH))
    for m in moves:
        if m == best.move:
            continue
        g = game.copy()
        g.push(m)
        end = g.outcome()
        other = (0 if end.winner is None else 10**6) if end else -eng.search(g, Limits(depth=LINE_DEPTH - 1)).score
        if other > best.score - MARGIN and not (best.score >= MATE_BOUND and other < MATE_BOUND):
            return None
    return best.move


def solution_line(variant: str, start: Position, key: Move) -> list[Move]:
    """A tactic's whole line from its key move: the opponent's reply (the only legal move, or the
    engine's best), the player's next move (only when it is the one good move), ... until the
    player's material lead has grown by a man or more with no capture pending for the opponent,
    or the game ends, or the player's next move is not the only good one (the line then ends on
    the player's last move), or ``LINE_PLIES``."""
    player = start.turn
    game = Game(variant, start)
    game.push(key)
    line = [key]
    while len(line) + 2 <= LINE_PLIES and game.outcome() is None:
        pos = game.position
        if not pos.has_captures() and balance(pos, player) - balance(start, player) >= 1:
            break  # the shot has won its material
        replies = list(pos.legal_moves)
        reply = replies[0] if len(replies) == 1 else engine(variant).search(game, Limits(depth=LINE_DEPTH)).move
        assert reply is not None
        after = game.copy()
        after.push(reply)
        if after.outcome() is not None:
            break
        mine = only_best(variant, after)
        if mine is None:
            break
        game.push(reply)
        game.push(mine)
        line += [reply, mine]
    return line


def main() -> None:
    ap = argparse.ArgumentParser(description="Build the training sets shipped in the package from the test data.")
    ap.add_argument("--variants", default=",".join(VARIANTS), help="the variants to build (default: all three)")
    variants = ap.parse_args().variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        ap.error(f"unknown variant {unknown[0]!r} in --variants (one of {', '.join(VARIANTS)})")
    for variant, (name, chosen) in GAMES.items():
        if variant not in variants:
            continue
        games = load_pdn(DATA / "games" / name)
        picked = []
        for i in chosen:
            g = games[i]
            pg = PdnGame(g.variant, {k: v for k, v in g.tags.items() if k in ROSTER}, g.start, g.moves, result=g.result)
            picked.append(pg)
        (OUT / f"games-{variant}.pdn").write_text(write_pdn(picked), encoding="utf-8")
    for variant in variants:
        found = json.loads((DATA / f"engine-tactics-{variant}.json").read_text())
        out = []
        for t in found:
            pos = Position.from_fen(t["fen"], variant)
            key = parse_hub_move(pos, t["move"])
            line, at = [], pos
            for m in solution_line(variant, pos, key):
                line.append(at.pdn(m))
                at = at.apply(m)
            out.append({"fen": t["fen"], "move": line[0], "line": line, "kind": t["kind"]})
            print(variant, " ".join(line), flush=True)
        (OUT / f"tactics-{variant}.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
