"""A board with a sensor that does not answer (issue 31), through ``damas play``: the page asks
which move was played, the player's answer is journalled and recorded, the move is marked."""

from __future__ import annotations

import urllib.error
from pathlib import Path

import pytest

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
