"""Under mutation testing (``make mutation``), each test builds the rules' tables afresh.

The board geometries and the move generators are built once and cached (``geometry_for``,
``engine_for``, perft's walk). mutmut runs every mutant in a process forked after a first
run of the tests, which filled those caches with tables built by the unmutated code: a
mutant of ``Geometry.__init__`` would never run, and survive whatever the tests check. So
while a mutant is under test (mutmut sets ``MUTANT_UNDER_TEST``) the caches are emptied
before each test. In a plain test run this does nothing.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator

import pytest

#: the modules (``rules.perft`` is also the name of a function that ``rules`` exports)
CACHED = [importlib.import_module(f"rules.{name}") for name in ("geometry", "engine", "perft")]


@pytest.fixture(autouse=True)
def _fresh_rules_tables() -> Iterator[None]:
    if os.environ.get("MUTANT_UNDER_TEST"):
        geometry, engine, perft = CACHED
        geometry._geometry.cache_clear()
        engine.engine_for.cache_clear()
        perft._counter.cache_clear()
    yield
