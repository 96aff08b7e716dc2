"""The live board on a board that senses colour and crowns: the journal is of format 2 (what
the board senses, its pieces, the piece of every place), the page shows the colour report as
the active one, the LEDs light it, and the replay of the journal says the same."""

from __future__ import annotations

import asyncio
import json
import urllib.error
from pathlib import Path
from typing import Any

from board_hal.layout import Layout
from board_hal.leds import Role
from board_hal.simulated import ENV_SENSES, SimulatedBoard
from board_hal.squares import Sensing, SquareState
from damas.board.loop import PlayApp, board_pieces
from damas.records.session import GameSession, export_game
from damas.records.store import Store
from referee import ColourReferee, Referee, parse_log
from rules import Position
from tests.app.test_live_leds import FakeClock
from tests.conftest import damas

VARIANT = "brazilian"
LAYOUT = Layout(VARIANT)
GEO = Position.start(VARIANT).geometry


def sq(name: str) -> int:
    return GEO.parse_square(name)


def new_app(tmp_path: Path, sim: SimulatedBoard, clock: FakeClock) -> PlayApp:
    store = Store(tmp_path / "games.sqlite3")
    io = sim.io()
    squares, _cells = io.occupied()
    senses, pieces = board_pieces(io)
    session = GameSession.start(store, VARIANT, None, "casual", squares, {}, window=0.05, senses=senses, pieces=pieces)
    return PlayApp(store, io, session, window=0.05, clock=clock)


def step(app: PlayApp, clock: FakeClock, seconds: float = 0.06) -> None:
    asyncio.run(app.turn())
    clock.t += seconds
    asyncio.run(app.turn())


def test_a_wrong_piece_is_shown_lit_journalled_and_replayed(tmp_path: Path) -> None:
    clock = FakeClock()
    sim = SimulatedBoard(LAYOUT, senses=Sensing.CROWN, clock=clock)
    app = new_app(tmp_path, sim, clock)
    assert isinstance(app.session.referee, ColourReferee)
    sim.lift(sq("c3"))
    step(app, clock)
    sim.place(sq("d4"), piece=SquareState.BLACK_MAN)  # a black man put down for White's c3-d4
    step(app, clock)
    clock.t += 1.1  # the board still for the settle time
    step(app, clock)
    state = app.state("en")
    assert [m["pdn"] for m in state["moves"]] == ["c3-d4"]
    assert state["active"]["kind"] == "wrong-piece"
    assert state["active"]["message"].startswith("a black man stands on d4, where the game has a white man")
    assert sim.lit(Role.ERROR) == {sq("d4")}
    assert app.state("pt-BR")["active"]["message"] == "Há uma peça da outra cor em d4: coloque ali a peça do jogo"
    # put right
    sim.lift(sq("d4"))
    step(app, clock)
    sim.place(sq("d4"), piece=SquareState.WHITE_MAN)
    step(app, clock)
    assert app.state("en")["active"] is None and sim.lit(Role.ERROR) == set()
    # the journal: format 3 (format 2's colour header with the game's uid), the pieces, every place's piece
    row = app.session.row
    lines = [json.dumps(e) for e in app.store.journal(row.id)]
    header = app.store.game(row.id).header
    assert header["format"] == 3 and header["senses"] == "crown" and len(header["pieces"]["w"]) == 12
    assert header["uid"] == f"{app.store.database_id()}-{row.id}"
    assert any('"piece": "b"' in line for line in lines)
    h, events = parse_log([json.dumps(header), *lines])
    assert h.senses == "crown"
    assert [e.piece for e in events if getattr(e, "key", None) == sq("d4")] == [
        SquareState.BLACK_MAN,
        SquareState.EMPTY,
        SquareState.WHITE_MAN,
    ]
    assert len(export_game(app.store, row.id).moves) == 1  # the export replays it through the colour referee
    app.store.close()


def test_a_presence_board_journals_no_colour_and_uses_the_presence_referee(tmp_path: Path) -> None:
    clock = FakeClock()
    sim = SimulatedBoard(LAYOUT, senses=Sensing.PRESENCE, clock=clock)
    app = new_app(tmp_path, sim, clock)
    assert type(app.session.referee) is Referee
    header = app.store.game(app.session.row.id).header
    assert header["format"] == 3 and "senses" not in header and "pieces" not in header  # (3: with its uid)
    app.store.close()


