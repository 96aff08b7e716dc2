"""DESIGN.md §1: the hall never imports a board's backends (boards reach it only through the
broker): every module of ``hall/`` loads without ``board_hal`` or ``firmware_bridge``."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_the_hall_imports_no_board_backend() -> None:
    modules = sorted(p.stem for p in (ROOT / "hall").glob("*.py") if p.stem != "__init__")
    assert {"app", "games", "protocol", "serve", "store", "tournament", "web", "broker"} <= set(modules)
    code = (
        "import sys\n"
        + "".join(f"import hall.{m}\n" for m in modules)
        + "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('board_hal', 'firmware_bridge', 'damas'))\n"
        + "print(bad)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
