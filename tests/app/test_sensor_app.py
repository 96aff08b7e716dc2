"""A board with a sensor that does not answer (issue 31), through ``damas play``: the page asks
which move was played, the player's answer is journalled and recorded, the move is marked."""

from __future__ import annotations

import urllib.error
from pathlib import Path

import pytest

from board_hal.health import BoardHealth
from board_hal.layout import Layout
from tests.app.server import Server


def test_the_page_confirms_a_move_the_board_cannot_tell_and_the_move_is_marked(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        server.sim("place", 17)  # a3-b4, a3's sensor dead: b4 fills, no lift seen (c3-b4 alike)
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "sensor-confirm")
        confirm = state["active"]["confirm"]
        assert sorted((m["text"], m["move"]) for m in confirm["moves"]) == [("a3-b4", "21-17"), ("c3-b4", "22-17")]
        pt = server.get("/api/state?lang=pt-BR")["active"]
        assert pt["message"].startswith("O sensor de a3, c3 pode não estar respondendo")
        with pytest.raises(urllib.error.HTTPError) as bad:
            server.post("/api/action", {"action": "confirm", "move": "a3 to b4"})
        assert bad.value.code == 400
        bad.value.close()
        server.post("/api/action", {"action": "confirm", "move": "21-17"})
        state = server.wait_for(lambda s: len(s["moves"]) == 1)
        assert state["moves"][0]["pdn"] == "a3-b4" and state["moves"][0]["inferred"] == "a3"
        assert state["sensors"] == [21]
        assert [r["kind"] for r in state["reports"]][-1] == "sensor"
        state = server.move(11, 15)  # f6-e5: the game goes on
        assert state["leds"]["21"] == "sensor"  # a3 lit as the square whose sensor does not answer
        assert "{inferred: the sensor under a3 did not answer}" in server.get("/games/1.pdn")
    finally:
        server.stop()
    # the answer is in the journal: the game replays to the same record
    again = Server(tmp_path / "g.sqlite3", "--resume").start()
    try:
        state = again.wait_for(lambda s: len(s["moves"]) == 2)
        assert [m["pdn"] for m in state["moves"]] == ["a3-b4", "f6-e5"] and state["sensors"] == [21]
    finally:
        again.stop()


def test_what_the_selftest_found_broken_is_played_around_and_shown(tmp_path: Path) -> None:
    """board-health.json beside the database (damas selftest's): e5's sensor and a1's LED are
    broken. The game knows e5 from the start (a move there is read without naming it again),
    and the page marks a1's role as one the board cannot light."""
    lay = Layout("brazilian")
    BoardHealth(8, {lay.cell_of(16)}, {lay.cell_of(29)}, "2026-11-26 07:00").save(tmp_path / "board-health.json")
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        state = server.get("/api/state")
        assert state["sensors"] == [16] and state["dead_leds"] == [29]
        server.move(22, 18)  # c3-d4
        server.sim("lift", 11)  # f6-g5: g5 shows nothing
        server.wait_for(lambda s: s["leds"].get("11") == "from")
        server.sim("lift", 23)  # e3-f4: the reply lands, f6-g5 is read
        server.wait_for(lambda s: "11" not in s["leds"])
        server.sim("place", 19)
        state = server.wait_for(lambda s: len(s["moves"]) == 3)
        assert [m["pdn"] for m in state["moves"]] == ["c3-d4", "f6-g5", "e3-f4"]
        assert state["moves"][1]["inferred"] == "g5"
        assert "sensor" not in [r["kind"] for r in state["reports"]]  # known already: not named again
    finally:
        server.stop()
    assert "the self-test of 2026-11-26 07:00 found the sensors at g5 and the LEDs at a1 broken" in server.output
    (tmp_path / "board-health.json").write_text("{")
    server = Server(tmp_path / "g2.sqlite3").start()
    try:
        assert server.get("/api/state")["sensors"] == []
    finally:
        server.stop()
    assert "board-health.json: Expecting" in server.output and "ignored (run damas selftest again)" in server.output
