"""The production broker setup shipped in hall/ (password file + ACL): a board cannot publish as
another board, nor read another board's control topic; the hall reads every board."""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from hall.broker import Mosquitto
from hall.protocol import Broker, new_client
from tests.conftest import ROOT, wait_until

ACL = ROOT / "hall" / "mosquitto.acl"


def _passwd(path: Path, users: dict[str, str]) -> None:
    exe = shutil.which("mosquitto_passwd")
    if exe is None:
        pytest.skip("mosquitto_passwd is not installed (Debian's mosquitto package has it)")
    for i, (user, password) in enumerate(users.items()):
        subprocess.run([exe, *(["-c"] if i == 0 else []), "-b", str(path), user, password], check=True)


class Client:
    def __init__(self, port: int, user: str, password: str) -> None:
        self.got: list[tuple[str, bytes]] = []
        self.ready = threading.Event()
        self.refused: object = None
        self.c = new_client(Broker("127.0.0.1", port, username=user, password=password), f"test-{user}")
        self.c.on_connect = self._on_connect
        self.c.on_message = lambda _c, _u, m: self.got.append((m.topic, bytes(m.payload)))
        self.c.on_subscribe = lambda *_a: self.ready.set()
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()

    def _on_connect(self, _c: mqtt.Client, _u: object, _f: object, reason: object, _p: object) -> None:
        if getattr(reason, "is_failure", False):
            self.refused = reason

    def subscribe(self, topic: str) -> None:
        self.ready.clear()
        self.c.subscribe(topic, 1)
        assert self.ready.wait(5)

    def publish(self, topic: str, data: dict[str, object]) -> None:
        self.c.publish(topic, json.dumps(data), qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def test_a_board_cannot_publish_as_another_board(tmp_path: Path, mosquitto: Mosquitto) -> None:
    passwd = tmp_path / "passwd"
    _passwd(passwd, {"hall": "h-secret", "7": "secret-7", "8": "secret-8"})
    mosquitto.stop()
    mosquitto.extra = f"allow_anonymous false\npassword_file {passwd}\nacl_file {ACL}\n"
    mosquitto.start()
    hall = Client(mosquitto.port, "hall", "h-secret")
    b7 = Client(mosquitto.port, "7", "secret-7")
    b8 = Client(mosquitto.port, "8", "secret-8")
    try:
        hall.subscribe("damas/board/#")
        b8.subscribe("damas/control/#")  # board 8 tries to listen to every board's control topic
        b7.subscribe("damas/board/#")  # board 7 tries to read the other boards
        b7.publish("damas/board/8/game", {"board": "8", "game": 1, "seq": 0, "type": "result", "result": "0-2"})
        b7.publish("damas/board/7/game", {"board": "7", "game": 1, "seq": 0, "type": "start"})
        hall.publish("damas/control/7", {"resend": 1, "from": 0})
        b7.publish("damas/control/8", {"resend": 1, "from": 0})  # a board cannot write control topics
        wait_until(lambda: len(hall.got) >= 1, what="the hall to get board 7's own message")
        time.sleep(0.5)  # (anything forbidden would have come by now)
        assert [t for t, _ in hall.got] == ["damas/board/7/game"]
        assert b8.got == []  # neither the hall's message to board 7 nor board 7's forgery
        assert b7.got == []  # board 7 reads no board topic, not even its own
        # and a wrong password is refused
        bad = Client(mosquitto.port, "8", "wrong")
        wait_until(lambda: bad.refused is not None, what="the broker to refuse a wrong password")
        bad.close()
    finally:
        for c in (hall, b7, b8):
            c.close()
