"""LED intents and how a backend renders them.

A LED intent is (square, role): what a lit square *means*. Each backend renders roles
its own way: RGB backends in a configurable colour per role, steady or blinking;
single-colour backends by the role's pattern alone (on, slow or fast blink, a flash, a
double blink, a wink), so the roles a player meets side by side blink apart: a lifted
piece's destinations (``hint``: where it can go) stay steady, a suggested move's origin
double-blinks and its destination winks, the last move flashes now and then.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass


class Role(enum.Enum):
    """What a lit square means (a stable vocabulary shared with the referee)."""

    FROM = "from"
    TO = "to"
    PATH = "path"
    MUST_CAPTURE = "must-capture"
    CAPTURABLE = "capturable"
    REMOVE = "remove"
    MISSING = "missing"
    EXTRA = "extra"
    ERROR = "error"
    HINT = "hint"  # where the lifted piece can go (the ``[leds]`` key ``hint``; also ``can-go``)
    TEST = "test"  # the self-test
    SUGGEST_FROM = "suggest-from"  # a suggested move (the engine's hint, a training move): its piece
    SUGGEST_TO = "suggest-to"  # ...and where it goes
    LAST = "last"  # the last move's origin and destination, while nothing else is lit
    SENSOR = "sensor"  # a square whose sensor does not answer (the game goes on without it)


class Pattern(enum.Enum):
    OFF = "off"
    STEADY = "steady"
    SLOW = "slow"  # 1 Hz
    FAST = "fast"  # 4 Hz
    FLASH = "flash"  # a short flash every 1.5 s (a quiet reminder)
    DOUBLE = "double"  # two short blinks, then a pause (1.5 s)
    WINK = "wink"  # on, with a short dark moment every 1.5 s


#: when each pattern is on within its period: (period in seconds, the (start, end) of each lit span)
SPANS: dict[Pattern, tuple[float, tuple[tuple[float, float], ...]]] = {
    Pattern.SLOW: (1.0, ((0.0, 0.5),)),
    Pattern.FAST: (0.25, ((0.0, 0.125),)),
    Pattern.FLASH: (1.5, ((0.0, 0.15),)),
    Pattern.DOUBLE: (1.5, ((0.0, 0.15), (0.3, 0.45))),
    Pattern.WINK: (1.5, ((0.0, 1.2),)),
}


def blinks(pattern: Pattern) -> bool:
    """Does a LED with this pattern change over time (a backend then refreshes it)?"""
    return pattern in SPANS


Colour = tuple[int, int, int]


@dataclass(frozen=True)
class Look:
    colour: Colour
    pattern: Pattern


def parse_colour(text: str) -> Colour:
    """``#rrggbb`` to an (r, g, b) tuple."""
    t = text.strip()
    if len(t) == 7 and t[0] == "#":
        try:
            return (int(t[1:3], 16), int(t[3:5], 16), int(t[5:7], 16))
        except ValueError:
            pass
    raise ValueError(f"invalid colour: {text!r} (expected #rrggbb)")


#: default looks per role (colour for RGB LEDs; the pattern is also what single-colour LEDs do)
DEFAULT_LOOKS: dict[Role, Look] = {
    Role.FROM: Look((0, 80, 255), Pattern.STEADY),
    Role.TO: Look((0, 200, 60), Pattern.STEADY),
    Role.PATH: Look((0, 140, 140), Pattern.STEADY),
    Role.MUST_CAPTURE: Look((255, 140, 0), Pattern.FAST),
    Role.CAPTURABLE: Look((255, 60, 0), Pattern.SLOW),
    Role.REMOVE: Look((255, 0, 0), Pattern.SLOW),
    Role.MISSING: Look((255, 0, 160), Pattern.FAST),
    Role.EXTRA: Look((255, 255, 0), Pattern.FAST),
    Role.ERROR: Look((255, 0, 0), Pattern.FAST),
    Role.HINT: Look((60, 60, 60), Pattern.STEADY),
    Role.TEST: Look((255, 255, 255), Pattern.STEADY),
    Role.SUGGEST_FROM: Look((170, 0, 255), Pattern.DOUBLE),
    Role.SUGGEST_TO: Look((170, 0, 255), Pattern.WINK),
    Role.LAST: Look((90, 90, 30), Pattern.FLASH),
    Role.SENSOR: Look((255, 255, 255), Pattern.SLOW),
}

#: other names a configuration may give a role's colour (``[leds] can-go = "#..."``)
ALIASES = {"can-go": Role.HINT}


def looks_from_config(colours: Mapping[str, str] | None) -> dict[Role, Look]:
    """Default looks with colours overridden per role name (``{"from": "#00ff00"}``)."""
    looks = dict(DEFAULT_LOOKS)
    for name, colour in (colours or {}).items():
        try:
            role = ALIASES.get(name) or Role(name)
        except ValueError:
            known = ", ".join([r.value for r in Role] + list(ALIASES))
            raise ValueError(f"unknown LED role: {name!r} (known: {known})") from None
        looks[role] = Look(parse_colour(colour), looks[role].pattern)
    return looks


def lit(pattern: Pattern, now: float) -> bool:
    """Is a LED with this pattern on at time ``now``?"""
    if pattern is Pattern.OFF:
        return False
    if pattern is Pattern.STEADY:
        return True
    period, spans = SPANS[pattern]
    phase = now % period
    return any(start <= phase < end for start, end in spans)


def render_rgb(intents: Mapping[int, Role], looks: Mapping[Role, Look], now: float) -> dict[int, Colour]:
    """Colours of the lit LEDs (by index) at time ``now``."""
    out = {}
    for index, role in intents.items():
        look = looks[role]
        if lit(look.pattern, now):
            out[index] = look.colour
    return out


def render_mono(intents: Mapping[int, Role], looks: Mapping[Role, Look], now: float) -> set[int]:
    """The LEDs (by index) that are on at time ``now`` on a single-colour board."""
    return {index for index, role in intents.items() if lit(looks[role].pattern, now)}
