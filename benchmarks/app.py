"""App figures: start-up time to a served page, memory (RSS) of ``damas play`` on the
simulated board during a game, and the time from a simulated ``place`` to the page's
WebSocket receiving the update and to the event's row in the journal (50th/99th
percentile) — with one page watching, and with 200 pages watching of which one never reads
(it must hold up neither the board, nor the records, nor the other pages), in the same run.

    .venv/bin/python benchmarks/app.py

The pages are aiohttp WebSocket clients asking for compression as browsers do; the journal is
watched by a thread reading the SQLite file. All clients run in this one process, so with 200
pages the figures include the time this process takes to read 199 copies of each state.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import Game  # noqa: E402

PLIES = 80
GAP = 0.08  # seconds between two hand actions (more than the debounce window)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def cpu_s(pid: int) -> float:
    """User + system CPU seconds a process has used."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(len(s) * p))] if s else float("nan")


def idle_viewer(port: int, halt: threading.Event) -> socket.socket:
    """A page that completes the WebSocket handshake and never reads again; it does send an
    unsolicited pong every 5 s (allowed as a heartbeat), so the server's own ping timeout
    never takes it for dead."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head

    def pong() -> None:
        while not halt.wait(5):
            try:
                sock.sendall(b"\x8a\x80" + os.urandom(4))  # a masked, empty pong
            except OSError:
                return

    threading.Thread(target=pong, daemon=True).start()
    return sock


def was_cut(sock: socket.socket) -> bool:
    """Drain what the server left for the idle page: True when it then closed the connection."""
    sock.settimeout(10)
    try:
        while sock.recv(1 << 16):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


class JournalWatch(threading.Thread):
    """When each journal row of game 1 became visible in the database file."""

    def __init__(self, db: Path) -> None:
        super().__init__(daemon=True)
        self.db = db
        self.seen: list[float] = []
        self.halt = threading.Event()

    def run(self) -> None:
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True)
        try:
            while not self.halt.is_set():
                n = con.execute("SELECT count(*) FROM journal WHERE game_id = 1").fetchone()[0]
                t = time.perf_counter()
                self.seen += [t] * (n - len(self.seen))
                time.sleep(0.0005)
        finally:
            con.close()


@dataclass
class Figures:
    page: list[float] = field(default_factory=list)  # place -> page, every reading page, every move
    journal: list[float] = field(default_factory=list)  # hand action -> its journal row
    rss_kib: int = 0
    server_cpu: float = 0.0  # CPU seconds damas play used during the game
    client_cpu: float = 0.0  # and this process (the pages, the journal watch)
    idle_cut: bool | None = None


async def play(url: str, db: Path, pid: int, readers: int, idle: int) -> Figures:
    fig = Figures()
    port = int(url.rsplit(":", 1)[1].strip("/"))
    halt = threading.Event()
    idlers = [idle_viewer(port, halt) for _ in range(idle)]
    watch = JournalWatch(db)
    watch.start()
    cpu0, mine0 = cpu_s(pid), time.process_time()
    rng = random.Random(95)  # a game that lasts 80 plies
    game = Game("brazilian")
    posted: list[float] = []
    seen: list[list[float]] = [[] for _ in range(readers)]  # seen[r][k]: when page r first showed k moves

    async def read(ws: aiohttp.ClientWebSocketResponse, mine: list[float]) -> None:
        async for msg in ws:
            t = time.perf_counter()
            n = len(json.loads(msg.data)["moves"])
            mine += [t] * (n + 1 - len(mine))

    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:
        sockets = [await http.ws_connect(url.replace("http", "ws") + "ws", compress=15) for _ in range(readers)]
        tasks = [asyncio.create_task(read(ws, seen[i])) for i, ws in enumerate(sockets)]
        while game.outcome() is None and game.ply < PLIES:
            move = rng.choice(list(game.legal_moves))
            game.push(move)
            steps = [("lift", move.from_square), ("place", move.to_square)] + [("lift", c) for c in move.captured]
            for i, (op, sq) in enumerate(steps):
                t0 = time.perf_counter()
                posted.append(t0)
                try:
                    async with asyncio.timeout(10), http.post(url + "api/sim", json={"op": op, "square": sq}) as r:
                        await r.read()
                except TimeoutError:
                    raise RuntimeError(f"ply {game.ply}: POST /api/sim did not answer within 10 s") from None
                if i == len(steps) - 1:  # every reading page shows the move
                    deadline = time.perf_counter() + 10
                    while any(len(s) <= game.ply for s in seen):
                        if time.perf_counter() > deadline:
                            raise RuntimeError(f"ply {game.ply}: a page never showed the move")
                        await asyncio.sleep(0.002)
                    fig.page += [s[game.ply] - t0 for s in seen]
                else:
                    await asyncio.sleep(GAP)
            await asyncio.sleep(GAP)
        fig.rss_kib = rss_kib(pid)
        fig.server_cpu, fig.client_cpu = cpu_s(pid) - cpu0, time.process_time() - mine0
        for t in tasks:
            t.cancel()
        for ws in sockets:
            await ws.close()
    watch.halt.set()
    watch.join()
    assert len(watch.seen) >= len(posted), "an event never reached the journal"
    fig.journal = [watch.seen[i] - t0 for i, t0 in enumerate(posted)]
    halt.set()
    if idlers:
        fig.idle_cut = all(was_cut(s) for s in idlers)
        for s in idlers:
            s.close()
    return fig


def serve(tmp: str, name: str) -> tuple[subprocess.Popen[bytes], str, Path, float]:
    """``damas play`` on the simulated board; its output goes to NAME.log beside the database."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    db = Path(tmp) / f"{name}.sqlite3"
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "damas", "play", "--db", str(db), "--port", str(port), "--no-browser"],
        stdout=(Path(tmp) / f"{name}.log").open("wb"),
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    while True:
        try:
            urllib.request.urlopen(url, timeout=1).read()
            break
        except OSError:
            time.sleep(0.01)
    return proc, url, db, time.perf_counter() - t0


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    proc.wait(30)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        proc, url, db, startup = serve(tmp, "one")
        try:
            rss_start = rss_kib(proc.pid)
            one = asyncio.run(play(url, db, proc.pid, readers=1, idle=0))
        finally:
            stop(proc)
        proc, url, db, _ = serve(tmp, "many")
        try:
            many: Figures | str = asyncio.run(play(url, db, proc.pid, readers=199, idle=1))
        except RuntimeError as exc:  # the board waited for the page that never reads
            many = f"STALLED: {exc}"
        finally:
            stop(proc)
        said = [line for line in (Path(tmp) / "many.log").read_text().splitlines() if "disconnected" in line]
    n = len(one.page)
    print(f"Python {sys.version.split()[0]}, damas play on the simulated board ({os.cpu_count()} cores)")
    print(f"start-up to a served page: {startup:.2f} s")
    print(f"memory (RSS): {rss_start / 1024:.1f} MiB at start, {one.rss_kib / 1024:.1f} MiB after {n} moves")
    print(f"{n} moves ({len(one.journal)} hand actions); place -> page includes the 50 ms debounce window")
    print(f"{'':26} {'place -> page':^26} {'place -> journal':^26}  RSS     CPU s: damas, pages")
    for label, f in (("1 page", one), ("200 pages, 1 never reading", many)):
        if isinstance(f, str):
            print(f"{label:26} {f}")
            continue
        print(
            f"{label:26} p50 {pct(f.page, 0.5) * 1e3:6.1f} p99 {pct(f.page, 0.99) * 1e3:6.1f} ms"
            f"  p50 {pct(f.journal, 0.5) * 1e3:5.1f} p99 {pct(f.journal, 0.99) * 1e3:6.1f} ms"
            f"  {f.rss_kib / 1024:.0f} MiB  {f.server_cpu:6.1f} {f.client_cpu:6.1f}"
        )
    if isinstance(many, Figures):
        print(f"(place -> page over the 199 reading pages: {len(many.page)} samples)")
        print(f"the page that never read was disconnected: {'yes' if many.idle_cut else 'NO'} {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
