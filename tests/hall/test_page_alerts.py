"""The arbiter's buttons on the hall page's alerts (issue 29): trouble the hall counted (a refused
message) shows its count, the arbiter resyncs the board from the page (the hall asks the board for
its game again on the broker, with a resync mark) and dismisses the alert; a spectator sees the
alert without buttons."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from hall.broker import Mosquitto
from hall.protocol import Broker, new_client
from tests.conftest import wait_until
from tests.hall.conftest import HallProcess


class Board7:
    """Board 7 as the broker sees it: its messages, and what the hall asks of it."""

    def __init__(self, port: int) -> None:
        self.asked: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        ready = threading.Event()
        self.c = new_client(Broker("127.0.0.1", port), "board-7")
        self.c.on_connect = lambda c, *_a: c.subscribe("damas/control/7", 1)
        self.c.on_subscribe = lambda *_a: ready.set()
        self.c.on_message = self._got
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert ready.wait(10)

    def _got(self, _c: object, _u: object, m: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.asked.append(json.loads(m.payload))

    def send(self, data: dict[str, Any]) -> None:
        self.c.publish("damas/board/7/game", json.dumps(data), qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_the_arbiter_resyncs_a_board_and_dismisses_its_alert_from_the_page(
    tmp_path: Path, mosquitto: Mosquitto, page: Any
) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url).start()
    board = Board7(mosquitto.port)
    try:
        start = {"board": "7", "game": 3, "seq": 0, "type": "start", "variant": "brazilian", "tags": {"White": "Ana"}}
        board.send(start)
        for _ in range(2):  # a move that is no move, twice: one alert, counted
            board.send({"board": "7", "game": 3, "seq": 1, "type": "move", "step": 0, "path": "zz-99"})
        page.goto(hall.url + "/")  # a spectator: the alert, no buttons
        alert = page.locator('.alert.refused[data-board="7"]')
        alert.wait_for()
        wait_until(lambda: "×2" in alert.inner_text(), timeout=10, what="the alert's count")
        assert "board 7: a message was refused" in alert.inner_text()
        assert not alert.locator("button").first.is_visible()

        page.goto(hall.url + f"/?token={hall.token}")
        alert.locator('button[data-alert="resync"]').wait_for()
        alert.locator('button[data-alert="resync"]').click()

        def resync() -> dict[str, Any] | None:
            with board.lock:
                return next((a for a in board.asked if a.get("resync")), None)

        wait_until(lambda: resync() is not None, timeout=10, what="the hall to ask board 7 for its games again")
        asked = resync()
        assert asked is not None and asked["resend"] == 3 and asked["from"] == 0
        alert.locator('button[data-alert="dismiss"]').click()
        alert.wait_for(state="detached", timeout=10000)
        assert not any(a["kind"] == "refused" for a in hall.get("/api/state")["alerts"])
    finally:
        board.close()
        hall.stop()
