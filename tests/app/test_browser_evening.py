"""The page after an evening of play (issue 28), in Chromium: one tap never loses a game (two
for a resignation or for leaving a game, which can be resumed), the report list (a pause on a
touch-down square is no report, what a restore or a move ends is marked so, a clock's report is
not ended by the board, each line says its kind once, one capitalisation), the majority law's
reason in Portuguese with the man to take off lit, the LEDs' legend and the last move, move
numbers that stay with their moves, plurals, the FENACEF's control by its name."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rules import Position
from tests.app.server import Server, confirm_click
from tests.app.test_browser_page import PHONE, opened, pieces_drawn, shot
from tests.app.test_evening import MAJORITY, hand_move
from tests.conftest import random_game
from wording.page import KINDS, LEGEND, UI

VARIANT = "brazilian"
START = Position.start(VARIANT)


def sq(name: str) -> int:
    return START.geometry.parse_square(name)


def test_one_tap_never_loses_a_game_and_a_game_left_can_be_resumed(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3").start()
    try:
        after = hand_move(server, "c3-d4", START)
        first = server.get("/api/state")["game"]
        with opened(browser, f"{server.url}/?lang=en", **PHONE) as page:
            new = page.locator("#newgame")
            new.click()  # one tap: nothing is lost, the button says what a second would do
            page.wait_for_timeout(300)
            assert server.get("/api/state")["game"] == first  # (first: the old page started a new game here)
            expect(new).to_have_text(UI["en"]["confirm_new_game"].format(game=first))
            shot(page, "evening-confirm-new-game")
            page.wait_for_timeout(5200)  # not confirmed: the button is itself again
            expect(new).to_have_text(UI["en"]["new_game"])
            confirm_click(page, new)
            state = server.wait_for(lambda s: s["game"] != first)
            # the game left unfinished is listed, and comes back as it was
            item = page.locator(f'#recent li[data-game="{first}"]')
            expect(item).to_contain_text(UI["en"]["state_abandoned"])
            expect(item).to_contain_text("1 ply")
            shot(page, "evening-recent-games")
            item.locator("button.resume").click()  # (the new game has no move: nothing to confirm)
            server.wait_for(lambda s: s["game"] == first and len(s["moves"]) == 1)
            expect(page.locator("#gameno")).to_have_text(f"{UI['en']['game']} {first}")
            expect(page.locator(f'#recent li[data-game="{state["game"]}"]')).to_contain_text("0 plies")
            want = {str(q): p.symbol for q, p in after.pieces().items()}
            page.wait_for_function("(n) => document.querySelectorAll('#board .piece').length === n", arg=len(want))
            assert pieces_drawn(page) == want
            hand_move(server, "f6-e5", after)  # and play goes on
            # a resignation: one tap arms, the second confirms
            resign = page.locator('[data-action="resign"][data-side="black"]')
            resign.click()
            expect(resign).to_have_text(UI["en"]["confirm_resign_black"])
            page.wait_for_timeout(300)
            assert server.get("/api/state")["result"] == "*"
            confirm_click(page, page.locator('[data-action="resign"][data-side="white"]'))
            expect(page.locator("#status")).to_contain_text("0-1")
            assert server.get("/api/state")["game"] == first
    finally:
        server.stop()


def report_lines(page: Any) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = page.evaluate(
        "() => [...document.querySelectorAll('#reports li[data-kind]')].map((li) => ({kind: li.dataset.kind,"
        " resolved: li.dataset.resolved || null, text: li.querySelector('.msg').textContent,"
        " resolution: (li.querySelector('.resolution') || {}).textContent || null}))"
    )
    return got


def said_once(lines: list[dict[str, Any]], lang: str) -> None:
    """Each line names its kind once, starts with a capital and goes on in lower case after a colon."""
    for line in lines:
        for text in (line["text"], line["resolution"]):
            if text is None:
                continue
            assert text[0].isupper(), (lang, text)
            for after in re.findall(r": (\w)", text):
                assert not after.isupper(), (lang, text)
            label = KINDS[lang].get(line["kind"], "").lower()
            if label:
                assert text.lower().count(label) <= 1, (lang, text)


def test_the_report_list_after_a_capture_a_law_and_a_restore(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3").start()
    try:
        # a double capture with a long rest on its touch-down square: guidance while it lasts,
        # no report once the capture is made
        fen = f"W:W{sq('c3')},{sq('h2')}:B{sq('d4')},{sq('f6')},{sq('b8')}"
        server.post("/api/action", {"action": "new-game", "fen": fen})
        server.wait_for(lambda s: s["fen"] == Position.from_fen(fen, VARIANT).fen() and s["active"] is None)
        server.sim("lift", sq("c3"))
        server.sim("place", sq("e5"))
        with opened(browser, f"{server.url}/?lang=en") as page:
            expect(page.locator("#active")).to_contain_text("continue the capture from e5", timeout=10_000)
            server.sim("lift", sq("e5"))
            server.sim("place", sq("g7"))
            server.sim("lift", sq("d4"))
            server.sim("lift", sq("f6"))
            server.wait_for(lambda s: len(s["moves"]) == 1)
            expect(page.locator("#active")).to_be_hidden()
            expect(page.locator("#reports li[data-kind]")).to_have_count(0)
            expect(page.locator("#reports")).to_contain_text(UI["en"]["no_reports"])
        # 1. e3-d4 d6-e5 2. a3-b4 b6-c5: d4xb6 takes one piece where b4 takes two
        server.post("/api/action", {"action": "new-game", "fen": ""})
        server.wait_for(lambda s: not s["moves"] and s["fen"] == START.fen())
        pos = START
        for pdn in ("e3-d4", "d6-e5", "a3-b4", "b6-c5"):
            pos = hand_move(server, pdn, pos)
        assert pos.fen() == Position.from_fen(MAJORITY, VARIANT).fen()
        server.sim("lift", sq("d4"))
        server.wait_for(lambda s: s["active"] is not None)  # not the piece that must capture
        server.sim("place", sq("b6"))
        server.sim("lift", sq("c5"))
        server.wait_for(lambda s: s["active"] is not None and "law" in s["active"]["message"])
        for lang, law in (("pt-BR", "lei da maioria obriga a tomar 2 peças"), ("pt-PT", "maior número de peças: 2")):
            with opened(browser, f"{server.url}/?lang={lang}") as page:
                expect(page.locator("#active")).to_contain_text(law)
                expect(page.locator("#active")).to_contain_text("capture com b4")
                expect(page.locator(f'[data-square="{sq("b6")}"] .led')).to_have_attribute("data-role", "extra")
                expect(page.locator('#legend li[data-role="extra"]')).to_have_class(re.compile(r"\blit\b"))
                shot(page, f"evening-majority-{lang}")
        # put right, then the capture the law requires
        server.sim("place", sq("c5"))
        server.sim("lift", sq("b6"))
        server.sim("place", sq("d4"))
        server.wait_for(lambda s: s["active"] is None)
        pos = hand_move(server, "b4xf4", pos)
        for lang in ("en", "pt-BR", "pt-PT"):
            with opened(browser, f"{server.url}/?lang={lang}") as page:
                lines = report_lines(page)
                required = [x for x in lines if x["kind"] == "required-capture"]
                assert len(required) >= 2 and all(x["resolved"] for x in required), lines
                said_once(lines, lang)
                if lang == "en":
                    assert not any("compulsory: a capture is compulsory" in x["text"] for x in lines), lines
                shot(page, f"evening-reports-{lang}")
    finally:
        server.stop()


def test_a_clock_report_is_not_ended_by_the_board(browser: Any, tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--clock", "21", "--mode", "tournament").start()
    try:
        server.post("/api/action", {"action": "clock", "side": "black"})  # White's clock runs
        server.sim("lift", sq("b6"))  # a black piece moved on White's turn
        server.sim("place", sq("a5"))
        server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "wrong-side")
        server.post("/api/action", {"action": "clock", "side": "white"})  # White presses without a move
        server.wait_for(lambda s: any(r["kind"] == "clock-no-move" for r in s["reports"]))
        server.sim("lift", sq("a5"))
        server.sim("place", sq("b6"))
        server.wait_for(lambda s: s["active"] is None)
        for lang in ("en", "pt-BR"):
            with opened(browser, f"{server.url}/?lang={lang}") as page:
                page.wait_for_function("() => document.querySelectorAll('#reports li[data-kind]').length >= 2")
                lines = {x["kind"]: x for x in report_lines(page)}
                assert lines["wrong-side"]["resolved"] == "restored", lines
                assert lines["clock-no-move"]["resolved"] is None, lines  # the board has nothing to do with it
                said_once(list(lines.values()), lang)
    finally:
        server.stop()


def test_the_last_move_the_legend_the_move_list_and_the_clock_by_name(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--clock", "fenacef").start()
    try:
        _start, moves = random_game(VARIANT, 7, 24)
        pos = START
        for move in moves:
            pos = hand_move(server, pos.pdn(move), pos)
        last = moves[-1]
        with opened(browser, f"{server.url}/?lang=en", **PHONE) as page:
            expect(page.locator("#clockstatus")).to_contain_text("FENACEF, 21 min")
            for q in (last.from_square, last.to_square):
                expect(page.locator(f'[data-square="{q}"] .led')).to_have_attribute("data-role", "last")
            # nothing is lifted: the legend does not light "the piece that moves"
            expect(page.locator('#legend li[data-role="last"]')).to_have_class(re.compile(r"\blit\b"))
            expect(page.locator('#legend li[data-role="from"]')).not_to_have_class(re.compile(r"\blit\b"))
            expect(page.locator('#legend li[data-role="last"]')).to_contain_text(LEGEND["en"]["last"])
            # on a phone the move list wraps: never between a move number and its move
            pairs = page.evaluate(
                "() => [...document.querySelectorAll('#moves .num')].map((n) => {"
                " let m = n.nextElementSibling; while (m && !m.classList.contains('mv')) m = m.nextElementSibling;"
                " return [n.textContent, n.getBoundingClientRect().top, m.getBoundingClientRect().top]; })"
            )
            tops = {round(top) for _n, top, _m in pairs}
            assert len(pairs) == (len(moves) + 1) // 2 and len(tops) > 1, pairs  # several lines
            assert all(abs(a - b) < 8 for _n, a, b in pairs), pairs  # (a line is 25 px)
            shot(page, "evening-phone-moves")
        with opened(browser, f"{server.url}/?lang=pt-BR") as page:
            expect(page.locator("#clockstatus")).to_contain_text("Controle de tempo: FENACEF, 21 min")
    finally:
        server.stop()


def test_one_marked_move_is_one(browser: Any, tmp_path: Path) -> None:
    """The analysis of a game with one mistake says "1 marked move" (once "1 marked moves")."""
    from playwright.sync_api import expect

    from tests.app.test_browser_live import BLUNDER

    server = Server(tmp_path / "g.sqlite3").start()
    fen = BLUNDER  # a5-b6 gives a man away
    try:
        server.post("/api/action", {"action": "new-game", "fen": fen})
        pos = Position.from_fen(fen, VARIANT)
        server.wait_for(lambda s: s["fen"] == pos.fen())
        pos = hand_move(server, "a5-b6", pos)
        hand_move(server, "c5xa7", pos)
        for lang, said in (("en", "Analysis: 1 marked move"), ("pt-BR", "Análise: 1 lance marcado")):
            with opened(browser, f"{server.url}/?lang={lang}") as page:
                page.locator("#analyze").click()
                expect(page.locator("#analysis")).to_contain_text(said, timeout=60_000)
    finally:
        server.stop()
