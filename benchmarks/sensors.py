"""Broken sensors (issue 31): games played through the tests' human-hands model on a board
with dead, stuck or intermittent reed switches, the broken squares chosen at random among
those each game uses and unknown to the referee.

For each case it prints how many games were recorded whole without help, how many after the
player answered what the page asked (the move played, or the square whose sensor is broken),
how many were misrecorded (the one figure that must be 0), and in how many a sound sensor
was named as not answering (a club would repair the wrong square: it must be 0 too); for a stuck sensor, which keeps
the set-up from completing until the player names it, also how many were whole with that one
answer alone. The games: every real game
of tests/data/games and N generated games of each variant (Brazilian, International,
Portuguese). ``--hold N``: the hold campaign instead: N generated games (80 plies) whose hands
hold a third of the plain moves they can in the hand while the other side replies, careful and
sloppy hands, every sensor sound and one dead.

    .venv/bin/python benchmarks/sensors.py [--games N] [--quick] [--hold N]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.referee.faults import campaign, campaign_named, hold_campaign  # noqa: E402
from tests.referee.hands import Style  # noqa: E402

CASES = [
    ("dead", 1, "careful"),
    ("dead", 1, "sloppy"),
    ("stuck-closed", 1, "careful"),
    ("stuck-open", 1, "careful"),
    ("intermittent", 1, "careful"),
    ("intermittent", 1, "sloppy"),
    ("dead", 2, "careful"),
    ("dead", 2, "sloppy"),
]


def _row(kind: str, n: int, hands: str, figures: tuple[int, int, int, int, int], seconds: float) -> str:
    games, alone, helped, wrong, misnamed = figures
    return (
        f"{kind:<14}{n:>7}  {hands:<8}{games:>6}{f'{alone} ({100 * alone / games:.1f} %)':>14}"
        f"{f'{helped} ({100 * helped / games:.1f} %)':>15}{wrong:>13}{misnamed:>15}   ({seconds:.0f} s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="generated games per variant (default 60)")
    parser.add_argument("--quick", action="store_true", help="one dead sensor, careful hands only")
    parser.add_argument("--hold", type=int, metavar="N", help="the hold campaign of N games instead")
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}")
    head = f"{'sensor':<14}{'broken':>7}  {'hands':<8}{'games':>6}"
    print(f"{head}{'whole alone':>14}{'after answers':>15}{'misrecorded':>13}{'wrongly named':>15}")
    if args.hold:
        for dead in (False, True):
            for hands in ("careful", "sloppy"):
                t0 = time.perf_counter()
                style = Style.sloppy(hold=0.3) if hands == "sloppy" else Style(hold=0.3)
                row = hold_campaign(style, dead, args.hold)
                print(_row("dead" if dead else "(none)", int(dead), hands, row, time.perf_counter() - t0))
        return 0
    for kind, n, hands in CASES[:1] if args.quick else CASES:
        t0 = time.perf_counter()
        style = Style.sloppy() if hands == "sloppy" else None
        figures = campaign(kind, n, style, args.games)
        print(_row(kind, n, hands, figures, time.perf_counter() - t0))
        if kind.startswith("stuck"):  # a stuck sensor keeps the set-up from completing until it is named
            games, named, wrong = campaign_named(kind, None, args.games)
            share = f"{named} ({100 * named / games:.1f} %)"
            print(f"{'  named at the set-up only':<35}{share:>14}{'':>15}{wrong:>13}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
