"""The analysis mode on the board (issue 28), through the HTTP API on the simulated board: a
study's position is set up with the LEDs' guidance and checked from the sensors; the moves made
there are judged by the referee (a required capture lit) and followed in the study as
variations; a takeback on the board and the page's ‹ go back one ply; leaving returns to the
game in play untouched (its clock paused as it was, its record as it was), once the board holds
its position again."""

from __future__ import annotations

import json
import urllib.error
from pathlib import Path
from typing import Any

from rules import Position
from rules.pdn import read_game
from tests.app.server import Server
from tests.app.test_browser_training import take_back
from tests.app.test_evening import hand_move
from tests.conftest import wait_until

VARIANT = "brazilian"
START = Position.start(VARIANT)


def sq(name: str) -> int:
    return START.geometry.parse_square(name)


def names(squares: list[int]) -> list[str]:
    return sorted(START.square_text(q) for q in squares)


def lit(state: dict[str, Any]) -> dict[str, str]:
    return {START.square_text(int(q)): role for q, role in state["leds"].items()}


def study(server: Server, **body: Any) -> Any:
    return server.post("/api/action", {"action": "study", **body})


def refusal(server: Server, body: dict[str, Any]) -> str:
    try:
        server.post("/api/action", body)
    except urllib.error.HTTPError as exc:
        assert exc.code == 400
        return str(json.loads(exc.read().decode())["error"])
    raise AssertionError(f"{body} was not refused")


def tree(state: dict[str, Any]) -> str:
    return (
        " ".join(
            str(t["text"]) if t["kind"] in ("number", "move") else "(" if t["kind"] == "open" else ")"
            for t in state["study"]["tokens"]
        )
        .replace("( ", "(")
        .replace(" )", ")")
    )


