"""Playing the computer on the board (issue 12.4): a whole game on the simulated board, the
computer's engine (our ``damas hub``, in its own process) thinking off the board loop, the
simulated hands executing its moves as the LEDs show them, and one execution deliberately
wrong: reported, nothing recorded, restored, then played right."""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
from pathlib import Path

import pytest

from board_hal.layout import Layout
from board_hal.leds import Role
from board_hal.simulated import SimulatedBoard
from damas.board.loop import PlayApp
from damas.computer.opponent import EngineSettings, Opponent
from damas.computer.player import Computer
from damas.records.session import GameSession, export_game
from damas.records.store import Store
from rules import Color, Move, Position

VARIANT = "brazilian"
LAYOUT = Layout(VARIANT)
WINDOW = 0.05
SETTLE = 1.0


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def turn(app: PlayApp) -> None:
    asyncio.run(app.turn())


def new_app(tmp_path: Path, clock: FakeClock, settings: EngineSettings, fen: str | None = None) -> PlayApp:
    start = Position.from_fen(fen, VARIANT) if fen else Position.start(VARIANT)
    sim = SimulatedBoard(LAYOUT, occupied=start.occupied(), clock=clock)
    store = Store(tmp_path / "games.sqlite3")
    session = GameSession.start(store, VARIANT, fen, "casual", start.occupied(), {}, window=WINDOW)
    return PlayApp(store, sim.io(), session, window=WINDOW, clock=clock, engine=settings)


def hands(app: PlayApp, clock: FakeClock, op: str, square: int) -> None:
    """The simulated hands act, and the board loop turns once the debounce window is over."""
    sim = app.sim
    assert sim is not None
    (sim.place if op == "place" else sim.lift)(square)
    turn(app)
    clock.t += WINDOW + 0.001
    turn(app)


def execute(app: PlayApp, clock: FakeClock, move: Move) -> None:
    """Lift the piece, touch down on every landing of its route, land, take the captured pieces off."""
    route = app.session.referee.position.routes(move)[0]
    hands(app, clock, "lift", move.from_square)
    for sq in route.path[1:-1]:
        hands(app, clock, "place", sq)
        hands(app, clock, "lift", sq)
    hands(app, clock, "place", move.to_square)
    for sq in move.captured:
        hands(app, clock, "lift", sq)
    clock.t += 0.4  # a king that stops where it could slide on is read after the grace time
    turn(app)


def lit(app: PlayApp) -> dict[int, Role]:
    sim = app.sim
    assert sim is not None
    return {s: sim.leds_now[LAYOUT.cell_of(s)] for s in sim.lit()}


def shows(pos: Position, move: Move) -> dict[int, Role]:
    """How the computer's move is lit: origin, its route's landings, end, the pieces to remove."""
    route = pos.routes(move)[0]
    out = {move.from_square: Role.FROM, move.to_square: Role.TO}
    out.update({sq: Role.PATH for sq in route.path[1:-1]})
    out.update({sq: Role.REMOVE for sq in move.captured})
    return out


def wait_for_computer(app: PlayApp, clock: FakeClock, timeout: float = 60.0) -> Move:
    """Turn the board loop (time passing a little each turn) until the computer's move is known."""
    deadline = time.monotonic() + timeout
    thinking_seen = False
    while (move := app.session.referee.expected()) is None:
        thinking_seen = thinking_seen or bool(app.state("en")["computer"]["thinking"])
        assert time.monotonic() < deadline, f"no move from the computer: {app.computer.error}"
        time.sleep(0.005)
        clock.t += 0.01
        turn(app)
    return move


