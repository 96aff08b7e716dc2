"""benchmarks/engine_match.py: the record a long match is written to, resumed from and added up."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from rules import Game

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def em() -> ModuleType:
    spec = importlib.util.spec_from_file_location("engine_match", ROOT / "benchmarks" / "engine_match.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["engine_match"] = module
    spec.loader.exec_module(module)
    return module


def quick_match(em: ModuleType) -> object:
    # level 1 against level 1 at the levels' own settings (depth 1): games of a second or two
    return em.Match("brazilian", em.Spec.parse("damas:level=1"), em.Spec.parse("damas:level=1"), None)


def test_games_are_written_as_they_end_and_a_run_resumes_and_adds_up(em: ModuleType, tmp_path: Path) -> None:
    record = tmp_path / "m.jsonl"
    match = quick_match(em)
    first = em.run_match(match, 2, record=record, verbose=False)
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    assert sorted(r["game"] for r in lines) == [0, 1] == sorted(r["game"] for r in first)
    for r in lines:
        assert r["match"] == "brazilian damas:level=1 v damas:level=1 level cpu openings"
        assert r["a"] == ("white" if r["game"] == 0 else "black")
        assert r["start"] == em.opening("brazilian", 0)  # both colours of the first opening
        # the moves replay to the recorded result, under the game's own rules
        game = Game("brazilian")
        for text in r["moves"].split():
            game.push_pdn(text)
        assert game.ply == r["plies"]
        assert (game.result() if game.outcome() else "*") == r["result"] or r["end"] == "ply limit"
        assert len(r["cpu"]) == 1 and r["engine"] == em.match_fingerprint(match)
    # a longer run plays only what the record lacks; the same run again plays nothing
    more = em.run_match(match, 3, record=record, verbose=False)
    assert sorted(r["game"] for r in more) == [0, 1, 2]
    assert len(record.read_text().splitlines()) == 3
    em.run_match(match, 3, record=record, verbose=False)
    assert len(record.read_text().splitlines()) == 3
    # a cut-off last line (a run killed while writing) is skipped, and that game played again
    record.write_text(record.read_text() + '{"match": "brazil')
    assert len(em.read_record(record)) == 3


def test_a_changed_engine_counts_apart(em: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    record = tmp_path / "m.jsonl"
    match = quick_match(em)
    em.run_match(match, 1, record=record, verbose=False)
    monkeypatch.setattr(em, "engine_fingerprint", lambda: "another-engine")
    again = em.run_match(match, 1, record=record, verbose=False)
    assert len(again) == 1 and again[0]["engine"] != json.loads(record.read_text().splitlines()[0])["engine"]
    assert len(record.read_text().splitlines()) == 2


def test_the_fingerprint_ignores_comments_and_docstrings_but_not_code(em: ModuleType) -> None:
    a = em._strip_docstrings(em.ast.parse('"""doc"""\nx = 1  # note\n'))
    b = em._strip_docstrings(em.ast.parse('"""other doc"""\n\nx = 1\n'))
    c = em._strip_docstrings(em.ast.parse('"""doc"""\nx = 2\n'))
    assert em.ast.dump(a) == em.ast.dump(b) != em.ast.dump(c)


def test_the_score_and_its_interval(em: ModuleType) -> None:
    t = em.Tally(60, 80, 60)
    assert t.score == 0.5
    lo, hi = t.interval()
    assert lo == pytest.approx(0.5 - 1.96 * (30 / 199 / 200) ** 0.5, abs=1e-9)  # 60 x 1/4 + 60 x 1/4 over 199
    assert hi == pytest.approx(1 - lo)
    # every game won: Wilson's interval, not a zero width
    lo, hi = em.Tally(40, 0, 0).interval()
    assert hi == 1.0 and 0.9 < lo < 0.93
    assert em.Tally(3, 1, 0).text().startswith("+3 =1 -0  87.5 % of 4 games (95 %: ")


def test_openings_are_the_same_every_run_and_distinct(em: ModuleType) -> None:
    texts = [em.opening("international", n) for n in range(150)]
    assert len(set(texts)) == 150
    assert all(len(t.split()) == 2 for t in texts[:81]) and all(len(t.split()) == 4 for t in texts[81:])
    for t in texts[::10]:
        em.start_game("international", t)  # legal
    em._four_ply.cache_clear()
    em._two_ply.cache_clear()
    assert [em.opening("international", n) for n in range(150)] == texts


def test_player_specs(em: ModuleType) -> None:
    assert str(em.Spec.parse("damas:level=3:weights=hand")) == "damas:level=3:weights=hand"
    with pytest.raises(ValueError, match="unknown player 'stockfish'"):
        em.Spec.parse("stockfish")
    with pytest.raises(ValueError, match="player option 'speed=3' is not level=, weights="):
        em.Spec.parse("damas:speed=3")
    # a level being calibrated: its settings changed by the options
    player = em.Damas(em.Spec.parse("damas:level=3:noise=150:depth=2"), "brazilian", seed=1)
    assert (player.engine.level.depth, player.engine.level.noise, player.engine.level.nodes) == (2, 150, None)


def test_a_change_of_the_levels_keeps_the_records_of_players_spelled_out(
    em: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The levels are calibrated from records of players whose settings are spelled out; when
    those settings become the levels, the records still count. A player named by its level alone
    counts apart once that level changes."""
    spelled = em.Match("brazilian", em.Spec.parse("damas:level=9:depth=100:nodes=150000:noise=0"),
                       em.Spec.parse("damas:level=9:depth=100:nodes=40000:noise=0"), None)  # fmt: skip
    named = em.Match("brazilian", em.Spec.parse("damas:level=9"), em.Spec.parse("damas:level=8"), None)
    before = em.match_fingerprint(spelled), em.match_fingerprint(named)
    real = em.level_settings
    monkeypatch.setattr(
        em, "level_settings", lambda n, v: dataclasses.replace(real(n, v), depth=3, nodes=None, noise=7)
    )
    after = em.match_fingerprint(spelled), em.match_fingerprint(named)
    assert after[0] == before[0] and after[1] != before[1]
    assert em.level_of(em.Spec.parse("damas:level=9:nodes=none"), "brazilian").nodes is None
    # a level that differs by variant is its variant's: a record of one counts apart from the other's
    monkeypatch.setattr(em, "level_settings", real)
    four = [
        em.Match(v, em.Spec.parse("damas:level=4"), em.Spec.parse("damas:level=3"), None)
        for v in ("brazilian", "international")
    ]
    assert em.level_of(four[0].a, "brazilian") != em.level_of(four[1].a, "international")


