"""Shared fixtures: where the test data lives.

The data the tests need (real games re-written through our PDN writer, our own PDN
corner cases, the published perft tables) ships in ``tests/data/`` (its README names
each file's source), so a plain clone runs every test. A workplace's ``../shared/``
folder (or ``$DAMAS_SHARED``) is only an optional extra source, read when a file is
not in ``tests/data/``; a file in neither place skips the test with the reason, and
fails it under CI (``CI=true``).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import settings

from rules import Game, Move, Position

# Hypothesis' per-example deadline is a timed assertion: on a loaded machine (CI shares its cores)
# a 200 ms limit fails examples that take 0.5 ms alone. The examples and their checks stay.
settings.register_profile("damas", deadline=None)
settings.load_profile("damas")
# make mutation (tools/mutation.py) runs the tests with --hypothesis-profile=mutation: besides, the
# same examples every run, so that a mutant's verdict does not depend on luck
settings.register_profile("mutation", deadline=None, derandomize=True, database=None)

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("DAMAS_TEST_DATA", ROOT / "tests" / "data"))  # (tests of a missing-data path move it)
SHARED = Path(os.environ.get("DAMAS_SHARED", ROOT.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """A path under tests/data (else ../shared), or skip (fail under CI) when it is missing."""
    path = DATA.joinpath(*parts)
    if not path.exists():
        path = SHARED.joinpath(*parts)
    if not path.exists():
        reason = f"test data {path} is absent (neither in tests/data nor in $DAMAS_SHARED)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def damas(*args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the ``damas`` command as a user would (standard input closed unless given)."""
    return subprocess.run(
        [sys.executable, "-m", "damas", *args],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_line_error(r: subprocess.CompletedProcess[str], *words: str) -> None:
    """A user error: exit status 2 and one line on standard error naming the problem."""
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("damas: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def wait_until(predicate: Callable[[], object], timeout: float = 5.0, what: str = "the condition") -> None:
    """Wait on a state, not a fixed time: poll ``predicate`` until it is true (a failure after
    ``timeout`` seconds names what was awaited)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(0.01)


def random_game(
    variant: str, rng: random.Random | int, plies: int, *, capture_bias: float = 1.0
) -> tuple[Position, list[Move]]:
    """A random legal game of at most ``plies`` plies (a seed or a generator): a capture is
    chosen when one exists (with probability ``capture_bias`` below 1), to get many."""
    if isinstance(rng, int):
        rng = random.Random(rng)
    game = Game(variant)
    while game.outcome() is None and game.ply < plies:
        moves = list(game.legal_moves)
        caps = [m for m in moves if m.captured]
        take = bool(caps) and (capture_bias >= 1.0 or rng.random() < capture_bias)
        game.push(rng.choice(caps if take else moves))
    return game.start, list(game.move_stack)


def random_positions(
    variant: str, n: int, seed: int, *, plies: tuple[int, int] = (10, 140), keep: float = 1.0
) -> list[Position]:
    """``n`` positions of random games (a random length in ``plies`` each, every move played
    at random, captures as often as not, so many with kings); each position reached is kept
    with probability ``keep``. The same seed gives the same positions."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.start(variant)
        for _ in range(rng.randint(*plies)):
            moves = list(pos.legal_moves)
            if not moves:
                break
            pos = pos.apply(rng.choice(moves))
            if keep >= 1.0 or rng.random() < keep:
                out.append(pos)
    return out[:n]


@pytest.fixture
def shared() -> Path:
    return shared_path()


# -- a real browser: Debian's Chromium driven by Playwright (executable_path; it downloads no
# browser). Without Chromium a browser test skips with the reason, and fails under CI. ----------
CHROMIUM = os.environ.get("DAMAS_CHROMIUM", "/usr/bin/chromium")
OUTPUT = Path(__file__).resolve().parents[1] / "test-output"  # (the repository's, ignored by git)


def _browser_available() -> str | None:
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set DAMAS_CHROMIUM)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


@pytest.fixture
def browser() -> Iterator[object]:
    missing = _browser_available()
    if missing:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    from playwright.sync_api import Browser

    assert isinstance(browser, Browser)
    context = browser.new_context(viewport={"width": 1280, "height": 860}, accept_downloads=True, locale="en-US")
    yield context.new_page()
    context.close()
