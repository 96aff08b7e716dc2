"""Studies survive a restart (issue 28): each change is written to the records before the page is
answered, so a study edited and the process killed (SIGKILL: no clean stop) comes back whole on
the next start, open as it was; a damaged study is named in one line and the others still load."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

from tests.app.server import Server
from tests.conftest import wait_until

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


def test_a_study_whose_row_is_json_but_no_study_is_healed_from_its_copy_at_start(tmp_path: Path) -> None:
    """A row that is valid JSON but not a study (a move that is no move, a tree of another
    variant, a position shown that is not one) is taken from its copy at the next start of
    ``damas play``, as ``damas recover`` does, open again as it was; one without a good copy is
    named in one line and the board starts without it (no traceback)."""
    db = tmp_path / "games.sqlite3"
    server = Server(db).start()
    try:
        s = study(server, op="pdn", pdn=PASTED)
        kept = server.get("/study.pdn")
    finally:
        server.stop()
    (sid,) = stored_studies(db)
    copy = tmp_path / "games.sqlite3.journals" / "studies" / f"{sid}.json"
    good = json.loads(copy.read_text())["tree"]

    def damage(change: Any) -> None:
        tree = json.loads(json.dumps(good))
        change(tree)
        con = sqlite3.connect(db)
        try:
            con.execute("UPDATE studies SET tree=? WHERE id=?", (json.dumps(tree), sid))
            con.commit()
        finally:
            con.close()

    for change in (
        lambda t: t["moves"][0].update(move="c3-d9"),
        lambda t: t.update(variant="international"),
        lambda t: t.update(current=999),
    ):
        damage(change)
        again = Server(db).start()
        try:
            state = again.get("/api/state")["study"]
            assert state is not None and state["tokens"] == s["tokens"], again.output
            assert again.get("/study.pdn") == kept
            assert f"study {sid}: rebuilt from {copy} (damaged in the database" in again.output
            assert "Traceback" not in again.output and "is damaged" not in again.output
        finally:
            again.stop()
    copy.unlink()  # no copy left: named in one line, the board starts without it
    damage(lambda t: t.update(current=999))
    third = Server(db).start()
    try:
        assert third.get("/api/state")["study"] is None
        said = [line for line in third.output.splitlines() if f"study {sid}" in line]
        assert len(said) == 1 and "is damaged" in said[0] and "999" in said[0], third.output
        assert "Traceback" not in third.output
    finally:
        third.stop()


def stored_studies(db: Path) -> list[int]:
    con = sqlite3.connect(db)
    try:
        return [int(r[0]) for r in con.execute("SELECT id FROM studies ORDER BY id")]
    finally:
        con.close()


def test_a_damaged_study_is_named_and_the_others_load(tmp_path: Path) -> None:
    """A study damaged in the database is taken from its copy beside it at the next start; without
    a copy (from before the copies, or lost too) it is named in one line and the others load."""
    db = tmp_path / "games.sqlite3"
    server = Server(db).start()
    try:
        study(server, op="pdn", pdn="1. c3-d4 f6-g5 *")
        s = study(server, op="pdn", pdn=PASTED)
        kept = server.get("/study.pdn")
    finally:
        server.stop()
    first, second = stored_studies(db)
    copies = tmp_path / "games.sqlite3.journals" / "studies"
    (copies / f"{first}.json").unlink()  # (the first has no copy: it stays damaged)
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

    def damage_second() -> None:  # the open one damaged too, beyond JSON
        con = sqlite3.connect(db)
        try:
            con.execute("UPDATE studies SET tree='{\"format\": 1, ' WHERE id=?", (second,))
            con.commit()
        finally:
            con.close()

    damage_second()
    healed = Server(db).start()  # its copy is whole: it is taken from there, and open again
    try:
        state = healed.get("/api/state")["study"]
        assert state is not None and state["tokens"] == s["tokens"] and healed.get("/study.pdn") == kept
        assert f"study {second}: rebuilt from" in healed.output and "damaged in the database" in healed.output
    finally:
        healed.stop()
    damage_second()
    (copies / f"{second}.json").unlink()
    third = Server(db).start()  # no copy: the board starts without it, and says so
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

        def kept() -> bool:  # the loop writes a finished analysis at its next turn, not at once
            with sqlite3.connect(db) as con:
                return con.execute("SELECT 1 FROM analyses WHERE game_id=?", (first,)).fetchone() is not None

        wait_until(kept, timeout=10, what="the analysis written to the records")
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


def test_damas_recover_rebuilds_the_studies_and_analyses_of_a_lost_database(tmp_path: Path) -> None:
    """The studies and a finished game's analysis are copied beside the database: the database
    lost (its file gone), ``damas recover`` rebuilds them with the games, and the page has them
    again: the open study, the kept one in its list, the game's graph; a damaged copy is named in
    one line and the others are rebuilt."""
    from rules import Position
    from tests.app.test_evening import hand_move
    from tests.conftest import damas

    db = tmp_path / "games.sqlite3"
    server = Server(db, "--move-time", "0.05").start()
    try:
        pos = Position.start("brazilian")
        for move in ("c3-d4", "f6-g5", "g3-h4"):
            pos = hand_move(server, move, pos)
        game = server.get("/api/state")["game"]
        server.post("/api/action", {"action": "resign", "side": "black"})
        server.post("/api/action", {"action": "analyze"})
        analysed = server.wait_for(lambda s: (s["analysis"] or {}).get("finished"), timeout=60)["analysis"]
        assert analysed["error"] is None and len(analysed["curve"]) == 4
        s = study(server, op="open", game=game, ply=1)
        s = study(server, op="play", node=s["current"], move="b6-a5")  # a variation of the game
        kept_tokens, kept_pdn = s["tokens"], server.get("/study.pdn")
        study(server, op="close")
        open_tokens = study(server, op="pdn", pdn=PASTED)["tokens"]
        open_pdn = server.get("/study.pdn")
        assert len(server.get("/api/state")["studies"]) == 1
    finally:
        server.stop()
    journals = tmp_path / "games.sqlite3.journals"
    (journals / "studies").mkdir(exist_ok=True)
    (journals / "studies" / "3.json").write_text('{"id": 3, "variant": "brazilian", "tree": {')  # not a study
    for name in ("games.sqlite3", "games.sqlite3-wal", "games.sqlite3-shm"):
        (tmp_path / name).unlink(missing_ok=True)

    r = damas("recover", "--db", str(db))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "study 1: rebuilt from" in r.stdout and "study 2: rebuilt from" in r.stdout, r.stdout
    assert f"game {game}: its analysis rebuilt from" in r.stdout
    bad = [line for line in lines if "3.json" in line]
    assert len(bad) == 1 and "is not JSON: skipped, left as it is" in bad[0]
    assert lines[-1].startswith("1 game rebuilt (2 studies and 1 analysis rebuilt), 0 intact, 1 not recoverable")
    assert "Traceback" not in r.stdout + r.stderr
    assert sorted(p.name for p in (journals / "studies").iterdir()) == ["1.json", "2.json", "3.json"]
    assert [p.name for p in (journals / "analyses").iterdir()] == [f"{game}.json"]

    again = Server(db).start()
    try:
        state = again.get("/api/state")
        assert state["study"]["tokens"] == open_tokens and again.get("/study.pdn") == open_pdn
        listed = state["studies"]
        assert len(listed) == 1, listed
        reopened = study(again, op="open", study=listed[0]["id"])
        assert reopened["tokens"] == kept_tokens and again.get("/study.pdn") == kept_pdn
        graph = study(again, op="open", game=game)["graph"]
        assert graph is not None and graph["curve"] == analysed["curve"]
    finally:
        again.stop()
    r = damas("recover", "--db", str(db))  # again: nothing more to do
    assert "rebuilt from" not in r.stdout and r.stdout.splitlines()[-1].startswith(
        "0 games rebuilt, 2 intact, 0 not"
    ), r.stdout


def test_a_kept_study_is_deleted_from_the_page_with_two_taps(browser: Any, tmp_path: Path) -> None:
    """In Chromium: "Delete" beside a kept study asks again (one tap deletes nothing); the second
    tap deletes it from the list, the records and their copies (``damas recover`` brings it back
    no more); the other is kept."""
    from playwright.sync_api import expect

    from tests.app.test_browser_page import opened, shot
    from tests.conftest import damas

    db = tmp_path / "games.sqlite3"
    server = Server(db).start()
    try:
        study(server, op="pdn", pdn=PASTED)
        study(server, op="close")
        study(server, op="pdn", pdn='[White "Bia"]\n[Black "Caio"]\n\n1. e3-f4 f6-g5 *')
        study(server, op="close")
        first, second = stored_studies(db)
        with opened(browser, f"{server.url}/?lang=en") as page:
            items = page.locator("#st-kept li")
            expect(items).to_have_count(2)
            row = page.locator(f'#st-kept li[data-study="{first}"]')
            expect(row).to_contain_text("Ana – Rui")
            remove = row.get_by_role("button", name="Delete")
            remove.click()
            expect(row.locator("button.remove")).to_have_text("Tap again to delete this study for good")
            shot(page, "kept-study-delete")
            page.wait_for_timeout(500)  # (a double tap's second half is no confirmation)
            assert stored_studies(db) == [first, second]  # one tap deletes nothing
            row.locator("button.remove").click()
            expect(items).to_have_count(1)
            expect(items).to_contain_text("Bia – Caio")
        assert stored_studies(db) == [second]
        assert not (tmp_path / "games.sqlite3.journals" / "studies" / f"{first}.json").exists()
    finally:
        server.stop()
    r = damas("recover", "--db", str(db))
    assert r.returncode == 0 and not re.search(r"^study ", r.stdout, re.M), r.stdout
    assert stored_studies(db) == [second]


def test_a_recorded_game_never_analysed_is_analysed_from_the_games_list(browser: Any, tmp_path: Path) -> None:
    """In Chromium: a finished game, another one in play since; "Analyse" beside it in the list of
    games opens its study and analyses it: the evaluation graph, its marked mistake, and the live
    analysis goes on from the position picked on the graph."""
    import re

    from playwright.sync_api import expect

    from rules import Position
    from tests.app.test_browser_live import BLUNDER
    from tests.app.test_browser_page import opened, shot
    from tests.app.test_evening import hand_move

    db = tmp_path / "games.sqlite3"
    server = Server(db, "--move-time", "0.05").start()
    try:
        server.post("/api/action", {"action": "new-game", "fen": BLUNDER})
        pos = Position.from_fen(BLUNDER, "brazilian")
        server.wait_for(lambda s: s["fen"] == pos.fen())
        pos = hand_move(server, "a5-b6", pos)  # White gives a man away
        hand_move(server, "c5xa7", pos)
        played = server.get("/api/state")["game"]
        server.post("/api/action", {"action": "resign", "side": "white"})
        server.post("/api/action", {"action": "new-game", "fen": None})
        server.wait_for(lambda s: s["game"] != played)
        assert server.get("/api/state")["analysis"] is None
        with opened(browser, f"{server.url}/?lang=en") as page:
            row = page.locator(f'#recent li[data-game="{played}"]')
            row.get_by_role("button", name="Analyse").click()
            expect(page.locator("#studyon")).to_be_visible()
            status = page.locator("#st-analysis")
            expect(status).to_contain_text("Analysis: 1 marked move", timeout=20_000)
            expect(status.locator(".mark")).to_have_text([re.compile(r"^1\. a5-b6\? ")])
            graph = page.locator("#studygraph")
            expect(graph).to_be_visible()
            dot = graph.locator("circle.mark")
            expect(dot).to_have_count(1)
            expect(dot).to_have_attribute("data-ply", "1")
            expect(dot.locator("title")).to_have_text("1. a5-b6?")  # (its name in the study, not the game in play)
            expect(page.locator("#st-analyse")).to_be_hidden()  # (analysed: nothing more to ask)
            shot(page, "recorded-game-analysed")
            state = server.get("/api/state")
            assert state["game"] != played and state["study"]["source"] == played
            curve = state["study"]["graph"]["curve"]
            assert len(curve) == 3 and curve[0] > curve[1] + 80, curve
            dot.click()  # the position after the mistake, and the engine keeps analysing it
            expect(page.locator("#studytree .mv.current")).to_have_text("a5-b6")
            page.locator("#livetoggle").check()
            expect(page.locator("#linetext")).to_have_text(re.compile(r"^1\.\.\. c5xa7"), timeout=60_000)
    finally:
        server.stop()
