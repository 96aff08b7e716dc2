"""An emulator of DGT's draughts board behind a pseudo-terminal, written from the same
header as the backend (board_hal/dgt.py): for the tests, and for anyone without the board
(``damas emulator --board dgt``).

It keeps the pieces the hands put down (``place``/``lift``/``put``) and a *scan* that runs
over the fields one by one, a full pass every ``scan_time`` seconds (the header: "a full
scan takes about 200-250 ms"): a change is seen, and reported in update mode, only when the
scan passes its field. So two changes made close together come in the order of their
fields, not of the hands (a piece can show on its new square before its old one empties),
a change undone before the scan reaches it is never seen, and every report is up to a scan
late. A dump sends what the scan has seen. It answers the commands the header describes
(reset, dumps of 100 and 50 squares, update modes, version, serial numbers, trade mark,
the scan modes) and ignores the rest. ``faults`` damages what it sends; ``chess = True``
makes it a chess board (64-square dumps), for the test of a board of the wrong kind.
The port is a symlink, removed when the cable is unplugged (as a device node goes away).
"""

from __future__ import annotations

import contextlib
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Mapping

from board_hal import dgt
from board_hal.layout import Cell
from board_hal.pty import plug_pty
from board_hal.squares import SquareState

SERIAL = b"00137"
LONG_SERIAL = b"0000000137"
TRADEMARK_TEXT = b"Emulated draughts board (damas), written from DGT's published protocol header"


class DgtFaults:
    """Damage on the line from the board: bits flipped in data bytes (``code``: a piece code
    or field number changed, still a valid message), bytes dropped, garbage inserted."""

    def __init__(self, seed: int = 0, code: float = 0.0, drop: float = 0.0, garbage: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.code, self.drop, self.garbage = code, drop, garbage
        self.flipped = 0

    def __call__(self, data: bytes) -> bytes:
        rng = self.rng
        out = bytearray()
        if rng.random() < self.garbage:
            out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 12)))
        for i, b in enumerate(data):
            if rng.random() < self.drop:
                continue
            if i >= 3 and rng.random() < self.code:
                b ^= 1 << rng.randrange(7)  # the top bit stays clear: nothing tells it apart
                self.flipped += 1
            out.append(b)
        return bytes(out)