def test_a_position_set_up_played_taken_back_and_the_game_resumed_untouched(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT, "--clock", "10+5").start()
    try:
        server.post("/api/action", {"action": "clock", "side": "black"})  # White's clock runs
        pos = START
        for move, side in (("c3-d4", "white"), ("f6-g5", "black"), ("g3-h4", "white")):
            pos = hand_move(server, move, pos)
            server.post("/api/action", {"action": "clock", "side": side})
        game = server.wait_for(lambda s: s["clock"]["running"] == "black")
        first, played = game["game"], server.get(f"/games/{game['game']}.pdn")

        # the position after 1. c3-d4, opened and analysed on the board: the set-up is lit
        study(server, op="open", ply=1)
        assert study(server, op="board", on=True)["ok"]
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "setup")
        ba = state["board_analysis"]
        assert ba["on"] and not ba["set_up"] and ba["game"] == first
        assert names(ba["fill"]) == ["f6", "g3"] and names(ba["empty"]) == ["g5", "h4"]
        assert lit(state) == {"f6": "missing", "g3": "missing", "g5": "extra", "h4": "extra"}
        assert state["clock"] is None and state["game"] != first  # no clock; not the game's record
        held = server.get(f"/games/{first}.pdn")
        assert held == played  # (the game's clock paused: not a word of its record changed)
        # the hands set it up, one square at a time: the board matches only at the last one
        server.sim("lift", sq("g5"))
        server.sim("place", sq("f6"))
        server.sim("lift", sq("h4"))
        state = server.wait_for(
            lambda s: names(s["board_analysis"]["fill"]) == ["g3"] and not s["board_analysis"]["empty"]
        )
        assert not state["board_analysis"]["set_up"] and lit(state) == {"g3": "missing"}
        server.sim("place", sq("g3"))
        state = server.wait_for(lambda s: s["board_analysis"]["set_up"])
        assert state["reports"][-1]["resolved"]["kind"] == "setup-ok"
        assert state["fen"] == START.apply(START.parse_pdn("c3-d4")).fen()

        # moves made on the board: a variation of the study, judged by the referee
        here = START.apply(START.parse_pdn("c3-d4"))
        here = hand_move(server, "b6-a5", here)
        hand_move(server, "a3-b4", here)
        state = server.get("/api/state")
        assert tree(state) == "1. c3-d4 f6-g5 (1... b6-a5 2. a3-b4) 2. g3-h4"
        # 2... a5xc3 is compulsory: a piece that cannot take, lifted, is told and the capture lit
        server.sim("lift", sq("f6"))
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "required-capture")
        assert lit(state).get("a5") is not None
        server.sim("place", sq("f6"))
        server.wait_for(lambda s: s["active"] is None)
        # a takeback on the board: the position before 2. a3-b4, the move kept in the study
        take_back(server, here, here.parse_pdn("a3-b4"))
        state = server.get("/api/state")
        current = state["study"]["current"]
        token = next(t for t in state["study"]["tokens"] if t.get("id") == current)
        assert token["text"] == "b6-a5" and tree(state) == "1. c3-d4 f6-g5 (1... b6-a5 2. a3-b4) 2. g3-h4"
        # the page's ‹: one ply back, the board to set up again (the man back from a5 to b6)
        assert study(server, op="goto", node=state["study"]["parent"])["ok"]
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "setup")
        assert names(state["board_analysis"]["fill"]) == ["b6"] and names(state["board_analysis"]["empty"]) == ["a5"]
        assert server.post("/api/sim", {"op": "fix"})["ok"]  # the simulated hands do what is lit
        server.wait_for(lambda s: s["board_analysis"]["set_up"])
        # no result in the analysis
        assert "leave the analysis" in refusal(server, {"action": "resign", "side": "white"})

        # leaving: the game again, once its position is back on the board
        assert study(server, op="board", on=False)["ok"]
        state = server.get("/api/state")
        assert state["game"] == first and state["board_analysis"]["returning"]
        back = set(names(state["board_analysis"]["fill"])) | set(names(state["board_analysis"]["empty"]))
        assert back == {"f6", "g5", "g3", "h4"}
        assert lit(state) == {"f6": "extra", "g5": "missing", "g3": "extra", "h4": "missing"}
        server.sim("lift", sq("f6"))  # a hand on the way back is not a move of the game
        state = server.wait_for(lambda s: lit(s).get("f6") is None)
        assert len(state["moves"]) == 3 and state["active"] is None
        server.post("/api/sim", {"op": "fix"})
        state = server.wait_for(lambda s: s["board_analysis"] is None)
        clock = state["clock"]  # paused when the analysis began, as it was then
        assert clock["paused"] and not clock["ticking"] and clock["running"] == "black"
        assert server.get("/api/state")["clock"]["black"] == clock["black"]
        assert server.get(f"/games/{first}.pdn") == played
        # the game goes on from where it was
        server.post("/api/action", {"action": "clock-resume"})
        pos = hand_move(server, "b6-a5", pos)
        assert [m.text for m in read_game(server.get(f"/games/{first}.pdn")).moves] == [
            "c3-d4",
            "f6-g5",
            "g3-h4",
            "b6-a5",
        ]
    finally:
        server.stop()


def test_a_new_game_during_an_analysis_leaves_the_game_kept_aside_resumable(tmp_path: Path) -> None:
    """The analysis ends with a new game; the game it kept aside is left unfinished (as any game
    a new one leaves) and can be resumed; the analysis is not the game in play."""
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        pos = START
        for move in ("c3-d4", "f6-g5"):
            pos = hand_move(server, move, pos)
        first = server.get("/api/state")["game"]
        study(server, op="open", ply=2)
        study(server, op="board", on=True)
        state = server.wait_for(lambda s: s["board_analysis"] is not None and s["board_analysis"]["set_up"])
        assert state["board_analysis"]["game_goes_on"] and state["board_analysis"]["game"] == first
        node = state["study"]["current"]
        tried = hand_move(server, "g3-h4", pos)  # moves of the analysis only
        hand_move(server, "b6-a5", tried)
        take_back(server, tried, tried.parse_pdn("b6-a5"))  # two plies taken back on the board
        take_back(server, pos, pos.parse_pdn("g3-h4"))
        state = server.get("/api/state")
        assert state["study"]["current"] == node and not state["moves"]
        assert tree(state) == "1. c3-d4 f6-g5 2. g3-h4 b6-a5"
        hand_move(server, "g3-h4", pos)
        server.post("/api/action", {"action": "new-game"})
        state = server.wait_for(lambda s: s["board_analysis"] is None and not s["moves"])
        assert state["game"] not in (first, None) and not state["study"]["on_board"]
        assert [g["id"] for g in state["games"] if g["id"] == first]
        server.post("/api/action", {"action": "resume-game", "game": first})
        state = server.wait_for(lambda s: s["game"] == first)
        assert [m["pdn"] for m in state["moves"] if "pdn" in m] == ["c3-d4", "f6-g5"]
    finally:
        server.stop()


