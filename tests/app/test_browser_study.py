"""Variations on the page (issue 28), in Chromium: from a past position of the game in play,
moves tried on the page's board (a drag, or a piece picked then its square) are kept as PDN
variations, the live analysis follows them, the study downloads as PDN (read back with its
variations) and the game in play is untouched; a pasted PDN opens with its variations; a bad
one is one line on the page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rules import Position
from rules.pdn import read_game, read_pdn
from tests.app.server import Server
from tests.app.test_browser_page import opened, pieces_drawn, shot
from tests.app.test_browser_training import take_back
from tests.app.test_evening import hand_move
from wording.page import UI

VARIANT = "brazilian"
START = Position.start(VARIANT)


def sq(name: str) -> int:
    return START.geometry.parse_square(name)


def centre(page: Any, square: int) -> tuple[float, float]:
    cell = page.locator(f'[data-square="{square}"]')
    cell.scroll_into_view_if_needed()
    box = cell.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def drag(page: Any, a: str, b: str) -> None:
    page.mouse.move(*centre(page, sq(a)))
    page.mouse.down()
    page.mouse.move(*centre(page, sq(b)), steps=8)
    page.mouse.up()


def tree_text(page: Any) -> str:
    text: str = page.locator("#studytree").inner_text()
    return " ".join(text.split()).replace("( ", "(").replace(" )", ")")


def test_moves_tried_from_a_past_position_become_variations(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        pos = START
        for move in ("c3-d4", "f6-g5", "g3-h4"):
            pos = hand_move(server, move, pos)
        first = server.get("/api/state")["game"]
        played = server.get(f"/games/{first}.pdn")
        with opened(browser, f"{server.url}/?lang=en", refusals=True, accept_downloads=True) as page:
            # the position after 1. c3-d4, from the move list; moves tried from there
            page.locator("#moves .mv").first.click()
            expect(page.locator("#viewing")).to_contain_text("c3-d4")
            page.locator("#branch").click()
            expect(page.locator("#studytree .mv.current")).to_have_text("c3-d4")
            assert tree_text(page) == "1. c3-d4 f6-g5 2. g3-h4"
            drag(page, "b6", "a5")  # a drag: 1... b6-a5 instead of f6-g5
            expect(page.locator("#studytree .mv.current")).to_have_text("b6-a5")
            assert tree_text(page) == "1. c3-d4 f6-g5 (1... b6-a5) 2. g3-h4"
            # a piece picked, then its square (as the keyboard does it)
            page.locator(f'[data-square="{sq("d4")}"]').click()
            expect(page.locator(f'[data-square="{sq("d4")}"]')).to_have_class("cell dark picked")
            page.locator(f'[data-square="{sq("c5")}"]').click()
            expect(page.locator("#studytree .mv.current")).to_have_text("d4-c5")
            assert tree_text(page) == "1. c3-d4 f6-g5 (1... b6-a5 2. d4-c5) 2. g3-h4"
            after = START
            for move in ("c3-d4", "b6-a5", "d4-c5"):
                after = after.apply(after.parse_pdn(move))
            assert pieces_drawn(page) == {str(q): p.symbol for q, p in after.pieces().items()}
            # the live analysis looks at the position tried
            page.locator("#livetoggle").check()
            expect(page.locator("#linetext")).to_contain_text("2... ", timeout=60_000)
            assert page.locator("#linetext").inner_text().startswith("2... ")
            shot(page, "study-variation")
            # the study as PDN: the variation in parentheses, read back as one
            with page.expect_download() as got:
                page.locator("#st-download").click()
            text = Path(got.value.path()).read_text()
            assert "1. c3-d4 f6-g5 (1... b6-a5 2. d4-c5) 2. g3-h4 *" in text, text
            back = read_game(text)
            assert [m.text for m in back.moves] == ["c3-d4", "f6-g5", "g3-h4"]
            assert [[m.text for m in line] for line in back.moves[1].variations] == [["b6-a5", "d4-c5"]]
            # another variation, made the main line, and the first one deleted
            page.locator("#studytree .mv", has_text="c3-d4").click()
            drag(page, "h6", "g5")
            expect(page.locator("#studytree .mv.current")).to_have_text("h6-g5")
            page.locator("#st-promote").click()
            expect(page.locator("#studytree")).to_contain_text("1. c3-d4 h6-g5")
            page.locator("#studytree .mv", has_text="b6-a5").click()
            expect(page.locator("#studytree .mv.current")).to_have_text("b6-a5")  # (before its deletion)
            page.locator("#st-delete").click()
            expect(page.locator("#studytree .mv.current")).to_have_text("c3-d4")
            assert tree_text(page) == "1. c3-d4 h6-g5 (1... f6-g5 2. g3-h4)"
            # back to the game: as it was played, the board live again
            page.locator("#st-close").click()
            expect(page.locator("#studyon")).to_be_hidden()
            assert server.get(f"/games/{first}.pdn") == played
            assert pieces_drawn(page) == {str(q): p.symbol for q, p in pos.pieces().items()}
            # a PDN pasted: it opens with its variations; a broken one is one line
            page.locator("#st-loadtoggle").click()
            page.locator("#st-pdn").fill("1. c3-d4 (1. e3-f4 f6-g5) 1... b6-a5 2. d4-c5 *")
            page.locator("#st-open").click()
            expect(page.locator("#studyon")).to_be_visible()
            assert tree_text(page) == "1. c3-d4 (1. e3-f4 f6-g5) 1... b6-a5 2. d4-c5"
            page.locator("#st-loadtoggle").click()
            page.locator("#st-pdn").fill("1. c3-d4 b6-a5 2. d4-e9 *")
            with page.expect_response(lambda r: "/api/action" in r.url) as answer:
                page.locator("#st-open").click()
            assert answer.value.status == 400
            error = page.locator("#st-error")
            expect(error).to_contain_text("d4-e9")
            assert "\n" not in error.inner_text()
            shot(page, "study-pasted")
            # the study on the board (the game in play kept aside): its position to set up there, lit
            page.locator("#st-board").click()
            expect(page.locator("#st-board")).to_have_attribute("aria-pressed", "true")
            setup = server.wait_for(lambda s: s["board_analysis"] is not None and s["board_analysis"]["fill"])
            assert setup["fen"] == START.fen() and not setup["moves"]
            fill = ", ".join(setup["names"][str(q)] for q in setup["board_analysis"]["fill"])
            expect(page.locator("#ba-text")).to_contain_text(f"put a piece on {fill}")
            for q in setup["board_analysis"]["fill"]:
                assert setup["leds"][str(q)] == "missing"
                expect(page.locator(f'[data-square="{q}"] .led[data-role="missing"]')).to_have_count(1)
            shot(page, "analysis-setup")
            page.locator("#ba-fix").click()  # the simulated hands do what is lit
            expect(page.locator("#ba-text")).to_contain_text("The board holds this position")
            expect(page.locator("#ba-fix")).to_be_hidden()
            pos = START
            for move in ("c3-d4", "b6-a5"):
                pos = hand_move(server, move, pos)
            expect(page.locator("#studytree .mv.current")).to_have_text("b6-a5")
            tried = pos.parse_pdn("a3-b4")
            hand_move(server, "a3-b4", pos)
            expect(page.locator("#studytree .mv.current")).to_have_text("a3-b4")
            assert tree_text(page) == "1. c3-d4 (1. e3-f4 f6-g5) 1... b6-a5 2. d4-c5 (2. a3-b4)"
            take_back(server, pos, tried)  # the move taken back: its position again, the move kept
            expect(page.locator("#studytree .mv.current")).to_have_text("b6-a5")
            assert tree_text(page) == "1. c3-d4 (1. e3-f4 f6-g5) 1... b6-a5 2. d4-c5 (2. a3-b4)"
            shot(page, "analysis-played")
            # the page's ‹: one ply back, its position to set up on the board again
            page.locator("#st-prev").click()
            expect(page.locator("#studytree .mv.current")).to_have_text("c3-d4")
            expect(page.locator("#ba-text")).to_contain_text(f"take the piece off {pos.square_text(sq('a5'))}")
            page.locator("#ba-fix").click()
            expect(page.locator("#ba-text")).to_contain_text("The board holds this position")
            # leaving: back to the game in play, untouched, once its position is back on the board
            page.locator("#st-board").click()
            expect(page.locator("#st-board")).to_have_attribute("aria-pressed", "false")
            expect(page.locator("#ba-text")).to_contain_text(f"Back to game {first}")
            back = server.get("/api/state")
            assert back["board_analysis"]["returning"] and back["game"] == first
            lit = back["board_analysis"]["fill"] + back["board_analysis"]["empty"]
            assert lit and {back["leds"][str(q)] for q in lit} == {"missing", "extra"}
            for q in lit:  # the page shows the board as it stands, the squares to change lit
                expect(page.locator(f'[data-square="{q}"] .led')).to_have_count(1)
            shot(page, "analysis-return")
            for q in lit:  # the simulated hands put the game back, one click a square
                page.locator(f'[data-square="{q}"]').click()
                expect(page.locator(f'[data-square="{q}"] .led')).to_have_count(0)
            expect(page.locator("#boardanalysis")).to_be_hidden()
            assert server.get(f"/games/{first}.pdn") == played
            assert server.get("/api/state")["game"] == first
            # a file of many games: its first opens; one game too long for a request is said so
            games = Path(__file__).parents[1] / "data" / "games" / "brazilian" / "lidraughts-brazilian.pdn"
            page.locator("#st-file").set_input_files(str(games))
            expect(page.locator("#st-pdn")).to_have_value(re.compile(r"^\[Event"))
            page.locator("#st-open").click()
            first_game = read_pdn(games.read_text())[0]
            expect(page.locator("#studytree .mv").first).to_have_text(first_game.moves[0].text)
            assert page.locator("#studytree .mv").count() == len(first_game.moves)
            page.locator("#st-loadtoggle").click()
            page.locator("#st-pdn").fill("1. c3-d4 {" + "x" * 70_000 + "} *")
            page.locator("#st-open").click()
            expect(page.locator("#st-error")).to_have_text(UI["en"]["study_too_big"])
            page.locator("#st-loadtoggle").click()
    finally:
        server.stop()
