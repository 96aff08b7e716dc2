"""Fuzzing the serial line's decoder (firmware_bridge/link.py): random bytes, damaged and
well-formed frames with random payloads (the colour builds' SQUARES, FIELDS and CALIBRATE
too). The decoder never raises, never hands over a frame that fails its checks, and its buffer
stays bounded; payload readers raise only ValueError."""

from __future__ import annotations

import contextlib
import random

import pytest

from firmware_bridge import link
from tests.fuzz.harness import SIZES, run_case

UNPACK = {
    link.HELLO: link.unpack_hello,
    link.SNAPSHOT: link.unpack_snapshot,
    link.LEDS: link.unpack_leds,
    link.CONFIG: link.unpack_config,
    link.ERROR: link.unpack_error,
    link.SQUARES: link.unpack_squares,  # protocol 3's colour frames (the Hall builds)
    link.FIELDS: link.unpack_fields,
    link.CALIBRATE: link.unpack_calibrate,
}


def _chunk(rng: random.Random) -> tuple[bytes, bool]:
    """Bytes for the line, and whether they hold one intact frame."""
    r = rng.random()
    if r < 0.3:
        return rng.randbytes(rng.randint(0, 300)), False
    if r < 0.4:
        return bytes([rng.randrange(1, 256)]) * rng.choice([10, link.MAX_FRAME * 3]), False
    kind = rng.choice([*UNPACK, link.REPL, 0, 255])
    if kind == link.SNAPSHOT and rng.random() < 0.5:
        rows, cols = rng.choice([(8, 8), (10, 10), (255, 255), (0, 0)])
        cells = rng.sample(range(rows * cols), min(rows * cols, rng.randint(0, 30)))
        payload = link.pack_snapshot(rows, cols, cells, rng.randrange(2**32))
    elif kind == link.SQUARES and rng.random() < 0.5:
        rows, cols = rng.choice([(8, 8), (10, 10), (255, 255), (0, 0)])
        states = [rng.randrange(16) for _ in range(rows * cols)]  # reserved states too
        payload = link.pack_squares(rows, cols, states, rng.randrange(2**32))
    else:
        payload = rng.randbytes(rng.choice([0, 1, 6, 7, 14, 600, 2000]))
    frame = link.encode(kind, rng.randrange(2**16), payload)
    if rng.random() < 0.3:  # damage it
        data = bytearray(frame)
        i = rng.randrange(1, len(data) - 1)
        data[i] = rng.choice([0, data[i] ^ (1 << rng.randrange(8))])
        return bytes(data), False
    return frame, len(payload) + 8 <= link.MAX_FRAME * 2


@pytest.mark.parametrize("cases", SIZES)
def test_fuzz_link_decoder(cases: int) -> None:
    rng = random.Random(16_7_7)
    for i in range(cases):
        chunks = [_chunk(rng) for _ in range(rng.randint(1, 8))]
        stream = b"".join(c for c, _ in chunks)
        intact = sum(ok for _, ok in chunks)
        splits = sorted(rng.sample(range(len(stream) + 1), min(len(stream) + 1, rng.randint(0, 5))))

        def case() -> None:
            deframer = link.Deframer()
            frames = []
            last = 0
            for cut in [*splits, len(stream)]:  # noqa: B023
                frames += deframer.feed(stream[last:cut])  # noqa: B023
                last = cut
                assert len(deframer.buf) <= link.MAX_FRAME * 2
            assert len(frames) >= intact  # noqa: B023  (random bytes may, rarely, hold a valid frame)
            for kind, seq, payload in frames:
                assert 0 <= seq <= 0xFFFF and isinstance(payload, bytes)
                unpack = UNPACK.get(kind)
                if unpack is not None:
                    with contextlib.suppress(ValueError):
                        unpack(payload)

        run_case(f"serial case {i} {stream[:80].hex()}", case, ())
