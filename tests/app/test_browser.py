"""End to end in a real browser: Debian's Chromium driven by Playwright (executable_path).

Starts ``damas play`` on the simulated board, plays a short game with captures by
dragging and clicking, sees a required-capture report and its LED when a plain move is
tried, finishes, downloads the PDN and compares it with the expected game. A screenshot
of the page is kept under test-output/.
"""

from __future__ import annotations

import time
from pathlib import Path

from rules.pdn import read_game
from tests.app.server import Server
from tests.conftest import OUTPUT

FEN = "W:W13,24,28:B16,27"  # a5, g3, h2 against g5, f2


def test_play_a_game_in_the_browser(page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    server = Server(
        tmp_path / "games.sqlite3", "--variant", "brazilian", "--fen", FEN, "--white", "Ana", "--black", "Rui"
    ).start()
    try:
        page.goto(server.url + "/?lang=en")
        expect(page.locator('[data-square="24"] .piece')).to_be_visible()

        def centre(square: int) -> tuple[float, float]:
            box = page.locator(f'[data-square="{square}"]').bounding_box()
            assert box is not None
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

        def drag(a: int, b: int) -> None:
            page.mouse.move(*centre(a))
            page.mouse.down()
            x, y = centre(b)
            page.mouse.move(x, y, steps=8)
            page.mouse.up()
            page.wait_for_timeout(150)

        def click(square: int) -> None:
            page.mouse.click(*centre(square))
            page.wait_for_timeout(150)

        moves = page.locator("#moves")
        # a plain move while g3 must capture: reported, and the LEDs show who must capture
        drag(13, 9)
        expect(page.locator("#active")).to_contain_text("capture is compulsory")
        expect(page.locator('[data-square="24"] .led')).to_have_attribute("data-role", "must-capture")
        expect(page.locator('[data-square="27"] .led')).to_have_attribute("data-role", "capturable")
        expect(page.locator('[data-square="9"] .led')).to_have_attribute("data-role", "extra")  # the wrong square
        expect(page.locator('[data-square="13"] .led')).to_have_attribute("data-role", "missing")
        drag(9, 13)  # put it back
        expect(page.locator("#active")).to_be_hidden()
        # 1. g3xe1: drag, then click the captured piece to take it off
        drag(24, 31)
        expect(page.locator('[data-square="27"] .led')).to_have_attribute("data-role", "remove")
        click(27)
        expect(moves).to_have_text("1. g3xe1")
        drag(16, 19)
        drag(31, 26)
        drag(19, 23)
        expect(moves).to_have_text("1. g3xe1 g5-f4 2. e1-d2 f4-e3")
        # 3. d2xf4: the captured piece comes off first this time
        click(23)
        drag(26, 19)
        expect(moves).to_have_text("1. g3xe1 g5-f4 2. e1-d2 f4-e3 3. d2xf4")
        expect(page.locator("#status")).to_contain_text("1-0")
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "browser-game.png"))
        with page.expect_download() as info:
            page.locator("#download").click()
        text = Path(info.value.path()).read_text(encoding="utf-8")
        game = read_game(text)
        assert [pm.text for pm in game.moves] == ["g3xe1", "g5-f4", "e1-d2", "f4-e3", "d2xf4"]
        assert game.tags["White"] == "Ana" and game.tags["Black"] == "Rui"
        assert game.result == "1-0" and '[GameType "26,W,8,8,A0,0"]' in text
        assert game.start == read_game(f'[FEN "{FEN}"] *', "brazilian").start
        # the page in Portuguese
        page.goto(server.url + "/?lang=pt")
        expect(page.locator("#status")).to_contain_text("Fim da partida")
        expect(page.locator("#variant")).to_have_text("Damas brasileiras")
        page.screenshot(path=str(OUTPUT / "browser-game-pt.png"))
    finally:
        server.stop()


def test_set_up_a_position_with_kings_from_the_page(page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    server = Server(tmp_path / "games.sqlite3", "--variant", "international").start()
    try:
        page.goto(server.url + "/?lang=en")
        expect(page.locator('[data-square="32"] .piece')).to_be_visible()
        page.locator("#setupmode").click()
        page.locator('[data-square="32"]').click()  # the editor starts from the current position...
        expect(page.locator('[data-square="32"] .piece')).to_have_attribute("data-piece", "W")
        page.locator("#setupclear").click()  # ...or from an empty board
        expect(page.locator(".piece")).to_have_count(0)
        page.locator('[data-square="28"]').click()  # white man
        page.locator('[data-square="46"]').click()
        page.locator('[data-square="46"]').click()  # white king
        for _ in range(4):
            page.locator('[data-square="5"]').click()  # ... black king
        expect(page.locator('[data-square="46"] .piece')).to_have_attribute("data-piece", "W")
        expect(page.locator('[data-square="5"] .piece')).to_have_attribute("data-piece", "B")
        page.locator("#setupturn").select_option("B")
        page.locator("#setupstart").click()
        expect(page.locator("#gameno")).to_have_text("Game 2")
        state = server.get("/api/state")
        assert state["pieces"] == {"28": "w", "46": "W", "5": "B"} and state["turn"] == "black"
        assert '[FEN "B:W28,K46:BK5"]' in server.get("/games/2.pdn")
        expect(page.locator('[data-square="46"] .piece')).to_have_text("♛")
    finally:
        server.stop()


def lit_on_page(page: object) -> dict[int, str]:
    """The LED overlay the page draws: square -> role."""
    from playwright.sync_api import Page

    assert isinstance(page, Page)
    got = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#board .led')]"
        ".map((e) => [e.parentElement.dataset.square, e.dataset.role]))"
    )
    return {int(k): v for k, v in got.items()}


