"""The game clock in ``damas play`` (issue 13): presses from the Pi's GPIO buttons (gpiozero
mock pins), the page's HTTP action and the board loop; the flag shown at once on the LEDs and
the page; the records (journal, termination, PDN); resume after a power cut or SIGKILL with
the clocks as shown; ``damas replay`` giving the same times; the configuration and the CLI."""

from __future__ import annotations

import asyncio
import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from board_hal.backends import BoardIO
from board_hal.buttons import ClockButtons, PressFilter
from board_hal.config import ConfigError, parse_config
from board_hal.layout import Layout
from board_hal.leds import Role
from board_hal.simulated import SimulatedBoard
from damas.board.loop import PlayApp
from damas.records.session import GameSession, export_game, load_log
from damas.records.store import Store
from damas.sentences import message
from referee import ClockKeeper, Pipeline, Referee, Report, ReportKind
from rules import Position
from rules.pdn import read_game
from tests.app.server import Server
from wording import LANGUAGES
from wording.page import CLOCK_MESSAGES, CLOCK_WORDS, TERMINATIONS

VARIANT = "brazilian"
LAYOUT = Layout(VARIANT)
START = Position.start(VARIANT)


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def new_app(
    tmp_path: Path, control: str = "1", mode: str = "tournament", buttons: ClockButtons | None = None
) -> tuple[PlayApp, SimulatedBoard, FakeClock]:
    clock = FakeClock()
    sim = SimulatedBoard(LAYOUT, occupied=START.occupied(), clock=clock)
    store = Store(tmp_path / "games.sqlite3")
    session = GameSession.start(store, VARIANT, None, mode, START.occupied(), {}, window=0.05, clock=control)
    return PlayApp(store, sim.io(), session, window=0.05, clock=clock, buttons=buttons), sim, clock


def turn(app: PlayApp) -> None:
    asyncio.run(app.turn())


def journal(app: PlayApp) -> list[dict[str, object]]:
    return list(app.store.journal(app.session.row.id))


def test_press_filter_ignores_bounce_at_press_and_release() -> None:
    f = PressFilter(0.05)
    edges = [(True, 0.0), (False, 0.001), (True, 0.002), (False, 0.3), (True, 0.301), (False, 0.302)]
    assert [f.edge(p, t) for p, t in edges] == [True, False, False, False, False, False]
    assert f.edge(True, 0.5) is True  # released for long enough: a new press


def test_gpio_buttons_press_the_clock_and_the_flag_shows_at_once(tmp_path: Path) -> None:
    factory = MockFactory()
    clock = FakeClock()
    buttons = ClockButtons(20, 21, pin_factory=factory, clock=clock)
    app, sim, _ = new_app(tmp_path, "1", buttons=buttons)
    app.clock = clock
    sim.clock = clock
    turn(app)
    state = app.state("en")
    assert state["clock"]["running"] is None and state["clock"]["white_text"] == "1:00"
    factory.pin(21).drive_low()  # black's button starts white's clock
    factory.pin(21).drive_high()
    turn(app)
    assert journal(app)[-1] == {"t": 1000.0, "action": "clock", "side": "black", "source": "button"}
    assert app.state("en")["clock"]["running"] == "white"
    version = app.version
    clock.t += 1.0
    turn(app)
    assert app.state("en")["clock"]["white_text"] == "0:59" and app.version > version  # each second pushed
    clock.t = 1060.001  # one loop turn after the deadline: the flag, on the LEDs and the page
    turn(app)
    state = app.state("en")
    assert state["clock"]["flag"] == "white" and state["result"] == "0-1"
    assert state["termination"] == "loss on time"
    white_pieces = set(START.squares(START.turn))
    assert sim.lit(Role.ERROR) == white_pieces
    row = app.store.game(app.session.row.id)
    assert (row.result, row.termination) == ("0-1", "time-forfeit")
    assert journal(app)[-1] == {"t": 1060.0, "action": "flag", "side": "white"}
    pdn = export_game(app.store, row.id)
    assert pdn.tags["TimeControl"] == "60" and pdn.result == "0-1"
    app.correct(row.id, None, "1/2-1/2")  # the arbiter enters another result: it stands
    assert app.state("en")["result"] == "1/2-1/2" and export_game(app.store, row.id).result == "1/2-1/2"
    buttons.close()
    app.store.close()


