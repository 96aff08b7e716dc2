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


def test_the_hall_and_the_live_feed_show_the_real_game_never_an_analysis_or_a_training(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """An analysis on the board and a tactic played while the board is linked to the hall: the
    hall's messages (as a subscriber to the board's topics gets them) and ``/live.pdn`` keep to the
    real game — the game kept aside during the analysis, no game in play during the training —
    and never carry the analysis' or the tactic's moves."""
    from damas.study.training import shipped_tactics
    from rules import Position
    from tests.app.test_analysis_board import study
    from tests.app.test_evening import hand_move
    from tests.hall.test_publish import Listener

    listener = Listener(mosquitto.port)
    board = Server(tmp_path / "board.sqlite3", "--broker", mosquitto.url, "--board-id", "5", "--variant", "brazilian")
    try:
        board.start()
        start = Position.start("brazilian")
        pos = hand_move(board, "c3-d4", start)
        game = board.get("/api/state")["game"]
        wait_until(lambda: any(m["game"] == game and m.get("type") == "move" for m in listener.msgs), timeout=10)
        # an analysis on the board from the game's position: a move made there
        study(board, op="open", ply=1)
        study(board, op="board", on=True)
        analysis = board.wait_for(lambda s: s["board_analysis"]["set_up"])["game"]
        assert analysis != game
        hand_move(board, "f6-g5", pos)
        live = board.get("/live.pdn")
        assert "f6-g5" not in live and "Analysis:" not in live and "c3-d4" in live.split("[Event", 2)[1]
        study(board, op="board", on=False)  # back: the game's position put back
        board.post("/api/sim", {"op": "fix"})
        board.wait_for(lambda s: not s["board_analysis"] or not s["board_analysis"].get("returning"))
        # a tactic: a training session, with the game in play left for it
        tactic = shipped_tactics("brazilian")[0]
        board.post("/api/action", {"action": "training", "op": "start", "kind": "tactic", "index": 0})
        training = board.wait_for(lambda s: s["training"]["on"])["game"]
        board.post("/api/sim", {"op": "fix"})
        there = Position.from_fen(tactic.fen, "brazilian")
        board.wait_for(lambda s: s["fen"] == there.fen() and s["active"] is None)
        hand_move(board, tactic.move, there)
        live = board.get("/live.pdn")
        assert "Training:" not in live and tactic.move not in live
        assert [h for h in live.splitlines() if h.startswith("[Event")][:1] == ['[Event "?"]']  # the game left
        wait_until(lambda: any(s.get("game", 0) is None for s in listener.status), timeout=10, what="no game in play")
        # the training stopped: the game again, played on; it reaches the hall (after anything sent before it)
        board.post("/api/action", {"action": "training", "op": "stop"})
        board.wait_for(lambda s: s["game"] == game and s["active"] is None)
        hand_move(board, "f6-g5", pos)
        wait_until(
            lambda: sum(1 for m in listener.msgs if m["game"] == game and m.get("type") == "move") == 2, timeout=10
        )
        assert {m["game"] for m in listener.msgs} == {game}, {m["game"] for m in listener.msgs}
        assert {s.get("game") for s in listener.status if s.get("online")} <= {game, None}
        assert analysis not in {s.get("game") for s in listener.status} and training != game
    finally:
        board.stop()
        listener.close()
