"""The one small exception hierarchy of the rules engine.

Every error is a :class:`DraughtsError`; each leaf also inherits the matching
built-in (``ValueError`` or ``KeyError``) so callers may catch either.
Messages are lowercase and quote the bad input with ``!r``.
"""

from __future__ import annotations


def shown(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters: bad input quoted in a one-line message,
    however big it came in."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def shown_text(text: str) -> str:
    """A piece of text quoted whole when short, else its first 37 characters (quoted, with
    "..."), for messages about notation."""
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


class DraughtsError(Exception):
    """Root of every error raised by :mod:`rules`."""


class UnknownVariantError(DraughtsError, ValueError):
    """A variant name that is not in the registry."""


class InvalidSquareError(DraughtsError, ValueError):
    """A square that does not exist on the board, or is not played."""


class InvalidFenError(DraughtsError, ValueError):
    """A FEN string that cannot be read."""


class InvalidMoveError(DraughtsError, ValueError):
    """Move text that cannot be read as a move (``"32x"``, ``"hello"``, a square off the board)."""


class IllegalMoveError(DraughtsError, ValueError):
    """A move that is not legal in the position."""


class AmbiguousMoveError(IllegalMoveError):
    """Move text that matches more than one legal move."""

    def __init__(self, message: str, candidates: tuple[object, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


class PdnSyntaxError(DraughtsError, ValueError):
    """PDN text that cannot be read; carries where it happened."""

    def __init__(self, message: str, *, source: str = "<string>", line: int = 0) -> None:
        self.reason = message
        self.source = source
        self.line = line
        where = f"{source}:{line}: " if line else f"{source}: "
        super().__init__(where + message)


class InvalidResultError(DraughtsError, ValueError):
    """Text that is not a game result in any PDN style."""


class PdnTagError(DraughtsError, ValueError):
    """A tag the PDN writer refuses: a bad tag name, a value that is not a string, or too long."""
