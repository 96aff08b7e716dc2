"""Board configuration: a TOML file (standard-library ``tomllib``), validated.

Every problem is one line naming the file and the setting::

    config.toml: gpio.rows: pin 5 is used twice (gpio.rows and gpio.columns)

Example files for each backend live in ``hardware/``. ``DAMAS_BOARD_BACKEND`` in the
environment overrides the backend (tests set it to ``simulated``), and then the LEDs are
that backend's own.

Backends are plugged in by name (:mod:`board_hal.registry`): ``board.backend`` names the
sensors, ``board.leds`` the LEDs; a backend's own table (``[mcp23017]``) is checked by the
backend itself when the file is read.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_hal.layout import ROTATIONS, WHITE_SIDES
from board_hal.leds import Look, Role, looks_from_config
from rules import DraughtsError, find_variant

BACKENDS = ("simulated", "gpio", "pico")  # the first built-ins; board_hal.registry.names() has them all
MAX_CONFIG_BYTES = 1024 * 1024  # a configuration is a few hundred bytes; /dev/zero is not one
_COLOUR_RE = re.compile(r"#[0-9a-fA-F]{6}")  # int(x, 16) would also take '+1', ' 1' and '١'

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
    settle_us: int = 30  # microseconds between driving a row low and reading the columns


@dataclass
class PicoConfig:
    port: str | None = None  # None: find the Pico by its USB vendor/product id
    baudrate: int = 115200
    # the LED strip under the board, as [ws2812] lays it: the corner cell of LED 0, along
    # "rows" or "columns", "serpentine" (zig-zag) or "matrix" (hardware/protocol.md, LEDS)
    first: tuple[int, int] = (0, 0)
    along: str = "rows"
    order: str = "serpentine"
    settle_us: int = 30  # the row settling time of the firmware's matrix scan
    watchdog: float = 4.0  # seconds; 0: the firmware arms no watchdog
    # a linear Hall board's thresholds (ADC counts from the no-field reading; 0: the firmware's
    # own, 200 and 670): a piece from ``present`` on, a king from ``king`` (hardware/wiring-hall.md)
    present: int = 0
    king: int = 0


@dataclass
class ClockConfig:
    """``[clock]``: the game clock (the time control's text is checked by the app)."""

    control: str | None = None  # e.g. "fenacef", "5+3"; None: no clock unless --clock
    auto: bool = True  # casual mode: a recorded move presses the clock
    low_time: float = 60.0  # seconds: the page warns below
    buttons: dict[str, int] | None = None  # GPIO pins of the two push buttons: {"white": 20, "black": 21}
    bounce: float = 0.05
    controls: dict[str, str] = field(default_factory=dict)  # user-defined controls by name


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
    leds_backend: str = "simulated"  # board.leds: the LED backend's name, or "none"
    backend_settings: dict[str, Any] = field(default_factory=dict)  # each plugged-in backend's checked table
    looks: dict[Role, Look] = field(default_factory=lambda: looks_from_config(None))
    debounce: float = 0.05
    app: dict[str, Any] = field(default_factory=dict)  # the app's own settings ([app])
    clock: ClockConfig = field(default_factory=ClockConfig)
    engine: dict[str, Any] = field(default_factory=dict)  # the computer opponent ([engine]; checked by the app)
    hall: dict[str, Any] = field(default_factory=dict)  # publishing to the tournament hall ([hall])
    speech: dict[str, Any] = field(default_factory=dict)  # the talking board ([speech]; checked by the app)


_TOP = {"variant", "board", "gpio", "pico", "leds", "app", "clock", "engine", "hall", "speech"}
_BOARD = {"backend", "rotation", "white_side", "size", "debounce", "leds"}
_GPIO = {"rows", "columns", "scan_rate", "settle_us", "leds"}
_GPIO_LEDS = {"data", "clock", "latch"}
_PICO = {"port", "baudrate", "first", "along", "order", "settle_us", "watchdog", "present", "king"}
_LEDS = {"colours", "colors"}


def _unknown(table: Mapping[str, Any], allowed: set[str], where: str, src: str) -> None:
    for key in table:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise ConfigError(f"{src}: unknown setting {prefix}{key[:40]} (known: {', '.join(sorted(allowed))})")


def _table(obj: Mapping[str, Any], key: str, src: str, where: str = "") -> dict[str, Any]:
    value = obj.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{src}: {where or key} must be a table, not {_short(value)}")
    return value


def _short(value: Any) -> str:
    """A setting's value for a one-line message, however big it is."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"a deeply nested {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _pins(value: Any, where: str, src: str) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in value):
        raise ConfigError(f"{src}: {where} must be a list of GPIO numbers, not {_short(value)}")
    for p in value:
        if not 0 <= p <= 27:
            raise ConfigError(f"{src}: {where}: GPIO {p} does not exist (0-27)")
    return list(value)


def parse_config(text: str, source: str = "<config>", env: Mapping[str, str] | None = None) -> Config:
    """Read and validate a configuration."""
    src = source
    try:
        data = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or a number of more than 4300 digits
        raise ConfigError(f"{src}: not a valid TOML file: {str(exc).splitlines()[0][:100]}") from None
    except RecursionError:
        raise ConfigError(f"{src}: not a valid TOML file: nested too deeply") from None
    _unknown(data, _TOP | _backend_tables(), "", src)
    cfg = Config(source=src)
    if "variant" in data:
        if not isinstance(data["variant"], str):
            raise ConfigError(f'{src}: variant must be a name such as "brazilian", not {_short(data["variant"])}')
        try:
            cfg.variant = find_variant(data["variant"]).name
        except DraughtsError as exc:
            raise ConfigError(f"{src}: variant: {exc}") from None
    board = _table(data, "board", src)
    _unknown(board, _BOARD, "board", src)
    backend = board.get("backend", "simulated")
    if not isinstance(backend, str):
        raise ConfigError(f'{src}: board.backend must be a backend\'s name such as "gpio", not {_short(backend)}')
    cfg.backend = backend
    env = os.environ if env is None else env
    overridden = bool(env.get(ENV_BACKEND))
    if overridden:
        cfg.backend = env[ENV_BACKEND]
    sensors = _registered(cfg.backend, "board.backend", src)
    if not sensors.sensors:
        raise ConfigError(f"{src}: board.backend: {cfg.backend} has no sensors (use it as board.leds)")
    rotation = board.get("rotation", 0)
    if not _is_int(rotation) or rotation not in ROTATIONS:  # 90.0 == 90, but a layout needs an int
        raise ConfigError(f"{src}: board.rotation must be 0, 90, 180 or 270, not {_short(rotation)}")
    cfg.rotation = rotation
    white_side = board.get("white_side", "near")
    if not isinstance(white_side, str) or white_side not in WHITE_SIDES:
        raise ConfigError(f"{src}: board.white_side must be 'near' or 'far', not {_short(white_side)}")
    cfg.white_side = white_side
    size = board.get("size")
    if size is not None and (not _is_int(size) or size not in (8, 10)):
        raise ConfigError(f"{src}: board.size must be 8 or 10, not {_short(size)}")
    cfg.size = size
    debounce = board.get("debounce", 0.05)
    if not _is_number(debounce) or not 0 <= debounce <= 1:
        raise ConfigError(f"{src}: board.debounce must be seconds between 0 and 1, not {_short(debounce)}")
    cfg.debounce = float(debounce)
    if cfg.variant and size and find_variant(cfg.variant).board_size != size:
        raise ConfigError(
            f"{src}: variant {cfg.variant} is played on {find_variant(cfg.variant).board_size}x"
            f"{find_variant(cfg.variant).board_size}, but board.size is {size}"
        )

    gpio = _table(data, "gpio", src)
    _unknown(gpio, _GPIO, "gpio", src)
    if gpio and cfg.backend != "gpio" and "rows" not in gpio and "columns" not in gpio:
        # [gpio.leds] alone: a 74HC595 chain showing another backend's sensors (board.leds = "gpio")
        chain = _gpio_leds(gpio, src)
        cfg.gpio = GpioConfig([], [], 100.0, chain.get("data"), chain.get("clock"), chain.get("latch"))
    elif cfg.backend == "gpio" or gpio:
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
        led_pins = _gpio_leds(gpio, src)
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
        if not _is_number(rate) or not 1 <= rate <= 2000:
            raise ConfigError(f"{src}: gpio.scan_rate must be between 1 and 2000 scans per second, not {_short(rate)}")
        settle = gpio.get("settle_us", 30)
        if not _is_int(settle) or not 0 <= settle <= 1000:
            raise ConfigError(f"{src}: gpio.settle_us must be microseconds between 0 and 1000, not {_short(settle)}")
        cfg.gpio = GpioConfig(
            rows, cols, float(rate), led_pins.get("data"), led_pins.get("clock"), led_pins.get("latch"), settle
        )
        cfg.size = n

    pico = _table(data, "pico", src)
    _unknown(pico, _PICO, "pico", src)
    if cfg.backend == "pico" or pico:
        port = pico.get("port")
        if port is not None and (not isinstance(port, str) or not port):
            raise ConfigError(f"{src}: pico.port must be a device path such as /dev/ttyACM0, not {_short(port)}")
        baud = pico.get("baudrate", 115200)
        if not _is_int(baud) or not 0 < baud <= 10_000_000:
            raise ConfigError(f"{src}: pico.baudrate must be a positive number (bits per second), not {_short(baud)}")
        cfg.pico = _pico_strip(PicoConfig(port, baud), pico, cfg, src)

    _plug_in(cfg, data, board, overridden, src)

    leds_table = _table(data, "leds", src)
    _unknown(leds_table, _LEDS, "leds", src)
    colours = leds_table.get("colours", leds_table.get("colors", {}))
    if not isinstance(colours, dict):
        raise ConfigError(f'{src}: leds.colours must be a table of role = "#rrggbb", not {_short(colours)}')
    for role, colour in colours.items():
        if not isinstance(colour, str) or not _COLOUR_RE.fullmatch(colour):
            raise ConfigError(f"{src}: leds.colours.{role[:40]}: invalid colour {_short(colour)} (expected #rrggbb)")
    try:
        cfg.looks = looks_from_config(colours)
    except ValueError as exc:
        raise ConfigError(f"{src}: leds.colours: {exc}") from None
    cfg.app = _app(_table(data, "app", src), src)
    cfg.clock = _clock(_table(data, "clock", src), src, cfg)
    cfg.engine = _table(data, "engine", src)
    cfg.hall = _hall(_table(data, "hall", src), src)
    cfg.speech = _table(data, "speech", src)
    return cfg


def _pico_strip(out: PicoConfig, pico: Mapping[str, Any], cfg: Config, src: str) -> PicoConfig:
    """``[pico]``'s strip layout (the settings of ``[ws2812]``), row settling time and watchdog."""
    from board_hal import pinmap
    from board_hal.layout import cell_name
    from board_hal.ws2812 import ALONG, ORDERS, corners

    n = cfg.size or (find_variant(cfg.variant).board_size if cfg.variant else None)
    first_name = pico.get("first", "a1")
    first = pinmap.parse_cell(first_name, n or 10) if isinstance(first_name, str) else None
    if first is None or (n is not None and first not in corners(n)) or (n is None and first != (0, 0)):
        where = ", ".join(cell_name(c) for c in corners(n)) if n else "a1 unless board.size or the variant is set"
        raise ConfigError(f"{src}: pico.first must be the corner cell of LED 0 ({where}), not {_short(first_name)}")
    along = pico.get("along", "rows")
    if along not in ALONG:
        raise ConfigError(f'{src}: pico.along must be "rows" or "columns", not {_short(along)}')
    order = pico.get("order", "serpentine")
    if order not in ORDERS:
        raise ConfigError(f'{src}: pico.order must be "serpentine" (zig-zag) or "matrix", not {_short(order)}')
    settle = pico.get("settle_us", 30)
    if not _is_int(settle) or not 0 <= settle <= 1000:
        raise ConfigError(f"{src}: pico.settle_us must be microseconds between 0 and 1000, not {_short(settle)}")
    watchdog = pico.get("watchdog", 4.0)
    if not _is_number(watchdog) or not (watchdog == 0 or 1 <= watchdog <= 8.388):
        raise ConfigError(
            f"{src}: pico.watchdog must be seconds between 1 and 8.388 (the RP2040's longest), or 0 for none, "
            f"not {_short(watchdog)}"
        )
    out.first, out.along, out.order, out.settle_us, out.watchdog = first, along, order, settle, float(watchdog)
    for key in ("present", "king"):
        value = pico.get(key, 0)
        if not _is_int(value) or not 0 <= value <= 2047:
            raise ConfigError(
                f"{src}: pico.{key} must be ADC counts from the no-field reading, 1 to 2047 (0: the firmware's own), "
                f"not {_short(value)}"
            )
    present, king = pico.get("present", 0), pico.get("king", 0)
    if present and king and king <= present:
        raise ConfigError(
            f"{src}: pico.king ({king}) must be above pico.present ({present}): a king reads stronger than a man"
        )
    out.present, out.king = present, king
    return out


def _gpio_leds(gpio: Mapping[str, Any], src: str) -> dict[str, int]:
    leds = _table(gpio, "leds", src, "gpio.leds")
    _unknown(leds, _GPIO_LEDS, "gpio.leds", src)
    led_pins: dict[str, int] = {}
    if leds:
        for key in ("data", "clock", "latch"):
            if key not in leds:
                raise ConfigError(f"{src}: gpio.leds needs data, clock and latch pins (missing {key})")
            led_pins[key] = _pins([leds[key]], f"gpio.leds.{key}", src)[0]
    seen: dict[int, str] = {}
    for key, p in led_pins.items():
        if p in seen:
            raise ConfigError(f"{src}: gpio.leds.{key}: GPIO {p} is used twice ({seen[p]} and gpio.leds.{key})")
        seen[p] = f"gpio.leds.{key}"
    return led_pins


def _backend_tables() -> set[str]:
    """The configuration tables the registered backends read: each its own name's (found
    without loading them: only the backends a configuration uses are imported)."""
    from board_hal import registry

    return set(registry.names())


def _registered(name: str, where: str, src: str) -> Any:
    from board_hal import registry

    try:
        return registry.get(name)
    except registry.BackendError as exc:
        raise ConfigError(f"{src}: {where}: {exc}") from None


def _plug_in(cfg: Config, data: Mapping[str, Any], board: Mapping[str, Any], overridden: bool, src: str) -> None:
    """``board.leds`` and the plugged-in backends' tables (each checked by its backend)."""
    from board_hal import registry

    sensors = _registered(cfg.backend, "board.backend", src)
    leds = board.get("leds")
    if overridden or leds is None:  # no hardware when the environment says so: the backend's own LEDs
        leds = cfg.backend if sensors.leds else registry.NO_LEDS
        if leds == "gpio" and (cfg.gpio is None or cfg.gpio.led_data is None):
            leds = registry.NO_LEDS  # a matrix without a 74HC595 chain
    if not isinstance(leds, str):
        raise ConfigError(f'{src}: board.leds must be a backend\'s name such as "ws2812" or "none", not {_short(leds)}')
    if leds != registry.NO_LEDS:
        led_backend = _registered(leds, "board.leds", src)
        if not led_backend.leds:
            raise ConfigError(f"{src}: board.leds: {leds} has no LEDs")
        if led_backend.leds_need_sensors and leds != cfg.backend:
            raise ConfigError(f"{src}: board.leds: {leds}'s LEDs work only with its sensors (board.backend = {leds!r})")
    cfg.leds_backend = leds
    if cfg.backend == "gpio" or leds == "gpio":
        if cfg.gpio is None:
            raise ConfigError(f"{src}: the gpio backend needs a [gpio] table")
        if leds == "gpio" and cfg.gpio.led_data is None:
            raise ConfigError(f'{src}: board.leds = "gpio" needs gpio.leds (data, clock and latch pins)')
    used: dict[int, str] = {}
    if cfg.gpio is not None:
        used.update({p: "gpio.rows" for p in cfg.gpio.rows})
        used.update({p: "gpio.columns" for p in cfg.gpio.columns})
        for key in ("data", "clock", "latch"):
            pin = getattr(cfg.gpio, f"led_{key}")
            if pin is not None:
                used[pin] = f"gpio.leds.{key}"
    for name in dict.fromkeys((cfg.backend, leds)):
        if name == registry.NO_LEDS:
            continue
        backend = _registered(name, "board.backend", src)
        settings = backend.check(_table(data, name, src), cfg)
        cfg.backend_settings[name] = settings
        pins: Mapping[int, str] = getattr(settings, "gpio_pins", dict)()
        for pin, what in pins.items():
            if pin in used and not (what.startswith("the SPI") and used[pin].split(" (")[0] == what.split(" (")[0]):
                raise ConfigError(f"{src}: {what}: GPIO {pin} is used twice ({used[pin]} and {what})")
            used[pin] = what


_HALL = {"broker", "board_id", "username", "password", "tls_ca"}


def _hall(hall: dict[str, Any], src: str) -> dict[str, Any]:
    """The ``[hall]`` settings (broker URL, board id, credentials, TLS CA file): text each."""
    for key, value in hall.items():
        if key not in _HALL:
            raise ConfigError(f"{src}: unknown setting hall.{key[:40]} (one of {', '.join(sorted(_HALL))})")
        if _is_int(value) and key == "board_id":
            continue
        if not isinstance(value, str) or not value.strip():
            raise ConfigError(f"{src}: hall.{key} must be text, not {_short(value)}")
    return hall


def _app(app: dict[str, Any], src: str) -> dict[str, Any]:
    """The ``[app]`` settings ``damas play`` reads, checked here so that a wrong type is one
    line naming the file and the setting (other keys are left to the app)."""
    for key in ("host", "database", "language", "variant", "mode"):
        value = app.get(key)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ConfigError(f"{src}: app.{key} must be text, not {_short(value)}")
    if "variant" in app:
        try:
            find_variant(app["variant"])
        except DraughtsError as exc:
            raise ConfigError(f"{src}: app.variant: {exc}") from None
    port = app.get("port")
    if port is not None and (not _is_int(port) or not 1 <= port <= 65535):
        raise ConfigError(f"{src}: app.port must be a port number between 1 and 65535, not {_short(port)}")
    resume = app.get("resume")
    if resume is not None and not isinstance(resume, bool):
        raise ConfigError(f"{src}: app.resume must be true or false, not {_short(resume)}")
    return app


_CLOCK = {"control", "auto", "low_time", "buttons", "bounce", "controls"}


def _clock(table: dict[str, Any], src: str, cfg: Config) -> ClockConfig:
    """``[clock]``: control, auto, low_time, buttons = {white, black}, bounce, [clock.controls]."""
    _unknown(table, _CLOCK, "clock", src)
    out = ClockConfig()
    control = table.get("control")
    if control is not None and (not isinstance(control, str) or not control.strip()):
        raise ConfigError(f'{src}: clock.control must be a time control such as "5+3", not {_short(control)}')
    out.control = control
    auto = table.get("auto", True)
    if not isinstance(auto, bool):
        raise ConfigError(f"{src}: clock.auto must be true or false, not {_short(auto)}")
    out.auto = auto
    for key, top in (("low_time", 3600), ("bounce", 1)):
        value = table.get(key, getattr(out, key))
        if not _is_number(value) or not 0 <= value <= top:
            raise ConfigError(f"{src}: clock.{key} must be seconds between 0 and {top}, not {_short(value)}")
        setattr(out, key, float(value))
    buttons = table.get("buttons")
    if buttons is not None:
        if not isinstance(buttons, dict) or set(buttons) != {"white", "black"}:
            raise ConfigError(f"{src}: clock.buttons must be {{white = pin, black = pin}}, not {_short(buttons)}")
        pins = {side: _pins([buttons[side]], f"clock.buttons.{side}", src)[0] for side in ("white", "black")}
        if pins["white"] == pins["black"]:
            raise ConfigError(f"{src}: clock.buttons: GPIO {pins['white']} is used twice")
        used: dict[int, str] = {}  # the pins the board's backends use
        gpio = cfg.gpio
        if gpio is not None:
            used.update({p: "gpio" for p in gpio.rows + gpio.columns})
            used.update({p: "gpio" for p in (gpio.led_data, gpio.led_clock, gpio.led_latch) if p is not None})
        for settings in cfg.backend_settings.values():
            used.update(getattr(settings, "gpio_pins", dict)())
        for side, pin in pins.items():
            if pin in used:
                raise ConfigError(f"{src}: clock.buttons.{side}: GPIO {pin} is used by the board ({used[pin]})")
        out.buttons = pins
    controls = _table(table, "controls", src, "clock.controls")
    for name, text in controls.items():
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f'{src}: clock.controls.{name[:40]} must be a time control ("5+3"), not {_short(text)}')
    out.controls = {name.lower(): text for name, text in controls.items()}
    return out


def load_config(path: str | Path | None, env: Mapping[str, str] | None = None) -> Config:
    """Read a configuration file; ``None`` gives the defaults (the simulated board)."""
    if path is None:
        return parse_config("", "<defaults>", env)
    p = Path(path)
    try:
        with p.open("rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{p}: larger than {MAX_CONFIG_BYTES // 1024} KiB: not a board configuration")
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{p}: no such configuration file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{p}: not a text (UTF-8) file") from None
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read: {exc.strerror or exc}") from None
    return parse_config(text, str(p), env)
