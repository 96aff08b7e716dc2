"""A private Mosquitto on the loopback interface (``damas hall`` without ``--broker``; the tests).

Mosquitto binds the port itself: when another program took it first, Mosquitto exits saying so
and the next port is tried, so no port is ever released between choosing and binding it.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

INSTALL = "Mosquitto is not installed: sudo apt-get install mosquitto (or give --broker mqtt://HOST:1883)"


class MosquittoError(Exception):
    """Mosquitto is missing or would not start (one line)."""


def mosquitto_path() -> str | None:
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if Path(p).is_file()), None
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class Mosquitto:
    """A Mosquitto process with its own configuration file in ``workdir`` (``extra`` lines are
    added: a password file, an ACL). ``port=None`` takes a free port."""

    def __init__(self, workdir: str | Path | None = None, port: int | None = None, extra: str = "") -> None:
        exe = mosquitto_path()
        if exe is None:
            raise MosquittoError(INSTALL)
        self.exe = exe
        self._tmp = None if workdir is not None else tempfile.TemporaryDirectory(prefix="damas-mosquitto-")
        self.dir = Path(workdir if workdir is not None else self._tmp.name)  # type: ignore[union-attr]
        self.dir.mkdir(parents=True, exist_ok=True)
        self.extra = extra
        self.port = port or 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.dir / "mosquitto.log"

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _conf(self, port: int) -> Path:
        conf = self.dir / "mosquitto.conf"
        conf.write_text(
            f"listener {port} 127.0.0.1\n"
            "persistence false\n"
            "log_dest stderr\n"
            "max_queued_messages 100000\nmax_inflight_messages 100\n"
            # started by root, Mosquitto would become user "mosquitto", who cannot read our files
            + ("user root\n" if hasattr(os, "geteuid") and os.geteuid() == 0 else "")
            + (self.extra if self.extra else "allow_anonymous true\n")
        )
        return conf

    def start(self, timeout: float = 10.0) -> Mosquitto:
        fixed = bool(self.port)
        for _attempt in range(20 if not fixed else 50):
            port = self.port if fixed else _free_port()
            conf = self._conf(port)
            with open(self.log, "ab") as out:
                self.proc = subprocess.Popen(
                    [self.exe, "-c", str(conf)], stdout=out, stderr=out, stdin=subprocess.DEVNULL
                )
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break  # it could not bind (the port was taken): try again
                if _listening(port):
                    self.port = port
                    return self
                time.sleep(0.02)
            else:
                self.stop()
                raise MosquittoError(f"mosquitto did not listen on port {port} within {timeout:g} s (see {self.log})")
            time.sleep(0.1 if fixed else 0)  # the same port: its last owner may be closing it
        tail = self.log.read_text(errors="replace").strip().splitlines()[-1:] if self.log.exists() else []
        raise MosquittoError(f"mosquitto would not start: {tail[0] if tail else 'no output'}")

    def kill(self) -> None:
        """As a crash would: SIGKILL."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                log.warning("mosquitto (pid %d) did not stop within 5 s of SIGTERM: killed", self.proc.pid)
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def close(self) -> None:
        self.stop()
        if self._tmp is not None:
            self._tmp.cleanup()
