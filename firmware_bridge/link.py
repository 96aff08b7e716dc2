"""The link protocol between the host and the board's microcontroller (hardware/protocol.md).

This one file runs on both sides: CPython on the host and MicroPython on the Pico (it is
copied there as ``link.py``), so it keeps to what MicroPython has: ``struct`` and
``binascii.crc32`` (MicroPython has no ``binascii.crc_hqx``), no dataclasses, no typing.

A frame is ``version, type, sequence (u16 LE), payload, CRC-32 (u32 LE) of all before``,
COBS-encoded, between two zero bytes. A decoder drops anything that is not a whole,
valid frame and picks up again at the next zero.

Protocol 3 adds to protocol 2 (both sides speak both; HELLO settles which): the strip
layout, row settling time and watchdog in CONFIG, why the board started in HELLO, and the
frames of the talking board (BUTTON's gesture fields) and of colour sensing (SQUARES,
FIELDS, CALIBRATE). Payloads only grow at the end: readers take the fields they know.
"""

import binascii
import struct

VERSION = 3  # 2: the clock's buttons (BUTTON frames, press counts in HELLO); 3: see above
SPEAKS = (3, 2)  # the versions this codec speaks, newest first
DELIMITER = b"\x00"
MAX_FRAME = 1024  # bytes of a decoded frame; longer input is garbage

# message types
HELLO = 1  # host -> board: who are you?  board -> host: version, firmware, size, LED count
SNAPSHOT = 2  # board -> host: the whole occupancy, on every change and as a heartbeat
LEDS = 3  # host -> board: colours and blink patterns of the lit cells
CONFIG = 4  # host -> board: scan rate, debounce time, heartbeat period
ERROR = 5  # board -> host: an error code and a text
REPL = 6  # host -> board: stop, give the serial line back to the MicroPython REPL (updates)
BUTTON = 7  # board -> host: the clock's two buttons were pressed (counts since start-up)
SQUARES = 8  # board -> host (3): each cell's state (empty, white/black man/king, occupied)
FIELDS = 9  # host -> board (3): send your field readings; board -> host: one per cell
CALIBRATE = 10  # host -> board (3): field thresholds of a linear-sensor board

NAMES = {
    HELLO: "hello",
    SNAPSHOT: "snapshot",
    LEDS: "leds",
    CONFIG: "config",
    ERROR: "error",
    REPL: "repl",
    BUTTON: "button",
    SQUARES: "squares",
    FIELDS: "fields",
    CALIBRATE: "calibrate",
}

# HELLO's features (protocol 3): what a firmware does
STRIP_ORDER = 1  # CONFIG's strip layout is used
WATCHDOG = 2  # CONFIG's watchdog field arms one
COLOUR = 4  # the board sends SQUARES instead of SNAPSHOT
GESTURES = 8  # BUTTON carries held / read-out / chords, and is sent on releases too
FIELD_READINGS = 16  # the board answers FIELDS and takes CALIBRATE
CROWNS = 32  # a colour board that tells kings from men (states 3 and 4: linear sensors)

# HELLO's reset (protocol 3): why the board last started
RESET_POWER = 0  # power-on, or not known
RESET_WATCHDOG = 1  # its watchdog restarted it: the firmware hung or failed
RESET_REQUESTED = 2  # machine.reset(), mpremote reset

# a square's state (SQUARES)
EMPTY = 0
WHITE_MAN = 1
BLACK_MAN = 2
WHITE_KING = 3
BLACK_KING = 4
OCCUPIED = 5  # colour not known (6-15: reserved, read as this)

# ERROR codes
BAD_FRAME = 1  # a frame the board could not use
FAILED = 2  # (3) the firmware failed: the text names the exception

# CONFIG (protocol 3): a scan rate, debounce time or heartbeat of 65535 keeps the board's own
KEEP = 0xFFFF

# CONFIG's strip layout (protocol 3)
ALONG_ROWS = 0
ALONG_COLUMNS = 1
SERPENTINE = 0
MATRIX = 1


class VersionError(ValueError):
    """A whole, valid frame of another protocol version: a peer to refuse, with a clear message."""

    def __init__(self, version: int, kind: int) -> None:
        super().__init__("protocol version " + str(version))
        self.version = version
        self.kind = kind


# LED patterns
OFF = 0
STEADY = 1
SLOW = 2  # 1 Hz
FAST = 3  # 4 Hz


def crc32(data: bytes) -> int:
    return binascii.crc32(data) & 0xFFFFFFFF


