"""The game clock on the page, in Chromium (issue 13): the two large buttons and the space bar
press the clock; the faces, the running side, the time each move took; the arbiter's pause;
the Portuguese words. Screenshots under test-output/."""

from __future__ import annotations

from pathlib import Path

from tests.app.server import Server
from tests.conftest import OUTPUT


def test_clock_pressed_on_the_page(page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    server = Server(tmp_path / "games.sqlite3", "--variant", "brazilian", "--mode", "tournament", "--clock", "5+3")
    server.start()
    try:
        page.goto(server.url + "/?lang=en")
        white, black = page.locator("#clock-white"), page.locator("#clock-black")
        expect(white.locator(".time")).to_have_text("5:00")
        expect(black.locator(".time")).to_have_text("5:00")
        expect(page.locator("#clockstatus")).to_contain_text("The first press starts the clock")
        black.click()  # black's button starts white's clock
        expect(white).to_have_class("face running")
        expect(white.locator(".time")).to_have_text("4:59", timeout=3000)  # it runs on the page
        server.move(22, 18)  # c3-d4
        page.keyboard.press("Space")  # the space bar: the button of the side whose clock runs
        expect(black).to_have_class("face running")
        expect(white).to_have_class("face")
        state = server.get("/api/state")
        assert state["clock"]["running"] == "black"
        assert state["moves"][0]["took"] == "0:0" + state["moves"][0]["took"][-1]  # seconds the move took
        expect(page.locator("#moves")).to_have_text(f"1. c3-d4 ({state['moves'][0]['took']})")
        white.click()  # white presses again: reported (tournament), the lever does not move
        expect(page.locator("#reports li").first).to_have_attribute("data-kind", "clock-wrong-side")
        expect(black).to_have_class("face running")
        page.keyboard.press("Space")  # with white's face focused: black's press only, not a click on white's
        expect(page.locator("#reports li").first).to_have_attribute("data-kind", "clock-no-move")
        assert [r["kind"] for r in server.get("/api/state")["reports"]] == ["clock-wrong-side", "clock-no-move"]
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "browser-clock.png"))
        page.locator("#clock-pause").click()  # the arbiter pauses
        expect(page.locator("#clockstatus")).to_have_text("Clocks paused")
        expect(black).to_have_class("face")
        page.locator("#clock-black-time").fill("0:02")
        page.locator("#clock-adjust").click()
        expect(black.locator(".time")).to_have_text("0:02.0")
        expect(black).to_have_class("face low")
        page.locator("#clock-pause").click()  # resume: two seconds, then the flag
        expect(black).to_have_class("face flag", timeout=10000)
        expect(page.locator("#status")).to_contain_text("1-0")
        expect(page.locator("#status")).to_contain_text("loss on time")
        page.screenshot(path=str(OUTPUT / "browser-clock-flag.png"))
        page.goto(server.url + "/?lang=pt")
        expect(page.locator("#clockstatus")).to_have_text("Tempo esgotado: Pretas")
        # the kind, then its sentence in lower case after the colon (issue 28: one capitalisation)
        expect(page.locator("#reports li").first).to_contain_text("Tempo esgotado: acabou o tempo das pretas")
    finally:
        server.stop()
