"""The page for screen readers, in Chromium: its live regions announce each move and report in
order as the board says them (read from Chromium's accessibility tree, as NVDA, JAWS and Orca
read it), urgent ones assertively; the page speaks them through the Web Speech API when its
switch is on; the read-out key; the moves labelled as they are said; every control reached by
the keyboard; axe-core finds no serious or critical violation."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rules import Position
from tests.app.server import Server
from tests.app.test_browser_page import axe, opened, shot
from tests.conftest import wait_until

#: the Web Speech API, recorded: what the page asked the browser to say, in which language
RECORD_SPEECH = """
window.spokenByPage = [];
window.speechSynthesis.speak = (u) => { window.spokenByPage.push([u.text, u.lang]); };
window.speechSynthesis.cancel = () => { window.spokenByPage.push(["(cancel)", ""]); };
"""


def sq(name: str) -> int:
    return Position.start("brazilian").geometry.parse_square(name)


def live_regions(page: Any) -> dict[str, list[str]]:
    """What the page's announcing live regions hold, in order, read from Chromium's
    accessibility tree: ``{"polite": [...], "assertive": [...]}`` (each region is checked to be
    exposed as a live region of that kind)."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        backend = {}
        for region in ("announce", "announce-urgent"):
            node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f"#{region}"})["nodeId"]
            backend[region] = cdp.send("DOM.describeNode", {"nodeId": node})["node"]["backendNodeId"]
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}

    def prop(node: dict[str, Any], name: str) -> Any:
        for p in node.get("properties", []):
            if p["name"] == name:
                return p["value"].get("value")
        return None

    def texts(node: dict[str, Any]) -> list[str]:
        out: list[str] = []
        for child in node.get("childIds", []):
            c = by_id.get(child)
            if c is None:
                continue
            if c.get("role", {}).get("value") == "StaticText":
                out.append(c.get("name", {}).get("value", ""))
            else:
                out += texts(c)
        return out

    out: dict[str, list[str]] = {}
    for region, live in (("announce", "polite"), ("announce-urgent", "assertive")):
        (node,) = [n for n in nodes if n.get("backendDOMNodeId") == backend[region]]
        assert prop(node, "live") == live, (region, node.get("properties"))
        out[live] = texts(node)
    return out


def timing_phrases(server: Server, lang: str) -> set[str]:
    """What the board said only because a hand held a piece up, or left a captured piece on the
    board, longer than the grace time (a test's hands can, on a loaded machine): the texts and
    the voice's forms, in ``lang``. They may come between the phrases a test expects (in the
    live regions, the page's voice and the log), never instead of one."""
    spoken = server.get(f"/api/state?lang={lang}")["spoken"]
    timing = [u for u in spoken if u["what"] == "pieces" or u["group"] == "remove"]
    return {u["text"] for u in timing} | {u["say"] for u in timing}


def announced(page: Any, server: Server, lang: str) -> dict[str, list[str]]:
    """:func:`live_regions` without the phrases :func:`timing_phrases` allows."""
    timing = timing_phrases(server, lang)
    return {k: [t for t in v if t not in timing] for k, v in live_regions(page).items()}


