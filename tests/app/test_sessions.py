"""A training or an analysis on the board is not a game (issue 28): the page's list of games
leaves it out, and a restart during one never resumes it as the game in play — the board
starts a new game, and the session is kept whole, closed as interrupted (a real process, killed)."""

from __future__ import annotations

from pathlib import Path

from damas.records.store import INTERRUPTED, TRAINING, Store
from tests.app.server import Server


def test_a_restart_during_a_training_starts_a_game_not_the_training(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server = Server(db).start()
    try:
        first = server.get("/api/state")["game"]
        server.post("/api/action", {"action": "training", "op": "start", "kind": "game", "index": 0})
        state = server.wait_for(lambda s: s["training"] is not None and s["training"].get("on"))
        training = state["game"]
        assert training != first and state["purpose"] == TRAINING
        assert [g["id"] for g in state["games"]] == [first]  # the page lists the game, not the session
        server.kill()  # the power goes during the training
    finally:
        if server.proc is not None:
            server.stop()
    again = Server(db, "--resume").start()
    try:
        state = again.get("/api/state")
        assert state["game"] not in (first, training) and state["purpose"] is None
        assert state["moves"] == [] and not (state["training"] or {}).get("on")
        assert [g["id"] for g in state["games"]] == [first]
        assert "session on the board, not a game" in again.output
    finally:
        again.stop()
    with Store(db, create=False) as store:
        row = store.game(training)
        assert row.purpose == TRAINING and row.state == INTERRUPTED
