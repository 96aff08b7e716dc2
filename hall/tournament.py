"""The tournament by the FENACEF regulation (``RULES.md`` §8): Swiss rounds paired by FIDE's
Dutch system (C.04.3, the rules in force since 1 February 2026: gacrux's engine, by a member of
FIDE's Systems of Pairings and Programs Commission), scoring 2/1/0, a bye worth 1 point, a
forfeit (W.O.) a win for the player present, and the tie-break "Desempenho Individual
Progressivo" (Art. 5). Colours: the engine's allocation by FIDE's rules (byes and forfeits are
rounds without a colour, skipped as FIDE says), or FENACEF Art. 11's reading, colours by lot
at each table (the players may agree otherwise: the arbiter swaps them). Players may withdraw,
enter late (no points for the rounds they missed), or ask for a bye (a half-point bye, worth a
draw, or one worth nothing) in a round not yet paired.

Pure functions over players and pairings: the hall's store keeps them, this module computes.
"""

from __future__ import annotations

import csv
import io
import secrets
from dataclasses import dataclass
from typing import Any

from wording import hall as i18n

WIN, DRAW, LOSS, BYE = 2, 1, 0, 1  # FENACEF Art. 3: win 2, draw 1, loss 0; the bye 1 point (Art. 3 §1)

#: results a pairing can have: from White's side, W.O. = forfeit (walk-over), "bye" for the odd player out
RESULTS = {"2-0": (WIN, LOSS), "1-1": (DRAW, DRAW), "0-2": (LOSS, WIN), "+/-": (WIN, LOSS), "-/+": (LOSS, WIN)}
FORFEITS = ("+/-", "-/+", "-/-")
READINGS = ("literal", "progressive")
#: who gives the colours: FIDE's Dutch allocation, or FENACEF Art. 11 (by lot, unless the players agree)
COLOURS = ("fide", "lot")
#: a requested bye's result: "H" the half-point bye (worth a draw: 1), "Z" the zero-point bye
REQUESTED = {"H": DRAW, "Z": LOSS}


class TournamentError(ValueError):
    """A tournament action that cannot be done (one line saying why, in English; ``text(lang)``:
    in the hall page's language)."""

    def __init__(self, message: str, key: str | None = None, params: dict[str, object] | None = None) -> None:
        super().__init__(message)
        self.key = key
        self.params = params or {}

    @classmethod
    def of(cls, key: str, **params: object) -> TournamentError:
        return cls(i18n.text("en", key, **params), key, params)

    def text(self, lang: str) -> str:
        return str(self) if self.key is None else i18n.text(lang, self.key, **self.params)


@dataclass
class Player:
    id: int
    name: str
    rating: int = 0
    club: str = ""
    withdrawn: int | None = None  # the first round the player is no longer paired in


@dataclass
class Pairing:
    round: int
    table: int
    white: int
    black: int | None  # None: a bye (the pairing-allocated one; a requested one: result "H" or "Z")
    result: str | None = None  # None: not played yet; see RESULTS (and "-/-": both absent)
    board: str | None = None  # the board id the game is played on
    confirmed: bool = False
    origin: str | None = None  # who gave the result: "board" (its game's result) or "arbiter"

    def points(self) -> dict[int, int]:
        """What each player scored (nothing before the result is confirmed)."""
        if self.black is None:
            return {self.white: REQUESTED.get(self.result or "", BYE)}
        if self.result is None or not self.confirmed:
            return {}
        if self.result == "-/-":
            return {self.white: LOSS, self.black: LOSS}
        w, b = RESULTS[self.result]
        return {self.white: w, self.black: b}

    @property
    def requested(self) -> bool:
        """A bye the player asked for (not the pairing-allocated one)."""
        return self.black is None and self.result in REQUESTED

    @property
    def played(self) -> bool:
        """A game was played over the board (not a bye, not a forfeit)."""
        return self.black is not None and self.result not in FORFEITS


