"""The production broker as the deploy guide sets it up (issue 29): ``damas hall-setup`` writes the
shipped configuration, the ACL, a password per board and the TLS certificates, and Debian's own
Mosquitto 2.0 starts from Debian's own ``mosquitto.conf`` (a copy whose ``include_dir`` names a
temporary ``conf.d``; only paths and port numbers are changed in the copies). Then: the boards'
listener speaks TLS only and the boards check it against the event's CA, the hall's listens on the
loopback interface only, nobody logs in without a password, and no login can take the hall's
client id and knock it off the broker."""

from __future__ import annotations

import json
import os
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from hall.broker import mosquitto_path
from hall.protocol import Broker, new_client
from hall.setup import Setup, parse_boards
from tests.app.server import free_port
from tests.conftest import wait_until
from tests.hall.conftest import HallProcess

DEBIAN_CONF = Path("/etc/mosquitto/mosquitto.conf")


def _need(what: str, ok: bool) -> None:
    if not ok:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{what} is not installed")
        pytest.skip(f"{what} is not installed")


class Debian:
    """Debian's mosquitto.conf and our conf.d, copied under ``root``, started; stopped at the end."""

    def __init__(self, root: Path, etc: Path) -> None:
        self.tls, self.plain = free_port(), free_port()
        conf_d = root / "conf.d"
        conf_d.mkdir(parents=True)
        shipped = (etc / "conf.d" / "damas.conf").read_text()
        mine = shipped.replace("/etc/mosquitto/", f"{etc}/")
        mine = mine.replace("\nlistener 8883\n", f"\nlistener {self.tls}\n")
        mine = mine.replace("\nlistener 1883 127.0.0.1\n", f"\nlistener {self.plain} 127.0.0.1\n")
        assert mine.count("\nlistener ") == shipped.count("\nlistener ") == 2
        (conf_d / "damas.conf").write_text(mine)
        if os.geteuid() == 0:  # (as root, Mosquitto becomes user mosquitto, who cannot read pytest's tmp)
            (conf_d / "zz-test.conf").write_text("user root\n")
        debian = DEBIAN_CONF.read_text()
        assert "include_dir /etc/mosquitto/conf.d" in debian and "persistence_location" in debian
        conf = debian.replace("include_dir /etc/mosquitto/conf.d", f"include_dir {conf_d}")
        for path in ("/run/mosquitto/", "/var/lib/mosquitto/", "/var/log/mosquitto/"):
            conf = conf.replace(path, f"{root}/")
        self.conf = root / "mosquitto.conf"
        self.conf.write_text(conf)
        self.log = root / "mosquitto.log"
        self.proc = subprocess.Popen([str(mosquitto_path()), "-c", str(self.conf)], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip

    def started(self) -> bool:
        if self.proc.poll() is not None:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            log = self.log.read_text() if self.log.exists() else ""
            raise AssertionError(f"Debian's Mosquitto did not start: {err}{log}")
        log = self.log.read_text() if self.log.exists() else ""
        return "running" in log

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        if self.proc.stderr is not None:
            self.proc.stderr.close()


@pytest.fixture
def production(tmp_path: Path) -> Iterator[tuple[Debian, Path, dict[str, str]]]:
    _need("Mosquitto", mosquitto_path() is not None and DEBIAN_CONF.exists())
    _need("openssl", shutil.which("openssl") is not None)
    _need("mosquitto_passwd", shutil.which("mosquitto_passwd") is not None)
    etc = tmp_path / "etc"
    logins = dict(Setup(etc, parse_boards("1-2"), hosts=["hall.test"], owner=None).run())
    broker = Debian(tmp_path / "run", etc)
    try:
        wait_until(broker.started, timeout=20, what="Debian's Mosquitto to start with our configuration")
        yield broker, etc, logins
    finally:
        broker.stop()


class Client:
    def __init__(self, port: int, user: str | None, password: str | None, *, ca: Path | None = None,
                 client_id: str = "", tls: bool = False) -> None:  # fmt: skip
        self.events: list[str] = []
        self.got: list[str] = []
        self.up = threading.Event()
        broker = Broker("localhost", port, tls=tls or ca is not None, username=user, password=password,
                        tls_ca=None if ca is None else str(ca))  # fmt: skip
        self.c = new_client(broker, client_id or f"test-{user}")
        self.c.on_connect = self._connect
        self.c.on_disconnect = lambda *_a: self.events.append("down")
        self.c.on_message = lambda _c, _u, m: self.got.append(m.topic)
        try:
            self.c.connect("localhost", port)
        except (OSError, ssl.SSLError) as exc:
            self.events.append(f"refused {exc}")
        self.c.loop_start()

    def _connect(self, c: mqtt.Client, _u: object, _f: object, reason: object, _p: object) -> None:
        if getattr(reason, "is_failure", False):
            self.events.append(f"refused {reason}")
        else:
            self.events.append("up")
            self.up.set()

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


# paho-mqtt 2.2 leaves the socket of a TLS handshake that failed for the garbage collector
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_debians_mosquitto_starts_with_tls_for_the_boards_and_a_password_each(
    production: tuple[Debian, Path, dict[str, str]], tmp_path: Path
) -> None:
    broker, etc, logins = production
    assert set(logins) == {"hall", "1", "2"} and len(set(logins.values())) == 3
    ca = etc / "certs" / "damas-ca.crt"
    clients: list[Client] = []
    try:
        board = Client(broker.tls, "1", logins["1"], ca=ca)
        clients.append(board)
        wait_until(board.up.is_set, timeout=10, what="board 1 to log in over TLS")
        for user, password, kwargs in [
            (None, None, {"ca": ca}),  # nobody logs in without a password
            ("1", "wrong", {"ca": ca}),
            ("1", logins["1"], {"tls": True}),  # the system's CAs do not vouch for the event's broker
            ("1", logins["1"], {}),  # no TLS on the boards' port
        ]:
            c = Client(broker.tls, user, password, **kwargs)  # type: ignore[arg-type]
            clients.append(c)
            wait_until(lambda c=c: any(e.startswith("refused") or e == "down" for e in c.events), timeout=10,
                       what=f"the broker to refuse {user} {kwargs}")  # fmt: skip
            assert "up" not in c.events
        # the hall, on the loopback listener; a board that takes its client id does not knock it off
        hall = HallProcess(tmp_path / "hall.sqlite3", f"mqtt://hall@127.0.0.1:{broker.plain}",
                           f"--password={logins['hall']}").start()  # fmt: skip
        try:
            wait_until(lambda: hall.get("/api/state")["connected"], timeout=20, what="the hall to log in")
            thief = Client(broker.tls, "2", logins["2"], ca=ca, client_id="damas-hall")
            clients.append(thief)
            wait_until(thief.up.is_set, timeout=10, what="board 2 to log in")
            start = {"board": "1", "game": 1, "seq": 0, "type": "start", "variant": "brazilian", "fen": None,
                     "mode": "casual", "tags": {"White": "Ana", "Black": "Bia"}, "intro": []}  # fmt: skip
            board.c.publish("damas/board/1/game", json.dumps(start), qos=1).wait_for_publish(5)
            wait_until(lambda: any(b["game"] for b in hall.get("/api/state")["boards"]), timeout=10,
                       what="board 1's game to reach the hall over TLS")  # fmt: skip
            assert hall.get("/api/state")["connected"]  # still on the broker
            assert "Client damas-hall already connected" not in broker.log.read_text()
        finally:
            hall.stop()
    finally:
        for c in clients:
            c.close()
    log = broker.log.read_text()
    assert "Opening ipv4 listen socket on port 1883." not in log  # no listener but ours
    assert f"port {broker.plain}" in log and f"port {broker.tls}" in log


def test_setup_keeps_the_ca_and_the_passwords_and_adds_new_boards(tmp_path: Path) -> None:
    _need("openssl", shutil.which("openssl") is not None)
    _need("mosquitto_passwd", shutil.which("mosquitto_passwd") is not None)
    etc = tmp_path / "etc"
    first = dict(Setup(etc, ["1"], owner=None).run())
    ca = (etc / "certs" / "damas-ca.crt").read_bytes()
    again = dict(Setup(etc, ["1", "2"], hosts=["hall.local"], ips=["192.168.0.9"], owner=None).run())
    assert set(first) == {"hall", "1"} and set(again) == {"2"}  # only the new board gets a password
    assert (etc / "certs" / "damas-ca.crt").read_bytes() == ca  # the boards keep trusting the same CA
    sans = subprocess.run(["openssl", "x509", "-in", str(etc / "certs" / "damas-hall.crt"), "-noout", "-ext",
                           "subjectAltName"], capture_output=True, text=True).stdout  # fmt: skip
    assert "DNS:hall.local" in sans and "IP Address:192.168.0.9" in sans
    rows = (etc / "damas-boards.csv").read_text().splitlines()
    assert rows[0] == "login,password" and [r.split(",")[0] for r in rows[1:]] == ["hall", "1", "2"]
    assert oct((etc / "damas-boards.csv").stat().st_mode & 0o777) == "0o600"
    assert oct((etc / "certs" / "damas-ca.key").stat().st_mode & 0o777) == "0o600"
    for bad in ("3-1", "hall", "a b", ""):
        with pytest.raises(Exception, match="board"):
            parse_boards(bad)
    assert parse_boards("1-3,7") == ["1", "2", "3", "7"]
