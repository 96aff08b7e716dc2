"""Training on the board (issue 28), in Chromium with the simulated board's hands: a shipped
master game replayed to its end with each move lit on the LEDs; the same game with White's
moves guessed (a wrong guess told, what to put back lit, the move then lit); a tactic's whole
combination played (the opponent's replies lit and made): the first failed at its second move,
the next solved to its end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from damas.study.training import Training, shipped_games, shipped_tactics
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
            # tactics, the whole combination: the first failed at its second move, the next solved
            tactics = shipped_tactics(VARIANT)
            page.evaluate("() => localStorage.setItem('damas-tactic', '0')")
            page.reload()
            page.locator("#tr-tactic").click()  # (from a training's game: nothing to confirm)
            first, line = tactics[0].moves(VARIANT)
            assert len(line) == 3
            server.wait_for(lambda s: s["fen"] == first.fen())
            said(page, WORDS["training_find"])
            assert not leds(server)
            key = first.pdn(line[0])
            pos = hand_move(server, key, first)
            reply = pos.pdn(line[1])  # the opponent's forced reply: lit, made by the player
            said(page, f"{WORDS['training_right'].format(move=f'1. {key}')} Play 1... {reply}.")
            lit = leds(server)
            assert lit[str(line[1].from_square)] == "suggest-from" and lit[str(line[1].to_square)] == "suggest-to", lit
            pos = hand_move(server, reply, pos)
            said(page, WORDS["training_find_next"])
            assert not {r for r in leds(server).values() if r.startswith("suggest")}
            miss = next(m for m in pos.legal_moves if m != line[2] and not pos.apply(m).has_captures())
            hand_move(server, pos.pdn(miss), pos)
            second = f"2. {pos.pdn(line[2])}"
            said(page, WORDS["training_wrong_next"].format(move=second))
            lit = leds(server)
            assert lit[str(miss.from_square)] == "missing" and lit[str(miss.to_square)] == "extra", lit
            shot(page, "training-tactic-wrong-second")
            take_back(server, pos, miss)
            said(page, f"Play {second}.")
            lit = leds(server)
            assert lit[str(line[2].from_square)] == "suggest-from" and lit[str(line[2].to_square)] == "suggest-to"
            hand_move(server, pos.pdn(line[2]), pos)
            said(page, WORDS["training_failed"].format(move=f"1. {key} {reply} {second}"))
            expect(page.locator("#trainingsaid")).to_have_attribute("data-verdict", "failed")
            # the next, solved to its end: every move of the player's found, the replies made
            page.locator("#tr-next").click()
            other, line = tactics[1].moves(VARIANT)
            server.wait_for(lambda s: s["fen"] == other.fen())
            said(page, WORDS["training_find"])
            pos = other
            for ply, move in enumerate(line):
                pos = hand_move(server, pos.pdn(move), pos)
                if ply < len(line) - 1:
                    expect(page.locator("#trainingsaid")).not_to_have_attribute("data-verdict", "solved")
                    server.wait_for(lambda s, n=ply + 1: s["training"]["ply"] == n)
            last = Training("", other, line, "tactic").move_text(len(line) - 1)
            said(page, f"{WORDS['training_right'].format(move=last)} {WORDS['training_solved']}")
            expect(page.locator("#trainingsaid")).to_have_attribute("data-verdict", "solved")
            expect(page.locator("#trainingscore")).to_have_text(
                f"{(len(line) + 1) // 2} of {(len(line) + 1) // 2} found"
            )
            shot(page, "training-tactic-solved")
            page.locator("#tr-stop").click()
            expect(page.locator("#trainingon")).to_be_hidden()
            assert server.get("/api/state")["training"]["on"] is False
    finally:
        server.stop()


def test_a_tactic_given_up_shows_its_move(browser: Any, tmp_path: Path) -> None:
    """ "Show the move" when the player cannot find it: the move is lit (counted wrong), the line
    goes on, and the tactic ends failed, the whole shot told."""
    from playwright.sync_api import expect

    tactic = shipped_tactics(VARIANT)[0]
    start, line = tactic.moves(VARIANT)
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        with opened(browser, f"{server.url}/?lang=en") as page:
            page.evaluate("() => localStorage.setItem('damas-tactic', '0')")
            page.reload()
            page.locator("#tr-tactic").click()
            server.wait_for(lambda s: s["fen"] == start.fen())
            said(page, WORDS["training_find"])
            page.locator("#tr-show").click()
            key = start.pdn(line[0])
            said(page, f"Play 1. {key}.")
            expect(page.locator("#tr-show")).to_be_hidden()
            lit = leds(server)
            assert lit[str(line[0].from_square)] == "suggest-from" and lit[str(line[0].to_square)] == "suggest-to"
            pos = hand_move(server, key, start)
            reply = pos.pdn(line[1])
            said(page, f"Play 1... {reply}.")
            pos = hand_move(server, reply, pos)
            said(page, WORDS["training_find_next"])
            expect(page.locator("#tr-show")).to_be_visible()
            hand_move(server, pos.pdn(line[2]), pos)
            said(page, WORDS["training_failed"].format(move=f"1. {key} {reply} 2. {pos.pdn(line[2])}"))
            expect(page.locator("#trainingscore")).to_have_text("1 of 2 found")
    finally:
        server.stop()
