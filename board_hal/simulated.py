"""The simulated board: part of the package, not of the tests.

It is a sensor backend and a LED backend at once. Verbs: ``lift(square)``,
``place(square)`` (and ``lift_cell``/``place_cell`` for non-playing cells), switch
bounce and noise injection, dead or stuck sensors (for the self-test), and a log of
what the LEDs showed with helpers to assert it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping

from board_hal.backends import BoardIO, Clock, LedBackend, SensorBackend
from board_hal.layout import Cell, Layout
from board_hal.leds import Role


class SimulatedBoard(SensorBackend, LedBackend):
    def __init__(
        self,
        layout: Layout,
        *,
        occupied: Iterable[int] | None = None,
        clock: Clock = time.monotonic,
    ) -> None:
        SensorBackend.__init__(self, layout.size, clock)
        self.layout = layout
        self._lock = threading.Lock()
        if occupied is None:
            from rules import Position

            occupied = Position.start(layout.variant).occupied()
        self._cells: set[Cell] = {layout.cell_of(sq) for sq in occupied}
        self.dead: set[Cell] = set()  # sensors that never close
        self.stuck: set[Cell] = set()  # sensors that always read occupied
        self.led_log: list[tuple[float, dict[Cell, Role]]] = []
        self.leds_now: dict[Cell, Role] = {}

    def io(self) -> BoardIO:
        return BoardIO(self.layout, self, self)

    # -- sensing -------------------------------------------------------------------------
    def _reads(self, cell: Cell) -> bool:
        if cell in self.stuck:
            return True
        if cell in self.dead:
            return False
        return cell in self._cells

    def snapshot(self) -> frozenset[Cell]:
        with self._lock:
            return frozenset(c for c in self.layout.cells() if self._reads(c))

    def _set(self, cell: Cell, occupied: bool, t: float | None = None) -> None:
        with self._lock:
            before = self._reads(cell)
            if occupied:
                self._cells.add(cell)
            else:
                self._cells.discard(cell)
            after = self._reads(cell)
        if before != after:
            self._emit(cell, after, t)

    def lift(self, square: int, t: float | None = None) -> None:
        self._set(self.layout.cell_of(square), False, t)

    def place(self, square: int, t: float | None = None) -> None:
        self._set(self.layout.cell_of(square), True, t)

    def lift_cell(self, cell: Cell, t: float | None = None) -> None:
        self._set(cell, False, t)

    def place_cell(self, cell: Cell, t: float | None = None) -> None:
        self._set(cell, True, t)

    def bounce(self, square: int, times: int = 2, t: float | None = None, step: float = 0.0005) -> None:
        """Switch chatter on a square: quick flips ending in its current state."""
        cell = self.layout.cell_of(square)
        state = self._reads(cell)
        now = self.clock() if t is None else t
        for i in range(times):
            self._emit(cell, not state, now + (2 * i) * step)
            self._emit(cell, state, now + (2 * i + 1) * step)

    def set_squares(self, squares: Iterable[int]) -> None:
        """Put pieces exactly on these squares (silently: no transitions)."""
        with self._lock:
            self._cells = {self.layout.cell_of(sq) for sq in squares}

    def occupied_squares(self) -> set[int]:
        out = set()
        for cell in self.snapshot():
            sq = self.layout.square_of(*cell)
            if sq is not None:
                out.add(sq)
        return out

    # -- LEDs ---------------------------------------------------------------------------
    def show(self, intents: Mapping[Cell, Role]) -> None:
        frame = dict(intents)
        self.leds_now = frame
        self.led_log.append((self.clock(), frame))

    def lit(self, role: Role | None = None) -> set[int]:
        """The squares lit now (with that role)."""
        out = set()
        for cell, r in self.leds_now.items():
            sq = self.layout.square_of(*cell)
            if sq is not None and (role is None or r is role):
                out.add(sq)
        return out

    def ever_lit(self, square: int, role: Role | None = None) -> bool:
        cell = self.layout.cell_of(square)
        return any(cell in f and (role is None or f[cell] is role) for _, f in self.led_log)
