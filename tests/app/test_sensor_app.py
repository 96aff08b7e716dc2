"""A board with a sensor that does not answer (issue 31), through ``damas play``: the page asks
which move was played, the player's answer is journalled and recorded, the move is marked."""

from __future__ import annotations

import time
import urllib.error
from pathlib import Path
from typing import Any

import pytest

from board_hal.health import BoardHealth
from board_hal.layout import Layout
from tests.app.server import Server, play_over_dead_g5
from tests.conftest import OUTPUT
from wording.page import UI


def test_the_page_confirms_a_move_the_board_cannot_tell_and_the_move_is_marked(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        server.sim("place", 17)  # a3-b4, a3's sensor dead: b4 fills, no lift seen (c3-b4 alike)
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "sensor-confirm")
        confirm = state["active"]["confirm"]
        assert sorted((m["text"], m["move"]) for m in confirm["moves"]) == [("a3-b4", "21-17"), ("c3-b4", "22-17")]
        pt = server.get("/api/state?lang=pt-BR")["active"]
        assert pt["message"].startswith("O sensor de a3, c3 pode não estar respondendo")
        with pytest.raises(urllib.error.HTTPError) as bad:
            server.post("/api/action", {"action": "confirm", "move": "a3 to b4"})
        assert bad.value.code == 400
        bad.value.close()
        server.post("/api/action", {"action": "confirm", "move": "21-17"})
        state = server.wait_for(lambda s: len(s["moves"]) == 1)
        assert state["moves"][0]["pdn"] == "a3-b4" and state["moves"][0]["inferred"] == "a3"
        assert state["sensors"] == [21]
        assert [r["kind"] for r in state["reports"]][-1] == "sensor"
        state = server.move(11, 15)  # f6-e5: the game goes on
        assert state["leds"]["21"] == "sensor"  # a3 lit as the square whose sensor does not answer
        assert "{inferred: the sensor under a3 did not answer}" in server.get("/games/1.pdn")
    finally:
        server.stop()
    # the answer is in the journal: the game replays to the same record
    again = Server(tmp_path / "g.sqlite3", "--resume").start()
    try:
        state = again.wait_for(lambda s: len(s["moves"]) == 2)
        assert [m["pdn"] for m in state["moves"]] == ["a3-b4", "f6-e5"] and state["sensors"] == [21]
    finally:
        again.stop()


def test_the_page_says_the_move_is_noted_and_play_may_go_on_while_it_asks(page: Any, tmp_path: Path) -> None:
    """The question does not stop the game (later moves may settle it): the page, in each of its
    languages, and the board's voice say the move is noted and play may go on, and offer the
    moves to confirm; the players go on, the question stands, the answer records both moves."""
    from playwright.sync_api import expect

    from damas.speech import phrases
    from referee import Report, ReportKind
    from rules import Position

    server = Server(tmp_path / "g.sqlite3").start()
    try:
        server.sim("place", 17)  # a3-b4, a3's sensor dead: b4 fills, no lift seen (c3-b4 alike)
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "sensor-confirm")
        assert "the move is noted and play may go on" in state["active"]["message"]
        assert state["active"]["label"] == "move to confirm"
        assert state["leds"]["21"] == state["leds"]["22"] == "sensor"  # not "the move is not allowed"
        br = server.get("/api/state?lang=pt-BR")["active"]["message"]
        pt = server.get("/api/state?lang=pt-PT")["active"]["message"]
        assert "o lance foi anotado e o jogo pode continuar" in br and "pode não estar respondendo" in br
        assert "o lance foi anotado e o jogo pode continuar" in pt and "pode não estar a responder" in pt
        page.goto(server.url)
        box = page.locator("#confirm")
        expect(box).to_contain_text(UI["en"]["confirm_played"])
        expect(page.locator("#active")).to_contain_text("play may go on")
        expect(box.get_by_role("button", name="a3-b4")).to_be_visible()
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "sensor-confirm-play-on.png"), full_page=True)
        server.sim("lift", 11)  # f6-e5: black plays on while the question stands
        server.sim("place", 15)
        # the move played on is lit as the last move (it used to stay dark), a3 and c3 as before
        state = server.wait_for(lambda s: s["leds"].get("11") == s["leds"].get("15") == "last")
        assert state["active"] is not None and state["active"]["kind"] == "sensor-confirm"
        assert state["leds"] == {"11": "last", "15": "last", "21": "sensor", "22": "sensor"}
        expect(page.locator('[data-square="15"] .led')).to_have_attribute("data-role", "last")
        expect(page.locator('[data-square="21"] .led')).to_have_attribute("data-role", "sensor")
        page.screenshot(path=str(OUTPUT / "sensor-confirm-played-on.png"), full_page=True)
        box.get_by_role("button", name="a3-b4").click()
        state = server.wait_for(lambda s: len(s["moves"]) == 2)
        assert [m["pdn"] for m in state["moves"]] == ["a3-b4", "f6-e5"]
    finally:
        server.stop()
    asked = Report(ReportKind.SENSOR_CONFIRM, (21, 22), "", 1.0, params={"moves": ["21-17", "22-17"]})
    pos = Position.start("brazilian")
    assert "play on" in phrases.report_phrase("en", asked, pos)
    assert "podem continuar" in phrases.report_phrase("pt-BR", asked, pos)
    assert "podem continuar" in phrases.report_phrase("pt-PT", asked, pos)


