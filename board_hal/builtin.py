"""The backends this package has always had, registered by name like any other
(``pyproject.toml``: ``[project.entry-points."damas.backends"]``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from board_hal.config import ConfigError
from board_hal.registry import Backend, Hardware
from board_hal.squares import Sensing

if TYPE_CHECKING:
    from board_hal.backends import LedBackend, SensorBackend
    from board_hal.config import Config
    from board_hal.layout import Layout


class Simulated(Backend):
    summary = "the simulated board (no hardware): sensors and LEDs; senses presence, or colour and crowns"
    sensors = True
    leds = True
    leds_need_sensors = True
    senses = Sensing.CROWN

    def check(self, table: Mapping[str, Any], config: Config) -> Sensing | None:
        """``[simulated] senses = "presence" | "colour" | "crown"`` (unset: the environment's
        ``DAMAS_SIMULATED_SENSES``, else presence)."""
        unknown = set(table) - {"senses"}
        if unknown:
            raise ConfigError(f"{config.source}: unknown setting simulated.{sorted(unknown)[0][:40]} (known: senses)")
        value = table.get("senses")
        if value is None:
            return None
        try:
            if not isinstance(value, str):
                raise ValueError
            return Sensing.named(value)
        except ValueError:
            raise ConfigError(
                f'{config.source}: simulated.senses must be "presence", "colour" or "crown", not {value!r:.40}'
            ) from None

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        from board_hal.simulated import SimulatedBoard

        senses = config.backend_settings.get(self.name)
        board = SimulatedBoard(layout, clock=hw.clock, senses=senses if isinstance(senses, Sensing) else None)
        return board, (board if leds else None)


class Gpio(Backend):
    summary = "a reed-switch diode matrix on the Pi's GPIO; single-colour LEDs on a 74HC595 chain"
    sensors = True
    leds = True

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        from board_hal.gpio import MatrixScanner, ShiftRegisterLeds

        g = config.gpio
        assert g is not None  # parse_config refuses the gpio backend without a [gpio] table
        scanner: SensorBackend | None = None
        chain: LedBackend | None = None
        try:
            if sensors:
                scanner = MatrixScanner(
                    g.rows,
                    g.columns,
                    rate=g.scan_rate,
                    pin_factory=hw.pin_factory,
                    clock=hw.clock,
                    settle=g.settle_us / 1e6,
                )
            if leds and g.led_data is not None and g.led_clock is not None and g.led_latch is not None:
                chain = ShiftRegisterLeds(
                    layout.size,
                    data=g.led_data,
                    clock=g.led_clock,
                    latch=g.led_latch,
                    looks=config.looks,
                    pin_factory=hw.pin_factory,
                )
        except Exception as exc:  # gpiozero: no pin factory, pin in use, not a Pi...
            if scanner is not None:
                scanner.close()
            raise ConfigError(f"{config.source}: cannot open the GPIO pins: {exc}") from None
        return scanner, chain


SIMULATED = Simulated()
GPIO = Gpio()
