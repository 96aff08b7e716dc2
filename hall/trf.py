"""The tournament as a FIDE Tournament Report File (TRF-2026, FIDE C.04.A Annex 2): what rating
officers and other pairing programs read, and what the hall hands its pairing engine.

Fixed-width records: ``012`` the event, ``062`` the number of players, ``092`` the system,
``XXR`` and ``142`` the planned rounds, ``152`` the colour drawn for the top player in round 1,
``162`` the score system (FENACEF Art. 3: win 2, draw 1, loss 0, the pairing-allocated bye 1),
then one ``001`` record per player: pairing number, name, rating, points, rank, and per round a
10-character block ``OOOO C R`` (opponent's pairing number, colour, result: ``1 = 0`` played,
``+ -`` forfeit; ``0000 - U`` the pairing-allocated bye, ``H`` a requested bye worth a draw,
``Z`` one worth nothing, ``-`` not paired: withdrawn, or not yet entered). ``XXZ`` names who is
absent from the next round.
"""

from __future__ import annotations

from collections.abc import Iterable

from hall.tournament import Pairing, Player, pairing_numbers, standings

#: a game's result from White's side -> (White's code, Black's code)
_CODES = {"2-0": ("1", "0"), "1-1": ("=", "="), "0-2": ("0", "1"), "+/-": ("+", "-"), "-/+": ("-", "+"),
          "-/-": ("-", "-")}  # fmt: skip


def _points(x: float) -> str:
    return f"{x:4.1f}"


def write_trf(
    players: list[Player],
    pairings: list[Pairing],
    planned: int,
    *,
    event: str = "",
    top: str | None = None,
    absent: Iterable[int] = (),
    reading: str = "literal",
) -> str:
    """The tournament as TRF-2026 text (``top``: ``"w"`` or ``"b"``, the colour of the top player
    in round 1; ``absent``: players not to be paired in the next round)."""
    numbers = pairing_numbers(players)
    rounds = max((p.round for p in pairings), default=0)
    table = {s.player.id: s for s in standings(players, pairings, planned, reading)}
    lines = [f"012 {_text(event or 'damas')}", f"062 {len(players)}", "092 Individual: Swiss-System (FIDE Dutch)",
             f"XXR {planned}", f"142 {planned}"]  # fmt: skip
    if top in ("w", "b"):
        lines.append(f"152 {top.upper()}")
    lines.append("162  W 2.0    D 1.0    L 0.0    A 0.0    P 1.0    X 0.0")
    blocks: dict[int, dict[int, str]] = {pl.id: {} for pl in players}
    for p in pairings:
        if p.black is None:
            code = {None: "U", "H": "H", "Z": "Z"}.get(p.result, "U")
            blocks.setdefault(p.white, {})[p.round] = f"0000 - {code}"
            continue
        w, b = _CODES.get(p.result or "", (" ", " "))
        if p.result is not None and not p.confirmed:
            w, b = " ", " "  # (a result not yet confirmed is not the tournament's yet)
        blocks.setdefault(p.white, {})[p.round] = f"{numbers.get(p.black, 0):4d} w {w}"
        blocks.setdefault(p.black, {})[p.round] = f"{numbers.get(p.white, 0):4d} b {b}"
    for pl in sorted(players, key=lambda x: numbers[x.id]):
        s = table[pl.id]
        line = (
            f"001 {numbers[pl.id]:4d}      {_text(pl.name)[:33]:<33} {pl.rating or '':>4} {'':3} {'':>11} {'':>10} "
            f"{_points(s.points)} {s.rank:4d}"
        )
        for r in range(1, rounds + 1):
            line += "  " + blocks[pl.id].get(r, "0000 - -")
        lines.append(line.rstrip())
    gone = sorted(numbers[i] for i in absent if i in numbers)
    if gone:
        lines.append("XXZ " + " ".join(str(n) for n in gone))
    return "\n".join(lines) + "\n"


def _text(s: str) -> str:
    """A name or a title on one TRF line (no line break, no control character)."""
    return "".join(c if c.isprintable() else " " for c in s).strip()
