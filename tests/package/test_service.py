"""The Raspberry Pi service as shipped: the systemd unit checked by systemd's own analyser (the
directives, the sandbox's score the docs quote), lgpio — the real library, built from its PyPI
source — making its FIFO under the unit's environment in a read-only working directory (as
``ProtectSystem=strict`` makes ``/opt/damas``), the udev rule's two Pico USB ids, and the Pico
configuration that waits for the udev symlink instead of stopping the service."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from firmware_bridge.bridge import PICO_USB_VID
from tests.app.server import Server
from tests.conftest import ROOT
from tests.package.conftest import Installed

UNIT = ROOT / "deploy" / "damas.service"
GUIDE = ROOT / "deploy" / "README.md"
RULES = ROOT / "deploy" / "99-damas-pico.rules"


def need(tool: str) -> str:
    """A tool the test runs; missing: skip (fail under CI, whose .ci/run installs it)."""
    path = shutil.which(tool)
    if path is None:
        reason = f"{tool} is not installed"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def directives(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.lstrip().startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def analysable(tmp_path: Path, installed: Installed) -> Path:
    """The unit as shipped, its ExecStart pointing at the installed wheel's damas (systemd-analyze
    checks that the program exists; /opt/damas is the Pi's)."""
    unit = tmp_path / "damas.service"
    unit.write_text(UNIT.read_text().replace("/opt/damas/.venv/bin/damas", installed.damas))
    return unit


