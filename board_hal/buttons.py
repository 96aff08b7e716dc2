"""The game clock's two push buttons, on spare GPIO pins of the Pi (gpiozero ``Button``).

Wiring: each button between its GPIO pin and ground (the pin's internal pull-up holds it
high; pressed reads low), one per player, beside the player's side of the board. The pins
are the configuration's ``[clock] buttons = {white = 20, black = 21}``.

A press counts at once (no waiting: the clock switches on the first edge); what follows a
press — switch bounce, the release and its own bounce — is ignored until the button has
been released for ``bounce`` seconds. Callbacks come from gpiozero's thread and only
enqueue (:class:`ButtonPress`); the board loop takes them with :meth:`ClockButtons.poll`.

**The read-out gesture** (the talking board): both buttons down together. The press that
makes the pair (the second button going down while the first is held) is a :class:`ReadOut`,
never a press; the first press of the pair is taken back by the board loop's
:class:`ChordFilter`, which holds every press a moment when the board speaks.

Tested with gpiozero's ``MockFactory``::

    >>> from gpiozero.pins.mock import MockFactory
    >>> factory = MockFactory()
    >>> b = ClockButtons(20, 21, pin_factory=factory, clock=lambda: 5.0)
    >>> factory.pin(20).drive_low()
    >>> b.poll()
    [ButtonPress(t=5.0, side='white', source='button')]
    >>> factory.pin(21).drive_low()  # black's too, while white's is held: the read-out gesture
    >>> b.poll()
    [ReadOut(t=5.0, source='button', chord=True)]
    >>> b.close()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from board_hal.backends import SIDES, ButtonPress, Clock, Closable, ReadOut

__all__ = ["SIDES", "ButtonPress", "ChordFilter", "ClockButtons", "PressFilter", "ReadOut"]
DEFAULT_BOUNCE = 0.05


class PressFilter:
    """Edges in, presses out: a press edge counts unless a release edge came less than
    ``bounce`` seconds before it (bounce at the press or at the release). Pure: times are
    given."""

    def __init__(self, bounce: float = DEFAULT_BOUNCE) -> None:
        self.bounce = bounce
        self._released_at = -float("inf")
        self._down = False

    def edge(self, pressed: bool, t: float) -> bool:
        """An edge of the button at ``t``; True when it is a press that counts."""
        if not pressed:
            self._released_at = t
            self._down = False
            return False
        counts = not self._down and t - self._released_at >= self.bounce
        self._down = True
        return counts

    @property
    def down(self) -> bool:
        """Is the button held down now (its last edge a press)?"""
        return self._down


class ChordFilter:
    """Clock presses and read-outs in, what counts out: with a ``window`` (the talking board's
    read-out gesture), each press waits that long before it counts, keeping the time of its
    edge, and a read-out made by both clock buttons (``chord``) within that time takes back the
    presses still waiting — the pair was the gesture, not a press. Without one (0), everything
    counts at once. Pure: times are given; the board loop runs every button through one, from
    the Pi's pins and the Pico's alike.

    >>> f = ChordFilter(0.15)
    >>> f.feed(ButtonPress(1.00, "black"))  # black's button...
    >>> f.take(1.05)
    []
    >>> f.feed(ReadOut(1.06))  # ...and white's with it: the read-out
    >>> f.take(1.30)
    [ReadOut(t=1.06, source='button', chord=True)]
    >>> f.feed(ButtonPress(2.00, "white"))
    >>> f.next_deadline(), f.take(2.20)
    (2.15, [ButtonPress(t=2.0, side='white', source='button')])
    """

    def __init__(self, window: float = 0.0) -> None:
        self.window = window
        self._waiting: list[ButtonPress | ReadOut] = []

    def feed(self, ev: ButtonPress | ReadOut) -> None:
        if isinstance(ev, ReadOut) and ev.chord:
            self._waiting = [e for e in self._waiting if not (isinstance(e, ButtonPress) and ev.t - e.t < self.window)]
        self._waiting.append(ev)

    def take(self, now: float) -> list[ButtonPress | ReadOut]:
        """What counts by ``now``, in order (up to the first press still waiting)."""
        n = 0
        for e in self._waiting:
            if isinstance(e, ButtonPress) and e.t + self.window > now:
                break
            n += 1
        out, self._waiting = self._waiting[:n], self._waiting[n:]
        return out

    def next_deadline(self) -> float | None:
        """When the first press still waiting counts (None: none waits)."""
        waiting = [e.t + self.window for e in self._waiting if isinstance(e, ButtonPress)]
        return min(waiting) if waiting else None


class ClockButtons(Closable):
    """The two clock buttons. ``pin_factory``: gpiozero's (``MockFactory`` in tests)."""

    def __init__(
        self,
        white: int,
        black: int,
        *,
        bounce: float = DEFAULT_BOUNCE,
        pin_factory: Any = None,
        clock: Clock = time.time,
    ) -> None:
        from gpiozero import Button

        self.clock = clock
        self.on_press: Callable[[], None] | None = None  # called (in gpiozero's thread) after a press is queued
        self._lock = threading.Lock()
        self._events: list[ButtonPress | ReadOut] = []  # seen, not taken yet (in order)
        self._filters = {side: PressFilter(bounce) for side in SIDES}
        self._buttons: list[Any] = []
        try:
            for side, pin in (("white", white), ("black", black)):
                button = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                button.when_pressed = self._handler(side, True)
                button.when_released = self._handler(side, False)
                self._buttons.append(button)
        except BaseException:
            self.close()
            raise

    def _handler(self, side: str, pressed: bool) -> Any:
        other = SIDES[1 - SIDES.index(side)]

        def on_edge() -> None:
            t = self.clock()
            with self._lock:
                if not self._filters[side].edge(pressed, t):
                    return
                # the other held down too: the read-out gesture, never a press
                self._events.append(ReadOut(t) if self._filters[other].down else ButtonPress(t, side))
            if self.on_press is not None:
                self.on_press()

        return on_edge

    def poll(self) -> list[ButtonPress | ReadOut]:
        """The presses and read-outs seen since the last poll, in order."""
        with self._lock:
            out, self._events = self._events, []
        return out

    def close(self) -> None:
        if self.closed:
            return
        for b in self._buttons:
            b.close()
        self._buttons = []
        super().close()