def normalise_result(text: str) -> str:
    """A result as the arbiter or a board writes it, in the hall's 2/1/0 form (from White's side)."""
    t = text.strip().upper().replace(" ", "").replace("½", "1/2")
    table = {
        "2-0": "2-0", "1-0": "2-0", "0-2": "0-2", "0-1": "0-2", "1-1": "1-1", "1/2-1/2": "1-1", "=": "1-1",
        "+/-": "+/-", "+-": "+/-", "-/+": "-/+", "-+": "-/+", "-/-": "-/-", "--": "-/-",
        "WO-WHITE": "+/-", "WO-BLACK": "-/+",
    }  # fmt: skip
    if t not in table:
        raise TournamentError.of("err_result", value=text[:20])
    return table[t]


def read_players_csv(text: str) -> list[Player]:
    """Players from a CSV with a header naming at least ``name`` (also ``rating``, ``club``;
    Portuguese headers ``nome``, ``rating``, ``clube`` too). Ids are given in order from 1."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    if reader.fieldnames is None:
        raise TournamentError.of("err_csv_empty")
    fields = {f.strip().lower(): f for f in reader.fieldnames if f}
    name_col = fields.get("name") or fields.get("nome")
    if name_col is None:
        raise TournamentError.of("err_csv_no_name_column", header=", ".join(reader.fieldnames)[:80])
    rating_col = fields.get("rating") or fields.get("elo")
    club_col = fields.get("club") or fields.get("clube")
    out: list[Player] = []
    for line, row in enumerate(reader, start=2):
        name = (row.get(name_col) or "").strip()
        if not name:
            raise TournamentError.of("err_csv_no_name", line=line)
        rating_text = (row.get(rating_col) or "").strip() if rating_col else ""
        try:
            rating = int(float(rating_text)) if rating_text else 0
        except ValueError:
            raise TournamentError.of("err_csv_rating", line=line, rating=rating_text[:20]) from None
        club = (row.get(club_col) or "").strip() if club_col else ""
        out.append(Player(len(out) + 1, name, rating, club))
    return out


# -- scores and tie-breaks ----------------------------------------------------------------------
def round_points(player: int, pairings: list[Pairing]) -> dict[int, int]:
    """The points a player scored in each round (a round without a pairing for them: 0)."""
    out: dict[int, int] = {}
    for p in pairings:
        pts = p.points()
        if player in pts:
            out[p.round] = out.get(p.round, 0) + pts[player]
    return out


def desempenho(player: int, pairings: list[Pairing], planned: int, reading: str = "literal") -> int:
    """Art. 5, "Desempenho Individual Progressivo": over the first ⌊planned/2⌋ rounds, the literal
    reading sums the points scored in those rounds; the progressive reading sums the cumulative
    score after each of them (the chess-style progressive score, cut at half the event)."""
    if reading not in READINGS:
        raise TournamentError(f"unknown tie-break reading {reading[:20]!r} (literal or progressive)")
    half = planned // 2
    per = round_points(player, pairings)
    if reading == "literal":
        return sum(per.get(r, 0) for r in range(1, half + 1))
    total = cumulative = 0
    for r in range(1, half + 1):
        cumulative += per.get(r, 0)
        total += cumulative
    return total


@dataclass
class Standing:
    rank: int
    player: Player
    points: int
    tiebreak: int
    games: int


def standings(players: list[Player], pairings: list[Pairing], planned: int, reading: str = "literal") -> list[Standing]:
    """Points, then the tie-break, then the rating; equal on all three share the rank."""
    rows = []
    for pl in players:
        per = round_points(pl.id, pairings)
        games = sum(1 for p in pairings if pl.id in (p.white, p.black) and p.points())
        rows.append((sum(per.values()), desempenho(pl.id, pairings, planned, reading), pl, games))
    rows.sort(key=lambda r: (-r[0], -r[1], -r[2].rating, r[2].name))
    out: list[Standing] = []
    for i, (pts, tb, pl, games) in enumerate(rows):
        rank = out[-1].rank if out and (out[-1].points, out[-1].tiebreak) == (pts, tb) else i + 1
        out.append(Standing(rank, pl, pts, tb, games))
    return out


# -- pairing ----------------------------------------------------------------------------------------
def pairing_numbers(players: list[Player]) -> dict[int, int]:
    """Each player's pairing number: by rating, highest first, then by name (FIDE C.04.2)."""
    ordered = sorted(players, key=lambda pl: (-pl.rating, pl.name, pl.id))
    return {pl.id: i for i, pl in enumerate(ordered, start=1)}


