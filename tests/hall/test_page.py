"""The hall page in Chromium: every board as a small live board with its players, clocks and
result; the arbiter's alerts (a board offline); a click opens one board's live view; the
arbiter pairs a round and enters a W.O. from the page; the printable pages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hall.broker import Mosquitto
from rules.pdn import read_game
from tests.conftest import OUTPUT, shared_path, wait_until
from tests.hall.conftest import BoardProcess, HallProcess


def test_the_hall_page_shows_the_boards_live_and_the_arbiter_acts_from_it(
    tmp_path: Path, mosquitto: Mosquitto, page: Any
) -> None:
    pdn = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--rounds", "5", "--event", "Open do Recife").start()
    boards = [BoardProcess(tmp_path, str(i), mosquitto.url, pdn, i, plies=12, gap=0.06) for i in (1, 2)]
    try:
        page.goto(hall.url + "/")
        wait_until(lambda: all(b.done() for b in boards), timeout=60, what="the boards to play")
        for b in boards:  # each card shows the board's position after its last move
            _gid, text = b.export()
            game = read_game(text)
            final = game.game().position
            card = page.locator(f'.card[data-board="{b.board}"]')
            card.locator("circle[data-piece]").first.wait_for()
            wait_until(
                lambda card=card, final=final: card.locator("circle[data-piece]").count() == len(final.pieces()),
                timeout=10,
                what=f"board {b.board}'s pieces on the page",
            )
            shown = {
                int(c.get_attribute("data-square")): c.get_attribute("data-piece")
                for c in card.locator("circle[data-piece]").all()
            }
            assert shown == {q: p.symbol for q, p in final.pieces().items()}
            assert game.tags["White"] in card.inner_text() and game.tags["Black"] in card.inner_text()
            assert card.locator(".clock").count() == 0  # a game without a clock shows none (tests/hall/test_clock.py)
            assert game.result == "1/2-1/2" and game.result in card.inner_text()  # the result the board entered
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "hall-page.png"), full_page=True)

        boards[1].stop()  # a board goes away: the arbiter sees it
        page.locator('.alert.offline[data-board="2"]').wait_for(timeout=15000)
        assert "board 2 is offline" in page.locator("#alerts").inner_text()
        assert "offline" in (page.locator('.card[data-board="2"]').get_attribute("class") or "")

        page.locator('.card[data-board="1"]').click()  # one board's live view
        page.wait_for_url(re.compile(r"/board/1$"))
        _gid, text = boards[0].export()
        page.locator("#onemoves li").nth(5).wait_for()  # (the view draws the game once it has fetched it)
        assert page.locator("#onemoves li").count() == 6  # 12 plies, two a line
        assert page.locator("#onetitle").inner_text().startswith("Board 1:")
        assert page.locator("#onepdn").get_attribute("href") == f"/games/1-{_gid}.pdn"

        # the arbiter: players, a round paired, a W.O. entered, the standings
        page.goto(hall.url + f"/?token={hall.token}")
        page.locator("#csv").fill("name,rating\nAna,1800\nBia,1700\nCid,1600\nDan,1500\n")
        page.locator("#csvform button").click()
        page.locator("#pairboards").fill("1,2")
        page.locator("#pairform button").click()
        page.locator("#pairingrows tr").nth(1).wait_for()
        assert page.locator("#round").inner_text() == "Round 1 of 5"
        # the pairing goes to board 1 (its game is over): its next game has the players and round
        cells = page.locator("#pairingrows tr").first.locator("td")
        assert cells.nth(1).inner_text() == "1"
        white, black = cells.nth(2).inner_text(), cells.nth(3).inner_text()
        card = page.locator('.card[data-board="1"]')
        wait_until(
            lambda: white in card.inner_text() and black in card.inner_text() and "R1" in card.inner_text(),
            timeout=15,
            what="board 1 to take the pairing",
        )
        gid, _text = boards[0].export()
        assert f'[White "{white}"]' in hall.get("/round/1.pdn") and '[Round "1"]' in hall.get("/round/1.pdn")
        sheet = hall.get(f"/games/1-{gid + 1}/sheet")
        assert f"Score sheet: {white} - {black}" in sheet and "signature" in sheet
        assert f"<td>{white}</td>" in hall.get("/pairings/1")
        page.locator('select[data-act="result"][data-table="1"]').select_option("+/-")
        wait_until(lambda: "+/-" in page.locator("#pairingrows tr").first.inner_text(), what="the W.O. on the page")
        assert f"<td>{white}</td><td>{black}</td><td>+/-</td>" in hall.get("/pairings/1")
        page.screenshot(path=str(OUTPUT / "hall-arbiter.png"), full_page=True)
        standings = hall.get("/standings")
        assert re.search(rf"<td>1</td><td>{white}</td><td></td><td>\d+</td><td>1</td><td>2</td>", standings)
        assert "@page { size: A4" in hall.get("/static/print.css")
        # without the token, nothing changes
        page.goto(hall.url + "/")
        page.evaluate("sessionStorage.clear()")
        status = page.evaluate(
            "fetch('/api/pair', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'})"
            ".then(r => r.status)"
        )
        assert status == 403
        assert hall.get("/api/state")["round"] == 1
    finally:
        for b in boards:
            b.stop()
        hall.stop()
