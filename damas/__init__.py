"""The damas app: the command line (``cli``, ``commands/``), the live board loop (``board/``), the
game records (``records/``), the computer (``computer/``), the web page (``web/``) and the
tournament hall's link (``hall_link/``); ``serve`` starts ``damas play`` from them all."""

__version__ = "0.1.0"


def version() -> str:
    """One source of the version: the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("damas")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
