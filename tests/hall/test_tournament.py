"""The tournament by the FENACEF regulation: Swiss pairings by FIDE's Dutch system through gacrux
(no repeated pairing, the bye by FIDE's rule even with forfeits, colours across byes and W.O.s),
withdrawals, late entries, byes asked for, a round paired again, the TRF export read back by
gacrux's own reader; scoring 2/1/0 with the bye worth 1 point and a W.O. a win, and the Art. 5
tie-break in both readings against hand-worked examples. (``benchmarks/pairing.py --bbp`` checks
every round against bbpPairings, FIDE's endorsed engine, where it is built.)"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from hall.app import Hall
from hall.store import HallStore
from hall.tournament import (
    Pairing,
    Player,
    TournamentError,
    crosstable,
    desempenho,
    normalise_result,
    pair_round,
    read_players_csv,
    standings,
)


def _swiss(
    n_players: int, rounds: int, seed: int, results: tuple[str, ...] = ("2-0", "1-1", "0-2")
) -> tuple[list[Player], list[Pairing]]:
    rng = random.Random(seed)
    players = [Player(i, f"P{i}", 2400 - 37 * i) for i in range(1, n_players + 1)]
    pairings: list[Pairing] = []
    for r in range(1, rounds + 1):
        new = pair_round(players, pairings, r, rounds, top="w")
        for p in new:
            if p.black is not None:
                p.result, p.confirmed = rng.choice(results), True
            else:
                p.confirmed = True
        pairings += new
    return players, pairings


def _colours(pl: int, pairings: list[Pairing]) -> str:
    """A player's colours in the games played (FIDE: byes and forfeits are skipped)."""
    return "".join(
        "w" if p.white == pl else "b"
        for p in sorted(pairings, key=lambda p: p.round)
        if p.played and pl in (p.white, p.black)
    )


@pytest.mark.parametrize(("n_players", "rounds", "seed"), [(9, 5, 1), (12, 6, 2), (7, 5, 3)])
def test_swiss_rounds_never_repeat_a_pairing_give_one_bye_and_alternate_colours(
    n_players: int, rounds: int, seed: int
) -> None:
    players, pairings = _swiss(n_players, rounds, seed)
    games = [frozenset((p.white, p.black)) for p in pairings if p.black is not None]
    assert len(games) == len(set(games)), "a pairing was repeated"
    for r in range(1, rounds + 1):
        this = [p for p in pairings if p.round == r]
        seated = Counter(x for p in this for x in (p.white, p.black) if x is not None)
        assert sorted(seated) == [pl.id for pl in players] and set(seated.values()) == {1}  # everyone once
        byes = [p for p in this if p.black is None]
        assert len(byes) == n_players % 2  # the odd player out, only then
    byes = Counter(p.white for p in pairings if p.black is None)
    assert all(n == 1 for n in byes.values()), "a player got the bye twice"
    for pl in players:
        text = _colours(pl.id, pairings)
        assert "www" not in text and "bbb" not in text, f"{pl.name} had one colour three times running: {text}"
        assert abs(text.count("w") - text.count("b")) <= 2, f"{pl.name}'s colours: {text}"


def test_the_bye_is_worth_one_point_and_a_forfeit_is_a_win_for_the_player_present() -> None:
    players = [Player(i, f"P{i}") for i in (1, 2, 3)]
    pairings = [
        Pairing(1, 1, 1, 2, "+/-", confirmed=True),  # W.O.: 2 is absent, 1 wins
        Pairing(1, 2, 3, None, confirmed=True),  # the bye
    ]
    table = {s.player.id: s.points for s in standings(players, pairings, 5)}
    assert table == {1: 2, 2: 0, 3: 1}
    assert normalise_result("1/2-1/2") == "1-1" and normalise_result("0-1") == "0-2"
    with pytest.raises(TournamentError, match="unknown result"):
        normalise_result("3-0")


