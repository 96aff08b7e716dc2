"""``damas play`` starting up: the page opened in the browser, and addresses it cannot listen on."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from tests.app.server import free_port
from tests.conftest import damas, one_line_error, wait_until


def test_play_opens_its_page_in_the_browser(tmp_path: Path) -> None:
    # $BROWSER is what Python's webbrowser (and so damas play) runs to open a page
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n', encoding="utf-8")
    browser.chmod(0o755)
    port = free_port()
    env = {**os.environ, "BROWSER": str(browser)}
    cmd = [sys.executable, "-m", "damas", "play", "--db", str(tmp_path / "g.sqlite3"), "--port", str(port)]
    proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: opened.exists() and opened.read_text().strip(), timeout=60, what="the browser to be started")
        assert opened.read_text().strip() == f"http://127.0.0.1:{port}/"
        # the page it opened is served (and by then SIGTERM stops the server cleanly)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as page:
            assert page.status == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, out


def test_play_names_an_address_it_cannot_listen_on_and_touches_no_records(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    port = str(free_port())
    # a name that does not resolve, and an address this machine does not have (TEST-NET-1)
    r = damas("play", "--host", "no-such-host.invalid", "--port", port, "--db", str(db), "--no-browser")
    one_line_error(r, f"cannot listen on no-such-host.invalid:{port}: ")
    r = damas("play", "--host", "192.0.2.1", "--port", port, "--db", str(db), "--no-browser")
    one_line_error(r, f"cannot listen on 192.0.2.1:{port}: ")
    assert not db.exists()


# damas play, sending itself SIGTERM the moment it logs the line that says where it serves
# (a supervisor that stops it as soon as it announced itself): it must stop as cleanly as later
TERM_ON_ANNOUNCE = """
import logging, os, signal, sys
from damas.cli import main

class TermOnAnnounce(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if "http://" in record.getMessage():
            os.kill(os.getpid(), signal.SIGTERM)

logging.getLogger("damas.serve").addHandler(TermOnAnnounce())
sys.exit(main(sys.argv[1:]))
"""


def test_a_sigterm_as_play_announces_itself_stops_it_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    cmd = [sys.executable, "-c", TERM_ON_ANNOUNCE, "play", "--db", str(db), "--port", str(free_port()), "--no-browser"]
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    # not killed by the signal (-15): its handler was in place, so it shut down and said so
    assert r.returncode == 0, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert r.stdout.splitlines()[-1] == "damas: stopped", r.stdout[-2000:]
