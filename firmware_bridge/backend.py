"""The Pico backend, registered by name (``backend = "pico"``) like any other board_hal
backend: board_hal does not import this package."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from board_hal.registry import Backend, Hardware

if TYPE_CHECKING:
    from board_hal.backends import LedBackend, SensorBackend
    from board_hal.config import Config
    from board_hal.layout import Layout

log = logging.getLogger(__name__)


class Pico(Backend):
    summary = "a Raspberry Pi Pico on USB scans the matrix and drives WS2812 LEDs (hardware/protocol.md)"
    sensors = True
    leds = True
    leds_need_sensors = True  # one serial link does both

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        from board_hal.config import ConfigError
        from firmware_bridge import open_pico

        port = config.pico.port if config.pico else None
        if port and "://" not in port and not Path(port).exists():
            if not hw.wait_for_device:
                raise ConfigError(f"{config.source}: pico.port: {port} does not exist (is the Pico plugged in?)")
            # the bridge opens the port again and again until it appears (as after an unplug)
            log.warning(
                "%s: pico.port: %s does not exist yet: waiting for the Pico to be plugged in", config.source, port
            )
        io = open_pico(config, layout, clock=hw.clock)
        return io.sensors, (io.leds if leds else None)


PICO = Pico()
