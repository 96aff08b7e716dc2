"""The referee on a board that senses colour and crowns (referee/colour.py), on the simulated
8x8 board set to sense them: the cases presence cannot decide, each with the law it concerns
(on a presence board the same hands raise nothing), and whole games with human-like hands
recorded exactly, with no report at all.

| case                                                   | presence           | colour          | law                  |
| ------------------------------------------------------ | ------------------ | --------------- | -------------------- |
| a captured piece put down on the capture's landing     | records c3xe5      | wrong-piece     | INT 5.4              |
| two men of either colour exchanged in an adjustment    | nothing            | pieces-swapped  | INT 5.5              |
| the lifted piece's identity: the king moved, the man   | records c3-d4      | pieces-swapped  | INT 5.4, 3.9         |
|   put on the king's square                             |                    |                 |                      |
| captured pieces told apart: a captured piece put on an | records the        | wrong-piece     | INT 5.4 (own pieces  |
|   own piece's square taken off by mistake              |   capture          |                 |   removed)           |
| a man that became a king has no crown yet              | nothing            | crown (notice)  | INT 3.5, 3.8,        |
|                                                        |                    |                 |   PT 2.2.7           |
| a king lost its crown                                  | nothing            | lost-crown      | INT 3.5              |
| a man crowned after passing the far row mid-capture    | nothing            | extra-crown     | INT 4.15, FEN 21     |
| set up with White's and Black's pieces exchanged       | setup-ok           | wrong-piece     | INT 5.2              |
"""

from __future__ import annotations

import json

import pytest

from board_hal.layout import Layout
from board_hal.simulated import SimulatedBoard
from board_hal.squares import Sensing, SquareState
from referee import ColourReferee, MoveMade, Pipeline, Referee, Report, Role, make_referee, parse_log
from referee.log import LogHeader, dump_log
from rules import Position
from tests.conftest import random_game
from tests.referee.colour_hands import colour_game_log, piece_of

VARIANT = "brazilian"
LAYOUT = Layout(VARIANT)
GEO = Position.start(VARIANT).geometry
W, B, WK, BK = SquareState.WHITE_MAN, SquareState.BLACK_MAN, SquareState.WHITE_KING, SquareState.BLACK_KING


def sq(name: str) -> int:
    return GEO.parse_square(name)


class Hands:
    """Hands on the simulated board; what it reports goes through the live pipeline."""

    def __init__(self, fen: str, senses: Sensing = Sensing.CROWN, pieces: dict[int, SquareState] | None = None):
        pos = Position.from_fen(fen, VARIANT)
        pieces = pieces or {s: piece_of(pos, s) for s in pos.occupied()}
        self.sim = SimulatedBoard(LAYOUT, occupied=pieces, senses=senses)
        self.io = self.sim.io()
        colour = senses.name.lower() if senses > Sensing.PRESENCE else None
        self.ref = make_referee(VARIANT, fen, senses=colour, pieces=dict(self.io.pieces()) if colour else None)  # type: ignore[arg-type]
        self.pipe = Pipeline(self.ref)
        self.t = 0.0
        self.all: list[object] = []

    def _step(self, act: str, square: str, piece: SquareState | None = None) -> Hands:
        self.t += 0.3
        s = sq(square)
        if act == "lift":
            self.sim.lift(s, t=self.t)
        elif act == "place":
            self.sim.place(s, t=self.t, piece=piece)
        else:
            self.sim.crown(s, t=self.t, king=act == "crown")
        for tr in self.io.poll():
            self.all += self.pipe.feed(tr)
        self.t += 0.1
        self.all += self.pipe.advance(self.t)
        return self

    def lift(self, *squares: str) -> Hands:
        for s in squares:
            self._step("lift", s)
        return self

    def place(self, square: str, piece: SquareState | None = None) -> Hands:
        return self._step("place", square, piece)

    def crown(self, square: str) -> Hands:
        return self._step("crown", square)

    def uncrown(self, square: str) -> Hands:
        return self._step("uncrown", square)

    def wait(self, seconds: float = 2.0) -> Hands:
        self.t += seconds
        self.all += self.pipe.advance(self.t)
        return self

    def moves(self) -> list[str]:
        return [v.pdn for v in self.all if isinstance(v, MoveMade)]

    def reports(self) -> list[Report]:
        return [v for v in self.all if isinstance(v, Report)]

    def kinds(self) -> list[str]:
        return [r.kind.value for r in self.reports()]

    def lit(self) -> dict[int, Role]:
        return {i.square: i.role for i in self.ref.led_intents()}


