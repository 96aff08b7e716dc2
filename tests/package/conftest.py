"""The wheel and the sdist, built once per run from the source tree, and the wheel installed into
a fresh virtual environment outside the repository, as a user installs it (its dependencies
from the package index, nothing of the source tree on its path)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT


@dataclass(frozen=True)
class Dist:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Installed:
    """The installed program: its virtual environment, and a folder outside the repository to
    run it from (its home too, so that nothing of the developer's data is read)."""

    venv: Path
    home: Path

    @property
    def damas(self) -> str:
        return str(self.venv / "bin" / "damas")

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    @property
    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV", "DAMAS_", "XDG_"))}
        path = f"{self.venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        return {**keep, "HOME": str(self.home), "PATH": path}

    def run(self, *args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """``damas ARGS`` from the folder outside the repository."""
        return subprocess.run(
            [self.damas, *args],
            input=stdin,
            stdin=subprocess.DEVNULL if stdin is None else None,
            capture_output=True,
            text=True,
            cwd=self.home,
            env=self.env,
            timeout=timeout,
        )


def outside(path: Path) -> Path:
    assert not path.resolve().is_relative_to(ROOT.resolve()), f"{path} is inside the repository"
    return path


def version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


# what a clean checkout does not have: a build's leftovers (a stale damas.egg-info/SOURCES.txt
# lists every file the last build took, and so once hid a package missing from pyproject's list)
NOT_IN_A_CHECKOUT = shutil.ignore_patterns(
    ".git",
    ".venv",
    "*.egg-info",
    "build",
    "dist",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    ".bench",
    ".mutation",
    ".coverage*",
    ".pi-check",
    ".py313",
)


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """``python -m build`` on a clean copy of the tree: the sdist, then the wheel built from that
    sdist (so the sdist is proved to hold what a build needs). setuptools' warning that a package
    is left out of pyproject's list fails the build here."""
    out = outside(tmp_path_factory.mktemp("dist"))
    tree = shutil.copytree(ROOT, out / "tree", ignore=NOT_IN_A_CHECKOUT)
    r = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=170,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    left_out = re.findall(r"Package '([\w.]+)' is absent from the `packages` configuration", r.stdout + r.stderr)
    assert not left_out, f"pyproject.toml's package list lacks {sorted(set(left_out))}"
    return Dist(out / f"damas-{version()}-py3-none-any.whl", out / f"damas-{version()}.tar.gz")


@pytest.fixture(scope="session")
def installed(dist: Dist, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = outside(tmp_path_factory.mktemp("installed"))
    venv, home = base / "venv", base / "home"
    home.mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    r = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(dist.wheel)],
        capture_output=True,
        text=True,
        cwd=home,
        timeout=170,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return Installed(venv, home)