def test_a_forfeit_is_not_a_game_played_and_an_unconfirmed_result_stops_the_next_round() -> None:
    players = [Player(i, f"P{i}", 2000 - i) for i in range(1, 5)]
    first = pair_round(players, [], 1, 3)
    first[0].result = "2-0"  # on the board, not confirmed by the arbiter yet
    with pytest.raises(TournamentError, match="no confirmed result"):
        pair_round(players, first, 2, 3)


# -- Art. 5, "Desempenho Individual Progressivo", worked by hand --------------------------------
# A 6-round event (half: 3 rounds). A and B finish on 9 points each:
#   A: R1 win 2, R2 draw 1, R3 loss 0, R4 win 2, R5 win 2, R6 win 2
#   B: R1 loss 0, R2 win 2, R3 win 2, R4 draw 1, R5 win 2, R6 win 2
# literal (the points of rounds 1-3):        A = 2+1+0 = 3,       B = 0+2+2 = 4  -> B ahead
# progressive (cumulative after 1, 2, 3):    A = 2+3+3 = 8,       B = 0+2+4 = 6  -> A ahead
A, B = 1, 2
A_RESULTS = ["2-0", "1-1", "0-2", "2-0", "2-0", "2-0"]  # A plays White against 10, 11, ...
B_RESULTS = ["0-2", "2-0", "2-0", "1-1", "2-0", "2-0"]  # B plays White against 20, 21, ...


def _hand_worked() -> tuple[list[Player], list[Pairing]]:
    players = [Player(A, "Ana", 1500), Player(B, "Bia", 1600)]
    players += [Player(10 + r, f"A-opp{r}") for r in range(6)] + [Player(20 + r, f"B-opp{r}") for r in range(6)]
    pairings = []
    for r in range(6):
        pairings.append(Pairing(r + 1, 1, A, 10 + r, A_RESULTS[r], confirmed=True))
        pairings.append(Pairing(r + 1, 2, B, 20 + r, B_RESULTS[r], confirmed=True))
    return players, pairings


def test_the_literal_reading_sums_the_points_of_the_first_half_of_the_rounds() -> None:
    players, pairings = _hand_worked()
    assert desempenho(A, pairings, 6, "literal") == 3
    assert desempenho(B, pairings, 6, "literal") == 4
    top = standings(players, pairings, 6, "literal")[:2]
    assert [(s.player.name, s.points, s.tiebreak, s.rank) for s in top] == [("Bia", 9, 4, 1), ("Ana", 9, 3, 2)]


def test_the_progressive_reading_sums_the_cumulative_scores_of_the_first_half() -> None:
    players, pairings = _hand_worked()
    assert desempenho(A, pairings, 6, "progressive") == 8
    assert desempenho(B, pairings, 6, "progressive") == 6
    top = standings(players, pairings, 6, "progressive")[:2]
    assert [(s.player.name, s.points, s.tiebreak, s.rank) for s in top] == [("Ana", 9, 8, 1), ("Bia", 9, 6, 2)]


def test_an_odd_number_of_planned_rounds_counts_the_rounds_up_to_half_rounded_down() -> None:
    # 7 planned rounds: the first 3 count; a bye in round 2 is its 1 point
    pairings = [
        Pairing(1, 1, A, 10, "2-0", confirmed=True),
        Pairing(2, 1, A, None, confirmed=True),
        Pairing(3, 1, A, 11, "0-2", confirmed=True),
        Pairing(4, 1, A, 12, "2-0", confirmed=True),
    ]
    assert desempenho(A, pairings, 7, "literal") == 2 + 1 + 0
    assert desempenho(A, pairings, 7, "progressive") == 2 + 3 + 3
    with pytest.raises(TournamentError, match="literal or progressive"):
        desempenho(A, pairings, 7, "buchholz")


