"""The page a player would choose (issue 11), seen in Chromium: each language, the new-game
form, a phone and a finger, the move history, the FEN box, the keyboard and axe-core.

Screenshots of each screen are kept under test-output/ (page-*.png). Every page opened here
is watched for console errors, failed requests and uncaught exceptions: any fails the test.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rules import Position
from tests.app.server import Server, confirm_click
from tests.conftest import OUTPUT
from wording import LANGUAGES
from wording.page import KINDS, LEGEND, UI

AXE = Path(__file__).with_name("vendor") / "axe-core" / "axe.min.js"
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 860}}


def sq(name: str, variant: str = "brazilian") -> int:
    return Position.start(variant).geometry.parse_square(name)


@contextmanager
def opened(
    browser: Any, url: str, init_script: str | None = None, refusals: bool = False, **context: Any
) -> Iterator[Any]:
    """A page in a fresh context (``init_script`` run in it before the page's own); console
    errors, page errors and failed requests fail the test (with ``refusals``, an action the
    server refuses with a 400 is what the test asks for)."""
    ctx = browser.new_context(**{**DESKTOP, "locale": "en-US", **context})
    if init_script is not None:
        ctx.add_init_script(init_script)
    page = ctx.new_page()
    problems: list[str] = []
    page.on(
        "console",
        lambda m: (
            problems.append(f"console {m.type}: {m.text}")
            if m.type == "error" and not (refusals and "status of 400" in m.text)
            else None
        ),
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
    refused = (400,) if refusals else ()
    page.on(
        "response",
        lambda r: (
            problems.append(f"{r.status} {r.url}")
            if r.status >= 400 and not (r.status in refused and "/api/action" in r.url)
            else None
        ),
    )
    try:
        page.goto(url)
        page.wait_for_function("() => window.damasDrawn && window.damasDrawn.length > 0")
        yield page
        assert not problems, problems
    finally:
        ctx.close()


def shot(page: Any, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.wait_for_timeout(100)
    page.screenshot(path=str(OUTPUT / f"page-{name}.png"), full_page=True)


def pieces_drawn(page: Any) -> dict[str, str]:
    got: dict[str, str] = page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('#board .piece')]"
        ".map((p) => [p.parentElement.dataset.square, p.dataset.piece]))"
    )
    return got


def in_position(fen: str, variant: str = "brazilian") -> dict[str, str]:
    return {str(q): p.symbol for q, p in Position.from_fen(fen, variant).pieces().items()}


def test_every_language_on_a_desktop_and_a_phone_and_a_finger(browser: Any, tmp_path: Path) -> None:
    """§1, §3, §4, §5: every word in each language (none left in English, no identifiers), the
    legend, a resolved report shown on itself; the board fits a phone with the controls
    below it, and a finger moves a piece (pointer events from touch)."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--variant", "brazilian").start()
    try:
        # a wrong-side move (black's b6 lifted and put on a5), put right: a report and its resolution
        b6, a5 = sq("b6"), sq("a5")
        server.sim("lift", b6)
        server.sim("place", a5)
        server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "wrong-side")
        server.sim("lift", a5)
        server.sim("place", b6)
        server.wait_for(lambda s: s["active"] is None)
        for lang in LANGUAGES:
            words = UI[lang]
            for name, context in (("desktop", DESKTOP), ("phone", PHONE)):
                with opened(browser, f"{server.url}/?lang={lang}", **context) as page:
                    expect(page.locator("#status")).to_have_text(words["turn_white"])
                    assert page.evaluate("document.documentElement.lang") == lang
                    # every labelled element in this language
                    for key, text in page.evaluate(
                        "() => [...document.querySelectorAll('[data-ui]')].map((e) => [e.dataset.ui, e.textContent])"
                    ):
                        assert text == words[key], (lang, key, text)
                    report = page.locator('#reports li[data-kind="wrong-side"]')
                    kind = KINDS[lang]["wrong-side"]
                    expect(report.locator(".msg")).to_contain_text(f"{kind[0].upper()}{kind[1:]}: ")
                    expect(report).to_have_attribute("data-resolved", "restored")  # on the report itself
                    expect(page.locator('#reports li[data-kind="restored"]')).to_have_count(0)
                    legend = page.locator("#legend li")
                    expect(legend).to_have_count(len(LEGEND[lang]))
                    expect(page.locator('#legend li[data-role="extra"]')).to_contain_text(LEGEND[lang]["extra"])
                    if lang != "en":  # nothing left in English
                        body = page.evaluate("document.body.innerText")
                        english = {t for k, t in UI["en"].items() if t != words[k] and len(t) > 3 and "{" not in t}
                        left = sorted(t for t in english if re.search(rf"\b{re.escape(t)}\b", body))
                        assert not left, (lang, left)
                    board = page.locator("#board").bounding_box()
                    aside = page.locator("aside").bounding_box()
                    assert board is not None and aside is not None
                    width = context["viewport"]["width"]  # type: ignore[index]
                    assert board["x"] >= 0 and board["x"] + board["width"] <= width, (lang, name, board)
                    if name == "phone":  # the whole board on the screen, the controls below it
                        assert board["width"] >= 300 and board["y"] + board["height"] <= 844
                        assert aside["y"] >= board["y"] + board["height"]
                    shot(page, f"{lang}-{name}")
        # the favicon: the page names one, and it is served (as /favicon.ico too)
        with opened(browser, f"{server.url}/?lang=en") as page:
            icon = page.evaluate(
                "() => Promise.all([document.querySelector('link[rel=icon]').href, '/favicon.ico'].map((u) =>"
                " fetch(u).then((r) => [r.status, r.headers.get('content-type')])))"
            )
            assert icon == [[200, "image/svg+xml"], [200, "image/svg+xml"]], icon
        # a finger drags c3 to d4 (touch events: Chromium makes them pointer events)
        with opened(browser, f"{server.url}/?lang=pt-BR", **PHONE) as page:
            cdp = page.context.new_cdp_session(page)

            def centre(name: str) -> tuple[float, float]:
                box = page.locator(f'[data-square="{sq(name)}"]').bounding_box()
                assert box is not None
                return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

            (x0, y0), (x1, y1) = centre("c3"), centre("d4")
            cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
            for i in range(1, 9):
                x, y = x0 + (x1 - x0) * i / 8, y0 + (y1 - y0) * i / 8
                cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
                page.wait_for_timeout(15)
            cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
            expect(page.locator("#moves")).to_have_text("1. c3-d4")
            # the last move highlighted, from and to, not by colour alone (a ring on the origin)
            expect(page.locator("#board .cell.last")).to_have_count(2)
            expect(page.locator(f'[data-square="{sq("c3")}"]')).to_have_class("cell dark last was")
            d4 = page.locator(f'[data-square="{sq("d4")}"]')
            expect(d4).to_have_attribute("aria-label", re.compile(r"^d4: pedra branca; .*último lance$"))
            shot(page, "pt-BR-phone-after-touch")
    finally:
        server.stop()


