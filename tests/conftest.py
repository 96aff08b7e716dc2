"""Shared fixtures: where the workplace's test data lives.

Tests that need ``../shared/`` (real games, perft tables, PDN corner cases) skip
with a clear reason when it is absent (a clone outside this workplace) and fail
under CI (``CI=true``), where it must be present. ``DAMAS_SHARED`` overrides the path.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("DAMAS_SHARED", ROOT.parent / "shared"))


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip (fail under CI) when it is missing."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        reason = f"test data {path} is absent (set DAMAS_SHARED to the workplace's shared/ folder)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture
def shared() -> Path:
    return shared_path()