def cobs_encode(data: bytes) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no zero byte."""
    out = bytearray(b"\x00")
    code_at = 0
    code = 1
    for b in data:
        if b == 0:
            out[code_at] = code
            code_at = len(out)
            out.append(0)
            code = 1
        else:
            out.append(b)
            code += 1
            if code == 0xFF:
                out[code_at] = code
                code_at = len(out)
                out.append(0)
                code = 1
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """The inverse of :func:`cobs_encode`; raises ValueError for input no encoder makes."""
    if DELIMITER in data:
        raise ValueError("zero byte inside a COBS block")
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        end = i + code
        if end > n:
            raise ValueError("COBS block runs past the end")
        out.extend(data[i + 1 : end])
        i = end
        if code < 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode(kind: int, seq: int, payload: bytes = b"", version: int | None = None) -> bytes:
    """A whole frame, ready to write: 0x00 + COBS(header + payload + CRC) + 0x00.

    The leading zero costs a byte and means line noise just before a frame cannot
    merge with it: the receiver is back in step at the next frame. (``version``: only to
    answer a peer of another version in its own, so that it can refuse us clearly.)"""
    body = struct.pack("<BBH", VERSION if version is None else version, kind, seq & 0xFFFF) + payload
    return DELIMITER + cobs_encode(body + struct.pack("<I", crc32(body))) + DELIMITER


def decode(frame: bytes, version: int | None = None) -> tuple:  # type: ignore[type-arg]
    """(type, seq, payload) of one frame of ``version`` without its delimiter; ValueError if it
    is not valid (:class:`VersionError` for a whole, valid frame of another version)."""
    raw = cobs_decode(frame)
    if len(raw) < 8:
        raise ValueError("frame too short")
    body = raw[:-4]
    (crc,) = struct.unpack("<I", raw[-4:])
    if crc32(body) != crc:
        raise ValueError("bad CRC")
    expected = VERSION if version is None else version
    version, kind, seq = struct.unpack("<BBH", body[:4])
    if version != expected:
        raise VersionError(version, kind)
    return kind, seq, bytes(body[4:])


class Deframer:
    """Splits a byte stream into valid frames of ``version`` (the one this side speaks now;
    each side changes it as HELLO settles it); counts what it had to throw away, and says why
    it threw away the last (``reason``: the host logs it, so that a noisy line is diagnosable)."""

    def __init__(self, version: int | None = None) -> None:
        self.version = VERSION if version is None else version
        self.buf = bytearray()
        self.dropped = 0
        self.reason = ""  # why the last frame was dropped
        self.foreign = None  # (version, type) of the last valid frame of another protocol version

    def feed(self, data: bytes) -> list:  # type: ignore[type-arg]
        out = []
        for b in data:
            if b == 0:
                if self.buf:
                    try:
                        out.append(decode(bytes(self.buf), self.version))
                    except ValueError as exc:
                        self.dropped += 1
                        self.reason = str(exc)
                        if isinstance(exc, VersionError):
                            self.foreign = (exc.version, exc.kind)  # type: ignore[assignment]
                self.buf = bytearray()
            elif len(self.buf) < MAX_FRAME * 2:
                self.buf.append(b)
            else:  # garbage without a delimiter: forget it
                self.buf = bytearray()
                self.dropped += 1
                self.reason = "no frame delimiter in " + str(MAX_FRAME * 2) + " bytes"
        return out


# -- payloads ---------------------------------------------------------------------------
def pack_hello(
    firmware: tuple,  # type: ignore[type-arg]
    rows: int,
    cols: int,
    leds: int,
    presses: tuple = (0, 0),  # type: ignore[type-arg]
    features: int = 0,
    reset: int = 0,
    watchdog_ms: int = 0,
    uptime_ms: int = 0,
    protocol: int | None = None,
) -> bytes:
    """``presses``: how many times each clock button (white's, black's) was pressed since
    start-up. Protocol 3 adds what the firmware does (``features``), why it last started
    (``reset``), its watchdog's timeout (0: off) and its uptime; ``protocol`` 2 leaves them out."""
    if protocol is None:
        protocol = VERSION
    out = struct.pack("<BBBBBHHH", protocol, firmware[0], firmware[1], rows, cols, leds, presses[0], presses[1])
    if protocol >= 3:
        out += struct.pack("<BBHI", features, reset, watchdog_ms, uptime_ms & 0xFFFFFFFF)
    return out


