"""The MQTT protocol between the boards and the hall: topics, the broker's address, a client.

Shared by both sides (``damas.hall_link.publish`` on a board, ``hall.subscriber`` in the hall); it imports
nothing of either. The messages themselves are described in ``damas/hall_link/publish.py``.
"""

from __future__ import annotations

import ssl
import urllib.parse
from dataclasses import dataclass

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

PREFIX = "damas"
SCHEMES = {"mqtt": 1883, "mqtts": 8883}


def board_topic(board: str, leaf: str) -> str:
    return f"{PREFIX}/board/{board}/{leaf}"


def control_topic(board: str) -> str:
    return f"{PREFIX}/control/{board}"


def assign_topic(board: str) -> str:
    return f"{PREFIX}/control/{board}/assign"


class BrokerError(ValueError):
    """A broker URL or hall setting that cannot be used (one line naming it)."""


@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in: ``mqtt://[user:password@]host[:port]`` (``mqtts://``
    for TLS; ``tls_ca`` names a CA file, else the system's)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    tls_ca: str | None = None

    @classmethod
    def parse(
        cls, url: str, *, username: str | None = None, password: str | None = None, tls_ca: str | None = None
    ) -> Broker:
        text = url.strip()
        if "://" not in text:
            text = "mqtt://" + text
        try:
            u = urllib.parse.urlsplit(text)
            port = u.port
        except ValueError as exc:
            raise BrokerError(f"bad broker URL {url[:80]!r} ({exc})") from None
        if u.scheme not in SCHEMES:
            raise BrokerError(f"bad broker URL {url[:80]!r} (mqtt://host:port or mqtts://host:port)")
        if not u.hostname:
            raise BrokerError(f"bad broker URL {url[:80]!r} (no host)")
        return cls(
            u.hostname,
            port or SCHEMES[u.scheme],
            u.scheme == "mqtts" or tls_ca is not None,
            urllib.parse.unquote(u.username) if u.username else username,
            urllib.parse.unquote(u.password) if u.password else password,
            tls_ca,
        )

    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def new_client(broker: Broker, client_id: str, *, clean: bool = True) -> mqtt.Client:
    """A paho-mqtt 2.x client for the broker (MQTT 3.1.1, automatic reconnects 1..10 s)."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean, protocol=mqtt.MQTTv311)
    if broker.username is not None:
        client.username_pw_set(broker.username, broker.password)
    if broker.tls:
        client.tls_set(ca_certs=broker.tls_ca, cert_reqs=ssl.CERT_REQUIRED)
    client.reconnect_delay_set(1, 10)
    client.max_inflight_messages_set(100)
    return client
