"""The tournament by the FENACEF regulation (``RULES.md`` §8): Swiss rounds paired by
caissify-pairings' FIDE Dutch engine, scoring 2/1/0, a bye worth 1 point, a forfeit (W.O.)
a win for the player present, and the tie-break "Desempenho Individual Progressivo" (Art. 5).

Pure functions over players and pairings: the hall's store keeps them, this module computes.
"""

from __future__ import annotations

import csv
import io
import warnings
from dataclasses import dataclass
from typing import Any

from wording import hall as i18n

WIN, DRAW, LOSS, BYE = 2, 1, 0, 1  # FENACEF Art. 3: win 2, draw 1, loss 0; the bye 1 point (Art. 3 §1)

#: results a pairing can have: from White's side, W.O. = forfeit (walk-over), "bye" for the odd player out
RESULTS = {"2-0": (WIN, LOSS), "1-1": (DRAW, DRAW), "0-2": (LOSS, WIN), "+/-": (WIN, LOSS), "-/+": (LOSS, WIN)}
FORFEITS = ("+/-", "-/+", "-/-")
READINGS = ("literal", "progressive")


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


@dataclass
class Pairing:
    round: int
    table: int
    white: int
    black: int | None  # None: the bye
    result: str | None = None  # None: not played yet; see RESULTS (and "-/-": both absent)
    board: str | None = None  # the board id the game is played on
    confirmed: bool = False
    origin: str | None = None  # who gave the result: "board" (its game's result) or "arbiter"

    def points(self) -> dict[int, int]:
        """What each player scored (nothing before the result is confirmed)."""
        if self.black is None:
            return {self.white: BYE}
        if self.result is None or not self.confirmed:
            return {}
        if self.result == "-/-":
            return {self.white: LOSS, self.black: LOSS}
        w, b = RESULTS[self.result]
        return {self.white: w, self.black: b}

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
def check_round(players: list[Player], pairings: list[Pairing], round_no: int, planned: int) -> None:
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
    if len(players) < 2:
        raise TournamentError.of("err_two_players")


def pair_round(players: list[Player], pairings: list[Pairing], round_no: int, planned: int) -> list[Pairing]:
    """The next round's pairings from caissify-pairings' FIDE Dutch engine (colours by its
    allocation; the odd player out gets the bye). The engine counts chess points: the hall hands
    it the FENACEF points halved (the same order, the same score groups)."""
    from caissify_pairings import generate_pairings  # networkx is slow to import: only when pairing

    check_round(players, pairings, round_no, planned)
    done = [p for p in pairings if p.round < round_no]
    before: dict[int, dict[int, int]] = {}  # round -> score before it, by player
    score = {pl.id: 0 for pl in players}
    for r in range(1, round_no):
        before[r] = dict(score)
        for p in done:
            if p.round == r:
                for who, pts in p.points().items():
                    score[who] = score.get(who, 0) + pts
    data: list[dict[str, Any]] = []
    ordered = sorted(players, key=lambda pl: (-pl.rating, pl.name))
    for number, pl in enumerate(ordered, start=1):
        colours: list[str] = []
        floats: list[str] = []
        byes = forfeit_wins = 0
        for r in range(1, round_no):
            mine = [p for p in done if p.round == r and pl.id in (p.white, p.black)]
            if not mine:
                colours.append("none")
                floats.append("none")
                continue
            p = mine[0]
            if p.black is None:
                byes += 1
                colours.append("none")
                floats.append("down")
                continue
            if not p.played:
                colours.append("none")
                floats.append("none")
                if (p.result == "+/-" and p.white == pl.id) or (p.result == "-/+" and p.black == pl.id):
                    forfeit_wins += 1
                continue
            colours.append("white" if p.white == pl.id else "black")
            opp = p.black if p.white == pl.id else p.white
            mine_before, theirs_before = before[r].get(pl.id, 0), before[r].get(opp, 0)
            floats.append("down" if mine_before > theirs_before else "up" if mine_before < theirs_before else "none")
        data.append(
            {
                "id": pl.id,
                "name": pl.name,
                "score": score[pl.id] / 2,
                "rating": pl.rating,
                "starting_number": number,
                "color_hist": colours,
                "float_history": floats,
                "bye_count": byes,
                "forfeit_win_count": forfeit_wins,
            }
        )
    previous = {(min(p.white, p.black), max(p.white, p.black)) for p in done if p.black is not None and p.played}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the engine's advice on float history: we pass it
        result = generate_pairings(
            system="dutch", players=data, previous_pairings=previous, round_number=round_no, total_rounds=planned
        )
    out: list[Pairing] = []
    for item in sorted(result, key=lambda x: x.get("table") or 10**6):
        white, black = item.get("white_id"), item.get("black_id")
        if white is None:
            white, black = black, None
        if white is None:
            continue
        out.append(Pairing(round_no, len(out) + 1, int(white), None if black is None else int(black)))
    paired = [p for p in out if p.black is not None]
    byes_out = [p for p in out if p.black is None]
    out = [*paired, *byes_out]  # the byes after the games, numbered on
    for i, p in enumerate(out, start=1):
        p.table = i
    return out