def unpack_hello(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(protocol, (major, minor), rows, cols, leds); see :func:`hello_presses` and
    :func:`hello_board` for the rest."""
    if len(payload) < 7:
        raise ValueError("short hello")
    proto, major, minor, rows, cols, leds = struct.unpack("<BBBBBH", payload[:7])
    return proto, (major, minor), rows, cols, leds


def hello_presses(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """The button press counts a protocol-2 HELLO carries (white's, black's)."""
    if len(payload) < 11:
        raise ValueError("hello without press counts")
    return struct.unpack("<HH", payload[7:11])


def hello_board(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(features, reset, watchdog ms, uptime ms) of a protocol-3 HELLO; a shorter (protocol-2)
    one: no features, reset not known, no watchdog, uptime not known (None)."""
    if len(payload) < 19:
        return 0, RESET_POWER, 0, None
    return struct.unpack("<BBHI", payload[11:19])


def pack_button(
    white: int, black: int, uptime_ms: int, held: int | None = None, readout: int = 0, chords: int = 0
) -> bytes:
    """The press counts of both clock buttons since start-up (each wraps at 65536). A board
    with the gestures feature (protocol 3) adds which buttons are down now (``held``: bit 0
    white's, bit 1 black's, bit 2 the read-out button's), the read-out button's press count
    and how many times both clock buttons were down together (``chords``)."""
    out = struct.pack("<HHI", white & 0xFFFF, black & 0xFFFF, uptime_ms & 0xFFFFFFFF)
    if held is not None:
        out += struct.pack("<BHH", held, readout & 0xFFFF, chords & 0xFFFF)
    return out


def unpack_button(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(white presses, black presses, uptime in ms); :func:`button_gestures` for the rest."""
    if len(payload) != 8 and len(payload) < 13:
        raise ValueError("bad button size")
    return struct.unpack("<HHI", payload[:8])


def button_gestures(payload: bytes) -> tuple | None:  # type: ignore[type-arg]
    """(held, read-out presses, chords) of a BUTTON from a board with the gestures feature, else None."""
    if len(payload) < 13:
        return None
    return struct.unpack("<BHH", payload[8:13])


def pack_snapshot(rows: int, cols: int, cells: list, uptime_ms: int) -> bytes:  # type: ignore[type-arg]
    """``cells``: the occupied cell indexes (row * cols + col)."""
    bits = bytearray((rows * cols + 7) // 8)
    for i in cells:
        bits[i >> 3] |= 1 << (i & 7)
    return struct.pack("<BBI", rows, cols, uptime_ms & 0xFFFFFFFF) + bytes(bits)


def unpack_snapshot(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(rows, cols, occupied cell indexes, uptime in ms)."""
    if len(payload) < 6:
        raise ValueError("short snapshot")
    rows, cols, uptime = struct.unpack("<BBI", payload[:6])
    bits = payload[6:]
    if len(bits) != (rows * cols + 7) // 8:
        raise ValueError("snapshot size does not match its board")
    cells = [i for i in range(rows * cols) if bits[i >> 3] & (1 << (i & 7))]
    return rows, cols, cells, uptime


def pack_leds(entries: list) -> bytes:  # type: ignore[type-arg]
    """``entries``: (cell index, r, g, b, pattern) for every lit cell."""
    out = bytearray(struct.pack("<H", len(entries)))
    for index, r, g, b, pattern in entries:
        out.extend(struct.pack("<BBBBB", index, r, g, b, pattern))
    return bytes(out)


def unpack_leds(payload: bytes) -> list:  # type: ignore[type-arg]
    if len(payload) < 2:
        raise ValueError("short leds")
    (n,) = struct.unpack("<H", payload[:2])
    if len(payload) != 2 + 5 * n:
        raise ValueError("leds size does not match its count")
    return [struct.unpack("<BBBBB", payload[2 + 5 * i : 7 + 5 * i]) for i in range(n)]


def pack_config(
    scan_hz: int,
    debounce_ms: int,
    heartbeat_ms: int,
    settle_us: int | None = None,
    strip: tuple | None = None,  # type: ignore[type-arg]
    watchdog_ms: int = 0,
) -> bytes:
    """Protocol 2's 6 bytes; with ``settle_us`` the protocol-3 fields too: the row settling time,
    the strip layout ``((first row, first column), along, order)`` and the watchdog's timeout."""
    out = struct.pack("<HHH", scan_hz, debounce_ms, heartbeat_ms)
    if settle_us is not None:
        (first_row, first_col), along, order = strip or ((0, 0), ALONG_ROWS, MATRIX)
        out += struct.pack("<HBBBBH", settle_us, first_row, first_col, along, order, watchdog_ms)
    return out


def unpack_config(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(scan rate Hz, debounce ms, heartbeat ms); :func:`config_board` for protocol 3's fields."""
    if len(payload) != 6 and len(payload) < 14:
        raise ValueError("bad config size")
    return struct.unpack("<HHH", payload[:6])


def config_board(payload: bytes) -> tuple | None:  # type: ignore[type-arg]
    """(settle µs, ((first row, first column), along, order), watchdog ms) of a protocol-3
    CONFIG; None for protocol 2's 6 bytes."""
    if len(payload) < 14:
        return None
    settle, first_row, first_col, along, order, watchdog = struct.unpack("<HBBBBH", payload[6:14])
    return settle, ((first_row, first_col), along, order), watchdog


def pack_error(code: int, text: str) -> bytes:
    return struct.pack("<B", code) + text.encode()[:200]


def unpack_error(payload: bytes) -> tuple:  # type: ignore[type-arg]
    if not payload:
        raise ValueError("short error")
    return payload[0], payload[1:].decode("utf-8", "replace")


def strip_position(cell: int, rows: int, cols: int, strip: tuple) -> int:  # type: ignore[type-arg]
    """The position on the LED strip of cell index ``cell`` (``row * cols + col``), for a strip
    laid ``((first row, first column), along, order)`` (protocol.md, LEDS); ValueError if the
    first LED is not at a corner or ``along``/``order`` are not 0 or 1."""
    (r0, c0), along, order = strip
    if r0 not in (0, rows - 1) or c0 not in (0, cols - 1):
        raise ValueError("the strip must start at a corner")
    if along not in (ALONG_ROWS, ALONG_COLUMNS) or order not in (SERPENTINE, MATRIX):
        raise ValueError("bad strip layout")
    r, c = divmod(cell, cols)
    i, j = abs(r - r0), abs(c - c0)
    length = cols
    if along == ALONG_COLUMNS:
        i, j, length = j, i, rows
    if order == SERPENTINE and i % 2:
        j = length - 1 - j
    return int(i * length + j)


# -- protocol 3: colour sensing ---------------------------------------------------------------
def pack_squares(rows: int, cols: int, states: list, uptime_ms: int) -> bytes:  # type: ignore[type-arg]
    """``states``: one per cell (EMPTY, WHITE_MAN, ... OCCUPIED), 4 bits each, low nibble first."""
    out = bytearray((rows * cols + 1) // 2)
    for i, state in enumerate(states):
        out[i >> 1] |= (state & 0x0F) << (4 * (i & 1))
    return struct.pack("<BBI", rows, cols, uptime_ms & 0xFFFFFFFF) + bytes(out)


def unpack_squares(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(rows, cols, states, uptime in ms); reserved states (6-15) read as OCCUPIED."""
    if len(payload) < 6:
        raise ValueError("short squares")
    rows, cols, uptime = struct.unpack("<BBI", payload[:6])
    if len(payload) != 6 + (rows * cols + 1) // 2:
        raise ValueError("squares size does not match its board")
    states = []
    for i in range(rows * cols):
        state = payload[6 + (i >> 1)] >> (4 * (i & 1)) & 0x0F
        states.append(state if state <= OCCUPIED else OCCUPIED)
    return rows, cols, states, uptime


def pack_fields(rows: int, cols: int, readings: list, uptime_ms: int) -> bytes:  # type: ignore[type-arg]
    """One signed reading per cell (the sensor's units; positive: a north pole up)."""
    out = bytearray(struct.pack("<BBI", rows, cols, uptime_ms & 0xFFFFFFFF))
    for value in readings:
        out.extend(struct.pack("<h", max(-32768, min(32767, value))))
    return bytes(out)


def unpack_fields(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(rows, cols, readings, uptime in ms) of a board's FIELDS answer."""
    if len(payload) < 6:
        raise ValueError("short fields")
    rows, cols, uptime = struct.unpack("<BBI", payload[:6])
    if len(payload) != 6 + 2 * rows * cols:
        raise ValueError("fields size does not match its board")
    return rows, cols, [struct.unpack("<h", payload[6 + 2 * i : 8 + 2 * i])[0] for i in range(rows * cols)], uptime


def pack_calibrate(present: int, king: int) -> bytes:
    return struct.pack("<HH", present, king)


def unpack_calibrate(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(present, king): a linear-sensor board's field thresholds (0: keep the firmware's own)."""
    if len(payload) < 4:
        raise ValueError("short calibrate")
    return struct.unpack("<HH", payload[:4])
