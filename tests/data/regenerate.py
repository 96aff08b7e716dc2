"""Rebuild ``tests/data/games/`` from the workplace's ``../shared/games/``.

The game records (moves, players, events, dates, results) are facts; the files they came
from are someone else's writing. So the games are re-written here through our own PDN
writer: the seven-tag roster, GameType and FEN only — no comments, annotations or other tags.

    python tests/data/regenerate.py [path/to/shared]
"""

from __future__ import annotations

import sys
from pathlib import Path

from rules.pdn import ROSTER, PdnMove, load_pdn, write_pdn

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    shared = Path(argv[1]) if len(argv) > 1 else HERE.parents[2] / "shared"
    for path in sorted((shared / "games").glob("*/*.pdn")):
        games = load_pdn(path)
        for g in games:
            g.tags = {k: v for k, v in g.tags.items() if k in ROSTER}
            g.intro = []
            g.moves = [PdnMove(m.move) for m in g.moves]
        out = HERE / "games" / path.parent.name / path.name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(write_pdn(games), encoding="utf-8")
        print(f"{out.relative_to(HERE)}: {len(games)} games, {sum(len(g.moves) for g in games)} plies")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
