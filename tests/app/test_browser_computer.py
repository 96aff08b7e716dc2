"""Playing the computer from the page, in Chromium (issue 12.4): the new-game form's computer
fields start the game, the page shows the computer's move on the board's LEDs and in words,
the simulated hands (drags) make it, and the Hint button lights the engine's move for the player."""

from __future__ import annotations

from pathlib import Path

from rules import Position
from rules.pdn import read_game
from tests.app.server import Server
from tests.conftest import OUTPUT


def test_play_the_computer_and_ask_for_a_hint(page: object, tmp_path: Path) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    server = Server(tmp_path / "games.sqlite3", "--variant", "brazilian", "--black", "Ana").start()
    try:
        page.goto(server.url + "/?lang=en")
        expect(page.locator('[data-square="22"] .piece')).to_be_visible()

        def centre(square: int) -> tuple[float, float]:
            cell = page.locator(f'[data-square="{square}"]')
            cell.scroll_into_view_if_needed()  # the new-game form below the board may have scrolled it away
            box = cell.bounding_box()
            assert box is not None
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

        def drag(a: int, b: int) -> None:
            page.mouse.move(*centre(a))
            page.mouse.down()
            x, y = centre(b)
            page.mouse.move(x, y, steps=8)
            page.mouse.up()
            page.wait_for_timeout(150)

        def position(game: int) -> Position:
            return read_game(server.get(f"/games/{game}.pdn")).game().position

        def make(pos: Position, text: str) -> None:
            """The hands make a move on the page: drag the piece, click the captured pieces off."""
            move = pos.parse_pdn(text)
            drag(move.from_square, move.to_square)
            for sq in move.captured:
                page.mouse.click(*centre(sq))
                page.wait_for_timeout(150)

        # the new-game form: the computer plays White at level 1
        page.locator("#opponent").select_option("engine")
        page.locator("#computerside").select_option("white")
        page.locator("#level").select_option("1")
        page.locator("#newgame").click()
        expect(page.locator("#gameno")).to_have_text("Game 2")
        box = page.locator("#computer")
        expect(box).to_contain_text("The computer plays", timeout=60_000)
        state = server.get("/api/state")
        first = state["computer"]["move"]
        assert state["computer"] | {"move": None} == {
            "side": "white",
            "level": 1,
            "move_time": None,
            "name": state["computer"]["name"],
            "thinking": False,
            "move": None,
            "hint": None,
            "hint_pending": False,
            "hints": True,
            "error": None,
        }
        assert state["tags"]["White"] == f"{state['computer']['name']} (level 1)" and state["tags"]["Black"] == "Ana"
        start = Position.start("brazilian")
        move = start.parse_pdn(first)
        expect(box).to_have_text(f"The computer plays {first}: make its move on the board")
        # its move on the board's LEDs: the origin and the end
        expect(page.locator(f'[data-square="{move.from_square}"] .led')).to_have_attribute("data-role", "from")
        expect(page.locator(f'[data-square="{move.to_square}"] .led')).to_have_attribute("data-role", "to")
        page.screenshot(path=str(OUTPUT / "browser-computer-move.png"))
        # the hands play another piece: reported, with what to put back
        other = next(m for m in start.legal_moves if m.from_square != move.from_square)
        drag(other.from_square, other.to_square)
        expect(page.locator("#active")).to_contain_text(f"play the computer's move {first}: put the piece back on")
        drag(other.to_square, other.from_square)
        expect(page.locator("#active")).to_be_hidden()
        make(start, first)
        expect(page.locator("#moves")).to_have_text(f"1. {first}")
        expect(page.locator("#hint")).to_be_visible()

        # a hint for the player: the engine's move lit in the hint role, and in words
        page.locator("#hint").click()
        expect(box).to_contain_text("Hint: ", timeout=60_000)
        hint = server.get("/api/state")["computer"]["hint"]
        pos = position(2)
        route = pos.routes(pos.parse_pdn(hint))[0]
        # (issue 28) a suggested move's own roles: its piece, where it goes (not "can go")
        ends = {route.path[0]: "suggest-from", route.path[-1]: "suggest-to"}
        for sq in route.path:
            expect(page.locator(f'[data-square="{sq}"] .led')).to_have_attribute("data-role", ends.get(sq, "path"))
        expect(box).to_have_text(f"Hint: {hint}")
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "browser-computer-hint.png"))
        make(pos, hint)
        expect(page.locator("#moves")).to_contain_text(f"1. {first} {hint}")

        # the computer answers; its second move is made too
        expect(box).to_contain_text("The computer plays", timeout=60_000)
        second = server.get("/api/state")["computer"]["move"]
        make(position(2), second)
        expect(page.locator("#moves")).to_have_text(f"1. {first} {hint} 2. {second}")
        expect(page.locator("#hint")).to_be_visible()
        # the analysis of the moves so far, beside the move history
        page.locator("#analyze").click()
        expect(page.locator("#analysis")).to_contain_text("Analysis: ", timeout=60_000)
        page.screenshot(path=str(OUTPUT / "browser-computer.png"))
        record = read_game(server.get("/games/2.pdn"))
        assert [pm.text for pm in record.moves] == [first, hint, second]
        assert record.tags["White"].endswith("(level 1)")
    finally:
        server.stop()