def test_a_whole_game_against_the_computer(tmp_path: Path) -> None:
    clock = FakeClock()
    app = new_app(tmp_path, clock, EngineSettings(level=2, tt_size=4, seed=5))
    rng = random.Random(12)
    wrong = None  # (the position, the computer's move, the move the hands played instead)
    captures = 0
    try:
        turn(app)
        app.start_computer(Color.BLACK, 2)
        turn(app)
        ref = app.session.referee
        while not ref.ended:
            assert ref.game.ply < 300
            pos = ref.position
            ply = ref.game.ply
            if pos.turn is Color.WHITE:  # the player: any legal move
                move = rng.choice(list(pos.legal_moves))
                execute(app, clock, move)
                assert ref.game.ply == ply + 1 and ref.game.move_stack[-1] == move
                continue
            move = wait_for_computer(app, clock)
            assert move in pos.legal_moves
            turn(app)
            assert lit(app) == shows(pos, move)  # the LEDs show the computer's move...
            state = app.state("en")
            assert state["computer"]["move"] == pos.pdn(move)  # ...and so does the page
            assert state["leds"] == {str(q): r.value for q, r in shows(pos, move).items()}
            others = [m for m in pos.legal_moves if m.from_square != move.from_square]
            if wrong is None and ply >= 6 and not pos.has_captures() and others:
                other = others[0]
                wrong = (pos, move, other)
                # the hands play another move: it is not recorded, and reported once held
                hands(app, clock, "lift", other.from_square)
                hands(app, clock, "place", other.to_square)
                clock.t += SETTLE
                turn(app)
                assert ref.game.ply == ply
                report = ref.report
                assert report is not None and report.kind.value == "computer-move"
                assert report.message == (
                    f"play the computer's move {pos.pdn(move)}: put the piece back on "
                    f"{pos.square_text(other.from_square)} and take the piece off {pos.square_text(other.to_square)}"
                )
                assert lit(app) == {other.from_square: Role.MISSING, other.to_square: Role.EXTRA}
                assert app.state("en")["active"]["kind"] == "computer-move"
                # restored: the computer's move is lit again, and then played
                hands(app, clock, "lift", other.to_square)
                hands(app, clock, "place", other.from_square)
                assert ref.report is None and lit(app) == shows(pos, move)
            execute(app, clock, move)
            assert ref.game.ply == ply + 1 and ref.game.move_stack[-1] == move
            captures += bool(move.captured)
        assert wrong is not None, "no position for the deliberately wrong execution"
        assert captures > 0
        outcome = ref.game.outcome()
        assert outcome is not None
        # the record: every move, and the journal replays to the same game (the computer's moves in it)
        journal = [json.loads(text) for _seq, text in app.store.journal_rows(app.session.row.id)]
        computer_moves = [e["move"] for e in journal if e.get("action") == "computer-move"]
        assert len(computer_moves) == sum(1 for p, _m in ref.game.steps() if p.turn is Color.BLACK)
        assert {"t": journal[0]["t"], "action": "computer", "side": "black", "level": 2} in journal
        replayed = export_game(app.store, app.session.row.id)
        assert [m.move for m in replayed.moves] == ref.game.move_stack
        reports = app.state("en")["reports"]  # the "restored" that ended the report is shown on it
        assert any(r["kind"] == "computer-move" and (r["resolved"] or {}).get("kind") == "restored" for r in reports)
    finally:
        app.computer.close()
        app.store.close()


class Failing(Opponent):
    """An engine whose process died: the failure is the first and only answer."""

    def __init__(self) -> None:
        super().__init__()
        self.name = "broken"

    def ask(self, game: object, limits: object, *, level: int | None = None) -> int:
        from damas.computer.opponent import Answer

        self.failed = "the engine (broken) exited with status 139 after 'go think': segmentation fault"
        self._answers.put(Answer(self._next_ticket(), None, error=self.failed))
        return self._tickets

    def cancel(self) -> None:
        pass

    def close(self) -> None:
        pass