def test_damas_replay_reads_a_colour_log(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    c3, d4 = sq("c3"), sq("d4")
    log.write_text(
        "\n".join(
            json.dumps(x)
            for x in [
                {"format": 2, "variant": VARIANT, "senses": "crown"},
                {"t": 1.0, "square": c3, "event": "lift"},
                {"t": 1.5, "square": d4, "event": "place", "piece": "b"},
            ]
        )
        + "\n"
    )
    r = damas("replay", str(log))
    assert r.returncode == 0, r.stderr
    assert "c3-d4" in r.stdout and "wrong-piece" in r.stdout
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"format": 2, "variant": VARIANT, "senses": "smell"}) + "\n")
    r = damas("replay", str(bad))
    assert r.returncode == 2 and r.stderr.strip().endswith(
        "a format-2 log needs 'senses': 'colour' or 'crown', not 'smell'"
    )


def test_a_game_begun_as_presence_only_journals_no_pieces(tmp_path: Path) -> None:
    """The board said nothing about colour when the game began (format 1): pieces its events
    carry later (a colour firmware answering late) are not written, so the journal stays readable."""
    clock = FakeClock()
    sim = SimulatedBoard(LAYOUT, senses=Sensing.CROWN, clock=clock)
    store = Store(tmp_path / "games.sqlite3")
    squares, _cells = sim.io().occupied()
    session = GameSession.start(store, VARIANT, None, "casual", squares, {}, window=0.05)
    app = PlayApp(store, sim.io(), session, window=0.05, clock=clock)
    sim.lift(sq("c3"))
    step(app, clock)
    sim.place(sq("d4"))
    step(app, clock)
    lines = [json.dumps(e) for e in store.journal(session.row.id)]
    assert lines and not any("piece" in line for line in lines)
    header = store.game(session.row.id).header
    parse_log([json.dumps(header), *lines])  # readable as format 1
    store.close()


def test_the_page_draws_the_piece_a_colour_board_reads_where_it_is_not_the_game_s(browser: Any, tmp_path: Path) -> None:
    """`damas play` on a simulated board that senses colour and crowns, seen in Chromium: a black
    man put down for White's c3-d4 is drawn as a black man, marked, its square lit as an
    error, said to screen readers, and the report says so; put right, the mark goes
    (test-output/page-colour-wrong-piece.png)."""
    from tests.app.server import Server
    from tests.conftest import OUTPUT

    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT, env={ENV_SENSES: "crown"}).start()
    c3, d4 = sq("c3"), sq("d4")
    try:
        state = server.get("/api/state")
        assert state["sensed"][str(c3)] == "w" and len(state["sensed"]) == 24
        server.sim("lift", c3)
        server.wait_for(lambda s: s["leds"].get(str(c3)) == "from")
        server.post("/api/sim", {"op": "place", "square": d4, "piece": "b"})
        state = server.wait_for(lambda s: (s["active"] or {}).get("kind") == "wrong-piece")
        assert [m["pdn"] for m in state["moves"]] == ["c3-d4"]  # the move is read from occupancy all the same
        assert state["sensed"][str(d4)] == "b" and state["pieces"][str(d4)] == "w"
        assert state["leds"][str(d4)] == "error"
        page = browser.new_page(viewport={"width": 1280, "height": 860}, locale="en-US")  # type: ignore[attr-defined]
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        page.wait_for_function("() => window.damasDrawn && window.damasDrawn.length > 0")
        drawn = page.locator(f'#board [data-square="{d4}"] .piece')
        assert drawn.get_attribute("class") == "piece b mismatch"
        assert drawn.get_attribute("data-sensed") == "b" and drawn.get_attribute("data-piece") == "w"
        label = page.locator(f'#board [data-square="{d4}"]').get_attribute("aria-label")
        assert label is not None and "black man on the board, where the game has white man" in label
        assert page.locator(".piece.mismatch").count() == 1
        assert "a black man stands on d4" in page.inner_text("body")
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "page-colour-wrong-piece.png"), full_page=True)
        # put right: the game's piece on d4, no mark left
        server.sim("lift", d4)
        server.post("/api/sim", {"op": "place", "square": d4, "piece": "w"})
        server.wait_for(lambda s: s["active"] is None and s["sensed"].get(str(d4)) == "w")
        page.wait_for_function("() => document.querySelectorAll('.piece.mismatch').length === 0")
        # a bad piece is a one-line refusal
        try:
            server.post("/api/sim", {"op": "place", "square": sq("e5"), "piece": "k"})
            raise AssertionError("a piece k was taken")
        except urllib.error.HTTPError as err:
            assert err.code == 400
            assert json.loads(err.read())["error"] == "no piece 'k' to place (w, b, W or B, with op place)"
        assert not errors, errors
        page.close()
    finally:
        server.stop()


def test_a_presence_board_sends_no_sensed_pieces(tmp_path: Path) -> None:
    from tests.app.server import Server

    server = Server(tmp_path / "g.sqlite3", "--variant", VARIANT, env={ENV_SENSES: ""}).start()
    try:
        assert server.get("/api/state")["sensed"] is None
    finally:
        server.stop()
