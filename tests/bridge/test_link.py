"""The frame codec: COBS and CRC-32 on known vectors, round trips, damaged streams."""

from __future__ import annotations

import binascii
import random
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import link


def test_cobs_known_vectors() -> None:
    # the examples of Cheshire & Baker's paper (and of Wikipedia's COBS article)
    vectors = {
        b"\x00": b"\x01\x01",
        b"\x00\x00": b"\x01\x01\x01",
        b"\x00\x11\x00": b"\x01\x02\x11\x01",
        b"\x11\x22\x00\x33": b"\x03\x11\x22\x02\x33",
        b"\x11\x22\x33\x44": b"\x05\x11\x22\x33\x44",
        b"\x11\x00\x00\x00": b"\x02\x11\x01\x01\x01",
        bytes(range(1, 255)): b"\xff" + bytes(range(1, 255)) + b"\x01",
        bytes(range(0, 255)): b"\x01\xff" + bytes(range(1, 255)) + b"\x01",
    }
    for raw, enc in vectors.items():
        assert link.cobs_encode(raw) == enc, raw
        assert link.cobs_decode(enc) == raw


def test_crc32_matches_zlib_and_the_check_value() -> None:
    assert link.crc32(b"123456789") == 0xCBF43926  # the CRC-32 check value
    data = bytes(random.Random(1).randrange(256) for _ in range(1000))
    assert link.crc32(data) == zlib.crc32(data) == binascii.crc32(data) & 0xFFFFFFFF


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    enc = link.cobs_encode(data)
    assert 0 not in enc
    assert link.cobs_decode(enc) == data


@given(st.sampled_from(sorted(link.NAMES)), st.integers(0, 0xFFFF), st.binary(max_size=400))
def test_frame_round_trip(kind: int, seq: int, payload: bytes) -> None:
    frame = link.encode(kind, seq, payload)
    assert frame.startswith(b"\x00") and frame.endswith(b"\x00") and frame.count(0) == 2
    assert link.decode(frame[1:-1]) == (kind, seq, payload)


@given(st.integers(1, 10), st.integers(1, 10), st.data())
def test_snapshot_round_trip(rows: int, cols: int, data: st.DataObject) -> None:
    cells = sorted(data.draw(st.sets(st.integers(0, rows * cols - 1))))
    uptime = data.draw(st.integers(0, 2**32 - 1))
    assert link.unpack_snapshot(link.pack_snapshot(rows, cols, cells, uptime)) == (rows, cols, cells, uptime)


@given(st.lists(st.tuples(*(st.integers(0, 255) for _ in range(4)), st.integers(0, 3)), max_size=100))
def test_leds_hello_config_error_round_trip(entries: list[tuple[int, int, int, int, int]]) -> None:
    assert link.unpack_leds(link.pack_leds(entries)) == entries
    assert link.unpack_hello(link.pack_hello((1, 2), 10, 10, 100)) == (link.VERSION, (1, 2), 10, 10, 100)
    assert link.unpack_config(link.pack_config(200, 20, 500)) == (200, 20, 500)
    assert link.unpack_error(link.pack_error(3, "bad")) == (3, "bad")


@settings(max_examples=200)
@given(st.integers(0, 2**32), st.lists(st.binary(min_size=0, max_size=60), min_size=1, max_size=30))
def test_no_damaged_frame_is_ever_accepted(seed: int, payloads: list[bytes]) -> None:
    """Bit flips, drops, duplicates, truncation and garbage: whatever comes out was sent."""
    rng = random.Random(seed)
    sent = [link.encode(link.SNAPSHOT, i, p) for i, p in enumerate(payloads)]
    good = {(link.SNAPSHOT, i, p) for i, p in enumerate(payloads)}
    stream = bytearray()
    intact = []
    for i, f in enumerate(sent):
        if rng.random() < 0.3:
            stream += bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        b = bytearray(f)
        r = rng.random()
        if r < 0.2:
            b[rng.randrange(1, len(b) - 1)] ^= 1 << rng.randrange(8)
        elif r < 0.3:
            del b[rng.randrange(1, len(b)) :]
        elif r < 0.4:
            b = b + b
            intact.append((link.SNAPSHOT, i, payloads[i]))
        elif r < 0.5:
            del b[rng.randrange(1, len(b) - 1)]
        else:
            intact.append((link.SNAPSHOT, i, payloads[i]))
        stream += b
    d = link.Deframer()
    got = []
    pos = 0
    while pos < len(stream):  # in random chunks, as a serial port delivers
        n = rng.randint(1, 50)
        got += d.feed(bytes(stream[pos : pos + n]))
        pos += n
    for frame in got:
        assert frame in good  # nothing damaged is ever accepted
    assert set(intact) <= set(got)  # and every frame that came through untouched is


