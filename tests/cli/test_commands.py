"""The commands a user runs by hand (issue 19.7): demo, selftest, emulator and pico-repl, each
as a subprocess, judged by what it prints and what it does to the (emulated) board."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from board_hal.backends import BoardIO
from board_hal.layout import Layout, cell_name
from firmware_bridge.bridge import PicoBoard
from rules import Game
from rules.pdn import read_pdn
from tests.bridge.test_emulator import start_cells
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
        text = g.position.pdn(m)
        g.push(m)
        at = lines.index(f"{g.ply}. {text}")  # --boards: each move, then the board after it
        assert "\n".join(lines[at + 1 : at + 1 + len(g.position.diagram().splitlines())]) == g.position.diagram()
    assert f"FEN {g.fen()}" in lines and lines[-1] == "game over: not yet: " + f"{len(g.legal_moves)} legal moves"
    one_line_error(damas("demo", "--variant", "chess"), "chess")


def test_selftest_on_the_simulated_board_confirms_every_square() -> None:
    for variant, count in (("brazilian", 32), ("international", 50)):
        r = damas("selftest", "--variant", variant)
        assert r.returncode == 0, r.stderr
        assert r.stdout.startswith("no hardware configured: the self-test runs on the simulated board")
        # a piece on every square (a white man on a board that senses colour, after its placement check)
        asked = ("- put a piece on square", "- put a white man on square")
        assert sum(1 for line in r.stdout.splitlines() if line.startswith(asked)) in (count, count + 1)
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


def test_selftest_on_the_emulated_pico_finds_a_dead_square(tmp_path: Path) -> None:
    """damas selftest on a real (emulated) board, answered as a person would: the board is
    cleared, the LED sweep confirmed, each square's piece put down and taken off when asked,
    except square 5, whose sensor is dead: one line names it, and the exit status is 1. The
    finding is kept beside the game database for damas play (board-health.json); the sensors
    found broken in play that it checked are no longer kept as such (sensors-found.json): square
    9's answered (sound), square 5's is in board-health.json now."""
    from board_hal.health import FoundInPlay
    from firmware_bridge.emulator import Emulator

    dead = 5
    found = {LAYOUT.cell_of(sq): "2026-11-26 19:00" for sq in (dead, 9)}
    FoundInPlay(8, found).save(tmp_path / "sensors-found.json")
    with Emulator(8, heartbeat_ms=100, cells=start_cells()) as emu:
        cfg = tmp_path / "pico.toml"
        cfg.write_text(f'[board]\nbackend = "pico"\n[pico]\nport = "{emu.port}"\n')
        proc = subprocess.Popen(
            [
                *(sys.executable, "-m", "damas", "selftest", "--config", str(cfg), "--timeout", "1.5"),
                *("--db", str(tmp_path / "games.sqlite3")),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},  # each prompt as soon as it is asked, as on a terminal
        )
        out = b""
        try:
            assert proc.stdin is not None and proc.stdout is not None

            def expect(text: str) -> str:
                nonlocal out
                while text.encode() not in out:
                    chunk = os.read(proc.stdout.fileno(), 4096)  # type: ignore[union-attr]
                    assert chunk, out.decode()
                    out += chunk
                head, _, out = out.partition(text.encode())
                return head.decode()

            def answer(text: str) -> None:
                proc.stdin.write(text.encode())  # type: ignore[union-attr]
                proc.stdin.flush()  # type: ignore[union-attr]

            expect("- take every piece off the board\n")
            emu.set_cells(set())
            expect("press Enter when the board is empty ")
            # a person's pause before Enter: the subprocess's view of the board cannot be waited on
            # from here; the firmware reports the cleared board within a heartbeat (0.1 s)
            time.sleep(0.5)
            answer("\n")
            expect("(y/n)\n")
            expect("answer y or n: ")
            answer("y\n")
            for sq in LAYOUT.geometry.squares():
                expect(f"- put a piece on square {sq} ")
                if sq == dead:
                    continue
                emu.place(LAYOUT.cell_of(sq))
                expect(f"- take the piece off square {sq} ")
                emu.lift(LAYOUT.cell_of(sq))
            rest = expect("31 squares confirmed, 1 dead, 0 stuck, 0 answered elsewhere\n")
            assert proc.wait(10) == 1
        finally:
            if proc.poll() is None:
                proc.kill()
            out += proc.communicate(timeout=10)[0] or b""
    assert f"square {dead}" in rest and "Traceback" not in rest, rest
    kept = json.loads((tmp_path / "board-health.json").read_text())
    assert kept["sensors"] == [cell_name(LAYOUT.cell_of(dead))] and kept["leds"] == [] and kept["size"] == 8
    assert json.loads((tmp_path / "sensors-found.json").read_text())["sensors"] == {}
    names = ", ".join(cell_name(c) for c in sorted(found))
    assert f"no longer played around as found broken in play: {names}" in rest + out.decode()
