"""The new-game form's variant (issue 11 §2, §7): the simulated board takes any variant, a real
board only one of its own size (refused in one line otherwise), and each variant's FEN example
is a position of that variant."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from board_hal.backends import BoardIO
from board_hal.gpio import MatrixScanner
from board_hal.layout import Layout
from board_hal.mockpins import MatrixMock
from board_hal.simulated import SimulatedBoard
from damas.board.loop import PlayApp
from damas.board.page_state import FEN_EXAMPLES, fold_reports
from damas.records.session import GameSession
from damas.records.store import Store
from rules import DraughtsError, Position
from rules.variants import VARIANTS
from wording.page import PageError


@contextlib.contextmanager
def app_on(tmp_path: Path, io: BoardIO, variant: str = "brazilian") -> Iterator[PlayApp]:
    store = Store(tmp_path / "games.sqlite3")
    try:
        squares, _cells = io.occupied()
        session = GameSession.start(store, variant, None, "casual", squares, {}, window=0.05)
        yield PlayApp(store, io, session, window=0.05, clock=time.time)
    finally:
        store.close()


def real_board(variant: str = "brazilian") -> BoardIO:
    """An 8x8 GPIO sensor matrix on mock pins (a real board's size is its wiring's)."""
    factory = MockFactory()
    rows, cols = list(range(2, 10)), list(range(10, 18))
    layout = Layout(variant)
    matrix = MatrixMock(rows, cols, factory)
    matrix.occupied = {layout.cell_of(s) for s in Position.start(variant).occupied()}
    return BoardIO(layout, MatrixScanner(rows, cols, pin_factory=factory, clock=time.time))


def test_a_real_board_refuses_a_variant_of_another_size_in_one_line(tmp_path: Path) -> None:
    with app_on(tmp_path, real_board()) as app:
        with pytest.raises(PageError) as info:
            app.action({"action": "new-game", "variant": "international"})
        assert str(info.value) == "this board is 8x8: International draughts needs 10x10"
        assert info.value.text("pt-BR") == "este tabuleiro é 8x8: damas internacionais pedem 10x10"
        assert app.session.row.id == 1 and app.state("en")["variant"] == "brazilian"  # nothing changed
        # a variant of its size: the same sensors read through that variant's squares
        app.action({"action": "new-game", "variant": "portuguese", "mode": "tournament"})
        state = app.state("en")
        assert (state["variant"], state["size"], state["mode"], state["game"]) == ("portuguese", 8, "tournament", 2)
        assert app.io.layout.variant.name == "portuguese" and state["board_size"] == 8


def test_the_simulated_board_takes_any_variant(tmp_path: Path) -> None:
    sim = SimulatedBoard(Layout("brazilian"))
    sim.set_squares(Position.start("brazilian").occupied())
    with app_on(tmp_path, sim.io()) as app:
        app.action({"action": "new-game", "variant": "international", "tags": {"White": "Ana"}})
        state = app.state("pt-BR")
        assert (state["variant"], state["size"], state["title"]) == ("international", 10, "Damas internacionais")
        assert len(state["pieces"]) == 40 and set(state["occupied"]) == set(range(1, 21)) | set(range(31, 51))
        assert state["tags"]["White"] == "Ana" and state["board_size"] is None
        app.action({"action": "new-game", "variant": "brazilian", "fen": "W:Wc3,e3,Kg1:Bb6,d6,f8"})
        state = app.state("en")
        want = Position.from_fen("W:Wc3,e3,Kg1:Bb6,d6,f8", "brazilian")
        assert state["size"] == 8 and state["pieces"] == {str(q): p.symbol for q, p in want.pieces().items()}
        assert state["fen"] == state["start"] == "W:Wc3,e3,Kg1:Bf8,b6,d6"  # Brazilian: algebraic squares


def test_a_bad_fen_or_mode_is_one_line_in_the_page_language(tmp_path: Path) -> None:
    sim = SimulatedBoard(Layout("brazilian"))
    with app_on(tmp_path, sim.io()) as app:
        with pytest.raises(PageError) as info:
            app.action({"action": "new-game", "variant": "brazilian", "fen": "W:W31-50:B1-20"})
        assert "\n" not in str(info.value) and "W:W31-50:B1-20" in str(info.value)
        assert info.value.text("pt-PT").startswith("esta FEN não é uma posição de damas brasileiras")
        with pytest.raises(PageError, match="unknown mode 'blitz'"):
            app.action({"action": "new-game", "mode": "blitz"})
        with pytest.raises(PageError, match="unknown variant 'checkers'"):
            app.action({"action": "new-game", "variant": "checkers"})


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_variants_fen_example_is_one_of_its_positions(variant: str) -> None:
    Position.from_fen(FEN_EXAMPLES[variant], variant)
    if VARIANTS[variant].board_size == 10:  # the old example, W:W31-50:B1-20, is no position on 8x8
        with pytest.raises(DraughtsError):
            Position.from_fen(FEN_EXAMPLES[variant], "brazilian")


def test_a_resolution_is_shown_on_the_report_it_ends() -> None:
    """§4: 'restored' after an error (even with a notice between) and 'setup-ok' after 'setup'
    are shown on the report they end, not as lines of their own."""

    def r(kind: str, t: float) -> dict[str, object]:
        return {"kind": kind, "label": kind, "message": f"{kind} at {t}", "t": t, "squares": []}

    got = fold_reports(
        [
            r("setup", 1),
            r("setup-ok", 2),
            r("wrong-side", 3),
            r("restored", 4),
            r("illegal-square", 5),
            r("touch-move", 6),
            r("restored", 7),
            r("required-capture", 8),
        ]
    )
    assert [(x["kind"], x["resolved"] and x["resolved"]["t"]) for x in got] == [
        ("setup", 2),
        ("wrong-side", 4),
        ("illegal-square", 7),
        ("touch-move", None),
        ("required-capture", None),
    ]
    assert got[1]["resolved"] == {
        "kind": "restored",
        "message": "restored at 4",
        "t": 4,
        "line": "Resolved: restored at 4",
    }