def absent_from(players: list[Player], requests: list[Pairing], round_no: int) -> list[int]:
    """Who sits round ``round_no`` out: withdrawn before it, or with a bye asked for it."""
    out = {pl.id for pl in players if pl.withdrawn is not None and pl.withdrawn <= round_no}
    return sorted(out | {p.white for p in requests if p.round == round_no})


def check_round(
    players: list[Player], pairings: list[Pairing], round_no: int, planned: int, requests: list[Pairing] | None = None
) -> None:
    """Can round ``round_no`` be paired now? (:class:`TournamentError` saying why not; at once,
    before the pairing engine runs in its own process.)"""
    if round_no < 1 or round_no > planned:
        raise TournamentError.of("err_outside_rounds", round=round_no, planned=planned)
    done = [p for p in pairings if p.round < round_no]
    if any(p.round == round_no for p in pairings):
        raise TournamentError.of("err_already_paired", round=round_no)
    unfinished = [p for p in done if p.black is not None and not p.points()]
    if unfinished:
        p = unfinished[0]
        raise TournamentError.of("err_unconfirmed", round=p.round, table=p.table)
    if len(players) - len(absent_from(players, requests or [], round_no)) < 2:
        raise TournamentError.of("err_two_players")


def draw_top() -> str:
    """The colour of the top player in round 1, drawn by lot (FIDE C.04.3: "w" or "b")."""
    return secrets.choice("wb")


def _engine(
    players: list[Player], before: list[Pairing], round_no: int, planned: int, top: str, absent: list[int]
) -> list[tuple[int, int]] | None:
    """gacrux's Dutch pairing of the round, as (white, black) pairing numbers (black 0: the
    pairing-allocated bye), or None when the rules admit none."""
    from gacrux.gacruxexeptions import GacruxNoLegalPairing  # networkx is slow to import: only when pairing
    from gacrux.pairingchecker import pairingchecker

    from hall.trf import write_trf

    engine = pairingchecker()
    engine.params = {
        "input_file": "@", "output_file": "-", "input_format": "TRF", "output_format": "JSON", "encoding": "",
        "tournament_number": "1", "current_round": round_no, "number_of_rounds": 0, "delimiter": None,
        "check": 0, "pairing": 1, "analysis": 0, "experimental": [], "verbose": 0, "exchange": [],
        "jch": write_trf(players, before, planned, top=top, absent=absent), "unpaired": [], "top_color": top,
        "maxmeets": "0", "method": ["dutch"],
    }  # fmt: skip
    try:
        engine.read_input_file()
        engine.prepare_tournament()
        engine.do_checker()
    except GacruxNoLegalPairing:
        return None
    found = engine.chessfile.result.get("roundpairing") or []
    if engine.chessfile.chessjson["status"].get("code", 0) or not found or not found[0]["pairs"]:
        return None
    return [(int(w), int(b)) for w, b in found[0]["pairs"]]


def _bye_by_hand(
    players: list[Player], before: list[Pairing], round_no: int, planned: int, top: str, absent: list[int]
) -> list[tuple[int, int]] | None:
    """No pairing by the rules, with an odd number present, when every one of them has had the
    pairing-allocated bye or won by forfeit (C.04.1 leaves none eligible): the bye goes to the
    one who had the fewest (then the lowest score, then the lowest ranked), the others are paired
    by the rules. None: that does not help either (the arbiter decides)."""
    present = [pl for pl in players if pl.id not in absent]
    if len(present) % 2 == 0:
        return None
    numbers = pairing_numbers(players)
    score = {pl.id: sum(round_points(pl.id, before).values()) for pl in present}

    def had(pl: Player) -> tuple[int, int, int, int]:
        byes = sum(1 for p in before if p.black is None and not p.requested and p.white == pl.id)
        wins = sum(1 for p in before if (p.result, p.white) == ("+/-", pl.id) or (p.result, p.black) == ("-/+", pl.id))
        return byes, wins, score[pl.id], -numbers[pl.id]

    for pl in sorted(present, key=had)[:5]:
        pairs = _engine(players, before, round_no, planned, top, [*absent, pl.id])
        if pairs is not None:
            return [*pairs, (numbers[pl.id], 0)]
    return None


