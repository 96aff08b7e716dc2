"""``damas export --compat`` and ``--result-style``: PDN for the readers that know no
mid-game ``/FEN "..."/`` set-up (pydraughts, py-draughts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from board_hal.debounce import Transition
from damas.records.session import GameSession
from damas.records.store import Store
from referee import Action
from rules import Color, Position
from rules.pdn import read_pdn


def export(db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "damas", "export", "--db", str(db), *args], capture_output=True, text=True, timeout=60
    )


def test_a_game_with_an_accepted_irregularity_exported_for_other_readers(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        s = GameSession.start(
            store, "brazilian", None, "tournament", Position.start("brazilian").occupied(), {"White": "Ana"}
        )
        t = 100.0
        # 1. c3-d4, then White moves again (d4-c5): Black plays on (b6-a5), so the position stands
        for sq, occupied in [(22, False), (18, True), (18, False), (17, True), (9, False), (13, True)]:
            t += 0.4
            s.feed(Transition(t, sq, occupied))
        s.tick(t + 2)
        s.feed(Action(t + 3, "resign", Color.WHITE))
    strict = export(db)
    assert strict.returncode == 0, strict.stderr
    assert '/FEN "' in strict.stdout
    compat = export(db, "--compat", "--result-style", "2-0")
    assert compat.returncode == 0, compat.stderr
    assert "/FEN" not in compat.stdout
    first, second = read_pdn(compat.stdout)
    assert [m.text for m in first.moves] == ["c3-d4"] and first.result == "*"
    assert [m.text for m in second.moves] == ["b6-a5"] and second.result == "0-2"
    assert second.tags["White"] == "Ana" and "part 2 of 2" in second.tags["Annotator"]
    assert second.start is not None and second.start.piece_at(17) is not None  # the set-up position
    (whole,) = read_pdn(strict.stdout)
    assert whole.setups and [m.move for m in whole.moves] == [m.move for m in (*first.moves, *second.moves)]


def test_a_bad_result_style_is_refused_naming_it(tmp_path: Path) -> None:
    r = export(tmp_path / "none.sqlite3", "--result-style", "3-0")
    assert r.returncode == 2 and "invalid choice: '3-0'" in r.stderr.strip().splitlines()[-1]
