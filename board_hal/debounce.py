"""Debouncing: raw switch transitions in, settled square events out.

Pure and clock-free: time comes only from the transitions and from ``flush(now)``,
so live play and the replay of a recorded log give the same result.

A square's new state is accepted once it has held for ``window`` seconds; bounces
(a reed switch chatters for about a millisecond) and brushes (a sliding king touches
the squares it crosses for tens of milliseconds) revert before that and vanish. The
settled event keeps the time of the transition that started the stable state, so the
delay never shows in the record. Input that is already clean (the Pico debounces
too) passes through unchanged, only ``window`` later.

A board that senses colour (:mod:`board_hal.squares`) gives each transition the square's
``piece``; then a change of piece with the square still occupied (a crown put on, a white
piece swapped for a black one faster than the window) is a transition too, and a reading
must hold, piece and all, for the window. Transitions without a piece (presence boards)
are debounced exactly as they always were.

>>> d = Debouncer(window=0.05, initial={22: True})
>>> d.feed(Transition(0.000, 22, False))   # lift...
[]
>>> d.feed(Transition(0.001, 22, True))    # ...bounce back
[]
>>> d.feed(Transition(0.002, 22, False))   # lift for good
[]
>>> d.flush(0.100)
[Transition(t=0.002, key=22, occupied=False)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from board_hal.squares import SquareState

DEFAULT_WINDOW = 0.05


@dataclass(frozen=True, repr=False)
class Transition:
    """A change seen on one square (or non-playing cell): ``key`` is a square number
    or a cell name; ``occupied`` is True for a place, False for a lift; ``piece``: what
    a board that senses colour read there now (None on a presence board)."""

    t: float
    key: int | str
    occupied: bool
    piece: SquareState | None = None

    def __repr__(self) -> str:
        piece = "" if self.piece is None else f", piece={self.piece.code!r}"
        return f"Transition(t={self.t!r}, key={self.key!r}, occupied={self.occupied!r}{piece})"


class Debouncer:
    """Per-square debouncing with an injectable clock (the transitions' times)."""

    def __init__(
        self,
        window: float = DEFAULT_WINDOW,
        initial: Mapping[int | str, bool] | None = None,
        pieces: Mapping[int | str, SquareState] | None = None,
    ) -> None:
        if window < 0:
            raise ValueError(f"debounce window must not be negative: {window!r}")
        self.window = window
        self.stable: dict[int | str, bool] = dict(initial or {})
        #: the settled piece of each key a colour board has read (none on a presence board)
        self.pieces: dict[int | str, SquareState] = dict(pieces or {})
        self._pending: dict[int | str, Transition] = {}

    def state(self, key: int | str) -> bool:
        return self.stable.get(key, False)

    def _settled(self, tr: Transition) -> bool:
        """Does ``tr`` read what is settled already? (a piece the debouncer has not seen on
        an occupied square is news: it settles like a change, so the referee learns it)"""
        if tr.occupied != self.state(tr.key):
            return False
        return tr.piece is None or self.pieces.get(tr.key) is tr.piece

    def feed(self, tr: Transition) -> list[Transition]:
        """Take one raw transition; returns the events that settled before it."""
        out = self.flush(tr.t)
        pending = self._pending.get(tr.key)
        if self._settled(tr):
            self._pending.pop(tr.key, None)  # bounced back: nothing happened
        elif pending is None or (tr.piece is not None and (pending.piece, pending.occupied) != (tr.piece, tr.occupied)):
            self._pending[tr.key] = tr  # (a colour board: another reading starts its window afresh)
        # a repeated transition to the pending state keeps the first time
        if self.window == 0:
            out.extend(self.flush(tr.t))
        return out

    def flush(self, now: float) -> list[Transition]:
        """The events that have held for ``window`` by ``now``, in time order."""
        if not self._pending:
            return []
        due = sorted(
            (tr for tr in self._pending.values() if tr.t + self.window <= now), key=lambda tr: (tr.t, str(tr.key))
        )
        for tr in due:
            del self._pending[tr.key]
            self.stable[tr.key] = tr.occupied
            if tr.piece is not None:
                self.pieces[tr.key] = tr.piece
        return due

    def next_deadline(self) -> float | None:
        """When the next pending event will settle (None when nothing is pending)."""
        if not self._pending:
            return None
        return min(tr.t for tr in self._pending.values()) + self.window

    def pending_since(self) -> float | None:
        """When the earliest transition still in its window happened (None when nothing is pending)."""
        if not self._pending:
            return None
        return min(tr.t for tr in self._pending.values())

    def pending(self) -> bool:
        return bool(self._pending)

    def pending_states(self) -> dict[int | str, bool]:
        """What the keys still in their window are changing to (the board as it is, unsettled)."""
        return {key: tr.occupied for key, tr in self._pending.items()}
