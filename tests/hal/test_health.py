"""What the self-test finds broken, kept for damas play (issue 31): dead LEDs narrowed down by
halves, the board-health file, and a game that plays around a sensor known to be broken."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from board_hal.debounce import Transition
from board_hal.health import BoardHealth, HealthError, default_path
from board_hal.layout import Layout, cell_name
from board_hal.selftest import Prompt, SelfTest
from board_hal.simulated import SimulatedBoard
from damas.records.session import GameSession
from damas.records.store import Store
from rules import Position


def selftest_with_dark_leds(lay: Layout, dark: set[tuple[int, int]]) -> tuple[object, list[Prompt]]:
    """A self-test answered truthfully about LEDs ``dark`` that never light."""
    sim = SimulatedBoard(lay)
    asked: list[Prompt] = []

    def ask(p: Prompt) -> bool | None:
        if p.kind == "clear":
            sim.set_squares([])
        elif p.kind == "leds" and p.text.endswith("(y/n)"):
            asked.append(p)
            lit = set(p.cells) if p.cells else set(lay.cells())  # the first question: the whole sweep
            return not lit & dark
        return None

    return SelfTest(sim.io(), ask, timeout=0.01, led_step=0.0, squares=[]).run(), asked


def test_dead_leds_are_found_by_halves() -> None:
    lay = Layout("brazilian")
    dark = {(0, 0), (5, 6)}
    res, asked = selftest_with_dark_leds(lay, dark)
    assert res.dead_leds == sorted(dark)  # type: ignore[attr-defined]
    assert "the LED at cell a1 does not light" in res.messages  # type: ignore[attr-defined]
    assert "the LED at cell g6 does not light" in res.messages  # type: ignore[attr-defined]
    assert len(asked) <= 1 + 2 * 2 * 6  # two dark LEDs in 64: about two questions per halving
    # each question lit what it asked about
    assert all(p.cells for p in asked[1:])


def test_no_led_lights_is_one_line_about_the_chain() -> None:
    lay = Layout("brazilian")
    res, _ = selftest_with_dark_leds(lay, set(lay.cells()))
    assert res.messages == ["no LED lights: check the LED chain's power and data (hardware/wiring.md)"]  # type: ignore[attr-defined]


def test_the_health_file_round_trip_and_its_squares(tmp_path: Path) -> None:
    path = default_path(tmp_path / "games.sqlite3")
    assert path == tmp_path / "board-health.json"
    assert BoardHealth.load(path) is None  # nobody checked the board
    lay = Layout("brazilian")
    BoardHealth(8, {lay.cell_of(15)}, {lay.cell_of(22)}, "2026-11-26 07:00").save(path)
    assert json.loads(path.read_text())["sensors"] == [cell_name(lay.cell_of(15))]
    health = BoardHealth.load(path)
    assert health is not None and health.squares(lay) == ({15}, {22})
    assert health.squares(Layout("international")) == (set(), set())  # another board size: not this board


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "Expecting"),
        ('{"format": 9}', "not a board-health file of format 1"),
        ('{"format": 1, "size": 8, "sensors": ["z9"]}', "'z9' is not a cell"),
        ('{"format": 1, "size": 8, "leds": "a1"}', "sensors and leds must be lists of cells"),
        ('{"format": 1, "size": true}', "size must be a board size"),
    ],
)
def test_a_damaged_health_file_is_one_line_naming_it(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "board-health.json"
    path.write_text(text)
    with pytest.raises(HealthError) as err:
        BoardHealth.load(path)
    assert str(err.value).startswith(f"{path}: ") and why in str(err.value) and "\n" not in str(err.value)


def test_a_game_plays_around_a_sensor_the_selftest_found_broken(tmp_path: Path) -> None:
    """g5 (16) is known broken when the game starts: f6-g5 is recorded once White's reply
    lands, marked inferred, without naming the square again; a resumed game agrees."""
    store = Store(tmp_path / "g.sqlite3")
    try:
        start = Position.start("brazilian")
        session = GameSession.start(store, "brazilian", None, "casual", start.occupied(), {}, broken=[16])
        assert session.row.header["broken"] == [16]
        t = 1.0
        for key, occupied in [(22, False), (18, True), (11, False), (23, False), (19, True)]:
            session.feed(Transition(t, key, occupied))  # c3-d4, f6-g5 (g5 unseen), e3-f4
            t += 1.0
        session.tick(t + 5.0)
        moves = [str(m) for m in session.referee.game.move_stack]
        assert moves == ["22-18", "11-16", "23-19"] and session.referee.inferred == {2: 16}
        assert not [r for r in session.reports() if r.kind.value == "sensor"]  # known: not named again
        again = GameSession.resume(store, store.game(session.row.id))
        assert [str(m) for m in again.referee.game.move_stack] == moves and again.referee.suspects == {16}
    finally:
        store.close()


def test_the_simulated_board_takes_broken_sensors_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """DAMAS_SIMULATED_STUCK / _DEAD: a stuck sensor reads a piece on an empty square, a dead
    one reads nothing under a piece; a bad value is one line naming the variable."""
    from board_hal.config import ConfigError

    lay = Layout("brazilian")
    monkeypatch.setenv("DAMAS_SIMULATED_STUCK", "15")
    monkeypatch.setenv("DAMAS_SIMULATED_DEAD", " 22 , 23")
    board = SimulatedBoard(lay)
    seen = board.snapshot()
    assert lay.cell_of(15) in seen and lay.cell_of(22) not in seen and lay.cell_of(23) not in seen
    assert lay.cell_of(21) in seen
    monkeypatch.setenv("DAMAS_SIMULATED_DEAD", "e3")
    with pytest.raises(ConfigError, match=r"^DAMAS_SIMULATED_DEAD: square numbers separated by commas .*'e3'$"):
        SimulatedBoard(lay)
    monkeypatch.setenv("DAMAS_SIMULATED_DEAD", "33")
    with pytest.raises(ConfigError, match="no square 33"):
        SimulatedBoard(lay)
