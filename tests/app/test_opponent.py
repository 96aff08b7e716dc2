"""The app's engine client (issue 12.3): our own ``damas hub`` as the external engine, and
small engines that misbehave on purpose (tests/app/fake_hub.py). Whatever the engine does,
the client never waits without a bound, and a failure is one line naming the engine and what it did."""

from __future__ import annotations

import resource
import shlex
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from damas.computer.opponent import (
    EngineSettings,
    HubEngine,
    LocalEngine,
    default_memory,
    limits_for,
    open_engine,
    settings_from_config,
)
from engine import Limits
from rules import Color, Game, Position
from tests.conftest import wait_until

FAKE = Path(__file__).with_name("fake_hub.py")


def fake(mode: str, good: int = 0) -> str:
    return shlex.join([sys.executable, str(FAKE), mode, str(good)])


def answer_of(engine: HubEngine | LocalEngine, timeout: float = 60.0) -> object:
    answer = engine.wait(timeout)
    assert answer is not None, "no answer in time"
    return answer


@pytest.mark.parametrize("variant", ["brazilian", "portuguese", "international"])
def test_our_hub_engine_plays_legal_moves_through_the_client(variant: str) -> None:
    engine = HubEngine(variant, level=2, tt_mb=4)
    try:
        game = Game(variant)
        for _ in range(4):
            engine.ask(game, limits_for(2))
            answer = engine.wait(60)
            assert answer is not None and answer.error is None, answer
            assert answer.move in game.legal_moves
            game.push(answer.move)
        assert engine.name.startswith("damas")
    finally:
        engine.close()
    assert engine.proc is not None and engine.proc.poll() is not None  # no engine left running


def test_the_client_sends_the_game_since_its_last_set_up() -> None:
    """A set-up (an accepted irregularity) starts the position the engine is given; the moves after it
    follow, so the engine sees repetitions. Here the only legal move from the set-up is answered."""
    engine = HubEngine("brazilian", level=1, tt_mb=4)
    try:
        game = Game("brazilian")
        game.push(next(iter(game.legal_moves)))
        setup = Position.from_fen("W:W18:B14,K1", "brazilian")  # white 18 must take 14
        game.setup(setup)
        engine.ask(game, Limits(depth=2))
        answer = engine.wait(60)
        assert answer is not None and answer.error is None
        assert answer.move in setup.legal_moves and answer.move.captured == (14,)
    finally:
        engine.close()


def test_a_cancelled_search_never_answers() -> None:
    engine = HubEngine("international", level=10, tt_mb=4)
    try:
        game = Game("international")
        engine.ask(game, Limits(move_time=30))  # long: cancelled at once
        time.sleep(0.5)
        engine.cancel()
        game.push(list(game.legal_moves)[3])
        started = time.monotonic()
        ticket = engine.ask(game, Limits(depth=1))
        answer = engine.wait(30)
        assert answer is not None and answer.ticket == ticket and answer.move in game.legal_moves
        assert time.monotonic() - started < 20  # the 30 s search was stopped, not waited for
        assert engine.poll() is None
    finally:
        engine.close()