def test_the_page_answers_a_question_about_a_king_that_may_have_slid_on_unseen(page: Any, tmp_path: Path) -> None:
    """A king read as it stopped on d6 is lifted and set down on e5, whose sensor has never
    been heard; black replies. The page offers the two lines (b8-e5 h8-g7, b8-d6) as buttons, says
    in each language that the board waits for the answer (not "play on"), and a tap records
    both moves, b8-e5 marked as inferred, and names e5."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", "--fen", "W:WK1:B4").start()
    try:
        server.move(1, 10)  # b8-d6, read as the king stops
        server.wait_for(lambda s: len(s["moves"]) == 1, timeout=5)
        server.sim("lift", 10)  # on to e5: nothing seen there
        time.sleep(0.6)
        server.sim("lift", 4)  # h8-g7 (its lift lit or not: the king is in the air too)
        time.sleep(0.3)
        server.sim("place", 8)
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "sensor-confirm")
        assert state["moves"] == []  # b8-d6 taken back: nothing recorded until the page answers
        assert [(m["text"], m["move"]) for m in state["active"]["confirm"]["moves"]] == [
            ("b8-e5 h8-g7", "1-15"),
            ("b8-d6", "1-10"),
        ]
        assert "nothing is read until then" in state["active"]["message"]
        br = server.get("/api/state?lang=pt-BR")["active"]["message"]
        pt = server.get("/api/state?lang=pt-PT")["active"]["message"]
        assert "o tabuleiro espera a resposta" in br and "anotado" not in br
        assert "o tabuleiro espera pela resposta" in pt and "anotado" not in pt
        page.goto(server.url)
        box = page.locator("#confirm")
        expect(box.get_by_role("button", name="b8-d6", exact=True)).to_be_visible()
        expect(box).to_contain_text(UI["en"]["confirm_played_wait"])
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "sensor-confirm-slid.png"), full_page=True)
        box.get_by_role("button", name="b8-e5 h8-g7").click()
        expect(page.locator("#moves")).to_have_text("1. b8-e5* h8-g7")  # (* read without its sensor)
        state = server.wait_for(lambda s: len(s["moves"]) == 2)
        assert [(m["pdn"], m.get("inferred")) for m in state["moves"]] == [("b8-e5", "e5"), ("h8-g7", None)]
        assert state["sensors"] == [15] and state["active"] is None
    finally:
        server.stop()


def test_a_piece_held_while_the_reply_is_played_is_recorded_where_it_lands(page: Any, tmp_path: Path) -> None:
    """c3 lifted and held while black plays f6-e5: b4 and d4 never heard, the page asks "c3-b4 or
    c3-d4". The piece is then set down on b4: the page shows both moves as played, nothing
    marked inferred, no sensor named, the question gone (c3-d4 used to be recorded, d4 named)."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3").start()
    try:
        server.sim("lift", 22)  # c3, held
        time.sleep(0.3)
        server.move(11, 15)  # f6-e5
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "sensor-confirm")
        assert sorted(m["text"] for m in state["active"]["confirm"]["moves"]) == ["c3-b4", "c3-d4"]
        page.goto(server.url)
        expect(page.locator("#confirm").get_by_role("button", name="c3-b4", exact=True)).to_be_visible()
        server.sim("place", 17)  # on b4
        expect(page.locator("#moves")).to_have_text("1. c3-b4 f6-e5")  # (no *: nothing inferred)
        expect(page.locator("#confirm")).to_be_hidden()
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "held-piece-landed-late.png"), full_page=True)
        state = server.wait_for(lambda s: len(s["moves"]) == 2)
        assert state["sensors"] == [] and state["active"] is None
        assert [m.get("inferred") for m in state["moves"]] == [None, None]
    finally:
        server.stop()


