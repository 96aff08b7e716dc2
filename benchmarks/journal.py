"""What journalling an event costs (issue 33.1): ``Store.append`` writes the journal copy's line
(fsynced, after checking that the copy ends with the event before it) and then the database's
row (``synchronous=FULL``), before the event is processed.

* ``store``: ``Store.append`` as ``damas play`` calls it;
* ``bare``: the same two durable writes with nothing around them (a SQLite commit, then a line
  appended and fsynced to a file opened for it), the floor any order of the two writes pays.

    .venv/bin/python benchmarks/journal.py [EVENTS]

Prints the median, 90th percentile and worst milliseconds per event of each, over EVENTS
events (default 300), in turns, in the same temporary directory.
"""

from __future__ import annotations

import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from damas.records.store import Store  # noqa: E402

HEADER = {"format": 1, "variant": "brazilian", "mode": "casual"}


def event(i: int) -> dict[str, object]:
    return {"t": 1000.0 + i * 0.5, "square": 22 if i % 2 == 0 else 18, "event": "lift" if i % 2 == 0 else "place"}


def store_append(root: Path) -> Callable[[int], None]:
    store = Store(root / "store.sqlite3")
    game = store.new_game("brazilian", None, "casual", HEADER, {})
    return lambda i: store.append(game, i, event(i))


def bare_append(root: Path) -> Callable[[int], None]:
    db = sqlite3.connect(root / "bare.sqlite3", isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE journal (game_id INTEGER, seq INTEGER, event TEXT, PRIMARY KEY (game_id, seq))")
    path = root / "bare.jsonl"

    def write(i: int) -> None:
        text = json.dumps(event(i))
        db.execute("BEGIN IMMEDIATE")
        db.execute("INSERT INTO journal VALUES (1, ?, ?)", (i, text))
        db.execute("COMMIT")
        with open(path, "ab") as f:
            f.write((json.dumps({**event(i), "seq": i}) + "\n").encode())
            f.flush()
            os.fsync(f.fileno())

    return write


def main() -> int:
    events = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ways = {"store": store_append(root), "bare": bare_append(root)}
        times: dict[str, list[float]] = {name: [] for name in ways}
        for i in range(events):
            for name, write in ways.items():  # in turns: a drift of the machine's speed touches both
                started = time.perf_counter()
                write(i)
                times[name].append((time.perf_counter() - started) * 1000)
    print(f"journalling one event, {events} events each, in turns (ms):")
    for name, ms in times.items():
        ms.sort()
        p90 = ms[int(len(ms) * 0.9)]
        print(f"  {name:<6} median {statistics.median(ms):6.2f}  p90 {p90:6.2f}  worst {ms[-1]:7.2f}")
    ratio = statistics.median(times["store"]) / statistics.median(times["bare"])
    print(f"  store / bare (medians): {ratio:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
