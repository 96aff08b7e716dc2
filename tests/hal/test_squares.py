"""Square states beyond presence: the vocabulary, the debouncer with pieces, the simulated
board that senses colour and crowns, and what each backend declares it senses."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from board_hal import registry
from board_hal.backends import BoardIO, LinkStatus, SensorBackend
from board_hal.config import ConfigError, parse_config
from board_hal.debounce import Debouncer, Transition
from board_hal.factory import open_board
from board_hal.layout import Layout
from board_hal.simulated import ENV_SENSES, SimulatedBoard
from board_hal.squares import Sensing, SquareState
from tests.conftest import ROOT

W, B, WK, BK, Q, E = (
    SquareState.WHITE_MAN,
    SquareState.BLACK_MAN,
    SquareState.WHITE_KING,
    SquareState.BLACK_KING,
    SquareState.OCCUPIED,
    SquareState.EMPTY,
)


# -- the vocabulary -------------------------------------------------------------------------------
def test_states_match_the_link_numbers_and_pdn_letters() -> None:
    assert [int(s) for s in (E, W, B, WK, BK, Q)] == [0, 1, 2, 3, 4, 5]  # hardware/protocol.md, SQUARES
    assert [s.code for s in (E, W, B, WK, BK, Q)] == [".", "w", "b", "W", "B", "?"]
    assert all(SquareState.from_code(s.code) is s for s in SquareState)
    assert [SquareState.from_wire(n) for n in (0, 4, 5, 6, 15)] == [E, BK, Q, Q, Q]  # 6-15 reserved: unknown
    for bad in (-1, 16, 255):
        with pytest.raises(ValueError, match="0-15"):
            SquareState.from_wire(bad)
    with pytest.raises(ValueError, match="not a square state"):
        SquareState.from_code("x")
    assert (W.colour, BK.colour, Q.colour, E.colour) == ("white", "black", None, None)
    assert (W.king, WK.king, Q.king) == (False, True, False)
    assert W.crowned() is WK and BK.crowned(False) is B and Q.crowned() is Q


@pytest.mark.parametrize(
    ("sensing", "seen"),
    [
        (Sensing.PRESENCE, [Q, Q, Q, Q]),
        (Sensing.COLOUR, [W, B, W, B]),  # two unipolar switches: a king reads as its colour
        (Sensing.CROWN, [W, B, WK, BK]),
    ],
)
def test_what_each_level_of_sensing_reads(sensing: Sensing, seen: list[SquareState]) -> None:
    assert [sensing.sees(p) for p in (W, B, WK, BK)] == seen
    assert sensing.sees(E) is E
    assert all(sensing.agrees(sensing.sees(p), p) for p in (W, B, WK, BK))
    assert all(sensing.agrees(Q, p) for p in (W, B, WK, BK))  # an unreadable piece fits any piece
    assert not sensing.agrees(Q, E)


def test_colour_that_disagrees() -> None:
    assert not Sensing.CROWN.agrees(W, WK)  # a king that lost its crown
    assert Sensing.COLOUR.agrees(W, WK)  # a colour-only board cannot tell
    assert not Sensing.COLOUR.agrees(B, WK)
    assert [Sensing.named(n) for n in ("presence", "colour", "color", "crown")] == [0, 1, 1, 2]
    with pytest.raises(ValueError, match="presence, colour or crown"):
        Sensing.named("smell")


# -- the debouncer with pieces ---------------------------------------------------------------------
def test_presence_transitions_debounce_as_before() -> None:
    d = Debouncer(0.05, {22: True})
    assert repr(Transition(1.0, 22, True)) == "Transition(t=1.0, key=22, occupied=True)"
    assert d.feed(Transition(0.0, 22, False)) == []
    assert d.feed(Transition(0.001, 22, True)) == []
    assert d.flush(1.0) == []


def test_a_crown_put_on_is_a_change_on_an_occupied_square() -> None:
    d = Debouncer(0.05, {4: True}, {4: W})
    assert d.feed(Transition(1.0, 4, True, WK)) == []
    assert d.flush(1.2) == [Transition(1.0, 4, True, WK)]
    assert d.pieces[4] is WK and d.stable[4]
    assert repr(Transition(1.0, 4, True, WK)) == "Transition(t=1.0, key=4, occupied=True, piece='W')"


def test_a_piece_swapped_faster_than_the_window_and_a_brush() -> None:
    d = Debouncer(0.05, {9: True}, {9: W})
    d.feed(Transition(1.0, 9, False, E))
    d.feed(Transition(1.02, 9, True, B))  # white off, black on within 20 ms: a change all the same
    assert d.flush(1.06) == []  # the black piece has held only 40 ms
    assert d.flush(1.08) == [Transition(1.02, 9, True, B)]
    d.feed(Transition(2.0, 9, True, W))  # a flicker of the wrong colour (a magnet passing by)
    d.feed(Transition(2.01, 9, True, B))
    assert d.flush(3.0) == []  # back to what it was: nothing happened


def test_a_piece_read_for_the_first_time_settles_like_a_change() -> None:
    d = Debouncer(0.05, {9: True})  # what stands there was never read: the first reading is news
    d.feed(Transition(1.0, 9, True, B))
    assert d.flush(2.0) == [Transition(1.0, 9, True, B)]
    d.feed(Transition(3.0, 9, True, B))  # the same again: nothing
    assert d.flush(4.0) == []


# -- the simulated board -------------------------------------------------------------------------
def _drain(board: SimulatedBoard) -> list[tuple[int | str, bool, SquareState | None]]:
    return [(tr.key, tr.occupied, tr.piece) for tr in board.io().poll()]


def test_a_presence_board_reports_no_pieces() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.PRESENCE)
    board.lift(22)
    board.place(18)
    assert _drain(board) == [(22, False, None), (18, True, None)]
    assert board.io().senses is Sensing.PRESENCE
    assert set(board.io().pieces().values()) == {Q}


def test_a_colour_board_follows_each_piece_through_a_capture_and_a_crowning() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.CROWN)
    io = board.io()
    assert io.senses is Sensing.CROWN
    assert io.pieces()[22] is W and io.pieces()[9] is B
    board.lift(22)
    board.place(18)  # the piece lifted last is put down
    board.lift(11)
    board.place(15)
    board.lift(18)
    board.place(11)  # white jumps 15: the capturer lands...
    board.lift(15)  # ...and the captured black man comes off (into the hand)
    assert _drain(board) == [
        (22, False, E),
        (18, True, W),
        (11, False, E),
        (15, True, B),
        (18, False, E),
        (11, True, W),
        (15, False, E),
    ]
    board.lift(12)
    board.place(16)  # black's next man is black, though a captured piece is in the hand
    assert board.piece_at(16) is B
    board.crown(11)
    assert _drain(board)[-1] == (11, True, WK)
    board.uncrown(11)
    assert _drain(board) == [(11, True, W)]
    board.place(15, piece=W)  # a wrong piece put down: the board says what it is
    assert _drain(board) == [(15, True, W)]
    with pytest.raises(ValueError, match="no piece on square 18"):
        board.crown(18)


def test_a_colour_only_board_does_not_see_a_crown() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.COLOUR)
    board.crown(22)
    assert _drain(board) == []  # a king reads as a white piece: nothing changed for the sensors
    board.lift(22)
    board.place(18)
    assert _drain(board) == [(22, False, E), (18, True, W)]
    assert board.piece_at(18) is WK


def test_bounce_and_dead_and_stuck_sensors_on_a_colour_board() -> None:
    board = SimulatedBoard(Layout("brazilian"), senses=Sensing.CROWN)
    board.bounce(22, times=1)
    assert _drain(board) == [(22, False, E), (22, True, W)]
    board.stuck.add(board.layout.cell_of(18))
    board.dead.add(board.layout.cell_of(22))
    assert board.io().pieces()[18] is Q and 22 not in board.io().pieces()


def test_link_status_carries_the_pieces_of_a_colour_board() -> None:
    lay = Layout("brazilian")
    sensors = SensorBackend(8)
    io = BoardIO(lay, sensors)
    cells = frozenset({lay.cell_of(22), lay.cell_of(9)})
    sensors._link_change(True, 3.0, cells, [lay.cell_of(22)], states={lay.cell_of(22): WK, lay.cell_of(9): B})
    [status] = io.poll_events()
    assert isinstance(status, LinkStatus)
    assert dict(status.pieces) == {22: WK, 9: B}
    sensors._link_change(True, 4.0, frozenset({lay.cell_of(9)}), [lay.cell_of(22)], states={lay.cell_of(9): B})
    assert io.poll() == [Transition(4.0, 22, False, E)]


def test_the_environment_sets_what_simulated_boards_sense(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_SENSES, "crown")
    assert SimulatedBoard(Layout("brazilian")).senses is Sensing.CROWN
    monkeypatch.setenv(ENV_SENSES, "")
    assert SimulatedBoard(Layout("brazilian")).senses is Sensing.PRESENCE


def test_the_configuration_sets_it_and_refuses_nonsense_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_SENSES, raising=False)
    cfg = parse_config('[simulated]\nsenses = "colour"\n', "b.toml", env={})
    with open_board(cfg, "brazilian") as io:
        assert io.senses is Sensing.COLOUR
    for text, words in (
        ('[simulated]\nsenses = "smell"\n', 'simulated.senses must be "presence", "colour" or "crown", not \'smell\''),
        ("[simulated]\nsenses = 3\n", "simulated.senses must be"),
        ("[simulated]\ncolour = true\n", "unknown setting simulated.colour"),
    ):
        with pytest.raises(ConfigError) as err:
            parse_config(text, "b.toml", env={})
        assert str(err.value).startswith("b.toml: ") and words in str(err.value) and "\n" not in str(err.value)


def test_every_backend_declares_what_it_senses() -> None:
    found = {name: registry.get(name).senses for name in registry.names()}
    assert found["simulated"] is Sensing.CROWN
    assert found["gpio"] is Sensing.PRESENCE and found["mcp23017"] is Sensing.PRESENCE
    assert all(isinstance(s, Sensing) for s in found.values())


# -- any test both ways ---------------------------------------------------------------------------
#: the representative subset run with colour-sensing simulated boards in the default run; the
#: slow suite runs every test that uses a simulated board that way
BOTH_WAYS = ["tests/hal/test_hal.py", "tests/app/test_live_leds.py", "tests/referee/test_pipeline.py"]
EVERYWHERE = ["tests/hal", "tests/app", "tests/referee", "tests/cli", "tests/bridge"]


def _run_with_colour(paths: list[str], extra: list[str]) -> None:
    env = {**os.environ, ENV_SENSES: "crown"}
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *extra, *paths],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert " passed" in r.stdout


def test_a_representative_subset_passes_on_boards_that_sense_colour_and_crowns() -> None:
    _run_with_colour(BOTH_WAYS, ["-m", "not slow", "-k", "not browser"])


@pytest.mark.slow
@pytest.mark.timeout(1500)  # (a whole folder's tests in one: the default 180 s is for one test)
@pytest.mark.parametrize("folder", EVERYWHERE)
def test_every_simulated_board_test_passes_on_boards_that_sense_colour_and_crowns(folder: str) -> None:
    _run_with_colour([folder], ["-m", "not slow"])


# -- the two-switch Hall build on the Pi's pins (74hc165, colour = true) --------------------------
def test_two_hall_switches_per_square_on_a_74hc165_chain() -> None:
    from gpiozero.pins.mock import MockFactory

    from board_hal.hc165 import HallPairsScanner, pair_cells
    from board_hal.mockpins import ShiftInMock

    factory = MockFactory()
    chain = ShiftInMock(22, 11, 9, pair_cells(8), factory)
    assert len(chain.cells) == 16  # 128 switches
    chain.occupied = {((0, 0), "white"), ((7, 7), "black"), ((3, 4), "white"), ((3, 4), "black")}
    with HallPairsScanner(22, 11, 9, 8, pin_factory=factory, clock=lambda: 1.0) as scanner:
        assert scanner.senses is Sensing.COLOUR
        assert scanner.states() == {(0, 0): W, (7, 7): B, (3, 4): Q}  # both switches: not readable
        chain.occupied = {((0, 0), "black"), ((7, 7), "black")}  # a1 now holds a black piece
        scanner.poll_once()
        got = [scanner.transitions.get_nowait() for _ in range(2)]
        assert [(g.cell, g.occupied, g.state) for g in got] == [((0, 0), True, B), ((3, 4), False, E)]


def test_the_74hc165_colour_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = parse_config(
        '[board]\nbackend = "74hc165"\nsize = 8\n[74hc165]\nload = 22\nclock = 11\ndata = 9\ncolour = true\n',
        "b.toml",
        env={},
    )
    s = cfg.backend_settings["74hc165"]
    assert s.colour and len(s.cells) == 16
    for text, words in (
        ("colour = 1", "74hc165.colour must be true or false"),
        ("colour = true\nchips = 8", "74hc165.chips: the two-switch build of a 8x8 board has 16 chips"),
        ('colour = true\ncells = [["a1"]]', "74hc165.cells: not used with 74hc165.colour"),
    ):
        with pytest.raises(ConfigError) as err:
            parse_config(
                f'[board]\nbackend = "74hc165"\nsize = 8\n[74hc165]\nload = 22\nclock = 11\ndata = 9\n{text}\n',
                "b.toml",
                env={},
            )
        assert words in str(err.value) and "\n" not in str(err.value)
