"""The built wheel, installed into a fresh virtual environment outside the repository, run from a
folder outside it as a user runs it: every subcommand starts, computes, replays a real log,
checks the simulated board, runs the Pico firmware in the emulator, serves the board's page and
the hall's (a missing module or data file of the wheel fails here, which an editable install
hides)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from damas.commands import ORDER
from hall.broker import mosquitto_path
from tests.app.server import free_port
from tests.conftest import DATA, ROOT, one_line_error, wait_until
from tests.package.conftest import Installed, version

PACKAGES = ("rules", "engine", "referee", "board_hal", "firmware_bridge", "damas", "hall")


def test_it_runs_the_installed_code_not_the_tree(installed: Installed) -> None:
    names = ", ".join(PACKAGES)
    r = subprocess.run(
        [installed.python, "-c", f"import {names}; print('\\n'.join(m.__file__ for m in ({names})))"],
        capture_output=True,
        text=True,
        cwd=installed.home,
        env=installed.env,
        timeout=60,
    )
    assert r.returncode == 0, r.stderr
    for path in r.stdout.split():
        assert Path(path).is_relative_to(installed.venv) and not Path(path).is_relative_to(ROOT), path


def test_version(installed: Installed) -> None:
    r = installed.run("--version")
    assert (r.returncode, r.stdout) == (0, f"damas {version()}\n"), r.stderr


def test_every_subcommand_has_its_help(installed: Installed) -> None:
    r = installed.run("-h")
    assert r.returncode == 0, r.stderr
    listed = r.stdout.split("positional arguments:", 1)[1].split("options:", 1)[0]
    names = re.findall(r"^    (\S+)", listed, re.MULTILINE)
    assert names == [name.replace("_", "-") for name in ORDER]
    for name in names:
        h = installed.run(name, "--help")
        assert h.returncode == 0 and h.stdout.startswith(f"usage: damas {name}") and "example:" in h.stdout, (name, h)


def test_perft_and_moves(installed: Installed) -> None:
    r = installed.run("perft", "--variant", "international", "--depth", "4")
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "4265", r
    r = installed.run("moves", "--variant", "brazilian", stdin="W:W21-32:B1-12\n")
    assert r.returncode == 0, r.stderr
    assert sorted(r.stdout.split()) == ["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"]
    one_line_error(installed.run("moves", "--variant", "brazilian", "--fen", "W:W99:B1"), "W:W99:B1")


def test_replay_of_a_recorded_log(installed: Installed) -> None:
    r = installed.run("replay", str(DATA / "logs" / "brazilian-recorded.jsonl"), "--pdn", "game.pdn")
    assert r.returncode == 0, r.stderr
    moves = [line.split(": ", 1)[1] for line in r.stdout.splitlines() if ": " in line]
    assert " ".join(moves) == "e3-d4 b6-c5 d4xb6 c7xa5 c3-d4 f6-g5 g3-f4 g5xc5 f2-g3 d6-e5 g3-h4 e7-f6"
    assert "1. e3-d4 b6-c5 2. d4xb6 c7xa5" in (installed.home / "game.pdn").read_text()


def test_selftest_on_the_simulated_board(installed: Installed) -> None:
    config = installed.run("deploy", "simulated")
    assert config.returncode == 0, config.stderr
    (installed.home / "board.toml").write_text(config.stdout)
    r = installed.run("selftest", "--config", "board.toml")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "self-test passed" in r.stdout and "32 squares confirmed, 0 dead, 0 stuck" in r.stdout


def test_the_emulator_runs_the_shipped_firmware(installed: Installed) -> None:
    r = installed.run("emulator", "--variant", "brazilian", stdin="lift 22\nboard\nquit\n", timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("emulated Pico (8x8, brazilian squares) on /"), r.stdout
    rank3 = next(line for line in r.stdout.splitlines() if line.startswith(" 3 "))
    assert rank3.split() == ["3", "o", ".", "o", "o"], r.stdout  # c3 (square 22) lifted: the firmware's scan


def test_the_docs_reach_an_installed_user(installed: Installed) -> None:
    listing = installed.run("deploy", "--list")
    assert listing.returncode == 0, listing.stderr
    where = re.escape(str(installed.venv))
    for name in ("guide", "unit", "udev", "hardware", "firmware", "wiring", "bom", "protocol", "pico"):
        assert re.search(rf"^{re.escape(name)} .*\({where}/", listing.stdout, re.MULTILINE), name
    shown = {"guide": "deploy/README.md", "wiring": "hardware/wiring.md", "pico": "hardware/pico.toml"}
    for name, source in shown.items():
        assert installed.run("deploy", name).stdout == (ROOT / source).read_text(), name


@contextmanager
def serving(installed: Installed, *args: str) -> Iterator[str]:
    """``damas ARGS --port P`` until it answers on P (a port taken meanwhile: again on another);
    stopped by SIGTERM as systemd stops it."""
    for _attempt in range(5):
        port = free_port()
        log = installed.home / f"serve-{port}.log"
        with log.open("w") as out:
            proc = subprocess.Popen(
                [installed.damas, *args, "--port", str(port)],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=installed.home,
                env=installed.env,
            )
        url = f"http://127.0.0.1:{port}"

        def up(url: str = url, proc: subprocess.Popen[bytes] = proc) -> bool:
            if proc.poll() is not None:
                return True
            try:
                with urllib.request.urlopen(url + "/", timeout=5):
                    return True
            except (OSError, urllib.error.URLError):
                return False

        try:
            wait_until(up, timeout=60, what=f"damas {args[0]} to serve")
            if proc.poll() is None:
                yield url
                return
            if "in use" not in log.read_text():
                raise AssertionError(f"damas {args[0]} exited: {log.read_text()}")
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(20)
    raise AssertionError(f"damas {args[0]} found no free port")


def get(url: str) -> tuple[str, str]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.headers.get_content_type(), r.read().decode()


def test_play_serves_its_page_and_records(installed: Installed) -> None:
    with serving(installed, "play", "--no-browser", "--db", "games.sqlite3", "--variant", "brazilian") as url:
        kind, page = get(url + "/")
        assert kind == "text/html" and "<html" in page
        for script in re.findall(r'<script[^>]+src="/?([^"]+)"', page):
            assert get(f"{url}/{script}")[0] in ("text/javascript", "application/javascript"), script
        kind, state = get(url + "/api/state")
        assert kind == "application/json" and json.loads(state)["variant"] == "brazilian"
    assert (installed.home / "games.sqlite3").is_file()


def test_hall_serves_its_page(installed: Installed) -> None:
    if mosquitto_path() is None:
        reason = "Mosquitto is not installed (apt-get install mosquitto)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    with serving(installed, "hall", "--db", "hall.sqlite3") as url:
        kind, page = get(url + "/")
        assert kind == "text/html" and "/static/hall.js" in page
        assert get(url + "/static/hall.js")[0] in ("text/javascript", "application/javascript")
