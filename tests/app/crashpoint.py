"""``python -m tests.app.crashpoint ARGS``: ``damas ARGS`` with a power cut at an exact point.

``DAMAS_TEST_KILL_AT=N`` makes the process SIGKILL itself as its Nth database write begins
(``DAMAS_TEST_KILL_WHEN=before``, the default) or just after it committed (``after``), counted
from start-up: inside a request, between the journal and the records, or in a background tick.

``DAMAS_TEST_KILL_EVENT=N`` makes it SIGKILL itself while it journals its Nth event (counted
from start-up), at the point ``DAMAS_TEST_KILL_GAP`` names among the two durable writes of an
event (the journal copy's line and the database's row, in whichever order the store writes
them): ``before`` either, ``torn`` (half of the copy's line written and fsynced, as a power cut
in the middle of the write leaves it), ``between`` (the first of the two written, not the
second) or ``after`` (both written, the event neither processed nor answered).

Test-only: nothing in the product reads these variables.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterable
from typing import Any

from damas.cli import main
from damas.records.store import Store

GAPS = ("before", "torn", "between", "after")


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def install(kill_at: int, when: str) -> None:
    original = Store._tx
    count = 0

    def tx(self: Store, statements: Iterable[tuple[str, tuple[Any, ...]]], **then: Any) -> int | None:
        nonlocal count
        count += 1
        if count == kill_at and when == "before":
            _die()
        last = original(self, statements, **then)
        if count == kill_at:
            _die()
        return last

    setattr(Store, "_tx", tx)  # noqa: B010 (mypy refuses an assignment to a method)


def install_gap(kill_event: int, gap: str) -> None:
    assert gap in GAPS, gap
    append, copy, tx = Store.append, Store._append_copy, Store._tx
    count = 0
    armed = False

    def in_append(self: Store, game_id: int, seq: int, event: dict[str, Any]) -> None:
        nonlocal count, armed
        count += 1
        if count == kill_event:
            if gap == "before":
                _die()
            armed = True
        append(self, game_id, seq, event)
        if count == kill_event:
            _die()  # after: both written

    def in_copy(self: Store, game_id: int, obj: dict[str, Any]) -> Any:
        if armed and gap == "torn":
            data = (json.dumps(obj) + "\n").encode()
            self.journals.mkdir(exist_ok=True)
            with open(self.copy_path(game_id), "ab") as f:
                f.write(data[: len(data) // 2])
                f.flush()
                os.fsync(f.fileno())
            _die()
        size = copy(self, game_id, obj)
        if armed and gap == "between":
            _die()
        return size

    def in_tx(self: Store, statements: Iterable[tuple[str, tuple[Any, ...]]], **then: Any) -> int | None:
        last = tx(self, statements, **then)
        if armed and gap == "between":
            _die()
        return last

    setattr(Store, "append", in_append)  # noqa: B010
    setattr(Store, "_append_copy", in_copy)  # noqa: B010
    setattr(Store, "_tx", in_tx)  # noqa: B010


if __name__ == "__main__":
    install(int(os.environ.get("DAMAS_TEST_KILL_AT", "0")), os.environ.get("DAMAS_TEST_KILL_WHEN", "before"))
    if os.environ.get("DAMAS_TEST_KILL_EVENT"):
        install_gap(int(os.environ["DAMAS_TEST_KILL_EVENT"]), os.environ.get("DAMAS_TEST_KILL_GAP", "between"))
    sys.exit(main())
