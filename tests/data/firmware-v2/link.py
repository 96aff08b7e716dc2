"""The link protocol between the host and the board's microcontroller (hardware/protocol.md).

This one file runs on both sides: CPython on the host and MicroPython on the Pico (it is
copied there as ``link.py``), so it keeps to what MicroPython has: ``struct`` and
``binascii.crc32`` (MicroPython has no ``binascii.crc_hqx``), no dataclasses, no typing.

A frame is ``version, type, sequence (u16 LE), payload, CRC-32 (u32 LE) of all before``,
COBS-encoded, between two zero bytes. A decoder drops anything that is not a whole,
valid frame and picks up again at the next zero.
"""

import binascii
import struct

VERSION = 2  # 2: the clock's buttons (BUTTON frames, press counts in HELLO)
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

NAMES = {
    HELLO: "hello",
    SNAPSHOT: "snapshot",
    LEDS: "leds",
    CONFIG: "config",
    ERROR: "error",
    REPL: "repl",
    BUTTON: "button",
}


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


def decode(frame: bytes) -> tuple:  # type: ignore[type-arg]
    """(type, seq, payload) of one frame without its delimiter; ValueError if it is not valid."""
    raw = cobs_decode(frame)
    if len(raw) < 8:
        raise ValueError("frame too short")
    body = raw[:-4]
    (crc,) = struct.unpack("<I", raw[-4:])
    if crc32(body) != crc:
        raise ValueError("bad CRC")
    version, kind, seq = struct.unpack("<BBH", body[:4])
    if version != VERSION:
        raise VersionError(version, kind)
    return kind, seq, bytes(body[4:])


class Deframer:
    """Splits a byte stream into valid frames; counts what it had to throw away, and says why
    it threw away the last (``reason``: the host logs it, so that a noisy line is diagnosable)."""

    def __init__(self) -> None:
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
                        out.append(decode(bytes(self.buf)))
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
def pack_hello(firmware: tuple, rows: int, cols: int, leds: int, presses: tuple = (0, 0)) -> bytes:  # type: ignore[type-arg]
    """``presses``: how many times each clock button (white's, black's) was pressed since start-up."""
    return struct.pack("<BBBBBHHH", VERSION, firmware[0], firmware[1], rows, cols, leds, presses[0], presses[1])


def unpack_hello(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(protocol, (major, minor), rows, cols, leds); see :func:`hello_presses` for the rest."""
    if len(payload) < 7:
        raise ValueError("short hello")
    proto, major, minor, rows, cols, leds = struct.unpack("<BBBBBH", payload[:7])
    return proto, (major, minor), rows, cols, leds


def hello_presses(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """The button press counts a protocol-2 HELLO carries (white's, black's)."""
    if len(payload) < 11:
        raise ValueError("hello without press counts")
    return struct.unpack("<HH", payload[7:11])


def pack_button(white: int, black: int, uptime_ms: int) -> bytes:
    """The press counts of both clock buttons since start-up (each wraps at 65536)."""
    return struct.pack("<HHI", white & 0xFFFF, black & 0xFFFF, uptime_ms & 0xFFFFFFFF)


def unpack_button(payload: bytes) -> tuple:  # type: ignore[type-arg]
    """(white presses, black presses, uptime in ms)."""
    if len(payload) != 8:
        raise ValueError("bad button size")
    return struct.unpack("<HHI", payload)


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


def pack_config(scan_hz: int, debounce_ms: int, heartbeat_ms: int) -> bytes:
    return struct.pack("<HHH", scan_hz, debounce_ms, heartbeat_ms)


def unpack_config(payload: bytes) -> tuple:  # type: ignore[type-arg]
    if len(payload) != 6:
        raise ValueError("bad config size")
    return struct.unpack("<HHH", payload)


def pack_error(code: int, text: str) -> bytes:
    return struct.pack("<B", code) + text.encode()[:200]


def unpack_error(payload: bytes) -> tuple:  # type: ignore[type-arg]
    if not payload:
        raise ValueError("short error")
    return payload[0], payload[1:].decode("utf-8", "replace")