def test_a_fen_pasted_is_set_up_on_the_board_and_played_from(tmp_path: Path) -> None:
    """A position given as a FEN alone opens as a study and is set up on the board (every other
    piece to take off); a malformed one is one line naming it."""
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        fen = "W:Wc3,e3:Bd6,f6"
        assert "no square" in refusal(server, {"action": "study", "op": "pdn", "pdn": "W:Wc3,e9:Bd6"})
        assert study(server, op="pdn", pdn=fen)["ok"]
        study(server, op="board", on=True)
        state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "setup")
        assert names(state["board_analysis"]["fill"]) == [] and len(state["board_analysis"]["empty"]) == 20
        server.post("/api/sim", {"op": "fix"})
        state = server.wait_for(lambda s: s["board_analysis"]["set_up"])
        assert sorted(names(state["occupied"])) == ["c3", "d6", "e3", "f6"]
        start = Position.from_fen(fen, VARIANT)
        hand_move(server, "c3-d4", start)
        state = server.get("/api/state")
        assert tree(state) == "1. c3-d4" and state["board_analysis"]["on"]
        # the move deleted on the page: gone from the study, its position to set up again
        assert study(server, op="delete", node=state["study"]["current"])["ok"]
        state = server.wait_for(lambda s: s["board_analysis"]["fill"])
        assert tree(state) == "" and state["study"]["current"] == 0
        assert names(state["board_analysis"]["fill"]) == ["c3"] and names(state["board_analysis"]["empty"]) == ["d4"]
        # another position opened meanwhile: the board is set up at it
        assert study(server, op="pdn", pdn="W:Wc3,e3:Bd6")["ok"]
        state = server.wait_for(lambda s: names(s["board_analysis"]["empty"]) == ["d4", "f6"])
        assert names(state["board_analysis"]["fill"]) == ["c3"] and tree(state) == ""
    finally:
        server.stop()


def test_a_line_that_ends_the_game_is_taken_back_on_the_board(tmp_path: Path) -> None:
    """The last piece taken ends the line (a result the referee keeps); putting the capture back
    on the board still goes back one ply, and play goes on from there."""
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        fen = "W:Wc3,e3:Bd4"
        study(server, op="pdn", pdn=fen)
        study(server, op="board", on=True)
        server.post("/api/sim", {"op": "fix"})
        server.wait_for(lambda s: s["board_analysis"]["set_up"])
        start = Position.from_fen(fen, VARIANT)
        hand_move(server, "c3xe5", start)
        state = server.wait_for(lambda s: s["result"] == "1-0")
        assert tree(state) == "1. c3xe5" and state["board_analysis"]["on"]
        move = start.parse_pdn("c3xe5")
        server.sim("lift", move.to_square)
        server.sim("place", move.from_square)
        server.sim("place", sq("d4"))
        state = server.wait_for(lambda s: s["result"] == "*" and s["study"]["current"] == 0)
        assert state["board_analysis"]["set_up"] and state["fen"] == start.fen() and not state["moves"]
        hand_move(server, "e3xc5", start)
        state = server.wait_for(lambda s: s["result"] == "1-0")
        assert tree(state) == "1. c3xe5 (1. e3xc5)"
    finally:
        server.stop()


