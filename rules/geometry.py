"""Board geometry: square numbers, algebraic names and the internal bit layout.

Squares are plain ints in the variant's official numbering (``Square``). Internally
every playing square also has a *bit* in a padded layout where the four diagonal
steps are constant offsets (a ghost bit between pairs of rows stops wrap-around), so
men's moves can be generated for the whole board with a few shifts.

Coordinates are chess-style from White's side: file 0 = a (left), rank 0 = 1 (bottom).

>>> from rules.variants import find_variant
>>> g = geometry_for(find_variant("international"))
>>> g.square_name(46), g.parse_square("b10")
('a1', 1)
>>> geometry_for(find_variant("portuguese")).square_name(1)
'h1'
"""

from __future__ import annotations

from functools import cache

from rules.errors import InvalidSquareError, shown_text
from rules.variants import Color, Variant

Square = int

FILES = "abcdefghijklmnop"

#: direction indices: up-left, up-right, down-left, down-right (from White's side)
DIRECTIONS: tuple[tuple[int, int], ...] = ((-1, 1), (1, 1), (-1, -1), (1, -1))
UP = (0, 1)
DOWN = (2, 3)


class Geometry:
    """Square numbering and precomputed move tables for one board."""

    def __init__(self, size: int, dark_corner_left: bool, numbered_from: Color) -> None:
        self.size = size
        self.half = size // 2
        self.count = size * size // 2
        self.dark_corner_left = dark_corner_left
        dark_parity = 0 if dark_corner_left else 1

        def playable(f: int, r: int) -> bool:
            return (f + r) % 2 == dark_parity

        self._playable = playable
        # official numbering
        order: list[tuple[int, int]] = []
        if numbered_from is Color.BLACK:
            for r in range(size - 1, -1, -1):
                order.extend((f, r) for f in range(size) if playable(f, r))
        else:
            for r in range(size):
                order.extend((f, r) for f in range(size - 1, -1, -1) if playable(f, r))
        self.coords: tuple[tuple[int, int], ...] = ((-1, -1), *order)  # index by square
        self._square_of_coord = {c: i + 1 for i, c in enumerate(order)}
        self._names = ("", *(f"{FILES[f]}{r + 1}" for f, r in order))
        self._square_of_name = {name: i for i, name in enumerate(self._names) if i}

        # internal padded layout: rows from the top, files left to right
        internal: list[tuple[int, int]] = []
        for r in range(size - 1, -1, -1):
            internal.extend((f, r) for f in range(size) if playable(f, r))
        top_left_playable = playable(0, size - 1)
        bit_of_coord: dict[tuple[int, int], int] = {}
        for i, c in enumerate(internal):
            pad = (i + self.half) // size if top_left_playable else i // size
            bit_of_coord[c] = i + pad
        self.nbits = max(bit_of_coord.values()) + 1
        self.bit_of_square: tuple[int, ...] = (-1, *(bit_of_coord[c] for c in order))
        sq_of_bit = [0] * self.nbits
        for sq in range(1, self.count + 1):
            sq_of_bit[self.bit_of_square[sq]] = sq
        self.square_of_bit: tuple[int, ...] = tuple(sq_of_bit)
        self.mask = sum(1 << b for b in bit_of_coord.values())

        # neighbour steps and rays, by bit and direction; offsets must be uniform
        step: list[tuple[int, ...]] = [(-1, -1, -1, -1)] * self.nbits
        rays: list[tuple[tuple[int, ...], ...]] = [((), (), (), ())] * self.nbits
        offsets: list[int | None] = [None] * 4
        for (f, r), b in bit_of_coord.items():
            s: list[int] = []
            rs: list[tuple[int, ...]] = []
            for d, (df, dr) in enumerate(DIRECTIONS):
                ray: list[int] = []
                ff, rr = f + df, r + dr
                while 0 <= ff < size and 0 <= rr < size:
                    ray.append(bit_of_coord[(ff, rr)])
                    ff, rr = ff + df, rr + dr
                s.append(ray[0] if ray else -1)
                rs.append(tuple(ray))
                if ray:
                    off = ray[0] - b
                    if offsets[d] is None:
                        offsets[d] = off
                    assert offsets[d] == off, "non-uniform diagonal offset"
            step[b] = tuple(s)
            rays[b] = tuple(rs)
        self.step: tuple[tuple[int, ...], ...] = tuple(step)
        self.rays: tuple[tuple[tuple[int, ...], ...], ...] = tuple(rays)
        self.offsets: tuple[int, ...] = tuple(o or 0 for o in offsets)
        self.top_row = sum(1 << bit_of_coord[(f, size - 1)] for f in range(size) if playable(f, size - 1))
        self.bottom_row = sum(1 << bit_of_coord[(f, 0)] for f in range(size) if playable(f, 0))

    # -- squares -----------------------------------------------------------------------
    def squares(self) -> range:
        return range(1, self.count + 1)

    def square_name(self, square: Square) -> str:
        """Algebraic name (``a1``..``j10``) of a square number."""
        if not 1 <= square <= self.count:
            raise InvalidSquareError(f"no square {square!r} on a {self.size}x{self.size} board")
        return self._names[square]

    def coord(self, square: Square) -> tuple[int, int]:
        """(file, rank), both from 0, of a square number."""
        if not 1 <= square <= self.count:
            raise InvalidSquareError(f"no square {square!r} on a {self.size}x{self.size} board")
        return self.coords[square]

    def square_at(self, file: int, rank: int) -> Square | None:
        """The square number at (file, rank), or None for a non-playing cell."""
        return self._square_of_coord.get((file, rank))

    def is_playable_cell(self, file: int, rank: int) -> bool:
        return 0 <= file < self.size and 0 <= rank < self.size and self._playable(file, rank)

    def parse_square(self, text: str) -> Square:
        """A square from its number (``"32"``) or algebraic name (``"c3"``)."""
        t = text.strip().lower()
        if _is_number(t):
            n = int(t)
            if 1 <= n <= self.count:
                return n
            raise InvalidSquareError(f"no square {shown_text(text)} on a {self.size}x{self.size} board")
        if t in self._square_of_name:
            return self._square_of_name[t]
        if len(t) >= 2 and t[0] in FILES and _is_number(t[1:]):
            f, r = FILES.index(t[0]), int(t[1:]) - 1
            if 0 <= f < self.size and 0 <= r < self.size:
                raise InvalidSquareError(f"{shown_text(text)} is not a playing square")
        raise InvalidSquareError(f"no square {shown_text(text)} on a {self.size}x{self.size} board")

    def cell_name(self, file: int, rank: int) -> str:
        return f"{FILES[file]}{rank + 1}"

    def parse_cell(self, text: str) -> tuple[int, int]:
        """(file, rank) of any cell name, playing or not."""
        t = text.strip().lower()
        if len(t) >= 2 and t[0] in FILES and _is_number(t[1:]):
            f, r = FILES.index(t[0]), int(t[1:]) - 1
            if 0 <= f < self.size and 0 <= r < self.size:
                return f, r
        raise InvalidSquareError(f"no cell {shown_text(text)} on a {self.size}x{self.size} board")


def _is_number(text: str) -> bool:
    """ASCII digits only, and few of them: ``str.isdigit`` passes '²' and '١' (int() refuses
    the first), and int() refuses more than 4300 digits."""
    return 0 < len(text) <= 9 and text.isascii() and text.isdigit()


@cache
def _geometry(size: int, dark_corner_left: bool, numbered_from: Color) -> Geometry:
    return Geometry(size, dark_corner_left, numbered_from)


def geometry_for(variant: Variant) -> Geometry:
    """The (shared, immutable) geometry of a variant's board."""
    return _geometry(variant.board_size, variant.dark_corner_left, variant.numbered_from)
