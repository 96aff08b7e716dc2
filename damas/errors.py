"""The app's user errors: what the ``damas`` command prints as one line and exit status 2."""

from __future__ import annotations

from board_hal.config import ConfigError
from damas.records.store import StoreError
from referee import LogError
from rules import DraughtsError

EXIT_USAGE = 2


class UserError(Exception):
    """A problem with what the user asked for; printed as one line."""


#: everything ``damas`` reports as one line on standard error with exit status 2: a bad
#: argument, a broken configuration, a database it cannot use, a malformed event log, bad
#: notation. ``main`` converts them once; the commands let them rise.
USER_ERRORS: tuple[type[Exception], ...] = (UserError, DraughtsError, ConfigError, StoreError, LogError)
