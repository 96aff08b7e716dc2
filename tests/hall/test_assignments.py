"""A board's next game on the broker (issue 29): the assignment is retained while the game is to
be played, and cleared once it has its result or its round is taken back — so a board restarted
between rounds finds nothing to start an empty game from (16 empty games of the round before, as
the issue saw them)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import paho.mqtt.client as mqtt

from hall.broker import Mosquitto
from hall.protocol import Broker, new_client
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
