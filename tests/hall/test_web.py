"""The hall's HTTP surface in-process (aiohttp's test client, no broker): every action refused
without the token, bad input answered with a 4xx and a one-line error, unknown ids a 404, and
what an arbiter or a broadcast relay reads (PDN, printable pages) built from the tournament."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from hall import web as hall_web
from hall.app import Hall
from hall.store import HallStore

TOKEN = "arbiter-token"
Client = TestClient[Any, Any]


def _serve(tmp_path: Path, body: Callable[[Hall, Client], Awaitable[None]]) -> None:
    async def main() -> None:
        store = HallStore(tmp_path / "hall.sqlite3")
        try:
            hall = Hall(store, None, token=TOKEN)
            async with TestClient(TestServer(hall_web.build_app(hall))) as client:
                await body(hall, client)
        finally:
            store.close()

    asyncio.run(main())


async def _post(client: Client, path: str, body: Any, token: str | None = TOKEN) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["X-Hall-Token"] = token
    data = body if isinstance(body, str) else json.dumps(body)
    async with client.post(path, data=data, headers=headers) as r:
        return r.status, await r.json()


async def _get(client: Client, path: str) -> tuple[int, str]:
    async with client.get(path) as r:
        return r.status, await r.text()


def _one_line_error(status: int, answer: Any, expected: int, words: str) -> None:
    assert status == expected, (status, answer)
    assert isinstance(answer, dict) and set(answer) == {"error"}, answer
    assert "\n" not in answer["error"] and words in answer["error"], answer


def _play(hall: Hall, board: str, game: int, tags: dict[str, str], paths: list[str], fen: str | None = None) -> None:
    """Board ``board`` publishes a game (what damas.hall_link.publish sends): its start, moves, result."""
    msgs: list[dict[str, Any]] = [
        {"type": "start", "variant": "brazilian", "fen": fen, "mode": "tournament", "tags": tags, "intro": []}
    ]
    msgs += [{"type": "move", "step": i, "path": p, "move": p} for i, p in enumerate(paths)]
    msgs.append({"type": "result", "result": "1-0", "termination": "resignation"})
    for seq, msg in enumerate(msgs):
        hall.receive(
            f"damas/board/{board}/game", json.dumps({**msg, "board": board, "game": game, "seq": seq}).encode()
        )


def test_every_action_is_refused_without_the_token_and_changes_nothing(tmp_path: Path) -> None:
    async def body(hall: Hall, client: Client) -> None:
        actions: list[tuple[str, dict[str, Any]]] = [
            ("/api/players", {"name": "Ana"}),
            ("/api/players", {"csv": "name\nAna\n"}),
            ("/api/pair", {}),
            ("/api/result", {"round": 1, "table": 1, "result": "2-0"}),
            ("/api/confirm", {"round": 1, "table": 1}),
            ("/api/swap", {"round": 1, "table": 1}),
            ("/api/settings", {"rounds": 3}),
        ]
        for path, data in actions:
            for token in (None, "wrong", TOKEN + "x"):
                status, answer = await _post(client, path, data, token=token)
                _one_line_error(status, answer, 403, "token")
        # the page asked in Portuguese: the refusal is in Portuguese too
        status, answer = await _post(client, "/api/players?lang=pt-BR", {"name": "Ana"}, token=None)
        assert status == 403 and answer["error"] != (await _post(client, "/api/pair", {}, token=None))[1]["error"]
        assert hall.store.players() == [] and hall.store.pairings() == [] and hall.planned == 7
        # the token is also accepted in the address (the page keeps it there)
        status, answer = await _post(client, f"/api/players?token={TOKEN}", {"name": "Ana"}, token=None)
        assert status == 200 and answer == {"added": [{"id": 1, "name": "Ana"}]}

    _serve(tmp_path, body)


def test_bad_input_is_a_4xx_with_a_one_line_error_naming_it(tmp_path: Path) -> None:
    async def body(hall: Hall, client: Client) -> None:
        async with client.post("/api/players", data="name=Ana", headers={"X-Hall-Token": TOKEN}) as r:
            _one_line_error(r.status, await r.json(), 415, "JSON")
        _one_line_error(*await _post(client, "/api/players", "{not json"), 400, "not JSON")
        _one_line_error(*await _post(client, "/api/players", [1, 2]), 400, "JSON object")
        _one_line_error(*await _post(client, "/api/players", {"name": "  "}), 400, "name")
        _one_line_error(*await _post(client, "/api/players", {"name": "Ana", "rating": "high"}), 400, "'high'")
        _one_line_error(*await _post(client, "/api/players", {"csv": "name,rating\nAna,x\n"}), 400, "line 2")
        assert hall.store.players() == []
        _one_line_error(*await _post(client, "/api/pair", {"boards": "7"}), 400, "boards")
        _one_line_error(*await _post(client, "/api/pair", {"boards": [{"id": 7}]}), 400, "boards")
        for path in ("/api/result", "/api/confirm", "/api/swap"):
            _one_line_error(*await _post(client, path, {"round": "one", "table": 1}), 400, "round must be a number")
            _one_line_error(*await _post(client, path, {"round": 1, "table": True}), 400, "table must be a number")
            _one_line_error(*await _post(client, path, {"round": 1}), 400, "table must be a number")
            # no such table: named, in the page's language when it asked for one
            _one_line_error(*await _post(client, path, {"round": 9, "table": 4, "result": "2-0"}), 400, "9")
            status, answer = await _post(client, path + "?lang=en", {"round": 9, "table": 4, "result": "2-0"})
            _one_line_error(status, answer, 400, "9")
        _one_line_error(*await _post(client, "/api/settings", {"boards": "7,8"}), 400, "boards")
        _one_line_error(*await _post(client, "/api/settings", {"rounds": 0}), 400, "0")
        _one_line_error(*await _post(client, "/api/settings", {"tiebreak": "coin"}), 400, "coin")
        _one_line_error(*await _post(client, "/api/settings", {"language": "fr"}), 400, "'fr'")
        _one_line_error(*await _post(client, "/api/pair", {}), 400, "two players")
        assert hall.planned == 7 and hall.store_boards() == [] and hall.language is None

    _serve(tmp_path, body)


def test_an_arbiter_runs_a_round_through_the_http_api(tmp_path: Path) -> None:
    async def body(hall: Hall, client: Client) -> None:
        status, answer = await _post(client, "/api/settings", {"rounds": 3, "event": "Open", "boards": ["7", 8]})
        assert (status, answer) == (200, {"ok": True})
        assert hall.planned == 3 and hall.event == "Open" and hall.store_boards() == ["7", "8"]
        status, answer = await _post(client, "/api/players", {"csv": "name,rating,club\nAna,1800,Recife\nBia,1700,\n"})
        assert status == 200 and [p["name"] for p in answer["added"]] == ["Ana", "Bia"]
        status, answer = await _post(client, "/api/players", {"name": " Cid ", "rating": 1600, "club": "Olinda"})
        assert status == 200 and answer == {"added": [{"id": 3, "name": "Cid"}]}
        assert [(p.name, p.rating, p.club) for p in hall.store.players()][-1] == ("Cid", 1600, "Olinda")
        version = hall.version
        status, answer = await _post(client, "/api/pair", {})
        assert (status, answer) == (200, {"round": 1, "tables": 2}) and hall.version > version
        game = next(p for p in hall.store.pairings() if p.black is not None)
        bye = next(p for p in hall.store.pairings() if p.black is None)
        assert game.board == "7"  # the first board of the settings
        before = (game.white, game.black)
        status, answer = await _post(client, "/api/swap", {"round": 1, "table": game.table})
        assert status == 200 and (answer["white"], answer["black"]) == (before[1], before[0])
        # a bye has no result to set; a result is normalised; confirming it makes it count
        _one_line_error(*await _post(client, "/api/result", {"round": 1, "table": bye.table, "result": "2-0"}), 400, "")
        _one_line_error(*await _post(client, "/api/confirm", {"round": 1, "table": game.table}), 400, "")
        _one_line_error(
            *await _post(client, "/api/result", {"round": 1, "table": game.table, "result": "3-0"}), 400, "3-0"
        )
        status, answer = await _post(client, "/api/result", {"round": 1, "table": game.table, "result": "0-2"})
        assert (status, answer) == (200, {"round": 1, "table": game.table, "result": "0-2"})
        _one_line_error(*await _post(client, "/api/swap", {"round": 1, "table": game.table}), 400, "")
        status, answer = await _post(client, "/api/confirm", {"round": 1, "table": game.table})
        assert status == 200 and answer["result"] == "0-2"
        assert next(p for p in hall.store.pairings() if p.table == game.table).confirmed
        # round 2 on the boards the arbiter names
        status, answer = await _post(client, "/api/pair", {"boards": [9]})
        assert status == 200 and answer["round"] == 2
        assert {p.board for p in hall.store.pairings() if p.round == 2 and p.black is not None} == {"9"}
        _one_line_error(*await _post(client, "/api/pair", {}), 400, "no confirmed result")  # round 2 is not over
        assert (await _post(client, "/api/settings", {"rounds": 2, "language": "pt"})) == (200, {"ok": True})
        assert hall.language == "pt-BR"
        _one_line_error(*await _post(client, "/api/pair?lang=en", {}), 400, "3")  # beyond the 2 rounds planned
        assert (await _post(client, "/api/settings", {"language": ""})) == (200, {"ok": True})
        assert hall.language is None

    _serve(tmp_path, body)


def test_broadcast_pdn_and_printable_pages(tmp_path: Path) -> None:
    async def body(hall: Hall, client: Client) -> None:
        hall.settings({"rounds": 3, "event": "Open <Recife>"})
        hall.import_csv("name,rating,club\nAna,1800,Recife\nBia,1700,Olinda\n")
        hall.pair_next(["7"])
        (p,) = hall.store.pairings()
        names = {pl.id: pl.name for pl in hall.store.players()}
        white, black = names[p.white], names[p.black or 0]
        _play(
            hall, "7", 3, {"White": white, "Black": black, "Round": "1", "Event": "Open"}, ["c3-d4", "f6-g5", "g3-h4"]
        )
        status, live = await _get(client, "/live.pdn")
        assert status == 200 and f'[White "{white}"]' in live and "1. c3-d4 f6-g5 2. g3-h4" in live
        assert (await _get(client, "/round/1.pdn")) == (200, live)
        status, one = await _get(client, "/games/7-3.pdn")
        assert status == 200 and "1. c3-d4 f6-g5 2. g3-h4" in one and one.strip().endswith("1-0")
        async with client.get("/games/7-3.pdn") as r:
            assert r.content_type == "application/x-chess-pdn"
        assert (await _get(client, "/round/2.pdn")) == (200, "")  # not played yet: no game
        for path in ("/round/x.pdn", "/games/8-1.pdn", "/games/nonsense.pdn", "/games/7-3x/sheet", "/pairings/x"):
            async with client.get(path) as r:
                _one_line_error(r.status, await r.json(), 404, "no ")
        async with client.get("/pairings/2") as r:
            _one_line_error(r.status, await r.json(), 404, "round 2")
        # the printable pages, escaped, in the language asked for
        status, page = await _get(client, "/pairings/1?lang=en")
        assert status == 200 and "Open &lt;Recife&gt;" in page and "<Recife>" not in page
        assert f"<td>7</td><td>{white}</td><td>{black}</td><td>2-0 " in page  # the board's result, not confirmed
        status, page = await _get(client, "/standings?lang=en")
        assert status == 200 and "<td>Ana</td><td>Recife</td><td>1800</td>" in page and 'lang="en"' in page
        status, sheet = await _get(client, "/games/7-3/sheet?lang=en")
        assert status == 200 and "<tr><td>1</td><td>c3-d4</td><td>f6-g5</td></tr>" in sheet
        assert "<tr><td>2</td><td>g3-h4</td><td></td></tr>" in sheet and "<b>1-0</b>" in sheet
        status, sheet_pt = await _get(client, "/games/7-3/sheet?lang=pt-BR")
        assert status == 200 and 'lang="pt-BR"' in sheet_pt and sheet_pt != sheet
        # a game from a position with Black to move: the sheet's first row starts in Black's column
        _play(hall, "8", 1, {"White": "X", "Black": "Y"}, ["d6-c5"], fen="B:W21,22:B10,11")
        status, sheet = await _get(client, "/games/8-1/sheet?lang=en")
        assert status == 200 and "<tr><td>1</td><td>…</td><td>d6-c5</td></tr>" in sheet

    _serve(tmp_path, body)


def test_the_long_poll_answers_when_the_state_changes(tmp_path: Path) -> None:
    async def body(hall: Hall, client: Client) -> None:
        async with client.get("/api/state") as r:
            first = await r.json()
        assert r.status == 200

        async def change() -> None:
            await asyncio.sleep(0.2)
            hall.settings({"event": "Open"})
            hall.bump()

        task = asyncio.create_task(change())
        async with client.get(f"/api/state?since={hall.version}") as r:
            later = await r.json()
        await task
        assert later != first and "Open" in json.dumps(later)

    _serve(tmp_path, body)


def test_a_long_poll_in_flight_does_not_hold_up_the_halls_shutdown(tmp_path: Path) -> None:
    """SIGTERM with a page open: the hall's shutdown answered the page's long poll at once
    instead of waiting out its 25 s (found by HallProcess.stop failing on SIGKILL)."""

    async def body(hall: Hall, client: Client) -> None:
        poll = asyncio.create_task(_get(client, f"/api/state?since={hall.version}"))
        await asyncio.sleep(0.3)  # the poll is waiting in the server
        assert not poll.done()
        started = asyncio.get_running_loop().time()
        await asyncio.wait_for(client.server.runner.cleanup(), 10)  # what damas hall does on SIGTERM
        status, state = await asyncio.wait_for(poll, 5)
        assert status == 200 and json.loads(state)["version"] >= 0
        assert asyncio.get_running_loop().time() - started < hall_web.WAIT / 2

    _serve(tmp_path, body)


def test_what_a_board_sends_wrongly_is_refused_once_and_a_setup_survives_a_restart(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        hall = Hall(store, None, token=TOKEN)
        for topic, payload in [
            ("damas/board/7", b"{}"),  # not a board's topic: ignored
            ("other/board/7/game", b"{}"),
        ]:
            hall.receive(topic, payload)
        assert hall.games == {} and hall.alerts() == []
        for topic, payload in [
            ("damas/board/7/game", b"not json"),
            ("damas/board/7/game", b"[1, 2]"),
            ("damas/board/7/game", json.dumps({"type": "start", "board": "8", "game": 1, "seq": 0}).encode()),
            ("damas/board/7/game", json.dumps({"type": "start", "board": "7", "game": "1", "seq": 0}).encode()),
            ("damas/board/7/status", json.dumps({"online": True, "games": {"x": 1, "1": None}}).encode()),
        ]:
            hall.receive(topic, payload)
        assert hall.games == {} and "7" not in hall.boards
        (alert,) = hall.alerts()  # one alert for the five, counted
        assert (alert["kind"], alert["count"]) == ("refused", 5) and "not JSON" in alert["message"]
        assert hall.dismiss("7") == 1 and hall.alerts() == []
        tags = {"White": "Ana", "Black": "Bia"}
        fen = "W:W21,22,31:B10,11"

        def send(seq: int, msg: dict[str, Any]) -> None:
            hall.receive("damas/board/7/game", json.dumps({**msg, "board": "7", "game": 1, "seq": seq}).encode())

        send(0, {"type": "move", "step": 0, "path": "c3-d4"})  # before the start: refused, number 0 stays free
        (alert,) = hall.alerts()
        assert alert["kind"] == "refused" and "before the game's start" in alert["message"]
        assert ("7", 1) not in hall.games or hall.games[("7", 1)].next_seq == 0
        hall.dismiss("7")
        for seq, msg in enumerate(
            [
                {"type": "start", "variant": "brazilian", "fen": None, "mode": "casual", "tags": tags},
                {"type": "move", "step": 0, "path": "c3-d4", "move": "c3-d4"},
                {"type": "setup", "step": 1, "fen": fen},  # the arbiter set a position up
                {"type": "tags", "tags": {**tags, "Event": "Open"}, "intro": ["set up"]},
            ]
        ):
            send(seq, msg)
        g = hall.games[("7", 1)]
        pdn = g.pdn()
        assert '1. c3-d4 /FEN "W:Wa3,c3,e1:Bd6,f6"/ *' in pdn and '[Event "Open"]' in pdn and "{set up}" in pdn
        assert g.last_move() == "c3-d4" and g.next_seq == 4
        for msg, why in [
            ({"type": "move", "step": 9, "path": "a3-b4"}, "step 9 does not follow the 2 steps known"),
            ({"type": "move", "step": 2, "path": "a1-h8"}, "a1-h8"),  # not a move in the position
            ({"type": "undo", "steps": 2}, "undo to 2 steps of the 2 known"),
            ({"type": "fly"}, "unknown type 'fly'"),
        ]:
            send(4, msg)
            assert why in hall.incidents[("7", "refused")]["message"], why
            hall.dismiss("7")
            assert g.next_seq == 4 and g.pdn() == pdn  # nothing changed, and message 4 is still to come
        send(4, {"type": "undo", "steps": 1})
        assert g.last_move() == "c3-d4" and len(g.steps) == 1
        send(5, {"type": "undo", "steps": 0})
        assert g.last_move() is None and g.steps == []
        send(6, {"type": "setup", "step": 0, "fen": fen})
        kept = g.pdn()
        assert hall.alerts() == []
        store.close()
        store = HallStore(tmp_path / "hall.sqlite3")
        again = Hall(store, None, token=TOKEN).games[("7", 1)]  # the hall restarted: from its snapshot
        assert again.pdn() == kept and again.steps[0][0] == "setup" and again.next_seq == 7
    finally:
        store.close()


def test_forfeits_over_http_score_as_the_regulation_says_and_the_next_round_pairs(tmp_path: Path) -> None:
    async def body(hall: Hall, client: Client) -> None:
        _one_line_error(*await _post(client, "/api/players", {"csv": ""}), 400, "")
        _one_line_error(*await _post(client, "/api/players", {"csv": "name,rating\nAna,1\n,2\n"}), 400, "line 3")
        assert hall.store.players() == []
        await _post(client, "/api/players", {"csv": "name,rating\nAna,1900\nBia,1800\nCid,1700\nDui,1600\n"})
        assert (await _post(client, "/api/pair", {}))[1] == {"round": 1, "tables": 2}
        names = {p.id: p.name for p in hall.store.players()}
        t1, t2 = sorted((p for p in hall.store.pairings()), key=lambda p: p.table)
        for table, result in ((t1.table, "+/-"), (t2.table, "-/-")):  # a W.O.; both absent
            assert (await _post(client, "/api/result", {"round": 1, "table": table, "result": result}))[0] == 200
            assert (await _post(client, "/api/confirm", {"round": 1, "table": table}))[0] == 200
        points = {row["name"]: row["points"] for row in hall.table()}
        assert points[names[t1.white]] == 2 and points[names[t1.black]] == 0  # a W.O. is a win for the one present
        assert points[names[t2.white]] == 0 and points[names[t2.black]] == 0  # both absent: both lose
        # the absentee withdraws: round 2 pairs the three others (one of them has the bye), not them
        status, data = await _post(client, "/api/player", {"id": t1.black, "withdrawn": True})
        assert status == 200 and data["withdrawn"] == 2
        assert (await _post(client, "/api/pair", {}))[1] == {"round": 2, "tables": 2}
        second = [p for p in hall.store.pairings() if p.round == 2]
        seated = sorted(x for p in second for x in (p.white, p.black) if x is not None)
        assert seated == sorted(set(names) - {t1.black})
        assert [p.black for p in second].count(None) == 1

    _serve(tmp_path, body)


def test_pairing_runs_off_the_event_loop_the_page_and_the_boards_go_on(tmp_path: Path) -> None:
    """Issue 29: the pairing engine takes seconds for a big open; it runs in another process, and
    the page's state and the boards' messages are answered while it runs (the state says so)."""

    async def body(hall: Hall, client: Client) -> None:
        hall.import_csv("name,rating\n" + "".join(f"P{i},{2000 - i}\n" for i in range(80)))
        for p in hall.pair_next():
            if p.black is not None:
                hall.set_result(p.round, p.table, ("2-0", "1-1", "0-2")[p.table % 3])
        pairing = asyncio.ensure_future(_post(client, "/api/pair", {}))
        while hall.pairing is None:
            await asyncio.sleep(0.01)
        status, text = await _get(client, "/api/state")
        assert status == 200 and json.loads(text)["pairing"] == 2 and not pairing.done()
        _play(hall, "7", 1, {"White": "A", "Black": "B"}, ["c3-d4"])  # a board's messages are folded meanwhile
        assert hall.games[("7", 1)].plies == 1 and not pairing.done()
        _one_line_error(*await _post(client, "/api/pair", {}), 400, "being paired")  # one pairing at a time
        assert (await pairing)[1] == {"round": 2, "tables": 40}
        assert hall.pairing is None

    _serve(tmp_path, body)


def test_the_organiser_s_exports_byes_asked_for_and_a_round_paired_again(tmp_path: Path) -> None:
    """Issue 29: FIDE TRF, standings / pairings / cross-table as CSV and JSON, blank score sheets
    before the games exist, lidraughts' per-board feed (``/live/<i>.pdn``), a bye asked for, a
    round taken back and paired again (not once a game has its result), a player corrected."""

    async def body(hall: Hall, client: Client) -> None:
        await _post(
            client, "/api/players", {"csv": "name,rating,club\nAna,1900,Recife\nBia,1800,\nCid,1700,\nDui,1600,\n"}
        )
        assert (await _post(client, "/api/player", {"id": 2, "name": "Bia Lima", "club": "Olinda"}))[0] == 200
        _one_line_error(*await _post(client, "/api/player", {"id": 99, "name": "X"}), 400, "no player 99")
        _one_line_error(*await _post(client, "/api/bye", {"player": 4, "round": 1, "result": "X"}), 400, "H (worth a")
        assert (await _post(client, "/api/bye", {"player": 4, "round": 1, "result": "H"}))[0] == 200
        await _post(client, "/api/pair", {"boards": ["7", "8"]})
        first = [p for p in hall.store.pairings() if p.round == 1]
        assert [(p.white, p.result) for p in first if p.black is None] == [(3, None), (4, "H")]  # the PAB, the H
        assert (await _post(client, "/api/unpair", {"round": 1}))[0] == 200  # taken back: the bye is asked again
        assert hall.current_round() == 0 and [(b.round, b.white, b.result) for b in hall.store.byes()] == [(1, 4, "H")]
        await _post(client, "/api/pair", {"boards": ["7", "8"]})
        sheets = await (await client.get("/pairings/1/sheets")).text()
        assert sheets.count('<section class="page">') == 1 and "Bia Lima" in sheets and "Ana" in sheets
        live = await (await client.get("/live/1.pdn")).text()
        game = next(p for p in hall.store.pairings() if p.round == 1 and p.table == 1)
        names = {p.id: p.name for p in hall.store.players()}
        assert f'[White "{names[game.white]}"]' in live and '[Round "1"]' in live
        assert (await client.get("/live/9.pdn")).status == 404
        await _post(client, "/api/result", {"round": 1, "table": 1, "result": "2-0"})
        _one_line_error(*await _post(client, "/api/unpair", {"round": 1}), 400, "results")
        trf = await (await client.get("/tournament.trf")).text()
        assert "162  W 2.0" in trf and "0000 - H" in trf and "Bia Lima" in trf and "XXR 7" in trf
        standings = await (await client.get("/standings.csv")).text()
        assert standings.splitlines()[0] == "rank,id,name,club,rating,games,points,tiebreak,withdrawn"
        assert any(line.startswith(f"1,{game.white},") for line in standings.splitlines())
        assert json.loads(await (await client.get("/standings.json")).text())[0]["id"] == game.white
        rows = json.loads(await (await client.get("/pairings/1.json")).text())
        assert [r["table"] for r in rows] == [1, 2, 3] and rows[0]["result"] == "2-0" and rows[2]["black"] is None
        assert (await (await client.get("/pairings/1.csv")).text()).startswith("round,table,board,white,black,result")
        cross = await (await client.get("/crosstable.csv")).text()
        assert cross.splitlines()[0] == "line,rank,name,club,rating,R1,points,tiebreak" and ",H," in cross
        assert "H" in await (await client.get("/crosstable")).text()

    _serve(tmp_path, body)


def test_a_page_gets_only_what_changed_since_its_version_compressed(tmp_path: Path) -> None:
    """Issue 29 (50 spectators of 100 boards): with ``delta`` (the hall's boot mark from the last
    state) a page gets the boards that changed since its version, not all of them, gzipped when it
    accepts it; a mark from another run of the hall (restarted) gets the whole state."""

    async def body(hall: Hall, client: Client) -> None:
        now = [1000.0]
        hall.clock = lambda: now[0]

        def start(board: str) -> None:
            msg = {"board": board, "game": 1, "seq": 0, "type": "start", "variant": "brazilian", "tags": {}}
            if board == "7":  # (its clock running: white to move)
                faces = {"white": 1260.0, "black": 1260.0, "running": "white", "ticking": True, "t": now[0]}
                msg |= {"control": "21", "clocks": faces}
            hall.receive(f"damas/board/{board}/game", json.dumps(msg).encode())

        for board in ("7", "8", "9"):
            start(board)
        r = await client.get("/api/state", headers={"Accept-Encoding": "gzip"})
        assert r.headers["Content-Encoding"] == "gzip"
        full = await r.json()  # (aiohttp's client inflates it)
        assert [b["board"] for b in full["boards"]] == ["7", "8", "9"] and "delta" not in full
        assert full["boards"][0]["game"]["clock"]["white"] == 1260.0
        now[0] += 30  # board 7's clock runs on: no news (the page counts it down from when it got it)
        move = {"board": "8", "game": 1, "seq": 1, "type": "move", "step": 0, "path": "c3-d4", "move": "c3-d4"}
        hall.receive("damas/board/8/game", json.dumps(move).encode())
        delta = await (await client.get(f"/api/state?since={full['version']}&delta={full['boot']}")).json()
        assert delta["delta"] == full["version"] and delta["board_ids"] == ["7", "8", "9"]
        assert [b["board"] for b in delta["boards"]] == ["8"] and delta["boards"][0]["game"]["plies"] == 1
        whole = await (await client.get("/api/state")).json()  # (a whole state: the faces as they stand)
        assert whole["boards"][0]["game"]["clock"]["white"] == 1230.0
        assert delta["boards"][0]["game"]["moves"] is None  # (the cards need no list of moves)
        one = await (await client.get(f"/api/state?since={full['version']}&delta={full['boot']}&moves=8")).json()
        assert one["boards"][0]["game"]["moves"] == ["c3-d4"]  # (one board's page shows them)
        assert "pairings" not in delta and "geometry" not in delta  # (unchanged: the page keeps them)
        again = await (await client.get(f"/api/state?since={full['version']}&delta=another-run")).json()
        assert "delta" not in again and len(again["boards"]) == 3

    _serve(tmp_path, body)
