"""``damas play --broker --board-id`` as a user runs it: the board's games reach the hall, the
hall's pairing reaches the board (players, colours, round), and a board that was killed resumes
its game and its numbering."""

from __future__ import annotations

from pathlib import Path

from hall.broker import Mosquitto
from tests.app.server import Server
from tests.conftest import wait_until
from tests.hall.conftest import HallProcess


def test_damas_play_publishes_to_the_hall_and_takes_its_pairing(tmp_path: Path, mosquitto: Mosquitto) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--event", "Club open").start()
    board = Server(tmp_path / "board.sqlite3", "--broker", mosquitto.url, "--board-id", "9", "--variant", "brazilian")
    try:
        board.start()

        def same() -> bool:
            try:
                return bool(hall.get("/games/9-1.pdn") == board.get("/games/1.pdn"))
            except OSError:
                return False

        board.move(22, 18)  # (Brazilian square numbers: c3-d4)
        wait_until(same, timeout=10, what="the hall to have the board's game")
        # the arbiter pairs a round onto board 9: the board's game (in play) waits; a new one takes it
        hall.post("/api/players", {"csv": "name,rating\nAna,1800\nBia,1700\n"})
        hall.post("/api/pair", {"boards": ["9"]})
        board.kill()  # (the power goes: the board restarts and resumes its game)
        board.start("--resume")
        board.move(9, 13)
        wait_until(same, timeout=10, what="the hall to have the resumed game")
        assert "Ana" not in board.get("/games/1.pdn")  # a game in play keeps its players
        board.post("/api/action", {"action": "resign", "side": "white"})
        state = board.wait_for(lambda s: s["game"] == 2 and s["tags"].get("Round") == "1", timeout=10)
        assert {state["tags"]["White"], state["tags"]["Black"]} == {"Ana", "Bia"}
        assert state["tags"]["Event"] == "Club open"
        wait_until(lambda: "Ana" in hall.get("/live.pdn"), timeout=10, what="the round's game in /live.pdn")
        assert hall.get("/live.pdn") == hall.get("/round/1.pdn")
        assert '[Round "1"]' in hall.get("/live.pdn")
        wait_until(same, timeout=10, what="the finished game at the hall")
        # a finished game's record corrected on the board: the hall's copy follows
        board.post("/api/games/1/tags", {"tags": {"Site": "Recife"}, "result": "1/2-1/2"})
        assert '[Site "Recife"]' in board.get("/games/1.pdn")
        wait_until(same, timeout=10, what="the correction at the hall")
        assert '[Result "1/2-1/2"]' in hall.get("/games/9-1.pdn")
    finally:
        board.stop()
        hall.stop()
