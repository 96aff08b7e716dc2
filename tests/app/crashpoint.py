"""``python -m tests.app.crashpoint ARGS``: ``damas ARGS`` with a power cut at an exact point.

``DAMAS_TEST_KILL_AT=N`` makes the process SIGKILL itself as its Nth database write begins
(``DAMAS_TEST_KILL_WHEN=before``, the default) or just after it committed (``after``), counted
from start-up: inside a request, between the journal and the records, or in a background tick.
Test-only: nothing in the product reads these variables.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable
from typing import Any

from damas.cli import main
from damas.records.store import Store


def install(kill_at: int, when: str) -> None:
    original = Store._tx
    count = 0

    def tx(self: Store, statements: Iterable[tuple[str, tuple[Any, ...]]], **then: Any) -> int | None:
        nonlocal count
        count += 1
        if count == kill_at and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        last = original(self, statements, **then)
        if count == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        return last

    setattr(Store, "_tx", tx)  # noqa: B010 (mypy refuses an assignment to a method)


if __name__ == "__main__":
    install(int(os.environ.get("DAMAS_TEST_KILL_AT", "0")), os.environ.get("DAMAS_TEST_KILL_WHEN", "before"))
    sys.exit(main())