def test_an_answer_given_while_the_piece_is_held_is_kept_and_the_page_says_so(page: Any, tmp_path: Path) -> None:
    """As above, but the player taps c3-b4 before setting the piece down: the referee keeps the
    answer until it sees the landing (taken at once, it would name b4's sound sensor). The page
    says the answer is kept (HIDDEN_LANDING after the tap), the button tapped pressed; once the
    piece is on b4, both moves are recorded as played, nothing inferred."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3").start()
    try:
        page.goto(server.url)
        box = page.locator("#confirm")
        server.sim("lift", 22)  # c3, held
        time.sleep(0.3)
        server.move(11, 15)  # f6-e5
        box.get_by_role("button", name="c3-b4", exact=True).click()
        expect(box).to_contain_text(UI["en"]["confirm_held"].format(move="c3-b4"))
        expect(box.get_by_role("button", name="c3-b4", exact=True)).to_have_attribute("aria-pressed", "true")
        expect(box.get_by_role("button", name="c3-d4", exact=True)).to_have_attribute("aria-pressed", "false")
        state = server.get("/api/state?lang=pt-BR")
        assert state["moves"] == [] and state["active"]["confirm"]["held"] == "c3-b4"
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "held-answer-kept.png"), full_page=True)
        server.sim("place", 17)  # on b4
        expect(page.locator("#moves")).to_have_text("1. c3-b4 f6-e5")  # (no *: nothing inferred)
        expect(box).to_be_hidden()
        state = server.wait_for(lambda s: len(s["moves"]) == 2)
        assert state["sensors"] == [] and [m.get("inferred") for m in state["moves"]] == [None, None]
    finally:
        server.stop()


def test_what_the_selftest_found_broken_is_played_around_and_shown(tmp_path: Path) -> None:
    """board-health.json beside the database (damas selftest's): e5's sensor and a1's LED are
    broken. The game knows e5 from the start (a move there is read without naming it again),
    and the page marks a1's role as one the board cannot light."""
    lay = Layout("brazilian")
    BoardHealth(8, {lay.cell_of(16)}, {lay.cell_of(29)}, "2026-11-26 07:00").save(tmp_path / "board-health.json")
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        state = server.get("/api/state")
        assert state["sensors"] == [16] and state["dead_leds"] == [29]
        state = play_over_dead_g5(server)
        assert [m["pdn"] for m in state["moves"]] == ["c3-d4", "f6-g5", "e3-f4"]
        assert state["moves"][1]["inferred"] == "g5"
        assert "sensor" not in [r["kind"] for r in state["reports"]]  # known already: not named again
    finally:
        server.stop()
    assert "the self-test of 2026-11-26 07:00 found the sensors at g5 and the LEDs at a1 broken" in server.output
    (tmp_path / "board-health.json").write_text("{")
    server = Server(tmp_path / "g2.sqlite3").start()
    try:
        assert server.get("/api/state")["sensors"] == []
    finally:
        server.stop()
    assert "board-health.json: Expecting" in server.output and "ignored (run damas selftest again)" in server.output


def test_the_set_up_page_says_a_stuck_sensor_is_broken_and_the_game_is_played_around_it(
    page: Any, tmp_path: Path
) -> None:
    """The simulated board's sensor under e5 is stuck (it always reads a piece: the environment's
    DAMAS_SIMULATED_STUCK): the set-up cannot complete. The page offers "The sensor under e5 is
    broken"; the player presses it in Chromium; the referee stands in for e5 (the set-up is
    done, e5 lit as the sensor that does not answer), and a game over e5 is played through the
    HTTP API: f6-e5 and the capture of e5, each read with e5 inferred."""
    from playwright.sync_api import expect

    server = Server(tmp_path / "g.sqlite3", env={"DAMAS_SIMULATED_STUCK": "15"}).start()
    try:
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "setup")
        assert state["active"]["confirm"] == {"moves": [], "squares": [{"square": 15, "name": "e5"}]}
        assert state["moves"] == [] and state["sensors"] == []
        page.goto(server.url)
        button = page.get_by_role("button", name=UI["en"]["sensor_broken"].format(square="e5"))
        expect(button).to_be_visible()
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "sensor-setup-broken.png"), full_page=True)
        button.click()
        state = server.wait_for(lambda s: s["sensors"] == [15] and s["active"] is None)
        assert [r["kind"] for r in state["reports"]][-1] == "sensor"  # named once; the set-up is done
        expect(button).to_have_count(0)  # the question is gone from the page
        assert state["leds"]["15"] == "sensor"
        server.move(22, 18)  # c3-d4
        server.sim("lift", 11)  # f6-e5: e5 reads a piece all along, nothing changes there
        server.wait_for(lambda s: s["leds"].get("11") == "from")
        server.sim("place", 15)
        server.sim("lift", 18)  # d4xf6: the capture of e5 is not seen either
        server.sim("lift", 15)
        server.sim("place", 11)
        state = server.wait_for(lambda s: len(s["moves"]) == 3, timeout=20)
        assert [m["pdn"] for m in state["moves"]] == ["c3-d4", "f6-e5", "d4xf6"]
        assert [m.get("inferred") for m in state["moves"]] == [None, "e5", "e5"]
        assert "{inferred: the sensor under e5 did not answer}" in server.get("/games/1.pdn")
        expect(page.locator("#moves")).to_contain_text("d4xf6")
    finally:
        server.stop()


