"""A simulated board with the talking board on it: the hands, a fake clock, the loop's turns,
and what the voice said (a recording backend) — for the speech tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

from board_hal.backends import ReadOut
from board_hal.buttons import ClockButtons
from board_hal.layout import Layout
from board_hal.simulated import SimulatedBoard
from board_hal.speech import RecordingSpeech, Speaker, SpeechBackend
from damas.board.loop import PlayApp
from damas.records.session import GameSession
from damas.records.store import Store
from damas.speech.announcer import WHAT, Announcer
from rules import Move, Position

WINDOW = 0.05  # the debounce window


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


class Table:
    """A game on the simulated board with the voice on (``lang``), played by test hands."""

    def __init__(
        self,
        tmp_path: Path,
        variant: str = "brazilian",
        fen: str | None = None,
        *,
        lang: str = "pt-BR",
        mode: str = "casual",
        say: tuple[str, ...] = WHAT,
        clock: str | None = None,
        voice: SpeechBackend | None = None,
        buttons: ClockButtons | None = None,
        store: Store | None = None,
        session: GameSession | None = None,
        chord: float = 0.0,
    ) -> None:
        self.clock = FakeClock()
        self.layout = Layout(variant)
        start = Position.from_fen(fen, variant) if fen else Position.start(variant)
        self.sim = SimulatedBoard(self.layout, occupied=start.occupied(), clock=self.clock)
        self.store = store or Store(tmp_path / "games.sqlite3")
        if session is None:
            session = GameSession.start(
                self.store,
                variant,
                fen,
                mode,
                start.occupied(),
                {},
                window=WINDOW,
                clock=clock,  # type: ignore[arg-type]
            )
        else:
            self.sim.set_squares(session.raw)
        self.voice = voice or RecordingSpeech()
        self.spoken: list[str] = []  # every phrase said whole, in order
        self.speaker = Speaker(self.voice, on_said=lambda p: self.spoken.append(p.text))
        self.app = PlayApp(
            self.store,
            self.sim.io(),
            session,
            window=WINDOW,
            clock=self.clock,
            buttons=buttons,
            speech=Announcer(language=lang, speaker=self.speaker, say=say),
            chord=chord,
        )
        self.heard = 0  # phrases the hands have listened to
        self.turn()

    def square(self, name: str) -> int:
        geo = self.app.session.referee.position.geometry
        return int(name) if name.isdigit() else geo.parse_square(name)

    def turn(self) -> None:
        asyncio.run(self.app.turn())

    def wait(self, seconds: float, step: float = 0.02) -> None:
        """Let ``seconds`` pass, the loop turning as ``damas play`` does."""
        end = self.clock.t + seconds
        while self.clock.t < end:
            self.clock.t = min(end, self.clock.t + step)
            self.turn()

    def lift(self, name: str, hold: float = 0.1) -> None:
        self.sim.lift(self.square(name))
        self.wait(hold)

    def place(self, name: str, hold: float = 0.1) -> None:
        self.sim.place(self.square(name))
        self.wait(hold)

    def move(self, *names: str) -> None:
        """A hand moves a piece along ``names`` (touching down on each landing square)."""
        self.lift(names[0])
        for i, name in enumerate(names[1:]):
            self.place(name)
            if i < len(names) - 2:
                self.lift(name)

    def play(self, move: Move, hold: float = 0.1) -> None:
        """A hand plays ``move``: lifts its piece, touches down on each landing square, puts it
        on the last, then takes the captured pieces off one by one."""
        name = self.app.session.referee.position.square_text
        self.move(*(name(q) for q in move.path))
        for q in move.captured:
            self.lift(name(q), hold)
        self.wait(0.4)  # a king that stops where it could slide on is read after the grace time

    def read_out(self) -> None:
        self.sim.transitions.put(ReadOut(self.clock.t, "button"))  # the gesture, as the buttons give it
        self.wait(0.1)

    def said(self) -> list[str]:
        """Every phrase the voice said whole, in order."""
        assert self.speaker.wait_idle(60.0)
        return list(self.spoken)

    def new(self) -> list[str]:
        """The phrases said since the hands last listened."""
        texts = self.said()
        out, self.heard = texts[self.heard :], len(texts)
        return out

    def close(self) -> None:
        self.app.close()
        self.store.close()
