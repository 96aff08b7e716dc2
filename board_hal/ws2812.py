"""WS2812 / SK6812 ("NeoPixel") RGB LEDs driven by the Pi itself (``leds = "ws2812"``).

The strip hangs on the SPI MOSI pin (GPIO 10, header pin 19), through pi5neo: each of the
LED's data bits is one SPI byte at about 6.5 MHz (0xF8 for a one, 0xC0 for a zero), so the
timing comes from the SPI hardware, not from Python. Why pi5neo (``pip install damas[pi]``):
it works the same on a Pi 5 (whose RP1 chip rpi_ws281x cannot drive) and on a Pi 3, 4 or
Zero 2 (any Pi with SPI, no root, no kernel module); it is pure Python over ``spidev``
(piwheels, or Debian's python3-spidev), MIT, and maintained. Adafruit's Pi 5 NeoPixel
helper is Pi 5 only; its SPI driver needs all of Blinka.

The strip's order under the board is configurable: ``first`` is the corner cell of LED 0,
``along`` says whether the strip runs along rows or columns, ``order`` whether the next
line comes back the other way (``"serpentine"``, a zig-zag) or starts at the same side
again (``"matrix"``). A strip laid differently from its configuration is found by
``damas selftest`` (it lights a few LEDs and asks for a piece on each lit square), which
names the settings that would match, such as a strip that runs the other way.
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from board_hal import pinmap
from board_hal.backends import Clock, LedBackend, stop_worker
from board_hal.layout import Cell, cell_name
from board_hal.leds import DEFAULT_LOOKS, Colour, Look, Role, blinks, render_rgb
from board_hal.registry import Backend, Hardware

if TYPE_CHECKING:
    from board_hal.backends import SensorBackend
    from board_hal.config import Config
    from board_hal.layout import Layout

ORDERS = ("serpentine", "matrix")
ALONG = ("rows", "columns")
PIXELS = ("GRB", "RGB", "GRBW", "RGBW")


def strip_cells(size: int, first: Cell = (0, 0), along: str = "rows", order: str = "serpentine") -> list[Cell]:
    """The cell under each LED of the strip, from LED 0 (at corner ``first``)."""
    r0, c0 = first
    if r0 not in (0, size - 1) or c0 not in (0, size - 1):
        raise ValueError(f"the strip must start at a corner, not at {cell_name(first)}")
    dr = 1 if r0 == 0 else -1
    dc = 1 if c0 == 0 else -1
    out: list[Cell] = []
    for i in range(size):
        line = list(range(size))
        if order == "serpentine" and i % 2:
            line.reverse()
        for j in line:
            out.append((r0 + dr * i, c0 + dc * j) if along == "rows" else (r0 + dr * j, c0 + dc * i))
    return out


def corners(size: int) -> list[Cell]:
    return [(0, 0), (0, size - 1), (size - 1, 0), (size - 1, size - 1)]


@dataclass(frozen=True)
class StripLayout:
    first: Cell
    along: str
    order: str

    def cells(self, size: int) -> list[Cell]:
        return strip_cells(size, self.first, self.along, self.order)

    def settings(self) -> str:
        return f'ws2812.first = "{cell_name(self.first)}", along = "{self.along}", order = "{self.order}"'


def every_layout(size: int) -> list[StripLayout]:
    return [StripLayout(f, a, o) for f, a, o in itertools.product(corners(size), ALONG, ORDERS)]


class Ws2812Leds(LedBackend):
    """RGB LEDs on a WS2812 strip: ``strip`` is a pi5neo ``Pi5Neo`` (or anything with its
    ``set_led_color`` / ``update_strip`` / ``close``); ``layout`` lays it under the board."""

    def __init__(
        self,
        size: int,
        strip: Any,
        layout: StripLayout | None = None,
        *,
        looks: Mapping[Role, Look] | None = None,
        brightness: float = 1.0,
        time_source: Clock = time.monotonic,
        blink_rate: float = 20.0,
    ) -> None:
        self.size = size
        self.strip = strip
        self.layout = layout or StripLayout((0, 0), "rows", "serpentine")
        self.cells = self.layout.cells(size)
        self.index = {cell: i for i, cell in enumerate(self.cells)}
        self.looks = dict(looks or DEFAULT_LOOKS)
        self.brightness = brightness
        self.time = time_source
        self.blink_rate = blink_rate
        self.pixels: list[Colour] = [(0, 0, 0)] * len(self.cells)  # what the strip shows now
        self.refreshes = 0  # frames sent to the strip
        self._intents: dict[int, Role] = {}
        self._lock = threading.Lock()
        self._control = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._send()

    def show(self, intents: Mapping[Cell, Role]) -> None:
        """Show these intents now (blinking roles keep a thread refreshing the strip)."""
        with self._control:
            stop_worker(self._stop, self._thread)
            self._thread = None
            self._intents = {self.index[cell]: role for cell, role in intents.items()}
            self.refresh()
            if any(blinks(self.looks[r].pattern) for r in self._intents.values()):
                self._stop = threading.Event()
                self._thread = threading.Thread(target=self._blink, args=(self._stop,), name="ws2812", daemon=True)
                self._thread.start()

    def refresh(self, now: float | None = None) -> None:
        """Send the frame at ``now`` (blinking roles evaluated then), if it changed."""
        with self._lock:
            lit = render_rgb(self._intents, self.looks, self.time() if now is None else now)
            b = self.brightness
            frame: list[Colour] = []
            for i in range(len(self.cells)):
                r, g, bl = lit.get(i, (0, 0, 0))
                frame.append((round(r * b), round(g * b), round(bl * b)))
            if frame != self.pixels:
                self.pixels = frame
                self._send()

    def _send(self) -> None:
        for i, (r, g, b) in enumerate(self.pixels):
            self.strip.set_led_color(i, r, g, b)
        self.strip.update_strip(sleep_duration=None)  # the strip latches after 50 µs of silence
        self.refreshes += 1

    def probes(self) -> list[Cell]:
        """The cells whose LEDs the self-test lights to find how the strip lies: LEDs 0, 1,
        the first of the second line and the last (these tell every corner, direction and order apart)."""
        return [self.cells[i] for i in (0, 1, self.size, len(self.cells) - 1)]

    def lit_cells(self) -> dict[Cell, Colour]:
        """The cells whose LED is on now, with its colour."""
        return {self.cells[i]: c for i, c in enumerate(self.pixels) if c != (0, 0, 0)}

    def _blink(self, stop: threading.Event) -> None:
        while not stop.wait(1.0 / self.blink_rate):
            self.refresh()

    def explain(self, seen: Mapping[Cell, Cell]) -> str | None:
        """The self-test lit the LED meant for cell k and a person found it lit at cell v,
        for each k -> v in ``seen``: one line saying how the strip really lies, if that
        differs from the configuration."""
        if all(k == v for k, v in seen.items()):
            return None
        meant = {k: self.index[k] for k in seen}
        fits = [
            lay for lay in every_layout(self.size) if all(lay.cells(self.size)[meant[k]] == v for k, v in seen.items())
        ]
        here = cell_name(self.layout.first)
        if not fits:
            k, v = next((k, v) for k, v in seen.items() if k != v)
            return (
                f"the LED meant for cell {cell_name(k)} lit at {cell_name(v)}: "
                f"the strip is wired in no order the settings describe (hardware/wiring-ws2812.md)"
            )
        fit = fits[0]
        first = cell_name(fit.first)
        end = self.layout.cells(self.size)[-1]
        if fit.first == end and fit.order == self.layout.order:
            what = f"the LED strip runs the other way: its first LED is at {first}, not {here}"
        elif fit.first != self.layout.first:
            what = f"the LED strip starts at {first}, not {here}"
        elif fit.along != self.layout.along:
            what = f"the LED strip runs along {fit.along}, not {self.layout.along}"
        else:
            what = f"the LED strip is laid {fit.order}, not {self.layout.order}"
        return f"{what} (set {fit.settings()})"

    def close(self) -> None:
        if self.closed:
            return
        with self._control:
            stop_worker(self._stop, self._thread)
            self._thread = None
        try:
            self.pixels = [(0, 0, 0)] * len(self.cells)
            self._send()  # dark when the program ends
        finally:
            self.strip.close()
        super().close()


# -- the configuration and the registry ------------------------------------------------------------
@dataclass
class Settings:
    spi: str
    layout: StripLayout
    brightness: float
    pixel: str

    def gpio_pins(self) -> dict[int, str]:
        from board_hal.hc165 import spi_pins

        return spi_pins(self.spi, "ws2812.spi")  # the kernel's SPI driver takes the bus's pins


_KEYS = {"spi", "first", "along", "order", "brightness", "pixel"}


class Ws2812(Backend):
    summary = "WS2812/SK6812 RGB LEDs on the Pi's SPI MOSI (GPIO 10), through pi5neo: Pi 3, 4, 5 and Zero 2"
    leds = True

    def check(self, table: Mapping[str, Any], config: Config) -> Settings:
        from board_hal.config import ConfigError
        from board_hal.mcp23017 import board_size

        def fail(msg: str) -> Exception:
            return ConfigError(f"{config.source}: {msg}")

        pinmap.unknown(table, _KEYS, "ws2812", fail)
        n = board_size(config, "ws2812")
        spi = table.get("spi", "/dev/spidev0.0")
        if not isinstance(spi, str) or not re.fullmatch(r"(.*/)?spidev\d+\.\d+", spi):
            raise fail(f"ws2812.spi must be an SPI device such as /dev/spidev0.0, not {pinmap._short(spi)}")
        first_name = table.get("first", "a1")
        first = pinmap.parse_cell(first_name, n) if isinstance(first_name, str) else None
        if first is None or first not in corners(n):
            names = ", ".join(cell_name(c) for c in corners(n))
            raise fail(f"ws2812.first must be the corner cell of LED 0 ({names}), not {pinmap._short(first_name)}")
        along = table.get("along", "rows")
        if along not in ALONG:
            raise fail(f'ws2812.along must be "rows" or "columns", not {pinmap._short(along)}')
        order = table.get("order", "serpentine")
        if order not in ORDERS:
            raise fail(f'ws2812.order must be "serpentine" (zig-zag) or "matrix", not {pinmap._short(order)}')
        brightness = pinmap.number(table.get("brightness", 0.5), 0, 1, "ws2812.brightness", "a fraction", fail)
        pixel = table.get("pixel", "GRB")
        if pixel not in PIXELS:
            raise fail(f"ws2812.pixel must be one of {', '.join(PIXELS)}, not {pinmap._short(pixel)}")
        return Settings(spi, StripLayout(first, along, order), brightness, pixel)

    def open(
        self, config: Config, layout: Layout, hw: Hardware, *, sensors: bool, leds: bool
    ) -> tuple[SensorBackend | None, LedBackend | None]:
        from board_hal.config import ConfigError

        s: Settings = config.backend_settings[self.name]
        count = layout.size * layout.size
        if hw.strip is not None:
            strip = hw.strip(s.spi, count, s.pixel)
        else:
            strip = open_strip(s.spi, count, s.pixel, config.source)
        try:
            return None, Ws2812Leds(layout.size, strip, s.layout, looks=config.looks, brightness=s.brightness)
        except Exception as exc:
            strip.close()
            raise ConfigError(f"{config.source}: ws2812: cannot drive the strip on {s.spi}: {exc}") from None


def open_strip(device: str, count: int, pixel: str, source: str = "<config>") -> Any:
    """A pi5neo strip on ``device``, or one line saying why not."""
    from board_hal.config import ConfigError

    if not os.path.exists(device):
        raise ConfigError(
            f"{source}: ws2812.spi: {device} does not exist (enable SPI: raspi-config, or dtparam=spi=on "
            f"in /boot/firmware/config.txt)"
        )
    if not os.access(device, os.R_OK | os.W_OK):
        raise ConfigError(f"{source}: ws2812.spi: no permission to use {device} (add the user to the spi group)")
    try:
        from pi5neo import EPixelType, Pi5Neo
    except ImportError:
        raise ConfigError(f"{source}: ws2812 needs pi5neo: pip install 'damas[pi]'") from None
    strip = Pi5Neo(device, count, 800, EPixelType[pixel], quiet_mode=True)
    if strip.spi.fileno() < 0:  # pi5neo keeps quiet about a failed open
        raise ConfigError(f"{source}: ws2812.spi: cannot open {device}")
    return strip


def fake_strip(spidev: Any) -> Callable[[str, int, str], Any]:
    """For tests: makes real pi5neo strips whose SPI device is ``spidev.SpiDev`` (a fake
    keeping what would go on the wire: board_hal.mockbus.FakeSpiDev)."""

    def make(device: str, count: int, pixel: str) -> Any:
        import pi5neo.pi5neo as lib

        saved = lib.spidev
        lib.spidev = spidev  # pi5neo makes its SpiDev itself
        try:
            strip = lib.Pi5Neo(device, count, 800, lib.EPixelType[pixel], quiet_mode=True)
        finally:
            lib.spidev = saved
        return strip

    return make


BACKEND = Ws2812()
