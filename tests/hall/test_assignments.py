"""A board's next game on the broker (issue 29): the assignment is retained while the game is to
be played, and cleared once it has its result or its round is taken back — so a board restarted
between rounds finds nothing to start an empty game from (16 empty games of the round before, as
the issue saw them)."""

from __future__ import annotations

import json
import shutil
import threading
import urllib.error
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from hall.broker import Mosquitto
from hall.protocol import Broker, new_client
from tests.app.server import Server
from tests.conftest import wait_until
from tests.hall.conftest import HallProcess


def retained(port: int, topic: str) -> dict[str, object] | None:
    """What a board that starts now finds retained on the topic (None: nothing)."""
    got: list[bytes] = []
    arrived = threading.Event()

    def message(_c: object, _u: object, m: mqtt.MQTTMessage) -> None:
        if m.retain:
            got.append(bytes(m.payload))
            arrived.set()

    c = new_client(Broker("127.0.0.1", port), "restarted-board")
    c.on_connect = lambda cl, *_a: cl.subscribe(topic, 1)
    c.on_message = message
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        arrived.wait(1.5)  # (the broker sends what it retains right after the subscription)
    finally:
        c.disconnect()
        c.loop_stop()
    return json.loads(got[0]) if got and got[0] else None


def test_a_finished_or_taken_back_game_leaves_no_assignment_on_the_broker(tmp_path: Path, mosquitto: Mosquitto) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--rounds", "3").start()
    try:
        hall.post("/api/players", {"csv": "name\nAna\nBia\nCid\nDui\n"})
        hall.post("/api/pair", {"boards": ["7", "8"]})
        wait_until(lambda: hall.get("/api/state")["connected"], timeout=10, what="the hall on the broker")
        wait_until(lambda: retained(mosquitto.port, "damas/control/7/assign") is not None, timeout=10,
                   what="board 7's assignment")  # fmt: skip
        first = retained(mosquitto.port, "damas/control/7/assign")
        assert first is not None and first["round"] == 1 and first["table"] == 1
        hall.post("/api/result", {"round": 1, "table": 1, "result": "2-0"})
        wait_until(lambda: retained(mosquitto.port, "damas/control/7/assign") is None, timeout=10,
                   what="board 7's assignment cleared")  # fmt: skip
        assert retained(mosquitto.port, "damas/control/8/assign") is not None  # (table 2 still to be played)
        hall.post("/api/result", {"round": 1, "table": 2, "result": "1-1"})
        hall.post("/api/pair", {"boards": ["7", "8"]})
        wait_until(lambda: retained(mosquitto.port, "damas/control/8/assign") is not None, timeout=10,
                   what="round 2 on board 8")  # fmt: skip
        hall.post("/api/unpair", {"round": 2})  # taken back before the games began
        wait_until(lambda: retained(mosquitto.port, "damas/control/8/assign") is None, timeout=10,
                   what="round 2's assignment cleared")  # fmt: skip
    finally:
        hall.stop()


def _board(tmp_path: Path, url: str) -> Server:
    return Server(tmp_path / "board.sqlite3", "--broker", url, "--board-id", "9", "--variant", "brazilian")


def _missing(board: Server, path: str) -> bool:
    try:
        board.get(path)
    except urllib.error.HTTPError as exc:
        return exc.code == 404
    return False