def test_an_engine_that_fails_hands_the_game_to_the_players(tmp_path: Path) -> None:
    clock = FakeClock()
    app = new_app(tmp_path, clock, EngineSettings(level=3))
    app.computer = Computer(app.engine_settings, VARIANT, opener=lambda v, s, level: Failing())
    try:
        turn(app)
        app.start_computer(Color.WHITE, 3)  # the computer plays first: it fails at once
        for _ in range(3):
            clock.t += 0.02
            turn(app)
        ref = app.session.referee
        assert ref.computer is None  # the players go on
        state = app.state("en")
        assert state["computer"]["error"] == (
            "the engine (broken) exited with status 139 after 'go think': segmentation fault. "
            "The game goes on between the players."
        )
        assert state["computer"]["side"] is None
        move = next(iter(ref.position.legal_moves))
        execute(app, clock, move)  # white's move, made by a person now
        assert ref.game.move_stack == [move]
        journal = [json.loads(text) for _seq, text in app.store.journal_rows(app.session.row.id)]
        last = [e for e in journal if e.get("action") == "computer"][-1]
        assert {k: v for k, v in last.items() if k != "t"} == {"action": "computer"}
    finally:
        app.store.close()


def test_a_hint_lights_the_engines_move_for_the_player(tmp_path: Path) -> None:
    clock = FakeClock()
    app = new_app(tmp_path, clock, EngineSettings(level=3, tt_size=4))
    try:
        turn(app)
        app.action({"action": "hint"})
        deadline = time.monotonic() + 60
        ref = app.session.referee
        while app.computer.hint_move(ref) is None:
            assert time.monotonic() < deadline and app.computer.error is None
            time.sleep(0.01)
            turn(app)
        hint = app.computer.hint_move(ref)
        assert hint is not None and hint in ref.position.legal_moves
        route = ref.position.routes(hint)[0]
        # (issue 28) a suggested move of its own: its piece and where it goes told apart, not "can go"
        assert lit(app) == {
            **{sq: Role.PATH for sq in route.path[1:-1]},
            route.path[-1]: Role.SUGGEST_TO,
            route.path[0]: Role.SUGGEST_FROM,
        }
        assert app.state("en")["computer"]["hint"] == ref.position.pdn(hint)
        execute(app, clock, hint)  # played: the hint is gone, the last move is lit
        assert app.computer.hint_move(ref) is None
        assert lit(app) == {hint.from_square: Role.LAST, hint.to_square: Role.LAST}
        # tournament games give no hints (unless [engine] hints = "always")
        app.new_game(mode="tournament")
        try:
            app.action({"action": "hint"})
        except ValueError as exc:
            assert str(exc) == 'hints are for casual games (set [engine] hints = "always" to allow them)'
        else:
            raise AssertionError("a hint in a tournament game")
    finally:
        app.computer.close()
        app.store.close()


def test_damas_play_against_the_computer_from_the_command_line(tmp_path: Path) -> None:
    """``damas play --opponent engine --side white --level 1``: the computer opens; after a restart
    the resumed game still has the computer on White."""
    from tests.app.server import Server

    db = tmp_path / "games.sqlite3"
    args = ("--variant", "portuguese", "--black", "Rui", "--opponent", "engine", "--side", "white", "--level", "1")
    server = Server(db, *args).start()
    try:
        state = server.wait_for(lambda s: s["computer"]["move"] is not None, timeout=60)
        assert state["computer"]["side"] == "white" and state["computer"]["level"] == 1
        assert state["tags"]["White"].endswith(" (level 1)") and state["tags"]["Black"] == "Rui"
        start = Position.start("portuguese")
        move = start.parse_pdn(state["computer"]["move"])
        assert state["leds"] == {str(q): r.value for q, r in shows(start, move).items()}
        server.move(move.from_square, move.to_square)
        server.wait_for(lambda s: len(s["moves"]) == 1 and s["computer"]["move"] is None)
    finally:
        server.stop()
    server = Server(db, "--variant", "portuguese", "--resume").start()
    try:
        state = server.get("/api/state")
        assert state["computer"]["side"] == "white" and state["turn"] == "black" and len(state["moves"]) == 1
        reply = next(iter(Position.start("portuguese").apply(move).legal_moves))
        server.move(reply.from_square, reply.to_square)
        state = server.wait_for(lambda s: s["computer"]["move"] is not None, timeout=60)
        assert len(state["moves"]) == 2 and state["turn"] == "white"
    finally:
        server.stop()