def both(fen: str, script: object) -> tuple[Hands, Hands]:
    """The same hands on a board that senses colour and crowns, and on one that senses presence."""
    colour, presence = Hands(fen), Hands(fen, Sensing.PRESENCE)
    for h in (colour, presence):
        script(h)  # type: ignore[operator]
    assert isinstance(colour.ref, ColourReferee) and type(presence.ref) is Referee
    return colour, presence


# -- the cases presence cannot decide ------------------------------------------------------------
def test_a_captured_piece_put_down_on_the_landing_square() -> None:
    """INT 5.4: moving the opponent's piece. The hand holds both pieces after lifting the captured
    one early, and puts the black man on e5: the occupancy is the capture's."""
    fen = f"W:W{sq('c3')},{sq('h2')}:B{sq('d4')},{sq('h8')}"
    colour, presence = both(fen, lambda h: h.lift("c3", "d4").place("e5", B).wait())
    assert presence.moves() == colour.moves() == ["c3xe5"]
    assert presence.kinds() == []
    assert colour.kinds() == ["wrong-piece"]
    r = colour.reports()[0]
    assert r.squares == (sq("e5"),) and r.params == {"colour": True}
    assert r.message == "a black man stands on e5, where the game has a white man: put the game's piece there"
    assert colour.lit()[sq("e5")] is Role.ERROR
    colour.lift("e5").place("e5", W).wait()  # put right: the white man back
    assert colour.kinds() == ["wrong-piece", "restored"]
    assert colour.lit().get(sq("e5")) is Role.LAST  # the last move again


def test_two_pieces_exchanged_in_an_adjustment() -> None:
    """INT 5.5: an upset position is put back. Presence sees a lift and a put-back on each square."""
    fen = f"W:W{sq('c3')},{sq('h2')}:B{sq('f6')},{sq('h8')}"
    colour, presence = both(fen, lambda h: h.lift("c3", "f6").place("c3", B).place("f6", W).wait())
    assert presence.kinds() == [] and presence.moves() == []
    assert colour.kinds() == ["pieces-swapped"]
    assert colour.reports()[0].message == "the pieces on f6 and c3 are swapped: exchange them"
    assert {colour.lit()[sq("c3")], colour.lit()[sq("f6")]} == {Role.ERROR}


def test_the_lifted_piece_s_identity_a_king_moved_instead_of_the_man() -> None:
    """INT 5.4: the hands lift the man on c3 and the king on e1 together, put the king on d4 and
    the man on e1: the occupancy is c3-d4's, which presence records."""
    fen = f"W:W{sq('c3')},K{sq('e1')}:B{sq('h8')}"
    colour, presence = both(fen, lambda h: h.lift("c3", "e1").place("d4", WK).place("e1", W).wait())
    assert presence.moves() == colour.moves() == ["c3-d4"]
    assert presence.kinds() == []
    assert colour.kinds() == ["pieces-swapped"]
    assert colour.reports()[0].message == "the pieces on d4 and e1 are swapped: exchange them"