def test_systemd_accepts_every_directive_of_the_unit(tmp_path: Path, installed: Installed) -> None:
    r = subprocess.run(
        [need("systemd-analyze"), "verify", str(analysable(tmp_path, installed))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    # an unknown or misspelt directive is only a warning (exit 0): any line about the unit fails
    complaints = [line for line in (r.stdout + r.stderr).splitlines() if "damas.service" in line]
    assert r.returncode == 0 and not complaints, r.stdout + r.stderr


def test_the_sandbox_scores_what_the_docs_say(tmp_path: Path, installed: Installed) -> None:
    r = subprocess.run(
        [need("systemd-analyze"), "security", "--offline=yes", str(analysable(tmp_path, installed))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    found = re.search(r"Overall exposure level for damas\.service: (\d+\.\d) (\w+)", r.stdout)
    assert found, r.stdout[-2000:] + r.stderr
    score, verdict = found.groups()
    assert float(score) <= 2.0 and verdict == "OK"
    for doc in (UNIT, GUIDE):
        assert f'rates it {score} "{verdict}"' in doc.read_text(), doc


def test_the_unit_gives_lgpio_a_writable_folder_and_the_user_its_groups() -> None:
    unit = directives(UNIT.read_text())
    env = dict(pair.split("=", 1) for value in unit["Environment"] for pair in value.split())
    assert env["LG_WD"] == "/run/" + unit["RuntimeDirectory"][0]
    assert unit["WorkingDirectory"] == ["/var/lib/" + unit["StateDirectory"][0]]
    groups = unit["SupplementaryGroups"][0].split()
    assert set(groups) == {"gpio", "dialout", "i2c", "spi", "audio"}
    # the guide puts the user itself in the same groups (sudo -u damas gets no SupplementaryGroups)
    useradd = re.search(r"useradd .*--groups ([\w,]+) damas", GUIDE.read_text().replace("\\\n", " "))
    assert useradd and useradd.group(1).split(",") == groups
    # the guide's self-test runs as that user with a writable LG_WD, as the unit does
    assert "sudo -u damas env LG_WD=" in GUIDE.read_text()
    # with DevicePolicy=closed, every device a board uses is named: GPIO, the Pico, I2C, SPI, sound
    assert unit["DevicePolicy"] == ["closed"]
    allowed = {value.split()[0] for value in unit["DeviceAllow"]}
    assert {"char-gpiochip", "char-ttyACM", "char-i2c", "char-spi", "char-alsa"} <= allowed


def test_the_udev_rule_names_both_pico_ids_and_the_config_waits_for_its_symlink() -> None:
    rules = [line for line in RULES.read_text().splitlines() if line and not line.startswith("#")]
    ids = set()
    for rule in rules:
        vendor = re.search(r'ATTRS\{idVendor\}=="(\w+)"', rule)
        product = re.search(r'ATTRS\{idProduct\}=="(\w+)"', rule)
        assert vendor and product and 'SYMLINK+="damas-pico"' in rule and 'GROUP="dialout"' in rule, rule
        ids.add((int(vendor.group(1), 16), int(product.group(1), 16)))
    # MicroPython's CDC serial port, and the Pico SDK's (a C firmware)
    assert ids == {(PICO_USB_VID, 0x0005), (PICO_USB_VID, 0x000A)}
    assert 'port = "/dev/damas-pico"' in (ROOT / "hardware" / "pico.toml").read_text()


def test_play_waits_for_a_pico_not_plugged_in(tmp_path: Path) -> None:
    """The shipped Pico configuration with no Pico: damas play serves its page and shows the board
    as not connected (the service stays up until the Pico appears) instead of exiting."""
    server = Server(tmp_path / "games.sqlite3", "--config", str(ROOT / "hardware" / "pico.toml")).start()
    try:
        state = server.get("/api/state")
        assert state["link"]["state"] == "down", state["link"]
    finally:
        out = server.stop()
    assert "/dev/damas-pico does not exist yet: waiting for the Pico to be plugged in" in out


# -- lgpio, the real library ------------------------------------------------------------------


@pytest.fixture(scope="module")
def lgpio(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """lgpio installed into a folder: built from its PyPI source (no wheel exists for x86-64),
    statically with the C library it bundles (PYPI=1, as the guide builds it on Trixie; swig and a
    compiler needed), the wheel kept in ~/.cache/damas/wheels for the next run."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "damas" / "wheels"
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    wheels = sorted(cache.glob(f"lgpio-*-{tag}-*.whl"))
    if not wheels:
        need("swig")
        build = ("wheel", "--no-deps", "--no-binary", "lgpio", "-w", str(cache), "lgpio>=0.2.2")
        r = subprocess.run(
            [sys.executable, "-m", "pip", *build],
            capture_output=True,
            text=True,
            env={**os.environ, "PYPI": "1"},
            timeout=170,
        )
        assert r.returncode == 0, r.stderr[-3000:]
        wheels = sorted(cache.glob(f"lgpio-*-{tag}-*.whl"))
    target = tmp_path_factory.mktemp("lgpio")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheels[-1])],
        check=True,
        timeout=120,
    )
    return target


def in_read_only_folder(folder: Path, env: dict[str, str], *command: str) -> subprocess.CompletedProcess[str]:
    """``command`` run as root from ``folder`` mounted read-only (as ProtectSystem=strict mounts
    /opt/damas for the unit: root cannot write there either), in a private mount namespace."""
    need("unshare")
    script = 'mount --bind -o ro "$0" "$0" && cd "$0" && exec "$@"'
    return subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script, str(folder), *command],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_lgpio_makes_its_fifo_where_the_units_lg_wd_says(tmp_path: Path, lgpio: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root (a read-only bind mount), as CI has")
    opt, run = tmp_path / "opt-damas", tmp_path / "run-damas"
    opt.mkdir()
    run.mkdir()
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": f"{lgpio}:{ROOT}"}
    probe = "import lgpio, os; print(os.getcwd())"
    # the unit's environment: the FIFO in the runtime directory, the working directory untouched
    r = in_read_only_folder(opt, {**env, "LG_WD": str(run)}, sys.executable, "-c", probe)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in run.iterdir()] == [".lgd-nfy0"] and not list(opt.iterdir())
    assert r.stdout.strip() == str(run)  # lgpio moves the process into LG_WD
    # the old unit (no LG_WD, WorkingDirectory=/opt/damas): importing lgpio fails
    r = in_read_only_folder(opt, env, sys.executable, "-c", probe)
    assert r.returncode != 0 and ".lgd-nfy" in r.stderr, r.stderr
    # and what damas says then: one line naming the fix, for each case
    config = str(ROOT / "hardware" / "gpio-8x8.toml")
    selftest = (sys.executable, "-m", "damas", "selftest", "--config", config)
    r = in_read_only_folder(opt, env, *selftest)
    # (lgpio's C library prints its own line first: "xCreatePipe: Can't set permissions...")
    assert r.returncode == 2 and r.stderr.count("damas: error:") == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.splitlines()[-1].startswith("damas: error:")
    assert "set LG_WD to a folder the user can write (the service's is /run/damas)" in r.stderr
    r = in_read_only_folder(opt, {**env, "LG_WD": str(run)}, *selftest)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "lgpio reached no GPIO chip of a Raspberry Pi: is this one, and is the user in the gpio group?" in r.stderr


def test_opening_the_pins_leaves_the_working_directory_where_it_was(tmp_path: Path, lgpio: Path) -> None:
    """lgpio's import moves the process into LG_WD; relative paths opened later (the journal
    copies are opened per line) must still mean what they meant at start-up."""
    if os.geteuid() != 0:
        pytest.skip("needs root (a read-only bind mount), as CI has")
    opt, run = tmp_path / "opt-damas", tmp_path / "run-damas"
    opt.mkdir()
    run.mkdir()
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": f"{lgpio}:{ROOT}", "LG_WD": str(run)}
    probe = (
        "import os\nfrom board_hal.pins import opening_pins\n"
        "with opening_pins('board.toml'):\n    import lgpio\n"
        "print(os.getcwd(), sorted(os.listdir(os.environ['LG_WD'])))"
    )
    r = in_read_only_folder(opt, env, sys.executable, "-c", probe)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(opt), "['.lgd-nfy0']"]
