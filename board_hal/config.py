"""Board configuration: a TOML file (standard-library ``tomllib``), validated.

Every problem is one line naming the file and the setting::

    config.toml: gpio.rows: pin 5 is used twice (gpio.rows and gpio.columns)

Example files for each backend live in ``hardware/``. ``DAMAS_BOARD_BACKEND`` in the
environment overrides the backend (tests set it to ``simulated``).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_hal.layout import ROTATIONS, WHITE_SIDES
from board_hal.leds import Look, Role, looks_from_config
from rules import DraughtsError, find_variant

BACKENDS = ("simulated", "gpio", "pico")
ENV_BACKEND = "DAMAS_BOARD_BACKEND"


class ConfigError(ValueError):
    """A configuration problem, as one line naming the file and the setting."""


@dataclass
class GpioConfig:
    rows: list[int]
    columns: list[int]
    scan_rate: float = 100.0
    led_data: int | None = None
    led_clock: int | None = None
    led_latch: int | None = None


@dataclass
class PicoConfig:
    port: str | None = None  # None: find the Pico by its USB vendor/product id
    baudrate: int = 115200


@dataclass
class Config:
    source: str = "<defaults>"
    backend: str = "simulated"
    variant: str | None = None
    rotation: int = 0
    white_side: str = "near"
    size: int | None = None
    gpio: GpioConfig | None = None
    pico: PicoConfig | None = None
    looks: dict[Role, Look] = field(default_factory=lambda: looks_from_config(None))
    debounce: float = 0.05
    app: dict[str, Any] = field(default_factory=dict)  # the app's own settings ([app])


_TOP = {"variant", "board", "gpio", "pico", "leds", "app"}
_BOARD = {"backend", "rotation", "white_side", "size", "debounce"}
_GPIO = {"rows", "columns", "scan_rate", "leds"}
_GPIO_LEDS = {"data", "clock", "latch"}
_PICO = {"port", "baudrate"}
_LEDS = {"colours", "colors"}


def _unknown(table: Mapping[str, Any], allowed: set[str], where: str, src: str) -> None:
    for key in table:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise ConfigError(f"{src}: unknown setting {prefix}{key} (known: {', '.join(sorted(allowed))})")


def _table(obj: Mapping[str, Any], key: str, src: str) -> dict[str, Any]:
    value = obj.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{src}: {key} must be a table, not {value!r}")
    return value


def _pins(value: Any, where: str, src: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in value):
        raise ConfigError(f"{src}: {where} must be a list of GPIO numbers, not {value!r}")
    for p in value:
        if not 0 <= p <= 27:
            raise ConfigError(f"{src}: {where}: GPIO {p} does not exist (0-27)")
    return list(value)


def parse_config(text: str, source: str = "<config>", env: Mapping[str, str] | None = None) -> Config:
    """Read and validate a configuration."""
    src = source
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{src}: not a valid TOML file: {exc}") from None
    _unknown(data, _TOP, "", src)
    cfg = Config(source=src)
    if "variant" in data:
        try:
            cfg.variant = find_variant(str(data["variant"])).name
        except DraughtsError as exc:
            raise ConfigError(f"{src}: variant: {exc}") from None
    board = _table(data, "board", src)
    _unknown(board, _BOARD, "board", src)
    cfg.backend = str(board.get("backend", "simulated"))
    env = os.environ if env is None else env
    if env.get(ENV_BACKEND):
        cfg.backend = env[ENV_BACKEND]
    if cfg.backend not in BACKENDS:
        raise ConfigError(f"{src}: board.backend: unknown backend {cfg.backend!r} (known: {', '.join(BACKENDS)})")
    cfg.rotation = board.get("rotation", 0)
    if cfg.rotation not in ROTATIONS:
        raise ConfigError(f"{src}: board.rotation must be 0, 90, 180 or 270, not {cfg.rotation!r}")
    cfg.white_side = board.get("white_side", "near")
    if cfg.white_side not in WHITE_SIDES:
        raise ConfigError(f"{src}: board.white_side must be 'near' or 'far', not {cfg.white_side!r}")
    size = board.get("size")
    if size is not None and size not in (8, 10):
        raise ConfigError(f"{src}: board.size must be 8 or 10, not {size!r}")
    cfg.size = size
    debounce = board.get("debounce", 0.05)
    if not isinstance(debounce, (int, float)) or not 0 <= debounce <= 1:
        raise ConfigError(f"{src}: board.debounce must be seconds between 0 and 1, not {debounce!r}")
    cfg.debounce = float(debounce)
    if cfg.variant and size and find_variant(cfg.variant).board_size != size:
        raise ConfigError(
            f"{src}: variant {cfg.variant} is played on {find_variant(cfg.variant).board_size}x"
            f"{find_variant(cfg.variant).board_size}, but board.size is {size}"
        )

    gpio = _table(data, "gpio", src)
    _unknown(gpio, _GPIO, "gpio", src)
    if cfg.backend == "gpio" or gpio:
        if "rows" not in gpio or "columns" not in gpio:
            raise ConfigError(f"{src}: the gpio backend needs gpio.rows and gpio.columns")
        rows = _pins(gpio["rows"], "gpio.rows", src)
        cols = _pins(gpio["columns"], "gpio.columns", src)
        n = size or (find_variant(cfg.variant).board_size if cfg.variant else None)
        if n is None:
            if len(rows) not in (8, 10):
                raise ConfigError(f"{src}: gpio.rows has {len(rows)} pins; a board is 8x8 or 10x10")
            n = len(rows)
        for name, pins in (("gpio.rows", rows), ("gpio.columns", cols)):
            if len(pins) != n:
                raise ConfigError(f"{src}: {name} has {len(pins)} pins; a {n}x{n} board needs {n}")
        leds = _table(gpio, "leds", src)
        _unknown(leds, _GPIO_LEDS, "gpio.leds", src)
        led_pins: dict[str, int] = {}
        if leds:
            for key in ("data", "clock", "latch"):
                if key not in leds:
                    raise ConfigError(f"{src}: gpio.leds needs data, clock and latch pins (missing {key})")
                led_pins[key] = _pins([leds[key]], f"gpio.leds.{key}", src)[0]
        seen: dict[int, str] = {}
        for name, pins in (
            ("gpio.rows", rows),
            ("gpio.columns", cols),
            *((f"gpio.leds.{k}", [v]) for k, v in led_pins.items()),
        ):
            for p in pins:
                if p in seen:
                    raise ConfigError(f"{src}: {name}: GPIO {p} is used twice ({seen[p]} and {name})")
                seen[p] = name
        rate = gpio.get("scan_rate", 100.0)
        if not isinstance(rate, (int, float)) or not 1 <= rate <= 2000:
            raise ConfigError(f"{src}: gpio.scan_rate must be between 1 and 2000 scans per second, not {rate!r}")
        cfg.gpio = GpioConfig(
            rows, cols, float(rate), led_pins.get("data"), led_pins.get("clock"), led_pins.get("latch")
        )
        cfg.size = n

    pico = _table(data, "pico", src)
    _unknown(pico, _PICO, "pico", src)
    if cfg.backend == "pico" or pico:
        port = pico.get("port")
        if port is not None and (not isinstance(port, str) or not port):
            raise ConfigError(f"{src}: pico.port must be a device path such as /dev/ttyACM0, not {port!r}")
        baud = pico.get("baudrate", 115200)
        if not isinstance(baud, int) or baud <= 0:
            raise ConfigError(f"{src}: pico.baudrate must be a positive number, not {baud!r}")
        cfg.pico = PicoConfig(port, baud)

    leds_table = _table(data, "leds", src)
    _unknown(leds_table, _LEDS, "leds", src)
    colours = leds_table.get("colours", leds_table.get("colors", {}))
    if not isinstance(colours, dict):
        raise ConfigError(f'{src}: leds.colours must be a table of role = "#rrggbb"')
    try:
        cfg.looks = looks_from_config(colours)
    except ValueError as exc:
        raise ConfigError(f"{src}: leds.colours: {exc}") from None
    cfg.app = _table(data, "app", src)
    return cfg


def load_config(path: str | Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Read a configuration file; ``None`` gives the defaults (the simulated board)."""
    if path is None:
        return parse_config("", "<defaults>", env)
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not a text (UTF-8) file") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return parse_config(text, str(p), env)
