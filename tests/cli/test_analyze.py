"""``damas analyze`` (issue 12.4): the moves that lose material or the game are marked, with the
engine's better move; the engine's searches are fixed-depth here, so the output is reproducible."""

from __future__ import annotations

import json
from pathlib import Path

from damas.computer.analysis import classify
from engine import MATE_BOUND
from tests.conftest import damas, one_line_error

# White's a5-b6 gives a man away (c5xa7, and nothing comes back); f6-g7 keeps the balance
BLUNDER = """[Event "analysis"]
[White "Ana"]
[Black "Rui"]
[GameType "26"]
[FEN "W:W20,11,13:B18,14,25"]
[Result "*"]

1. a5-b6 c5xa7 *
"""

# the same position, the better move played: nothing to mark
GOOD = BLUNDER.replace("1. a5-b6 c5xa7", "1. f6-g7")


def test_a_move_that_gives_a_man_away_is_marked_with_the_better_move(tmp_path: Path) -> None:
    path = tmp_path / "games.pdn"
    path.write_text(BLUNDER + "\n" + GOOD, encoding="utf-8")
    r = damas("analyze", str(path), "--depth", "6")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == f"{path}: game 1 (Ana - Rui), brazilian, 2 plies (depth 6)"
    assert lines[1] == "  1. a5-b6?  loses material (-2.0): better 1. f6-g7 (-0.2)"
    assert lines[2] == "  1 marked move (white 1, black 0)"
    assert lines[3] == f"{path}: game 2 (Ana - Rui), brazilian, 1 ply (depth 6)"
    assert lines[4] == "  no move loses material or the game"
    r = damas("analyze", str(path), "--depth", "6", "--json")
    first = json.loads(r.stdout.splitlines()[0])
    (mark,) = first["marks"]
    assert mark["ply"] == 1 and mark["move"] == "a5-b6" and mark["better"] == "f6-g7" and mark["mark"] == "?"
    assert mark["loss"] >= 90 and mark["kind"] == "material"


def test_what_is_marked() -> None:
    assert classify(0, -120) == "material"
    assert classify(0, -60) is None  # less than a man
    assert classify(600, 450) is None  # still won
    assert classify(-700, -900) is None  # lost anyway
    assert classify(20, -MATE_BOUND) == "game"  # into a forced loss
    assert classify(0, -650) == "game"  # from level to lost in practice
    assert classify(MATE_BOUND, 150) == "win"  # a forced win let go


def test_bad_sources_are_one_line(tmp_path: Path) -> None:
    one_line_error(damas("analyze", str(tmp_path / "missing.pdn")), "cannot read", "missing.pdn")
    empty = tmp_path / "empty.pdn"
    empty.write_text("\n", encoding="utf-8")
    one_line_error(damas("analyze", str(empty)), "no game found")
    one_line_error(damas("analyze", str(empty), "--time", "0"), "--time must be seconds")
    db = tmp_path / "games.sqlite3"
    one_line_error(damas("analyze", "7", "--db", str(db)), "no such database")
