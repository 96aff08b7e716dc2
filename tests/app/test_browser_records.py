"""What the page shows of the records, in Chromium: the Result selector follows the game,
and a full disk puts a banner up and the error pattern on the LEDs until writing works."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.server import Server, confirm_click
from tests.conftest import OUTPUT


def centre(page: object, square: int) -> tuple[float, float]:
    page.locator("#board").scroll_into_view_if_needed()  # type: ignore[attr-defined]  # (the form is below it)
    box = page.locator(f'[data-square="{square}"]').bounding_box()  # type: ignore[attr-defined]
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: object, a: int, b: int) -> None:
    mouse = page.mouse  # type: ignore[attr-defined]
    mouse.move(*centre(page, a))
    mouse.down()
    x, y = centre(page, b)
    mouse.move(x, y, steps=8)
    mouse.up()
    page.wait_for_timeout(150)  # type: ignore[attr-defined]


def test_the_result_selector_shows_the_result(page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        page.goto(server.url + "/?lang=en")
        result = page.locator("#tag-result")
        expect(result).to_have_value("")
        confirm_click(page, page.locator('[data-action="resign"][data-side="white"]'))
        expect(page.locator("#status")).to_contain_text("0-1")
        expect(result).to_have_value("0-1")  # it used to stay "—"
        page.locator("#newgame").click()
        expect(page.locator("#gameno")).to_have_text("Game 2")
        expect(result).to_have_value("")
        # a result entered for the game in play ends it: the page, the selector and the board agree
        drag(page, 22, 18)
        expect(page.locator("#moves")).to_have_text("1. c3-d4")
        result.select_option("1/2-1/2")
        page.locator("#savetags").click()
        expect(page.locator("#status")).to_contain_text("Game over: 1/2-1/2 (result entered)")
        expect(result).to_have_value("1/2-1/2")
        drag(page, 9, 13)  # the board takes no more moves
        page.wait_for_timeout(400)
        expect(page.locator("#moves")).to_have_text("1. c3-d4")
        assert server.get("/api/state")["result"] == "1/2-1/2"
    finally:
        server.stop()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real, small file system (tmpfs: mounting needs root, as CI has)."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (CI runs as root); test_records.py covers this without it")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(where)], capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill_up(where: Path) -> Path:
    filler = where / "filler"
    with open(filler, "wb") as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 65536)
            f.flush()
    with contextlib.suppress(OSError), open(filler, "ab") as f:
        while True:  # the last bytes of the last page
            f.write(b"\0" * 512)
            f.flush()
    return filler


def test_a_full_disk_is_shown_and_play_resumes(page: object, small_disk: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    server = Server(small_disk / "g.sqlite3").start()
    try:
        page.goto(server.url + "/?lang=en")
        drag(page, 22, 18)
        expect(page.locator("#moves")).to_have_text("1. c3-d4")
        filler = fill_up(small_disk)
        drag(page, 9, 13)
        banner = page.locator("#writeerror")
        expect(banner).to_be_visible()
        expect(banner).to_contain_text("Cannot write the records")
        expect(banner).to_contain_text("full")
        expect(page.locator(".led.error")).to_have_count(32)  # the LEDs' error pattern, drawn on the page
        expect(page.locator("#moves")).to_have_text("1. c3-d4")  # not processed: nothing half-applied
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "browser-disk-full.png"))
        filler.unlink()  # space comes back: play resumes by itself, with the move made meanwhile
        expect(banner).to_be_hidden(timeout=10_000)
        expect(page.locator("#moves")).to_have_text("1. c3-d4 b6-a5")
        expect(page.locator(".led.error")).to_have_count(0)
    finally:
        out = server.stop()
    assert "cannot write the records" in out and "play goes on" in out
    lines = (small_disk / "g.sqlite3.journals" / "1.jsonl").read_text().splitlines()
    assert len(lines) == 1 + 4
