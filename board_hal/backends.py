"""Sensor and LED backend interfaces, and the board seen in variant squares.

Backends deal in physical cells; :class:`BoardIO` maps them through a
:class:`~board_hal.layout.Layout` to the variant's squares. Hardware callbacks only
enqueue: transitions go into a thread-safe queue the application drains in one place.
Every backend is a context manager and ``close()`` may be called twice.

A backend behind a link (the Pico's serial line) reports the link's state: ``link`` is
``"up"`` or ``"down"`` now, and the queue carries a :class:`LinkChange` when it goes down
and when it is up again (with the whole occupancy then: what changed meanwhile is known
only as a result). Backends wired directly (the simulated board, GPIO) are always up.

Every sensor backend says what it senses (``senses``, a :class:`~board_hal.squares.Sensing`):
presence only (reed switches), or also each piece's colour, and its crown. A backend that
senses more than presence gives every change its square's state (``CellTransition.state``),
also a change of piece on a square that stays occupied; :meth:`BoardIO.pieces` is the board
now, piece by piece.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

from board_hal.debounce import Transition
from board_hal.layout import Cell, Layout
from board_hal.leds import Role
from board_hal.squares import Sensing, SquareState

Clock = Callable[[], float]


@dataclass(frozen=True)
class CellTransition:
    """A raw change on one physical cell (``state``: what a board that senses colour reads
    there now; None on a presence board)."""

    t: float
    cell: Cell
    occupied: bool
    state: SquareState | None = None


@dataclass(frozen=True)
class LinkChange:
    """The link to a board's sensors went down, or is up again (``cells``: the whole
    occupancy then; ``changes``: how it differs from the last occupancy reported; ``lost``:
    when the line stayed up but frames were lost, how many — the board sends one on every
    change, so no more changes were missed — else None; ``states``: a board that senses
    colour, the state of every occupied cell)."""

    t: float
    up: bool
    cells: frozenset[Cell] = frozenset()
    changes: tuple[CellTransition, ...] = ()
    lost: int | None = None
    states: Mapping[Cell, SquareState] = field(default_factory=dict)


SIDES = ("white", "black")


@dataclass(frozen=True)
class ButtonPress:
    """A press of the game clock's button of ``side`` (``white``/``black``), seen at ``t``
    (``source``: ``button`` for push buttons on the Pi's pins, ``pico`` for the Pico's inputs)."""

    t: float
    side: str
    source: str = "button"


@dataclass(frozen=True)
class ReadOut:
    """The read-out gesture, seen at ``t``: both clock buttons down together (``source``
    ``button`` on the Pi's pins, ``pico`` on the Pico's), or the Pico's read-out button
    (``pico``). It is never a move nor a clock press: the talking board reads the position
    aloud (``damas.speech``); it is not journalled (it changes nothing in the game)."""

    t: float
    source: str = "button"
    chord: bool = True  # both clock buttons (False: a read-out button of its own)


@dataclass(frozen=True)
class LinkStatus:
    """A :class:`LinkChange` seen through a layout: ``squares`` and non-playing ``cells``
    (by name) occupied when the link came back; ``lost``: see :class:`LinkChange`;
    ``pieces``: on a board that senses colour, each occupied square's piece)."""

    t: float
    up: bool
    squares: frozenset[int] = frozenset()
    cells: frozenset[str] = frozenset()
    lost: int | None = None
    pieces: Mapping[int, SquareState] = field(default_factory=dict)


def stop_worker(stop: threading.Event, thread: threading.Thread | None, timeout: float = 1.0) -> None:
    """Ask a backend's background thread to stop and wait for it (a little)."""
    stop.set()
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout=timeout)


class Closable:
    closed = False

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class SensorBackend(Closable):
    """Reports which physical cells are occupied, as raw timestamped transitions (and, when
    it senses more than presence, what stands on them)."""

    size: int
    #: what the sensors tell (a backend that senses more sets it, per instance if it depends
    #: on the hardware found: a Pico's firmware, a DGT board)
    senses: Sensing = Sensing.PRESENCE

    def __init__(self, size: int, clock: Clock = time.monotonic) -> None:
        self.size = size
        self.clock = clock
        self.transitions: queue.Queue[CellTransition | LinkChange | ButtonPress | ReadOut] = queue.Queue()
        self._link_up = True

    @property
    def link(self) -> str:
        """``"up"`` while the sensors are reachable, ``"down"`` while they are not."""
        return "up" if self._link_up else "down"

    def _link_change(
        self,
        up: bool,
        t: float,
        cells: frozenset[Cell] = frozenset(),
        changes: Iterable[Cell] = (),
        lost: int | None = None,
        states: Mapping[Cell, SquareState] | None = None,
    ) -> None:
        """The link went down, or is up again with ``cells`` occupied (``changes``: the cells
        that differ from the last occupancy reported; ``states``: what a colour board read on
        each occupied cell)."""
        self._link_up = up
        got = dict(states or {})
        moved = tuple(
            CellTransition(t, c, c in cells, got.get(c, SquareState.EMPTY) if states is not None else None)
            for c in sorted(changes)
        )
        kept = {c: s for c, s in got.items() if c in cells} if up else {}
        self.transitions.put(LinkChange(t, up, frozenset(cells) if up else frozenset(), moved, lost, kept))

    def start(self) -> None:
        """Begin reporting (a scanning thread, a serial reader...)."""

    def snapshot(self) -> frozenset[Cell]:
        """The occupied cells now."""
        raise NotImplementedError

    def states(self) -> dict[Cell, SquareState]:
        """What stands on each occupied cell now (a presence board: a piece not known)."""
        return dict.fromkeys(self.snapshot(), SquareState.OCCUPIED)

    def _emit(self, cell: Cell, occupied: bool, t: float | None = None, state: SquareState | None = None) -> None:
        self.transitions.put(CellTransition(self.clock() if t is None else t, cell, occupied, state))


