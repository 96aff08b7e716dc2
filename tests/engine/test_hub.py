"""`damas hub` through a real subprocess: the transcripts a Hub GUI would see."""

from __future__ import annotations

import contextlib
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest

from engine import Limits
from engine.hub import parse_level, parse_line, parse_position, position_text
from rules import Game, Position
from tests.conftest import damas, one_line_error

START_BR = "W" + "b" * 12 + "e" * 8 + "w" * 12
START_INT = "W" + "b" * 20 + "e" * 10 + "w" * 20
#: White's men on 5 and 6 against Black's man on 9, White to move: a forced win
WON_BY_FORCE = "W" + "e" * 4 + "ww" + "e" * 2 + "b" + "e" * 23


class HubProcess:
    """`damas hub` on pipes, its output read by a thread into a queue."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "damas", "hub", "--tt-size", "4", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read(self, timeout: float = 20.0) -> str:
        line = self.lines.get(timeout=timeout)
        assert line is not None, f"the engine exited (stderr: {self.stderr()!r})"
        return line

    def until(self, command: str, timeout: float = 30.0) -> tuple[str, list[str]]:
        """Read up to the first line starting with ``command``; (that line, the lines before)."""
        before: list[str] = []
        deadline = time.monotonic() + timeout
        while True:
            line = self.read(max(0.1, deadline - time.monotonic()))
            if line.split(" ", 1)[0] == command:
                return line, before
            before.append(line)

    def nothing_for(self, seconds: float) -> list[str]:
        out = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            out.append(line)
        return out

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        assert self.proc.stderr is not None
        return self.proc.stderr.read()

    def close(self) -> None:
        """Close standard input, as a GUI that quits does: the engine must exit by itself (a kill is a failure)."""
        killed = False
        assert self.proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self.proc.stdin.close()
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                killed = True
        self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()
        assert not killed, "damas hub did not exit within 10 s of its standard input closing"


@pytest.fixture
def hub() -> Iterator[HubProcess]:
    h = HubProcess()
    yield h
    h.close()


def start(h: HubProcess, variant: str = "brazilian") -> None:
    h.send("hub")
    h.until("wait")
    h.send(f"set-param name=variant value={variant}", "init")
    assert h.until("ready")[0] == "ready"


def done_move(line: str) -> tuple[str, dict[str, str]]:
    command, values, _flags = parse_line(line)
    assert command == "done", line
    return values["move"], values


def legal_texts(game: Game) -> set[str]:
    from engine.hub import move_text

    return {move_text(m) for m in game.legal_moves}


def test_handshake_lists_id_params_then_wait_and_init_answers_ready(hub: HubProcess) -> None:
    hub.send("hub")
    wait, before = hub.until("wait")
    assert wait == "wait"
    ident = parse_line(before[0])
    assert ident[0] == "id" and ident[1]["name"] == "damas" and ident[1]["version"]
    params = {parse_line(x)[1]["name"]: parse_line(x)[1] for x in before if x.startswith("param ")}
    assert params["variant"]["type"] == "enum"
    assert params["variant"]["values"].split() == ["normal", "brazilian", "portuguese"]
    assert params["level"]["min"] == "1" and params["level"]["max"] == "10"
    hub.send("set-param name=level value=4", "init")
    assert hub.read() == "ready"


def test_think_at_a_depth_gives_info_lines_and_a_legal_done(hub: HubProcess) -> None:
    start(hub)
    hub.send(f'pos pos={START_BR} moves="22-18 9-14"', "level depth=4", "go think")
    done, infos = hub.until("done")
    game = Game("brazilian")
    game.push_pdn("22-18")
    game.push_pdn("9-14")
    move, values = done_move(done)
    # 18x9 is the only legal move (a capture), written from x to x captured
    assert move == "18x9x14" == next(iter(legal_texts(game)))
    assert infos, "no info line"
    depths = []
    for line in infos:
        command, v, _ = parse_line(line)
        assert command == "info"
        assert {"depth", "score", "nodes", "time", "pv"} <= set(v)
        depths.append(int(v["depth"]))
        float(v["score"]), int(v["nodes"]), float(v["time"])
    assert depths == sorted(depths) and depths[-1] == 4
    assert parse_line(infos[-1])[1]["pv"].split()[0] == move
    if "ponder" in values:
        game.push(game.position.parse_pdn("18x9"))
        assert values["ponder"] in legal_texts(game)


@pytest.mark.parametrize(
    ("variant", "pos"),
    [("normal", START_INT), ("portuguese", "W" + "w" * 12 + "e" * 8 + "b" * 12), ("brazilian", START_BR)],
)
def test_every_variant_answers_a_legal_move_with_move_time(hub: HubProcess, variant: str, pos: str) -> None:
    start(hub, variant)
    hub.send(f"pos pos={pos}", "level move-time=0.3", "go think")
    t0 = time.monotonic()
    done, _ = hub.until("done")
    assert time.monotonic() - t0 < 10  # loose: the budget itself is measured by the benchmark
    name = {"normal": "international"}.get(variant, variant)
    assert done_move(done)[0] in legal_texts(Game(name))


@pytest.mark.parametrize("level", ["time=5 inc=0.1", "time=3", "moves=20 time=10"])
def test_clock_levels_answer(hub: HubProcess, level: str) -> None:
    start(hub)
    hub.send(f'pos pos={START_BR} moves="22-18"', f"level {level}", "go think")
    done, _ = hub.until("done")
    game = Game("brazilian")
    game.push_pdn("22-18")
    assert done_move(done)[0] in legal_texts(game)


@pytest.mark.parametrize("how", ["level infinite|go think", "level depth=3|go analyze"])
def test_infinite_and_analyze_wait_for_stop_and_answer_ping_meanwhile(hub: HubProcess, how: str) -> None:
    start(hub)
    level, go = how.split("|")
    hub.send(f"pos pos={START_BR}", level, go)
    lines = hub.nothing_for(1.0)
    assert not [x for x in lines if x.startswith("done")], lines
    hub.send("ping")
    pong, before = hub.until("pong", timeout=5)
    assert pong == "pong" and all(x.startswith("info") for x in before)
    hub.send("stop")
    done, _ = hub.until("done", timeout=10)
    assert done_move(done)[0] in legal_texts(Game("brazilian"))
    # and the engine is ready for the next search
    hub.send("level depth=2", "go think")
    assert hub.until("done")[0].startswith("done move=")


def test_ponder_ignores_the_clock_until_ponder_hit(hub: HubProcess) -> None:
    start(hub)
    hub.send(f"pos pos={START_BR}", "level move-time=0.2", "go ponder")
    lines = hub.nothing_for(1.0)
    assert not [x for x in lines if x.startswith("done")], lines
    hub.send("ping")
    hub.until("pong", timeout=5)
    hub.send("ponder-hit")
    done, _ = hub.until("done", timeout=10)
    assert done_move(done)[0] in legal_texts(Game("brazilian"))


def test_new_game_then_search_again(hub: HubProcess) -> None:
    start(hub, "portuguese")
    hub.send("level depth=3", "go think", "ping")
    hub.until("done")
    hub.send("new-game", "pos", "level depth=2", "go think")
    assert done_move(hub.until("done")[0])[0] in legal_texts(Game("portuguese"))


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("pos pos=Wxyz", "letters"),
        ("pos pos=W" + "b" * 12 + "e" * 8 + "w" * 11 + "x", "letter 'x'"),
        (f'pos pos={START_BR} moves="22-19"', "illegal move '22-19'"),
        (f'pos pos={START_BR} moves="22-18 zz"', "invalid move 'zz'"),
        ('pos pos="W', "unterminated quote"),
        ("level move-time=abc", "not a number"),
        ("level depth=-2", "level depth="),
        ("level", "level needs"),
        ("set-param name=variant value=chess", "unknown variant 'chess'"),
        ("set-param name=level value=11", "level"),
        ("go sideways", "go needs"),
        ("=5", "without a name"),
        ("pos pos=Ww" + "e" * 30 + "b", "crowning row"),
    ],
)
def test_a_bad_line_gets_one_error_line_naming_it(hub: HubProcess, line: str, words: str) -> None:
    start(hub)
    hub.send(line)
    err = hub.read()
    command, values, _ = parse_line(err)
    assert command == "error", err
    assert words in values["message"], err
    # the engine goes on
    hub.send("ping")
    assert hub.read() == "pong"


def test_unknown_commands_and_params_are_ignored(hub: HubProcess) -> None:
    hub.send("frobnicate now=1", "set-param name=book value=true", "ping")
    assert hub.read() == "pong"


def test_go_in_a_finished_game_says_so(hub: HubProcess) -> None:
    start(hub)
    # White to move with no piece left
    hub.send("pos pos=W" + "b" + "e" * 31, "level depth=2", "go think")
    err = hub.read()
    assert err.startswith("error ") and "over" in err
    assert hub.read() == "done"


def test_commands_during_a_search_other_than_stop_ping_are_refused(hub: HubProcess) -> None:
    start(hub)
    hub.send(f"pos pos={START_BR}", "level infinite", "go think", "pos")
    err, _ = hub.until("error", timeout=5)
    assert "during a search" in err
    hub.send("stop")
    hub.until("done")


def test_quit_exits(hub: HubProcess) -> None:
    start(hub)
    hub.send("quit")
    assert hub.proc.wait(timeout=10) == 0


def test_closed_stdin_during_a_search_exits_at_once(hub: HubProcess) -> None:
    start(hub)
    hub.send(f"pos pos={START_BR}", "level infinite", "go think")
    hub.nothing_for(0.3)
    assert hub.proc.stdin is not None
    t0 = time.monotonic()
    hub.proc.stdin.close()
    assert hub.proc.wait(timeout=10) == 0
    assert time.monotonic() - t0 < 5  # loose: "at once" on a loaded machine


def test_level_nodes_bound_a_search_alone_or_with_a_time() -> None:
    assert parse_level({"nodes": "5000"}, []) == Limits(nodes=5000)
    assert parse_level({"depth": "7", "nodes": "100000"}, []) == Limits(depth=7, nodes=100000)
    assert parse_level({"nodes": "100", "move-time": "2"}, []) == Limits(nodes=100, move_time=2.0)
    both = parse_level({"depth": "3", "time": "60", "inc": "1"}, [])
    assert both == Limits(depth=3, time=60.0, inc=1.0)  # depth and clock together (was: depth alone)


def test_position_strings_round_trip_in_each_numbering() -> None:
    for variant in ("brazilian", "portuguese", "international"):
        pos = Position.start(variant)
        assert parse_position(position_text(pos), variant) == pos
    # Portuguese numbering starts at White's side: White's men are on 1-12
    assert position_text(Position.start("portuguese")) == "W" + "w" * 12 + "e" * 8 + "b" * 12


def test_more_bad_lines_each_get_one_error_and_blank_lines_none(hub: HubProcess) -> None:
    start(hub)
    # White's man on 5 takes Black's last man: the game is over after 5x14
    won = "W" + "e" * 4 + "w" + "e" * 3 + "b" + "e" * 23
    for line, words in [
        ("name=x", "must start with a command, not 'name=x'"),
        ("pos pos=X" + "e" * 32, "side to move must be W or B, not 'X'"),
        ("level depth=1.5", "level depth='1.5' must be a whole number of plies"),
        ("level move-time=-1", "level move-time='-1' must be a non-negative number"),
        ("level time=5 moves=0", "level moves='0' must be a whole number"),
        ("level nodes=0", "level nodes='0' must be a whole number of nodes"),
        ("set-param name=level", "set-param needs name= and value="),
        ("set-param name=seed value=abc", "parameter seed='abc' is not a whole number"),
        ("set-param name=tt-size value=0", "parameter tt-size='0' must be 1-4096"),
        (f'pos pos={won} moves="5x14x9 6-1"', "move '6-1' after the end of the game"),
        (f'pos pos={START_BR} moves="22x9"', "invalid move '22x9'"),
    ]:
        hub.send("", "   ", line)  # blank lines are no command: no answer
        command, values, _ = parse_line(hub.read())
        assert command == "error" and words in values["message"], (line, values)
    hub.send("ping")
    assert hub.read() == "pong"


def test_capture_moves_in_pos_and_a_forced_win_or_loss_scores_999(hub: HubProcess) -> None:
    start(hub)
    # a capture in the moves list (from x to x captured) is played: after it Black has no piece
    won = "W" + "e" * 4 + "w" + "e" * 3 + "b" + "e" * 23
    hub.send(f'pos pos={won} moves="5x14x9"', "level depth=2", "go think")
    err = hub.read()
    assert err.startswith("error ") and "over" in err, err
    assert hub.read() == "done"
    # White (two men against one) wins by force: the score says so as 999
    hub.send(f"pos pos={WON_BY_FORCE}", "level depth=3", "go think")
    done, infos = hub.until("done")
    assert parse_line(infos[-1])[1]["score"] == "999", infos
    assert done_move(done)[0] in legal_texts(Game("brazilian", parse_position(WON_BY_FORCE, "brazilian")))
    # Black's every move loses its last man: -999 for the side to move
    hub.send("pos pos=Bebeeeeeeeweeeeeeeeeeeeeeeeeeeeee", "go think")
    done, infos = hub.until("done")
    assert {parse_line(x)[1]["score"] for x in infos} == {"-999"}, infos
    assert done_move(done)[0] in {"2-6", "2-7"}


def test_parameters_set_after_init_take_effect(hub: HubProcess) -> None:
    start(hub)
    # a new level on a live engine, then a new seed and table size (a new engine): both still search
    hub.send("set-param name=level value=2", f"pos pos={START_BR}", "level depth=2", "go think")
    assert done_move(hub.until("done")[0])[0] in legal_texts(Game("brazilian"))
    hub.send("set-param name=seed value=7", "set-param name=tt-size value=2", "go think")
    assert done_move(hub.until("done")[0])[0] in legal_texts(Game("brazilian"))


def test_new_game_during_a_search_stops_it(hub: HubProcess) -> None:
    start(hub)
    hub.send(f"pos pos={START_BR}", "level infinite", "go think")
    hub.nothing_for(0.3)
    hub.send("new-game")
    # the stopped search still answers its done line, then the engine takes new commands
    hub.until("done", timeout=10)
    hub.send("level depth=2", "go think")
    assert done_move(hub.until("done")[0])[0] in legal_texts(Game("brazilian"))


def test_analyze_of_a_forced_move_waits_for_stop(hub: HubProcess) -> None:
    start(hub)
    # 18x9 is the only legal move: the search ends at once, but analysis answers only on stop
    hub.send(f'pos pos={START_BR} moves="22-18 9-14"', "go analyze")
    lines = hub.nothing_for(1.0)
    assert not [x for x in lines if x.startswith("done")], lines
    hub.send("stop")
    assert done_move(hub.until("done", timeout=10)[0])[0] == "18x9x14"


def test_quit_during_a_search_exits_at_once(hub: HubProcess) -> None:
    start(hub)
    hub.send(f"pos pos={START_BR}", "level infinite", "go think")
    hub.nothing_for(0.3)
    t0 = time.monotonic()
    hub.send("quit")
    assert hub.proc.wait(timeout=10) == 0
    assert time.monotonic() - t0 < 5  # loose: "at once" on a loaded machine


def test_a_bad_table_size_is_a_one_line_error() -> None:
    r = damas("hub", "--tt-size", "0")
    one_line_error(r, "--tt-size must be 1-4096 MB, not 0")


def _peak_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def test_a_huge_line_is_refused_in_bounded_memory_and_not_echoed(hub: HubProcess) -> None:
    """Issue 33.6: a 200 MB ``pos`` line took damas hub to 1.2 GB, and came back in the error.
    It is read in bounded pieces, answered with one short error line, and the engine goes on."""
    start(hub)
    before = _peak_kib(hub.proc.pid)
    assert hub.proc.stdin is not None
    hub.proc.stdin.write("pos pos=W")
    chunk = "x" * (1 << 20)
    for _ in range(200):
        hub.proc.stdin.write(chunk)
    hub.proc.stdin.write("\n")
    hub.proc.stdin.flush()
    err = hub.read(60)
    command, values, _ = parse_line(err)
    assert command == "error" and values["message"] == "line longer than 64 KiB: ignored", err[:200]
    hub.send("ping")
    assert hub.read() == "pong"
    grew = _peak_kib(hub.proc.pid) - before
    assert grew < 32 * 1024, f"damas hub grew by {grew // 1024} MiB"
    # a bad line under the bound is named, and what the error quotes of it is cut short
    hub.send(f"pos pos=W{'x' * 60000}")
    err = hub.read()
    assert err.startswith("error ") and len(err) < 300, err[:300]


def test_a_search_that_fails_answers_an_error_and_done_then_searches_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug in the search must not leave the GUI waiting for ``done`` forever."""
    import io

    from engine import Engine
    from engine.hub import Hub

    out = io.StringIO()
    h = Hub(out, variant="brazilian")
    real = Engine.search

    def broken(self: Engine, *args: object, **kwargs: object) -> object:
        raise IndexError("list index out of range")

    monkeypatch.setattr(Engine, "search", broken)
    for line in ("init", f"pos pos={START_BR}", "level depth=2", "go think"):
        assert h.handle(line)
    assert h.thread is not None
    h.thread.join(timeout=10)
    lines = out.getvalue().splitlines()
    assert lines[0] == "ready"
    command, values, _ = parse_line(lines[1])
    assert command == "error" and "the search failed (IndexError: list index out of range)" in values["message"]
    assert START_BR in values["message"]
    assert lines[2:] == ["done"] and not h.searching
    assert "IndexError" in capsys.readouterr().err  # the traceback, for whoever reads the engine's log

    monkeypatch.setattr(Engine, "search", real)
    assert h.handle("go think")
    h.thread.join(timeout=10)
    move, _ = done_move(out.getvalue().splitlines()[-1])
    assert move in legal_texts(Game("brazilian"))
