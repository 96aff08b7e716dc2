"""Draw the README's screenshot: the live page during a capture, taken from a real Chromium.

    .venv/bin/python docs/screenshot.py          # writes docs/screenshot.png

``damas play`` runs on the simulated board; the hands play 1. e3-d4 b6-c5 2. d4xb6 a7xc5
3. c3-d4 c5xe3, then lift d2 and land on f4 without removing e3 yet: d2 lit as the origin,
f4 as the landing (the white man drawn there), e3 as the piece to remove.
Needs Debian's Chromium (``DAMAS_CHROMIUM`` to override) and the playwright package.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import Position  # noqa: E402
from tests.app.server import Server  # noqa: E402

CHROMIUM = os.environ.get("DAMAS_CHROMIUM", "/usr/bin/chromium")
MOVES = [("e3", "d4", ()), ("b6", "c5", ()), ("d4", "b6", ("c5",)), ("a7", "c5", ("b6",))]
MOVES += [("c3", "d4", ()), ("c5", "e3", ("d4",))]


def main() -> None:
    from playwright.sync_api import expect, sync_playwright

    sq = Position.start("brazilian").geometry.parse_square
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "games.sqlite3", "--white", "Ana", "--black", "Rui").start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
                page = browser.new_page(viewport={"width": 1180, "height": 700}, locale="en-US")
                page.goto(server.url + "/?lang=en")
                for a, b, taken in MOVES:
                    for op, name in [("lift", a), ("place", b), *(("lift", t) for t in taken)]:
                        server.sim(op, sq(name))
                        time.sleep(0.08)
                expect(page.locator("#moves")).to_have_text("1. e3-d4 b6-c5 2. d4xb6 a7xc5 3. c3-d4 c5xe3")
                server.sim("lift", sq("d2"))
                time.sleep(0.08)
                server.sim("place", sq("f4"))
                expect(page.locator(f'[data-square="{sq("f4")}"] .led')).to_have_attribute("data-role", "to")
                expect(page.locator(f'[data-square="{sq("e3")}"] .led')).to_have_attribute("data-role", "remove")
                page.mouse.move(0, 0)
                page.wait_for_timeout(300)
                page.screenshot(path=str(ROOT / "docs" / "screenshot.png"))
                browser.close()
        finally:
            server.stop()
    print("docs/screenshot.png written")


if __name__ == "__main__":
    main()
