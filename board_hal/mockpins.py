"""gpiozero mock pins for the direct-GPIO build, so it runs and is tested without a Pi.

:class:`MatrixMock` gives a ``MockFactory`` whose column pins compute their level from
a simulated occupancy and the row pins the scan drives low — a diode matrix in software.
:class:`ShiftRegisterMock` watches the data/clock/latch pins and keeps what a chain of
74HC595s would latch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
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


class _RowPin(MockPin):  # type: ignore[misc]
    def __init__(self, factory: Any, info: Any, matrix: MatrixMock, index: int) -> None:
        super().__init__(factory, info)
        self.matrix = matrix
        self.index = index

    def _change_state(self, value: bool) -> bool:
        changed = bool(super()._change_state(value))
        if changed:
            self.matrix.row_changed(self.index, value)
        return changed


class MatrixMock:
    """A simulated reed-switch diode matrix behind gpiozero mock pins.

    Its pins keep the time (``clock``, seconds) at which each row was driven low and each
    column read (``log``); with ``rise`` (seconds) a column that a closed switch held low
    reads low that long after its row is released, as a real column charges through its
    pull-up: read too early, a ghost."""

    def __init__(
        self,
        rows: Sequence[int],
        columns: Sequence[int],
        factory: MockFactory | None = None,
        *,
        clock: Callable[[], float] = time.perf_counter,
        rise: float = 0.0,
    ) -> None:
        self.factory = factory or MockFactory()
        self.clock = clock
        self.rise = rise
        self.log: list[tuple[str, int, float]] = []  # ("drive", row, t) / ("read", column, t)
        self.low_until: dict[int, float] = {}
        self.occupied: set[Cell] = set()
        self.rows = [self.factory.pin(r, pin_class=_RowPin, matrix=self, index=i) for i, r in enumerate(rows)]
        self.columns = [self.factory.pin(c, pin_class=_ColumnPin, matrix=self, index=i) for i, c in enumerate(columns)]

    def row_changed(self, row: int, high: bool) -> None:
        now = self.clock()
        if not high:
            self.log.append(("drive", row, now))
        elif self.rise:  # released: the columns its closed switches held low rise slowly
            for c in range(len(self.columns)):
                if (row, c) in self.occupied:
                    self.low_until[c] = now + self.rise

    def column_level(self, col: int) -> bool:
        """High (pull-up) unless a row driven low reaches it through a closed switch and its
        diode, or it is still rising from the last time one did."""
        now = self.clock()
        self.log.append(("read", col, now))
        del self.log[:-10_000]
        for r, pin in enumerate(self.rows):
            if pin.function == "output" and not pin._state and (r, col) in self.occupied:
                return False
        return now >= self.low_until.get(col, 0.0)

    def settle_times(self) -> list[float]:
        """For every column read in the log: the time since its row was driven low."""
        out = []
        driven: float | None = None
        for what, _index, t in self.log:
            if what == "drive":
                driven = t
            elif driven is not None:
                out.append(t - driven)
        return out


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


class _LoadPin(MockPin):  # type: ignore[misc]
    def __init__(self, factory: Any, info: Any, chain: ShiftInMock) -> None:
        super().__init__(factory, info)
        self.chain = chain

    def _change_state(self, value: bool) -> bool:
        changed = bool(super()._change_state(value))
        if changed:
            self.chain.load_changed(bool(value))
        return changed


class _ShiftClockPin(_LoadPin):
    def _change_state(self, value: bool) -> bool:
        changed = bool(MockPin._change_state(self, value))
        if changed and value:
            self.chain.rising_clock()
        return changed


class _SerialOutPin(MockPin):  # type: ignore[misc]
    def __init__(self, factory: Any, info: Any, chain: ShiftInMock) -> None:
        super().__init__(factory, info)
        self.chain = chain

    def _get_state(self) -> bool:
        return self.chain.read_qh()


class ShiftInMock:
    """A chain of 74HC165s on mock pins, with reed switches on their inputs.

    ``occupied`` cells pull their input low (the others are held high by their pull-ups).
    SH/LD low copies the inputs (continuously, as the chip does while it is low); a rising
    CLK edge with SH/LD high moves the chain one bit towards QH (a clock while loading does
    nothing); QH is chip 0's H stage. ``dead`` chips drive nothing: their QH floats high
    (so they and every chip behind them read "all open"). For the timing checks, ``loads``
    and ``clocks`` count edges, and ``bad_reads`` counts QH reads while SH/LD was low (the
    value then is the input, not the chain: a reader must not rely on it)."""

    def __init__(
        self,
        load: int,
        clock: int | None,
        data: int | None,
        cells: Sequence[Sequence[Cell | None]],
        factory: MockFactory | None = None,
    ) -> None:
        self.factory = factory or MockFactory()
        self.cells = [list(line) for line in cells]
        self.load = self.factory.pin(load, pin_class=_LoadPin, chain=self)
        # without clock and data pins, the chain hangs on SPI (spi_transfer: SCLK and MISO)
        self.clock = None if clock is None else self.factory.pin(clock, pin_class=_ShiftClockPin, chain=self)
        self.data = None if data is None else self.factory.pin(data, pin_class=_SerialOutPin, chain=self)
        self.occupied: set[Cell] = set()
        self.dead: set[int] = set()
        self.stages: list[bool] = [True] * (8 * len(self.cells))  # in QH order: chip 0's H first
        self.loads = 0
        self.clocks = 0
        self.since_load = 0
        self.ignored_clocks = 0
        self.bad_reads = 0
        self.reads = 0
        self._loading = False

    def inputs(self) -> list[bool]:
        """The input levels in chain (QH) order: chip 0's H, G ... A, chip 1's H ..."""
        out = []
        for line in self.cells:
            for pin in range(7, -1, -1):
                cell = line[pin]
                out.append(not (cell is not None and cell in self.occupied))
        return out

    def load_changed(self, high: bool) -> None:
        self._loading = not high
        if not high:
            self.loads += 1
            self.since_load = 0
            self.stages = self.inputs()

    def rising_clock(self) -> None:
        if self._loading:
            self.ignored_clocks += 1  # SH/LD low: the load wins
            return
        self.clocks += 1
        self.since_load += 1
        # SER of the last chip is tied to ground: zeros come in behind the chain
        self.stages = [*self.stages[1:], False]

    def read_qh(self) -> bool:
        self.reads += 1
        if self._loading:
            self.bad_reads += 1
            self.stages = self.inputs()
        # a dead chip drives no QH: the bits of it and of every chip behind it come in high
        if self.dead and self.since_load >= 8 * min(self.dead):
            return True
        return self.stages[0]

    def spi_transfer(self, data: Sequence[int]) -> list[int]:
        """An SPI mode-0 transfer on SCLK/MISO: for each bit, MISO (QH) is sampled on the
        rising edge that then shifts the chain (MSB first)."""
        out = []
        for _ in data:
            byte = 0
            for _ in range(8):
                byte = byte << 1 | self.read_qh()
                self.rising_clock()
            out.append(byte)
        return out
