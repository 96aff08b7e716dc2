"""Build the training sets shipped in the package (``damas/study/``) from the test data.

    .venv/bin/python tools/make_training_sets.py

* ``games-<variant>.pdn``: a few whole games to replay on the board, chosen from the records
  ``tests/data/games/`` carries (see its README for their sources: the records are facts,
  re-written through our PDN writer with the seven-tag roster only);
* ``tactics-<variant>.json``: the project's own tactical positions
  (``tests/data/engine-tactics-<variant>.json``, found and verified by
  ``tests/engine/make_tactics.py``), each with its one winning move in the variant's notation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.hub import parse_hub_move  # noqa: E402
from rules import Position  # noqa: E402
from rules.pdn import PdnGame, load_pdn, write_pdn  # noqa: E402

DATA = ROOT / "tests" / "data"
OUT = ROOT / "damas" / "study"
#: (file under tests/data/games, the games chosen: index in the file)
GAMES = {
    "brazilian": ("brazilian/lidraughts-brazilian.pdn", (5, 7, 1)),
    "international": ("international/wk2003.pdn", (3, 5, 2)),
}
ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")


def main() -> None:
    for variant, (name, chosen) in GAMES.items():
        games = load_pdn(DATA / "games" / name)
        picked = []
        for i in chosen:
            g = games[i]
            pg = PdnGame(g.variant, {k: v for k, v in g.tags.items() if k in ROSTER}, g.start, g.moves, result=g.result)
            picked.append(pg)
        (OUT / f"games-{variant}.pdn").write_text(write_pdn(picked), encoding="utf-8")
    for variant in ("brazilian", "international", "portuguese"):
        found = json.loads((DATA / f"engine-tactics-{variant}.json").read_text())
        out = []
        for t in found:
            pos = Position.from_fen(t["fen"], variant)
            out.append({"fen": t["fen"], "move": pos.pdn(parse_hub_move(pos, t["move"])), "kind": t["kind"]})
        (OUT / f"tactics-{variant}.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