def test_a_power_cut_during_an_analysis_on_a_real_board_resumes_the_game_untouched(tmp_path: Path) -> None:
    """The emulated Pico: an analysis from the game's position has a move made, the power goes;
    back, the game is resumed as it was (the move on the board is the analysis', never the
    game's: no reconstruction from it), the LEDs light what to put back, and play goes on."""
    from firmware_bridge.emulator import Emulator
    from tests.bridge.test_link_gap import LAYOUT, hands, lit_roles, pdns, pico_server, start_cells

    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        server = pico_server(tmp_path, emu)
        try:
            pos = hands(emu, START, "c3-d4")
            first = server.wait_for(lambda s: len(s["moves"]) == 1)["game"]
            study(server, op="open", ply=1)
            study(server, op="board", on=True)
            server.wait_for(lambda s: s["board_analysis"] is not None and s["board_analysis"]["set_up"])
            hands(emu, pos, "f6-e5")  # a move of the analysis
            state = server.wait_for(lambda s: len(s["moves"]) == 1 and s["game"] != first)
            assert tree(state) == "1. c3-d4 f6-e5"
            server.kill()  # the power goes during the analysis
        finally:
            if server.proc is not None:
                server.stop()
        server.start("--resume")
        try:
            state = server.wait_for(lambda s: s["link"]["state"] == "up" and s["board_analysis"] is not None)
            assert state["game"] == first and pdns(state) == ["c3-d4"]
            assert state["board_analysis"]["returning"] and state["active"] is None
            assert names(state["board_analysis"]["fill"]) == ["f6"] and names(state["board_analysis"]["empty"]) == [
                "e5"
            ]
            assert tree(state) == "1. c3-d4 f6-e5"  # the study is back too
            wait_until(lambda: lit_roles(emu).get(sq("e5")) is not None and lit_roles(emu).get(sq("f6")) is not None)
            emu.lift(LAYOUT.cell_of(sq("e5")))  # the hands put the game back
            emu.place(LAYOUT.cell_of(sq("f6")))
            server.wait_for(lambda s: s["board_analysis"] is None)
            hands(emu, pos, "f6-g5")
            state = server.wait_for(lambda s: len(s["moves"]) == 2)
            assert pdns(state) == ["c3-d4", "f6-g5"] and state["game"] == first
        finally:
            server.stop()


def analysis_sessions(db: Path) -> list[str]:
    """The analysis sessions as ``damas games --all`` lists them."""
    from tests.conftest import damas

    r = damas("games", "--all", "--db", str(db))
    assert r.returncode == 0, r.stderr
    return [line for line in r.stdout.splitlines() if "analysis session" in line]


def test_one_session_for_the_analysis_of_a_game_wherever_the_page_goes(browser: Any, tmp_path: Path) -> None:
    """‹ and clicks on the study's moves set up their positions in the one analysis session of
    the study (a ``position`` line in its journal each), not a new hidden session each time;
    leaving closes it: kept, listed by ``damas games --all`` as closed and on the page under
    "Analyses on the board", where "Open" brings its study back."""
    from playwright.sync_api import expect

    from tests.app.test_browser_page import opened, shot
    from tests.app.test_browser_study import tree_text

    db = tmp_path / "g.sqlite3"
    server = Server(db, "--variant", VARIANT).start()
    try:
        pos = START
        for move in ("c3-d4", "f6-g5", "g3-h4"):
            pos = hand_move(server, move, pos)
        first = server.get("/api/state")["game"]
        study(server, op="open", ply=3)
        study(server, op="board", on=True)
        server.post("/api/sim", {"op": "fix"})
        state = server.wait_for(lambda s: s["board_analysis"] is not None and s["board_analysis"]["set_up"])
        session = state["game"]
        hand_move(server, "b6-a5", pos)  # a move of the analysis
        for _ in range(2):  # ‹ twice: the positions set up on the board, in the same session
            state = server.get("/api/state")
            assert study(server, op="goto", node=state["study"]["parent"])["ok"]
            state = server.wait_for(lambda s: s["active"] is not None and s["active"]["kind"] == "setup")
            assert state["game"] == session and state["board_analysis"]["fill"]
            server.post("/api/sim", {"op": "fix"})
            server.wait_for(lambda s: s["board_analysis"]["set_up"])
        # a click on the first move: its position, a variation played from it
        state = server.get("/api/state")
        node = next(t["id"] for t in state["study"]["tokens"] if t.get("text") == "c3-d4")
        study(server, op="goto", node=node)
        server.post("/api/sim", {"op": "fix"})
        state = server.wait_for(lambda s: s["board_analysis"]["set_up"] and s["study"]["current"] == node)
        after = START.apply(START.parse_pdn("c3-d4"))
        hand_move(server, "b6-c5", after)
        state = server.get("/api/state")
        assert state["game"] == session and tree(state) == "1. c3-d4 f6-g5 (1... b6-c5) 2. g3-h4 b6-a5"
        [listed] = analysis_sessions(db)
        assert listed.split()[0] == str(session) and "analysis session, in play" in listed
        # the session's record: every line it played, as PDN variations in the study's tree (it
        # held only its last line, 1... b6-c5, before)
        pdn = server.get(f"/games/{session}.pdn")
        assert "\n1. c3-d4 f6-g5 (1... b6-c5) 2. g3-h4 b6-a5 *" in pdn, pdn
        back = read_game(pdn)
        assert [m.text for m in back.moves] == ["c3-d4", "f6-g5", "g3-h4", "b6-a5"]
        assert [[m.text for m in line] for line in back.moves[1].variations] == [["b6-c5"]]
        # leaving: the session closed (kept), the game back
        study(server, op="board", on=False)
        server.post("/api/sim", {"op": "fix"})
        state = server.wait_for(lambda s: s["board_analysis"] is None)
        assert state["game"] == first and len(state["moves"]) == 3
        [listed] = analysis_sessions(db)
        assert listed.split()[0] == str(session) and listed.endswith("analysis session, closed"), listed
        assert server.get(f"/games/{session}.pdn") == pdn  # closed: the same record
        study(server, op="close")
        with opened(browser, f"{server.url}/?lang=en") as page:
            row = page.locator(f'#ba-kept li[data-session="{session}"]')
            expect(page.locator("#ba-kept li")).to_have_count(1)
            expect(page.locator("#h-bakept")).to_have_text("Analyses on the board")
            shot(page, "kept-analyses")
            row.get_by_role("button", name="Open").click()
            expect(page.locator("#studyon")).to_be_visible()
            assert tree_text(page) == "1. c3-d4 f6-g5 (1... b6-c5) 2. g3-h4 b6-a5"
    finally:
        server.stop()


