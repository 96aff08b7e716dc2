"""Leaving a training on the board (issue 28), through the HTTP API on the simulated board:
"Stop training" plays on the game that was in play when the training began (unfinished, as it
was); a new game after a training is named by the player, never after the training."""

from __future__ import annotations

from pathlib import Path

from rules import Position
from tests.app.server import Server
from tests.app.test_evening import hand_move
from tests.conftest import damas

VARIANT = "brazilian"


def test_stopping_a_training_plays_on_the_game_and_a_new_game_is_not_named_after_it(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        server.post("/api/action", {"action": "new-game", "tags": {"White": "Ana", "Black": "Bia"}})
        server.wait_for(lambda s: s["tags"].get("White") == "Ana")
        pos = hand_move(server, "c3-d4", Position.start(VARIANT))
        game = server.get("/api/state")["game"]
        server.post("/api/action", {"action": "training", "op": "start", "kind": "tactic", "index": 0})
        state = server.wait_for(lambda s: s["training"]["on"])
        assert state["game"] != game and state["tags"]["Event"] == "Training: 1/24"
        # the recent games: the game left for the training is kept aside, not left unfinished
        (left,) = [g for g in state["games"] if g["id"] == game]
        assert left["state"] == "aside" and not left["resumable"]
        lang = server.get("/api/state?lang=pt-BR")
        (left,) = [g for g in lang["games"] if g["id"] == game]
        assert left["state_text"] == "deixada de lado durante o treino (pare o treino para continuar)"
        # so does damas games, from the training session's header (it used to say "abandoned")
        training = state["game"]
        r = damas("games", "--db", str(tmp_path / "g.sqlite3"))
        assert r.returncode == 0, r.stderr
        (line,) = [x for x in r.stdout.splitlines() if x.split()[0] == str(game)]
        assert line.endswith(f"kept aside for the training (session {training}; stop it to play on)"), line
        # stop: the game again, its move and players, the board set up for it
        server.post("/api/action", {"action": "training", "op": "stop"})
        state = server.wait_for(lambda s: s["game"] == game)
        assert not state["training"]["on"] and state["fen"] == pos.fen() and state["purpose"] is None
        assert [m["pdn"] for m in state["moves"]] == ["c3-d4"]
        assert (state["tags"]["White"], state["tags"]["Black"]) == ("Ana", "Bia")
        hand_move(server, "f6-g5", pos)  # and it plays on
        r = damas("games", "--db", str(tmp_path / "g.sqlite3"))
        assert next(x for x in r.stdout.splitlines() if x.split()[0] == str(game)).endswith("in play")
        # a master game replayed, then a new game: not named after the training or its players
        server.post("/api/action", {"action": "training", "op": "start", "kind": "game", "index": 0})
        master = server.wait_for(lambda s: s["training"]["on"])["tags"]
        assert master["White"] not in ("?", "Ana")
        server.post("/api/action", {"action": "new-game"})
        state = server.wait_for(lambda s: not s["training"]["on"] and s["purpose"] is None)
        assert state["tags"].get("Event", "?") == "?" and state["tags"].get("White", "?") == "?", state["tags"]
    finally:
        server.stop()
