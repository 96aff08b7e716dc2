"""The commands a user runs by hand (issue 19.7): demo, selftest, emulator and pico-repl, each
as a subprocess, judged by what it prints and what it does to the (emulated) board."""

from __future__ import annotations

import subprocess
import sys

from board_hal.backends import BoardIO
from board_hal.layout import Layout
from firmware_bridge.bridge import PicoBoard
from rules import Game
from rules.pdn import read_pdn
from tests.conftest import damas, one_line_error, random_game, wait_until

LAYOUT = Layout("brazilian")


def test_demo_plays_the_seeded_game_it_prints() -> None:
    r = damas("demo", "--seed", "3", "--plies", "12", "--boards")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "Brazilian draughts (seed 3)"
    _start, moves = random_game("brazilian", 3, 12)  # the same policy: a capture when there is one
    pdn = r.stdout[r.stdout.index("[Event") : r.stdout.index("\nFEN ")]
    (game,) = read_pdn(pdn)
    assert [m.move for m in game.moves] == moves and game.tags["Event"] == "damas demo"
    g = Game("brazilian")
    for m in moves:
        text = g.position.move_pdn(m)
        g.push(m)
        at = lines.index(f"{g.ply}. {text}")  # --boards: each move, then the board after it
        assert "\n".join(lines[at + 1 : at + 1 + len(g.position.diagram().splitlines())]) == g.position.diagram()
    assert f"FEN {g.fen()}" in lines and lines[-1] == "game over: not yet: " + f"{len(g.legal_moves())} legal moves"
    one_line_error(damas("demo", "--variant", "chess"), "chess")


def test_selftest_on_the_simulated_board_confirms_every_square() -> None:
    for variant, count in (("brazilian", 32), ("international", 50)):
        r = damas("selftest", "--variant", variant)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("no hardware configured: the self-test runs on the simulated board")
        assert sum(1 for line in r.stdout.splitlines() if line.startswith("- put a piece on square")) == count
        assert r.stdout.splitlines()[-1] == f"{count} squares confirmed, 0 dead, 0 stuck, 0 answered elsewhere"


def host(port: str) -> tuple[PicoBoard, BoardIO]:
    board = PicoBoard(port, 8)
    return board, BoardIO(LAYOUT, board, board)


def test_the_emulator_and_pico_repl_as_a_user_runs_them() -> None:
    """damas emulator: hands typed on its standard input reach a host on its port; damas
    pico-repl stops that firmware (a host then hears nothing from it)."""
    emu = subprocess.Popen(
        [sys.executable, "-m", "damas", "emulator"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert emu.stdin is not None and emu.stdout is not None
        first = emu.stdout.readline()
        assert first.startswith("emulated Pico (8x8, brazilian squares) on ")
        port = first.rsplit(" on ", 1)[1].strip()
        assert f'[pico] port = "{port}"' in emu.stdout.readline()
        assert emu.stdout.readline().startswith("commands: lift SQ | place SQ")
        board, io = host(port)
        try:
            board.start(wait=5.0)
            assert io.link == "up" and len(io.occupied()[0]) == 24
            emu.stdin.write("lift 22\nplace 18\nbogus\nlift 99\n")
            emu.stdin.flush()
            assert emu.stdout.readline() == "unknown command: 'bogus'\n"
            assert emu.stdout.readline() == "error: no square '99' on a 8x8 board\n"
            wait_until(lambda: 18 in io.occupied()[0] and 22 not in io.occupied()[0], 5, "c3-d4 on the host")
        finally:
            io.close()
        r = damas("pico-repl", "--port", port)
        assert r.returncode == 0, r.stderr
        assert r.stdout == (
            f"asked the firmware on {port} to stop: mpremote can connect now (it restarts on the next reset)\n"
        )
        board, io = host(port)
        try:
            board.start(wait=1.5)
            assert io.link != "up" and io.occupied() == (set(), set())  # stopped: no HELLO, no snapshot
        finally:
            io.close()
        emu.stdin.write("quit\n")
        emu.stdin.flush()
        wait_until(lambda: emu.poll() is not None, 10, "the emulator to quit")
        assert emu.returncode == 0
    finally:
        if emu.poll() is None:
            emu.kill()
        emu.communicate(timeout=10)
    one_line_error(damas("pico-repl", "--port", "/nonexistent/pico"), "cannot open /nonexistent/pico")
