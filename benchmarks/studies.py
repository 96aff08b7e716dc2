"""What the studies' copies cost (issue 28's follow-up): each change of a study writes its row
(one SQLite transaction) and then its copy beside the database (``DB.journals/studies/ID.json``,
rewritten atomically: a temporary file fsynced, renamed, the folder fsynced); every start of
``damas play`` runs the recovery (``recover``: each copy read and compared with its row) and
then reads every study (``KeptStudies.load``).

* ``change``: ``KeptStudies.save`` of a short study (60 plies, 3 variations) and of the longest
  a study may be (5,000 moves: a main line and a variation from most of its plies), with the
  copy and — the peer, in turns — with the copy's write left out (the row alone);
* ``start``: on a database of 1,000 studies and the long one (open), the start's recovery, the
  deep recovery of ``damas recover`` (every row read as a study), the start's reading of the
  studies (``KeptStudies.load``: the open one, and those their copies do not hold as they are)
  beside what it was before (every study read as a study), and ``damas play`` from its launch to
  its address printed (served), beside the same start on a database without studies.

    .venv/bin/python benchmarks/studies.py [STUDIES]

Prints medians (and the 90th percentile of the changes) in milliseconds.
"""

from __future__ import annotations

import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from damas.board.studies import KEPT_CHECKS, KeptStudies  # noqa: E402
from damas.records.recover import recover  # noqa: E402
from damas.records.store import Store  # noqa: E402
from damas.study.tree import MAX_NODES, Node, Study  # noqa: E402
from rules import Position  # noqa: E402

VARIANT = "brazilian"


def line(study: Study, node: Node, plies: int, rnd: random.Random) -> Node:
    """``plies`` random legal moves from ``node`` (fewer when the game ends), in the study."""
    for _ in range(plies):
        moves = list(node.position.legal_moves)
        if not moves or len(study.nodes) >= MAX_NODES:
            break
        node = study.extend(node, rnd.choice(moves))
    return node


def short_study(rnd: random.Random) -> Study:
    study = Study(Position.start(VARIANT).variant, Position.start(VARIANT), {"White": "A", "Black": "B"})
    line(study, study.root, 60, rnd)
    main = study.main_line()
    for at in rnd.sample(main[:-1], min(3, len(main) - 1)):
        line(study, at, 6, rnd)
    return study


def long_study(rnd: random.Random) -> Study:
    """A main line as long as a random game goes, and variations from its plies until the study
    holds the most moves a study may."""
    study = Study(Position.start(VARIANT).variant, Position.start(VARIANT), {"White": "Long", "Black": "Study"})
    line(study, study.root, 400, rnd)
    main = study.main_line()
    while len(study.nodes) < MAX_NODES:
        line(study, rnd.choice(main[:-1]), 40, rnd)
    return study


def timed(f: Callable[[], object]) -> float:
    started = time.perf_counter()
    f()
    return (time.perf_counter() - started) * 1000


def change_costs(root: Path, rnd: random.Random, runs: int) -> None:
    store = Store(root / "change.sqlite3")
    kept = KeptStudies(store)
    copy_write = store._kept_copy
    for name, study in (("short", short_study(rnd)), ("long", long_study(rnd))):
        sid = kept.save(None, study)
        size = store.kept_path("studies", sid).stat().st_size
        times: dict[str, list[float]] = {"with the copy": [], "row alone": []}
        for _ in range(runs):  # in turns: a drift of the machine's speed touches both
            store._kept_copy = copy_write  # type: ignore[method-assign]
            times["with the copy"].append(timed(lambda: kept.save(sid, study)))  # noqa: B023
            store._kept_copy = lambda *_a: None  # type: ignore[method-assign]
            times["row alone"].append(timed(lambda: kept.save(sid, study)))  # noqa: B023
        store._kept_copy = copy_write  # type: ignore[method-assign]
        moves = len(study.nodes) - 1
        print(f"a change of the {name} study ({moves} moves, copy {size / 1024:.0f} KiB), {runs} each (ms):")
        for what, ms in times.items():
            ms.sort()
            print(f"  {what:<14} median {statistics.median(ms):7.2f}  p90 {ms[int(len(ms) * 0.9)]:7.2f}")
    store.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def served(db: Path) -> float:
    """Seconds from launching ``damas play`` to its address printed (it listens by then)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "damas",
            "play",
            "--db",
            str(db),
            "--port",
            str(free_port()),
            "--no-browser",
            "--resume",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
    )
    assert proc.stdout is not None
    try:
        for out in proc.stdout:
            if "http://" in out:
                return time.perf_counter() - started
        raise SystemExit(f"damas play stopped before serving ({proc.wait()})")
    finally:
        proc.terminate()
        proc.wait(10)


def start_costs(root: Path, rnd: random.Random, count: int) -> None:
    db = root / "many.sqlite3"
    with Store(db) as store:
        kept = KeptStudies(store)
        moves = 0
        for _ in range(count):
            study = short_study(rnd)
            moves += len(study.nodes) - 1
            kept.save(None, study)
        big = long_study(rnd)
        moves += len(big.nodes) - 1
        kept.save(None, big)
    copies = sum(p.stat().st_size for p in (root / "many.sqlite3.journals" / "studies").iterdir())
    print(
        f"starting on {count + 1} studies ({moves} moves; copies {copies / 2**20:.1f} MiB, "
        f"database {db.stat().st_size / 2**20:.1f} MiB), median of 3 (ms):"
    )
    ways: dict[str, Callable[[], object]] = {}
    store = Store(db)
    ways["start's recovery"] = lambda: recover(store, lost_only=True, checks=KEPT_CHECKS)
    ways["damas recover (deep)"] = lambda: recover(store, checks=KEPT_CHECKS)
    ways["start's study reading"] = lambda: KeptStudies(store).load(VARIANT)
    ways["every study read (old)"] = lambda: [Study.from_json(row.tree) for row in store.studies()]
    for what, f in ways.items():
        print(f"  {what:<22} {statistics.median(timed(f) for _ in range(3)):8.0f}")
    store.close()
    empty = root / "empty.sqlite3"
    Store(empty).close()
    with_studies = statistics.median(served(db) for _ in range(3)) * 1000
    without = statistics.median(served(empty) for _ in range(3)) * 1000
    print(f"  {'damas play served':<22} {with_studies:8.0f}  (without studies: {without:.0f})")


def main() -> int:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rnd = random.Random(28)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        change_costs(root, rnd, 30)
        start_costs(root, rnd, count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
