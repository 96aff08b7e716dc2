"""Moves: a small frozen value carrying the whole path and the captured squares."""

from __future__ import annotations

from dataclasses import dataclass

from rules.geometry import Square


@dataclass(frozen=True, eq=False)
class Move:
    """A move in the variant's square numbers.

    ``path`` is the origin followed by every landing square (a plain move is
    ``(from, to)``); ``captured`` lists the captured squares in jump order.

    Two moves are *equal* when they are the same legal move: same origin, same
    destination and same set of captured pieces, whatever route realises it (a
    player's hands may follow any of them; :meth:`rules.Position.routes` lists them).

    >>> Move((26, 37, 48), (31, 42)) == Move((26, 37, 48), (42, 31))
    True
    >>> Move((32, 28))
    Move(path=(32, 28))
    """

    path: tuple[Square, ...]
    captured: tuple[Square, ...] = ()
    promotes: bool = False

    def __post_init__(self) -> None:
        if len(self.path) < 2:
            raise ValueError(f"a move needs an origin and a destination: {self.path!r}")

    @property
    def from_square(self) -> Square:
        return self.path[0]

    @property
    def to_square(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    @property
    def key(self) -> tuple[Square, Square, frozenset[Square]]:
        """What makes two moves the same legal move."""
        return (self.path[0], self.path[-1], frozenset(self.captured))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def numeric(self, full: bool = True) -> str:
        """The move in square numbers: ``32-28``, ``26x37x48`` (full path) or ``26x48``."""
        if not self.captured:
            return f"{self.path[0]}-{self.path[-1]}"
        squares = self.path if full else (self.path[0], self.path[-1])
        return "x".join(str(s) for s in squares)

    def __repr__(self) -> str:
        parts = [f"path={self.path!r}"]
        if self.captured:
            parts.append(f"captured={self.captured!r}")
        if self.promotes:
            parts.append("promotes=True")
        return f"Move({', '.join(parts)})"

    def __str__(self) -> str:
        return self.numeric()
