"""The read-out gesture on the Pico build (link protocol 3, *gestures*): the emulated firmware
(the real board_fw.py) reports both clock buttons down together and its own read-out button;
the host turns them into read-outs that the talking board says, and the chord's two presses
never switch the clock nor reach the journal; a single press still counts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from board_hal.backends import BoardIO
from board_hal.layout import Layout
from board_hal.speech import RecordingSpeech, Speaker
from damas.board.loop import PlayApp
from damas.records.session import GameSession
from damas.records.store import Store
from damas.speech.announcer import Announcer
from firmware_bridge.bridge import PicoBoard
from firmware_bridge.emulator import Emulator
from rules import Position
from tests.conftest import wait_until

LAYOUT = Layout("brazilian")
CELLS = {LAYOUT.cell_of(q) for q in Position.start("brazilian").occupied()}


def test_a_chord_and_the_read_out_button_read_the_position(tmp_path: Path) -> None:
    voice = RecordingSpeech()
    with Emulator(8, heartbeat_ms=200, cells=CELLS) as emu:
        board = PicoBoard(emu.port, 8, clock=time.time)
        io = BoardIO(LAYOUT, board, board)
        io.start()
        store = Store(tmp_path / "g.sqlite3")
        session = GameSession.start(store, "brazilian", None, "casual", io.occupied()[0], {}, clock="21")
        app = PlayApp(
            store,
            io,
            session,
            speech=Announcer(language="en", speaker=Speaker(voice)),
            chord=0.5,  # the gesture, not the window, is under test: wide enough for a loaded machine
        )

        def turn_until(predicate: object, what: str) -> None:
            def done() -> bool:
                asyncio.run(app.turn())
                return bool(predicate())  # type: ignore[operator]

            wait_until(done, timeout=15.0, what=what)

        def read_outs() -> int:
            return sum(1 for t in voice.texts() if t.startswith("White to move. No move yet."))

        try:
            assert board.info is not None and board.info[1] == (3, 1)
            turn_until(lambda: "White to move." in voice.texts(), "the game announced")
            seq = session.seq
            emu.hold("black", True)  # both clock buttons, one after the other, held together
            time.sleep(0.05)
            emu.hold("white", True)
            time.sleep(0.1)
            emu.hold("white", False)
            emu.hold("black", False)
            turn_until(lambda: read_outs() == 1, "the read-out of the chord")
            time.sleep(0.7)  # the chord's presses would have counted by now: they did not
            asyncio.run(app.turn())
            assert session.seq == seq and session.clock is not None and not session.clock.clock.started
            emu.press("read-out")  # the read-out button of its own
            turn_until(lambda: read_outs() == 2, "the read-out of the button")
            text = [t for t in voice.texts() if t.startswith("White to move.")][-1]
            assert "White: 12 men on a1, c1, e1, g1, b2, d2, f2, h2, a3, c3, e3 and g3." in text
            assert session.seq == seq
            emu.press("white")  # one press: it counts (the clock starts)
            turn_until(lambda: session.seq == seq + 1, "the press journalled")
            assert session.clock.clock.started
        finally:
            app.close()
            io.close()
            store.close()
