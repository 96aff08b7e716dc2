"""PDN reader limits: time and peak memory of ``damas pdn check`` on hostile files.

Each case runs in its own process (``python -m damas pdn check FILE``); the figures are
its wall time and its peak resident set (``ru_maxrss`` from ``os.wait4``). Issue 16.7
measured, before the limits: a 5 MB unterminated tag 1.16 GB, a 20 MB tag value 4.6 GB,
a 50 MB game without a result 2.2 GB and 64 s, ``/dev/zero`` a MemoryError.

The reader's limits (rules/pdn.py): a tag value or comment up to 64 KiB, a game up to
1 MiB and 100,000 tokens, a file up to 64 MiB; beyond them one line naming file:line.

    .venv/bin/python benchmarks/pdn_limits.py [--scale 1.0] [--case NAME]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MB = 1_000_000


def _unterminated_tag(size: int) -> bytes:
    return b'[Event "' + b"x" * size


def _long_tag_value(size: int) -> bytes:
    return b'[Event "' + b"x" * size + b'"]\n\n1. 32-28 *\n'


def _game_without_result(size: int) -> bytes:
    unit = b"1. 32-28 19-23 "
    return b'[GameType "20"]\n\n' + unit * (size // len(unit))


def _unterminated_comment(size: int) -> bytes:
    return b'[GameType "20"]\n\n1. 32-28 {' + b"y" * size


def _long_move(size: int) -> bytes:
    return b'[GameType "20"]\n\n1. ' + b"1-2-" * (size // 4) + b"3 *\n"


def _many_games(size: int) -> bytes:
    game = b'[Event "e"]\n[GameType "20"]\n\n1. 32-28 19-23 2. 28x19 14x23 *\n\n'
    return game * (size // len(game))


def _broken_lines(size: int) -> bytes:
    """A tag value without its closing quote on every other line: each costs its line (issue 10)."""
    unit = b'[Event "never closed\n[Site "s"]\n'
    return unit * (size // len(unit))


def _unclosed_comments_between_tags(size: int) -> bytes:
    """An unclosed comment before every tag: reading starts again at each tag, the search for a
    '}' stays linear (issue 10)."""
    unit = b'{ no end\n[Event "e"]\n'
    return unit * (size // len(unit))


CASES: dict[str, tuple[Callable[[int], bytes], int]] = {
    "unterminated tag 5 MB": (_unterminated_tag, 5 * MB),
    "tag value 20 MB": (_long_tag_value, 20 * MB),
    "game without result 50 MB": (_game_without_result, 50 * MB),
    "unterminated comment 20 MB": (_unterminated_comment, 20 * MB),
    "one long move 20 MB": (_long_move, 20 * MB),
    "short games 2 MB (throughput)": (_many_games, 2 * MB),
    "broken tag lines 20 MB": (_broken_lines, 20 * MB),
    "unclosed comments between tags 20 MB": (_unclosed_comments_between_tags, 20 * MB),
}


def run(path: str, timeout: float, limit_mb: int) -> tuple[float, float, float, int, str]:
    """(wall seconds, CPU seconds, peak RSS in MB, exit status, last output line) of ``damas pdn check path``."""
    start = time.perf_counter()
    sink = tempfile.TemporaryFile()  # noqa: SIM115 (closed below)  not a pipe: a long report would fill it and stall the case
    proc = subprocess.Popen(
        [sys.executable, "-m", "damas", "pdn", "check", path],
        cwd=ROOT,
        stdout=sink,
        stderr=subprocess.STDOUT,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit_mb * 2**20, limit_mb * 2**20)),
    )
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.02)
    elapsed = time.perf_counter() - start
    sink.seek(0)
    out = sink.read().decode("utf-8", "replace")
    sink.close()
    # the file's count line (problems are listed after it), else the last line
    lines = [x for x in out.strip().splitlines() if x.strip() and not x.startswith("  ")] or out.strip().splitlines()
    code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return elapsed, cpu, usage.ru_maxrss / 1024, code, (lines[-1].strip() if lines else "")[:110]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every input size (default 1)")
    parser.add_argument("--case", action="append", help="run only this case (repeatable)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before a case is killed")
    parser.add_argument("--limit", type=int, default=8000, help="address-space limit of a case in MB (default 8000)")
    parser.add_argument("--no-dev-zero", action="store_true", help="skip the /dev/zero case")
    args = parser.parse_args()
    print(f"{'case':<30} {'size':>9} {'wall s':>8} {'CPU s':>7} {'peak RSS':>10}  exit  last line")
    with tempfile.TemporaryDirectory() as tmp:
        for name, (make, size) in CASES.items():
            if args.case and name not in args.case:
                continue
            data = make(int(size * args.scale))
            path = Path(tmp, "case.pdn")
            path.write_bytes(data)
            del data
            secs, cpu, rss, code, last = run(str(path), args.timeout, args.limit)
            size = path.stat().st_size / MB
            print(f"{name:<30} {size:>7.1f}MB {secs:>8.2f} {cpu:>7.2f} {rss:>8.0f}MB  {code:>4}  {last}")
    if not args.no_dev_zero and (not args.case or "/dev/zero" in args.case) and os.path.exists("/dev/zero"):
        secs, cpu, rss, code, last = run("/dev/zero", args.timeout, args.limit)
        print(f"{'/dev/zero':<30} {'-':>9} {secs:>8.2f} {cpu:>7.2f} {rss:>8.0f}MB  {code:>4}  {last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