def wait_until_lit(page: object, want: dict[int, str], what: str, timeout: float) -> None:
    """Wait (no reload, no click) until the page draws exactly these LEDs."""
    deadline = time.monotonic() + timeout
    while (got := lit_on_page(page)) != want:
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: the page draws {got}, not {want}")
        time.sleep(0.02)


def test_the_page_draws_every_event_as_it_happens(page: object, tmp_path: Path) -> None:
    """Issue 9 §1: each settled event shows on the page at once, with no click and no reload."""
    from playwright.sync_api import Page, expect

    from tests.app.test_live_leds import FEN, SETTLE, STEPS, expected, sq

    assert isinstance(page, Page)
    server = Server(tmp_path / "games.sqlite3", "--variant", "brazilian").start()
    try:
        page.goto(server.url + "/?lang=en")
        c3 = page.locator(f'[data-square="{sq("c3")}"]')
        expect(c3.locator(".piece")).to_be_visible()
        box = c3.bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        # lift c3 by dragging it, and hold it there: its origin and its two moves light up
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 20, y + 20, steps=4)
        wait_until_lit(page, {sq("c3"): "from", sq("b4"): "hint", sq("d4"): "hint"}, "c3 held", 3.0)
        page.mouse.move(x, y, steps=4)
        page.mouse.up()  # put back: nothing to show
        wait_until_lit(page, {}, "c3 put back", 3.0)

        # the scripted game (the hands on the board, the page only watches)
        server.post("/api/action", {"action": "new-game", "fen": FEN})
        wait_until_lit(page, {}, "the new game", 3.0)
        g7 = page.locator(f'[data-square="{sq("g7")}"] .piece')
        for i, (op, name, wait, step) in enumerate(STEPS):
            if wait == "window":
                server.sim(op, sq(name))
            want = {s: r.value for s, r in expected(step).items()}
            wait_until_lit(page, want, f"step {i} ({op} {name})", 3.0 + (SETTLE if wait == "settle" else 0))
            if name == "g7":  # landed before any removal: drawn as the white man on its way
                expect(g7).to_have_class("piece w")
        expect(g7).to_have_class("piece w")
        expect(page.locator("#moves")).to_have_text("1. c3xg7")
        assert server.get("/api/state")["leds"] == {str(s): r.value for s, r in expected(STEPS[-1][3]).items()}
    finally:
        server.stop()


def test_language_selector_then_configuration_then_browser(browser: object, tmp_path: Path) -> None:
    """Issue 9 §2: the page's own choice (remembered) > --lang / [app] language > the browser's."""
    from playwright.sync_api import Browser, expect

    assert isinstance(browser, Browser)
    server = Server(tmp_path / "games.sqlite3", "--lang", "pt").start()
    try:
        context = browser.new_context(locale="en-US")  # an English browser...
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#status")).to_have_text("Vez das brancas")  # ...follows --lang pt
        expect(page.locator('[data-ui="moves"]')).to_have_text("Lances")
        expect(page.locator("#lang")).to_have_value("pt-BR")  # pt: Brazilian Portuguese
        page.locator("#lang").select_option("en")  # the user's own choice wins...
        expect(page.locator("#status")).to_have_text("White to move")
        page.reload()  # ...and is remembered
        expect(page.locator("#status")).to_have_text("White to move")
        expect(page.locator("#lang")).to_have_value("en")
        context.close()
        assert server.get("/api/state?lang=fr")["lang"] == "pt-BR"  # an unknown choice: the configured one
    finally:
        server.stop()
    server = Server(tmp_path / "games2.sqlite3").start()  # nothing configured: the browser's language
    try:
        context = browser.new_context(locale="pt-BR")
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#status")).to_have_text("Vez das brancas")
        expect(page.locator("#lang")).to_have_value("pt-BR")
        context.close()
        context = browser.new_context(locale="pt-PT")  # Portugal's players: European Portuguese
        page = context.new_page()
        page.goto(server.url + "/")
        expect(page.locator("#status")).to_have_text("Jogam as brancas")
        expect(page.locator("#lang")).to_have_value("pt-PT")
        context.close()
    finally:
        server.stop()
