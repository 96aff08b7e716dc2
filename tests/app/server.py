"""Start ``damas play`` in a subprocess and talk to it over HTTP (helpers for the app tests)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, db: Path, *args: str, port: int | None = None, env: dict[str, str] | None = None) -> None:
        self.db = db
        self.port = port or free_port()
        self.args = args
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.output = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *extra: str, wait: bool = True) -> Server:
        cmd = [
            sys.executable,
            "-m",
            "damas",
            "play",
            "--db",
            str(self.db),
            "--port",
            str(self.port),
            "--no-browser",
            *self.args,
            *extra,
        ]
        self.proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL, env=self.env
        )
        if wait:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    out, _ = self.proc.communicate()
                    raise RuntimeError(f"damas play exited: {out}")
                try:
                    self.get("/api/state")
                    return self
                except (urllib.error.URLError, ConnectionError):
                    time.sleep(0.05)
            raise RuntimeError("damas play did not start")
        return self

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        if self.proc.stdout is not None:
            self.output += self.proc.stdout.read()
            self.proc.stdout.close()
        self.proc = None

    def stop(self, timeout: float = 10.0) -> str:
        """SIGTERM, as systemd's stop does; a server that needs SIGKILL after ``timeout`` seconds
        fails the test (it is killed first, so that nothing is left running)."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGTERM)
            killed = False
            try:
                out, _ = self.proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                out, _ = self.proc.communicate()
                killed = True
            self.output += out or ""
            self.proc = None
            if killed:
                raise AssertionError(
                    f"damas play did not stop within {timeout:g} s of SIGTERM (killed); its output:\n{self.output}"
                )
        return self.output

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            data = r.read().decode()
        return json.loads(data) if path.startswith("/api") else data

    def post(self, path: str, body: dict[str, Any], token: str | None = None) -> Any:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["X-Damas-Token"] = token
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read().decode())

    def sim(self, op: str, square: int) -> Any:
        return self.post("/api/sim", {"op": op, "square": square})

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            state = self.get("/api/state")
            if predicate(state):
                return state  # type: ignore[no-any-return]
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; last state: moves={state['moves']} active={state['active']}")
            time.sleep(0.05)
