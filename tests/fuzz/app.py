"""An in-process ``damas play`` (simulated board, temporary database) behind aiohttp's test
client: the HTTP API without a subprocess, quick enough for hundreds of requests."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from aiohttp.test_utils import TestClient, TestServer

from board_hal.config import load_config
from board_hal.factory import open_board
from damas.board.loop import PlayApp
from damas.records.session import GameSession
from damas.records.store import Store
from damas.web.routes import build_app

T = TypeVar("T")


def make_play(db: Path, variant: str = "brazilian") -> PlayApp:
    store = Store(db)
    io = open_board(load_config(None, env={}), variant)
    squares, _cells = io.occupied()
    session = GameSession.start(store, variant, None, "casual", squares, {"White": "Ana", "Black": "Rui"})
    return PlayApp(store, io, session)


def with_client(db: Path, work: Callable[[TestClient[Any, Any], PlayApp], Awaitable[T]]) -> T:
    """Run ``work(client, play)`` against a fresh app; the app is closed afterwards."""

    async def main() -> T:
        play = make_play(db)
        async with TestClient(TestServer(build_app(play))) as client:
            try:
                return await work(client, play)
            finally:
                play.io.close()
                play.store.close()

    return asyncio.run(main())


async def post(client: TestClient[Any, Any], path: str, body: Any, *, raw: bytes | None = None) -> tuple[int, Any]:
    data = raw if raw is not None else json.dumps(body).encode()
    async with client.post(path, data=data, headers={"Content-Type": "application/json"}) as resp:
        text = await resp.text()
        try:
            return resp.status, json.loads(text)
        except ValueError:
            return resp.status, text
