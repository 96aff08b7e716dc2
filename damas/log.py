"""Diagnostics of ``damas`` through :mod:`logging`: plain lines that journald keeps.

The lines read ``damas: <message>`` as they always did (debug lines ``damas: debug: <logger>:
<message>``), on standard output. Under systemd (standard output is the stream
``$JOURNAL_STREAM`` names) each line starts with
its syslog priority (``<3>`` for an error, ``<4>`` a warning, ``<6>`` information, ``<7>`` debug),
which journald takes as the entry's priority and strips (``SyslogLevelPrefix=``, on by default):
``journalctl -p warning -u damas`` then shows only the problems. No timestamps: journald adds
its own.

``damas -v`` shows the debug lines (a board-loop error's traceback, the Pico link's retries),
``damas -q`` only warnings and errors.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

#: the packages whose loggers ``-v``/``-q`` set; others (aiohttp, asyncio) show warnings only
OURS = ("damas", "firmware_bridge", "board_hal", "referee", "rules", "engine", "hall")
_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}


class PlainFormatter(logging.Formatter):
    """``damas: message``; debug lines name their logger; under journald a ``<priority>`` prefix."""

    def __init__(self, journald: bool = False) -> None:
        super().__init__()
        self.journald = journald

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.levelno < logging.INFO:
            text = f"debug: {record.name}: {text}"
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        line = f"damas: {text}"
        if self.journald:
            priority = _PRIORITY.get(record.levelno, 6)
            line = "\n".join(f"<{priority}>{part}" for part in line.split("\n"))
        return line


def level_for(verbosity: int) -> int:
    """``-v`` (1): DEBUG; none (0): INFO; ``-q`` (-1): WARNING; ``-qq``: ERROR."""
    return {1: logging.DEBUG, 0: logging.INFO, -1: logging.WARNING}.get(
        verbosity, logging.DEBUG if verbosity > 0 else logging.ERROR
    )


class _StdoutHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stdout`` is when a record comes (a redirected one too)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stdout
        super().emit(record)


def _to_journal(stream: TextIO) -> bool:
    """Is ``stream`` the journal's (``$JOURNAL_STREAM`` names its device and inode; a terminal
    started from a service inherits the variable, not the stream)?"""
    expected = os.environ.get("JOURNAL_STREAM", "")
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):  # io.StringIO and such: not the journal
        return False
    return bool(expected) and expected == f"{st.st_dev}:{st.st_ino}"


def configure(verbosity: int = 0, stream: TextIO | None = None) -> logging.Handler:
    """Send our packages' log records to ``stream`` (default: standard output, as it is at each
    record) at the level ``verbosity`` asks; the handler is returned (to remove it)."""
    handler = logging.StreamHandler(stream) if stream is not None else _StdoutHandler(sys.stdout)
    handler.setFormatter(PlainFormatter(journald=_to_journal(stream if stream is not None else sys.stdout)))
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h.formatter, PlainFormatter)]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in OURS:
        logging.getLogger(name).setLevel(level_for(verbosity))
    return handler


class Throttle:
    """The first of a run of failures logged at once, then at most one every ``every`` seconds
    with how many were not shown; each logged one's traceback at debug level. A loop that
    fails on every turn (every 20 ms) thus writes one line per ``every`` seconds, not fifty a second."""

    def __init__(
        self, logger: logging.Logger, what: str, every: float = 10.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.logger = logger
        self.what = what
        self.every = every
        self.clock = clock
        self.last: float | None = None  # when the last line was written
        self.hidden = 0  # failures since then not shown
        self.failures = 0  # in this run of failures

    def failed(self, exc: BaseException) -> None:
        now = self.clock()
        self.failures += 1
        if self.last is not None and now - self.last < self.every:
            self.hidden += 1
            return
        more = f" ({self.hidden} more since the last report)" if self.hidden else ""
        self.logger.error("%s: %s%s", self.what, str(exc) or type(exc).__name__, more)
        self.logger.debug("%s: the traceback", self.what, exc_info=exc)
        self.last = now
        self.hidden = 0

    def ok(self) -> None:
        """A turn went well: a later failure is reported at once."""
        if self.failures:
            if self.failures > 1:
                self.logger.info("%s: works again after %d failures", self.what, self.failures)
            else:
                self.logger.info("%s: works again", self.what)
        self.failures = 0
        self.hidden = 0
        self.last = None
