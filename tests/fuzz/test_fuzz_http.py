"""Fuzzing the HTTP API in process (aiohttp's test client on a simulated board): no answer
is a 500, errors are JSON naming the problem, and whatever was accepted, the PDN downloads
stay readable."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient

from damas.board.loop import PlayApp
from rules.pdn import read_pdn
from tests.fuzz.app import post, with_client
from tests.fuzz.harness import deep, huge_number, nasty_text, run_case, short

SLOW = pytest.mark.slow
ODD = [None, True, 0, -1, 5, 1e308, "", "?", "1-0", "2-0", "W:W²:B1", "W:W21-32:B1-12", [], {}, ["x"], {"a": {"b": 1}}]


def _odd(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.5:
        return rng.choice(ODD)
    if r < 0.8:
        return nasty_text(rng, rng.randint(0, 30))
    return {nasty_text(rng, rng.randint(0, 6)): _odd(rng) for _ in range(rng.randint(0, 3))}


def _request(rng: random.Random) -> tuple[str, bytes]:
    path = rng.choice(["/api/sim", "/api/action", "/api/games/1/tags", "/api/games/2/tags"])
    r = rng.random()
    if r < 0.1:
        return path, rng.choice([deep(rng).encode(), b"\xff\xfe{", huge_number(rng).encode(), b"", b"x" * 70_000])
    if path == "/api/sim":
        body: dict[str, Any] = {"op": rng.choice(["lift", "place", _odd(rng)])}
        body["square"] = rng.choice([22, 17, _odd(rng)])
        if rng.random() < 0.3:
            body["cell"] = _odd(rng)
    elif path == "/api/action":
        body = {"action": rng.choice(["resign", "draw", "result", "new-game", _odd(rng)])}
        for key in rng.sample(["side", "result", "fen", "variant", "mode", "tags"], rng.randint(0, 3)):
            body[key] = _odd(rng)
    else:
        tags = {rng.choice(["White", "Black", "Event", 'X"]\n[Y', "white", "É", nasty_text(rng, 5)]): _odd(rng)}
        body = {"tags": tags if rng.random() < 0.8 else _odd(rng)}
        if rng.random() < 0.5:
            body["result"] = _odd(rng)
    if rng.random() < 0.1:
        return path, json.dumps(body).replace("1", huge_number(rng), 1).encode()
    return path, json.dumps(body).encode()


async def _check_downloads(client: TestClient[Any, Any], play: PlayApp, label: str) -> None:
    for url in ("/live.pdn", f"/games/{play.session.row.id}.pdn", "/games/1.pdn"):
        async with client.get(url) as resp:
            assert resp.status == 200, f"{label}: GET {url} -> {resp.status}"
            text = await resp.text()
        for g in read_pdn(text, url):  # raises on anything a reader cannot take
            assert g.variant.name == "brazilian"


@pytest.mark.parametrize("cases", [pytest.param(100, id="small"), pytest.param(1200, id="large", marks=SLOW)])
def test_fuzz_http_api(cases: int, tmp_path: Path) -> None:
    rng = random.Random(16_7_6)
    requests = [_request(rng) for _ in range(cases)]
    ids = ["1", "01", " 1", "+1", "١", "1.0", "-1", "99999999999999999999999", "0", "%00", "1%0a", "x" * 300]

    async def work(client: TestClient[Any, Any], play: PlayApp) -> None:
        for i, (path, raw) in enumerate(requests):
            label = f"http case {i} POST {path} {short(raw, 300)}"
            status, answer = await post(client, path, None, raw=raw)
            assert status < 500, f"{label}: {status} {short(answer)}"
            if status >= 400:
                assert isinstance(answer, dict) and isinstance(answer.get("error"), str), f"{label}: {short(answer)}"
                assert "\n" not in answer["error"] and len(answer["error"]) <= 1000, f"{label}: {short(answer)}"
            if i % 10 == 0 or status < 400:
                await _check_downloads(client, play, label)
        for game_id in ids:
            async with client.get(f"/games/{game_id}.pdn") as resp:
                assert resp.status in (200, 404), f"GET /games/{game_id}.pdn -> {resp.status}"
                if resp.status == 200:
                    assert game_id.isascii() and game_id.isdigit(), game_id
                    assert resp.headers["Content-Disposition"] == f'attachment; filename="damas-{game_id}.pdn"'
        await _check_downloads(client, play, "at the end")

    # one bound for the whole conversation: the cases share an app, and the app an event loop
    run_case(
        f"http campaign of {cases} requests",
        lambda: with_client(tmp_path / "db.sqlite3", work),
        (),
        seconds=20 + cases * 0.5,
        memory=256 * 2**20,
    )
