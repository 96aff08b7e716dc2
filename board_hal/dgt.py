"""DGT's electronic draughts board (10x10) on a serial line (``backend = "dgt"``; pyserial).

The board senses every square's piece: empty, a white or black man (DGT's *disk*), a white
or black king (*crown*). The codec follows DGT's published board header (``dgtbrd.h``,
"DGT Low Level EBoard Communication", revision of 2017; see docs/dgt.md for what it says and
for DGT's notice on commercial use). From it:

- 9600 baud, 8 data bits, no parity, 1 stop bit, no handshake.
- Commands are single bytes: ``0x40`` reset (idle: no updates), ``0x42`` board dump,
  ``0x44`` update mode (a message on every change), ``0x4d`` version, ``0x50``/``0x52`` dump
  the 50 dark / light squares, ``0x51``/``0x53``/``0x54`` scan 50 dark / 50 light / all 100
  squares (written to the board's EEPROM).
- A message is ``id | size high 7 bits | size low 7 bits | data``: the id has its top bit
  set, every other byte has it clear, and the size counts the three header bytes. So a
  byte with the top bit set always starts a message: a reader that lost its place finds
  it again at the next one. There is no checksum: a damaged piece code is a valid message.
- The board dump of a draughts board is 103 bytes (100 squares), a 50-square dump 53; a
  field update is 5 bytes: field number, piece code (0 when a square became empty).
- Piece codes: 0 empty, 1 white disk, 4 black disk, 7 white crown, 10 black crown. (The
  header's history says WCROWN and BDISK were swapped in 2011: ``dgt.codes`` sets them.)
- "The situation on the board is [...] communicated with an average maximum time delay of
  200 mS"; a full scan takes 200-250 ms, square by square, so two changes can be reported
  in the opposite order (a piece seen on its new square before its old one is empty).

What the header leaves open, and what this backend assumes (each one a setting, and
``damas selftest`` checks the numbering and the piece codes on the real board):

- **The 100 fields' numbering.** The header numbers only the chess board's 64 fields: "row
  by row, in normal reading sequence [...] Field A8 is numbered 0 [...] H1 is numbered 63",
  the connector on the left. Assumed the same on the draughts board: field 0 is the far
  left corner seen from White's side (a10), fields run along the rows (``dgt.first =
  "a10"``, ``dgt.along = "rows"``).
- **The 50-square dumps.** The header says "Pieces on position 0-50" for 50 bytes, and both
  0x50 and 0x52 are commented "only the black squares" (copied from one to the other).
  Assumed: 0x50 sends the 50 dark squares, 0x52 the 50 light ones, each in ascending field
  order; used only when ``dgt.dump = 50`` (the default is the 100-square dump, which needs
  no assumption), with the set the layout plays on.
- **Field updates on a 10x10 board** are documented for fields 0-63 only; assumed 0-99 in
  the same numbering as the dump. A field number above 99 is refused.
- **Order and completeness.** Updates may come in any order within a scan, and nothing
  says none is ever lost: the backend asks for a full dump every ``dgt.dump_every`` seconds
  (default 5), which both tells that the link is alive and repairs any update that was
  lost or damaged on the way (a flipped bit in a piece code is still a valid message).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from board_hal.backends import Clock, SensorBackend, stop_worker
from board_hal.layout import Cell, cell_name
from board_hal.registry import Backend, Hardware
from board_hal.squares import Sensing, SquareState

if TYPE_CHECKING:
    from board_hal.backends import LedBackend
    from board_hal.config import Config
    from board_hal.layout import Layout

log = logging.getLogger(__name__)

BAUDRATE = 9600
SIZE = 10
FIELDS = SIZE * SIZE

# commands (PC -> board)
RESET = 0x40
SEND_CLK = 0x41
SEND_BRD = 0x42
SEND_UPDATE = 0x43
SEND_UPDATE_BRD = 0x44
RETURN_SERIALNR = 0x45
SEND_TRADEMARK = 0x47
SEND_UPDATE_NICE = 0x4B
SEND_VERSION = 0x4D
SEND_BRD_50B = 0x50
SCAN_50B = 0x51
SEND_BRD_50W = 0x52
SCAN_50W = 0x53
SCAN_100 = 0x54
RETURN_LONG_SERIALNR = 0x55

# messages (board -> PC): the id's top bit is set
MESSAGE_BIT = 0x80
BOARD_DUMP = 0x86
BWTIME = 0x8D
FIELD_UPDATE = 0x8E
EE_MOVES = 0x8F
BUSADRES = 0x90
SERIALNR = 0x91
TRADEMARK = 0x92
VERSION = 0x93
BOARD_DUMP_50B = 0x94
BOARD_DUMP_50W = 0x95
BATTERY_STATUS = 0xA0
LONG_SERIALNR = 0xA2

CHESS_DUMP_SIZE = 67  # 3 + 64: a chess board's dump
DUMP_SIZE = 3 + FIELDS  # 103
DUMP_50_SIZE = 3 + 50  # 53
#: the sizes the header fixes (a message of another size is refused); others may be any size
SIZES: dict[int, tuple[int, ...]] = {
    BOARD_DUMP: (DUMP_SIZE, CHESS_DUMP_SIZE),
    BWTIME: (10,),
    FIELD_UPDATE: (5,),
    BUSADRES: (5,),
    SERIALNR: (8,),
    VERSION: (5,),
    BOARD_DUMP_50B: (DUMP_50_SIZE,),
    BOARD_DUMP_50W: (DUMP_50_SIZE,),
    LONG_SERIALNR: (13,),
}
NAMES = {
    BOARD_DUMP: "board dump",
    BWTIME: "clock",
    FIELD_UPDATE: "field update",
    EE_MOVES: "EEPROM moves",
    BUSADRES: "bus address",
    SERIALNR: "serial number",
    TRADEMARK: "trade mark",
    VERSION: "version",
    BOARD_DUMP_50B: "50-square dump (dark)",
    BOARD_DUMP_50W: "50-square dump (light)",
    BATTERY_STATUS: "battery",
    LONG_SERIALNR: "long serial number",
}
MAX_MESSAGE = 512  # the largest we ask for is 103 bytes; an EEPROM dump (8 kB) is never asked for

#: the header's piece codes for the draughts board: white disk, black disk, white crown, black crown
CODES = (0x01, 0x04, 0x07, 0x0A)
#: before the header's change of 2011 ("swapped WCROWN and BDISK scan codes")
CODES_BEFORE_2011 = (0x01, 0x07, 0x04, 0x0A)
PIECES = (SquareState.WHITE_MAN, SquareState.BLACK_MAN, SquareState.WHITE_KING, SquareState.BLACK_KING)


class DgtError(Exception):
    """A problem with the DGT board or its line, as one line."""


# -- the codec ------------------------------------------------------------------------------------
def message(msg_id: int, data: bytes = b"") -> bytes:
    """A message as the board sends it (for the emulator and the tests)."""
    size = 3 + len(data)
    if not msg_id & MESSAGE_BIT or any(b & 0x80 for b in data) or size >= 1 << 14:
        raise ValueError("not a DGT message: the id needs its top bit, the data none, and at most 16 kB")
    return bytes([msg_id, size >> 7, size & 0x7F]) + data


@dataclass(frozen=True)
class Message:
    id: int
    data: bytes

    @property
    def name(self) -> str:
        return NAMES.get(self.id, f"message 0x{self.id:02x}")


@dataclass
class Parser:
    """Bytes from the board in, whole messages out. A byte with the top bit set starts a
    message, whatever came before: a cut or garbled message is dropped (and counted) and
    the reader is in step again at the next message's first byte."""

    max_size: int = MAX_MESSAGE
    dropped: int = 0  # messages (or runs of stray bytes) thrown away
    reason: str = ""  # why the last one was
    good: int = 0  # messages read whole
    _buf: bytearray = field(default_factory=bytearray)
    _need: int = 0
    _stray: bool = False

    def _drop(self, why: str) -> None:
        self.dropped += 1
        self.reason = why

    def feed(self, data: bytes) -> list[Message]:
        out: list[Message] = []
        buf = self._buf
        for b in data:
            if b & MESSAGE_BIT:
                if buf:
                    self._drop(f"a {NAMES.get(buf[0], f'message 0x{buf[0]:02x}')} cut short by the next message")
                buf.clear()
                buf.append(b)
                self._need = 0
                self._stray = False
                continue
            if not buf:
                if not self._stray:  # one count for a run of bytes outside any message
                    self._stray = True
                    self._drop("bytes outside a message")
                continue
            buf.append(b)
            if len(buf) == 3:
                size = (buf[1] << 7) | buf[2]
                allowed = SIZES.get(buf[0])
                if size < 3 or size > self.max_size or (allowed is not None and size not in allowed):
                    expected = f" (expected {' or '.join(map(str, allowed))})" if allowed else ""
                    self._drop(f"a {NAMES.get(buf[0], f'message 0x{buf[0]:02x}')} of {size} bytes{expected}")
                    buf.clear()
                    self._stray = True  # the rest of it is stray bytes, counted once with it
                    continue
                self._need = size
            if self._need and len(buf) == self._need:
                out.append(Message(buf[0], bytes(buf[3:])))
                self.good += 1
                buf.clear()
                self._need = 0
        return out