def test_the_live_regions_announce_each_phrase_in_order(browser: Any, tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--variant", "brazilian").start()
    try:
        server.move(sq("c3"), sq("d4"))  # before the page opened: not announced
        with opened(browser, f"{server.url}/?lang=en", RECORD_SPEECH) as page:
            page.locator("#speak").check()  # the page speaks too
            assert live_regions(page).get("polite", []) == []
            server.move(sq("f6"), sq("e5"))
            server.sim("lift", sq("g3"))  # a plain move while d4 must capture: urgent
            server.sim("place", sq("h4"))
            server.wait_for(lambda s: s["active"] is not None, timeout=10)
            server.sim("lift", sq("h4"))  # put right
            server.sim("place", sq("g3"))
            server.wait_for(lambda s: s["active"] is None, timeout=10)
            polite = ["Black: f6 to e5.", "White must capture, with d4.", "Put right."]
            wait_until(
                lambda: announced(page, server, "en").get("polite") == polite, timeout=10, what="the polite phrases"
            )
            urgent = announced(page, server, "en").get("assertive")
            # (if the lift was reported before h4 was reached, h4 is said again with it)
            assert urgent in (
                ["A capture is compulsory, with d4. Put back on g3. Take off h4."],
                [
                    "A capture is compulsory, with d4. Put back on g3.",
                    "A capture is compulsory, with d4. Put back on g3. Take off h4.",
                ],
            )
            # the page's own voice: the same phrases, in the page's language, the urgent one first
            timing = timing_phrases(server, "en")
            spoken = [u for u in page.evaluate("window.spokenByPage") if u[0] not in timing]
            assert spoken == [
                ["Black: f6 to e5.", "en"],
                ["White must capture, with d4.", "en"],
                ["(cancel)", ""],
                [urgent[0], "en"],
                ["Put right.", "en"],
            ]
            # the log beside them shows every phrase said since the game began
            log = [t for t in page.locator("#said li").all_inner_texts() if t not in timing]
            assert log[-5:] == [
                "White: c3 to d4.",
                "Black: f6 to e5.",
                "White must capture, with d4.",
                *urgent,
                "Put right.",
            ]
            # the moves are labelled as they are said
            labels = page.locator("#moves button.mv").evaluate_all(
                "(bs) => bs.map((b) => b.getAttribute('aria-label'))"
            )
            assert labels == ["c3-d4 — 1. White: c3 to d4.", "f6-e5 — 1. Black: f6 to e5."]
            # R reads the position out (the live region: a screen reader says it)
            page.locator("#said").focus()
            page.keyboard.press("r")
            wait_until(
                lambda: len(announced(page, server, "en").get("polite", [])) == 4, timeout=10, what="the read-out"
            )
            read = announced(page, server, "en")["polite"][-1]
            assert read.startswith(
                "White to move. White must capture, with d4. Last move: Black, f6 to e5. White: 12 men"
            )
            assert page.evaluate("window.spokenByPage")[-1] == [read, "en"]
            # L: the last move only; C: the clocks only (this game has none)
            page.keyboard.press("l")
            wait_until(
                lambda: len(announced(page, server, "en").get("polite", [])) == 5, timeout=10, what="the last move"
            )
            assert announced(page, server, "en")["polite"][-1] == (
                "White to move. White must capture, with d4. Last move: Black, f6 to e5."
            )
            page.keyboard.press("c")
            wait_until(lambda: len(announced(page, server, "en").get("polite", [])) == 6, timeout=10, what="the clocks")
            assert announced(page, server, "en")["polite"][-1] == "This game has no clock."
            shot(page, "speech-en")
            assert not axe(page)
        with opened(browser, f"{server.url}/?lang=pt-BR", RECORD_SPEECH) as page:
            page.locator("#speak").check()
            server.move(sq("d4"), sq("f6"))
            server.sim("lift", sq("e5"))
            wait_until(
                lambda: len(announced(page, server, "pt-BR").get("polite", [])) == 2,
                timeout=10,
                what="the capture said",
            )
            assert announced(page, server, "pt-BR")["polite"] == [
                "Brancas: d4 toma f6.",
                "Captura obrigatória para as pretas, com e7 ou g7.",
            ]
            # the voice reads a square's letter by its name ("é5" is not the word "e")
            timing = timing_phrases(server, "pt-BR")
            spoken = [u for u in page.evaluate("window.spokenByPage") if u[0] not in timing]
            assert spoken[0] == ["Brancas: dê4 toma éfe6.", "pt-BR"]
            assert not axe(page)
    finally:
        server.stop()


def test_every_control_is_reached_by_the_keyboard(browser: Any, tmp_path: Path) -> None:
    """Tab goes round the page through every control (the board, the moves and a radio group
    take one stop each, their squares, moves and choices by the arrow keys), the talking
    board's among them."""
    server = Server(tmp_path / "g.sqlite3", "--variant", "brazilian").start()
    try:
        server.move(sq("c3"), sq("d4"))
        with opened(browser, f"{server.url}/?lang=en") as page:
            controls: list[str] = page.evaluate(
                """() => [...document.querySelectorAll('button, input, select, a[href], [tabindex]')]
                .filter((e) => e.offsetParent !== null && !e.disabled && e.tabIndex >= 0 && !e.closest('#board'))
                .filter((e) => e.type !== 'radio' || e.checked)  // a radio group: one stop, its arrows within
                .map((e, i) => { e.dataset.tabid = e.dataset.tabid || 't' + i; return e.dataset.tabid; })"""
            )
            assert len(controls) > 25
            seen: list[str] = []
            for _ in range(200):
                page.keyboard.press("Tab")
                here = page.evaluate(
                    "() => { const e = document.activeElement;"
                    " return e.dataset.tabid || (e.closest('#board') ? 'board' : null); }"
                )
                if here is not None and seen and here == seen[0]:
                    break
                if here is not None:
                    seen.append(here)
            missing = [
                page.evaluate(f"() => document.querySelector('[data-tabid={c}]').outerHTML.slice(0, 80)")
                for c in controls
                if c not in seen
            ]
            assert not missing, missing
            assert seen.count("board") == 1
            ids = page.evaluate(
                f"() => {seen!r}.map((t) => (document.querySelector(`[data-tabid=${{t}}]`) || {{}}).id)"
            )
            for control in ("speak", "readout", "said"):
                assert control in ids, ids
            # the speak switch and the read-out button work from the keyboard
            page.locator("#speak").focus()
            page.keyboard.press("Space")
            assert page.locator("#speak").is_checked()
            page.locator("#readout").focus()
            page.keyboard.press("Enter")
            wait_until(
                lambda: any(t.startswith("Black to move.") for t in live_regions(page).get("polite", [])),
                timeout=10,
                what="the read-out",
            )
    finally:
        server.stop()
