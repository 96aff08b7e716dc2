"""The damas app: command line, and (later) the live board, records and web page."""

__version__ = "0.1.0"
