"""The wheel carries what an installed user runs: the page, the Pico firmware (``damas
emulator`` runs it), the example configurations, the systemd unit and udev rule, the licence."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import ROOT


def test_the_wheel_carries_what_an_installed_user_runs(tmp_path: Path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=170,
    )
    assert r.returncode == 0, r.stderr
    (wheel,) = tmp_path.glob("damas-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "damas/web/static/index.html",
        "damas/web/static/app.js",
        "firmware_bridge/firmware/board_fw.py",
        "firmware_bridge/firmware/main.py",
        "firmware_bridge/link.py",
        "board_hal/examples/pico.toml",
        "board_hal/examples/gpio-8x8.toml",
        "damas/deploy/damas.service",
        "damas/deploy/99-damas-pico.rules",
        "hall/static/hall.html",
        "hall/static/hall.js",
        "hall/static/print.css",
        "hall/mosquitto.conf",
        "hall/mosquitto.acl",
    ):
        assert needed in names, needed
    assert any(n.endswith("licenses/LICENSE") for n in names)
    # the installed emulator finds the firmware beside itself when there is no source tree
    firmware = {n.removeprefix("firmware_bridge/firmware/") for n in names if n.startswith("firmware_bridge/firmware/")}
    assert {p.name for p in (ROOT / "hardware" / "firmware").iterdir() if p.suffix in (".py", ".md")} <= firmware


def test_damas_deploy_prints_the_shipped_files() -> None:
    def deploy(what: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "damas", "deploy", what], capture_output=True, text=True, timeout=60
        )

    assert deploy("unit").stdout == (ROOT / "deploy" / "damas.service").read_text()
    assert deploy("udev").stdout == (ROOT / "deploy" / "99-damas-pico.rules").read_text()
    assert deploy("gpio-8x8").stdout == (ROOT / "hardware" / "gpio-8x8.toml").read_text()
    bad = deploy("gpio-9x9")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "'gpio-9x9'" in bad.stderr