class ScanningSensors(SensorBackend):
    """Sensors read by scanning in a thread of the backend's own (the diode matrix, the
    MCP23017s, the 74HC165 chain): ``scan()`` reads every cell; the thread calls
    :meth:`poll_once` every ``1 / rate`` seconds, which reports what changed."""

    thread_name = "scan"

    def __init__(self, size: int, clock: Clock = time.monotonic, *, rate: float = 100.0) -> None:
        super().__init__(size, clock)
        self.rate = rate
        self._stop = threading.Event()  # before any pin or bus: close() after one failed to open needs it
        self._thread: threading.Thread | None = None
        self._state: frozenset[Cell] = frozenset()

    def scan(self) -> frozenset[Cell]:
        """One pass over the sensors: the occupied cells."""
        raise NotImplementedError

    def poll_once(self) -> None:
        """Scan and enqueue the changes since the last scan (what the thread does)."""
        now = self.clock()
        self._report(self.scan(), now)

    def _report(self, new: frozenset[Cell], t: float) -> None:
        """A transition for every cell that differs from the last scan; ``new`` is the state now."""
        for cell in sorted(new ^ self._state):
            self._emit(cell, cell in new, t)
        self._state = new

    def snapshot(self) -> frozenset[Cell]:
        return self._state

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        period = 1.0 / self.rate
        while not self._stop.wait(period):
            self.poll_once()


class LedBackend(Closable):
    """Shows LED intents on physical cells."""

    def show(self, intents: Mapping[Cell, Role]) -> None:
        raise NotImplementedError


class BoardIO(Closable):
    """A sensor backend and a LED backend seen through a layout, in variant squares."""

    def __init__(self, layout: Layout, sensors: SensorBackend, leds: LedBackend | None = None) -> None:
        if sensors.size != layout.size:
            raise ValueError(f"a {sensors.size}x{sensors.size} sensor matrix cannot play {layout.variant.name}")
        self.layout = layout
        self.sensors = sensors
        self.leds = leds

    def start(self) -> None:
        self.sensors.start()

    @property
    def senses(self) -> Sensing:
        """What the sensors tell: presence, colour, or colour and crown."""
        return self.sensors.senses

    def pieces(self) -> dict[int | str, SquareState]:
        """Every occupied square (and non-playing cell, by name) with what stands on it now
        (``?`` on a presence board)."""
        return {self.layout.key_of(*cell): state for cell, state in self.sensors.states().items()}

    def occupied(self) -> tuple[set[int], set[str]]:
        """Occupied squares and occupied non-playing cells, now."""
        squares: set[int] = set()
        cells: set[str] = set()
        for row, col in self.sensors.snapshot():
            key = self.layout.key_of(row, col)
            (squares if isinstance(key, int) else cells).add(key)  # type: ignore[arg-type]
        return squares, cells

    @property
    def link(self) -> str:
        """The sensors' link: ``"up"`` or ``"down"`` (always up when wired directly)."""
        return self.sensors.link

    def _drain(self, timeout: float | None) -> list[CellTransition | LinkChange | ButtonPress | ReadOut]:
        try:
            first = self.sensors.transitions.get(timeout=timeout) if timeout else self.sensors.transitions.get_nowait()
        except queue.Empty:
            return []
        items = [first]
        while True:
            try:
                items.append(self.sensors.transitions.get_nowait())
            except queue.Empty:
                break
        return items

    def _square_event(self, ct: CellTransition) -> Transition:
        return Transition(ct.t, self.layout.key_of(*ct.cell), ct.occupied, ct.state)

    def poll(self, timeout: float | None = None) -> list[Transition]:
        """Drain the transitions seen so far (waiting up to ``timeout`` for the first).

        A link that came back shows as the transitions that differ from before; see
        :meth:`poll_events` for the link's changes themselves."""
        out: list[Transition] = []
        for item in self._drain(timeout):
            if isinstance(item, LinkChange):
                out.extend(self._square_event(ct) for ct in item.changes)
            elif isinstance(item, CellTransition):
                out.append(self._square_event(item))
        return out

    def poll_events(self, timeout: float | None = None) -> list[Transition | LinkStatus | ButtonPress | ReadOut]:
        """Like :meth:`poll`, with the link's changes in their place among the transitions, and
        the presses of clock buttons wired to the board (the Pico's) and its read-out gestures."""
        out: list[Transition | LinkStatus | ButtonPress | ReadOut] = []
        for item in self._drain(timeout):
            if isinstance(item, (ButtonPress, ReadOut)):
                out.append(item)
            elif isinstance(item, LinkChange):
                squares: set[int] = set()
                names: set[str] = set()
                for cell in item.cells:
                    key = self.layout.key_of(*cell)
                    if isinstance(key, int):
                        squares.add(key)
                    else:
                        names.add(key)
                pieces: dict[int, SquareState] = {}
                for cell, state in item.states.items():
                    key = self.layout.key_of(*cell)
                    if isinstance(key, int):
                        pieces[key] = state
                out.append(LinkStatus(item.t, item.up, frozenset(squares), frozenset(names), item.lost, pieces))
            else:
                out.append(self._square_event(item))
        return out

    def show(self, intents: Iterable[tuple[int, Role]]) -> None:
        if self.leds is None:
            return
        self.leds.show({self.layout.cell_of(sq): role for sq, role in intents})

    def close(self) -> None:
        if self.closed:
            return
        self.sensors.close()
        if self.leds is not None and self.leds is not self.sensors:  # type: ignore[comparison-overlap]
            self.leds.close()
        super().close()
