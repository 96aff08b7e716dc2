"""The fuzzing campaign's rules: every case runs under a time bound (SIGALRM) and a memory
bound (tracemalloc's peak); it may succeed or raise one of the entry point's documented
one-line errors, and nothing else.

Sizes: ``CASES`` per entry point in the default run (a few seconds in all), ``SLOW_CASES``
behind ``@pytest.mark.slow``. Every campaign is seeded: a failure names its seed and case,
and rerunning reproduces it.
"""

from __future__ import annotations

import random
import resource
import signal
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest

CASES = 100  # per entry point, default run
SLOW_CASES = 3000  # per entry point, pytest -m slow
SECONDS = 10.0  # per case: a hang detector with room for a loaded machine, not a speed target
MEMORY = 64 * 2**20  # bytes of peak allocation per case

#: parametrize a campaign with this: the small size by default, the large one with -m slow
SIZES = [pytest.param(CASES, id="small"), pytest.param(SLOW_CASES, id="large", marks=pytest.mark.slow)]


class Hang(Exception):
    """A case ran past its time bound."""


def short(value: Any, n: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def _cap_address_space(memory: int) -> tuple[int, int] | None:
    """Lower the soft address-space limit to what the process holds now plus a margin, so that
    a regression that allocates without end fails the case (MemoryError) instead of exhausting
    the machine before tracemalloc's peak can be checked. Returns the limit to restore."""
    try:
        with open("/proc/self/statm") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        cap = size + max(16 * memory, 2**30)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
        return soft, hard
    except (OSError, ValueError):
        return None


@contextmanager
def bounded(label: str, seconds: float = SECONDS, memory: int = MEMORY) -> Iterator[None]:
    """Fail the case when it runs longer than ``seconds`` or allocates more than ``memory``."""

    def on_alarm(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"{label}: still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    old_limit = _cap_address_space(memory)
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        if old_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, old_limit)
        _size, peak = tracemalloc.get_traced_memory()
        if not tracing:
            tracemalloc.stop()
    assert peak <= memory, f"{label}: peak allocation {peak / 2**20:.1f} MiB (bound {memory / 2**20:.0f} MiB)"


def run_case(
    label: str,
    case: Callable[[], Any],
    allowed: tuple[type[BaseException], ...],
    *,
    seconds: float = SECONDS,
    memory: int = MEMORY,
) -> BaseException | None:
    """Run one case; return the allowed error it raised (checked to be one short line), or
    None. Any other exception, a hang or a memory blow-up fails the test, naming ``label``."""
    error: BaseException | None = None
    with bounded(label, seconds, memory):
        try:
            case()
        except Hang:
            raise
        except allowed as exc:
            error = exc
        except Exception as exc:
            raise AssertionError(f"{label}: {type(exc).__name__}: {short(str(exc))}") from exc
    if error is not None:
        message = str(error)
        assert message and "\n" not in message, f"{label}: error is not one line: {short(message)}"
        assert len(message) <= 1000, f"{label}: error of {len(message)} characters: {short(message)}"
    return error


# -- mutations shared by the campaigns ----------------------------------------------------------
#: characters that have tripped parsers: digits that are not ASCII, quotes, escapes, brackets,
#: line ends, NUL, a BOM, an RTL mark, surrogate-free astral characters
NASTY = ["²", "١", "٣", "𝟘", "½", '"', "\\", "[", "]", "{", "}", "(", ")", "\n", "\r", "\t", "\x00", "\ufeff", "\u202e"]
NASTY.append("😀")


def nasty_text(rng: random.Random, n: int) -> str:
    """Random text drawn mostly from ``NASTY`` and printable ASCII."""
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.3:
            out.append(rng.choice(NASTY))
        elif r < 0.95:
            out.append(chr(rng.randrange(32, 127)))
        else:
            out.append(chr(rng.randrange(0x80, 0x3000)))
    return "".join(out)


def huge_number(rng: random.Random) -> str:
    return rng.choice(["9" * 5000, "1" + "0" * 400, "-" + "9" * 4400, "1e999", "-1e999", "NaN", "Infinity"])


def deep(rng: random.Random, depth: int | None = None) -> str:
    d = depth or rng.choice([100, 1000, 5000, 100_000])
    opener, closer = rng.choice([("[", "]"), ('{"a":', "}")])
    return opener * d + "1" + closer * d


def mutate_text(rng: random.Random, text: str, rounds: int = 3) -> str:
    """Character-level damage: insert nasty text, delete or duplicate a span, swap two spans,
    blow a span up, truncate."""
    for _ in range(rng.randint(1, rounds)):
        if not text:
            text = nasty_text(rng, 10)
        i = rng.randrange(len(text) + 1)
        j = min(len(text), i + rng.randint(1, 40))
        op = rng.randrange(7)
        if op == 0:
            text = text[:i] + nasty_text(rng, rng.randint(1, 8)) + text[i:]
        elif op == 1:
            text = text[:i] + text[j:]
        elif op == 2:
            text = text[:j] + text[i:j] + text[j:]
        elif op == 3:
            text = text[:i] + rng.choice(NASTY) * rng.choice([2, 50, 5000]) + text[i:]
        elif op == 4:
            text = text[:i]
        elif op == 5:
            text = text[:i] + huge_number(rng) + text[j:]
        else:
            k = rng.randrange(len(text) + 1)
            a, b = sorted((i, k))
            text = text[:a] + text[b : b + 5] + text[a + 5 : b] + text[a : a + 5] + text[b + 5 :]
    return text
