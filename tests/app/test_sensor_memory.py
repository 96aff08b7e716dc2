"""The sensors the referee names broken in play, kept for the next games and after a restart
(issue 31): the file beside the database, how a sensor is forgotten, and through ``damas play``."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from board_hal.health import FOUND_NAME, BoardHealth, FoundInPlay, HealthError
from board_hal.layout import Layout
from damas.board.sensor_memory import SensorMemory, forget_checked, load_found
from referee import MoveMade, Report, ReportKind
from rules import Position
from tests.app.server import Server, play_over_dead_g5
from tests.conftest import OUTPUT
from wording.page import UI

LAYOUT = Layout("brazilian")
START = Position.start("brazilian")


def _named(square: int) -> Report:
    return Report(ReportKind.SENSOR, (square,), "", 1.0, params={"square": square})


def _moved() -> MoveMade:
    move = next(iter(START.legal_moves))
    return MoveMade(1, move, START.pdn(move), 1.0)


def test_a_sensor_named_in_play_is_kept_beside_the_database_and_read_back(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    memory = SensorMemory.open(db, None)
    memory.saw([_named(15)], LAYOUT, START, set(START.occupied()) | {15}, settled=False)
    kept = json.loads((tmp_path / FOUND_NAME).read_text())
    assert kept["format"] == 1 and kept["size"] == 8 and list(kept["sensors"]) == ["e5"]
    again = SensorMemory.open(db, None)  # a restart
    assert again.broken(LAYOUT) == ({15}, set())
    assert [(r["name"], r["by"]) for r in again.listed(LAYOUT, START)] == [("e5", "play")]
    assert again.broken(Layout("international")) == (set(), set())  # another board size: not this board


def test_a_remembered_sensor_is_forgotten_once_it_reads_as_the_game_has_it(tmp_path: Path) -> None:
    """Only after it read a piece the game has there and read empty where the game has none, at
    moments the rest of the board matched, with no reading against the game: a stuck sensor
    that reads a piece where there is none is kept; a sensor that answers again is forgotten."""
    db = tmp_path / "games.sqlite3"
    FoundInPlay(8, {LAYOUT.cell_of(15): "2026-11-26 19:00", LAYOUT.cell_of(22): "2026-11-26 19:00"}).save(
        tmp_path / FOUND_NAME
    )
    memory = SensorMemory.open(db, None)
    board = set(START.occupied())
    # e5 (15) empty in the game, stuck: reads a piece; c3 (22) has its piece and reads it
    memory.saw([_moved()], LAYOUT, START, board | {15}, settled=True)
    assert memory.broken(LAYOUT)[0] == {15, 22}
    memory.saw([_moved()], LAYOUT, START, board | {15, 30}, settled=True)  # the board elsewhere is off: nothing weighed
    memory.saw([_moved()], LAYOUT, START, board | {15}, settled=False)  # (nor while something is under way)
    after = START.apply(next(m for m in START.legal_moves if m.from_square == 22))  # c3 moved away: empty
    memory.saw([_moved()], LAYOUT, after, set(after.occupied()) | {15}, settled=True)
    assert memory.broken(LAYOUT)[0] == {15}  # c3 read both ways as the game had it: forgotten
    assert memory.sound == [22]  # (the board loop tells the game's referee: it reads c3 again at once)
    later = after.apply(next(iter(after.legal_moves)))
    memory.saw([_moved()], LAYOUT, later, set(later.occupied()) | {15}, settled=True)
    assert memory.broken(LAYOUT)[0] == {15}  # e5 never read as the game had it
    assert list(json.loads((tmp_path / FOUND_NAME).read_text())["sensors"]) == ["e5"]


def test_repaired_forgets_the_sensor_in_either_file_and_the_self_test_forgets_what_it_checked(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite3"
    BoardHealth(8, {LAYOUT.cell_of(16)}, {LAYOUT.cell_of(29)}, "2026-11-26 07:00").save(tmp_path / "board-health.json")
    FoundInPlay(8, {LAYOUT.cell_of(15): "2026-11-26 19:00"}).save(tmp_path / FOUND_NAME)
    memory = SensorMemory.open(db, BoardHealth.load(tmp_path / "board-health.json"))
    assert memory.broken(LAYOUT) == ({15, 16}, {29})
    assert memory.forget(16, LAYOUT, "repaired")
    assert BoardHealth.load(tmp_path / "board-health.json") == BoardHealth(
        8, set(), {LAYOUT.cell_of(29)}, "2026-11-26 07:00"
    )
    assert memory.broken(LAYOUT) == ({15}, {29})
    assert forget_checked(tmp_path / "board-health.json", LAYOUT, {LAYOUT.cell_of(15)}) == [LAYOUT.cell_of(15)]
    assert load_found(db) == FoundInPlay(8, {})


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{", "Expecting property name"),
        ('{"format": 2, "size": 8, "sensors": {}}', "not a sensors-found file of format 1"),
        ('{"format": 1, "size": 8, "sensors": ["e5"]}', "sensors must map cells to when they were found"),
        ('{"format": 1, "size": 8, "sensors": {"z9": "x"}}', "'z9' is not a cell"),
        ('{"format": 1, "size": true, "sensors": {}}', "size must be a board size"),
    ],
)
def test_a_damaged_file_is_one_line_and_read_as_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str, why: str
) -> None:
    (tmp_path / FOUND_NAME).write_text(text)
    with pytest.raises(HealthError, match=why):
        FoundInPlay.load(tmp_path / FOUND_NAME)
    with caplog.at_level(logging.WARNING, logger="damas"):
        assert load_found(tmp_path / "games.sqlite3") is None
    (line,) = [r.getMessage() for r in caplog.records]
    assert FOUND_NAME in line and why in line and "\n" not in line
    memory = SensorMemory.open(tmp_path / "games.sqlite3", None)
    memory.remember(15, LAYOUT)  # the next finding writes the file again
    assert load_found(tmp_path / "games.sqlite3") == FoundInPlay(
        8, {LAYOUT.cell_of(15): memory.listed(LAYOUT, START)[0]["since"]}
    )


def test_a_stuck_sensor_named_in_one_game_does_not_stall_the_next_set_up(page: Any, tmp_path: Path) -> None:
    """e5's sensor is stuck closed (DAMAS_SIMULATED_STUCK). Game 1: the set-up stalls until the
    player says e5's sensor is broken; a new game plays around e5 from its start. After a
    restart, the next game's set-up (read from the sensors) is done at once, e5 played around
    (it used to stall again); the page lists e5, and "Repaired" clears it: after the next
    restart the set-up waits on e5 again, as a stuck sensor makes it."""
    from playwright.sync_api import expect

    db = tmp_path / "g.sqlite3"
    env = {"DAMAS_SIMULATED_STUCK": "15"}
    server = Server(db, env=env).start()
    try:
        server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "setup")
        server.post("/api/action", {"action": "confirm", "square": 15})
        state = server.wait_for(lambda s: s["sensors"] == [15] and s["active"] is None)
        assert [(r["name"], r["by"]) for r in state["remembered"]] == [("e5", "play")]
        assert list(json.loads((tmp_path / FOUND_NAME).read_text())["sensors"]) == ["e5"]
        server.post("/api/action", {"action": "new-game"})
        state = server.wait_for(lambda s: s["game"] == 2)
        assert state["sensors"] == [15]  # played around from the start (used to be found again)
        server.post("/api/action", {"action": "resign", "side": "white"})
        server.wait_for(lambda s: s["result"] is not None and s["result"] != "*")
    finally:
        server.stop()
    server = Server(db, env=env).start()  # a restart: a new game, set up as the sensors read
    try:
        state = server.wait_for(lambda s: s["game"] == 3)
        assert state["active"] is None and state["sensors"] == [15]
        assert [r["kind"] for r in state["reports"]] == ["setup-ok"] or "setup" not in [
            r["kind"] for r in state["reports"]
        ]
        page.goto(server.url)
        box = page.locator("#remembered")
        expect(box).to_contain_text("e5 (found in play")
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "sensor-remembered.png"))
        box.get_by_role("button", name="Repaired").click()
        server.wait_for(lambda s: s["remembered"] == [])
        expect(box).to_be_hidden()
        assert json.loads((tmp_path / FOUND_NAME).read_text())["sensors"] == {}
        server.post("/api/action", {"action": "resign", "side": "white"})
        server.wait_for(lambda s: s["result"] is not None and s["result"] != "*")
    finally:
        server.stop()
    assert "sensors found broken in play, played around: e5 since" in server.output
    server = Server(db, env=env).start()
    try:
        state = server.wait_for(lambda s: s["game"] == 4 and s["active"] is not None)
        assert state["active"]["kind"] == "setup" and state["sensors"] == []  # e5 is read again
    finally:
        server.stop()


def test_a_role_a_dark_led_cannot_show_is_shown_on_the_page_in_its_place(page: Any, tmp_path: Path) -> None:
    """Issue 31 item 3: the self-test found c3's LED dark (board-health.json). A lift of c3 gives
    it the ``from`` role, which the board cannot show: the page shows it on c3, marked as one
    the board cannot light, and says so to a screen reader; a wrong move's report names its
    squares (put back on c3), never a light."""
    from playwright.sync_api import expect

    BoardHealth(8, set(), {LAYOUT.cell_of(22)}, "2026-11-26 07:00").save(tmp_path / "board-health.json")
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        page.goto(server.url)
        server.sim("lift", 22)  # c3
        state = server.wait_for(lambda s: s["leds"].get("22") == "from")
        assert state["dead_leds"] == [22]
        c3 = page.locator('[data-square="22"]')
        expect(c3.locator(".led.from.dark")).to_have_count(1)
        expect(c3).to_have_attribute("aria-label", re.compile(re.escape(UI["en"]["led_dark"])))
        expect(page.locator('[data-square="23"] .led.dark')).to_have_count(0)  # e3's LED lights: not marked
        server.sim("place", 14)  # c3 to c5: not a move
        state = server.wait_for(lambda s: s["active"] is not None)
        assert "c3" in state["active"]["message"] and "lit" not in state["active"]["message"]
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "dead-led-role.png"))
    finally:
        server.stop()


def test_a_resumed_game_reads_again_a_sensor_the_selftest_found_sound_since(tmp_path: Path) -> None:
    """The self-test found g5's sensor broken: game 1 plays around it. The service stops, the
    self-test runs again and finds g5 sound (board-health.json rewritten), and game 1 is resumed:
    it reads g5 again at once (it used to play around it to its end), journaled, so a second
    resume agrees; the moves recorded keep their marks."""
    db = tmp_path / "g.sqlite3"
    BoardHealth(8, {LAYOUT.cell_of(16)}, set(), "2026-11-26 07:00").save(tmp_path / "board-health.json")
    server = Server(db).start()
    try:
        state = play_over_dead_g5(server)
        assert state["sensors"] == [16] and state["moves"][1]["inferred"] == "g5"
    finally:
        server.stop()
    BoardHealth(8, set(), set(), "2026-11-26 08:00").save(tmp_path / "board-health.json")  # sound now
    for _ in range(2):  # resumed, and resumed again (the journal's sensor-repaired replayed)
        server = Server(db, "--resume").start()
        try:
            state = server.wait_for(lambda s: len(s["moves"]) == 3)
            assert state["game"] == 1 and state["sensors"] == [] and state["moves"][1]["inferred"] == "g5"
        finally:
            server.stop()
    journal = (tmp_path / "g.sqlite3.journals" / "1.jsonl").read_text().splitlines()
    assert [json.loads(x)["square"] for x in journal if '"sensor-repaired"' in x] == [16]
