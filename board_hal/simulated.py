"""The simulated board: part of the package, not of the tests.

It is a sensor backend and a LED backend at once. Verbs: ``lift(square)``,
``place(square)`` (and ``lift_cell``/``place_cell`` for non-playing cells), switch
bounce and noise injection, dead or stuck sensors (for the self-test), and a log of
what the LEDs showed with helpers to assert it.

It can sense colour and crowns like a Hall-sensor board or DGT's (``senses``; by default
``DAMAS_SIMULATED_SENSES`` in the environment, else presence only), so any test can run
both ways. It keeps every piece's identity: a piece lifted is in the hand, and ``place``
without a piece puts down the one lifted last (a captured piece taken off stays in the
hand, under the next one lifted); ``crown``/``uncrown`` put a crown on and take it off;
``place(square, piece)`` puts down a given piece (a wrong one, a swap). A piece that
comes from nowhere (``set_squares``, a place with an empty hand) is one the board cannot
read (``?``).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable, Mapping

from board_hal.backends import BoardIO, Clock, LedBackend, SensorBackend
from board_hal.config import ConfigError
from board_hal.layout import Cell, Layout
from board_hal.leds import Role
from board_hal.squares import Sensing, SquareState

#: the environment's say on what simulated boards sense (``presence``, ``colour``, ``crown``)
ENV_SENSES = "DAMAS_SIMULATED_SENSES"
#: square numbers whose simulated sensor is broken: always occupied (stuck), never (dead)
ENV_STUCK = "DAMAS_SIMULATED_STUCK"
ENV_DEAD = "DAMAS_SIMULATED_DEAD"


def broken_squares(name: str) -> list[int]:
    """The square numbers the environment variable ``name`` lists (``"15"``, ``"15,22"``)."""
    text = os.environ.get(name, "").strip()
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"{name}: square numbers separated by commas (e.g. 15,22), not {text!r:.40}") from None


def default_senses() -> Sensing:
    """What a simulated board senses unless told: ``DAMAS_SIMULATED_SENSES``, else presence."""
    name = os.environ.get(ENV_SENSES, "").strip().lower()
    return Sensing.named(name) if name else Sensing.PRESENCE


class SimulatedBoard(SensorBackend, LedBackend):
    def __init__(
        self,
        layout: Layout,
        *,
        occupied: Iterable[int] | Mapping[int, SquareState] | None = None,
        clock: Clock = time.monotonic,
        senses: Sensing | None = None,
    ) -> None:
        SensorBackend.__init__(self, layout.size, clock)
        self.layout = layout
        self.senses = default_senses() if senses is None else senses
        self._lock = threading.Lock()
        if occupied is None:
            from rules import Position

            occupied = {
                sq: SquareState.of(p.color.value, p.king) for sq, p in Position.start(layout.variant).pieces().items()
            }
        if not isinstance(occupied, Mapping):
            occupied = dict.fromkeys(occupied, SquareState.OCCUPIED)
        #: the pieces on the board (what they are, whatever the sensors tell)
        self.pieces: dict[Cell, SquareState] = {layout.cell_of(sq): state for sq, state in occupied.items()}
        self.hand: list[SquareState] = []  # pieces lifted and not put down yet, the last lifted last
        self.dead: set[Cell] = set()  # sensors that never close
        self.reversed: set[Cell] = set()  # colour sensors mounted the other way up (read black for white)
        self.stuck: set[Cell] = set()  # sensors that always read occupied
        for name, broken in ((ENV_STUCK, self.stuck), (ENV_DEAD, self.dead)):
            for sq in broken_squares(name):  # a broken sensor to play around (the page, a demo)
                if not 1 <= sq <= layout.geometry.count:
                    raise ConfigError(f"{name}: no square {sq} on this board")
                broken.add(layout.cell_of(sq))
        self.led_log: list[tuple[float, dict[Cell, Role]]] = []
        self.leds_now: dict[Cell, Role] = {}

    def io(self) -> BoardIO:
        return BoardIO(self.layout, self, self)

    # -- sensing -------------------------------------------------------------------------
    def _read(self, cell: Cell) -> SquareState:
        """What the sensor of ``cell`` reads (a stuck one: a piece it cannot tell)."""
        piece = self.pieces.get(cell, SquareState.EMPTY)
        if cell in self.dead:
            return SquareState.EMPTY
        if cell in self.stuck and piece is SquareState.EMPTY:
            return SquareState.OCCUPIED
        if cell in self.reversed and piece.colour is not None:
            piece = SquareState.of("black" if piece.colour == "white" else "white", piece.king)
        return self.senses.sees(piece)

    def _reads(self, cell: Cell) -> bool:
        return self._read(cell).occupied

    def snapshot(self) -> frozenset[Cell]:
        with self._lock:
            return frozenset(c for c in self.layout.cells() if self._reads(c))

    def states(self) -> dict[Cell, SquareState]:
        with self._lock:
            return {c: s for c in self.layout.cells() if (s := self._read(c)).occupied}

    def _put(self, cell: Cell, piece: SquareState, t: float | None = None) -> None:
        """Make ``cell`` hold ``piece`` (EMPTY: nothing); a transition if the sensor reads a change."""
        with self._lock:
            before = self._read(cell)
            if piece is SquareState.EMPTY:
                self.pieces.pop(cell, None)
            else:
                self.pieces[cell] = piece
            after = self._read(cell)
        if before != after:
            self._emit(cell, after.occupied, t, after if self.senses > Sensing.PRESENCE else None)

    def _set(self, cell: Cell, occupied: bool, t: float | None = None, piece: SquareState | None = None) -> None:
        if not occupied:
            lifted = self.pieces.get(cell)
            if lifted is not None:
                self.hand.append(lifted)
            self._put(cell, SquareState.EMPTY, t)
            return
        if piece is None:
            piece = self.hand.pop() if self.hand else SquareState.OCCUPIED
        elif piece in self.hand:
            self.hand.reverse()
            self.hand.remove(piece)  # the last lifted of its kind
            self.hand.reverse()
        self._put(cell, piece, t)

    def lift(self, square: int, t: float | None = None) -> None:
        self._set(self.layout.cell_of(square), False, t)

    def place(self, square: int, t: float | None = None, piece: SquareState | None = None) -> None:
        """Put a piece down: ``piece``, or the one lifted last (a piece not known if none)."""
        self._set(self.layout.cell_of(square), True, t, piece)

    def crown(self, square: int, t: float | None = None, king: bool = True) -> None:
        """Put a crown on the man on ``square`` (``king=False``: take a king's crown off)."""
        cell = self.layout.cell_of(square)
        piece = self.pieces.get(cell)
        if piece is None:
            raise ValueError(f"no piece on square {square} to crown")
        self._put(cell, piece.crowned(king), t)

    def uncrown(self, square: int, t: float | None = None) -> None:
        self.crown(square, t, king=False)

    def piece_at(self, square: int) -> SquareState:
        """What stands on ``square`` (whatever the sensors tell)."""
        return self.pieces.get(self.layout.cell_of(square), SquareState.EMPTY)

    def lift_cell(self, cell: Cell, t: float | None = None) -> None:
        self._set(cell, False, t)

    def place_cell(self, cell: Cell, t: float | None = None, piece: SquareState | None = None) -> None:
        self._set(cell, True, t, piece)

    def bounce(self, square: int, times: int = 2, t: float | None = None, step: float = 0.0005) -> None:
        """Switch chatter on a square: quick flips ending in its current state."""
        cell = self.layout.cell_of(square)
        read = self._read(cell)
        colour = self.senses > Sensing.PRESENCE
        away = SquareState.EMPTY if read.occupied else SquareState.OCCUPIED
        now = self.clock() if t is None else t
        for i in range(times):
            self._emit(cell, not read.occupied, now + (2 * i) * step, away if colour else None)
            self._emit(cell, read.occupied, now + (2 * i + 1) * step, read if colour else None)

    def set_squares(self, squares: Iterable[int]) -> None:
        """Put pieces exactly on these squares (silently: no transitions); a square that
        keeps its piece keeps what it was, a new one is a piece the board cannot read."""
        with self._lock:
            cells = {self.layout.cell_of(sq) for sq in squares}
            self.pieces = {c: self.pieces.get(c, SquareState.OCCUPIED) for c in cells}

    def set_pieces(self, pieces: Mapping[int, SquareState]) -> None:
        """Put exactly these pieces on the board (silently), and empty the hand."""
        with self._lock:
            self.pieces = {self.layout.cell_of(sq): p for sq, p in pieces.items() if p.occupied}
            self.hand.clear()

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
