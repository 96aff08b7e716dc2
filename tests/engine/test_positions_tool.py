"""tools/positions.py: positions sampled from our games, labelled by a Hub engine, resumable."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

from engine.hub import parse_position
from rules import Game

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "positions.py"


def tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=170)


def lines(path: Path) -> list[list[str]]:
    return [x.split() for x in path.read_text().splitlines() if x and not x.startswith("#")]


def test_sample_keeps_quiet_positions_of_whole_games_and_resumes_to_the_same_file(tmp_path: Path) -> None:
    one, two = tmp_path / "one.txt", tmp_path / "two.txt"
    assert tool("sample", "portuguese", str(one), "--games", "1", "--seed", "7").returncode == 0
    assert tool("sample", "portuguese", str(one), "--games", "2", "--seed", "7").returncode == 0
    assert tool("sample", "portuguese", str(two), "--games", "2", "--seed", "7").returncode == 0
    assert one.read_text() == two.read_text()  # resumed: the same as one run
    # the header says how to sample them again
    assert one.read_text().splitlines()[0].endswith("sample --seed 7 --depths 3,4,4,5 --keep 0.5 --children 0)")
    rows = lines(one)
    assert {r[1] for r in rows} == {"0", "1"}
    assert len({r[0] for r in rows}) == len(rows)  # no repeats
    for r in rows:
        pos = parse_position(r[0], "portuguese")
        assert not pos.has_captures()
        assert not pos.with_turn(pos.turn.other).has_captures()
        assert Game("portuguese", pos).outcome() is None


def test_label_with_our_own_hub_engine_at_a_fixed_depth_and_resume(tmp_path: Path) -> None:
    src, out = tmp_path / "pos.txt", tmp_path / "labelled.txt"
    rows = [
        "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww 0",
        "Bbbbbbbbbbbbbeeeeewewwwwwwwewwwww 0",
        "Wbbbbbbbbbbebeebeeeewwwwwwwwewwww 3",
    ]
    src.write_text("\n".join(rows) + "\n")
    engine = f"{shlex.quote(sys.executable)} -m damas hub --tt-size 4"
    args = ["label", str(src), str(out), "--engine", engine, "--variant", "brazilian", "--depth", "3"]
    done = tool(*args, "--limit", "2")
    assert done.returncode == 0, done.stderr
    assert len(lines(out)) == 2
    assert tool(*args).returncode == 0
    labelled = lines(out)
    assert [r[0] for r in labelled] == [r.split()[0] for r in rows]
    assert all(r[2] == "3" for r in labelled) and [r[3] for r in labelled] == ["0", "0", "3"]
    header = out.read_text().splitlines()[0]
    assert header.startswith("# brazilian positions of pos.txt labelled by damas") and "at depth 3" in header
    # the score is the engine's own at that depth, for the side to move
    from engine import Engine, Limits

    for r in labelled:
        result = Engine("brazilian", tt_mb=4).search(parse_position(r[0], "brazilian"), Limits(depth=3))
        assert int(r[1]) == result.score
    assert tool(*args).stdout.startswith(f"{out}: every position")


FIRST_HUB = """
import sys
for line in sys.stdin:
    w = line.split()
    if w[0] == "hub": print("name Scan 2.0"); print("author F"); print("wait")
    elif w[0] == "init": print("init eval"); print("ready")
    elif w[0] == "pos": pos = w[1]
    elif w[0] == "depth": depth = int(w[1])
    elif w[0] == "analyse":
        if depth >= 12: print(f"info {depth} 14.2 {-25 if pos[0] == 'b' else 40} 180280 0.01 0.0 34-30 17-21")
        print("move 34-30")
    elif w[0] == "quit": break
    sys.stdout.flush()
"""


def test_label_speaks_the_first_hub_protocol_as_scan_2_writes_it(tmp_path: Path) -> None:
    # Scan 2.0's hub mode (its source: main.cpp hub_loop, search.cpp disp_best_move): positions with a
    # lower-case side, "depth N", "analyse", "info <depth> <mean depth> <score> ..." from depth 12 on
    fake = tmp_path / "scan2.py"
    fake.write_text(FIRST_HUB)
    start = "W" + "b" * 20 + "e" * 10 + "w" * 20
    src, out = tmp_path / "pos.txt", tmp_path / "labelled.txt"
    src.write_text(f"{start} 0\nB{start[1:]} 1\n")
    engine = f"{shlex.quote(sys.executable)} {fake}"
    done = tool("label", str(src), str(out), "--engine", engine, "--depth", "14")
    assert done.returncode == 0, done.stderr
    assert [r[1:] for r in lines(out)] == [["40", "14", "0"], ["-25", "14", "1"]]
    assert "labelled by Scan 2.0 at depth 14" in out.read_text().splitlines()[0]
    shallow = tool("label", str(src), str(tmp_path / "x.txt"), "--engine", engine, "--depth", "8")
    assert shallow.returncode == 1
    assert "gave no score at depth 8" in shallow.stderr
    assert "(Scan 2.0 reports scores from depth 12 on)" in shallow.stderr
    assert len(shallow.stderr.strip().splitlines()) == 1


def test_an_engine_that_cannot_start_or_a_missing_file_is_one_line(tmp_path: Path) -> None:
    src = tmp_path / "pos.txt"
    src.write_text("Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww 0\n")
    bad = tool("label", str(src), str(tmp_path / "o.txt"), "--engine", "/nonexistent/engine", "--depth", "3")
    assert bad.returncode == 1 and "exited" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    missing = tool("label", str(tmp_path / "none.txt"), str(tmp_path / "o.txt"), "--engine", "x", "--depth", "3")
    assert missing.returncode == 1
    assert missing.stderr.strip() == f"positions.py: no positions file {tmp_path / 'none.txt'}"