def test_players_come_from_a_csv_and_a_bad_line_is_named() -> None:
    players = read_players_csv("nome,rating,clube\nAna,1500,Recife\nBia,,\n")
    assert [(p.id, p.name, p.rating, p.club) for p in players] == [(1, "Ana", 1500, "Recife"), (2, "Bia", 0, "")]
    with pytest.raises(TournamentError, match="line 3: rating 'abc' is not a number"):
        read_players_csv("name,rating\nAna,1500\nBia,abc\n")
    with pytest.raises(TournamentError, match="no name column"):
        read_players_csv("player,rating\nAna,1\n")


def test_a_board_result_reaches_the_standings_after_the_arbiter_confirms_it(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        hall = Hall(store, None, token="t")
        hall.settings({"rounds": 3, "event": "Open"})
        hall.import_csv("name,rating\nAna,1800\nBia,1700\nCid,1600\n")
        pairs = hall.pair_next(["7"])
        game = next(p for p in pairs if p.black is not None)
        bye = next(p for p in pairs if p.black is None)
        names = {p.id: p.name for p in store.players()}
        assert game.board == "7"
        # board 7 plays the game and publishes it (what damas.hall_link.publish sends)
        tags = {"White": names[game.white], "Black": names[game.black], "Round": "1", "Event": "Open"}
        start = {"type": "start", "variant": "brazilian", "fen": None, "mode": "tournament", "tags": tags, "intro": []}
        for seq, msg in enumerate([start, {"type": "result", "result": "0-1", "termination": "resignation"}]):
            hall.receive("damas/board/7/game", _json({**msg, "board": "7", "game": 3, "seq": seq}))
        points = {s["name"]: s["points"] for s in hall.table()}
        assert points[names[bye.white]] == 1  # the bye counts at once
        assert points[names[game.black]] == 0  # the game waits for the arbiter
        hall.confirm(1, game.table)
        points = {s["name"]: s["points"] for s in hall.table()}
        assert points[names[game.black]] == 2 and points[names[game.white]] == 0
        assert hall.round_games(1)[0].key == "7-3"
        # the arbiter swaps colours of the next round's game only before it is played
        with pytest.raises(TournamentError, match="only before the game"):
            hall.swap_colours(1, game.table)
        second = hall.pair_next(["7"])
        g2 = next(p for p in second if p.black is not None)
        swapped = hall.swap_colours(2, g2.table)
        assert (swapped.white, swapped.black) == (g2.black, g2.white)
        # with auto-confirm, the board's result counts at once (and the swapped colours are followed)
        hall.settings({"auto_confirm": True})
        tags = {"White": names[swapped.white], "Black": names[swapped.black], "Round": "2"}
        for seq, msg in enumerate([{**start, "tags": tags}, {"type": "result", "result": "1-0", "termination": None}]):
            hall.receive("damas/board/7/game", _json({**msg, "board": "7", "game": 4, "seq": seq}))
        (p2,) = [p for p in store.pairings() if p.round == 2 and p.black is not None]
        assert (p2.result, p2.confirmed) == ("2-0", True)
        points = {s["name"]: s["points"] for s in hall.table()}
        assert points[names[swapped.white]] >= 2
    finally:
        store.close()


def _json(data: dict[str, object]) -> bytes:
    import json

    return json.dumps(data).encode()


@pytest.mark.parametrize("seed", range(4))
def test_the_bye_never_goes_twice_while_another_player_can_have_it_even_with_forfeits(seed: int) -> None:
    """Issue 29: a forfeit win made the old engine pick anyone (one player got the bye in rounds
    3, 5 and 6 of a 9-player event). FIDE C.04.1: no pairing-allocated bye to a player who had
    one or won by forfeit, while another can have it; colours never three times running across
    the byes and W.O.s between games (issue 29: White in rounds 2, 4 and 5 around a bye)."""
    results = ("2-0", "1-1", "0-2", "2-0", "0-2", "1-1", "2-0", "0-2", "+/-", "-/+")
    players, pairings = _swiss(9, 7, 100 + seed, results)
    had: set[int] = set()  # a bye, or a forfeit win
    for r in range(1, 8):
        this = [p for p in pairings if p.round == r]
        (bye,) = [p.white for p in this if p.black is None]
        eligible = {pl.id for pl in players} - had
        assert bye in eligible or not eligible, f"round {r}: the bye to {bye}, while {sorted(eligible)} could have it"
        had.add(bye)
        had |= {p.white for p in this if p.result == "+/-"} | {p.black for p in this if p.result == "-/+" and p.black}
    for pl in players:
        text = _colours(pl.id, pairings)
        assert "www" not in text and "bbb" not in text, f"{pl.name}: {text}"


def test_a_withdrawn_player_sits_out_a_late_entry_and_byes_asked_for_count_as_the_arbiter_set_them() -> None:
    players = [Player(i, f"P{i}", 2000 - 10 * i) for i in range(1, 9)]
    pairings = pair_round(players, [], 1, 5, top="b")
    for p in pairings:
        p.result, p.confirmed = "1-1", True
    players[7].withdrawn = 2  # P8 withdraws after round 1
    players.append(Player(9, "Late", 2100))  # a late entry, rated highest: no points for round 1
    byes = [Pairing(2, 0, 1, None, "H"), Pairing(2, 0, 2, None, "Z")]  # asked for round 2
    second = pair_round(players, pairings, 2, 5, top="b", requests=byes)
    games = [p for p in second if p.black is not None]
    seated = sorted(x for p in games for x in (p.white, p.black) if x is not None)
    assert seated == [3, 4, 5, 6, 7, 9] and len(second) == 5  # 3 games, the two byes asked for, no other bye
    assert [(p.white, p.result) for p in second[-2:]] == [(1, "H"), (2, "Z")]
    for p in games:
        p.result, p.confirmed = "2-0", True
    points = {s.player.id: s.points for s in standings(players, pairings + second, 5)}
    assert points[1] == 1 + 1 and points[2] == 1 + 0 and points[8] == 1  # H worth a draw, Z nothing
    assert points[9] in (0, 2)  # the late entry: nothing for round 1
    line = {row["id"]: row for row in crosstable(players, pairings + second, 5)}
    assert [c["kind"] for c in line[1]["rounds"]] == ["game", "H"]
    assert [c["kind"] for c in line[9]["rounds"]] == ["absent", "game"]
    assert [c["kind"] for c in line[8]["rounds"]] == ["game", "absent"]
    with pytest.raises(TournamentError, match="round 2 is already paired"):
        pair_round(players, pairings + second, 2, 5)


def test_the_trf_export_is_read_back_by_gacrux_with_the_regulation_s_points() -> None:
    """FIDE's TRF-2026 (hall.trf): gacrux's reader checks every player's points against the score
    system the file states (record 162: win 2, draw 1, the bye 1) and refuses a file where they
    differ; forfeits, byes (allocated, asked for) and a withdrawal are all in it."""
    from gacrux.trf2json import trf2json

    from hall.trf import write_trf

    players, pairings = _swiss(9, 3, 5, ("2-0", "1-1", "0-2", "+/-"))
    players[3].withdrawn = 4
    pairings.append(Pairing(3, 99, 1, None, None, confirmed=True))  # (not a real round: only a bye to read)
    pairings = [p for p in pairings if not (p.round == 3 and p.table == 99)]
    text = write_trf(players, pairings, 5, event="Open do Recife", top="w", absent=[4])
    assert text.startswith("012 Open do Recife\n") and "XXR 5" in text and "XXZ" in text
    reader = trf2json()
    reader.parse_file(text, 0)
    assert reader.chessjson["status"]["code"] == 0, reader.chessjson["status"]
    (event,) = reader.chessjson["event"]["tournaments"]
    assert len(event["competitors"]) == 9 and event["numRounds"] == 5
    points = {s.player.name: s.points for s in standings(players, pairings, 5)}
    read = {c["cid"]: float(c["gamePoints"]) for c in event["competitors"]}
    from hall.tournament import pairing_numbers

    numbers = pairing_numbers(players)
    assert {pl.name: read[numbers[pl.id]] for pl in players} == {k: float(v) for k, v in points.items()}