def piece_table(codes: Iterable[int] = CODES) -> dict[int, SquareState]:
    """Piece code -> state, for the codes of white man, black man, white king, black king."""
    codes = tuple(codes)
    table = {0: SquareState.EMPTY}
    table.update(zip(codes, PIECES, strict=True))
    return table


def decode_pieces(data: bytes, table: Mapping[int, SquareState]) -> list[SquareState]:
    """A dump's piece codes; a code that is no draughts piece refuses the whole dump."""
    out = []
    for i, code in enumerate(data):
        state = table.get(code)
        if state is None:
            raise ValueError(f"piece code 0x{code:02x} at field {i} is not a draughts piece")
        out.append(state)
    return out


def decode_update(data: bytes, table: Mapping[int, SquareState], fields: int = FIELDS) -> tuple[int, SquareState]:
    """A field update: (field, its new state); out-of-range values are refused."""
    if len(data) != 2:
        raise ValueError(f"a field update has 2 data bytes, not {len(data)}")
    fld, code = data
    if fld >= fields:
        raise ValueError(f"field {fld} is off a board of {fields} fields")
    state = table.get(code)
    if state is None:
        raise ValueError(f"piece code 0x{code:02x} on field {fld} is not a draughts piece")
    return fld, state


def encode_pieces(states: Iterable[SquareState], codes: Iterable[int] = CODES) -> bytes:
    back = {s: c for c, s in piece_table(codes).items()}
    return bytes(back[SquareState.OCCUPIED if s is SquareState.OCCUPIED else s] for s in states)