class DgtEmulator:
    def __init__(
        self,
        pieces: Mapping[Cell, SquareState] | None = None,
        *,
        first: Cell = (dgt.SIZE - 1, 0),
        along: str = "rows",
        codes: tuple[int, ...] = dgt.CODES,
        scan_time: float = 0.2,
        faults: Callable[[bytes], bytes] | None = None,
        chess: bool = False,
        version: tuple[int, int] = (1, 4),
    ) -> None:
        self.cells = dgt.field_cells(first, along)
        self.field_of = {c: i for i, c in enumerate(self.cells)}
        self.codes = codes
        self.code = {s: c for c, s in dgt.piece_table(codes).items()}
        self.scan_time = scan_time
        self.faults = faults
        self.chess = chess
        self.version = version
        self.board: list[SquareState] = [SquareState.EMPTY] * dgt.FIELDS  # what stands there
        for cell, state in (pieces or {}).items():
            self.board[self.field_of[cell]] = state
        self.seen: list[SquareState] = list(self.board)  # what the scan has seen
        self.mode = "idle"  # idle | update
        self.scan = "100"  # the scan mode the host last wrote (the EEPROM setting)
        self.commands: list[int] = []  # every command byte received
        self.sent: list[bytes] = []  # every message sent, before faults
        self.lock = threading.Lock()
        self.dir = tempfile.mkdtemp(prefix="damas-dgt-")
        self.port = os.path.join(self.dir, "dgt")
        self._fds: tuple[int, int] | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pos = 0.0  # where the scan is (fields, fractional)
        self.plug()

    # -- the cable -----------------------------------------------------------------------------
    def plug(self) -> None:
        self._fds = plug_pty(self.port)
        master = self._fds[0]
        self.mode = "idle"  # a board powered up is idle until asked
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(self._stop, master), name="dgt-emulator", daemon=True)
        self._thread.start()

    def unplug(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.port)
        if self._fds is not None:
            for fd in self._fds:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._fds = None

    @property
    def plugged(self) -> bool:
        return self._fds is not None

    def close(self) -> None:
        self.unplug()
        with contextlib.suppress(OSError):
            os.rmdir(self.dir)

    def __enter__(self) -> DgtEmulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the hands -----------------------------------------------------------------------------
    def put(self, cell: Cell, state: SquareState) -> None:
        with self.lock:
            self.board[self.field_of[cell]] = state

    def place(self, cell: Cell, state: SquareState) -> None:
        self.put(cell, state)

    def lift(self, cell: Cell) -> None:
        self.put(cell, SquareState.EMPTY)

    def piece(self, cell: Cell) -> SquareState:
        with self.lock:
            return self.board[self.field_of[cell]]

    # -- the board's side ----------------------------------------------------------------------
    def _send(self, master: int, data: bytes) -> None:
        self.sent.append(data)
        del self.sent[:-5000]
        if self.faults is not None:
            data = self.faults(data)
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(master, data)

    def _dump(self, fields: list[int] | None = None) -> bytes:
        if self.chess:
            return dgt.message(dgt.BOARD_DUMP, bytes(64))
        with self.lock:
            if fields is None:
                return dgt.message(dgt.BOARD_DUMP, bytes(self.code[s] for s in self.seen))
            return bytes(self.code[self.seen[f]] for f in fields)

    def _command(self, master: int, cmd: int) -> None:
        self.commands.append(cmd)
        if cmd == dgt.RESET:
            self.mode = "idle"
        elif cmd == dgt.SEND_BRD:
            self._send(master, self._dump())
        elif cmd in (dgt.SEND_UPDATE, dgt.SEND_UPDATE_BRD, dgt.SEND_UPDATE_NICE):
            self.mode = "update"
        elif cmd == dgt.SEND_VERSION:
            self._send(master, dgt.message(dgt.VERSION, bytes(self.version)))
        elif cmd == dgt.RETURN_SERIALNR:
            self._send(master, dgt.message(dgt.SERIALNR, SERIAL))
        elif cmd == dgt.RETURN_LONG_SERIALNR:
            self._send(master, dgt.message(dgt.LONG_SERIALNR, LONG_SERIAL))
        elif cmd == dgt.SEND_TRADEMARK:
            self._send(master, dgt.message(dgt.TRADEMARK, bytes(b & 0x7F for b in TRADEMARK_TEXT)))
        elif cmd in (dgt.SEND_BRD_50B, dgt.SEND_BRD_50W):
            which = dgt.BOARD_DUMP_50B if cmd == dgt.SEND_BRD_50B else dgt.BOARD_DUMP_50W
            fields = dgt.fifty(self.cells, cmd == dgt.SEND_BRD_50B)
            self._send(master, dgt.message(which, self._dump(fields)))
        elif cmd in (dgt.SCAN_50B, dgt.SCAN_50W, dgt.SCAN_100):
            self.scan = {dgt.SCAN_50B: "50B", dgt.SCAN_50W: "50W", dgt.SCAN_100: "100"}[cmd]

    def _scan(self, master: int, fields: float) -> None:
        """The scan moves on by ``fields`` fields; what changed there is seen (and reported)."""
        start = int(self._pos)
        self._pos += fields
        for i in range(start, int(self._pos)):
            f = i % dgt.FIELDS
            with self.lock:
                now = self.board[f]
                if now is self.seen[f]:
                    continue
                self.seen[f] = now
            if self.mode == "update":
                self._send(master, dgt.message(dgt.FIELD_UPDATE, bytes([f, self.code[now]])))
        self._pos %= dgt.FIELDS

    def _run(self, stop: threading.Event, master: int) -> None:
        last = time.monotonic()
        while not stop.wait(0.004):
            try:
                data = os.read(master, 256)
            except (BlockingIOError, OSError):
                data = b""
            for b in data:
                self._command(master, b)
            now = time.monotonic()
            self._scan(master, round((now - last) / self.scan_time * dgt.FIELDS, 6))
            last = now
