"""Training on the board (issue 28), in Chromium with the simulated board's hands: a shipped
master game replayed to its end with each move lit on the LEDs; the same game with White's
moves guessed (a wrong guess told, what to put back lit, the move then lit); a tactic failed,
then the next one solved."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from damas.study.training import shipped_games, shipped_tactics
from rules import Move, Position
from rules.pdn import read_game
from tests.app.server import Server
from tests.app.test_browser_page import opened, shot
from tests.app.test_evening import hand_move
from wording.page import UI

VARIANT = "brazilian"
WORDS = UI["en"]


def said(page: Any, text: str) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#trainingsaid")).to_have_text(text, timeout=20_000)


def leds(server: Server) -> dict[str, str]:
    got: dict[str, str] = server.get("/api/state")["leds"]
    return got


def take_back(server: Server, pos: Position, move: Move) -> None:
    """The hands put the position before ``move`` back (the referee takes the move back)."""
    plies = len(server.get("/api/state")["moves"])
    server.sim("lift", move.to_square)
    server.sim("place", move.from_square)
    for q in move.captured:
        server.sim("place", q)
    server.wait_for(lambda s: len(s["moves"]) == plies - 1)


def test_a_master_game_replayed_guessed_and_tactics(browser: Any, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    game = shipped_games(VARIANT)[1]
    moves = [m.move for m in game.moves]
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        with opened(browser, f"{server.url}/?lang=en") as page:
            # replay: each move lit (its piece and where it goes), made by the hands, to the end
            page.locator("#tr-game").select_option("1")
            page.locator("#tr-start").click()
            expect(page.locator("#trainingtitle")).to_contain_text(f"{game.tags['White']} – {game.tags['Black']}")
            pos = game.start_position
            for i, move in enumerate(moves):
                number = f"{i // 2 + 1}." if i % 2 == 0 else f"{i // 2 + 1}..."
                said(page, f"Play {number} {pos.pdn(move)}.")
                lit = leds(server)
                assert lit[str(move.from_square)] == "suggest-from" and lit[str(move.to_square)] == "suggest-to", lit
                if i == 10:
                    shot(page, "training-replay")
                pos = hand_move(server, pos.pdn(move), pos)
            said(page, WORDS["training_done"])
            recorded = read_game(server.get(f"/games/{server.get('/api/state')['game']}.pdn"))
            assert [m.move for m in recorded.moves] == moves
            assert recorded.tags["Event"].startswith("Training: ")
            # guess White's moves: a wrong guess is told, what to put back is lit, then the move is
            page.locator('input[name="trmode"][value="guess"]').check()
            page.locator("#tr-side").select_option("white")
            page.locator("#tr-start").click()
            said(page, WORDS["training_guess"])
            start = game.start_position
            assert not {r for r in leds(server).values() if r.startswith("suggest")}
            wrong = next(
                m for m in start.legal_moves if m != moves[0] and not m.captured and not start.apply(m).has_captures()
            )
            hand_move(server, start.pdn(wrong), start)
            said(page, WORDS["training_wrong"].format(move=f"1. {start.pdn(moves[0])}"))
            # the board says it too (its voice, when it has one, and the page's list of what it said)
            expect(page.locator("#said")).to_contain_text(
                WORDS["training_wrong"].format(move=f"1. {start.pdn(moves[0])}")
            )
            lit = leds(server)
            assert lit[str(wrong.from_square)] == "missing" and lit[str(wrong.to_square)] == "extra", lit
            shot(page, "training-wrong-guess")
            take_back(server, start, wrong)
            said(page, f"Play 1. {start.pdn(moves[0])}.")
            pos = hand_move(server, start.pdn(moves[0]), start)
            said(page, f"Play 1... {pos.pdn(moves[1])}.")  # Black's moves are lit
            pos = hand_move(server, pos.pdn(moves[1]), pos)
            said(page, WORDS["training_guess"])
            second = pos.pdn(moves[2])
            pos = hand_move(server, second, pos)
            said(page, f"Right: 2. {second}. Play 2... {pos.pdn(moves[3])}.")
            expect(page.locator("#trainingscore")).to_have_text("1 of 2 found")
            # tactics: the first failed, the next solved
            tactics = shipped_tactics(VARIANT)
            page.evaluate("() => localStorage.setItem('damas-tactic', '0')")
            page.reload()
            page.locator("#tr-tactic").click()  # (from a training's game: nothing to confirm)
            first = Position.from_fen(tactics[0].fen, VARIANT)
            shot_move = first.parse_pdn(tactics[0].move)
            server.wait_for(lambda s: s["fen"] == first.fen())
            said(page, WORDS["training_find"])
            assert not leds(server)
            # every other move lets the opponent capture: taken back on a board that senses presence
            # only, it also reads as that capture with a silent sensor, so the referee waits for the
            # next event; the page and the LEDs show the shot meanwhile, and making it settles both
            miss = next(m for m in first.legal_moves if m != shot_move and not m.captured)
            assert first.apply(miss).has_captures()
            hand_move(server, first.pdn(miss), first)
            said(page, WORDS["training_wrong_tactic"].format(move=f"1. {tactics[0].move}"))
            lit = leds(server)
            assert lit[str(miss.from_square)] == "missing" and lit[str(miss.to_square)] == "extra", lit
            server.sim("lift", miss.to_square)
            server.sim("place", miss.from_square)
            said(page, f"Play 1. {tactics[0].move}.")
            lit = leds(server)
            assert lit[str(shot_move.from_square)] == "suggest-from" and lit[str(shot_move.to_square)] == "suggest-to"
            server.sim("lift", shot_move.from_square)
            server.sim("place", shot_move.to_square)
            server.wait_for(lambda s: [m["pdn"] for m in s["moves"]] == [tactics[0].move])
            said(page, WORDS["training_failed"].format(move=f"1. {tactics[0].move}"))
            page.locator("#tr-next").click()
            other = Position.from_fen(tactics[1].fen, VARIANT)
            server.wait_for(lambda s: s["fen"] == other.fen())
            said(page, WORDS["training_find"])
            number = "1." if other.turn.value == "white" else "1..."
            hand_move(server, tactics[1].move, other)
            said(page, WORDS["training_right"].format(move=f"{number} {tactics[1].move}"))
            expect(page.locator("#trainingsaid")).to_have_attribute("data-verdict", "solved")
            shot(page, "training-tactic-solved")
            page.locator("#tr-stop").click()
            expect(page.locator("#trainingon")).to_be_hidden()
            assert server.get("/api/state")["training"]["on"] is False
    finally:
        server.stop()