# -- the numbering ---------------------------------------------------------------------------------
ALONG = ("rows", "columns")


def field_cells(first: Cell = (SIZE - 1, 0), along: str = "rows", size: int = SIZE) -> list[Cell]:
    """The physical cell of each field, from field 0 (at corner ``first``), line by line."""
    r0, c0 = first
    if r0 not in (0, size - 1) or c0 not in (0, size - 1):
        raise ValueError(f"field 0 must be a corner, not {cell_name(first)}")
    if along not in ALONG:
        raise ValueError(f"along must be rows or columns, not {along!r}")
    dr = 1 if r0 == 0 else -1
    dc = 1 if c0 == 0 else -1
    if along == "rows":
        return [(r0 + dr * i, c0 + dc * j) for i in range(size) for j in range(size)]
    return [(r0 + dr * j, c0 + dc * i) for i in range(size) for j in range(size)]


def corners(size: int = SIZE) -> list[Cell]:
    return [(r, c) for r in (0, size - 1) for c in (0, size - 1)]


def dark(cell: Cell) -> bool:
    """A dark square of the physical board (a1, at cell (0, 0), is dark, as on every draughts board)."""
    return (cell[0] + cell[1]) % 2 == 0


def fifty(cells: list[Cell], dark_squares: bool) -> list[int]:
    """The fields a 50-square dump lists, in its order (assumed: ascending field numbers)."""
    return [i for i, c in enumerate(cells) if dark(c) == dark_squares]


def numbering_text(first: Cell, along: str) -> str:
    return f'dgt.first = "{cell_name(first)}", dgt.along = "{along}"'


