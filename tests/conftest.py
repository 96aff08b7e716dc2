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
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
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


@pytest.fixture
def shared() -> Path:
    return shared_path()