def test_a_bad_engine_setting_is_one_line(tmp_path: Path) -> None:
    from tests.conftest import damas, one_line_error

    config = tmp_path / "board.toml"
    config.write_text("[engine]\nlevel = 11\n", encoding="utf-8")
    r = damas("play", "--config", str(config), "--db", str(tmp_path / "g.sqlite3"), "--no-browser")
    one_line_error(r, f"{config}: engine.level must be a level 1-10, not 11")
    r = damas("play", "--move-time", "0", "--db", str(tmp_path / "g.sqlite3"), "--no-browser")
    one_line_error(r, "--move-time must be 0.05-600 seconds, not 0")


def test_the_page_shows_the_analysis_in_the_move_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """White's a5-b6 gives a man away (c5xa7): the analysis marks it, with the better f6-e7."""
    from engine import Limits
    from tests.app.test_browser_live import BLUNDER

    # a fixed depth, not the move time: the depth 0.2 s reaches varies with the machine's load
    monkeypatch.setattr("damas.board.loop.analysis_limits", lambda settings: Limits(depth=12))
    clock = FakeClock()
    app = new_app(tmp_path, clock, EngineSettings(move_time=0.2, tt_size=4), fen=BLUNDER)
    try:
        turn(app)
        pos = app.session.referee.position
        blunder = pos.parse_pdn("a5-b6")
        execute(app, clock, blunder)
        execute(app, clock, pos.apply(blunder).parse_pdn("c5xa7"))
        app.action({"action": "analyze"})
        deadline = time.monotonic() + 120
        while not (state := app.state("en"))["analysis"]["finished"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
            turn(app)
        first = state["moves"][0]
        better = first["better"]
        assert better == "f6-e7"
        marked = {"pdn": "a5-b6", "white": True, "mark": "?", "better": better, "kind": "material"}
        assert {k: first.get(k) for k in marked} == marked  # (the entry also has the page's fen, path, captured)
        assert "mark" not in state["moves"][1]
        assert state["analysis"] == {
            "done": 3,
            "total": 3,
            "finished": True,
            "error": None,
            "lines": [f"1. a5-b6? loses material: better 1. {better}"],
            "curve": state["analysis"]["curve"],
            "marked": {1: "?"},
        }
        start, played, end = state["analysis"]["curve"]  # White's side: the man given away shows
        assert played < start - 80 and end < start - 80
        assert app.state("pt")["analysis"]["lines"] == [f"1. a5-b6? perde material: melhor 1. {better}"]
    finally:
        app.close()
        app.store.close()


def test_the_computer_reports_in_portuguese() -> None:
    from damas.sentences import message
    from referee import Report, ReportKind

    def names(squares: tuple[int, ...]) -> str:
        return ", ".join(map(str, squares))

    wrong = Report(ReportKind.COMPUTER_MOVE, (9, 13), "", missing=(9,), extra=(13,), params={"move": "22-17"})
    assert message(wrong, "pt-PT", names) == "Faça o lance do computador 22-17: devolva as peças a 9; retire as de 13"
    assert message(wrong, "pt", names) == "Faça o lance do computador 22-17: devolva as peças para 9; retire as de 13"
    early = Report(ReportKind.COMPUTER_MOVE, (9, 13), "", missing=(9,), extra=(13,), params={"move": None})
    assert message(early, "pt-PT", names) == "Espere pelo lance do computador: devolva as peças a 9; retire as de 13"
    assert message(early, "pt-BR", names) == "Espere o lance do computador: devolva as peças para 9; retire as de 13"


def test_an_external_hub_engine_plays_the_computers_side(tmp_path: Path) -> None:
    """``[engine] command``: any Hub engine (here our own, started as an external program)."""
    import shlex
    import sys

    clock = FakeClock()
    command = shlex.join([sys.executable, "-m", "damas", "hub", "--tt-size", "4"])
    app = new_app(tmp_path, clock, EngineSettings(command=command, level=1))
    try:
        turn(app)
        app.start_computer(Color.WHITE, 1)
        move = wait_for_computer(app, clock)
        assert move in Position.start(VARIANT).legal_moves
        assert app.state("en")["computer"]["name"].startswith("damas ")  # its id line, once it has started
        assert lit(app) == shows(Position.start(VARIANT), move)
    finally:
        app.close()
        app.store.close()


def test_the_computers_strength_chosen_by_time(tmp_path: Path) -> None:
    """The new-game form's "3 s a move" (``move_time``): the engine is asked for that time a move
    (what the app sends it, logged on its way), the computer's tag says so; hints keep their own."""
    import shlex
    import sys

    clock = FakeClock()
    log = tmp_path / "to-engine.txt"
    engine = f"tee {shlex.quote(str(log))} | {shlex.quote(sys.executable)} -m damas hub --tt-size 4"
    app = new_app(tmp_path, clock, EngineSettings(command=shlex.join(["sh", "-c", engine])))
    try:
        turn(app)
        with pytest.raises(ValueError, match=r"^move_time must be seconds a move, 0\.05-600, not 0$"):
            app.action({"action": "new-game", "opponent": "engine", "side": "white", "move_time": 0})
        app.action({"action": "new-game", "opponent": "engine", "side": "white", "level": 10, "move_time": 0.3})
        move = wait_for_computer(app, clock)
        assert move in Position.start(VARIANT).legal_moves
        assert re.search(r"^level move.time=0\.3$", log.read_text(), re.M), log.read_text()
        state = app.state("en")
        assert state["computer"]["move_time"] == 0.3 and state["tags"]["White"].endswith(" (0.3 s a move)")
        assert app.engine_settings.move_time is None  # (the hints and the analysis keep their times)
    finally:
        app.close()
        app.store.close()


def test_the_strength_chosen_by_time_is_journalled_and_kept_on_a_resume(tmp_path: Path) -> None:
    """ "0.3 s a move" is in the game's journal (its ``computer`` line): the game resumed after a
    restart (the configured strength: a level) asks the engine for 0.3 s a move again, the page
    says so, and the replay of the copy knows it."""
    import shlex
    import sys

    from referee.log import parse_log

    def engine(log: Path) -> EngineSettings:
        command = f"tee {shlex.quote(str(log))} | {shlex.quote(sys.executable)} -m damas hub --tt-size 4"
        return EngineSettings(command=shlex.join(["sh", "-c", command]))

    clock = FakeClock()
    app = new_app(tmp_path, clock, engine(tmp_path / "first.txt"))
    try:
        turn(app)
        app.action({"action": "new-game", "opponent": "engine", "side": "white", "level": 10, "move_time": 0.3})
        game = app.session.row.id
        move = wait_for_computer(app, clock)
        execute(app, clock, move)
        assert len(app.session.referee.game.steps()) == 1
    finally:
        app.close()
        app.store.close()
    copy = (tmp_path / "games.sqlite3.journals" / f"{game}.jsonl").read_text()
    _header, events = parse_log(copy.splitlines())
    said = [e for e in events if getattr(e, "action", None) == "computer"]
    assert [(e.level, getattr(e, "move_time", None)) for e in said] == [(10, 0.3)]

    store = Store(tmp_path / "games.sqlite3")
    session = GameSession.resume(store, store.game(game), window=WINDOW)
    pos = session.referee.position
    sim = SimulatedBoard(LAYOUT, occupied=pos.occupied(), clock=clock)
    log = tmp_path / "resumed.txt"
    app = PlayApp(store, sim.io(), session, window=WINDOW, clock=clock, engine=engine(log))
    try:
        turn(app)
        assert app.state("en")["computer"]["move_time"] == 0.3  # (the configured strength: level 3)
        execute(app, clock, next(iter(pos.legal_moves)))  # Black's move: the computer's turn again
        wait_for_computer(app, clock)
        assert re.search(r"^level move.time=0\.3$", log.read_text(), re.M), log.read_text()
    finally:
        app.close()
        store.close()
