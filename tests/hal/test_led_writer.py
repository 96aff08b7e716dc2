"""One writer on the 74HC595 chain (issue 18 §1): ``show()`` and the blink thread once shifted
bits at the same time, and a frame mixing two of them was latched (4 of 4,977 latched frames
at the default 20 Hz blink, 536 of 8,657 at 500 Hz). Every frame the mock chain latches
while ``show()`` is called rapidly must be one that was meant: a rendering, at some blink
phase, of the intents shown just before or just after it.
"""

from __future__ import annotations

import random
import sys
import threading
import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from board_hal.gpio import ShiftRegisterLeds
from board_hal.layout import Cell
from board_hal.leds import DEFAULT_LOOKS, Role, render_mono
from board_hal.mockpins import ShiftRegisterMock
from tests.conftest import wait_until

#: steady, slow and fast blinking roles
ROLES = [Role.FROM, Role.HINT, Role.REMOVE, Role.CAPTURABLE, Role.ERROR, Role.MUST_CAPTURE]
#: one moment in each blink phase: slow on/off x fast on/off
PHASES = (0.0, 0.2, 0.55, 0.7)


def meant(intents: dict[Cell, Role]) -> set[frozenset[int]]:
    """Every frame these intents may legitimately latch (one per blink phase)."""
    by_bit = {r * 8 + c: role for (r, c), role in intents.items()}
    return {frozenset(render_mono(by_bit, DEFAULT_LOOKS, t)) for t in PHASES}


@pytest.fixture
def busy_switching() -> Iterator[None]:
    """Threads take turns every 10 µs rather than every 5 ms: a frame shifted by two threads
    at once, rare at the default interval, then shows up in every run."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


@pytest.mark.parametrize("blink_rate", [20.0, 500.0])
@pytest.mark.usefixtures("busy_switching")
def test_every_latched_frame_was_meant_while_show_is_called_rapidly(blink_rate: float) -> None:
    factory = MockFactory()
    chain = ShiftRegisterMock(22, 23, 24, 64, factory, record=True)
    leds = ShiftRegisterLeds(8, data=22, clock=23, latch=24, pin_factory=factory, blink_rate=blink_rate)
    assert chain.frames is not None
    rng = random.Random(int(blink_rate))
    shown: list[set[frozenset[int]]] = [{frozenset()}]  # what each show() meant (before the first: dark)
    marks = [0]  # how many frames were latched when each show() returned
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        cells = rng.sample(range(64), rng.randint(0, 14))
        intents = {divmod(c, 8): rng.choice(ROLES) for c in cells}
        leds.show(intents)
        marks.append(len(chain.frames))
        shown.append(meant(intents))
        if rng.random() < 0.5:  # half the shows come back to back, the others after a blink or two
            time.sleep(rng.uniform(0, 3 / blink_rate))
    time.sleep(5 / blink_rate)  # the blink thread goes on with the last intents
    leds.close()
    frames = list(chain.frames)
    marks.append(len(frames))
    assert len(frames) > len(shown)  # the blink thread did latch frames between the shows
    bad = []
    for i in range(1, len(marks)):
        # between show i-1 and show i returning: a frame of either
        allowed = shown[i - 1] | shown[min(i, len(shown) - 1)]
        bad += [(n, sorted(f)) for n, f in enumerate(frames[marks[i - 1] : marks[i]], marks[i - 1]) if f not in allowed]
    assert not bad, f"{len(bad)} of {len(frames)} latched frames were never meant, e.g. {bad[:3]}"
    assert chain.latches == len(frames)
    after = chain.latches
    time.sleep(0.05)
    assert chain.latches == after  # closed: nothing writes any more


def test_the_blink_thread_runs_only_while_something_blinks() -> None:
    factory = MockFactory()
    chain = ShiftRegisterMock(22, 23, 24, 64, factory, record=True)
    leds = ShiftRegisterLeds(8, data=22, clock=23, latch=24, pin_factory=factory, blink_rate=200.0)
    assert chain.frames is not None
    leds.show({(0, 0): Role.ERROR})  # fast blinking: the thread latches frames on its own
    frames = chain.frames
    wait_until(lambda: len(frames) > 5, what="the blink thread latching frames")
    assert {frozenset(), frozenset({0})} >= set(chain.frames)
    leds.show({(1, 1): Role.FROM})  # steady: one foreground write, then silence
    latched = len(chain.frames)
    assert chain.frames[-1] == frozenset({9})
    time.sleep(0.1)
    assert len(chain.frames) == latched
    assert not any(t.name == "led-blink" for t in threading.enumerate())
    leds.close()