def explain_numbering(seen: Mapping[int, Cell], first: Cell, along: str, size: int = SIZE) -> str | None:
    """Pieces put on known cells answered on these fields (field -> the cell the piece was
    on): None if the configured numbering fits, else the settings that do (or a line saying
    none does)."""
    if all(field_cells(first, along, size)[f] == c for f, c in seen.items()):
        return None
    for corner in corners(size):
        for way in ALONG:
            cells = field_cells(corner, way, size)
            if all(cells[f] == c for f, c in seen.items()):
                where = f"from {cell_name(corner)} along {way}"
                return f"the DGT board numbers its fields {where}: set {numbering_text(corner, way)}"
    return "the DGT board's fields fit no numbering from a corner: fields " + ", ".join(
        f"{f} at {cell_name(c)}" for f, c in sorted(seen.items())
    )


# -- the backend -----------------------------------------------------------------------------------
def describe(ser: Any, timeout: float = 2.0) -> str:
    """Ask the device on an open line who it is: its version, and a draughts board's dump.
    Raises :class:`DgtError` (one line) when it is no DGT draughts board."""
    parser = Parser()
    with contextlib.suppress(Exception):
        ser.reset_input_buffer()
    ser.write(bytes([RESET, SEND_VERSION, SEND_BRD]))
    deadline = time.monotonic() + timeout
    got = 0
    version = None
    while time.monotonic() < deadline:
        data = ser.read(max(1, getattr(ser, "in_waiting", 0) or 1))
        got += len(data)
        for msg in parser.feed(data):
            if msg.id == VERSION:
                version = f"{msg.data[0]}.{msg.data[1]:02d}"
            elif msg.id == BOARD_DUMP:
                if len(msg.data) == CHESS_DUMP_SIZE - 3:
                    raise DgtError("is a DGT chess board (a 64-square dump), not a draughts board")
                return f"a DGT draughts board{f', version {version}' if version else ''}"
    if not got:
        raise DgtError(f"does not answer in {timeout:g} s: is it a DGT board, switched on, at {BAUDRATE} baud?")
    if not parser.good:
        raise DgtError(f"is not a DGT board: it answered {got} byte(s) that are no DGT message")
    last = parser.reason or "none"
    raise DgtError(f"answers, but sends no draughts board dump in {timeout:g} s (the last problem: {last})")


