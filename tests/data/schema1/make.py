"""How ``games.sqlite3`` (and its ``games.sqlite3.journals/``) here was made: by damas as it was
before the ``purpose`` column and the ``studies`` table (main at 2a2932e), so that the migration
is tested on a database the previous schema really wrote. To make it again:

    git archive 2a2932e | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old .venv/bin/python tests/data/schema1/make.py /tmp/out/games.sqlite3

Five rows: 1 a finished game (Event "Club night", two plies), 2 an "Analysis: …" session
abandoned, 3 a "Training: …" session left in play, 4 a *tournament* game whose Event happens to
start with "Training: " (a game: the page never starts a tournament session), 5 an "Analysis: …"
session left in play (the power went during an analysis on the board).
"""

from __future__ import annotations

import sys
from pathlib import Path

import damas.records.store as old
from board_hal.debounce import Transition
from damas.records.session import GameSession
from damas.records.store import Store
from referee.vocabulary import Mode
from rules import Position


def main(out: Path) -> None:
    assert "purpose" not in old._SCHEMA and "studies" not in old._SCHEMA, f"{old.__file__} is not the old schema"
    with Store(out) as store:

        def start(tags: dict[str, str], mode: Mode = "casual") -> GameSession:
            return GameSession.start(store, "brazilian", None, mode, Position.start("brazilian").occupied(), tags)

        def move(s: GameSession, t: float, a: int, b: int) -> None:
            s.feed(Transition(t, a, False))
            s.feed(Transition(t + 0.3, b, True))
            s.tick(t + 1.0)

        g1 = start({"Event": "Club night", "White": "Ana", "Black": "Rui"})
        move(g1, 1.0, 22, 18)
        move(g1, 3.0, 11, 15)
        store.finish(g1.row.id, "2-0", "resignation")
        g2 = start({"Event": "Analysis: Ana – Rui", "White": "Ana", "Black": "Rui"})
        move(g2, 1.0, 22, 18)
        store.abandon(g2.row.id)
        g3 = start({"Event": "Training: Ana – Rui, Club night", "White": "Ana", "Black": "Rui"})
        move(g3, 1.0, 22, 18)
        g4 = start({"Event": "Training: club evening", "White": "Zé", "Black": "Lia"}, mode="tournament")
        store.abandon(g4.row.id)
        g5 = start({"Event": "Analysis: Ana – Rui", "White": "Ana", "Black": "Rui"})
        move(g5, 1.0, 22, 18)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