def test_captured_pieces_told_apart_from_an_own_piece_taken_off_by_mistake() -> None:
    """INT 5.4 (removing one's own pieces): during the removals the hand takes the white man on h2
    too, and puts one of the captured black men down on h2."""
    fen = f"W:W{sq('b2')},{sq('h2')}:B{sq('c3')},{sq('e5')},{sq('h8')}"
    colour, presence = both(fen, lambda h: h.lift("b2").place("f6").lift("c3", "e5", "h2").place("h2", B).wait())
    assert presence.moves() == colour.moves() == ["b2xf6"]
    assert presence.kinds() == []
    assert colour.kinds() == ["wrong-piece"]
    assert colour.reports()[0].message.startswith("a black man stands on h2, where the game has a white man")


def test_a_promoted_man_must_be_crowned() -> None:
    """INT 3.5, 3.8: a man ending its move on the far row becomes a king, marked by a crown; it is
    a king even before the crown is put on (PT 2.2.7), so this is a notice."""
    fen = f"W:W{sq('a7')},{sq('h2')}:B{sq('h8')}"
    colour, presence = both(fen, lambda h: h.lift("a7").place("b8").wait())
    assert presence.kinds() == []
    assert colour.moves() == ["a7-b8"] and colour.ref.position.piece_at(sq("b8")).king  # type: ignore[union-attr]
    assert colour.kinds() == ["crown"]
    assert colour.reports()[0].message == "crown the man on b8: it became a king"
    assert colour.lit()[sq("b8")] is Role.MISSING  # a crown to put on
    colour.crown("b8").wait()
    assert colour.kinds() == ["crown"]  # crowned: the notice goes, nothing else is said
    assert colour.ref.colour_report is None  # type: ignore[attr-defined]


def test_a_king_that_lost_its_crown() -> None:
    """INT 3.5: a king is a man with a crown on it."""
    fen = f"W:WK{sq('d4')},{sq('h2')}:B{sq('h8')}"
    colour, presence = both(fen, lambda h: h.uncrown("d4").wait())
    assert presence.kinds() == []
    assert colour.kinds() == ["lost-crown"]
    assert colour.reports()[0].message == "the king on d4 lost its crown: put it back"
    colour.crown("d4").wait()
    assert colour.kinds() == ["lost-crown", "restored"]


def test_a_man_crowned_after_passing_the_far_row_mid_capture() -> None:
    """FEN 21 (INT 4.15): a man that passes the far row during a capture and ends elsewhere stays a man."""
    fen = f"W:W{sq('b6')},{sq('h2')}:B{sq('c7')},{sq('e7')},{sq('h8')}"
    colour, presence = both(fen, lambda h: h.lift("b6").place("f6").lift("c7", "e7").crown("f6").wait())
    assert presence.moves() == colour.moves() == ["b6xf6"]
    assert presence.kinds() == []
    assert colour.kinds() == ["extra-crown"]
    assert colour.reports()[0].message.startswith("the man on f6 wears a crown: take it off")
    assert colour.lit()[sq("f6")] is Role.EXTRA


def test_a_set_up_with_the_colours_exchanged() -> None:
    """INT 5.2: the start position is checked before the game. The occupancy is the start's."""
    start = Position.start(VARIANT)
    flipped = {s: (B if piece_of(start, s) is W else W) for s in start.occupied()}
    colour = Hands(start.fen(), pieces=flipped)
    presence = Hands(start.fen(), Sensing.PRESENCE, pieces=flipped)
    colour.wait()
    presence.wait()
    assert presence.kinds() == []
    assert colour.kinds() == ["wrong-piece"]
    r = colour.reports()[0]
    assert len(r.squares) == 24 and r.message.startswith("24 pieces are of the other colour")


def test_a_board_that_senses_colour_but_not_crowns_is_not_asked_about_crowns() -> None:
    fen = f"W:W{sq('a7')},{sq('h2')}:B{sq('h8')}"
    h = Hands(fen, Sensing.COLOUR)
    h.lift("a7").place("b8").wait()
    assert h.moves() == ["a7-b8"] and h.kinds() == []
    h.lift("h8").place("h8", W).wait()  # but a piece of the wrong colour is seen
    assert h.kinds() == ["wrong-piece"]