def king_moves(pos: Position, plies: int) -> list[str]:
    """``plies`` quiet king moves from ``pos`` that never repeat a position nor allow a capture."""
    seen = {pos.key}
    out = []
    for _ in range(plies):
        for m in sorted(pos.legal_moves, key=lambda m: pos.pdn(m)):
            after = pos.apply(m)
            if m.captured or after.key in seen or any(r.captured for r in after.legal_moves):
                continue
            out.append(pos.pdn(m))
            seen.add(after.key)
            pos = after
            break
        else:
            raise AssertionError(f"no quiet move after {out}")
    return out


def test_a_draw_by_rule_ends_no_analysis_line_on_the_board(browser: Any, tmp_path: Path) -> None:
    """One king each: five moves each is a draw by the small-ending rule (FEN 25). In an analysis
    on the board the line's draw is said (the study's ``line_end``, the page's text), and the
    board plays on: the next move is judged and followed in the study, the session never ends."""
    from tests.app.test_browser_page import opened

    fen = "W:WKa1:BKb8"
    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT).start()
    try:
        study(server, op="pdn", pdn=fen)
        study(server, op="board", on=True)
        server.post("/api/sim", {"op": "fix"})
        state = server.wait_for(lambda s: s["board_analysis"]["set_up"])
        session = state["game"]
        pos = Position.from_fen(fen, VARIANT)
        moves = king_moves(pos, 11)
        for move in moves[:10]:
            pos = hand_move(server, move, pos)
        state = server.get("/api/state")
        assert state["result"] == "*" and state["active"] is None and state["board_analysis"]["on"]
        assert state["study"]["line_end"]["termination"] == "small-ending", state["study"]["line_end"]
        assert state["study"]["line_end"]["result"] == "1/2-1/2"
        with opened(browser, f"{server.url}/?lang=en") as page:
            text = page.locator("#st-lineend")
            text.wait_for(state="visible")
            assert text.inner_text() == (
                "By the rules this line ends 1/2-1/2 (draw: small ending); moves can still be tried from here"
            )
        pos = hand_move(server, moves[10], pos)  # the board plays on: judged, followed in the study
        state = server.get("/api/state")
        assert len(state["moves"]) == 11 and state["game"] == session and state["result"] == "*"
        assert len(tree(state).split()) == 11 + 6  # 11 plies and their 6 move numbers
    finally:
        server.stop()


