"""Variants as data: one :class:`Variant` definition per rule set, one registry.

Adding a variant (Russian, English checkers, Spanish...) is a new definition
here plus its tests; move generation reads only the capability flags.

>>> find_variant("brazilian").board_size
8
>>> find_variant("chess")
Traceback (most recent call last):
...
rules.errors.UnknownVariantError: unknown variant: 'chess' (known: brazilian, international, portuguese)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from rules.errors import UnknownVariantError, shown


class Color(enum.Enum):
    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Color:
        return Color.BLACK if self is Color.WHITE else Color.WHITE

    @property
    def letter(self) -> str:
        return "W" if self is Color.WHITE else "B"


WHITE = Color.WHITE
BLACK = Color.BLACK


class CaptureLaw(enum.Enum):
    """How a player chooses among the available captures."""

    #: take the most pieces; kings and men count the same (FMJD, Brazilian)
    MAJORITY = "majority"
    #: most pieces, then most kings among them (Portuguese "quantidade e qualidade")
    QUANTITY_QUALITY = "quantity-quality"
    #: any capture may be chosen (Russian, for later)
    FREE = "free"


@dataclass(frozen=True)
class EndingRule:
    """A small-ending draw rule: in these material balances, a draw after ``moves`` moves.

    ``material`` lists (strong kings, strong men, weak kings, weak men) balances; either
    side may be the strong one. ``moves`` counts moves by each player (2 x plies).
    ``counted_from_squares``: the count starts only once the strong side has a king on
    one of these squares (the Portuguese forced rule counts from when the three kings
    occupy the rio).
    """

    name: str
    material: tuple[tuple[int, int, int, int], ...]
    moves: int
    counted_from_squares: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Variant:
    """A rule set. Every rule difference between variants lives here, as data."""

    name: str
    title: str
    board_size: int
    #: the dark (playing) corner at White's lower side: "a1" (left) or "h1"/"j1" (right)
    dark_corner_left: bool
    #: whose lower-right corner square 1 starts from (INT 2.6: Black's; PT 2.1.3: White's)
    numbered_from: Color
    #: how PDN writes squares: "numeric" or "algebraic"
    notation: str
    men_capture_backward: bool
    flying_kings: bool
    capture_law: CaptureLaw
    #: rows of men for each side at the start
    start_rows: int
    #: PDN GameType tag value
    pdn_gametype: str
    #: result strings written in PDN: (white wins, draw, black wins)
    results: tuple[str, str, str]
    #: draw: this many moves by each player with only kings moved and no capture
    kings_only_moves: int
    endings: tuple[EndingRule, ...] = ()
    #: draw on the n-th occurrence of a position with the same side to move
    repetition_count: int = 3
    aliases: tuple[str, ...] = field(default=())

    @property
    def gametype_number(self) -> int:
        return int(self.pdn_gametype.split(",")[0])

    @property
    def squares(self) -> int:
        return self.board_size * self.board_size // 2

    def start_fen(self) -> str:
        """The start position in numeric PDN FEN (White moves first)."""
        per_row = self.board_size // 2
        n = self.start_rows * per_row
        total = self.squares
        low = f"1-{n}"
        high = f"{total - n + 1}-{total}"
        if self.numbered_from is Color.BLACK:
            return f"W:W{high}:B{low}"
        return f"W:W{low}:B{high}"

    def __str__(self) -> str:
        return self.name


def _ending(name: str, moves: int, *material: tuple[int, int, int, int]) -> EndingRule:
    return EndingRule(name=name, material=tuple(material), moves=moves)


BRAZILIAN = Variant(
    name="brazilian",
    title="Brazilian draughts",
    board_size=8,
    dark_corner_left=True,
    numbered_from=Color.BLACK,
    notation="algebraic",
    men_capture_backward=True,
    flying_kings=True,
    capture_law=CaptureLaw.MAJORITY,
    start_rows=3,
    pdn_gametype="26,W,8,8,A0,0",
    results=("1-0", "1/2-1/2", "0-1"),
    kings_only_moves=20,  # FEN 25a
    endings=(
        # FEN 25 b-f: five moves in each of these endings
        _ending("small ending", 5, (2, 0, 2, 0), (2, 0, 1, 0), (2, 0, 1, 1), (1, 0, 1, 0), (1, 0, 1, 1)),
    ),
    aliases=("br", "brasileiro", "brazil", "26"),
)

INTERNATIONAL = Variant(
    name="international",
    title="International draughts",
    board_size=10,
    dark_corner_left=True,
    numbered_from=Color.BLACK,
    notation="numeric",
    men_capture_backward=True,
    flying_kings=True,
    capture_law=CaptureLaw.MAJORITY,
    start_rows=4,
    pdn_gametype="20,W,10,10,N2,0",
    results=("2-0", "1-1", "0-2"),
    kings_only_moves=25,  # INT 6.2
    endings=(
        # INT 6.3: the document says ten moves (the current FMJD text says 16)
        _ending("three-piece ending", 10, (3, 0, 1, 0), (2, 1, 1, 0), (1, 2, 1, 0)),
        # INT 6.4
        _ending("small ending", 5, (2, 0, 1, 0), (1, 1, 1, 0), (1, 0, 1, 0)),
    ),
    aliases=("int", "international", "fmjd", "standard", "20", "10x10"),
)

PORTUGUESE = Variant(
    name="portuguese",
    title="Portuguese draughts (damas clássicas)",
    board_size=8,
    dark_corner_left=False,
    numbered_from=Color.WHITE,
    notation="numeric",
    men_capture_backward=False,
    flying_kings=True,
    capture_law=CaptureLaw.QUANTITY_QUALITY,
    start_rows=3,
    pdn_gametype="28,W,8,8,N1,1",
    results=("1-0", "1/2-1/2", "0-1"),
    kings_only_moves=20,  # PT 3.2.1a
    endings=(
        # PT 3.2.1b "regra da forçada": 3 kings v 1 king, 12 moves once the 3 kings hold the rio
        EndingRule(
            name="forced-win rule",
            material=((3, 0, 1, 0),),
            moves=12,
            counted_from_squares=frozenset({1, 5, 10, 14, 19, 23, 28, 32}),
        ),
    ),
    aliases=("pt", "portugues", "português", "portugal", "classicas", "28"),
)

VARIANTS: dict[str, Variant] = {v.name: v for v in (BRAZILIAN, INTERNATIONAL, PORTUGUESE)}


def find_variant(name: str | Variant) -> Variant:
    """The variant called ``name`` (or one of its aliases); unknown names are an error."""
    if isinstance(name, Variant):
        return name
    key = str(name).strip().lower()
    if key in VARIANTS:
        return VARIANTS[key]
    for variant in VARIANTS.values():
        if key in variant.aliases:
            return variant
    known = ", ".join(sorted(VARIANTS))
    raise UnknownVariantError(f"unknown variant: {shown(name)} (known: {known})")  # one short line, whatever came in


def variant_for_gametype(gametype: str) -> Variant | None:
    """The registered variant for a PDN ``GameType`` tag value, or None."""
    head = gametype.strip().split(",")[0].strip()
    for variant in VARIANTS.values():
        if str(variant.gametype_number) == head:
            return variant
    return None