def test_page_presses_and_arbiter_actions_are_journaled(tmp_path: Path) -> None:
    app, sim, clock = new_app(tmp_path, "5+3")
    app.action({"action": "clock", "side": "black"})
    clock.t += 2
    sim.lift(22)
    clock.t += 0.5
    sim.place(18)
    turn(app)
    clock.t += 0.1
    turn(app)
    assert [m["pdn"] for m in app.state("en")["moves"]] == ["c3-d4"]
    clock.t += 0.4
    app.action({"action": "clock", "side": "white"})
    app.action({"action": "clock-pause"})
    app.action({"action": "clock-adjust", "white": "4:30", "black": 200})
    state = app.state("en")
    assert (state["clock"]["white_text"], state["clock"]["black_text"]) == ("4:30", "3:20")
    assert state["clock"]["paused"] and state["moves"][0]["took"] == "0:03"
    sources = [(e["action"], e.get("source")) for e in journal(app) if "action" in e]
    assert sources == [("clock", "page"), ("clock", "page"), ("clock-pause", "arbiter"), ("clock-adjust", "arbiter")]
    cases: list[tuple[dict[str, Any], str]] = [
        ({"action": "clock", "side": "red"}, "clock needs side"),
        ({"action": "clock-adjust"}, "needs white or black"),
        ({"action": "clock-adjust", "white": "ten"}, "white must be a time"),
        ({"action": "clock-adjust", "black": 10**9}, "black must be between 0 and 100 hours"),
        ({"action": "new-game", "clock": "5+"}, "invalid clock '5+'"),
    ]
    for bad, why in cases:
        with pytest.raises(ValueError, match=re.escape(why)):
            app.action(bad)
    app.action({"action": "new-game", "clock": "fenacef"})  # a new game with another control
    assert app.state("en")["clock"]["white_text"] == "21:00"
    app.action({"action": "new-game", "clock": "none"})
    assert app.state("en")["clock"] is None
    with pytest.raises(ValueError, match="this game has no clock"):
        app.action({"action": "clock", "side": "white"})
    app.store.close()


def test_power_cut_resumes_paused_with_the_times_shown(tmp_path: Path) -> None:
    app, sim, clock = new_app(tmp_path, "5")
    app.action({"action": "clock", "side": "black"})
    for _ in range(37):  # the loop runs: white's clock shows each second
        clock.t += 0.25
        turn(app)
    shown = app.state("en")["clock"]["white_text"]
    assert shown == "4:51"
    row = app.store.game(app.session.row.id)
    app.store.close()  # the power goes... and comes back an hour later
    store = Store(tmp_path / "games.sqlite3")
    later = clock.t + 3600
    session = GameSession.resume(store, row, now=later)
    clock.t = later
    again = PlayApp(store, sim.io(), session, clock=clock)
    face = again.state("en")["clock"]
    assert (face["white_text"], face["paused"], face["paused_by"]) == (shown, True, "power")
    clock.t += 30
    turn(again)
    assert again.state("en")["clock"]["white_text"] == shown  # no time charged while paused
    again.action({"action": "clock", "side": "white"})  # the player to move presses: it runs again
    clock.t += 2
    turn(again)
    assert again.state("en")["clock"]["white_text"] == "4:49" and not again.state("en")["clock"]["paused"]
    assert [e["action"] for e in store.journal(row.id) if "action" in e][-2:] == ["clock-pause", "clock"]
    store.close()


def test_config_clock_table() -> None:
    cfg = parse_config(
        '[clock]\ncontrol = "blitz"\nauto = false\nlow_time = 30\nbuttons = {white = 20, black = 21}\n'
        '[clock.controls]\nblitz = "5+3"\n'
    )
    assert (cfg.clock.control, cfg.clock.auto, cfg.clock.low_time) == ("blitz", False, 30.0)
    assert cfg.clock.buttons == {"white": 20, "black": 21} and cfg.clock.controls == {"blitz": "5+3"}
    for text, why in [
        ("[clock]\ncontrol = 5\n", "clock.control must be a time control"),
        ("[clock]\nbuttons = {white = 20}\n", "clock.buttons must be {white = pin, black = pin}"),
        ("[clock]\nbuttons = {white = 20, black = 20}\n", "GPIO 20 is used twice"),
        ("[clock]\nbuttons = {white = 40, black = 20}\n", "GPIO 40 does not exist"),
        ("[clock]\nspeed = 1\n", "unknown setting clock.speed"),
        (
            '[board]\nbackend = "gpio"\n[gpio]\nrows = [2,3,4,5,6,7,8,9]\ncolumns = [10,11,12,13,14,15,16,17]\n'
            "[clock]\nbuttons = {white = 9, black = 21}\n",
            "clock.buttons.white: GPIO 9 is used by the board",
        ),
    ]:
        with pytest.raises(ConfigError, match=why.replace("{", r"\{").replace("}", r"\}")):
            parse_config(text, "c.toml")


def run_damas(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "damas", *args], capture_output=True, text=True, timeout=60)


def test_bad_clock_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    r = run_damas("play", "--db", str(tmp_path / "g.sqlite3"), "--no-browser", "--port", "8999", "--clock", "40/90,5+")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        "damas: error: --clock: invalid clock '40/90,5+': cannot read '5+' "
        "(e.g. fenacef, 21, 5+3, 5d3, 5b3, 40/90,30+30, none)"
    ]
    config = tmp_path / "c.toml"
    config.write_text('[clock]\ncontrol = "slow"\n')
    r = run_damas("play", "--db", str(tmp_path / "g.sqlite3"), "--no-browser", "--config", str(config))
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert f"{config}: clock.control: invalid clock 'slow'" in r.stderr


