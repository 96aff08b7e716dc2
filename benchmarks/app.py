"""App figures: start-up time to a served page, memory (RSS) of ``damas play`` on the
simulated board during a game, and the time from a simulated ``place`` to the browser's
WebSocket receiving the update (50th/99th percentile).

    .venv/bin/python benchmarks/app.py
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rules import Game  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def measure(url: str, plies: int) -> list[float]:
    rng = random.Random(2)
    game = Game("brazilian")
    latencies = []
    async with aiohttp.ClientSession() as http, http.ws_connect(url.replace("http", "ws") + "ws") as ws:
        state = json.loads((await ws.receive()).data)
        while game.outcome() is None and game.ply < plies:
            move = rng.choice(game.legal_moves())
            game.push(move)
            steps = [("lift", move.from_square), ("place", move.to_square)] + [("lift", c) for c in move.captured]
            for i, (op, sq) in enumerate(steps):
                last = i == len(steps) - 1
                t0 = time.perf_counter()
                await http.post(url + "api/sim", json={"op": op, "square": sq})
                if last:  # wait for the page's update that shows the move
                    while len(state["moves"]) < game.ply:
                        state = json.loads((await ws.receive()).data)
                    latencies.append(time.perf_counter() - t0)
                else:
                    await asyncio.sleep(0.08)
            await asyncio.sleep(0.08)
    return latencies


def main() -> int:
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "damas", "play", "--db", f"{tmp}/g.sqlite3", "--port", str(port), "--no-browser"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
        )
        try:
            while True:
                try:
                    urllib.request.urlopen(url, timeout=1).read()
                    break
                except OSError:
                    time.sleep(0.01)
            startup = time.perf_counter() - t0
            rss_start = rss_kib(proc.pid)
            lat = asyncio.run(measure(url, 60))
            rss_game = rss_kib(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
    lat.sort()
    n = len(lat)
    print(f"Python {sys.version.split()[0]}, damas play on the simulated board ({os.cpu_count()} cores)")
    print(f"start-up to a served page: {startup:.2f} s")
    print(f"memory (RSS): {rss_start / 1024:.1f} MiB at start, {rss_game / 1024:.1f} MiB after {n} moves")
    print(
        f"simulated place -> browser update (WebSocket), {n} moves: p50 {lat[n // 2] * 1e3:.1f} ms, "
        f"p99 {lat[min(n - 1, int(n * 0.99))] * 1e3:.1f} ms (debounce window 50 ms included)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
