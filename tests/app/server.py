"""Start ``damas play`` in a subprocess and talk to it over HTTP (helpers for the app tests)."""

from __future__ import annotations

import json
import os
import re
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


def _readline(fd: int) -> str:
    """One line, read byte by byte from the pipe: nothing is left in a buffer that ``communicate``
    (which reads the descriptor itself) would not see."""
    line = bytearray()
    while not line.endswith(b"\n"):
        byte = os.read(fd, 1)
        if not byte:
            break
        line += byte
    return line.decode(errors="replace")


class Server:
    def __init__(
        self,
        db: Path,
        *args: str,
        port: int | None = None,
        env: dict[str, str] | None = None,
        module: str = "damas",
        open_files: int | None = None,
    ) -> None:
        self.db = db
        self.fixed_port = port is not None
        self.port = port or free_port()
        self.module = module  # tests.app.crashpoint: the same program with a power cut at a chosen write
        self.open_files = open_files  # its open-file limit (soft and hard), as a small system's
        self.args = args
        self.env = {**os.environ, **(env or {})}
        self.proc: subprocess.Popen[str] | None = None
        self.output = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, *extra: str, wait: bool = True) -> Server:
        """Start ``damas play``; with ``wait``, until it printed its address (it listens by then).
        The port :func:`free_port` chose may be taken by another program before the server binds
        it: the server then says so and exits, and it is started again on another free port."""
        for _attempt in range(5):
            self.proc = subprocess.Popen(
                self._command(*extra),
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                stdin=subprocess.DEVNULL,
                env=self.env,
                preexec_fn=None if self.open_files is None else self._limit,
            )
            if not wait:
                return self
            assert self.proc.stdout is not None
            while True:
                line = _readline(self.proc.stdout.fileno())
                if not line:  # it exited before serving
                    out, _ = self.proc.communicate()
                    out = self.output + out
                    self.output = ""
                    self.proc = None
                    if "already in use" in out and not self.fixed_port:
                        self.port = free_port()
                        break
                    raise RuntimeError(f"damas play exited: {out}")
                self.output += line
                if "http://" in line and f":{self.port}/" in line:
                    return self
        raise RuntimeError(f"damas play found no free port in 5 attempts (last {self.port})")

    def _limit(self) -> None:
        import resource

        assert self.open_files is not None
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.open_files, self.open_files))

    def _command(self, *extra: str) -> list[str]:
        return [
            sys.executable,
            "-m",
            self.module,
            "play",
            "--db",
            str(self.db),
            "--port",
            str(self.port),
            "--no-browser",
            *self.args,
            *extra,
        ]

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

    def move(self, a: int, b: int) -> dict[str, Any]:
        """A simple move by hand, each touch waited on instead of a fixed sleep against the
        debounce window: the referee saw the lift when the page lights its origin, and the
        placing when it lights the landing square."""
        self.sim("lift", a)
        self.wait_for(lambda s: s["leds"].get(str(a)) == "from")
        self.sim("place", b)
        return self.wait_for(lambda s: s["leds"].get(str(b)) in ("to", "last"))  # landed, or the move made

    def wait_for(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            state = self.get("/api/state")
            if predicate(state):
                return state  # type: ignore[no-any-return]
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; last state: moves={state['moves']} active={state['active']}")
            time.sleep(0.05)


def play_over_dead_g5(server: Server) -> dict[str, Any]:
    """Brazilian from the start, with g5's sensor not answering: c3-d4, f6-g5 (g5 shows
    nothing), then e3-f4, whose landing has f6-g5 read. Returns the state once the three moves
    are recorded."""
    server.move(22, 18)  # c3-d4
    server.sim("lift", 11)  # f6-g5: g5 shows nothing
    server.wait_for(lambda s: s["leds"].get("11") == "from")
    server.sim("lift", 23)  # e3-f4: the reply lands, f6-g5 is read
    server.wait_for(lambda s: "11" not in s["leds"])
    server.sim("place", 19)
    return server.wait_for(lambda s: len(s["moves"]) == 3)


def confirm_click(page: Any, button: Any) -> None:
    """Two taps on a button that asks for a second (a resignation, leaving a game unfinished):
    the first arms it (it says what the second does), the second, a moment later, confirms."""
    from playwright.sync_api import expect

    button.click()
    expect(button).to_have_class(re.compile(r"\barmed\b"))
    page.wait_for_timeout(450)  # (a double tap's second half is not a confirmation)
    button.click()