def test_a_board_restarted_mid_assignment_resumes_the_round_s_game_and_starts_no_other(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--event", "Open").start()
    board = _board(tmp_path, mosquitto.url)
    try:
        board.start()
        hall.post("/api/players", {"csv": "name,rating\nAna,1800\nBia,1700\n"})
        hall.post("/api/pair", {"boards": ["9"]})
        state = board.wait_for(lambda s: s["tags"].get("Round") == "1", timeout=10)  # taken by the empty game
        assert state["game"] == 1 and {state["tags"]["White"], state["tags"]["Black"]} == {"Ana", "Bia"}
        board.move(22, 18)
        wait_until(lambda: hall.get_text("/games/9-1.pdn") == board.get("/games/1.pdn"), timeout=10,
                   what="the round's game at the hall")  # fmt: skip
        board.kill()  # the power goes mid-game; the assignment is still retained on the broker
        assert retained(mosquitto.port, "damas/control/9/assign") is not None
        board.start("--resume")
        board.move(9, 13)  # (the board is back: its assignment came again meanwhile, and was this game)
        state = board.wait_for(lambda s: len(s["moves"]) == 2, timeout=10)
        assert state["game"] == 1 and state["tags"]["Round"] == "1"  # the same game, no empty one
        assert _missing(board, "/games/2.pdn")
        wait_until(lambda: hall.get_text("/games/9-1.pdn") == board.get("/games/1.pdn"), timeout=10,
                   what="the resumed game at the hall")  # fmt: skip
        assert hall.get_text("/round/1.pdn") == hall.get_text("/games/9-1.pdn")  # the pairing's game
        assert [b["board"] for b in hall.get("/api/state")["boards"]] == ["9"]
    finally:
        board.stop()
        hall.stop()


def test_an_assignment_for_a_board_in_a_game_waits_for_its_end_and_one_taken_back_meanwhile_is_dropped(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--rounds", "3").start()
    board = _board(tmp_path, mosquitto.url)
    try:
        board.start()
        board.move(22, 18)  # a casual game in play
        hall.post("/api/players", {"csv": "name,rating\nAna,1800\nBia,1700\n"})
        hall.post("/api/pair", {"boards": ["9"]})
        wait_until(lambda: retained(mosquitto.port, "damas/control/9/assign") is not None, timeout=10,
                   what="round 1's assignment")  # fmt: skip
        state = board.move(9, 13)  # (the board has the assignment by now; the game goes on)
        assert "Round" not in state["tags"]  # the game in play keeps its players: the assignment waits
        hall.post("/api/unpair", {"round": 1})  # the round taken back before the game ended
        wait_until(lambda: retained(mosquitto.port, "damas/control/9/assign") is None, timeout=10,
                   what="the assignment cleared")  # fmt: skip
        board.post("/api/action", {"action": "resign", "side": "white"})
        wait_until(lambda: "[Result \"0-" in hall.get_text("/games/9-1.pdn"), timeout=10,
                   what="the result at the hall")  # fmt: skip
        state = board.get("/api/state")
        assert state["game"] == 1 and "Round" not in state["tags"]  # no game from the round taken back
        hall.post("/api/pair", {"boards": ["9"]})  # paired again: now the board is free
        state = board.wait_for(lambda s: s["game"] == 2 and s["tags"].get("Round") == "1", timeout=10)
        assert {state["tags"]["White"], state["tags"]["Black"]} == {"Ana", "Bia"}
    finally:
        board.stop()
        hall.stop()


def clear(port: int, board: str) -> None:
    """A board's retained assignment cleared by another client."""
    c = new_client(Broker("127.0.0.1", port), "broker-admin")
    c.connect("127.0.0.1", port)
    c.loop_start()
    c.publish(f"damas/control/{board}/assign", b"", qos=1, retain=True).wait_for_publish(5)
    c.disconnect()
    c.loop_stop()


def test_a_hall_restarted_with_assignments_pending_publishes_them_again_and_clears_stale_ones(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    db = tmp_path / "hall.sqlite3"
    hall = HallProcess(db, mosquitto.url, "--rounds", "3").start()

    def assigned(board: str) -> dict[str, object] | None:
        return retained(mosquitto.port, f"damas/control/{board}/assign")

    try:
        hall.post("/api/players", {"csv": "name\nAna\nBia\nCid\nDui\n"})
        hall.post("/api/pair", {"boards": ["7", "8"]})
        wait_until(lambda: assigned("8") is not None, timeout=10, what="round 1's assignments")
        for table in (1, 2):
            hall.post("/api/result", {"round": 1, "table": table, "result": "2-0"})
        wait_until(lambda: assigned("7") is None and assigned("8") is None, timeout=10, what="round 1 cleared")
        hall.stop()
        backup = tmp_path / "backup"
        backup.mkdir()
        for f in tmp_path.glob("hall.sqlite3*"):  # (the organiser's copy of the hall after round 1)
            shutil.copy(f, backup / f.name)
        hall.start()
        hall.post("/api/pair", {"boards": ["7", "8"]})
        wait_until(lambda: assigned("7") is not None and assigned("8") is not None, timeout=10, what="round 2's")
        pending = assigned("8")
        hall.post("/api/result", {"round": 2, "table": 1, "result": "1-1"})
        wait_until(lambda: assigned("7") is None, timeout=10, what="board 7's assignment cleared")
        hall.stop()  # board 8's game still to be played; and while the hall is down its retained
        clear(mosquitto.port, "8")  # assignment is lost
        assert assigned("8") is None
        hall.start()  # the hall restarted with board 8's assignment pending: published again
        wait_until(lambda: assigned("8") == pending, timeout=10, what="board 8's pending assignment again")
        assert assigned("7") is None
        clear(mosquitto.port, "8")  # someone clears it while the hall listens: put back, reported
        wait_until(lambda: assigned("8") == pending, timeout=10, what="board 8's assignment put back")
        assert [a["board"] for a in hall.get("/api/state")["alerts"] if a["kind"] == "assignment"] == ["8"]
        hall.stop()
        for f in tmp_path.glob("hall.sqlite3*"):
            f.unlink()
        for f in backup.iterdir():  # the organiser restores the copy from before round 2
            shutil.copy(f, tmp_path / f.name)
        hall.start()  # round 2's assignment on the broker is no game of this hall's (a board would start it)
        wait_until(lambda: assigned("8") is None, timeout=10, what="the stale assignment cleared")
        alerts = [a for a in hall.get("/api/state")["alerts"] if a["kind"] == "assignment"]
        assert alerts == []  # (the hall's own, left over: put right without alarming the arbiter)
    finally:
        hall.stop()


def test_an_assignment_during_a_training_is_shown_and_taken_by_the_game_it_left(
    browser: Any, tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """The hall pairs the board while a tactic is trained on it: the training goes on, never takes
    the round's names; the page shows the round waiting ("stop the training to start it") and the
    game the training left as kept aside (not "left unfinished"); stopping the training plays on
    that game, which takes the round (it had no move yet)."""
    from playwright.sync_api import expect

    from tests.app.test_browser_page import opened, shot

    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--rounds", "3", "--event", "Open").start()
    board = _board(tmp_path, mosquitto.url)
    try:
        board.start()
        game = board.get("/api/state")["game"]
        board.post("/api/action", {"action": "training", "op": "start", "kind": "tactic", "index": 0})
        training = board.wait_for(lambda s: s["training"]["on"])["game"]
        hall.post("/api/players", {"csv": "name,rating\nAna,1800\nBia,1700\n"})
        hall.post("/api/pair", {"boards": ["9"]})
        state = board.wait_for(lambda s: s["assignment"] is not None, timeout=10)
        text = state["assignment"]["text"]
        assert text.startswith("Round 1 assigned: ") and text.endswith(" — stop the training to start it"), text
        assert state["training"]["on"] and state["game"] == training
        assert "Round" not in state["tags"] and state["tags"]["Event"].startswith("Training:")
        (left,) = [g for g in state["games"] if g["id"] == game]
        assert left["state"] == "aside" and not left["resumable"]
        assert left["state_text"] == "kept aside for the training (stop it to play on)"
        with opened(browser, f"{board.url}/?lang=en") as page:
            expect(page.locator("#assigned")).to_have_text(text)
            expect(page.locator(f'#recent li[data-game="{game}"]')).to_contain_text("kept aside for the training")
            shot(page, "assignment-during-training")
        board.post("/api/action", {"action": "training", "op": "stop"})
        state = board.wait_for(lambda s: s["game"] == game and s["tags"].get("Round") == "1", timeout=10)
        assert not state["training"]["on"] and state["assignment"] is None
        assert {state["tags"]["White"], state["tags"]["Black"]} == {"Ana", "Bia"}
        assert state["tags"]["Event"] == "Open"
    finally:
        board.stop()
        hall.stop()


def test_an_assignment_during_a_training_with_no_game_to_go_back_to_starts_the_round_when_it_stops(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--rounds", "3").start()
    board = _board(tmp_path, mosquitto.url)
    try:
        board.start()
        board.move(22, 18)
        board.post("/api/action", {"action": "resign", "side": "black"})  # the game in play is over
        finished = board.wait_for(lambda s: s["result"] != "*")["game"]
        board.post("/api/action", {"action": "training", "op": "start", "kind": "game", "index": 0})
        training = board.wait_for(lambda s: s["training"]["on"])["game"]
        hall.post("/api/players", {"csv": "name,rating\nAna,1800\nBia,1700\n"})
        hall.post("/api/pair", {"boards": ["9"]})
        state = board.wait_for(lambda s: s["assignment"] is not None, timeout=10)
        assert state["game"] == training and "Round" not in state["tags"]
        board.post("/api/action", {"action": "training", "op": "stop"})  # no game left for it: a new one
        state = board.wait_for(lambda s: s["tags"].get("Round") == "1", timeout=10)
        assert state["game"] not in (training, finished) and state["purpose"] is None and not state["moves"]
        assert state["assignment"] is None and not state["training"]["on"]
    finally:
        board.stop()
        hall.stop()


def test_an_assignment_during_an_analysis_on_the_board_waits_for_it_then_for_the_game(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """Paired while the board analyses a position of the game in play: the analysis' session never
    takes the round; the page says to leave the analysis, then (the game back, with a move) that
    the round starts when the game is over; it does, once the game ends."""
    from tests.app.test_analysis_board import study

    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--rounds", "3").start()
    board = _board(tmp_path, mosquitto.url)
    try:
        board.start()
        game = board.move(22, 18)["game"]
        study(board, op="open", ply=1)
        study(board, op="board", on=True)
        board.post("/api/sim", {"op": "fix"})
        analysis = board.wait_for(lambda s: s["board_analysis"] is not None and s["board_analysis"]["set_up"])["game"]
        hall.post("/api/players", {"csv": "name,rating\nAna,1800\nBia,1700\n"})
        hall.post("/api/pair", {"boards": ["9"]})
        state = board.wait_for(lambda s: s["assignment"] is not None, timeout=10)
        assert state["assignment"]["text"].endswith(" — leave the analysis on the board to start it")
        assert state["game"] == analysis and "Round" not in state["tags"]
        study(board, op="board", on=False)
        board.post("/api/sim", {"op": "fix"})
        state = board.wait_for(lambda s: s["game"] == game and s["board_analysis"] is None, timeout=10)
        assert state["assignment"]["text"].endswith(" — it starts when this game is over")
        assert "Round" not in state["tags"]
        board.post("/api/action", {"action": "resign", "side": "black"})
        state = board.wait_for(lambda s: s["tags"].get("Round") == "1", timeout=10)
        assert state["game"] not in (game, analysis) and state["assignment"] is None
    finally:
        board.stop()
        hall.stop()
