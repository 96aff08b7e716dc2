"""Create the board a configuration describes (lazily: hardware libraries are imported
only for the backend in use)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from board_hal.backends import BoardIO, Clock
from board_hal.config import Config, ConfigError
from board_hal.layout import Layout
from board_hal.simulated import SimulatedBoard


def layout_for(config: Config, variant: str) -> Layout:
    lay = Layout(variant, config.rotation, config.white_side)
    if config.size is not None and config.size != lay.size:
        n = config.size
        raise ConfigError(f"{config.source}: this board is {n}x{n}; {lay.variant.name} needs {lay.size}x{lay.size}")
    return lay


def open_board(config: Config, variant: str, *, pin_factory: Any = None, clock: Clock = time.monotonic) -> BoardIO:
    """The board of a configuration, for a variant (checked against the board's size)."""
    layout = layout_for(config, variant)
    if config.backend == "simulated":
        return SimulatedBoard(layout, clock=clock).io()
    if config.backend == "gpio":
        assert config.gpio is not None
        from board_hal.gpio import MatrixScanner, ShiftRegisterLeds

        g = config.gpio
        try:
            sensors = MatrixScanner(g.rows, g.columns, rate=g.scan_rate, pin_factory=pin_factory, clock=clock)
            leds = None
            if g.led_data is not None and g.led_clock is not None and g.led_latch is not None:
                leds = ShiftRegisterLeds(
                    layout.size,
                    data=g.led_data,
                    clock=g.led_clock,
                    latch=g.led_latch,
                    looks=config.looks,
                    pin_factory=pin_factory,
                )
        except ConfigError:
            raise
        except Exception as exc:  # gpiozero: no pin factory, pin in use, not a Pi...
            raise ConfigError(f"{config.source}: cannot open the GPIO pins: {exc}") from None
        return BoardIO(layout, sensors, leds)
    if config.backend == "pico":
        port = config.pico.port if config.pico else None
        if port and "://" not in port and not Path(port).exists():
            raise ConfigError(f"{config.source}: pico.port: {port} does not exist (is the Pico plugged in?)")
        from firmware_bridge import open_pico

        return open_pico(config, layout, clock=clock)
    raise ConfigError(f"{config.source}: unknown backend {config.backend!r}")