def test_the_new_game_form_variant_mode_players_and_fen(page: Any, tmp_path: Path) -> None:
    """§2, §7: the form starts a game in another variant, mode and players; its FEN example
    follows the variant; a Brazilian FEN in algebraic squares is taken and shown as such; a bad
    FEN is one line in the page's language."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--variant", "brazilian", "--white", "Ana").start()
    try:
        page.goto(server.url + "/?lang=en")
        page.wait_for_selector("#board .piece")
        assert not axe(page)  # a game with no moves yet
        fen = page.locator("#ng-fen")
        expect(fen).to_have_attribute("placeholder", "FEN, K for kings (e.g. W:Wc3,e3,Kg1:Bb6,d6,f8)")
        expect(page.locator("#ng-white")).to_have_value("Ana")  # the players carry over
        page.locator("#ng-variant").select_option("international")
        expect(fen).to_have_attribute("placeholder", "FEN, K for kings (e.g. W:W31-50:B1-20)")
        page.locator('input[name="mode"][value="tournament"]').check()
        page.locator("#ng-black").fill("Rui")
        page.locator("#newgame").click()
        expect(page.locator("#gameno")).to_have_text("Game 2")
        expect(page.locator("#variant")).to_have_text("International draughts")
        expect(page.locator("#mode")).to_have_text("Mode: tournament")
        expect(page.locator("#board .cell.dark")).to_have_count(50)
        expect(page.locator("#board .piece")).to_have_count(40)
        state = server.get("/api/state")
        assert (state["variant"], state["mode"], state["tags"]["White"], state["tags"]["Black"]) == (
            "international",
            "tournament",
            "Ana",
            "Rui",
        )
        shot(page, "en-international")
        # the history of a numbered variant: its FENs have ranges (W:W28,31,33-50:B1-20)
        server.move(32, 28)
        server.move(19, 23)
        page.locator("#moves").get_by_text("32-28").click()
        expect(page.locator("#viewbar")).to_be_visible()
        after = server.get("/api/state")["moves"][0]["fen"]
        assert "-" in after and pieces_drawn(page) == in_position(after, "international")
        # back to Brazilian, from a FEN in its own squares; the page shows it so
        page.goto(server.url + "/?lang=pt-BR")
        page.locator("#ng-variant").select_option("brazilian")
        expect(fen).to_have_attribute("placeholder", "FEN, K para damas (ex.: W:Wc3,e3,Kg1:Bb6,d6,f8)")
        fen.fill("W:W31-50:B1-20")  # the old example: no 8x8 position
        confirm_click(page, page.locator("#newgame"))  # the game in play has moves: a second tap
        error = page.locator("#formerror")
        expect(error).to_contain_text("esta FEN não é uma posição de damas brasileiras")
        assert "\n" not in error.inner_text()
        fen.fill("B:Wc3,e5,Ke1:Bf6,h8")  # black f6 takes e5 and c3: f6xd4xb2
        shown = Position.from_fen("B:Wc3,e5,Ke1:Bf6,h8", "brazilian").fen()
        assert shown == "B:We5,c3,Ke1:Bh8,f6"  # Brazilian: algebraic squares, as PDN 3.0 writes them
        confirm_click(page, page.locator("#newgame"))
        expect(page.locator("#gameno")).to_have_text("Partida 3")
        expect(page.locator("#fenshown")).to_have_value(shown)
        expect(page.locator("#status")).to_have_text("Vez das pretas")
        assert pieces_drawn(page) == in_position(shown)
        assert f'[FEN "{shown}"]' in server.get("/games/3.pdn")
        # §4: the hand rests on d4, the touch-down square: where the capture goes on, and the right marks
        f6, e5, d4, c3, b2 = (sq(n) for n in ("f6", "e5", "d4", "c3", "b2"))
        server.sim("lift", f6)
        server.sim("place", d4)
        active = page.locator("#active")
        expect(active).to_have_text(
            "Captura não terminada: continue a captura a partir de d4: próximo salto para b2", timeout=10000
        )
        roles = {f6: "from", d4: "must-capture", b2: "hint", e5: "remove", c3: "remove"}
        for square, role in roles.items():
            expect(page.locator(f'[data-square="{square}"] .led')).to_have_attribute("data-role", role)
        expect(page.locator("#board .led")).to_have_count(len(roles))
        expect(page.locator(f'[data-square="{d4}"] .piece')).to_have_class("piece b")  # the black man in hand
        shot(page, "pt-BR-capture-goes-on")
        server.sim("lift", d4)
        server.sim("place", b2)
        server.sim("lift", e5)
        server.sim("lift", c3)
        expect(page.locator("#moves")).to_have_text("1... f6xb2")
        # the pause was guidance, not a fault: once the capture is made it leaves no report (issue 28)
        expect(page.locator('#reports li[data-kind="required-capture"]')).to_have_count(0)
        expect(page.locator('#reports li[data-kind="restored"]')).to_have_count(0)
    finally:
        server.stop()


def test_the_move_history(browser: Any, tmp_path: Path) -> None:
    """§6: click a move, or use the arrow keys, to see the position after it; back to the live
    position; the FEN of the shown position is copied."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--variant", "brazilian").start()
    try:
        played = [("c3", "d4"), ("f6", "g5"), ("g3", "h4")]
        for a, b in played:
            server.move(sq(a), sq(b))
        state = server.wait_for(lambda s: len(s["moves"]) == 3)
        fens = [m["fen"] for m in state["moves"]]
        start = Position.start("brazilian").fen()
        with opened(browser, server.url + "/?lang=en", permissions=["clipboard-read", "clipboard-write"]) as page:
            moves = page.locator("#moves")
            expect(moves).to_have_text("1. c3-d4 f6-g5 2. g3-h4")
            live = pieces_drawn(page)
            assert live == in_position(fens[2])
            moves.get_by_text("c3-d4").click()
            expect(page.locator("#viewbar")).to_be_visible()
            expect(page.locator("#viewing")).to_have_text("Position after 1. c3-d4")
            expect(page.locator("#fenshown")).to_have_value(fens[0])
            assert pieces_drawn(page) == in_position(fens[0])
            expect(page.locator("#board .cell.last")).to_have_count(2)
            shot(page, "en-history")
            page.locator("#copyfen").click()
            assert page.evaluate("navigator.clipboard.readText()") == fens[0]
            page.locator("body").press("ArrowRight")
            expect(page.locator("#fenshown")).to_have_value(fens[1])
            expect(moves.locator('[aria-current="true"]')).to_have_text("f6-g5")
            page.keyboard.press("ArrowLeft")
            page.keyboard.press("ArrowLeft")
            expect(page.locator("#viewing")).to_have_text("Start position")
            expect(page.locator("#fenshown")).to_have_value(start)
            assert pieces_drawn(page) == in_position(start)
            # a move made meanwhile does not take the view away
            server.move(sq("b6"), sq("a5"))
            expect(moves).to_have_text("1. c3-d4 f6-g5 2. g3-h4 b6-a5")
            expect(page.locator("#fenshown")).to_have_value(start)
            page.keyboard.press("End")
            expect(page.locator("#viewbar")).to_be_hidden()
            after = server.get("/api/state")["fen"]
            expect(page.locator("#fenshown")).to_have_value(after)
            assert pieces_drawn(page) == in_position(after)
            page.locator("#nav-prev").click()  # the buttons too
            expect(page.locator("#fenshown")).to_have_value(fens[2])
            page.locator("#live").click()
            expect(page.locator("#fenshown")).to_have_value(after)
    finally:
        server.stop()


