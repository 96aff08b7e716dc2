"""Fixtures of the hall's tests: a real Mosquitto on a free loopback port, the hall in its own
process, simulated boards in theirs, and a TCP relay that can cut one board off the network."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hall.broker import Mosquitto, mosquitto_path
from tests.app.server import free_port
from tests.conftest import ROOT


@pytest.fixture(autouse=True)
def _no_pairer_left() -> Iterator[None]:
    """A test that paired from the page (the pairing process) ends it: none is left for the
    interpreter's exit."""
    yield
    from hall.app import stop_pairer

    stop_pairer(wait=True)


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[Mosquitto]:
    """Mosquitto on a free loopback port (it binds the port itself; a port taken meanwhile is
    retried on another). Missing: the test skips with the reason (fails under CI)."""
    if mosquitto_path() is None:
        reason = "Mosquitto is not installed (apt-get install mosquitto)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    m = Mosquitto(tmp_path / "mosquitto").start()
    yield m
    m.close()


class HallProcess:
    """``damas hall`` in a subprocess (its page on a free port)."""

    def __init__(self, db: Path, broker: str, *extra: str, log: Path | None = None) -> None:
        self.db = db
        self.log = log  # where its output goes (the test reads it), else the test's own
        self.broker = broker
        self.extra = extra
        self.port = free_port()
        self.proc: subprocess.Popen[str] | None = None
        self.token = "test-token"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> HallProcess:
        for _attempt in range(5):
            cmd = [sys.executable, "-m", "damas", "-q", "hall", "--broker", self.broker, "--db", str(self.db)]
            cmd += ["--port", str(self.port), "--token", self.token, *self.extra]
            err = open(self.log, "a") if self.log is not None else None  # noqa: SIM115 (the child keeps it)
            try:
                self.proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, text=True, stdout=err, stderr=err)
            finally:
                if err is not None:
                    err.close()
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    self.get("/api/state")
                    return self
                except (OSError, urllib.error.URLError):
                    time.sleep(0.05)
            else:
                raise AssertionError("the hall did not start")
            self.port = free_port()  # the port was taken meanwhile: again on another
        raise AssertionError("the hall would not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, as systemd's stop does; a hall that needs SIGKILL after ``timeout`` seconds
        fails the test (it is killed first, so that nothing is left running)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"damas hall did not stop within {timeout:g} s of SIGTERM (killed)") from None

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            body = r.read().decode()
            return json.loads(body) if r.headers.get_content_type() == "application/json" else body

    def get_text(self, path: str) -> str:
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return str(r.read().decode())

    def post(self, path: str, body: dict[str, Any], token: str | None = None) -> Any:
        req = urllib.request.Request(
            self.url + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "X-Hall-Token": token or self.token},
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read())


class BoardProcess:
    """A simulated board (``tests.hall.board_sim``) in its own process."""

    def __init__(
        self,
        tmp: Path,
        board: str,
        broker: str,
        pdn: Path,
        index: int,
        plies: int,
        gap: float,
        clock: str | None = None,
        tls_ca: Path | None = None,
    ) -> None:
        self.board = board
        self.out = tmp / f"board{board}.out"
        cmd = [sys.executable, "-m", "tests.hall.board_sim", "--db", str(tmp / f"board{board}.sqlite3")]
        cmd += ["--broker", broker, "--board-id", board, "--pdn", str(pdn), "--index", str(index)]
        cmd += ["--plies", str(plies), "--gap", str(gap), "--out", str(self.out)]
        cmd += ["--clock", clock] if clock else []
        cmd += ["--tls-ca", str(tls_ca)] if tls_ca else []
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, text=True)

    def done(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"board {self.board} exited ({self.proc.returncode}) before its game was played")
        return self.out.exists()

    def export(self) -> tuple[int, str]:
        gid, pdn = self.out.read_text().split("\n", 1)
        return int(gid), pdn

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM; a board that needs SIGKILL after ``timeout`` seconds fails the test (it is
        killed first, so that nothing is left running)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"the simulated board did not stop {timeout:g} s after SIGTERM (killed)") from None


class Relay:
    """A TCP relay between boards and the broker: ``cut()`` drops every connection through it and
    refuses new ones until ``mend()`` (the board's network is down; the broker is not)."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = int(self.listener.getsockname()[1])
        self.cut_off = False
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            if self.cut_off:
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=2)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.closed or self.cut_off:  # cut or closed while this one was being joined
                    client.close()
                    upstream.close()
                    continue
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                data = a.recv(65536)
                if not data:
                    break
                b.sendall(data)
        except OSError:
            pass
        with self.lock:
            for s in (a, b):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
                if s in self.conns:
                    self.conns.remove(s)

    def cut(self) -> None:
        self.cut_off = True
        with self.lock:
            for s in self.conns:
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            self.conns.clear()

    def mend(self) -> None:
        self.cut_off = False

    def close(self) -> None:
        self.closed = True
        self.cut()
        self.listener.close()
