"""gpiozero mock pins for the direct-GPIO build, so it runs and is tested without a Pi.

:class:`MatrixMock` gives a ``MockFactory`` whose column pins compute their level from
a simulated occupancy and the row pins the scan drives low — a diode matrix in software.
:class:`ShiftRegisterMock` watches the data/clock/latch pins and keeps what a chain of
74HC595s would latch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPin

from board_hal.layout import Cell


class _ColumnPin(MockPin):  # type: ignore[misc]
    def __init__(self, factory: Any, info: Any, matrix: MatrixMock, index: int) -> None:
        super().__init__(factory, info)
        self.matrix = matrix
        self.index = index

    def _get_state(self) -> bool:
        return self.matrix.column_level(self.index)


class MatrixMock:
    """A simulated reed-switch diode matrix behind gpiozero mock pins."""

    def __init__(self, rows: Sequence[int], columns: Sequence[int], factory: MockFactory | None = None) -> None:
        self.factory = factory or MockFactory()
        self.rows = [self.factory.pin(r) for r in rows]
        self.columns = [self.factory.pin(c, pin_class=_ColumnPin, matrix=self, index=i) for i, c in enumerate(columns)]
        self.occupied: set[Cell] = set()

    def column_level(self, col: int) -> bool:
        """High (pull-up) unless a row driven low reaches it through a closed switch and its diode."""
        for r, pin in enumerate(self.rows):
            if pin.function == "output" and not pin._state and (r, col) in self.occupied:
                return False
        return True


class _ClockPin(MockPin):  # type: ignore[misc]
    def __init__(self, factory: Any, info: Any, chain: ShiftRegisterMock) -> None:
        super().__init__(factory, info)
        self.chain = chain

    def _change_state(self, value: bool) -> bool:
        changed = bool(super()._change_state(value))
        if changed and value:
            self.chain.rising_clock()
        return changed


class _LatchPin(_ClockPin):
    def _change_state(self, value: bool) -> bool:
        changed = bool(MockPin._change_state(self, value))
        if changed and value:
            self.chain.rising_latch()
        return changed


class ShiftRegisterMock:
    """A chain of 74HC595s on mock pins: ``outputs[i]`` is bit i (cell row*size+col).

    With ``record=True`` every latched frame is kept, in order, in ``frames`` (the lit bit
    numbers of each), so a test can check each frame the LEDs ever showed."""

    def __init__(
        self,
        data: int,
        clock: int,
        latch: int,
        bits: int,
        factory: MockFactory | None = None,
        *,
        record: bool = False,
    ) -> None:
        self.factory = factory or MockFactory()
        self.data = self.factory.pin(data)
        self.clock = self.factory.pin(clock, pin_class=_ClockPin, chain=self)
        self.latch = self.factory.pin(latch, pin_class=_LatchPin, chain=self)
        self.bits = bits
        self.shift: list[bool] = [False] * bits
        self.outputs: list[bool] = [False] * bits
        self.latches = 0
        self.frames: list[frozenset[int]] | None = [] if record else None

    def rising_clock(self) -> None:
        # Q0 of the first register takes the data bit; everything moves one place down the chain
        self.shift = [bool(self.data._state), *self.shift[:-1]]

    def rising_latch(self) -> None:
        self.outputs = list(self.shift)
        self.latches += 1
        if self.frames is not None:
            self.frames.append(frozenset(i for i, on in enumerate(self.outputs) if on))