def test_keyboard_focus_and_axe(browser: Any, tmp_path: Path) -> None:
    """§8: every control reached by the keyboard with a visible focus; a move played from the
    keyboard; axe-core finds no serious or critical violation (live board with marks lit,
    the history, each language)."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--variant", "brazilian").start()
    try:
        server.move(sq("c3"), sq("d4"))
        server.move(sq("f6"), sq("e5"))  # white d4 must capture e5 now
        server.sim("lift", sq("g3"))  # a plain move instead: marks lit
        server.sim("place", sq("h4"))
        server.wait_for(lambda s: s["active"] is not None, timeout=10)
        for lang in LANGUAGES:
            with opened(browser, f"{server.url}/?lang={lang}") as page:
                page.wait_for_selector("#board .led")
                # the man put on the wrong square is drawn as itself (the one piece missing from g3)
                expect(page.locator(f'[data-square="{sq("h4")}"] .piece')).to_have_class("piece w")
                # no colour-only signal: every mark has a symbol and a border pattern
                for mark in page.locator("#board .led").all():
                    assert mark.locator(".sym").inner_text().strip()
                    assert mark.evaluate("(e) => getComputedStyle(e).borderTopStyle") in ("solid", "dashed", "dotted")
                violations = axe(page)
                assert not violations, (lang, violations)
                shot(page, f"{lang}-marks")
                if lang == "en":  # the history view too (its bar and the shown position)
                    page.locator("#nav-first").click()
                    assert not axe(page), lang
        server.sim("lift", sq("h4"))
        server.sim("place", sq("g3"))
        server.wait_for(lambda s: s["active"] is None)
        with opened(browser, server.url + "/?lang=en") as page:
            # Tab through the page: each control takes the focus in turn, and shows it
            seen: list[str] = []
            for _ in range(80):
                page.keyboard.press("Tab")
                info = page.evaluate(
                    """() => { const e = document.activeElement; const s = getComputedStyle(e);
                    return [e === document.body ? null : e.id || e.dataset.square || e.dataset.action || e.name,
                            s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2 || s.boxShadow !== 'none'] }"""
                )
                if info[0] is None or (seen and info[0] == seen[0]):
                    break  # round the page
                assert info[1], f"no visible focus on {info[0]}"
                seen.append(str(info[0]))
            for control in ("lang", "moves", "nav-first", "flip", "fenshown", "copyfen", "newgame", "ng-variant"):
                assert control in seen, (control, seen)
            assert sum(s.isdigit() for s in seen) == 1, seen  # the board: one square in the tab order
            # play d4xf6 with the keyboard: Enter lifts, arrows move, Enter puts down
            square = page.locator(f'[data-square="{sq("d4")}"]')
            square.focus()
            page.keyboard.press("Enter")
            expect(square.locator(".led")).to_have_attribute("data-role", "from")
            for key in ("ArrowUp", "ArrowUp", "ArrowRight", "ArrowRight"):
                page.keyboard.press(key)
            assert page.evaluate("document.activeElement.dataset.square") == str(sq("f6"))
            page.keyboard.press("Enter")
            expect(page.locator(f'[data-square="{sq("f6")}"] .led')).to_have_attribute("data-role", "to")
            target = page.locator(f'[data-square="{sq("e5")}"]')
            target.focus()
            page.keyboard.press("Space")
            expect(page.locator("#moves")).to_have_text("1. c3-d4 f6-e5 2. d4xf6")
    finally:
        server.stop()


def axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page (the vendored npm package)."""
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => JSON.stringify((await axe.run(document)).violations)")
    found = json.loads(result)
    return [
        {"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


# Holds back the page's WebSocket messages (the server's state) until the test lets them through.
HOLD_STATE = """
(() => {
  const Real = window.WebSocket;
  window.heldStates = [];
  window.WebSocket = class extends Real {
    set onmessage(f) {
      super.onmessage = (e) => (window.statesFlow ? f(e) : window.heldStates.push(() => f(e)));
    }
  };
})();
"""


def test_the_controls_wait_for_the_first_state(page: Any, tmp_path: Path) -> None:
    """Until the server's first state comes, the page's controls take no clicks (``<main inert>``):
    a click on "Find the shot" then threw in the page and did nothing (CI: a tactic never
    started after a reload on a busy machine); once it comes, the same click starts it."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--variant", "brazilian").start()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.context.add_init_script(HOLD_STATE)
        page.goto(f"{server.url}/?lang=en")
        page.wait_for_function("() => window.heldStates.length > 0")  # (the state came, and waits)
        assert page.locator("main").evaluate("m => m.inert") is True
        try:
            page.locator("#tr-tactic").click(timeout=1500)
        except PlaywrightTimeout:
            pass
        else:
            raise AssertionError("a click went through before the page had the state")
        assert server.get("/api/state")["training"]["on"] is False
        page.evaluate("() => { window.statesFlow = true; window.heldStates.forEach((f) => f()); }")
        assert page.locator("main").evaluate("m => m.inert") is False
        page.locator("#tr-tactic").click()
        server.wait_for(lambda s: s["training"]["on"] and s["training"]["mode"] == "tactic")
        expect(page.locator("#trainingon")).to_be_visible()  # (what the player sees: the tactic, begun)
        expect(page.locator("#trainingtitle")).to_contain_text(f"{UI['en']['training_tactic']}: ")
        assert not errors, errors
    finally:
        server.stop()
