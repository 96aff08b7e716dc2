"""No pin library: one line that names the fix, chosen from lgpio's own reason (gpiozero's
fallback warnings), instead of gpiozero's five lines ending "Unable to load any default pin
factory!". The real case of lgpio's FIFO in a read-only folder: tests/package/test_service.py."""

from __future__ import annotations

import importlib.util

import pytest

from board_hal.pins import CHIP, FIFO, INSTALL, advice
from tests.conftest import ROOT, damas, one_line_error


@pytest.mark.parametrize(
    ("lgpio", "fix"),
    [
        ("No module named 'lgpio'", INSTALL),
        ("[Errno 30] Read-only file system: '.lgd-nfy-30'", FIFO),
        ("[Errno 2] No such file or directory: '.lgd-nfy-2'", FIFO),
        ("'can not open gpiochip'", CHIP),
    ],
)
def test_the_fix_follows_lgpios_reason(lgpio: str, fix: str) -> None:
    native = "unable to locate Pi revision in /proc/device-tree or /proc/cpuinfo"
    assert advice({"lgpio": lgpio, "native": native}) == fix


def test_no_pin_library_here_is_one_line_naming_the_fix() -> None:
    """This machine is no Pi: every library gpiozero tries fails (lgpio absent from the test
    environment, or present with no GPIO chip)."""
    r = damas("selftest", "--config", str(ROOT / "hardware" / "gpio-8x8.toml"))
    fix = CHIP if importlib.util.find_spec("lgpio") else INSTALL
    one_line_error(r, "gpio-8x8.toml: no GPIO library could be loaded (lgpio: ", fix)
    assert "Falling back" not in r.stderr