def test_deframer_survives_endless_garbage() -> None:
    d = link.Deframer()
    assert d.feed(b"\x55" * 10_000) == []
    frame = link.encode(link.HELLO, 1, b"")
    assert d.feed(frame) == [(link.HELLO, 1, b"")]


def test_hello_carries_every_byte_value_and_a_newer_firmware_may_say_more() -> None:
    # the fields are unsigned: firmware 255.255, a board of 255 x 255 cells, 65535 LEDs
    hello = link.pack_hello((255, 255), 255, 255, 65535, (65535, 65535), protocol=2)
    assert len(hello) == 11
    assert link.unpack_hello(hello) == (2, (255, 255), 255, 255, 65535)
    assert link.hello_presses(hello) == (65535, 65535)
    # a later firmware's hello with fields after these: the host reads the ones it knows
    assert link.unpack_hello(hello + b"\x01\x02") == (2, (255, 255), 255, 255, 65535)
    assert link.hello_presses(hello + b"\x01\x02") == (65535, 65535)
    assert link.hello_board(hello) == (0, link.RESET_POWER, 0, None)  # protocol 2: nothing more known
    # protocol 3's fields: what the firmware does, why it started, its watchdog, its uptime
    three = link.pack_hello(
        (3, 0), 10, 10, 100, (1, 2), link.STRIP_ORDER | link.WATCHDOG, link.RESET_WATCHDOG, 4000, 2**32 + 7
    )
    assert len(three) == 19 and three[:1] == b"\x03"
    assert link.unpack_hello(three) == (3, (3, 0), 10, 10, 100) and link.hello_presses(three) == (1, 2)
    assert link.hello_board(three) == (3, link.RESET_WATCHDOG, 4000, 7)
    assert link.hello_board(three + b"more") == (3, link.RESET_WATCHDOG, 4000, 7)
    for short in (b"", hello[:6]):
        with pytest.raises(ValueError):
            link.unpack_hello(short)


def test_config_and_error_fields_are_unsigned_and_an_error_text_is_cut_at_200_bytes() -> None:
    assert link.unpack_config(link.pack_config(65535, 65535, 65535)) == (65535, 65535, 65535)
    code, text = link.unpack_error(link.pack_error(255, "é" * 150))  # 300 bytes of UTF-8
    assert code == 255 and text == "é" * 100  # 200 bytes: whole characters here
    assert len(link.pack_error(1, "x" * 500)) == 1 + 200


def test_deframer_counts_each_frame_it_throws_away() -> None:
    # what the host reports as dropped frames (and the firmware as bad input): one per bad frame
    d = link.Deframer()
    good = link.encode(link.SNAPSHOT, 1, link.pack_snapshot(8, 8, [0, 9], 5))
    damaged = bytearray(link.encode(link.SNAPSHOT, 2, link.pack_snapshot(8, 8, [1], 6)))
    damaged[5] ^= 0x10  # a flipped bit: the CRC no longer matches
    out = d.feed(good + bytes(damaged) + b"\x55" * (2 * link.MAX_FRAME + 10) + good)
    assert [seq for _kind, seq, _payload in out] == [1, 1]
    # the damaged frame; the garbage once when it outgrew the buffer (2 KiB: memory stays bounded),
    # once for its rest at the next delimiter
    assert d.dropped == 3


