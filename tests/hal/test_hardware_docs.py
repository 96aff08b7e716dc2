"""The hardware pages' figures are what their scripts draw, and the pages point at them."""

from __future__ import annotations

import importlib.util

from tests.conftest import ROOT


def test_the_magnet_placement_figure_is_drawn_by_its_script() -> None:
    spec = importlib.util.spec_from_file_location("magnets", ROOT / "hardware" / "magnets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    svg = (ROOT / "hardware" / "magnet-placement.svg").read_text()
    assert svg == module.draw(), "run python hardware/magnets.py"
    for words in ("flat disc, centred", "may not close", "reed offset", "diametric", "Hall switch", "test square"):
        assert words in svg
    page = (ROOT / "hardware" / "magnets.md").read_text()
    assert "magnet-placement.svg" in page and "build one test square first" in page
    assert "magnets.md" in (ROOT / "hardware" / "wiring.md").read_text()


def test_the_pico_pages_agree_with_main_py() -> None:
    """The pin table of wiring-pico.md is the one main.py uses."""
    main = (ROOT / "hardware" / "firmware" / "main.py").read_text()
    page = (ROOT / "hardware" / "wiring-pico.md").read_text()
    assert "ROWS = tuple(range(2, 2 + SIZE))" in main and "| GP2 – GP9 | GP2 – GP11 |" in page
    assert "COLS = tuple(range(12, 12 + SIZE))" in main and "| GP12 – GP19 | GP12 – GP21 |" in page
    assert "LED_PIN = 22" in main and "| LED data | GP22 | GP22 | 29 |" in page
    assert "BUTTONS = (26, 27)" in main and "ESCAPE_PIN = 28" in main
    assert "74AHCT125" in (ROOT / "hardware" / "bom.md").read_text()
