"""Create the board a configuration describes, through the backends registered by name
(:mod:`board_hal.registry`; hardware libraries are imported only for the backends in use)."""

from __future__ import annotations

import time
from typing import Any

from board_hal import registry
from board_hal.backends import BoardIO, Clock, LedBackend, SensorBackend
from board_hal.config import Config, ConfigError
from board_hal.layout import Layout
from board_hal.pins import opening_pins


def layout_for(config: Config, variant: str) -> Layout:
    lay = Layout(variant, config.rotation, config.white_side)
    if config.size is not None and config.size != lay.size:
        n = config.size
        raise ConfigError(f"{config.source}: this board is {n}x{n}; {lay.variant.name} needs {lay.size}x{lay.size}")
    return lay


def open_board(
    config: Config,
    variant: str,
    *,
    pin_factory: Any = None,
    clock: Clock = time.monotonic,
    hardware: registry.Hardware | None = None,
) -> BoardIO:
    """The board of a configuration, for a variant (checked against the board's size):
    ``board.backend``'s sensors and ``board.leds``' LEDs. ``hardware`` (or ``pin_factory``
    and ``clock``) is what the backends open their hardware through."""
    layout = layout_for(config, variant)
    hw = hardware or registry.Hardware(clock=clock, pin_factory=pin_factory)
    try:
        with opening_pins(config.source):  # no pin library: one line naming the fix
            sensor_backend = registry.get(config.backend)
            led_name = config.leds_backend
            same = led_name == config.backend
            sensors, leds = sensor_backend.open(config, layout, hw, sensors=True, leds=same)
            if sensors is None:
                raise ConfigError(f"{config.source}: board.backend: {config.backend} opened no sensors")
            if not same and led_name != registry.NO_LEDS:
                try:
                    _, leds = registry.get(led_name).open(config, layout, hw, sensors=False, leds=True)
                except BaseException:
                    sensors.close()
                    raise
    except registry.BackendError as exc:
        raise ConfigError(f"{config.source}: {exc}") from None
    return _board(layout, sensors, leds, f"{config.source}: board.backend: {config.backend}")


def _board(layout: Layout, sensors: SensorBackend, leds: LedBackend | None, where: str) -> BoardIO:
    try:
        return BoardIO(layout, sensors, leds)
    except ValueError as exc:
        sensors.close()
        if leds is not None and leds is not sensors:  # type: ignore[comparison-overlap]
            leds.close()
        raise ConfigError(f"{where}: {exc}") from None
