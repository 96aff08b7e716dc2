"""The game records: the SQLite store and its journal copies (``store``), a game journalled and
replayed through the referee (``session``), and rebuilding games from their copies (``recover``).
It imports nothing else of the app."""