class DgtBoard(SensorBackend):
    """The board behind a serial port: a full dump at every (re)connection, then updates;
    a full dump again every ``dump_every`` seconds (the link's heartbeat, and the repair of
    anything an update got wrong)."""

    senses = Sensing.CROWN

    def __init__(
        self,
        url: str,
        *,
        first: Cell = (SIZE - 1, 0),
        along: str = "rows",
        codes: Iterable[int] = CODES,
        dump: int = 100,
        dark_squares: bool = True,
        dump_every: float = 5.0,
        silence: float = 3.0,
        baudrate: int = BAUDRATE,
        clock: Clock = time.monotonic,
        backoff: tuple[float, float] = (0.1, 2.0),
    ) -> None:
        SensorBackend.__init__(self, SIZE, clock)
        self._link_up = False
        self.url = url
        self.baudrate = baudrate
        self.first, self.along = first, along
        self.cells = field_cells(first, along)
        self.codes = tuple(codes)
        self.table = piece_table(self.codes)
        self.dump = dump
        self.fifty = fifty(self.cells, dark_squares)
        self.dump_every = dump_every
        self.silence = silence
        self.backoff = backoff
        self._fields: list[SquareState] = [SquareState.EMPTY] * FIELDS
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._first = threading.Event()
        self._thread: threading.Thread | None = None
        self._started = False
        self._serial: Any = None
        self.version: str | None = None
        self.last_error: str | None = None
        self.raw: list[tuple[int, SquareState]] = []  # every field update as it came (the self-test reads it)
        self.stats = {"messages": 0, "dropped": 0, "refused": 0, "updates": 0, "dumps": 0, "repaired": 0}
        self.stats.update({"connects": 0, "disconnects": 0})
        self._last_dump = 0.0  # when the last full dump came (time.monotonic())

    # -- running ---------------------------------------------------------------------------------
    def start(self, wait: float = 3.0) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="dgt", daemon=True)
            self._thread.start()
        self._first.wait(wait)
        with self._lock:
            self._started = True

    def _open(self) -> Any:
        import serial

        return serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.05, write_timeout=0.5)

    def _run(self) -> None:
        delay = self.backoff[0]
        while not self._stop.is_set():
            try:
                ser = self._open()
            except Exception as exc:
                log.debug("cannot open %s (again in %.1f s): %s", self.url, delay, exc)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff[1])
                continue
            delay = self.backoff[0]
            self.stats["connects"] += 1
            self._serial = ser
            try:
                self._session(ser)
            except Exception as exc:
                if not self._stop.is_set():
                    log.warning("the link to the DGT board on %s broke: %s", self.url, str(exc) or type(exc).__name__)
            finally:
                self._serial = None
                if self._link_up:
                    self._link_change(False, self.clock())
                with contextlib.suppress(Exception):
                    ser.close()
                self.stats["disconnects"] += 1
            if not self._stop.is_set():
                self._stop.wait(delay)

    def _ask_dump(self, ser: Any) -> None:
        if self.dump == 50:
            ser.write(bytes([SEND_BRD_50B if self.fifty == fifty(self.cells, True) else SEND_BRD_50W]))
        else:
            ser.write(bytes([SEND_BRD]))

    def _session(self, ser: Any) -> None:
        """One connection: updates on, then dumps until two in a row agree (the board as it
        is: a dump has no checksum either), then updates, and a dump every ``dump_every``."""
        parser = Parser()
        ser.write(bytes([RESET, SEND_VERSION, SEND_UPDATE_BRD]))
        self._ask_dump(ser)
        heard = asked = time.monotonic()  # the last whole message; the dump awaited since then
        synced = False  # this connection's board is known
        candidate: list[SquareState] | None = None  # the last dump, until the next agrees with it
        while not self._stop.is_set():
            data = ser.read(max(1, ser.in_waiting))
            now = time.monotonic()
            dropped = parser.dropped
            for msg in parser.feed(data):
                self.stats["messages"] += 1
                heard = now
                try:
                    dumped = self._handle(msg, synced)
                except ValueError as exc:
                    self.stats["refused"] += 1
                    log.debug("the DGT board on %s: a %s refused (%s)", self.url, msg.name, exc)
                    continue
                if dumped is None:
                    continue
                if dumped != candidate:  # the first, or the board changed (or the line lied): again
                    candidate = dumped
                    self._ask_dump(ser)
                    asked = now
                    continue
                self._dump(dumped, synced)
                synced = True
                candidate = None
                asked = 0.0
            if parser.dropped != dropped:
                self.stats["dropped"] += parser.dropped - dropped
                log.debug(
                    "the DGT board on %s: dropped %d (the last: %s)", self.url, parser.dropped - dropped, parser.reason
                )
            if asked and now - heard > self.silence:
                raise DgtError(f"no answer in {self.silence:g} s")
            lost = asked and now - asked > self.silence / 2  # the request, or the dump, was lost
            due = not asked and self.dump_every and now - self._last_dump >= self.dump_every
            if lost or due:
                self._ask_dump(ser)
                asked = now

    def _handle(self, msg: Message, synced: bool) -> list[SquareState] | None:
        """A message from the board; a dump's whole board is returned (not applied yet)."""
        if msg.id == VERSION:
            self.version = f"{msg.data[0]}.{msg.data[1]:02d}"
            return None
        if msg.id == BOARD_DUMP:
            if len(msg.data) != FIELDS:
                self.last_error = f"the board on {self.url} is a DGT chess board (a 64-square dump)"
                raise ValueError("a chess board's dump")
            return decode_pieces(msg.data, self.table)
        if msg.id in (BOARD_DUMP_50B, BOARD_DUMP_50W):
            fields = fifty(self.cells, msg.id == BOARD_DUMP_50B)
            if fields != self.fifty:
                raise ValueError("a dump of the squares this layout does not play on")
            with self._lock:
                board = [SquareState.EMPTY] * FIELDS  # the squares not played on: empty
            for f, state in zip(fields, decode_pieces(msg.data, self.table), strict=True):
                board[f] = state
            return board
        if msg.id == FIELD_UPDATE:
            fld, state = decode_update(msg.data, self.table)
            self.raw.append((fld, state))
            del self.raw[:-1000]
            self.stats["updates"] += 1
            self._update(fld, state, synced)
        return None

    def _states(self) -> dict[Cell, SquareState]:
        return {self.cells[f]: s for f, s in enumerate(self._fields) if s.occupied}

    def _dump(self, board: list[SquareState], synced: bool) -> None:
        """A full dump (two in a row alike): the starting state, a resync after a reconnect,
        or the periodic check, which repairs what an update lost or got wrong."""
        self.stats["dumps"] += 1
        self._last_dump = time.monotonic()
        now = self.clock()
        with self._lock:
            old = list(self._fields)
            self._fields = list(board)
            changed = [f for f in range(FIELDS) if old[f] != board[f]]
            new_states = self._states()
            first = not self._first.is_set()
            late = self._started
        if first:
            self._first.set()
            if late:
                self._link_change(True, now, frozenset(new_states), [self.cells[f] for f in changed], states=new_states)
            else:
                self._link_up = True
            return
        if not synced:  # a reconnection: the whole board, what happened meanwhile known only as a result
            self._link_change(True, now, frozenset(new_states), [self.cells[f] for f in changed], states=new_states)
            return
        if changed:
            self.stats["repaired"] += len(changed)
            log.info("the DGT board on %s: a full dump corrected %d square(s)", self.url, len(changed))
            for f in changed:
                self._emit(self.cells[f], board[f].occupied, now, board[f])

    def _update(self, fld: int, state: SquareState, synced: bool) -> None:
        if not synced:
            return  # the dumps that are still to come hold it
        with self._lock:
            if self._fields[fld] is state:
                return
            self._fields[fld] = state
        self._emit(self.cells[fld], state.occupied, None, state)

    # -- the backend interface -------------------------------------------------------------------
    def snapshot(self) -> frozenset[Cell]:
        with self._lock:
            return frozenset(self._states())

    def states(self) -> dict[Cell, SquareState]:
        with self._lock:
            return self._states()

    def explain_placement(self, seen: Mapping[Cell, Cell]) -> str | None:
        """The self-test's placement check: pieces put on ``expected`` cells answered at
        ``got`` cells (through the configured numbering); the numbering that fits, if another."""
        by_field = {self.cells.index(got): expected for expected, got in seen.items()}
        return explain_numbering(by_field, self.first, self.along)

    def explain_pieces(self, seen: Mapping[SquareState, int]) -> str | None:
        """Known pieces put down answered with these raw codes (piece -> code): None if the
        configured codes fit, else the setting that does."""
        want = dict(zip(PIECES, self.codes, strict=True))
        if all(want[p] == c for p, c in seen.items()):
            return None
        for name, codes in (("the header's (2011 on)", CODES), ("the header's before 2011", CODES_BEFORE_2011)):
            if all(dict(zip(PIECES, codes, strict=True))[p] == c for p, c in seen.items()):
                return f"the DGT board uses {name} piece codes: set dgt.codes = [{', '.join(map(str, codes))}]"
        got = ", ".join(f"{p.code} = {c}" for p, c in seen.items())
        return f"the DGT board's piece codes are {got}: set dgt.codes to white man, black man, white king, black king"

    def code_of(self, state: SquareState) -> int:
        return dict(zip(PIECES, self.codes, strict=True))[state]

    def close(self) -> None:
        if self.closed:
            return
        stop_worker(self._stop, self._thread, timeout=2.0)
        super().close()


