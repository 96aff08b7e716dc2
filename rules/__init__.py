"""The rules engine: Brazilian, International and Portuguese draughts.

Pure standard-library Python: variants as data, board geometry and square
numbering, legal moves with each variant's capture law, games with their draw
rules, FEN and PDN.

>>> from rules import Game
>>> game = Game("brazilian")
>>> game.push_pdn("c3-d4")
Move(path=(22, 18))
>>> game.fen()
'B:Wd4,a3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6'
"""

from rules.errors import (
    AmbiguousMoveError,
    DraughtsError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidResultError,
    InvalidSquareError,
    PdnSyntaxError,
    UnknownVariantError,
)
from rules.game import Game, Outcome, Termination, parse_result
from rules.geometry import Geometry, Square, geometry_for
from rules.move import Move
from rules.perft import perft
from rules.position import LegalMoves, Piece, Position, PseudoLegalMoves
from rules.variants import (
    BLACK,
    BRAZILIAN,
    INTERNATIONAL,
    PORTUGUESE,
    VARIANTS,
    WHITE,
    CaptureLaw,
    Color,
    EndingRule,
    Variant,
    find_variant,
)

__all__ = [
    "BLACK",
    "BRAZILIAN",
    "INTERNATIONAL",
    "PORTUGUESE",
    "VARIANTS",
    "WHITE",
    "AmbiguousMoveError",
    "CaptureLaw",
    "Color",
    "DraughtsError",
    "EndingRule",
    "Game",
    "Geometry",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidResultError",
    "InvalidSquareError",
    "LegalMoves",
    "Move",
    "Outcome",
    "PdnSyntaxError",
    "Piece",
    "Position",
    "PseudoLegalMoves",
    "Square",
    "Termination",
    "UnknownVariantError",
    "Variant",
    "find_variant",
    "geometry_for",
    "parse_result",
    "perft",
]