def test_sigkill_resume_and_replay_give_the_times_shown(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server = Server(db, "--clock", "10+2", "--mode", "tournament").start()
    try:
        server.post("/api/action", {"action": "clock", "side": "black"})
        server.move(22, 18)
        server.post("/api/action", {"action": "clock", "side": "white"})
        server.move(11, 15)
        server.post("/api/action", {"action": "clock", "side": "black"})
        live = server.wait_for(lambda s: s["clock"]["running"] == "white" and len(s["moves"]) == 2)
        time.sleep(1.2)  # white's clock runs on
        shown = server.get("/api/state")["clock"]["white_text"]
        read_at = time.monotonic()
        server.kill()
        dying = time.monotonic() - read_at  # the clock ran on until the kill (long on a loaded machine)
    finally:
        if server.proc is not None:
            server.stop()
    time.sleep(1.5)  # the outage
    again = Server(db, "--resume").start()
    try:
        state = again.get("/api/state")
        face = state["clock"]
        assert face["paused_by"] == "power" and face["running"] == "white"
        # what the clock showed when the program died: the last time read, or the seconds after it
        seconds = [int(x.split(":")[0]) * 60 + int(x.split(":")[1]) for x in (shown, face["white_text"])]
        assert seconds[0] - 1 - math.ceil(dying) <= seconds[1] <= seconds[0]
        time.sleep(1.1)
        assert again.get("/api/state")["clock"]["white_text"] == face["white_text"]  # paused
        moves = [m["clock"] for m in state["moves"]]
        assert moves == [m["clock"] for m in live["moves"]]
        game = state["game"]
    finally:
        again.stop()
    # the journal replayed gives exactly the times the page showed (to the 0.1 ms unit)
    with Store(db) as store:
        row = store.game(game)
        _header, events, _problem = load_log(store, row)
        ref = Referee(row.variant, row.fen, mode=row.mode, board=row.header.get("board"))
        keeper = ClockKeeper.from_header(row.header, ref)
        Pipeline(ref, clock=keeper).run(events)
    assert keeper is not None and [s.to_json() for s in keeper.stamps] == moves
    r = run_damas("replay", "--game", str(game), "--db", str(db), "--json")
    assert r.returncode == 0, r.stderr
    verdicts = [json.loads(line) for line in r.stdout.splitlines()]
    assert [v["kind"] for v in verdicts if v["type"] == "report"][-1] == "clock-paused"
    out = tmp_path / "replay.pdn"
    r = run_damas("replay", "--game", str(game), "--db", str(db), "--pdn", str(out))
    assert r.returncode == 0, r.stderr
    exported = run_damas("export", str(game), "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    clocks = [pm.clock for pm in read_game(out.read_text()).moves]
    assert clocks == [pm.clock for pm in read_game(exported.stdout).moves]
    assert [(c.white, c.black) for c in clocks if c] == [(math.ceil(m["white"]), math.ceil(m["black"])) for m in moves]


def test_every_language_has_every_clock_word() -> None:
    for lang in LANGUAGES:
        assert set(CLOCK_WORDS[lang]) == set(CLOCK_WORDS["en"]), lang
        assert "time-forfeit" in TERMINATIONS[lang], lang
    kinds = {k.value for k in ReportKind if k.value.startswith(("clock", "flag"))}
    for lang in LANGUAGES:
        if lang != "en":  # English: the referee's own sentences
            assert set(CLOCK_MESSAGES[lang]) == kinds, lang
    report = Report(ReportKind.CLOCK_WRONG_SIDE, (), "", 0.0, params={"side": "white"})
    assert (
        message(report, "pt-PT", lambda q: "")
        == "As brancas carregaram no relógio, mas é o relógio das pretas que corre"
    )
    brazilian = "As brancas apertaram o relógio, mas é o relógio das pretas que está correndo"
    assert message(report, "pt-BR", lambda q: "") == brazilian
    assert message(report, "pt", lambda q: "") == brazilian  # pt is Brazilian Portuguese


def test_pico_buttons_press_the_clock_in_damas_play(tmp_path: Path) -> None:
    from firmware_bridge.bridge import PicoBoard
    from firmware_bridge.emulator import Emulator

    cells = {LAYOUT.cell_of(q) for q in START.occupied()}
    with Emulator(8, heartbeat_ms=200, cells=cells) as emu:
        board = PicoBoard(emu.port, 8, clock=time.time)
        io = BoardIO(LAYOUT, board, board)
        io.start()
        store = Store(tmp_path / "games.sqlite3")
        session = GameSession.start(store, VARIANT, None, "casual", START.occupied(), {}, clock="5")
        app = PlayApp(store, io, session)
        try:
            emu.press("black")
            deadline = time.monotonic() + 5
            while app.state("en")["clock"]["running"] != "white" and time.monotonic() < deadline:
                turn(app)
                time.sleep(0.02)
            assert app.state("en")["clock"]["running"] == "white"
            presses = [e for e in journal(app) if e.get("action") == "clock"]
            assert [(e["side"], e["source"]) for e in presses] == [("black", "pico")]
        finally:
            io.close()
            store.close()
