"""The game clock's two push buttons, on spare GPIO pins of the Pi (gpiozero ``Button``).

Wiring: each button between its GPIO pin and ground (the pin's internal pull-up holds it
high; pressed reads low), one per player, beside the player's side of the board. The pins
are the configuration's ``[clock] buttons = {white = 20, black = 21}``.

A press counts at once (no waiting: the clock switches on the first edge); what follows a
press — switch bounce, the release and its own bounce — is ignored until the button has
been released for ``bounce`` seconds. Callbacks come from gpiozero's thread and only
enqueue (:class:`ButtonPress`); the board loop takes them with :meth:`ClockButtons.poll`.

Tested with gpiozero's ``MockFactory``::

    >>> from gpiozero.pins.mock import MockFactory
    >>> factory = MockFactory()
    >>> b = ClockButtons(20, 21, pin_factory=factory, clock=lambda: 5.0)
    >>> factory.pin(20).drive_low()
    >>> b.poll()
    [ButtonPress(t=5.0, side='white', source='button')]
    >>> b.close()
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from board_hal.backends import SIDES, ButtonPress, Clock, Closable

__all__ = ["SIDES", "ButtonPress", "ClockButtons", "PressFilter"]
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
        self.presses: queue.Queue[ButtonPress] = queue.Queue()
        self.on_press: Callable[[], None] | None = None  # called (in gpiozero's thread) after a press is queued
        self._lock = threading.Lock()
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
        def on_edge() -> None:
            t = self.clock()
            with self._lock:
                counts = self._filters[side].edge(pressed, t)
            if counts:
                self.presses.put(ButtonPress(t, side))
                if self.on_press is not None:
                    self.on_press()

        return on_edge

    def poll(self) -> list[ButtonPress]:
        out = []
        while True:
            try:
                out.append(self.presses.get_nowait())
            except queue.Empty:
                return out

    def close(self) -> None:
        if self.closed:
            return
        for b in self._buttons:
            b.close()
        self._buttons = []
        super().close()