def test_a_frame_without_a_payload_decodes_to_an_empty_one() -> None:
    frame = link.encode(link.HELLO, 7)
    assert frame[0] == 0 and frame[-1] == 0
    assert link.decode(frame[1:-1]) == (link.HELLO, 7, b"")


def test_cobs_decode_refuses_a_zero_inside_a_block() -> None:
    for bad in (b"\x00", b"\x03\x00a", b"\x03a\x00", b"\x02a\x03b\x00"):
        with pytest.raises(ValueError, match=r"^zero byte inside a COBS block$"):
            link.cobs_decode(bad)
    with pytest.raises(ValueError, match=r"^COBS block runs past the end$"):
        link.cobs_decode(b"\x05abc")
    assert link.cobs_decode(b"\x04abc") == b"abc"  # a block that ends exactly at the end


def test_an_error_text_cut_inside_a_character_is_still_shown() -> None:
    # 1 + 2 x 150 bytes cut at 200: the last character is cut in half; the host shows the rest
    code, text = link.unpack_error(link.pack_error(2, "a" + "é" * 150))
    assert code == 2 and text == "a" + "é" * 99 + "\ufffd"


def test_a_frame_of_another_protocol_version_is_dropped_not_fatal() -> None:
    body = struct.pack("<BBH", link.VERSION + 1, link.SNAPSHOT, 9) + link.pack_snapshot(8, 8, [3], 1)
    raw = body + struct.pack("<I", link.crc32(body))
    frame = b"\x00" + link.cobs_encode(raw) + b"\x00"
    with pytest.raises(ValueError, match=f"protocol version {link.VERSION + 1}"):
        link.decode(frame[1:-1])
    d = link.Deframer()
    assert d.feed(frame + link.encode(link.HELLO, 1)) == [(link.HELLO, 1, b"")]
    assert d.dropped == 1


def test_the_deframer_says_why_it_dropped_the_last_frame() -> None:
    """What the host logs for a noisy line (``damas -v``): every kind of bad input, named."""
    d = link.Deframer()
    assert d.reason == "" and d.dropped == 0
    good = link.encode(link.SNAPSHOT, 1, link.pack_snapshot(8, 8, [0], 5))
    damaged = bytearray(good)
    damaged[6] ^= 0x01
    cases = [
        (bytes(damaged), "bad CRC"),
        (b"\x00\x05abc\x00", "COBS block runs past the end"),
        (b"\x00" + link.cobs_encode(b"1234567") + b"\x00", "frame too short"),  # 7 bytes: no room for a header and CRC
        (b"\x00" + link.cobs_encode(b"\x01\x02\x03\x04") + b"\x00", "frame too short"),
        (link.encode(link.HELLO, 3, version=link.VERSION + 5), f"protocol version {link.VERSION + 5}"),
        (b"\x55" * (2 * link.MAX_FRAME + 1) + b"\x00", "no frame delimiter in 2048 bytes"),
    ]
    for n, (data, reason) in enumerate(cases, 1):
        assert d.feed(data + good) == [(link.SNAPSHOT, 1, link.pack_snapshot(8, 8, [0], 5))], reason
        assert (d.dropped, d.reason) == (n, reason)
    # a frame of exactly 8 bytes (a header and a CRC) is whole; 2 KiB without a delimiter is still kept
    assert link.decode(link.encode(link.HELLO, 4)[1:-1]) == (link.HELLO, 4, b"")
    d = link.Deframer()
    assert d.feed(b"\x55" * (2 * link.MAX_FRAME) + b"\x00") == []
    assert (d.dropped, d.reason) == (1, "COBS block runs past the end")


def test_another_version_is_noted_once_per_frame_and_a_bad_frame_is_not_foreign() -> None:
    d = link.Deframer()
    assert d.foreign is None
    d.feed(link.encode(link.HELLO, 1, version=link.VERSION - 1))
    assert d.foreign == (link.VERSION - 1, link.HELLO)
    d.foreign = None
    d.feed(b"\x00\x05abc\x00")
    assert d.foreign is None and d.dropped == 2


