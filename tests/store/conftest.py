"""A resource a test leaves open fails that test, not a later one: Python 3.13 warns of a
sqlite3 connection left to the garbage collector (a ResourceWarning, an error here), and the
collector may run anywhere later; collecting after each test makes the one that left it answer."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _collected() -> Iterator[None]:
    yield
    gc.collect()
