"""Pages watching the live board: one that stops reading must not hold up the board, the
records or the other pages; an open page must not hold up the server's stop."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import threading
import time
from pathlib import Path
from typing import Any

import aiohttp

from board_hal.layout import Layout
from damas.records.store import Store
from damas.web.viewers import SEND_TIMEOUT
from firmware_bridge.emulator import Emulator
from rules import Game, Position
from tests.app.server import Server

LAYOUT = Layout("brazilian")
# long names (4 KB each): every state pushed to a page is some 27 KB
NAMES = ("--event", "Open " * 800, "--white", "Ana " * 1000, "--black", "Rui " * 1000)


def idle_viewer(port: int, path: str = "/ws") -> socket.socket:
    """A client that completes the WebSocket handshake and then never reads a byte (a small
    receive buffer, so that the server's side fills up quickly)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        assert chunk, "the server closed the WebSocket handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def cut_off(sock: socket.socket, within: float = 30.0) -> bool:
    """Read what the server left for an idle viewer: True when the server then closed it."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


class Watcher:
    """A page that does read: an aiohttp WebSocket client on its own thread, keeping the last state."""

    def __init__(self, url: str) -> None:
        self.url = url.replace("http", "ws") + "/ws"
        self.last: dict[str, Any] | None = None
        self.count = 0
        self.closed: int | None = None
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._loop.run_until_complete, args=(self._run(),), daemon=True)
        self._thread.start()
        assert self._ready.wait(10), "the watcher did not connect"

    async def _run(self) -> None:
        self._stop = asyncio.Event()
        async with aiohttp.ClientSession() as http, http.ws_connect(self.url) as ws:
            self._ready.set()
            reader = asyncio.ensure_future(self._read(ws))
            await asyncio.wait([reader, asyncio.ensure_future(self._stop.wait())], return_when=asyncio.FIRST_COMPLETED)
            reader.cancel()
            self.closed = ws.close_code

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.TEXT:
                self.last = json.loads(msg.data)
                self.count += 1
        self.closed = ws.close_code

    def wait(self, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while not (self.last is not None and predicate(self.last)):
            assert time.monotonic() < deadline, f"the page did not get there: {self.last and self.last['moves']}"
            time.sleep(0.02)
        return self.last

    def stop(self) -> None:
        if self._loop.is_running():
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)
        if not self._thread.is_alive():
            self._loop.close()


def moves_of(seed: int, plies: int) -> list[tuple[str, int]]:
    import random

    rng = random.Random(seed)
    g = Game("brazilian")
    out: list[tuple[str, int]] = []
    while g.outcome() is None and g.ply < plies:
        ms = list(g.legal_moves)
        m = rng.choice([x for x in ms if x.captured] or ms)
        g.push(m)
        out += [("lift", m.from_square), ("place", m.to_square)] + [("lift", c) for c in m.captured]
    return out


def test_a_viewer_that_never_reads_holds_up_nothing(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    server = Server(db, *NAMES).start()
    idle = None
    watcher = None
    try:
        idle = idle_viewer(server.port)
        watcher = Watcher(server.url)
        # a hand that fidgets: 600 events, each pushed to every page (some 10 MB, far more than the
        # idle viewer's connection holds: with the board loop waiting on it, this used to hang)
        for i in range(600):
            answer = server.post("/api/sim", {"op": "lift" if i % 2 == 0 else "place", "square": 22})
            assert answer["journal"] == i + 1  # answered, and journalled before the answer
        now = server.get("/api/state")  # the reading page is up to date
        watcher.wait(lambda s: (s["version"], s["occupied"]) == (now["version"], now["occupied"]))
        # then a game: the watching page keeps getting the current state
        actions = moves_of(5, 12)
        for op, sq in actions:
            server.sim(op, sq)
            time.sleep(0.08)
        state = server.wait_for(lambda s: len(s["moves"]) == 12)
        watcher.wait(lambda s: s["version"] == state["version"] and len(s["moves"]) == 12)
        with Store(db) as store:
            assert store.journal_length(1) == 600 + len(actions)
        # the idle viewer has a state it does not take: it is cut once SEND_TIMEOUT has passed (reading
        # its socket before then would let the send finish, and nothing would be cut)
        time.sleep(SEND_TIMEOUT + 1)
        assert cut_off(idle), "the viewer that never reads was never disconnected"
    finally:
        if watcher is not None:
            watcher.stop()
        if idle is not None:
            idle.close()
        out = server.stop()
    assert "disconnected the viewer at 127.0.0.1" in out


def test_a_viewer_that_never_reads_does_not_stop_the_journal_on_the_pico(tmp_path: Path) -> None:
    """The emulated Pico: hand events reach the board loop, which journals them. With the loop
    waiting on a stalled page they were not written for a minute (a power cut would lose them)."""
    db = tmp_path / "g.sqlite3"
    cells = {LAYOUT.cell_of(sq) for sq in Position.start("brazilian").occupied()}
    with Emulator(8, debounce_ms=2, scan_hz=500, heartbeat_ms=200, cells=cells) as emu:
        cfg = tmp_path / "pico.toml"
        cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
        server = Server(db, "--config", str(cfg), *NAMES, env={"DAMAS_BOARD_BACKEND": "pico"}).start()
        store = Store(db)
        idle = None
        watcher = None
        try:
            idle = idle_viewer(server.port)
            watcher = Watcher(server.url)
            cell = LAYOUT.cell_of(22)
            for n in range(1, 301):  # a fidgeting hand: 300 events, each pushed to every page
                (emu.lift if n % 2 == 1 else emu.place)(cell)
                deadline = time.monotonic() + 5
                while store.journal_length(1) < n:  # the board loop journals it, soon
                    assert time.monotonic() < deadline, f"hand event {n} not journalled within 5 s"
                    time.sleep(0.005)
            actions = moves_of(6, 6)
            for op, sq in actions:
                (emu.lift if op == "lift" else emu.place)(LAYOUT.cell_of(sq))
                time.sleep(0.25)
            state = server.wait_for(lambda s: len(s["moves"]) == 6)
            watcher.wait(lambda s: s["version"] == state["version"] and len(s["moves"]) == 6)
            assert store.journal_length(1) == 300 + len(actions)
            assert cut_off(idle), "the viewer that never reads was never disconnected"
        finally:
            store.close()
            if watcher is not None:
                watcher.stop()
            if idle is not None:
                idle.close()
            server.stop()


def test_the_server_stops_at_once_with_pages_open(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3").start()
    watcher = Watcher(server.url)
    idle = idle_viewer(server.port)
    try:
        watcher.wait(lambda s: s["game"] == 1)
        t0 = time.monotonic()
        out = server.stop()  # SIGTERM (the helper fails the test when it takes a SIGKILL)
        took = time.monotonic() - t0
        watcher.stop()
    finally:
        idle.close()
    assert "damas: stopped" in out
    assert took < 5, f"damas play took {took:.1f} s to stop with pages open"
    assert watcher.closed == 1001  # GOING_AWAY: the page is told the server is stopping
