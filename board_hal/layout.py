"""Layouts: the map between the physical cells of the sensor matrix and the variant's squares.

Physical cells are (row, column) of the wiring, 0-based. A layout says which variant is
played (board size, dark corner, numbering — from ``rules``' geometry), how the matrix
is rotated on the table (0/90/180/270 degrees) and on which side White sits. A piece on
a non-playing cell maps to the cell's algebraic name (``"b1"``), so it can be reported.

>>> lay = Layout("brazilian")
>>> lay.square_of(0, 0), lay.cell_of(29)
(29, (0, 0))
>>> Layout("brazilian", rotation=180).square_of(0, 0)
4
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rules import Geometry, Variant, find_variant, geometry_for

ROTATIONS = (0, 90, 180, 270)
WHITE_SIDES = ("near", "far")

Cell = tuple[int, int]


@dataclass(frozen=True)
class Layout:
    variant_name: str
    rotation: int = 0
    #: "near": White sits at physical row 0; "far": at the last row
    white_side: str = "near"
    variant: Variant = field(init=False, repr=False, compare=False)
    geometry: Geometry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        v = find_variant(self.variant_name)
        object.__setattr__(self, "variant", v)
        object.__setattr__(self, "variant_name", v.name)
        object.__setattr__(self, "geometry", geometry_for(v))
        if self.rotation not in ROTATIONS:
            raise ValueError(f"rotation must be 0, 90, 180 or 270, not {self.rotation!r}")
        if self.white_side not in WHITE_SIDES:
            raise ValueError(f"white_side must be 'near' or 'far', not {self.white_side!r}")

    @property
    def size(self) -> int:
        return self.variant.board_size

    @property
    def turns(self) -> int:
        """Quarter turns from the wiring to White's view."""
        return (self.rotation // 90 + (2 if self.white_side == "far" else 0)) % 4

    def _turn(self, x: int, y: int, quarters: int) -> tuple[int, int]:
        """(x, y) turned by ``quarters`` quarter turns on the board's grid."""
        n = self.size
        for _ in range(quarters % 4):
            x, y = y, n - 1 - x
        return x, y

    def board_coord(self, row: int, col: int) -> tuple[int, int]:
        """(file, rank) from White's side of a physical cell."""
        n = self.size
        if not (0 <= row < n and 0 <= col < n):
            raise ValueError(f"no cell ({row}, {col}) on a {n}x{n} matrix")
        return self._turn(col, row, self.turns)

    def physical(self, file: int, rank: int) -> Cell:
        """The physical (row, column) under a board coordinate: the inverse of :meth:`board_coord`."""
        col, row = self._turn(file, rank, -self.turns)
        return row, col

    def square_of(self, row: int, col: int) -> int | None:
        """The variant's square at a physical cell (None for a non-playing cell)."""
        f, r = self.board_coord(row, col)
        return self.geometry.square_at(f, r)

    def key_of(self, row: int, col: int) -> int | str:
        """The square number, or the algebraic name of a non-playing cell."""
        f, r = self.board_coord(row, col)
        sq = self.geometry.square_at(f, r)
        return sq if sq is not None else self.geometry.cell_name(f, r)

    def cell_of(self, square: int) -> Cell:
        f, r = self.geometry.coord(square)
        return self.physical(f, r)

    def cell_of_key(self, key: int | str) -> Cell:
        if isinstance(key, int):
            return self.cell_of(key)
        f, r = self.geometry.parse_cell(key)
        return self.physical(f, r)

    def cells(self) -> list[Cell]:
        return [(r, c) for r in range(self.size) for c in range(self.size)]


def cell_name(cell: Cell) -> str:
    """A physical cell named as on a board standing in the standard mounting (``(1, 2)`` -> ``c2``):
    how the self-test, the pin maps and the backends' messages name a cell."""
    row, col = cell
    return f"{'abcdefghij'[col]}{row + 1}"
