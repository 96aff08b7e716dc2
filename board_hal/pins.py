"""When gpiozero can load no pin library, the one line that says what to do about it.

gpiozero tries lgpio, RPi.GPIO, pigpio and its own native driver in turn, warns once for each
that fails (``PinFactoryFallback``) and ends with ``BadPinFactory: Unable to load any default pin
factory!`` — five lines of which none says what to install or change. :func:`opening_pins` keeps
those warnings and, when the opening fails for that reason, replaces the error with one line
built from lgpio's own reason (lgpio is the library every Pi uses, the only one on a Pi 5):

- lgpio is not installed: install it (``pip install 'damas[pi]'``, deploy/README.md);
- lgpio could not make its notification FIFO (importing lgpio creates ``.lgd-nfy*`` in its
  working directory, ``$LG_WD`` or the current one): point ``LG_WD`` at a writable folder (the
  service's is ``/run/damas``);
- lgpio loaded but reached no GPIO chip (gpiozero found no Pi revision, or the chip would not
  open): not a Raspberry Pi, or a user without the gpio group.

lgpio's C library also moves the whole process into ``$LG_WD`` when it is first imported (its
``lgInit`` calls ``chdir``), so a relative path opened afterwards — the database's journal copies
are opened per line, a configuration re-read — would land in the runtime directory. lgpio itself
needs its working directory only while it opens its FIFO at import, so :func:`opening_pins` puts
the process back where it was.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from board_hal.config import ConfigError

log = logging.getLogger(__name__)

INSTALL = "install lgpio into damas's Python environment (`pip install 'damas[pi]'`, see `damas deploy guide`)"
FIFO = (
    "lgpio cannot create its notification FIFO (.lgd-nfy*) in its working directory: set LG_WD to a folder "
    "the user can write (the service's is /run/damas)"
)
CHIP = "lgpio reached no GPIO chip of a Raspberry Pi: is this one, and is the user in the gpio group?"


def advice(reasons: dict[str, str]) -> str:
    """What to do, from gpiozero's reason for each library it tried (``{"lgpio": "No module..."}``)."""
    lgpio = reasons.get("lgpio", "")
    if not lgpio or "No module named 'lgpio'" in lgpio:
        return INSTALL
    if ".lgd-nfy" in lgpio or "Permission denied" in lgpio or "Read-only" in lgpio:
        return FIFO
    return CHIP


def _caused_by_no_pin_factory(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if type(seen).__name__ == "BadPinFactory":
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextmanager
def opening_pins(source: str) -> Iterator[None]:
    """Open a board's GPIO pins inside this: gpiozero's fallback warnings are kept, not printed,
    and an opening that failed because no pin library loaded raises one ConfigError line naming
    the fix (``source``: the configuration file). Other errors pass through unchanged."""
    from gpiozero.exc import PinFactoryFallback

    here = os.getcwd()
    # gpiozero's fallback warnings are kept; any other warning passes the filters as it would
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PinFactoryFallback)
        try:
            yield
        except Exception as exc:
            if not _caused_by_no_pin_factory(exc):
                raise
            reasons = _fallbacks(caught)
            why = f"lgpio: {reasons.get('lgpio', 'not tried')}"
            raise ConfigError(f"{source}: no GPIO library could be loaded ({why}): {advice(reasons)}") from None
        finally:
            if os.getcwd() != here:  # lgpio's import moved the process into $LG_WD
                os.chdir(here)
    reasons = _fallbacks(caught)
    if "lgpio" in reasons:  # another library was loaded instead (gpiozero's native driver on a Pi 3/4)
        log.warning("%s: lgpio could not be loaded (%s): %s", source, reasons["lgpio"], advice(reasons))
    for w in caught:  # any other warning that the filters let through, shown as it would have been
        if not issubclass(w.category, PinFactoryFallback):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def _fallbacks(caught: list[warnings.WarningMessage]) -> dict[str, str]:
    """gpiozero's ``Falling back from NAME: WHY`` warnings, as {NAME: WHY}."""
    reasons = {}
    for w in caught:
        text = str(w.message)
        if text.startswith("Falling back from ") and ": " in text:
            name, why = text.removeprefix("Falling back from ").split(": ", 1)
            reasons[name] = why
    return reasons
