"""The draughts engine: search and evaluation for every variant of :mod:`rules`.

Pure standard-library Python on top of the rules engine (it imports nothing else of the
project). Iterative-deepening PVS with a bounded transposition table, capture quiescence,
the game's draw rules inside the search, time management and levels 1-10.

>>> from rules import Game
>>> from engine import Engine, Limits
>>> game = Game("portuguese")
>>> result = Engine("portuguese", level=10).search(game, Limits(depth=3))
>>> result.move in game.legal_moves, result.depth
(True, 3)
"""

from engine.levels import LEVELS, Level, level_settings
from engine.search import MATE, MATE_BOUND, Engine, Limits, SearchInfo, SearchResult, mate_in
from engine.tt import ENTRY_BYTES, TranspositionTable, entries_for

__all__ = [
    "ENTRY_BYTES",
    "LEVELS",
    "MATE",
    "MATE_BOUND",
    "Engine",
    "Level",
    "Limits",
    "SearchInfo",
    "SearchResult",
    "TranspositionTable",
    "entries_for",
    "level_settings",
    "mate_in",
]
