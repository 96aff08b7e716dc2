"""How long the hall takes to pair a round of a big open, and whether its pairings are FIDE's.

    python benchmarks/pairing.py [--players 201] [--rounds 7] [--seed 7] [--peer] [--bbp PATH]
                                 [--events 0]

A random open (ratings 1200-2400; results drawn: 38 % White wins, 25 % draws, 32 % Black
wins, 5 % W.O.s) is paired round after round by the hall's own ``hall.tournament.pair_round``
(FIDE's Dutch rules of 2026, gacrux's engine), each round timed. ``--peer`` pairs the same
history with caissify-pairings 0.5.0 (the engine the hall used before; ``make bench`` installs it
in ``.bench/caissify``, never imported by the project), fed as the hall fed it. ``--bbp PATH``
checks every round of the event with bbpPairings (FIDE's endorsed Dutch engine, built from its
sources: ``make`` in a clone of BieremaBoyzProgramming/bbpPairings); ``--events N`` adds N
smaller random events (7-40 players, 5-9 rounds) checked the same way.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hall.tournament import Pairing, Player, TournamentError, pair_round, pairing_numbers  # noqa: E402
from hall.trf import write_trf  # noqa: E402


def _results(rng: random.Random, new: list[Pairing]) -> None:
    for p in new:
        if p.black is None:
            p.confirmed = True
            continue
        x = rng.random()
        p.result = "2-0" if x < 0.38 else "1-1" if x < 0.63 else "0-2" if x < 0.95 else "+/-" if x < 0.975 else "-/+"
        p.confirmed = True


def _event(
    n: int, rounds: int, seed: int, peer: bool
) -> tuple[list[Player], list[Pairing], list[float], list[float], int | None]:
    """A random event paired round by round; the last item: the round the rules could not pair
    (a small event with many rounds runs out of opponents), else None."""
    rng = random.Random(seed)
    players = [Player(i, f"P{i:03d}", rng.randint(1200, 2400)) for i in range(1, n + 1)]
    pairings: list[Pairing] = []
    ours: list[float] = []
    theirs: list[float] = []
    for r in range(1, rounds + 1):
        if peer:
            t = time.perf_counter()
            _caissify(players, pairings, r, rounds)
            theirs.append(time.perf_counter() - t)
        t = time.perf_counter()
        try:
            new = pair_round(players, pairings, r, rounds, top="w")
        except TournamentError:
            return players, pairings, ours, theirs, r
        ours.append(time.perf_counter() - t)
        _results(rng, new)
        pairings += new
    return players, pairings, ours, theirs, None


def _caissify(players: list[Player], pairings: list[Pairing], round_no: int, planned: int) -> Any:
    """caissify-pairings' Dutch engine fed the history as the hall fed it up to issue 29."""
    sys.path.insert(0, str(ROOT / ".bench" / "caissify"))
    from caissify_pairings import generate_pairings

    data = []
    numbers = pairing_numbers(players)
    for pl in players:
        score = sum(pts for p in pairings for who, pts in p.points().items() if who == pl.id)
        colours, byes, wins = [], 0, 0
        for p in sorted(pairings, key=lambda p: p.round):
            if pl.id not in (p.white, p.black):
                continue
            if p.black is None:
                byes += 1
            elif p.played:
                colours.append("white" if p.white == pl.id else "black")
            elif (p.result, p.white) == ("+/-", pl.id) or (p.result, p.black) == ("-/+", pl.id):
                wins += 1
        data.append({"id": pl.id, "name": pl.name, "score": score / 2, "rating": pl.rating,
                     "starting_number": numbers[pl.id], "color_hist": colours, "bye_count": byes,
                     "forfeit_win_count": wins})  # fmt: skip
    previous = {(min(p.white, p.black), max(p.white, p.black)) for p in pairings if p.black is not None and p.played}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return generate_pairings(
            system="dutch", players=data, previous_pairings=previous, round_number=round_no, total_rounds=planned
        )


def _bbp_file(players: list[Player], pairings: list[Pairing], planned: int) -> str:
    text = write_trf(players, pairings, planned, top="w")
    text = "\n".join(line for line in text.splitlines() if not line.startswith("162 "))
    text += "\nBBW  2.0\nBBD  1.0\nBBL  0.0\nBBZ  0.0\nBBF  0.0\nBBU  1.0\n"  # (its own records for 2/1/0, bye 1)
    with tempfile.NamedTemporaryFile("w", suffix=".trf", delete=False) as f:
        f.write(text)
    return f.name


def _bbp(path: str, players: list[Player], pairings: list[Pairing], planned: int) -> list[int]:
    """The rounds where bbpPairings' own pairing differs from the event's (its check mode)."""
    name = _bbp_file(players, pairings, planned)
    try:
        out = subprocess.run([path, "--dutch", name, "-c"], capture_output=True, text=True, check=False)
    finally:
        os.unlink(name)
    if out.returncode:
        raise SystemExit(f"bbpPairings refused the file: {(out.stdout + out.stderr).strip()[:200]}")
    bad, current = [], 0
    for line in out.stdout.splitlines():
        if ": Round #" in line:
            current = int(line.rsplit("#", 1)[1])
        elif "Checker pairings" in line:
            bad.append(current)
    return bad


def _bbp_cannot(path: str, players: list[Player], pairings: list[Pairing], planned: int) -> bool:
    """Does bbpPairings find no valid pairing for the next round either (its exit status 1)?"""
    name = _bbp_file(players, pairings, planned)
    try:
        out = subprocess.run([path, "--dutch", name, "-p"], capture_output=True, text=True, check=False)
    finally:
        os.unlink(name)
    return out.returncode == 1


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=201)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--peer", action="store_true", help="time caissify-pairings on the same history")
    ap.add_argument("--bbp", help="bbpPairings' executable: check every round against it")
    ap.add_argument("--events", type=int, default=0, help="more random events to check with --bbp")
    args = ap.parse_args()
    players, pairings, ours, theirs, _stuck = _event(args.players, args.rounds, args.seed, args.peer)
    print(f"{args.players} players, {args.rounds} rounds (the hall: FIDE Dutch 2026, gacrux):")
    print("  seconds a round: " + " ".join(f"{x:.2f}" for x in ours) + f"  (median {statistics.median(ours):.2f})")
    if theirs:
        line = " ".join(f"{x:.1f}" for x in theirs)
        print(f"  caissify-pairings 0.5.0 on the same history: {line}  (median {statistics.median(theirs):.1f})")
    if args.bbp:
        bad = _bbp(args.bbp, players, pairings, args.rounds)
        print(f"  bbpPairings: {'every round equal' if not bad else f'rounds {bad} differ'}")
        rng = random.Random(args.seed)
        differ = 0
        for i in range(args.events):
            n, rounds = rng.randint(7, 40), rng.randint(5, 9)
            ev = _event(n, rounds, 1000 + i, False)
            stuck = ev[4]
            if _bbp(args.bbp, ev[0], ev[1], rounds) or (stuck and not _bbp_cannot(args.bbp, ev[0], ev[1], rounds)):
                differ += 1
                print(f"  event {1000 + i} ({n} players, {rounds} rounds) differs from bbpPairings")
            elif stuck:
                print(f"  event {1000 + i} ({n} players, {rounds} rounds): round {stuck} has no pairing, for both")
        if args.events:
            equal = args.events - differ
            print(f"  {args.events} more events (7-40 players, 5-9 rounds): {equal} equal to bbpPairings")


if __name__ == "__main__":
    main()