def pair_round(
    players: list[Player],
    pairings: list[Pairing],
    round_no: int,
    planned: int,
    top: str = "w",
    requests: list[Pairing] | None = None,
) -> list[Pairing]:
    """The next round's pairings by FIDE's Dutch system: the tournament as a TRF (``hall.trf``,
    ``top`` the colour drawn for the top player in round 1) to gacrux's engine, its pairing back
    as tables, the pairing-allocated bye after the games and the byes asked for last. Players
    withdrawn or with a bye asked for (``requests``: byes, ``Pairing(round, 0, player, None, "H"
    or "Z")``) sit the round out; the others are paired, each once."""
    asked = [p for p in requests or [] if p.round == round_no]
    check_round(players, pairings, round_no, planned, asked)
    absent = absent_from(players, asked, round_no)
    before = [p for p in pairings if p.round < round_no]
    pairs = _engine(players, before, round_no, planned, top, absent)
    if pairs is None:
        pairs = _bye_by_hand(players, before, round_no, planned, top, absent)
    if pairs is None:
        raise TournamentError.of("err_no_pairing", round=round_no)
    by_number = {n: i for i, n in pairing_numbers(players).items()}
    out = [Pairing(round_no, 0, by_number[w], by_number[b] if b else None) for w, b in pairs]
    out.sort(key=lambda p: p.black is None)  # (the games in the engine's board order, then the bye)
    gone = {pl.id for pl in players if pl.withdrawn is not None and pl.withdrawn <= round_no}
    for q in sorted(asked, key=lambda q: q.white):
        if q.white not in gone:  # (a withdrawn player's bye is no longer asked for)
            out.append(Pairing(round_no, 0, q.white, None, q.result, confirmed=True, origin="arbiter"))
    for i, p in enumerate(out, start=1):
        p.table = i
    return out


# -- what the organiser hands out -------------------------------------------------------------------
def crosstable(
    players: list[Player], pairings: list[Pairing], planned: int, reading: str = "literal"
) -> list[dict[str, Any]]:
    """The standings with every round of each player: the opponent (by their line in this table),
    the colour, and the points scored ("+"/"-" a forfeit; a bye: "bye", or "H"/"Z" asked for)."""
    rows = standings(players, pairings, planned, reading)
    line = {s.player.id: i for i, s in enumerate(rows, start=1)}
    last = max((p.round for p in pairings), default=0)
    out: list[dict[str, Any]] = []
    for i, s in enumerate(rows, start=1):
        rounds: list[dict[str, Any]] = []
        for r in range(1, last + 1):
            mine = next((p for p in pairings if p.round == r and s.player.id in (p.white, p.black)), None)
            cell: dict[str, Any] = {"round": r, "opponent": None, "colour": None, "points": None, "kind": "absent"}
            if mine is not None and mine.black is None:
                cell |= {"kind": mine.result if mine.requested else "bye", "points": mine.points().get(s.player.id)}
            elif mine is not None:
                white = mine.white == s.player.id
                opp = mine.black if white else mine.white
                assert opp is not None
                kind = "game" if mine.played else "forfeit"
                cell |= {"opponent": line.get(opp), "colour": "w" if white else "b", "kind": kind}
                cell["points"] = mine.points().get(s.player.id)
            rounds.append(cell)
        out.append({"line": i, "rank": s.rank, "id": s.player.id, "name": s.player.name, "rating": s.player.rating,
                    "club": s.player.club, "withdrawn": s.player.withdrawn, "points": s.points,
                    "tiebreak": s.tiebreak, "rounds": rounds})  # fmt: skip
    return out


def cell_text(cell: dict[str, Any]) -> str:
    """One round of a cross-table line, as printed: ``12w2`` (a game: opponent's line, colour,
    points), ``+5b`` / ``-5b`` (a forfeit won or lost), ``bye``, ``H`` / ``Z`` (a bye asked for)."""
    kind = cell["kind"]
    if kind == "absent":
        return ""
    if kind in ("bye", *REQUESTED):
        return str(kind)
    if cell["points"] is None:
        return f"{cell['opponent']}{cell['colour']}"
    if kind == "forfeit":
        return f"{'+' if cell['points'] else '-'}{cell['opponent']}{cell['colour']}"
    return f"{cell['opponent']}{cell['colour']}{cell['points']}"
