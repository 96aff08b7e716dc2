"""The self-test: every LED in turn, then a piece on every square in turn.

It finds dead sensors (a piece placed, nothing seen), stuck sensors (occupied on an
empty board) and a mis-set orientation: when the cells that answered are exactly those
another rotation / White side would give, it says so::

    square 1 answered at cell h8: is the board rotated 180°?

The dialogue goes through one callback (``ask``) that receives a :class:`Prompt`; the
command line prints it and the user acts, tests act on the simulated board.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from board_hal.backends import BoardIO
from board_hal.layout import ROTATIONS, WHITE_SIDES, Cell, Layout
from board_hal.leds import Role


@dataclass(frozen=True)
class Prompt:
    kind: str  # clear | leds | place | lift | done
    text: str
    square: int | None = None
    cell: Cell | None = None


@dataclass
class SelfTestResult:
    stuck: list[Cell] = field(default_factory=list)
    dead: list[int] = field(default_factory=list)  # squares whose sensor never answered
    misplaced: dict[int, Cell] = field(default_factory=dict)  # square -> cell that answered instead
    confirmed: list[int] = field(default_factory=list)
    orientation: str | None = None  # a suggestion when the answers fit another layout
    leds_ok: bool | None = None
    messages: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.stuck or self.dead or self.misplaced) and self.leds_ok is not False


def cell_name(cell: Cell) -> str:
    """A physical cell named as on a board standing in the standard mounting."""
    row, col = cell
    return f"{'abcdefghij'[col]}{row + 1}"


class SelfTest:
    def __init__(
        self,
        io: BoardIO,
        ask: Callable[[Prompt], bool | None],
        *,
        timeout: float = 30.0,
        led_step: float = 0.1,
        sleep: Callable[[float], None] = time.sleep,
        squares: list[int] | None = None,
    ) -> None:
        self.io = io
        self.layout = io.layout
        self.ask = ask
        self.timeout = timeout
        self.led_step = led_step
        self.sleep = sleep
        self.squares = squares if squares is not None else list(self.layout.geometry.squares())

    def _name(self, sq: int) -> str:
        geo = self.layout.geometry
        return f"{sq} ({geo.square_name(sq)})"

    def _wait(self, want: bool) -> Cell | None:
        """The first cell that changes to ``want`` (placed / lifted) within the timeout."""
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            for tr in self.io.poll(timeout=min(left, 0.2)):
                if tr.occupied == want:
                    return self.layout.cell_of_key(tr.key)

    def run(self) -> SelfTestResult:
        res = SelfTestResult()
        lay = self.layout
        # 1. an empty board: whatever still reads occupied is stuck
        self.ask(Prompt("clear", "take every piece off the board"))
        self.io.poll()
        res.stuck = sorted(self.io.sensors.snapshot())
        for cell in res.stuck:
            res.messages.append(f"sensor at cell {cell_name(cell)} reads occupied on an empty board (stuck)")
        # 2. every LED in turn
        if self.io.leds is not None:
            self.ask(Prompt("leds", "watch the board: every square lights up in turn"))
            for cell in lay.cells():
                self.io.leds.show({cell: Role.TEST})
                self.sleep(self.led_step)
            self.io.leds.show({})
            answer = self.ask(Prompt("leds", "did every square light up? (y/n)"))
            res.leds_ok = None if answer is None else bool(answer)
            if res.leds_ok is False:
                res.messages.append("some LEDs did not light: check the LED chain (hardware/wiring.md)")
        # 3. a piece on every square in turn
        self.io.poll()
        for sq in self.squares:
            expected = lay.cell_of(sq)
            if expected in res.stuck:
                continue
            self.ask(Prompt("place", f"put a piece on square {self._name(sq)}", sq, expected))
            got = self._wait(True)
            if got is None:
                res.dead.append(sq)
                res.messages.append(f"square {self._name(sq)}: no answer (dead sensor at cell {cell_name(expected)}?)")
                continue
            if got != expected:
                res.misplaced[sq] = got
            else:
                res.confirmed.append(sq)
            self.ask(Prompt("lift", f"take the piece off square {self._name(sq)}", sq, got))
            self._wait(False)
        # 4. orientation
        if res.misplaced:
            res.orientation = self._orientation(res)
            first = next(iter(res.misplaced))
            text = f"square {first} answered at cell {cell_name(res.misplaced[first])}"
            if res.orientation:
                text += f": {res.orientation}"
            res.messages.append(text)
            for sq, cell in list(res.misplaced.items())[1:]:
                res.messages.append(f"square {sq} answered at cell {cell_name(cell)}")
        self.ask(Prompt("done", "self-test passed" if res.ok else "self-test found problems"))
        return res

    def _orientation(self, res: SelfTestResult) -> str | None:
        answers = {sq: res.misplaced.get(sq, self.layout.cell_of(sq)) for sq in res.confirmed + list(res.misplaced)}
        lay = self.layout
        sides = (lay.white_side, *(s for s in WHITE_SIDES if s != lay.white_side))
        for side in sides:
            for rotation in ROTATIONS:
                alt = Layout(lay.variant_name, rotation, side)
                if alt == lay:
                    continue
                if all(alt.cell_of(sq) == cell for sq, cell in answers.items()):
                    turn = (alt.turns - lay.turns) % 4 * 90
                    return (
                        f'is the board rotated {turn}°? (set board.rotation = {rotation}, board.white_side = "{side}")'
                    )
        return None