def test_button_presses_round_trip_and_wrap_at_65536() -> None:
    payload = link.pack_button(65535 + 3, 7, 2**32 + 9)
    assert len(payload) == 8
    assert link.unpack_button(payload) == (2, 7, 9)
    assert link.unpack_button(link.pack_button(65535, 65535, 2**32 - 1)) == (65535, 65535, 2**32 - 1)
    for bad in (payload[:7], payload + b"\x00"):
        with pytest.raises(ValueError, match=r"^bad button size$"):
            link.unpack_button(bad)


def test_the_payload_errors_the_host_logs_name_what_is_wrong() -> None:
    """The host logs a payload it cannot read with these texts (``damas -v``)."""
    hello = link.pack_hello((1, 0), 8, 8, 64, (4, 5))
    assert link.hello_presses(hello) == (4, 5)
    with pytest.raises(ValueError, match=r"^hello without press counts$"):
        link.hello_presses(hello[:10])
    with pytest.raises(ValueError, match=r"^short hello$"):
        link.unpack_hello(hello[:6])
    assert link.unpack_hello(hello[:7]) == (link.VERSION, (1, 0), 8, 8, 64)  # protocol 1's hello
    with pytest.raises(ValueError, match=r"^short snapshot$"):
        link.unpack_snapshot(b"\x08\x08\x00\x00\x00")
    with pytest.raises(ValueError, match=r"^snapshot size does not match its board$"):
        link.unpack_snapshot(link.pack_snapshot(8, 8, [1], 0) + b"\x00")
    assert link.unpack_snapshot(link.pack_snapshot(0, 0, [], 5)) == (0, 0, [], 5)  # no cells: 6 bytes
    with pytest.raises(ValueError, match=r"^short leds$"):
        link.unpack_leds(b"\x01")
    with pytest.raises(ValueError, match=r"^leds size does not match its count$"):
        link.unpack_leds(link.pack_leds([(1, 2, 3, 4, 1)])[:-1])
    with pytest.raises(ValueError, match=r"^bad config size$"):
        link.unpack_config(b"\x00" * 5)
    with pytest.raises(ValueError, match=r"^short error$"):
        link.unpack_error(b"")
    assert link.unpack_error(b"\x07") == (7, "")


def test_the_worked_frames_of_protocol_md_are_what_the_codec_sends() -> None:
    """hardware/protocol.md shows a protocol-3 SNAPSHOT and HELLO byte by byte: a firmware
    written from that page must meet these bytes."""
    from tests.conftest import ROOT

    doc = (ROOT / "hardware" / "protocol.md").read_text()
    snapshot = link.encode(link.SNAPSHOT, 5, link.pack_snapshot(8, 8, [0, 9, 63], 1000), version=3)
    hello = link.encode(link.HELLO, 0, version=3)
    assert snapshot.hex(" ") in doc and hello.hex(" ") in doc
    assert f"between two zeros; {len(snapshot)} bytes" in doc
    assert link.pack_snapshot(8, 8, [0, 9, 63], 1000).hex(" ") in doc
    assert struct.pack("<I", link.crc32(snapshot_body := link.cobs_decode(snapshot[1:-1])[:-4])).hex(" ") in doc
    assert snapshot_body[:4].hex(" ") == "03 02 05 00"
    # the largest frame: LEDS lighting all 100 cells of a 10x10 board
    leds = link.pack_leds([(i, 255, 255, 255, link.FAST) for i in range(100)])
    on_line = len(link.encode(link.LEDS, 0, leds))
    assert f"{len(leds)} bytes of payload, {len(leds) + 8} bytes decoded, {on_line} bytes on the line" in doc
    # the COBS encoder's trailing byte, as the page says
    assert link.cobs_encode(bytes(range(1, 255)))[-1:] == b"\x01"