# -- registration ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Settings:
    port: str | None = None
    first: Cell = (SIZE - 1, 0)
    along: str = "rows"
    codes: tuple[int, ...] = CODES
    dump: int = 100
    dump_every: float = 5.0


_KEYS = {"port", "first", "along", "codes", "dump", "dump_every"}


class Dgt(Backend):
    summary = "DGT's electronic draughts board (10x10) on a serial port: colour and crowns, no LEDs"
    sensors = True
    leds = False
    senses = Sensing.CROWN

    def check(self, table: Mapping[str, Any], config: Config) -> Settings:
        from board_hal.config import ConfigError

        src = config.source

        def fail(msg: str) -> ConfigError:
            return ConfigError(f"{src}: {msg}")

        for key in table:
            if key not in _KEYS:
                raise fail(f"unknown setting dgt.{key[:40]} (known: {', '.join(sorted(_KEYS))})")
        if config.size not in (None, SIZE):
            raise fail(f"the DGT draughts board is 10x10, but board.size is {config.size}")
        port = table.get("port")
        if port is not None and (not isinstance(port, str) or not port):
            raise fail(f"dgt.port must be a device path such as /dev/ttyUSB0, not {port!r:.60}")
        first = table.get("first", "a10")
        cell = _cell(first)
        if cell is None:
            raise fail(f'dgt.first must be a corner of the board ("a1", "a10", "j1" or "j10"), not {first!r:.40}')
        along = table.get("along", "rows")
        if along not in ALONG:
            raise fail(f'dgt.along must be "rows" or "columns", not {along!r:.40}')
        codes = table.get("codes", list(CODES))
        if (
            not isinstance(codes, list)
            or len(codes) != 4
            or not all(isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 0x7F for c in codes)
            or len(set(codes)) != 4
        ):
            what = "4 different piece codes (white man, black man, white king, black king)"
            raise fail(f"dgt.codes must be {what}, not {codes!r:.60}")
        dump = table.get("dump", 100)
        if dump not in (50, 100) or isinstance(dump, bool):
            raise fail(f"dgt.dump must be 100 (every square) or 50 (the squares played on), not {dump!r:.40}")
        every = table.get("dump_every", 5.0)
        if not isinstance(every, (int, float)) or isinstance(every, bool) or not (every == 0 or 0.5 <= every <= 3600):
            raise fail(f"dgt.dump_every must be seconds between 0.5 and 3600 (0: never), not {every!r:.40}")
        return Settings(port, cell, along, tuple(codes), dump, float(every))

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        from board_hal.config import ConfigError

        s: Settings = config.backend_settings.get(self.name) or Settings()
        port = s.port or find_port()
        if port is None:
            raise ConfigError(f"{config.source}: dgt.port is not set and no USB serial adapter was found: set dgt.port")
        if "://" not in port and not Path(port).exists() and not hw.wait_for_device:
            raise ConfigError(f"{config.source}: dgt.port: {port} does not exist (is the DGT board plugged in?)")
        if not hw.wait_for_device:
            probe(port, config.source)
        playing_dark = all(dark(layout.cell_of(sq)) for sq in layout.geometry.squares())
        board = DgtBoard(
            port,
            first=s.first,
            along=s.along,
            codes=s.codes,
            dump=s.dump,
            dark_squares=playing_dark,
            dump_every=s.dump_every,
            clock=hw.clock,
        )
        return board, None