def test_a_level_bounded_by_nodes_is_waited_for_as_long_as_a_slow_board_computer_needs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A level bounded by nodes (8-10) takes nodes / nps seconds: level 10's 600,000 nodes take
    minutes on a Raspberry Pi 3 — longer than a depth-bound search is given (``DEPTH_TIME``). The
    client waits nodes / ``SLOWEST_NPS``; a depth-bound search keeps its own bound. (Scaled down:
    a search the fake engine answers in 2 s, with 0.5 s for a depth-bound one.)"""
    from damas.computer import opponent

    monkeypatch.setattr(opponent, "DEPTH_TIME", 0.5)
    monkeypatch.setattr(opponent, "SLOWEST_NPS", 1_000)
    game = Game("brazilian")
    engine = HubEngine("brazilian", fake("slow", 20), timeout=0.5)
    try:
        engine.ask(game, Limits(nodes=4_000))  # 4 s allowed
        answer = engine.wait(30)
        assert answer is not None and answer.error is None and answer.move in game.legal_moves
    finally:
        engine.close()
    engine = HubEngine("brazilian", fake("slow", 20), timeout=0.5)
    try:
        engine.ask(game, Limits(depth=6))  # 0.5 s allowed, and 0.5 s more: the same engine is hung
        answer = engine.wait(30)
        assert answer is not None and answer.move is None and "did not answer 'go think' in time" in str(answer.error)
    finally:
        engine.close()


@pytest.mark.parametrize(
    ("mode", "good", "said"),
    [
        ("crash-start", 0, "exited with status 3 after 'hub': fake engine: cannot load its weights"),
        ("silent", 0, "did not answer 'hub' in time (timeout 5 s)"),
        ("crash", 1, "exited with status 139 after 'go think': fake engine: segmentation fault"),
        ("hang", 1, "did not answer 'go think' in time"),
        ("flood", 0, "did not answer 'go think' in time"),
        ("nonsense", 0, "answered 'hello', which is not a move"),
        ("illegal", 1, "answered an illegal move '1-2'"),
        ("gives-up", 1, "answered done without a move in B:W"),
        ("gives-up", 1, "(it said: the search failed (IndexError: list index out of range))"),
    ],
)
def test_a_misbehaving_engine_fails_with_one_line(mode: str, good: int, said: str) -> None:
    engine = HubEngine("brazilian", fake(mode, good), timeout=1.0)
    try:
        game = Game("brazilian")
        for _ in range(good):  # it plays well at first
            engine.ask(game, Limits(move_time=0.1))
            answer = engine.wait(30)
            assert answer is not None and answer.error is None and answer.move in game.legal_moves
            game.push(answer.move)
        started = time.monotonic()
        engine.ask(game, Limits(move_time=0.1))
        answer = engine.wait(30)
        assert answer is not None and answer.move is None and answer.error is not None
        assert time.monotonic() - started < 15
        assert said in answer.error
        assert answer.error.startswith(f"the engine ({fake(mode, good)}) ")
        assert "\n" not in answer.error and engine.failed == answer.error
        # failed for good: a later question gets no answer, and the process is gone
        engine.ask(game, Limits(move_time=0.1))
        assert engine.wait(0.5) is None
        assert engine.proc is None or engine.proc.poll() is not None
    finally:
        engine.close()


def test_garbage_lines_are_ignored() -> None:
    engine = HubEngine("portuguese", fake("noise"), timeout=2.0)
    try:
        game = Game("portuguese")
        engine.ask(game, Limits(move_time=0.1))
        answer = engine.wait(30)
        assert answer is not None and answer.error is None and answer.move == next(iter(game.legal_moves))
    finally:
        engine.close()


def test_an_engine_without_our_variant_says_so() -> None:
    engine = HubEngine("brazilian", fake("international"), timeout=2.0)
    try:
        engine.ask(Game("brazilian"), Limits(move_time=0.1))
        answer = engine.wait(30)
        assert answer is not None and answer.error is not None
        assert "plays only International draughts (it has no variant parameter), not brazilian" in answer.error
    finally:
        engine.close()
    engine = HubEngine("international", fake("international"), timeout=2.0)
    try:
        game = Game("international")
        engine.ask(game, Limits(move_time=0.1))
        answer = engine.wait(30)
        assert answer is not None and answer.error is None and answer.move in game.legal_moves
    finally:
        engine.close()


def test_a_missing_program_is_one_line() -> None:
    engine = HubEngine("brazilian", "/nonexistent/scan hub", timeout=1.0)
    try:
        answer = engine.wait(10)
        assert answer is not None and answer.error is not None
        assert answer.error == "the engine (/nonexistent/scan hub) cannot be started: No such file or directory"
    finally:
        engine.close()


def test_local_engine_answers_in_its_thread() -> None:
    engine = LocalEngine("brazilian", level=3, tt_mb=2, seed=1)
    try:
        game = Game("brazilian")
        engine.ask(game, limits_for(3))
        answer = engine.wait(60)
        assert answer is not None and answer.move in game.legal_moves
    finally:
        engine.close()


def test_engine_settings_from_the_configuration() -> None:
    s = settings_from_config(
        {"command": "scan hub", "level": 7, "side": "white", "opponent": "engine", "move_time": 2, "hints": "always"},
        "board.toml",
    )
    assert s == EngineSettings("scan hub", 7, Color.WHITE, "engine", 2.0, "always")
    assert s.allows_hint("tournament") and EngineSettings().allows_hint("casual")
    assert not EngineSettings().allows_hint("tournament") and not EngineSettings(hints="never").allows_hint("casual")
    cases: list[tuple[dict[str, Any], str]] = [
        ({"level": 11}, "board.toml: engine.level must be a level 1-10, not 11"),
        ({"side": "red"}, 'board.toml: engine.side must be "white" or "black" (the side the computer plays), not'),
        ({"command": ""}, "board.toml: engine.command must be the command line of a Hub engine"),
        ({"command": "scan 'hub"}, 'board.toml: engine.command: No closing quotation in "scan \'hub"'),
        ({"move_time": 0}, "board.toml: engine.move_time must be seconds between 0.01 and 3600, not 0"),
        ({"colour": 1}, "board.toml: unknown setting engine.colour (known: command, level, side"),
    ]
    for table, said in cases:
        with pytest.raises(ValueError) as err:
            settings_from_config(table, "board.toml")
        assert str(err.value).startswith(said), str(err.value)


def test_an_engine_that_writes_a_line_without_end_fails_without_taking_memory() -> None:
    """Issue 33.5: 1.2 GB without a newline took damas play to 2,157 MB. What an engine writes is
    read in bounded pieces: an overlong line fails it in one line, in bounded memory."""
    tracemalloc.start()
    try:
        engine = HubEngine("brazilian", fake("endless-line"), timeout=30.0)
        try:
            engine.ask(Game("brazilian"), Limits(move_time=0.1))
            answer = engine.wait(60)
        finally:
            engine.close()
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer is not None and answer.move is None
    assert answer.error == f"the engine ({fake('endless-line')}) wrote a line longer than 16 KiB", answer.error
    assert peak < 16 << 20, f"{peak / 2**20:.0f} MiB"


@pytest.mark.parametrize(
    ("mode", "said"),
    [("torrent", "wrote more than "), ("error-torrent", "wrote more than 1 MiB a second on its error output")],
)
def test_an_engine_that_floods_its_output_fails_at_once(mode: str, said: str) -> None:
    """More than a Hub engine ever writes (megabytes a second): it fails in one line, long
    before its timeout, and what it wrote is not kept."""
    engine = HubEngine("brazilian", fake(mode), timeout=30.0)
    try:
        started = time.monotonic()
        engine.ask(Game("brazilian"), Limits(move_time=0.1))
        answer = engine.wait(60)
        assert answer is not None and answer.move is None and answer.error is not None
        assert answer.error.startswith(f"the engine ({fake(mode)}) {said}"), answer.error
        assert time.monotonic() - started < 20
    finally:
        engine.close()


def test_an_engine_is_bounded_in_memory_and_fails_beyond_it_in_one_line() -> None:
    """A time, an output, and a memory bound: an engine that wants more than ``[engine]
    memory`` (here 256 MB; by default half the machine's) fails its allocation and so the
    game, in one line, while the board goes on. Within its bound the same engine plays."""
    engine = HubEngine("brazilian", fake("hog"), timeout=30.0, memory=256)
    try:
        assert engine.ready.wait(30) and engine.proc is not None
        assert resource.prlimit(engine.proc.pid, resource.RLIMIT_DATA) == (256 << 20, 256 << 20)
        engine.ask(Game("brazilian"), Limits(move_time=0.1))
        answer = engine.wait(60)
        assert answer is not None and answer.move is None and answer.error is not None
        assert answer.error.startswith(f"the engine ({fake('hog')}) exited with status 1 after 'go think': "), (
            answer.error
        )
        assert "Cannot allocate memory" in answer.error and "\n" not in answer.error
    finally:
        engine.close()
    roomy = HubEngine("brazilian", fake("hog"), timeout=30.0, memory=4096)
    try:
        roomy.ask(Game("brazilian"), Limits(move_time=0.1))
        answer = roomy.wait(60)
        assert answer is not None and answer.error is None and answer.move in Game("brazilian").legal_moves
    finally:
        roomy.close()
    ours = HubEngine("brazilian", tt_mb=16)  # our own damas hub: the default bound
    try:
        assert ours.ready.wait(60) and ours.proc is not None
        limit = default_memory(16) << 20
        assert resource.prlimit(ours.proc.pid, resource.RLIMIT_DATA) == (limit, limit)
        assert default_memory(16) >= 256 and default_memory(4096) >= 2 * 4096
    finally:
        ours.close()
    assert settings_from_config({"memory": 512}, "board.toml").memory == 512
    for bad in (32, "1G", True, 2.5):
        with pytest.raises(ValueError, match=r"^board\.toml: engine\.memory must be megabytes, 64-1048576, not "):
            settings_from_config({"memory": bad}, "board.toml")


def test_a_hung_engine_behind_a_shell_is_killed_with_everything_it_started(tmp_path: Path) -> None:
    """An engine command that is a script (``sh -c "… scan hub"``, a wrapper) hangs: the
    engine fails in one line and the script and the engine it started are killed, not
    left running beside the board for the rest of the season."""
    pidfile = tmp_path / "engine.pid"
    command = shlex.join(
        ["env", f"FAKE_HUB_PIDFILE={pidfile}", "sh", "-c", fake("stuck", 1) + "; echo the engine ended"]
    )
    engine = HubEngine("brazilian", command, timeout=1.0)
    try:
        game = Game("brazilian")
        engine.ask(game, Limits(move_time=0.1))
        answer = engine.wait(30)
        assert answer is not None and answer.move is not None
        game.push(answer.move)
        inner = int(pidfile.read_text())
        assert engine.proc is not None and inner != engine.proc.pid  # the engine is the shell's child
        engine.ask(game, Limits(move_time=0.1))
        answer = engine.wait(30)
        assert answer is not None and answer.error is not None
        assert answer.error == f"the engine ({command}) did not answer 'go think' in time (timeout 1 s)"
        wait_until(lambda: not _alive(inner), timeout=10, what=f"the engine's process {inner} gone")
    finally:
        engine.close()


def _alive(pid: int) -> bool:
    """A process that runs (a zombie waiting for its parent has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_computer_plays_with_the_endgame_databases_it_is_given(tmp_path: Path, caplog: Any) -> None:
    """``[engine] endgames``: our own engine (its own process, damas hub) probes the tables at
    the levels that play their best; the levels that err, and a variant without tables, play
    without them."""
    from engine import MATE_BOUND
    from engine.endgame import build

    where = tmp_path / "endgames"
    build("brazilian", 3, where, lambda _s: None)
    settings = settings_from_config({"endgames": str(where), "tt_size": 4}, "board.toml")
    assert settings.endgames == str(where)
    # White's man against two: won in 25 plies, far beyond three plies of search
    game = Game("brazilian", Position.from_fen("W:Wg7:Bb8,f8", "brazilian"))
    scores = {}
    for level in (10, 3):
        engine = open_engine("brazilian", settings, level=level)
        try:
            assert engine.argv[-2:] == ["--endgames", str(where)]  # type: ignore[attr-defined]
            engine.ask(game, Limits(depth=3))
            answer = engine.wait(60)
            assert answer is not None and answer.error is None, answer
            scores[level] = answer.score
        finally:
            engine.close()
    assert scores[10] is not None and scores[10] >= MATE_BOUND
    assert scores[3] is not None and abs(scores[3]) < MATE_BOUND
    # Portuguese was not built there, International has none: both play without, and a
    # Portuguese game says why in the log
    with caplog.at_level("WARNING"):
        assert settings.endgames_for("portuguese") is None
    assert "plays portuguese without endgame databases" in caplog.text and "manifest.json" in caplog.text
    assert settings.endgames_for("international") is None
    for variant in ("portuguese", "international"):
        engine = open_engine(variant, settings, level=10)
        try:
            assert "--endgames" not in engine.argv  # type: ignore[attr-defined]
        finally:
            engine.close()


def test_the_endgames_setting_is_checked_and_named(tmp_path: Path) -> None:
    empty = tmp_path / "nothing"
    empty.mkdir()
    cases: list[tuple[dict[str, Any], str]] = [
        ({"endgames": 3}, "board.toml: engine.endgames must be a directory of endgame databases"),
        ({"endgames": " "}, "board.toml: engine.endgames must be a directory of endgame databases"),
        (
            {"endgames": str(empty)},
            f"board.toml: engine.endgames: {empty / 'brazilian' / 'manifest.json'}: no endgame databases here",
        ),
        ({"endgames": str(empty), "command": "scan hub"}, "board.toml: engine.endgames is for our own engine"),
    ]
    for table, said in cases:
        with pytest.raises(ValueError) as err:
            settings_from_config(table, "board.toml")
        assert str(err.value).startswith(said), str(err.value)
        assert "\n" not in str(err.value)