def test_a_sensor_marked_repaired_is_read_again_in_the_game_in_play_and_after_a_resume(
    page: Any, tmp_path: Path
) -> None:
    """The self-test found g5's sensor broken (it was only wrongly suspected: the simulated
    board's answers). f6-g5 is read with g5 inferred. The player presses Repaired on the page:
    the game in play reads g5 again at once (it used to be played around until the next game):
    g5xc5 is read from its own lift, not inferred; what was recorded stays. The press is in the
    journal: the game resumed after a restart replays to the same state."""
    from playwright.sync_api import expect

    lay = Layout("brazilian")
    BoardHealth(8, {lay.cell_of(16)}, set(), "2026-11-26 07:00").save(tmp_path / "board-health.json")
    server = Server(tmp_path / "g.sqlite3").start()
    try:
        state = play_over_dead_g5(server)
        assert [m.get("inferred") for m in state["moves"]] == [None, "g5", None] and state["sensors"] == [16]
        page.goto(server.url)
        page.locator("#remembered").get_by_role("button", name="Repaired").click()
        state = server.wait_for(lambda s: s["sensors"] == [] and s["remembered"] == [])
        assert state["leds"].get("16") != "sensor" and state["active"] is None
        expect(page.locator("#remembered")).to_be_hidden()
        server.sim("place", 16)  # the sensor under g5 reads its piece now
        server.wait_for(lambda s: 16 in s["occupied"])
        server.sim("lift", 16)  # g5xc5: its lift is read
        server.wait_for(lambda s: s["leds"].get("16") == "from")
        server.sim("lift", 19)
        server.sim("lift", 18)
        server.sim("place", 14)
        state = server.wait_for(lambda s: len(s["moves"]) == 4)
        assert [m["pdn"] for m in state["moves"]] == ["c3-d4", "f6-g5", "e3-f4", "g5xc5"]
        assert [m.get("inferred") for m in state["moves"]] == [None, "g5", None, None]
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "sensor-repaired-in-play.png"), full_page=True)
    finally:
        server.stop()
    again = Server(tmp_path / "g.sqlite3", "--resume").start()
    try:
        state = again.wait_for(lambda s: len(s["moves"]) == 4)
        assert [m.get("inferred") for m in state["moves"]] == [None, "g5", None, None] and state["sensors"] == []
    finally:
        again.stop()
