"""What a sensor sees on a square, beyond presence: the square states, and what a board senses.

A reed switch sees presence only. A board with Hall-effect sensors reads a magnet's pole
(white pieces north up, black south up) and, with linear sensors, a king's second magnet;
DGT's draughts board reports each square's colour and crown. Every sensor backend says
what it senses (:class:`Sensing`), and a board that senses more than presence reports a
:class:`SquareState` with each change.

The states are numbered as the Pico link's SQUARES frame carries them (hardware/protocol.md,
protocol 3); their one-letter codes are the PDN/FEN piece letters (``w``/``b`` men,
``W``/``B`` kings) and ``?`` for a piece the board cannot read.

>>> SquareState.WHITE_KING.code, SquareState.from_code("b"), SquareState.from_wire(9)
('W', <SquareState.BLACK_MAN: 2>, <SquareState.OCCUPIED: 5>)
>>> Sensing.COLOUR.sees(SquareState.WHITE_KING)   # a colour-only board: a white piece
<SquareState.WHITE_MAN: 1>
>>> Sensing.PRESENCE.sees(SquareState.BLACK_MAN)
<SquareState.OCCUPIED: 5>
"""

from __future__ import annotations

import enum


class SquareState(enum.IntEnum):
    """One square's state as a board senses it (the numbers of the link's SQUARES frame)."""

    EMPTY = 0
    WHITE_MAN = 1
    BLACK_MAN = 2
    WHITE_KING = 3
    BLACK_KING = 4
    OCCUPIED = 5  # a piece whose colour (and crown) the board cannot tell

    @property
    def occupied(self) -> bool:
        return self is not SquareState.EMPTY

    @property
    def colour(self) -> str | None:
        """``"white"`` or ``"black"``; None when empty or not known."""
        if self in (SquareState.WHITE_MAN, SquareState.WHITE_KING):
            return "white"
        if self in (SquareState.BLACK_MAN, SquareState.BLACK_KING):
            return "black"
        return None

    @property
    def king(self) -> bool:
        return self in (SquareState.WHITE_KING, SquareState.BLACK_KING)

    @property
    def code(self) -> str:
        """``w``/``b`` men, ``W``/``B`` kings (PDN's letters), ``?`` unknown, ``.`` empty."""
        return _CODES[self]

    @classmethod
    def from_code(cls, code: str) -> SquareState:
        for state, c in _CODES.items():
            if c == code:
                return state
        raise ValueError(f"not a square state: {code[:8]!r} (w, b, W, B, ? or .)")

    @classmethod
    def from_wire(cls, value: int) -> SquareState:
        """A SQUARES nibble: 6-15 are reserved and read as a piece not known (protocol.md)."""
        if not 0 <= value <= 15:
            raise ValueError(f"a square state is 0-15, not {value}")
        return cls(value) if value <= 5 else cls.OCCUPIED

    @classmethod
    def of(cls, colour: str, king: bool = False) -> SquareState:
        """The state of a piece of ``colour`` (``"white"``/``"black"``)."""
        if colour == "white":
            return cls.WHITE_KING if king else cls.WHITE_MAN
        if colour == "black":
            return cls.BLACK_KING if king else cls.BLACK_MAN
        raise ValueError(f"a piece is white or black, not {colour[:20]!r}")

    def crowned(self, king: bool = True) -> SquareState:
        """The same colour, with (or without) a crown."""
        colour = self.colour
        return self if colour is None else SquareState.of(colour, king)


_CODES = {
    SquareState.EMPTY: ".",
    SquareState.WHITE_MAN: "w",
    SquareState.BLACK_MAN: "b",
    SquareState.WHITE_KING: "W",
    SquareState.BLACK_KING: "B",
    SquareState.OCCUPIED: "?",
}
CODES = tuple(_CODES.values())


class Sensing(enum.IntEnum):
    """What a board's sensors tell, each level including the ones below it."""

    PRESENCE = 0  # a piece or none (reed switches)
    COLOUR = 1  # and its colour (two unipolar Hall switches per square)
    CROWN = 2  # and whether it is a king (linear Hall sensors; DGT's draughts board)

    @property
    def label(self) -> str:
        return {0: "presence", 1: "colour", 2: "colour and crown"}[self.value]

    @classmethod
    def named(cls, name: str) -> Sensing:
        """From a setting: ``presence``, ``colour`` (or ``color``), ``crown``."""
        key = {"color": "colour"}.get(name, name)
        for s in cls:
            if s.name.lower() == key:
                return s
        raise ValueError(f"sensing must be presence, colour or crown, not {name[:20]!r}")

    def sees(self, state: SquareState) -> SquareState:
        """What a board that senses this much reads for a piece in ``state``."""
        if state is SquareState.EMPTY or state is SquareState.OCCUPIED:
            return state
        if self is Sensing.PRESENCE:
            return SquareState.OCCUPIED
        if self is Sensing.COLOUR:
            return state.crowned(False)
        return state

    def agrees(self, sensed: SquareState, piece: SquareState) -> bool:
        """Does a reading ``sensed`` fit a piece ``piece`` (what the game has there)? A piece
        the board cannot read (``?``) fits any piece."""
        if sensed is SquareState.OCCUPIED:
            return piece.occupied
        return self.sees(piece) is sensed
