"""Run a benchmark under PyPy: ``pypy3 benchmarks/pypy.py benchmarks/engine.py --parts match …``.

For matches between our levels at their own settings (``--move-times level``) only: a level is
bounded by nodes, never by the clock, so PyPy plays the very moves CPython plays (recorded
games replayed move for move: Brazilian 9 v 8, International 10 v 9), 1.5–3 times faster; each
game's record names the Python that played it, and a summary's costs are CPython's games'
(``engine_match.describe``). A match at a time a move is another match under PyPy: never mix.

PyPy (Debian trixie's ``pypy3``, 7.3.19, Python 3.11; bookworm's is 3.9, too old) lacks two
things the engine and the harness use, given here as 64-bit CPython gives them:

- ``sys.getsizeof``: ``engine/tt.py`` sizes an entry by that of a 104-bit int (40 bytes), so the
  transposition table holds as many entries, and the search is the same, as under CPython;
- ``os.sched_getaffinity`` and ``os.sched_setaffinity`` (each game pinned to its core): through
  the C library.
"""

from __future__ import annotations

import ctypes
import os
import platform
import runpy
import sys

MASK_BYTES = 128  # a CPU set of 1,024 CPUs, as glibc's cpu_set_t
INT_104 = 40  # sys.getsizeof((1 << 104) - 1) on 64-bit CPython

_libc = ctypes.CDLL(None, use_errno=True)


def getsizeof(obj: object, default: int | None = None) -> int:
    if isinstance(obj, int) and obj.bit_length() == 104:
        return INT_104
    raise TypeError(f"getsizeof of {type(obj).__name__} under PyPy: only engine/tt.py's int is known")


def sched_getaffinity(pid: int) -> set[int]:
    mask = (ctypes.c_ubyte * MASK_BYTES)()
    if _libc.sched_getaffinity(pid, MASK_BYTES, mask) != 0:
        raise OSError(ctypes.get_errno(), "sched_getaffinity")
    return {i for i in range(MASK_BYTES * 8) if mask[i // 8] >> (i % 8) & 1}


def sched_setaffinity(pid: int, cpus: set[int]) -> None:
    mask = (ctypes.c_ubyte * MASK_BYTES)()
    for cpu in cpus:
        mask[cpu // 8] |= 1 << (cpu % 8)
    if _libc.sched_setaffinity(pid, MASK_BYTES, mask) != 0:
        raise OSError(ctypes.get_errno(), "sched_setaffinity")


def main() -> None:
    if platform.python_implementation() != "PyPy":
        sys.exit("benchmarks/pypy.py: run it with pypy3 (under CPython run the benchmark itself)")
    if len(sys.argv) < 2:
        sys.exit("usage: pypy3 benchmarks/pypy.py BENCHMARK [ARGS…]")
    sys.getsizeof = getsizeof
    os.sched_getaffinity, os.sched_setaffinity = sched_getaffinity, sched_setaffinity  # type: ignore[assignment]
    script = os.path.abspath(sys.argv[1])
    sys.argv = sys.argv[1:]
    sys.path[0] = os.path.dirname(script)  # (as ``python BENCHMARK`` has it; each puts the root in itself)
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
