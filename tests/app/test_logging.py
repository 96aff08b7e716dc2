"""Diagnostics through logging (issue 10 §3): levels, ``-v``/``-q``, lines journald keeps, and a
board loop that keeps failing writes one line per ten seconds, not fifty a second."""

from __future__ import annotations

import asyncio
import logging
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from board_hal.config import Config
from board_hal.factory import open_board
from damas.board.loop import PlayApp
from damas.log import Throttle
from damas.records.session import GameSession
from damas.records.store import Store
from tests.app.server import free_port


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_throttle_logs_the_first_failure_then_one_per_ten_seconds(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="test.throttle")
    clock = Clock()
    throttle = Throttle(logging.getLogger("test.throttle"), "error in the board loop", clock=clock)
    for _ in range(1300):  # 20 s of a loop failing every 1/64 s (binary fractions: exact sums)
        throttle.failed(RuntimeError("sensor gone"))
        clock.t += 1 / 64
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert errors == [
        "error in the board loop: sensor gone",
        "error in the board loop: sensor gone (639 more since the last report)",
        "error in the board loop: sensor gone (639 more since the last report)",
    ]
    tracebacks = [r for r in caplog.records if r.levelno == logging.DEBUG]
    assert len(tracebacks) == 3 and all(r.exc_info for r in tracebacks)
    caplog.clear()
    throttle.ok()
    throttle.failed(ValueError())  # after a good turn the next failure shows at once
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO] == [
        "error in the board loop: works again after 1300 failures",
        "error in the board loop: ValueError",
    ]


def test_the_board_loop_failing_every_turn_is_rate_limited(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Before: ``damas: error in the board loop: ...`` on every 20 ms turn, no traceback anywhere."""
    caplog.set_level(logging.DEBUG, logger="damas")
    clock = Clock()
    store = Store(tmp_path / "g.sqlite3")
    io = open_board(Config(), "brazilian", clock=clock)
    try:
        session = GameSession.start(store, "brazilian", None, "casual", io.occupied()[0], {})
        app = PlayApp(store, io, session, clock=clock)
        turns = 0

        async def failing_turn() -> None:
            nonlocal turns
            turns += 1
            clock.t += 1 / 64
            if turns > 1000:  # 15.6 s of turns, then stop the loop
                raise asyncio.CancelledError
            raise OSError(5, "Input/output error")

        app.turn = failing_turn  # type: ignore[method-assign]
        app._next_wake = lambda: 0.0  # type: ignore[method-assign]
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(app.run_loop())
    finally:
        io.close()
        store.close()
    records = [r for r in caplog.records if r.name == "damas.board.loop"]
    assert [r.getMessage() for r in records if r.levelno == logging.ERROR] == [
        "error in the board loop: [Errno 5] Input/output error",
        "error in the board loop: [Errno 5] Input/output error (639 more since the last report)",
    ]
    debug = [r for r in records if r.levelno == logging.DEBUG]
    assert len(debug) == 2
    assert all(r.exc_info and "in failing_turn" in logging.Formatter().formatException(r.exc_info) for r in debug)


def run_play(tmp_path: Path, *options: str, journal: str | None = None) -> str:
    """Start ``damas [options] play``, wait for its page, stop it as systemd does; its output.
    ``journal``: ``$JOURNAL_STREAM`` ("same": the device and inode of the output file, as
    systemd sets it for a service writing to the journal)."""
    import os

    tmp_path.mkdir(parents=True)
    port = free_port()
    cmd = [sys.executable, "-m", "damas", *options, "play", "--db", str(tmp_path / "g.sqlite3")]
    cmd += ["--port", str(port), "--no-browser"]
    env = {k: v for k, v in os.environ.items() if k != "JOURNAL_STREAM"}
    with open(tmp_path / "out.txt", "w+", encoding="utf-8") as out:
        if journal is not None:
            st = os.fstat(out.fileno())
            env["JOURNAL_STREAM"] = f"{st.st_dev}:{st.st_ino}" if journal == "same" else journal
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, env=env)
        try:
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None and time.monotonic() < deadline, "damas play did not start"
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5).close()
                    break
                except (urllib.error.URLError, ConnectionError):
                    time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        out.seek(0)
        return out.read()


def test_quiet_hides_the_information_and_journald_gets_priorities(tmp_path: Path) -> None:
    plain = run_play(tmp_path / "a", journal="8:1234")  # inherited from a service, but not its stream
    assert plain.splitlines()[0].startswith("damas: Brazilian draughts, game 1, on the simulated board: http://")
    assert plain.splitlines()[-1] == "damas: stopped"
    assert run_play(tmp_path / "b", "-q") == ""
    journal = run_play(tmp_path / "c", journal="same")
    assert journal.splitlines()[0].startswith("<6>damas: Brazilian draughts, game 1, on the simulated board: ")
    assert journal.splitlines()[-1] == "<6>damas: stopped"
