"""The tournament hall under load: N boards publishing real games at 10x human speed through a
real Mosquitto to ``damas hall``; what a hall page sees.

    python benchmarks/hall.py [--boards 10,50,100,200] [--seconds 20] [--pace 1.0] [--spectators 1]
                              [--pairing PLAYERS] [--before /path/to/an/older/checkout]
    python benchmarks/hall.py --restart 200 [--before /path/to/an/older/checkout]

Each simulated board is an MQTT client sending what ``damas play --broker`` sends (the same
messages, QoS 1, its retained status), one ply every ``pace`` seconds (a human plays about one
ply in 10 s: 1.0 is 10x human speed), games from tests/data replayed one after another. A page
client long-polls ``/api/state`` as the hall page does and notes, for every ply, the time from
its publication to the first state that shows it: p50 and p99, and the bytes it downloads a
second (the page's way: only what changed since its version, gzipped); ``--spectators N`` has
N such pages watching (one of them measured; the others in a process of their own, as other
browsers are). The broker's and the hall's CPU (share of one core
over the run) and memory (RSS at the end) are read from /proc. The machine's load average
(/proc/loadavg, as ``uptime`` shows it) is printed before each run: figures taken on a busy
machine are not the hall's.

``--before DIR``: after each run of this hall, the same run (the same boards, pace, spectators
and pairing) against the hall of another checkout (e.g. ``git worktree add /tmp/before <commit>``;
its own ``.venv``'s Python if it has one, for its own dependencies), printed beneath it.

``unseen``: plies published (before the run's last two seconds) that no page had shown by its end
(a hall that stops answering shows none of them: they are in no percentile).

``--pairing PLAYERS``: meanwhile the arbiter pairs rounds of an open of PLAYERS players, one
after another (each round's results entered at once), while a prober asks ``/api/state`` and
``/live.pdn`` every 50 ms: the longest answer, and ply -> page (p50, p99, longest) of the plies
published while a round was being paired, beside those published between pairings (the hall's
goal: nothing waits more than 100 ms while a round is paired). A pairing still running when the
run ends counts until then.

``--restart N``: the hall's database after N boards have each sent a whole game (with its clock,
as ``damas play --broker`` sends it); the time a fresh hall process takes to load it — from the
games' snapshots, and by replaying every message (what a hall did before the snapshots, and
does once on a database from then); ``--before DIR`` also times the hall of another checkout.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hall.broker import Mosquitto  # noqa: E402
from hall.protocol import Broker, board_topic, new_client  # noqa: E402
from rules import Position  # noqa: E402
from rules.pdn import load_pdn  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")
WORKERS = 4  # processes of simulated boards (the boards' own CPU is not the hall's)
TOKEN = "bench-token"


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def game_messages(board: str, game: int, pg: object) -> list[dict[str, object]]:
    """What the board publishes for a game: start, each move, the result."""
    tags = dict(pg.tags)  # type: ignore[attr-defined]
    tags["Round"] = "1"
    msgs: list[dict[str, object]] = [
        {"type": "start", "variant": pg.variant.name, "fen": None, "mode": "tournament", "tags": tags, "intro": []}  # type: ignore[attr-defined]
    ]
    msgs[0].update(control="21", clocks={"white": 1260.0, "black": 1260.0})
    tags["TimeControl"] = "1260"
    pos = Position.start(pg.variant)  # type: ignore[attr-defined]
    left = {"white": 1260.0, "black": 1260.0}
    for i, pm in enumerate(pg.moves):  # type: ignore[attr-defined]
        left[pos.turn.value] -= 7.5
        w, b = int(left["white"]), int(left["black"])
        msgs.append(
            {"type": "move", "step": i, "ply": i + 1, "move": pos.pdn(pm.move),
             "path": pos.pdn(pm.move, full=True), "comments": [f"[%clock w0:{w // 60:02d}:{w % 60:02d} "
                                                   f"b0:{b // 60:02d}:{b % 60:02d}]"],
             "t": None, "clock": {"white": 0.0, "black": 0.0}, "control": "21",
             "clocks": {**left, "running": pos.turn.other.value, "took": 7.5}}
        )  # fmt: skip
        pos = pos.apply(pm.move)
    msgs.append({"type": "result", "result": pg.result, "termination": None})  # type: ignore[attr-defined]
    for seq, m in enumerate(msgs):
        m.update(board=board, game=game, seq=seq)
    return msgs


class Boards:
    """Boards ``first`` .. ``first + n - 1``, each an MQTT client with its thread."""

    def __init__(self, first: int, n: int, broker: Broker, pace: float, games: list[object]) -> None:
        self.sent: dict[tuple[str, int, int], float] = {}  # (board, game, plies) -> when published (time.time)
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.clients = []
        self.threads = []
        for i in range(first, first + n):
            board = str(i + 1)
            c = new_client(broker, f"bench-board-{board}")
            c.connect(broker.host, broker.port)
            c.loop_start()
            self.clients.append(c)
            t = threading.Thread(target=self._play, args=(c, board, pace, games, random.Random(i)), daemon=True)
            self.threads.append(t)

    def start(self) -> None:
        for t in self.threads:
            t.start()

    def _play(self, c: object, board: str, pace: float, games: list[object], rng: random.Random) -> None:
        time.sleep(rng.random() * pace)  # the boards do not move in step
        game = 0
        while not self.stop.is_set():
            game += 1
            for m in game_messages(board, game, rng.choice(games)):
                if self.stop.is_set():
                    return
                if m["type"] == "move":
                    with self.lock:
                        self.sent[(board, game, int(m["ply"]))] = time.time()  # type: ignore[call-overload]
                c.publish(board_topic(board, "game"), json.dumps(m), qos=1)  # type: ignore[attr-defined]
                if m["type"] == "move":
                    time.sleep(pace)
            status = {"board": board, "online": True, "t": time.time(), "game": game, "games": {str(game): 0}}
            c.publish(board_topic(board, "status"), json.dumps(status), qos=1, retain=True)  # type: ignore[attr-defined]

    def close(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(5)
        for c in self.clients:
            c.disconnect()  # type: ignore[attr-defined]
            c.loop_stop()  # type: ignore[attr-defined]


def worker(first: int, n: int, broker_url: str, pace: float, seconds: float, out: str) -> None:
    """A process of simulated boards: plays for ``seconds``, then writes when each ply was sent."""
    games = load_pdn(ROOT / "tests/data/games/brazilian/lidraughts-brazilian.pdn")
    boards = Boards(first, n, Broker.parse(broker_url), pace, list(games))
    boards.start()
    time.sleep(seconds)
    boards.close()
    Path(out).write_text(json.dumps([[b, g, p, t] for (b, g, p), t in boards.sent.items()]))


_VERSION = re.compile(rb'"version":\s*(\d+)')
_BOOT = re.compile(rb'"boot":\s*"([0-9a-f]*)"')


def follow(url: str) -> None:
    """Another page watching (until the process is ended): it asks what the hall page asks, and
    reads only the version it got (a browser elsewhere parses the rest: not this machine's work)."""
    since = boot = b""
    while True:
        query = f"since={since.decode()}&delta={boot.decode()}" if since else ""
        req = urllib.request.Request(f"{url}/api/state?{query}", headers={"Accept-Encoding": "gzip"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                raw = r.read()
                text = gzip.decompress(raw) if r.headers.get("Content-Encoding") == "gzip" else raw
        except OSError:
            time.sleep(0.1)
            continue
        version, run = _VERSION.search(text), _BOOT.search(text)
        since, boot = (version.group(1) if version else b""), (run.group(1) if run else b"")


def watch(url: str, stop: threading.Event, seen_at: dict[tuple[str, int, int], float] | None, wire: list[int]) -> None:
    """The hall page: long polls for what changed since its version (gzipped), notes when each
    board's ply first became visible (``seen_at``), and counts the bytes it downloaded (``wire``)."""
    seen: dict[str, tuple[str, int]] = {}
    state: dict[str, object] | None = None
    while not stop.is_set():
        query = f"since={state['version']}&delta={state.get('boot', '')}" if state else ""
        req = urllib.request.Request(f"{url}/api/state?{query}", headers={"Accept-Encoding": "gzip"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                raw = r.read()
                wire[0] += len(raw)
                got = json.loads(gzip.decompress(raw) if r.headers.get("Content-Encoding") == "gzip" else raw)
        except OSError:
            time.sleep(0.1)
            continue
        now = time.time()
        if "delta" in got and state is not None:  # (as the page merges it)
            boards = {b["board"]: b for b in state["boards"]}  # type: ignore[attr-defined]
            boards |= {b["board"]: b for b in got["boards"]}
            got = {**state, **got, "boards": [boards[i] for i in got["board_ids"] if i in boards]}
        state = got
        if seen_at is None:
            continue
        for b in got["boards"]:
            g = b["game"]
            if not g:
                continue
            board = b["board"]
            game = int(g["id"].rsplit("-", 1)[1])
            old = seen.get(board)
            first = old[1] + 1 if old and old[0] == g["id"] else 1
            for ply in range(first, g["plies"] + 1):
                seen_at.setdefault((board, game, ply), now)
            seen[board] = (g["id"], g["plies"])


def _post(url: str, path: str, body: dict[str, object]) -> object:
    req = urllib.request.Request(
        url + path, json.dumps(body).encode(), {"Content-Type": "application/json", "X-Hall-Token": TOKEN}
    )
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())


def arbiter(url: str, players: int, stop: threading.Event, windows: list[list[float]]) -> None:
    """Pairs round after round of an open of ``players`` (the results entered at once), noting
    when each pairing ran (until the run ends and the hall goes)."""
    with contextlib.suppress(OSError):
        _arbiter(url, players, stop, windows)


def _arbiter(url: str, players: int, stop: threading.Event, windows: list[list[float]]) -> None:
    rng = random.Random(1)
    _post(url, "/api/players", {"csv": "name,rating\n" + "".join(f"P{i:03d},{rng.randint(1200, 2400)}\n"
                                                                for i in range(players))})  # fmt: skip
    _post(url, "/api/settings", {"rounds": 99})
    while not stop.is_set():
        window = [time.time(), float("inf")]  # (until it ends: a pairing that outlasts the run, until then)
        windows.append(window)
        _post(url, "/api/pair", {"boards": [f"x{i}" for i in range(players)]})  # (tables on boards nobody plays)
        window[1] = time.time()
        with urllib.request.urlopen(f"{url}/api/state", timeout=30) as r:
            state = json.loads(r.read())
        for p in state["pairings"]:
            if p["black"] is not None:
                _post(url, "/api/result", {"round": p["round"], "table": p["table"],
                                           "result": rng.choice(["2-0", "1-1", "0-2"])})  # fmt: skip


def probe(url: str, stop: threading.Event, waits: list[tuple[float, float]]) -> None:
    """A spectator's and a relay's requests every 50 ms: (when asked, seconds to answer)."""
    while not stop.is_set():
        for path in ("/api/state", "/live.pdn"):
            t0 = time.time()
            try:
                with urllib.request.urlopen(url + path, timeout=30) as r:
                    r.read()
            except OSError:
                continue
            waits.append((t0, time.time() - t0))
        time.sleep(0.05)


def hall_python(root: Path) -> str:
    """The Python a checkout's hall runs under: its own ``.venv``'s, else this one."""
    own = root / ".venv" / "bin" / "python"
    return str(own) if root != ROOT and own.exists() else sys.executable


def run(
    n: int, seconds: float, pace: float, games: list[object], spectators: int = 1, players: int = 0,
    root: Path = ROOT, profile: str | None = None,
) -> dict[str, float]:  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="damas-bench-hall-") as tmp:
        broker = Mosquitto(Path(tmp) / "mosquitto").start()
        port = _free_port()
        profiled = ["-m", "cProfile", "-o", profile] if profile else []
        hall = subprocess.Popen(
            [hall_python(root), *profiled, "-m", "damas", "-qq", "hall", "--broker", broker.url,
             "--db", f"{tmp}/hall.sqlite3", "--port", str(port), "--token", TOKEN],
            cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        others: subprocess.Popen[bytes] | None = None
        try:
            _wait(url)
            assert broker.proc is not None
            per = (n + WORKERS - 1) // WORKERS
            outs = [f"{tmp}/sent{k}.json" for k in range(WORKERS)]
            workers = [
                subprocess.Popen(
                    [sys.executable, __file__, "--worker", f"{k * per + 1},{min(per, n - k * per)}", "--broker",
                     broker.url, "--pace", str(pace), "--seconds", str(seconds), "--out", outs[k]],
                    cwd=ROOT,
                )
                for k in range(WORKERS)
                if n - k * per > 0
            ]  # fmt: skip
            seen_at: dict[tuple[str, int, int], float] = {}
            stop = threading.Event()
            wire = [0]
            watcher = threading.Thread(target=watch, args=(url, stop, seen_at, wire), daemon=True)
            watcher.start()
            if spectators > 1:  # the other pages, in a process of their own (browsers elsewhere: the measured
                # page shares no interpreter with them)
                others = subprocess.Popen([sys.executable, __file__, "--pages", f"{url},{spectators - 1}"], cwd=ROOT)
            windows: list[list[float]] = []
            waits: list[tuple[float, float]] = []
            if players:
                threading.Thread(target=arbiter, args=(url, players, stop, windows), daemon=True).start()
                threading.Thread(target=probe, args=(url, stop, waits), daemon=True).start()
            time.sleep(1.0)  # the boards connect
            wire0 = wire[0]
            cpu0 = (cpu_seconds(broker.proc.pid), cpu_seconds(hall.pid), time.monotonic())
            time.sleep(seconds - 2.0)
            cpu1 = (cpu_seconds(broker.proc.pid), cpu_seconds(hall.pid), time.monotonic())
            wire1 = wire[0]
            mem = (rss_mb(broker.proc.pid), rss_mb(hall.pid))
            for w in workers:
                w.wait(60)
            time.sleep(1.0)  # the last plies reach the page
            stop.set()
            end = time.time()
            for w in windows:
                w[1] = min(w[1], end)
            watcher.join(35)
            latencies, during, between = [], [], []
            missed = missed_during = 0  # plies sent that no page showed by the end of the run

            def pairing(t: float) -> bool:
                return any(a <= t <= b for a, b in windows)

            for out in outs[: len(workers)]:
                for b, g, p, t in json.loads(Path(out).read_text()):
                    seen = seen_at.get((b, g, p))
                    if seen is None and t < end - 2.0:  # (the last two seconds' may still be on their way)
                        missed += 1
                        missed_during += pairing(t)
                    if seen is not None:
                        latencies.append(seen - t)
                        (during if pairing(t) else between).append(seen - t)
        finally:
            if others is not None:
                others.terminate()
                others.wait(10)
            hall.terminate()
            try:
                hall.wait(10)
            except subprocess.TimeoutExpired:  # (a hall busy pairing in its event loop cannot stop)
                hall.kill()
                hall.wait()
            broker.close()
    wall = cpu1[2] - cpu0[2]
    return {
        "boards": n,
        "plies": len(latencies),
        "missed": missed,
        "missed_during": missed_during,
        "p50_ms": _pct(latencies, 0.5),
        "p99_ms": _pct(latencies, 0.99),
        "during_plies": len(during),
        "during_p50_ms": _pct(during, 0.5),
        "during_p99_ms": _pct(during, 0.99),
        "between_p99_ms": _pct(between, 0.99),
        "broker_cpu": 100 * (cpu1[0] - cpu0[0]) / wall,
        "hall_cpu": 100 * (cpu1[1] - cpu0[1]) / wall,
        "broker_mb": mem[0],
        "hall_mb": mem[1],
        "viewer_kbs": (wire1 - wire0) / 1024 / wall,
        "pairings": len(windows),
        "pairing_s": max((b - a for a, b in windows), default=0.0),
        "pairings_done": len([1 for a, b in windows if b < end]),
        "wait_ms": 1000 * max((w for t, w in waits if pairing(t)), default=0.0),
        "wait_out_ms": 1000 * max((w for t, w in waits if not pairing(t)), default=0.0),
        "waits": len([1 for t, _w in waits if pairing(t)]),
        "ply_during_ms": 1000 * max(during, default=0.0),
    }


def _pct(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` in milliseconds (nan: none)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * (statistics.median(ordered) if q == 0.5 else ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def loadavg() -> str:
    """The machine's load average over 1, 5 and 15 minutes (as ``uptime`` shows it)."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "/api/state", timeout=5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the hall did not start")


def restart(n: int, games: list[object], before: str | None) -> None:
    """Time a hall's restart on a database of ``n`` boards' whole games (see the docstring)."""
    import shutil

    from hall.app import Hall
    from hall.store import HallStore

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "hall.sqlite3"
        store = HallStore(db)
        hall = Hall(store, None, token="bench")
        count = 0
        for b in range(n):
            for m in game_messages(str(b + 1), 1, games[b % len(games)]):
                hall.receive(f"damas/board/{b + 1}/game", json.dumps(m).encode())
                count += 1
        store.close()
        replay = Path(tmp) / "replay.sqlite3"
        code = (
            "import sys, time; sys.path.insert(0, sys.argv[1])\n"
            "from hall.app import Hall; from hall.store import HallStore\n"
            "s = HallStore(sys.argv[2]); t = time.perf_counter(); h = Hall(s, None, token='bench')\n"
            "print(time.perf_counter() - t, len(h.games))"
        )

        def timed(root: str, path: Path, fresh: Path | None = None) -> tuple[float, int]:
            best, games_loaded = float("inf"), 0
            for _ in range(3):
                if fresh is not None:  # (a copy each time: the replay writes the snapshots)
                    shutil.copy(fresh, path)
                out = subprocess.run(
                    [sys.executable, "-c", code, root, str(path)], capture_output=True, text=True, check=True
                )
                secs, loaded = out.stdout.split()
                best, games_loaded = min(best, float(secs)), int(loaded)
            return best, games_loaded

        old = Path(tmp) / "old.sqlite3"
        shutil.copy(db, old)
        import sqlite3

        with sqlite3.connect(old) as c:  # the database as a hall before the snapshots left it
            c.execute("DELETE FROM games")
            c.execute("DELETE FROM meta WHERE key='snapshots'")
        c.close()
        print(f"hall restart: {n} boards x a whole game, {count} messages ({db.stat().st_size / 1e6:.1f} MB)")
        secs, loaded = timed(str(ROOT), db)
        print(f"  from the snapshots:             {secs * 1000:8.0f} ms ({loaded} games)")
        secs, loaded = timed(str(ROOT), replay, old)
        print(f"  replaying every message (once): {secs * 1000:8.0f} ms ({loaded} games)")
        if before:
            secs, loaded = timed(before, replay, old)
            print(f"  the hall of {before}: {secs * 1000:8.0f} ms ({loaded} games)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--boards", default="10,50,100,200", help="board counts to run (default 10,50,100,200)")
    p.add_argument("--seconds", type=float, default=20.0, help="seconds of play per board count (default 20)")
    p.add_argument(
        "--pace", type=float, default=1.0, help="seconds between two plies of a board (default 1: 10x human)"
    )
    p.add_argument("--spectators", type=int, default=1, help="hall pages watching (default 1)")
    p.add_argument("--pairing", type=int, default=0, metavar="PLAYERS", help="pair rounds of this open meanwhile")
    p.add_argument("--restart", type=int, metavar="N", help="time a hall restart with N boards' whole games")
    p.add_argument("--before", metavar="DIR", help="also run the hall of this checkout (with --restart: time it)")
    p.add_argument("--profile", metavar="FILE", help="run this hall under cProfile, its statistics to FILE")
    p.add_argument("--worker", help=argparse.SUPPRESS)  # FIRST,COUNT: run boards (the benchmark starts these)
    p.add_argument("--broker", help=argparse.SUPPRESS)
    p.add_argument("--pages", help=argparse.SUPPRESS)  # URL,COUNT: pages watching (until terminated)
    p.add_argument("--out", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.pages:
        url, count = args.pages.rsplit(",", 1)
        for _ in range(int(count)):
            threading.Thread(target=follow, args=(url,), daemon=True).start()
        threading.Event().wait()
    if args.worker:
        first, count = (int(x) for x in args.worker.split(","))
        worker(first, count, args.broker, args.pace, args.seconds, args.out)
        return
    games = [g for name in ("brazilian/lidraughts-brazilian.pdn",) for g in load_pdn(ROOT / "tests/data/games" / name)]
    if args.restart:
        restart(args.restart, games, args.before)
        return
    halls = [("this", ROOT)] + ([("before", Path(args.before).resolve())] if args.before else [])
    print(
        f"hall: boards at one ply per {args.pace:g} s each, {args.seconds:g} s per run, {args.spectators} "
        "page(s) watching; move -> hall page update; a page's download (KB/s)"
        + "".join(f"\n  {name}: {root} (git {_commit(root)})" for name, root in halls)
    )
    print(
        f"{'hall':>6} {'boards':>6} {'plies':>6} {'unseen':>6} {'p50 ms':>8} {'p99 ms':>8} {'broker CPU':>11} "
        f"{'hall CPU':>9} {'broker MB':>10} {'hall MB':>8} {'page KB/s':>10}  load average before"
    )
    for n in (int(x) for x in args.boards.split(",")):
        for name, root in halls:
            load = loadavg()
            profile = args.profile if name == "this" else None
            r = run(n, args.seconds, args.pace, games, args.spectators, args.pairing, root, profile)
            print(
                f"{name:>6} {r['boards']:>6} {r['plies']:>6} {r['missed']:>6} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} "
                f"{r['broker_cpu']:>10.1f}% {r['hall_cpu']:>8.1f}% {r['broker_mb']:>10.1f} {r['hall_mb']:>8.1f} "
                f"{r['viewer_kbs']:>10.1f}  {load}",
                flush=True,
            )
            if args.pairing:
                print(
                    f"{'':>14}{r['pairings']:.0f} rounds of {args.pairing} players begun, {r['pairings_done']:.0f} "
                    f"paired (longest {r['pairing_s']:.1f} s); {r['during_plies']:.0f} plies sent while pairing shown "
                    f"({r['missed_during']:.0f} never): "
                    f"ply -> page p50 {r['during_p50_ms']:.0f} ms, p99 {r['during_p99_ms']:.0f} ms (between "
                    f"pairings p99 {r['between_p99_ms']:.0f} ms), longest {r['ply_during_ms']:.0f} ms; longest of "
                    f"{r['waits']:.0f} answers to /api/state or /live.pdn {r['wait_ms']:.0f} ms (between pairings "
                    f"{r['wait_out_ms']:.0f} ms)",
                    flush=True,
                )


def _commit(root: Path) -> str:
    out = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "-uno"], capture_output=True, text=True)
    return (out.stdout.strip() or "?") + (" and changes not committed" if dirty.stdout.strip() else "")


if __name__ == "__main__":
    main()
