"""The damas app: the command line, the live board loop, the game records and the web page."""

__version__ = "0.1.0"
