"""Backends plugged in by name: ``backend = "mcp23017"`` in the configuration.

A backend is an object (usually a :class:`Backend` subclass's instance) that a package
registers under the entry point group ``damas.backends``; the entry point's name is the
name a configuration uses. The built-in backends are registered the same way, in this
project's ``pyproject.toml``, so a third-party package adds one exactly as they are added::

    [project.entry-points."damas.backends"]
    mychip = "my_package.board:BACKEND"

A backend says what it provides (sensors, LEDs, or both); its settings are the table
named like it (``[mychip]``: :meth:`Backend.check` validates it when the file is read, so a
mistake is one line naming the file and the setting); it opens the hardware lazily:
hardware libraries are imported in :meth:`Backend.open`, only for the backend in use.

Any sensor backend works with any LED backend: ``board.backend`` names the sensors,
``board.leds`` the LEDs (by default the sensor backend's own, if it has any; ``"none"``:
no LEDs).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

from board_hal.squares import Sensing

if TYPE_CHECKING:
    from board_hal.backends import Clock, LedBackend, SensorBackend
    from board_hal.config import Config
    from board_hal.layout import Layout

GROUP = "damas.backends"
NO_LEDS = "none"


class BackendError(Exception):
    """A backend cannot be found or loaded, as one line."""


@dataclass
class Hardware:
    """What a backend opens its hardware through; tests put mocks here (a gpiozero
    ``MockFactory``, a fake I2C bus, a fake LED strip), a real board leaves the defaults."""

    clock: Clock = time.monotonic
    pin_factory: Any = None  # gpiozero's pin factory (None: gpiozero chooses)
    i2c: Callable[[int], Any] | None = None  # I2C bus number -> an smbus2.SMBus-like object
    strip: Callable[..., Any] | None = None  # makes a WS2812 strip (see board_hal.ws2812)
    spi: Callable[[str], Any] | None = None  # /dev/spidevB.D -> an open spidev.SpiDev-like object
    #: a device that is not there yet is waited for, not refused (``damas play``: the board shows as
    #: not connected until it appears, as after an unplug); for backends behind a link that reconnects
    wait_for_device: bool = False
    extra: dict[str, Any] = field(default_factory=dict)  # for third-party backends


class Backend:
    """A sensor and/or LED backend, as registered under ``damas.backends``."""

    #: set from the entry point's name when loaded
    name: str = ""
    #: one line for ``damas selftest``/documentation
    summary: str = ""
    sensors: bool = False
    leds: bool = False
    #: its LEDs work only together with its own sensors (one device does both: the Pico)
    leds_need_sensors: bool = False
    #: the most its sensors can tell (an opened board says what it does: ``SensorBackend.senses``)
    senses: Sensing = Sensing.PRESENCE

    def check(self, table: Mapping[str, Any], config: Config) -> Any:
        """Validate this backend's table (``[name]``, empty if absent; ``config``: the rest,
        already read); the result is kept in ``config.backend_settings[name]``. Raise
        ``ConfigError`` with one line."""
        return dict(table)

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        """Open the sensors and/or the LEDs (as asked)."""
        raise NotImplementedError


_cache: dict[str, Backend] = {}


def _entry_points() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=GROUP):
        found.setdefault(ep.name, ep)  # the first on sys.path wins, as for imports
    return found


def names() -> list[str]:
    """Every registered backend's name, sorted."""
    return sorted(_entry_points())


def get(name: str) -> Backend:
    """The backend registered as ``name``."""
    if name in _cache:
        return _cache[name]
    eps = _entry_points()
    if name not in eps:
        known = ", ".join(sorted(eps)) or "none: is damas installed (pip install -e .)?"
        raise BackendError(f"unknown backend {name[:40]!r} (known: {known})")
    ep = eps[name]
    try:
        obj = ep.load()
    except Exception as exc:  # a broken third-party package must not look like our bug
        raise BackendError(f"backend {name!r} ({ep.value}) cannot be loaded: {type(exc).__name__}: {exc}") from None
    backend = obj() if isinstance(obj, type) else obj
    if not isinstance(backend, Backend):
        raise BackendError(f"backend {name!r} ({ep.value}) is not a board_hal.registry.Backend")
    backend.name = name
    _cache[name] = backend
    return backend


def clear_cache() -> None:
    """Forget loaded backends (after installing a package in a running process: tests)."""
    _cache.clear()
