"""The wheel carries every file of the source tree's packages — whatever sub-packages the tree
grows, one left out of pyproject.toml's list fails here (``damas.commands`` once was, and the
installed command could not start) — and what an installed user runs from the repository's other
folders: the Pico firmware (``damas emulator`` runs it), the example configurations and the
hardware docs, the systemd unit, udev rule and install guide, the licence."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

from tests.conftest import ROOT, one_line_error
from tests.package.conftest import Dist, version

# the schematics' drawing scripts (schemdraw, a test dependency), not modules of the package
NOT_SHIPPED = ("hardware/*.py",)


def source_packages() -> list[Path]:
    """The folders at the top of the tree that are Python packages (tests aside)."""
    return sorted(p for p in ROOT.iterdir() if (p / "__init__.py").is_file() and p.name != "tests")


def expected_files() -> dict[str, Path]:
    """Each file the wheel must carry (its name in the wheel) and where the tree keeps it: every
    file under every package, and the files of the folders pyproject maps into packages."""

    def files(folder: Path, recursive: bool) -> list[Path]:
        found = folder.rglob("*") if recursive else folder.iterdir()
        return [
            f
            for f in found
            if f.is_file()
            and "__pycache__" not in f.parts
            and f.suffix != ".pyc"
            and not any(f.relative_to(ROOT).match(pattern) for pattern in NOT_SHIPPED)
        ]

    expected = {f.relative_to(ROOT).as_posix(): f for p in source_packages() for f in files(p, True)}
    mapped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for package, folder in mapped.items():
        for f in files(ROOT / folder, False):
            expected[f"{package.replace('.', '/')}/{f.name}"] = f
    return expected


def test_the_tree_is_what_the_check_expects() -> None:
    """The check's own sample: the packages it walks and files it expects include the ones known
    to matter (an empty walk would pass anything)."""
    names = {p.name for p in source_packages()}
    assert {"rules", "engine", "referee", "board_hal", "firmware_bridge", "damas", "hall"} <= names
    expected = expected_files()
    for needed in (
        "damas/commands/__init__.py",
        "damas/web/static/index.html",
        "firmware_bridge/firmware/board_fw.py",
        "board_hal/examples/pico.toml",
        "board_hal/examples/wiring.md",
        "damas/deploy/damas.service",
        "damas/deploy/README.md",
        "hall/mosquitto.conf",
    ):
        assert needed in expected, needed
    assert "board_hal/examples/schematic.py" not in expected


def test_the_wheel_carries_every_file_of_the_tree(dist: Dist) -> None:
    names = set(zipfile.ZipFile(dist.wheel).namelist())
    missing = sorted(set(expected_files()) - names)
    assert not missing, f"the wheel lacks {missing} (pyproject.toml's package list or package-data)"
    tops = {n.split("/")[0] for n in names if not n.startswith(f"damas-{version()}.dist-info/")}
    assert tops == {p.name for p in source_packages()}, "the wheel carries a package the tree does not have"
    assert f"damas-{version()}.dist-info/licenses/LICENSE" in names
    assert f"damas-{version()}.dist-info/entry_points.txt" in names


def test_the_sdist_carries_the_docs_and_the_sources(dist: Dist) -> None:
    """The wheel was built from this sdist (so it holds what a build needs); a user who
    unpacks it also finds the guides."""
    with tarfile.open(dist.sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    for needed in ("README.md", "LICENSE", "pyproject.toml", "deploy/README.md", "hardware/wiring.md"):
        assert needed in names, needed


def test_damas_deploy_prints_the_shipped_files() -> None:
    def deploy(what: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "damas", "deploy", what], capture_output=True, text=True, timeout=60
        )

    assert deploy("unit").stdout == (ROOT / "deploy" / "damas.service").read_text()
    assert deploy("udev").stdout == (ROOT / "deploy" / "99-damas-pico.rules").read_text()
    assert deploy("guide").stdout == (ROOT / "deploy" / "README.md").read_text()
    assert deploy("gpio-8x8").stdout == (ROOT / "hardware" / "gpio-8x8.toml").read_text()
    assert deploy("wiring").stdout == (ROOT / "hardware" / "wiring.md").read_text()
    assert deploy("hardware").stdout == (ROOT / "hardware" / "README.md").read_text()
    assert deploy("firmware").stdout == (ROOT / "hardware" / "firmware" / "README.md").read_text()
    one_line_error(deploy("gpio-9x9"), "'gpio-9x9'", "damas deploy --list")
