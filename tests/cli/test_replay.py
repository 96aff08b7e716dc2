"""`damas replay` as a user runs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee import dump_log
from referee.log import LogHeader
from rules import Position
from tests.conftest import damas
from tests.referee.hands import Style, game_log


def write(tmp_path: Path, lines: list[str]) -> str:
    p = tmp_path / "game.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return str(p)


def test_json_verdicts_and_pdn(tmp_path: Path) -> None:
    log = write(
        tmp_path,
        [
            '{"format": 1, "variant": "brazilian", "mode": "casual", "white": "Ana", "black": "Rui"}',
            '{"t": 0.0, "square": 22, "event": "lift"}',
            '{"t": 0.0004, "square": 22, "event": "place"}',
            '{"t": 0.0009, "square": 22, "event": "lift"}',
            '{"t": 0.64, "square": 18, "event": "place"}',
            '{"t": 2.0, "square": 11, "event": "lift"}',
            '{"t": 2.5, "square": 15, "event": "place"}',
            '{"t": 4.0, "square": 18, "event": "lift"}',
            '{"t": 4.5, "square": 11, "event": "place"}',
            '{"t": 4.9, "square": 15, "event": "lift"}',
            '{"t": 9.0, "cell": "b1", "event": "place"}',
            '{"t": 12.0, "cell": "b1", "event": "lift"}',
            '{"t": 95.0, "action": "resign", "side": "black"}',
        ],
    )
    out = tmp_path / "out.pdn"
    r = damas("replay", log, "--json", "--pdn", str(out))
    assert r.returncode == 0, r.stderr
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    moves = [v for v in verdicts if v["type"] == "move"]
    assert [(v["ply"], v["move"], v["from"], v["to"], v["captured"]) for v in moves] == [
        (1, "c3-d4", 22, 18, []),
        (2, "f6-e5", 11, 15, []),
        (3, "d4xf6", 18, 11, [15]),
    ]
    reports = [v for v in verdicts if v["type"] == "report"]
    assert [v["kind"] for v in reports] == ["off-square", "restored"]
    assert verdicts[-1] == {"type": "end", "result": "1-0", "termination": "resignation", "t": 95.0}
    text = out.read_text()
    assert '[White "Ana"]' in text and "1. c3-d4 f6-e5 2. d4xf6 1-0" in text


def test_options_override_the_header(tmp_path: Path) -> None:
    """Each option changes what the replay finds (the old test passed with --fen and --mode ignored)."""
    log = write(
        tmp_path,
        [
            '{"variant": "brazilian"}',
            '{"t": 0, "square": 32, "event": "lift"}',
            '{"t": 1, "square": 28, "event": "place"}',
            '{"t": 2, "square": 1, "event": "lift"}',
            '{"t": 3, "square": 7, "event": "place"}',
        ],
    )
    # --variant: 32-28 is an International move (on the header's Brazilian board g1-h2 is no move)
    r = damas("replay", log, "--variant", "international", "--json")
    first = json.loads(r.stdout.splitlines()[0])
    assert first["move"] == "32-28"
    # --fen: from the start 1-7 is blocked; from W:W32:B1 it is Black's move
    assert "move 2: 1-7" not in r.stdout
    r = damas("replay", log, "--variant", "international", "--fen", "W:W32:B1")
    assert "move 1: 32-28" in r.stdout and "move 2: 1-7" in r.stdout
    # --mode: a touched own piece put back is a touch-move notice in tournament mode only
    touch = write(
        tmp_path,
        [
            '{"variant": "international"}',
            '{"t": 0, "square": 33, "event": "lift"}',
            '{"t": 1.5, "square": 33, "event": "place"}',
            '{"t": 4, "square": 32, "event": "lift"}',
            '{"t": 5, "square": 28, "event": "place"}',
        ],
    )
    casual = damas("replay", touch, "--mode", "casual")
    tournament = damas("replay", touch, "--mode", "tournament")
    assert "touch-move" not in casual.stdout and "move 1: 32-28" in casual.stdout
    assert "touch-move" in tournament.stdout and "33" in tournament.stdout


def test_readable_output_and_illegal_moves_exit_zero(tmp_path: Path) -> None:
    log = write(tmp_path, ['{"t": 0, "square": 9, "event": "lift"}', '{"t": 1, "square": 13, "event": "place"}'])
    r = damas("replay", log)
    assert r.returncode == 0
    assert "wrong-side: it is white's move" in r.stdout


def test_a_real_game_through_human_hands(tmp_path: Path) -> None:
    from rules.pdn import read_game

    pg = read_game("1. 32-28 19-23 2. 28x19 14x23 3. 33-28 23x32 4. 37x28 *")
    moves = [m.move for m in pg.moves]
    events, _ = game_log(Position.start("international"), moves, 4, Style())
    path = tmp_path / "hands.jsonl"
    path.write_text(dump_log(LogHeader(variant="international"), events))
    r = damas("replay", str(path), "--json")
    got = [json.loads(x)["move"] for x in r.stdout.splitlines() if '"move"' in x]
    assert got == ["32-28", "19-23", "28x19", "14x23", "33-28", "23x32", "37x28"]


@pytest.mark.parametrize(
    ("lines", "line", "why"),
    [
        (['{"t": 0, "square": 22, "event": "lift"}', "not json"], 2, "not JSON"),
        (['{"t": 0, "square": 22, "event": "hover"}'], 1, "unknown event 'hover'"),
        (['{"t": 0, "square": 99, "event": "lift"}'], 1, "square out of range: 99"),
        (
            ['{"t": 5, "square": 22, "event": "lift"}', '{"t": 4, "square": 18, "event": "place"}'],
            2,
            "time goes backwards",
        ),
        (['{"variant": "chess"}'], 1, "unknown variant"),
        (['{"mode": "blitz"}'], 1, "unknown mode"),
        # every check of a log header (issue 19.7): each one line naming the field
        (['{"fen": "W:Wx:B1"}'], 1, "invalid fen: 'W:Wx:B1'"),
        (['{"variant": "international", "fen": "W:W32:B51"}'], 1, "invalid fen"),
        (['{"fen": 5}'], 1, "'fen' must be text, not 5"),
        (['{"variant": 3}'], 1, "'variant' must be a name, not 3"),
        (['{"mode": 1}'], 1, "unknown mode 1"),
        (['{"format": 99}'], 1, "unsupported log format 99"),
        (['{"board": [1, 1]}'], 1, "'board' lists a square twice"),
        (['{"variant": "international", "board": [99]}'], 1, "not on the board: [99] (1-50)"),
        (['{"t": 1, "action": "resign"}'], 1, "resign needs 'side'"),
        (['{"t": 1, "action": "pause"}'], 1, "unknown action 'pause'"),
        (['{"t": 1, "cell": "a1", "event": "place"}'], 1, "is a playing square"),
        (['{"t": "soon", "square": 1, "event": "place"}'], 1, "time must be a number"),
    ],
)
def test_malformed_logs_name_the_line(tmp_path: Path, lines: list[str], line: int, why: str) -> None:
    log = write(tmp_path, lines)
    r = damas("replay", log)
    assert r.returncode == 2
    assert r.stderr.startswith(f"damas: error: {log}:{line}: "), r.stderr
    assert why in r.stderr and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


def test_missing_log_file(tmp_path: Path) -> None:
    r = damas("replay", str(tmp_path / "nope.jsonl"))
    assert r.returncode == 2 and "cannot read" in r.stderr
