"""Studying games away from the game in play: a game or a PDN opened on the page, moves tried
from any of its positions and kept as PDN variations (``tree``)."""
