"""Studies survive a restart (issue 28): each change is written to the records before the page is
answered, so a study edited and the process killed (SIGKILL: no clean stop) comes back whole on
the next start, open as it was; a damaged study is named in one line and the others still load."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from tests.app.server import Server

PASTED = (
    '[Event "Club night"]\n[White "Ana"]\n[Black "Rui"]\n[Result "*"]\n\n'
    "1. c3-d4 {Ana's favourite, a quiet start} (1. e3-f4 f6-g5) 1... b6-a5 2. d4-c5 !? *"
)


def study(server: Server, **request: Any) -> dict[str, Any]:
    server.post("/api/action", {"action": "study", **request})
    return server.get("/api/state")["study"]  # type: ignore[no-any-return]


def node_of(state: dict[str, Any], text: str) -> int:
    return next(int(t["id"]) for t in state["tokens"] if t["kind"] == "move" and t["text"].startswith(text))


def test_a_study_edited_then_killed_comes_back_whole(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server = Server(db).start()
    try:
        pasted = study(server, op="pdn", pdn=PASTED)
        pasted_pdn = server.get("/study.pdn")
        s = study(server, op="open")  # the game in play (no moves yet) as a second study
        s = study(server, op="play", node=0, move="c3-d4")
        s = study(server, op="play", node=node_of(s, "c3-d4"), move="f6-g5")
        s = study(server, op="play", node=node_of(s, "c3-d4"), move="b6-a5")  # a variation
        s = study(server, op="promote", node=node_of(s, "b6-a5"))
        s = study(server, op="goto", node=node_of(s, "f6-g5"))
        before, before_pdn = s, server.get("/study.pdn")
        assert "(1... f6-g5)" in before_pdn
        server.kill()  # the power goes: nothing more is written
    finally:
        if server.proc is not None:
            server.stop()
    again = Server(db).start()
    try:
        state = again.get("/api/state")["study"]
        assert state is not None, again.output
        assert state["tokens"] == before["tokens"] and state["fen"] == before["fen"]
        assert again.get("/study.pdn") == before_pdn
        # the other study is kept too, variations and comments as pasted
        stored = stored_studies(db)
        assert len(stored) == 2
        other = next(i for i in stored if i != state["id"])
        reopened = study(again, op="open", study=other)
        assert reopened["tokens"] == pasted["tokens"] and again.get("/study.pdn") == pasted_pdn
        assert "{Ana's favourite, a quiet start}" in pasted_pdn and "(1. e3-f4 f6-g5)" in pasted_pdn
        # closed: not open at the next start, but kept
        study(again, op="close")
        assert again.get("/api/state")["study"] is None
    finally:
        again.stop()
    third = Server(db).start()
    try:
        assert third.get("/api/state")["study"] is None
        assert len(stored_studies(db)) == 2
    finally:
        third.stop()


def stored_studies(db: Path) -> list[int]:
    con = sqlite3.connect(db)
    try:
        return [int(r[0]) for r in con.execute("SELECT id FROM studies ORDER BY id")]
    finally:
        con.close()


def test_a_damaged_study_is_named_and_the_others_load(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server = Server(db).start()
    try:
        study(server, op="pdn", pdn="1. c3-d4 f6-g5 *")
        s = study(server, op="pdn", pdn=PASTED)
        kept = server.get("/study.pdn")
    finally:
        server.stop()
    first, second = stored_studies(db)
    con = sqlite3.connect(db)
    try:  # the first study's row damaged (a disk, another program): a move that is not one
        tree = json.loads(con.execute("SELECT tree FROM studies WHERE id=?", (first,)).fetchone()[0])
        tree["moves"][0]["move"] = "c3-d9"
        con.execute("UPDATE studies SET tree=? WHERE id=?", (json.dumps(tree), first))
        con.commit()
    finally:
        con.close()
    again = Server(db).start()
    try:
        state = again.get("/api/state")["study"]
        assert state is not None and state["tokens"] == s["tokens"] and again.get("/study.pdn") == kept
        said = [line for line in again.output.splitlines() if f"study {first}" in line]
        assert len(said) == 1 and "damaged" in said[0] and "c3-d9" in said[0], again.output
        assert "Traceback" not in again.output
    finally:
        again.stop()
    con = sqlite3.connect(db)
    try:  # the open one damaged too, beyond JSON: the board starts without it, and says so
        con.execute("UPDATE studies SET tree='{\"format\": 1, ' WHERE id=?", (second,))
        con.commit()
    finally:
        con.close()
    third = Server(db).start()
    try:
        assert third.get("/api/state")["study"] is None
        assert sum(f"study {i} " in third.output for i in (first, second)) == 2, third.output
        assert "Traceback" not in third.output
    finally:
        third.stop()


def test_the_page_lists_the_kept_studies_and_opens_one_again(browser: Any, tmp_path: Path) -> None:
    """In Chromium: "Back to the game" closes a study and keeps it; the page lists it (its
    players, its moves, when it was changed), and "Open" brings it back with its variations."""
    from playwright.sync_api import expect

    from tests.app.test_browser_page import opened, shot
    from tests.app.test_browser_study import tree_text

    server = Server(tmp_path / "games.sqlite3").start()
    try:
        study(server, op="pdn", pdn=PASTED)
        with opened(browser, f"{server.url}/?lang=en") as page:
            expect(page.locator("#studyon")).to_be_visible()
            assert tree_text(page) == "1. c3-d4 (1. e3-f4 f6-g5) 1... b6-a5 2. d4-c5!?"
            expect(page.locator("#st-keptbox")).to_be_hidden()  # (the open one is not listed)
            page.locator("#st-close").click()
            expect(page.locator("#studyon")).to_be_hidden()
            item = page.locator("#st-kept li")
            expect(item).to_have_count(1)
            expect(item).to_contain_text("Ana – Rui · 5 plies · ")
            expect(page.locator("#h-kept")).to_have_text("Kept studies")
            shot(page, "kept-studies")
            item.get_by_role("button", name="Open").click()
            expect(page.locator("#studyon")).to_be_visible()
            assert tree_text(page) == "1. c3-d4 (1. e3-f4 f6-g5) 1... b6-a5 2. d4-c5!?"
            expect(page.locator("#st-keptbox")).to_be_hidden()
        with opened(browser, f"{server.url}/?lang=pt-BR") as page:
            page.locator("#st-close").click()
            expect(page.locator("#h-kept")).to_have_text("Estudos salvos")
    finally:
        server.stop()


def test_a_finished_games_graph_comes_back_from_its_kept_analysis(browser: Any, tmp_path: Path) -> None:
    """A game analysed and finished, a new game, the power gone: its graph is kept in the records,
    and opening the game from the page's list of games shows it in the study (a point of it
    shows that position)."""
    from playwright.sync_api import expect

    from rules import Position
    from tests.app.test_browser_page import opened, shot
    from tests.app.test_evening import hand_move

    db = tmp_path / "games.sqlite3"
    server = Server(db).start()
    try:
        pos = Position.start("brazilian")
        for move in ("c3-d4", "f6-g5", "g3-h4", "g7-f6"):
            pos = hand_move(server, move, pos)
        first = server.get("/api/state")["game"]
    finally:
        server.stop()
    server = Server(db, "--move-time", "0.05", "--resume").start()  # (the game resumed: not analysed yet)
    try:
        assert server.get("/api/state")["game"] == first and server.get("/api/state")["analysis"] is None
        server.post("/api/action", {"action": "resign", "side": "black"})
        server.post("/api/action", {"action": "analyze"})
        analysed = server.wait_for(lambda s: (s["analysis"] or {}).get("finished"), timeout=60)["analysis"]
        assert analysed["error"] is None and len(analysed["curve"]) == 5
        server.post("/api/action", {"action": "new-game"})
        server.wait_for(lambda s: s["game"] != first)
        server.kill()
    finally:
        if server.proc is not None:
            server.stop()
    again = Server(db).start()
    try:
        with opened(browser, f"{again.url}/?lang=en") as page:
            item = page.locator(f'#recent li[data-game="{first}"]')
            item.get_by_role("button", name="Open").click()
            expect(page.locator("#studyon")).to_be_visible()
            graph = page.locator("#studygraph")
            expect(graph).to_be_visible()
            expect(graph.locator("polyline.curve")).to_have_count(1)
            study_state = again.get("/api/state")["study"]
            assert study_state["graph"]["curve"] == analysed["curve"]
            assert {int(k): v for k, v in study_state["graph"]["marked"].items()} == {
                int(k): v for k, v in analysed["marked"].items()
            }
            shot(page, "study-graph")
            box = graph.bounding_box()
            assert box is not None
            graph.click(position={"x": box["width"] - 2, "y": box["height"] / 2})  # the last point
            expect(page.locator("#studytree .mv.current")).to_have_text("g7-f6")
            assert again.get("/api/state")["study"]["current"] == study_state["graph"]["nodes"][-1]
    finally:
        again.stop()


def test_a_damaged_kept_analysis_is_no_graph() -> None:
    from damas.computer.analysis import KeptAnalysis

    good = {"format": 1, "moves": ["c3-d4"], "curve": [0, 10], "marks": []}
    assert KeptAnalysis.from_json(1, good) is not None
    mark = {"ply": 1, "number": "1.", "played": "c3-d4", "better": "a3-b4"}
    mark |= {"loss": 120, "kind": "material", "before": 0, "after": -120}
    assert KeptAnalysis.from_json(1, {**good, "marks": [mark]}) is not None
    for bad in (
        {**good, "curve": [0]},
        {**good, "format": 2},
        {**good, "moves": [3]},
        {**good, "marks": [{**mark, "kind": "lunch"}]},
        {**good, "marks": [{**mark, "ply": 5}]},
        {**good, "marks": [{"ply": 1}]},
        {**good, "marks": ["x"]},
        [],
    ):
        assert KeptAnalysis.from_json(1, bad) is None, bad