def test_a_finished_game_kept_aside_by_an_analysis_comes_back_after_a_power_cut(tmp_path: Path) -> None:
    """The emulated Pico: a finished game analysed on the board, a move made there, the power
    goes. Back, the finished game is the one shown again (not a new game from the start): the
    LEDs light the set-up of its final position and the board waits for it, as on entering."""
    from firmware_bridge.emulator import Emulator
    from tests.bridge.test_link_gap import LAYOUT, hands, lit_roles, pdns, pico_server, start_cells

    with Emulator(8, heartbeat_ms=200, cells=start_cells()) as emu:
        server = pico_server(tmp_path, emu)
        try:
            pos = hands(emu, START, "c3-d4 f6-g5")
            first = server.wait_for(lambda s: len(s["moves"]) == 2)["game"]
            server.post("/api/action", {"action": "resign", "side": "white"})
            server.wait_for(lambda s: s["result"] == "0-1")
            study(server, op="open", ply=2)
            study(server, op="board", on=True)
            server.wait_for(lambda s: s["board_analysis"] is not None and s["board_analysis"]["set_up"])
            hands(emu, pos, "g3-h4")  # a move of the analysis
            server.wait_for(lambda s: len(s["moves"]) == 1 and s["game"] != first)
            server.kill()
        finally:
            if server.proc is not None:
                server.stop()
        server.start()
        try:
            state = server.wait_for(lambda s: s["link"]["state"] == "up" and s["board_analysis"] is not None)
            assert state["game"] == first and pdns(state) == ["c3-d4", "f6-g5"] and state["result"] == "0-1"
            ba = state["board_analysis"]
            assert ba["returning"] and names(ba["fill"]) == ["g3"] and names(ba["empty"]) == ["h4"]
            wait_until(lambda: lit_roles(emu).get(sq("h4")) is not None and lit_roles(emu).get(sq("g3")) is not None)
            emu.lift(LAYOUT.cell_of(sq("h4")))  # the hands put the game's final position back
            emu.place(LAYOUT.cell_of(sq("g3")))
            state = server.wait_for(lambda s: s["board_analysis"] is None)
            assert state["game"] == first and state["result"] == "0-1" and pdns(state) == ["c3-d4", "f6-g5"]
            assert tree(state) == "1. c3-d4 f6-g5 2. g3-h4"  # the study is back too
        finally:
            server.stop()


def test_damas_replay_names_each_position_the_analysis_set_up(tmp_path: Path) -> None:
    """An analysis session's journal, replayed: each ``position`` line (‹ on the page, the
    position set up on the board) prints a line of its own — the moves after it start again
    from ply 1, so without it the replay reads as one game whose plies jump back."""
    from tests.conftest import damas

    db = tmp_path / "g.sqlite3"
    server = Server(db, "--variant", VARIANT).start()
    try:
        pos = START
        for move in ("c3-d4", "f6-g5"):
            pos = hand_move(server, move, pos)
        study(server, op="open", ply=2)
        study(server, op="board", on=True)
        server.post("/api/sim", {"op": "fix"})
        state = server.wait_for(lambda s: s["board_analysis"] is not None and s["board_analysis"]["set_up"])
        session = state["game"]
        hand_move(server, "g3-h4", pos)
        state = server.get("/api/state")
        assert study(server, op="goto", node=state["study"]["parent"])["ok"]  # ‹: a position line
        server.post("/api/sim", {"op": "fix"})
        server.wait_for(lambda s: s["board_analysis"]["set_up"] and s["game"] == session)
        hand_move(server, "e3-f4", pos)
    finally:
        server.stop()
    r = damas("replay", "--game", str(session), "--db", str(db))
    assert r.returncode == 0, r.stderr
    lines = [line.split(maxsplit=1)[1] for line in r.stdout.splitlines()]
    moves_and_positions = [ln for ln in lines if ln.startswith(("move", "position"))]
    assert moves_and_positions == [
        "move 1: g3-h4",
        f"position: set up {pos.fen()} (the moves start again from it)",
        "move 1: e3-f4",
    ], r.stdout
    r = damas("replay", "--game", str(session), "--db", str(db), "--json")
    kinds = [(v["type"], v.get("fen"), v.get("move")) for v in map(json.loads, r.stdout.splitlines())]
    assert ("position", pos.fen(), None) in kinds
    # exported, the session holds both lines, the second as a variation of the first (in the study's tree)
    r = damas("export", str(session), "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert "\n1. c3-d4 f6-g5 2. g3-h4 (2. e3-f4) *" in r.stdout, r.stdout