def test_the_endgame_module_counts_only_for_players_with_databases(
    em: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player runs engine/endgame.py only with databases (``db=``): a change to the build
    restarts no other match, and restarts those that probe the tables."""
    plain = em.Match("brazilian", em.Spec.parse("damas:level=9"), em.Spec.parse("damas:level=8"), None)
    probing = em.Match("brazilian", em.Spec.parse(f"damas:db={tmp_path}"), em.Spec.parse("damas:level=8"), None)
    real = em._code_of

    def prints(changed: str) -> tuple[str, str, str]:
        monkeypatch.setattr(em, "_code_of", lambda p: real(p) + ("changed" if p.name == changed else ""))
        em.engine_fingerprint.cache_clear()
        return em.engine_fingerprint(), em.match_fingerprint(plain), em.match_fingerprint(probing)

    try:
        before = prints("")
        after = prints("endgame.py")
        assert after[:2] == before[:2] and after[2] != before[2]
        searched = prints("search.py")
        assert all(x != y for x, y in zip(searched, before, strict=True))
    finally:
        em.engine_fingerprint.cache_clear()


def test_a_game_names_its_python_and_the_costs_are_cpythons(em: ModuleType, tmp_path: Path) -> None:
    # PyPy plays the same moves at a level bounded by nodes, in other times: a match may take its
    # games from both, and a summary's costs are then CPython's games' alone
    [r] = em.run_match(quick_match(em), 1, record=tmp_path / "m.jsonl", verbose=False)
    assert r["python"] == f"{platform.python_implementation()} {platform.python_version()}"
    cpython = dict(r, python="CPython 3.11.7", a_time=[1.0, 0.5], b_time=[2.0, 1.5])
    before = {k: v for k, v in cpython.items() if k != "python"}  # (records from before the name: CPython)
    pypy = dict(r, python="PyPy 3.11.11", a_time=[0.1, 0.1], b_time=[0.2, 0.2])
    mixed = em.describe([cpython, before, pypy])
    assert "A 1.000 s (0.500 s CPU" in mixed and "B 2.000 s (1.500 s CPU" in mixed
    assert mixed.endswith("(1 games under PyPy 3.11.11; the times are the other 2's)")
    assert em.describe([cpython, before]).endswith(f"load average {r['load'][0]:.1f}")
    alone = em.describe([pypy])
    assert "A 0.100 s (0.100 s CPU" in alone and alone.endswith("(1 games under PyPy 3.11.11)")


@pytest.fixture(scope="module")
def pypy_run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pypy_run", ROOT / "benchmarks" / "pypy.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_what_benchmarks_pypy_gives_pypy_is_what_cpython_gives(pypy_run: ModuleType) -> None:
    # the transposition table's entry (engine/tt.py), so PyPy's search is CPython's
    assert pypy_run.getsizeof((1 << 104) - 1) == sys.getsizeof((1 << 104) - 1)
    with pytest.raises(TypeError, match="getsizeof of str"):
        pypy_run.getsizeof("a string")  # (what nothing of ours asks: an error, not a guess)
    # the CPU sets, through the C library, as os gives them
    assert pypy_run.sched_getaffinity(0) == os.sched_getaffinity(0)
    child = (  # (the set is changed in a child: the tests' own process keeps its cores)
        "import os, runpy, sys; m = runpy.run_path(sys.argv[1]); one = min(os.sched_getaffinity(0)); "
        "m['sched_setaffinity'](0, {one}); assert os.sched_getaffinity(0) == {one} == m['sched_getaffinity'](0)"
    )
    subprocess.run([sys.executable, "-c", child, str(ROOT / "benchmarks" / "pypy.py")], check=True)
    # and it refuses to run under CPython, saying what to do
    with pytest.raises(SystemExit, match="run it with pypy3"):
        pypy_run.main()