def test_a_piece_the_board_cannot_read_fits_any_piece() -> None:
    fen = f"W:W{sq('c3')},{sq('h2')}:B{sq('h8')}"
    h = Hands(fen)
    h.lift("c3").place("d4", SquareState.OCCUPIED).wait()
    assert h.moves() == ["c3-d4"] and h.kinds() == []


# -- whole games ---------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_games_with_human_hands_on_a_board_that_senses_colour_and_crowns(seed: int) -> None:
    start, moves = random_game(VARIANT, seed, 80)
    events, _ = colour_game_log(start, moves, seed)
    ref = ColourReferee(VARIANT, start.fen(), pieces={s: piece_of(start, s) for s in start.occupied()})
    verdicts = Pipeline(ref).run(events)
    assert [v.move for v in verdicts if isinstance(v, MoveMade)] == moves
    assert [v for v in verdicts if isinstance(v, Report)] == []  # crowns put on in time: not a word


def test_a_colour_log_replays_to_the_same_verdicts() -> None:
    start, moves = random_game(VARIANT, 4, 60)
    events, _ = colour_game_log(start, moves, 4)
    pieces = {s: piece_of(start, s) for s in start.occupied()}
    header = LogHeader(variant=VARIANT, senses="crown", pieces=pieces)
    text = dump_log(header, events)
    first = json.loads(text.splitlines()[0])
    assert first["format"] == 2 and first["senses"] == "crown" and set(first["pieces"]) == {"w", "b"}
    h, read = parse_log(text.splitlines())
    assert read == events  # every piece read back
    live = Pipeline(make_referee(VARIANT, senses="crown", pieces=pieces)).run(events)
    again = Pipeline(make_referee(VARIANT, senses=h.senses, pieces=h.pieces)).run(read)
    assert [v.to_json() for v in again] == [v.to_json() for v in live]  # type: ignore[attr-defined]


def test_a_square_read_without_a_piece_is_not_known_any_more() -> None:
    """A colour game resumed on a board that senses presence only: what stood there is forgotten
    (a stale reading must not raise a wrong-piece report)."""
    from board_hal.debounce import Transition

    ref = ColourReferee(VARIANT, pieces={sq("c3"): W})
    ref.feed(Transition(1.0, sq("c3"), False))
    ref.feed(Transition(2.0, sq("c3"), True))  # (no piece: not known)
    assert sq("c3") not in ref.sensed


def test_real_8x8_games_on_the_colour_sensing_simulated_board() -> None:
    """Every real Brazilian and Portuguese game of tests/data, played by human-like hands (crowns
    put on, pieces followed) on the simulated 8x8 board sensing colour and crowns, read through
    its BoardIO, the debouncer and the colour referee: recorded exactly, not one report."""
    from tests.referee.test_campaigns import real_games

    games = [g for g in real_games() if g[1].variant.board_size == 8]
    assert len(games) >= 10
    plies = 0
    for name, start, moves in games:
        events, _ = colour_game_log(start, moves, 0)
        pieces = {s: piece_of(start, s) for s in start.occupied()}
        layout = Layout(start.variant.name)
        sim = SimulatedBoard(layout, occupied=pieces, senses=Sensing.CROWN)
        io = sim.io()
        ref = ColourReferee(start.variant, start.fen(), pieces=dict(io.pieces()))  # type: ignore[arg-type]
        pipe = Pipeline(ref)
        verdicts: list[object] = []
        for ev in events:
            assert isinstance(ev.key, int)
            if ev.occupied:
                sim.place(ev.key, t=ev.t, piece=ev.piece)
            else:
                sim.lift(ev.key, t=ev.t)
            for tr in io.poll():
                verdicts += pipe.feed(tr)
        verdicts += pipe.finish()
        assert [v.move for v in verdicts if isinstance(v, MoveMade)] == moves, name
        assert [v for v in verdicts if isinstance(v, Report)] == [], name
        plies += len(moves)
    assert plies > 400