def probe(port: str, source: str = "<config>", timeout: float = 2.0) -> str:
    """Open ``port`` and check that a DGT draughts board answers (one line if not)."""
    from board_hal.config import ConfigError

    try:
        import serial

        ser = serial.serial_for_url(port, baudrate=BAUDRATE, timeout=0.05, write_timeout=0.5)
    except Exception as exc:
        raise ConfigError(f"{source}: dgt.port: cannot open {port}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return describe(ser, timeout)
    except DgtError as exc:
        raise ConfigError(f"{source}: dgt.port: the device on {port} {exc}") from None
    except Exception as exc:  # the line broke while asking
        raise ConfigError(f"{source}: dgt.port: {port}: {exc}") from None
    finally:
        with contextlib.suppress(Exception):
            ser.close()


def find_port() -> str | None:
    """The first USB serial adapter (DGT's boards come with one, or a USB cable of their own)."""
    from serial.tools import list_ports

    for p in sorted(list_ports.comports(), key=lambda p: p.device):
        if p.device.startswith(("/dev/ttyUSB", "/dev/ttyACM")) and p.vid != 0x2E8A:  # not a Pico
            return str(p.device)
    return None


def _cell(name: Any) -> Cell | None:
    if not isinstance(name, str) or len(name) < 2 or name[0] not in "aj" or name[1:] not in ("1", "10"):
        return None
    return (int(name[1:]) - 1, "abcdefghij".index(name[0]))


BACKEND = Dgt()
