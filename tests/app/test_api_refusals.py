"""What the page's API answers to a request it cannot carry out: a 400 whose one-line
message names the problem and the value, and nothing changed (in-process, through
aiohttp's test client: quick)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from board_hal.leds import Role as LedRole
from damas.board.loop import PlayApp
from rules.pdn import read_pdn
from tests.fuzz.app import post, with_client

REFUSED = [
    ("/api/sim", {"op": "jump", "square": 22}, "unknown op 'jump' (lift, place or fix)"),
    ("/api/sim", {"op": "lift", "square": 33}, "no square 33"),
    ("/api/sim", {"op": "lift", "square": 0}, "no square 0"),
    ("/api/sim", {"op": "lift", "square": True}, "no square True"),
    ("/api/sim", {"op": "lift", "square": "22"}, "no square '22'"),
    ("/api/sim", {"op": "place", "cell": "z9"}, "z9"),
    ("/api/action", {"action": "dance"}, "unknown action 'dance'"),
    ("/api/action", {"action": "resign"}, "resign needs side: white or black"),
    ("/api/action", {"action": "resign", "side": "red"}, "resign needs side: white or black"),
    ("/api/action", {"action": "result", "result": "3-0"}, "invalid result '3-0' (one of 1-0, 0-1, 1/2-1/2"),
    ("/api/action", {"action": "result", "result": 1}, "invalid result 1 ("),
    ("/api/action", {"action": "new-game", "opponent": "robot"}, "unknown opponent 'robot' (human or engine)"),
    ("/api/action", {"action": "new-game", "opponent": "engine", "level": 11}, "level must be 1-10, not 11"),
    ("/api/action", {"action": "new-game", "opponent": "engine", "level": 0}, "level must be 1-10, not 0"),
    ("/api/action", {"action": "new-game", "opponent": "engine", "level": True}, "level must be 1-10, not True"),
    ("/api/action", {"action": "new-game", "opponent": "engine", "level": "x"}, "level must be 1-10, not 'x'"),
    ("/api/action", {"action": "new-game", "variant": 8}, "variant must be text, not 8"),
    ("/api/action", {"action": "new-game", "tags": ["White", "Ana"]}, "tags must be an object of tag names"),
    ("/api/action", {"action": "new-game", "tags": {f"T{i}": "x" for i in range(65)}}, "too many tags (65;"),
    ("/api/action", {"action": "clock"}, "this game has no clock (start one with a time control"),
    ("/api/games/999/tags", {"tags": {"Round": "2"}}, "no game 999"),
    ("/api/games/1/tags", {"result": "2-2"}, "invalid result '2-2'"),
    # the game's own tags: written from the game, never from its tags (they were taken, and lost)
    ("/api/games/1/tags", {"tags": {"FEN": "W:W21:B1"}}, "tag FEN is the game's own"),
    ("/api/games/1/tags", {"tags": {"GameType": "20"}}, "tag GameType is the game's own"),
    ("/api/games/1/tags", {"tags": {"Result": "1-0"}}, "a result is given as result"),
    ("/api/action", {"action": "new-game", "tags": {"FEN": "W:W21:B1"}}, "tag FEN is the game's own"),
]


def test_each_bad_request_is_refused_naming_the_problem_and_changes_nothing(tmp_path: Path) -> None:
    async def work(client: TestClient[Any, Any], play: PlayApp) -> list[tuple[str, int, Any]]:
        before = (play.session.row.id, play.session.seq, play.store.game(1).tags, play.store.game(1).result)
        answers = []
        for path, body, _words in REFUSED:
            status, answer = await post(client, path, body)
            answers.append((path, status, answer))
        after = (play.session.row.id, play.session.seq, play.store.game(1).tags, play.store.game(1).result)
        assert after == before
        assert len(play.store.games()) == 1  # no game was started by a refused request
        return answers

    answers = with_client(tmp_path / "g.sqlite3", work)
    for (path, body, words), (_path, status, answer) in zip(REFUSED, answers, strict=True):
        assert status == 400, (path, body, answer)
        assert isinstance(answer, dict) and words in answer["error"], (body, answer)
        assert "\n" not in answer["error"]


def test_the_accepted_forms_next_to_the_refused_ones(tmp_path: Path) -> None:
    """The same requests with good values: carried out (a level given as text, a cell by name)."""

    async def work(client: TestClient[Any, Any], play: PlayApp) -> None:
        status, answer = await post(client, "/api/sim", {"op": "lift", "cell": "c3"})
        assert status == 200 and answer["journal"] == 1
        status, answer = await post(client, "/api/sim", {"op": "place", "square": 18})
        assert status == 200 and answer["journal"] == 2
        status, answer = await post(client, "/api/action", {"action": "resign", "side": "black"})
        assert status == 200 and play.session.ended
        status, answer = await post(client, "/api/games/1/tags", {"tags": {"Round": "2"}})
        assert status == 200 and play.store.game(1).tags["Round"] == "2"
        status, answer = await post(
            client, "/api/action", {"action": "new-game", "opponent": "human", "level": "3", "mode": "casual"}
        )
        assert status == 200 and answer["game"] == 2
        async with client.get("/games/999.pdn") as resp:
            assert resp.status == 404  # a game that does not exist: not found, not an error page

    with_client(tmp_path / "g.sqlite3", work)


def test_an_action_the_records_cannot_take_is_refused_and_pauses_the_board(tmp_path: Path) -> None:
    """Another program holds the database as the arbiter enters a result: the page is told,
    in one line, that the records cannot be written; nothing is decided, every square blinks
    red, and later actions are refused until a write succeeds again."""
    db = tmp_path / "g.sqlite3"

    async def work(client: TestClient[Any, Any], play: PlayApp) -> None:
        assert play.store.db is not None
        play.store.db.execute("PRAGMA busy_timeout=50")
        other = sqlite3.connect(db, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            status, answer = await post(client, "/api/action", {"action": "resign", "side": "white"})
            assert status == 400 and answer["error"].startswith("Cannot write the records: ")
            assert "The board is paused" in answer["error"] and "\n" not in answer["error"]
            assert not play.session.ended and play.write_error is not None
            squares = play.session.referee.position.geometry.squares()
            assert sorted(play.led_intents()) == [(q, LedRole.ERROR) for q in sorted(squares)]
            status, answer = await post(client, "/api/action", {"action": "draw"})
            assert status == 400 and answer["error"].startswith("Cannot write the records: ")
            status, answer = await post(client, "/api/action", {"action": "new-game"})
            assert status == 400 and answer["error"].startswith("Cannot write the records: ")
            assert len(play.store.games()) == 1
        finally:
            other.execute("ROLLBACK")
            other.close()

    with_client(db, work)


def test_a_hint_or_a_computer_side_that_cannot_be_given_is_refused_saying_why(tmp_path: Path) -> None:
    async def work(client: TestClient[Any, Any], play: PlayApp) -> None:
        status, answer = await post(client, "/api/action", {"action": "new-game", "opponent": "engine", "side": "red"})
        assert (status, answer["error"]) == (400, "side must be white or black, not 'red'")
        status, answer = await post(client, "/api/action", {"action": "resign", "side": "white"})
        assert status == 200
        status, answer = await post(client, "/api/action", {"action": "hint"})
        assert (status, answer["error"]) == (400, "the game is over")
        status, answer = await post(client, "/api/action", {"action": "new-game", "mode": "tournament"})
        assert status == 200
        status, answer = await post(client, "/api/action", {"action": "hint"})
        assert (status, answer["error"]) == (
            400,
            'hints are for casual games (set [engine] hints = "always" to allow them)',
        )

    with_client(tmp_path / "g.sqlite3", work)


def test_tag_values_read_back_from_the_pdn_as_they_were_given(tmp_path: Path) -> None:
    """Issue 33.6: ``&quot;`` and ``&#10;`` came back from the PDN as ``"`` and a line break (the
    reader decodes character entities, which some PDN files carry)."""
    given = {
        "Event": "Club &quot;Open&quot; &#10; 2026",
        "Site": "Tom & Jerry's &amp; co",
        "Annotator": 'Ana &lt;ana@example.org&gt; \\ "quoted"',
        "Round": "AT&T cup",
    }

    async def work(client: TestClient[Any, Any], play: PlayApp) -> str:
        status, answer = await post(client, "/api/games/1/tags", {"tags": given})
        assert status == 200, answer
        async with client.get("/games/1.pdn") as resp:
            return await resp.text()

    text = with_client(tmp_path / "g.sqlite3", work)
    ((game,),) = (read_pdn(text),)
    assert {k: game.tags[k] for k in given} == given, text
    assert '[Round "AT&T cup"]' in text  # an "&" nothing could be read into stays as it is, for other readers


def test_a_token_that_is_not_ascii_is_refused_not_a_server_error(tmp_path: Path) -> None:
    async def work(client: TestClient[Any, Any], play: PlayApp) -> list[int]:
        play.token = "s3cret"
        out = []
        for given in ("é", "☃", "s3cretü"):
            async with client.post(
                "/api/action", params={"token": given}, json={"action": "draw"}, headers={"X-Damas-Token": ""}
            ) as resp:
                out.append(resp.status)
                assert "Traceback" not in await resp.text()
        async with client.post("/api/action", json={"action": "draw"}, headers={"X-Damas-Token": "é"}) as resp:
            out.append(resp.status)
        return out

    assert with_client(tmp_path / "g.sqlite3", work) == [403, 403, 403, 403]
