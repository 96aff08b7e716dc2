"""The game clock in the hall (issue 14): each move message carries the board's clock faces and
time control, so the hall's PDN has the same ``{[%clock]}`` comments and ``TimeControl`` as the
board's own export, the hall page shows the faces the board shows (frozen while paused and at the
end), and the arbiter sees the clocks paused and a flag fallen. A game without a clock shows none;
a message of the old format (no clock fields) still loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from board_hal.debounce import Transition
from damas.hall_link.publish import Publisher
from damas.records.session import GameSession, export_game
from damas.records.store import Store
from hall.app import Hall
from hall.broker import Mosquitto
from hall.protocol import Broker
from hall.store import HallStore
from referee.clock import ClockAction
from rules import Color, Position
from tests.conftest import OUTPUT, wait_until
from tests.hall.conftest import HallProcess


def _move(s: GameSession, t: float) -> float:
    """The side to move plays its first legal move by hand (lift, place, captures off)."""
    m = next(iter(s.referee.position.legal_moves))
    s.feed(Transition(t, m.from_square, False))
    s.feed(Transition(t + 0.3, m.to_square, True))
    for i, c in enumerate(m.captured):
        s.feed(Transition(t + 0.5 + 0.2 * i, c, False))
    s.tick(t + 1.5)
    return t + 1.5


def _faces(page: Any, where: str) -> tuple[str, str]:
    return (
        page.locator(f'{where} .clock[data-side="white"]').inner_text(),
        page.locator(f'{where} .clock[data-side="black"]').inner_text(),
    )


def test_the_hall_shows_the_boards_clocks_and_its_pdn_has_them(tmp_path: Path, mosquitto: Mosquitto, page: Any) -> None:
    store = Store(tmp_path / "board.sqlite3")
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url).start()
    pub = Publisher(store, "5", Broker.parse(mosquitto.url))
    try:
        s = GameSession.start(
            store,
            "brazilian",
            None,
            "tournament",
            Position.start("brazilian").occupied(),
            {"White": "Ana", "Black": "Bia"},
            clock="1+2",
        )
        pub.start()
        assert pub.connected.wait(5)
        version = 0

        def poll() -> None:
            nonlocal version
            version += 1
            pub.poll(s, version)

        keeper = s.clock
        assert keeper is not None
        t = 1000.0
        s.feed(ClockAction(t, "clock", Color.BLACK, "button"))  # Black starts White's clock
        poll()
        for _ in range(4):  # each side moves, then presses its clock
            mover = s.referee.position.turn
            t = _move(s, t + 3.0)
            poll()  # (published before the press: the press comes as the move's new clock)
            s.feed(ClockAction(t + 0.4, "clock", mover, "button"))
            t += 0.4
            poll()
        s.feed(ClockAction(t + 5.0, "clock-pause", source="arbiter"))
        t += 5.0
        poll()
        board = keeper.face(t + 30)  # paused: the faces stand still
        page.goto(hall.url + "/")
        card = '.card[data-board="5"]'
        want = (board["white_text"], board["black_text"])
        wait_until(lambda: page.locator(f"{card} .clock").count() == 2, timeout=15, what="the card's clocks")
        wait_until(lambda: _faces(page, card) == want, timeout=10, what=f"the faces {want} on the hall page")
        page.locator('.alert.clock-paused[data-board="5"]').wait_for(timeout=5000)
        assert "board 5: the clocks are paused (by the arbiter)" in page.locator("#alerts").inner_text()
        page.wait_for_timeout(1200)  # a paused clock does not count down on the page
        assert _faces(page, card) == want

        s.feed(ClockAction(t + 1.0, "clock-resume", source="arbiter"))  # White thinks until the flag falls
        t += 1.0
        poll()
        left = keeper.clock.remaining(Color.WHITE, round(t * 10_000)) / 10_000
        s.tick(t + left + 0.5)
        poll()
        assert s.ended and s.referee.game.outcome() is not None
        gid = s.row.id
        board = keeper.face(t + 100)
        want = (board["white_text"], board["black_text"])
        assert want[0] == "0:00" and board["flag"] == "white"
        wait_until(lambda: _faces(page, card) == want, timeout=10, what=f"the final faces {want}")
        page.locator('.alert.flag[data-board="5"]').wait_for(timeout=5000)
        assert "board 5: White's flag fell" in page.locator("#alerts").inner_text()
        white = page.locator(f'{card} .clock[data-side="white"]')
        wait_until(lambda: "flag" in (white.get_attribute("class") or ""), timeout=10, what="the flag on the face")
        assert "running" not in (white.get_attribute("class") or "") and _faces(page, card) == want
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "hall-clock.png"), full_page=True)

        # the hall's PDN is the board's export, clock comments and time control included
        export = export_game(store, gid).pdn()
        assert "[%clock" in export and '[TimeControl "60+2"]' in export
        wait_until(lambda: hall.get(f"/games/5-{gid}.pdn") == export, timeout=10, what="the hall's PDN")
        assert export.split("\n\n", 1)[1] in hall.get("/live.pdn")

        page.goto(hall.url + "/board/5")  # one board's live view: the same faces
        wait_until(lambda: _faces(page, "#oneclock") == want, timeout=10, what="the live view's faces")
    finally:
        pub.close()
        hall.stop()
        store.close()


START = {"type": "start", "variant": "brazilian", "fen": None, "mode": "tournament", "intro": []}


def _send(hall: Hall, board: str, seq: int, msg: dict[str, object], game: int = 1) -> None:
    hall.receive(f"damas/board/{board}/game", json.dumps({**msg, "board": board, "game": game, "seq": seq}).encode())


def test_a_game_without_a_clock_shows_none_and_old_messages_still_load(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        now = [5000.0]
        hall = Hall(store, None, token="t", clock=lambda: now[0])
        # the old format: no control, no clocks (only the times used, which are not a clock)
        _send(hall, "1", 0, {**START, "tags": {"White": "Ana", "Black": "Bia"}})
        old = {"type": "move", "step": 0, "ply": 1, "move": "c3-d4", "path": "c3-d4", "comments": [], "t": 10.0}
        _send(hall, "1", 1, {**old, "clock": {"white": 10.0, "black": 0.0}})
        now[0] += 3600
        game = hall.board_state("1")["game"]
        assert game["plies"] == 1 and game["clock"] is None  # no clock: none shown, no flag
        assert hall.alerts() == []
        # a game with a clock: the running side counts down from the board's word
        _send(hall, "2", 0, {**START, "tags": {}, "control": "21", "clocks": {"white": 1260, "black": 1260}})
        clocks = {"white": 1250.0, "black": 1260.0, "running": "black", "took": 10.0}
        _send(hall, "2", 1, {**old, "t": now[0], "control": "21", "clocks": clocks})
        now[0] += 60
        c = hall.board_state("2")["game"]["clock"]
        assert (c["white"], c["black"], c["running"], c["ticking"], c["control"]) == (
            1250.0,
            1200.0,
            "black",
            True,
            "21",
        )
        now[0] += 1200
        assert [(a["board"], a["kind"]) for a in hall.alerts()] == [("2", "flag")]
        # after a restart, the same
        again = Hall(store, None, token="t", clock=lambda: now[0])
        assert again.board_state("1")["game"]["clock"] is None
        assert again.board_state("2")["game"]["clock"]["black"] == 0.0
    finally:
        store.close()
