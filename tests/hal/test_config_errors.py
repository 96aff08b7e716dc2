"""Each configuration mistake is one line naming the file and the setting (board_hal/config.py):
the settings whose refusals had no test."""

from __future__ import annotations

from pathlib import Path

import pytest

from board_hal.config import MAX_CONFIG_BYTES, ConfigError, load_config, parse_config

GPIO = "[gpio]\nrows = [4, 17, 27, 22, 5, 6, 13, 19]\ncolumns = [26, 21, 20, 16, 12, 25, 24, 23]\n"


def refused_naming(text: str, words: tuple[str, ...]) -> None:
    """``text`` as board.toml is refused in one line naming the file and holding ``words``."""
    with pytest.raises(ConfigError) as e:
        parse_config(text, "board.toml", env={})
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith("board.toml: "), msg
    for w in words:
        assert w in msg, msg


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[board]\ndebounce = 2\n", ("board.debounce must be seconds between 0 and 1, not 2",)),
        (
            '[board]\nbackend = "gpio"\n' + GPIO + "scan_rate = 0\n",
            ("gpio.scan_rate must be between 1 and 2000", "not 0"),
        ),
        ('[board]\nbackend = "pico"\n[pico]\nbaudrate = -9600\n', ("pico.baudrate must be a positive number", "-9600")),
        (
            '[board]\nbackend = "pico"\nsize = 8\n[pico]\nfirst = "d4"\n',
            ("pico.first must be the corner cell of LED 0 (a1, h1, a8, h8), not 'd4'",),
        ),
        ('[board]\nbackend = "pico"\n[pico]\nfirst = "j10"\n', ("a1 unless board.size or the variant is set",)),
        ('[board]\nbackend = "pico"\n[pico]\nalong = "diagonal"\n', ('pico.along must be "rows" or "columns"',)),
        ('[board]\nbackend = "pico"\n[pico]\norder = "snake"\n', ('pico.order must be "serpentine" (zig-zag)',)),
        ('[board]\nbackend = "pico"\n[pico]\nsettle_us = 2000\n', ("pico.settle_us must be microseconds",)),
        (
            '[board]\nbackend = "pico"\n[pico]\nwatchdog = 10\n',
            ("pico.watchdog must be seconds between 1 and 8.388 (the RP2040's longest), or 0 for none, not 10",),
        ),
        (
            '[board]\nbackend = "gpio"\n' + GPIO + "settle_us = -1\n",
            ("gpio.settle_us must be microseconds between 0 and 1000, not -1",),
        ),
        (
            '[board]\nbackend = "gpio"\nleds = "gpio"\n' + GPIO + "[gpio.leds]\ndata = 9\nclock = 9\nlatch = 8\n",
            ("gpio.leds.clock: GPIO 9 is used twice (gpio.leds.data and gpio.leds.clock)",),
        ),
        ('[board]\nleds = "mcp23017"\n', ("board.leds: mcp23017 has no LEDs",)),
        ('[board]\nleds = "gpio"\n', ("the gpio backend needs a [gpio] table",)),
        ('[leds]\ncolours = { sparkle = "#ff0000" }\n', ("leds.colours: unknown LED role: 'sparkle'",)),
        ('[hall]\nbroker_url = "mqtt://x"\n', ("unknown setting hall.broker_url", "broker, ")),
        ("[hall]\nbroker = 7\n", ("hall.broker must be text, not 7",)),
        ('[app]\nvariant = "chess"\n', ("app.variant:", "chess")),
        ("[app]\nport = 70000\n", ("app.port must be a port number between 1 and 65535, not 70000",)),
        ('[app]\nresume = "yes"\n', ("app.resume must be true or false, not 'yes'",)),
        ("[clock]\nauto = 1\n", ("clock.auto must be true or false, not 1",)),
        ("[clock]\nlow_time = 7200\n", ("clock.low_time must be seconds between 0 and 3600, not 7200",)),
        ("[clock]\nbounce = -1\n", ("clock.bounce must be seconds between 0 and 1",)),
        ('[clock.controls]\nblitz = " "\n', ("clock.controls.blitz must be a time control (\"5+3\"), not ' '",)),
    ],
)
def test_a_wrong_setting_is_one_line_naming_it(text: str, words: tuple[str, ...]) -> None:
    refused_naming(text, words)


def test_a_value_too_deep_to_print_is_named_by_its_type() -> None:
    # _short() must not fail on a value whose repr recurses without end
    from board_hal.config import _short

    deep: list[object] = []
    deep.append(deep)
    nested: list[object] = []
    cur = nested
    for _ in range(100_000):
        nxt: list[object] = []
        cur.append(nxt)
        cur = nxt
    assert _short(nested) == "a deeply nested list"
    assert _short(deep) == "[[...]]"


def test_a_configuration_file_that_is_not_one(tmp_path: Path) -> None:
    big = tmp_path / "big.toml"
    big.write_bytes(b"#" * (MAX_CONFIG_BYTES + 1))
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"variant = \xff\xfe\n")
    for path, words in [
        (big, f"{big}: larger than 1024 KiB: not a board configuration"),
        (binary, f"{binary}: not a text (UTF-8) file"),
        (tmp_path, f"{tmp_path}: cannot read: Is a directory"),
        (tmp_path / "absent.toml", f"{tmp_path / 'absent.toml'}: no such configuration file"),
    ]:
        with pytest.raises(ConfigError) as e:
            load_config(path, env={})
        assert str(e.value) == words


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('[board]\nbackend = "74hc165"\nsize = 8\n[74hc165]\nload = 5\nclock = 6\ndata = 13\ncells = 3\n',
         ("74hc165.cells must be 8 lists (one per chip) of 8 cell names, not 3",)),
        ('[board]\nbackend = "74hc165"\nsize = 8\nbadcells\n',
         ("74hc165.cells[0][1]: 'z9' is no cell of ",)),
        ('[board]\nbackend = "mcp23017"\nsize = 8\n[mcp23017]\naddresses = []\n',
         ("mcp23017.addresses must be a list of I2C addresses such as [0x20, 0x21], not []",)),
        ('[board]\nwhite_side = "left"\n', ("white_side", "'left'")),
    ],
)  # fmt: skip
def test_a_wrong_wiring_setting_is_one_line_naming_it(text: str, words: tuple[str, ...]) -> None:
    if "badcells" in text:
        rows = [[f"{'abcdefgh'[c]}{r + 1}" for c in range(8)] for r in range(8)]
        rows[0][1] = "z9"
        text = text.replace(
            "badcells", "[74hc165]\nload = 5\nclock = 6\ndata = 13\ncells = " + repr(rows).replace("'", '"')
        )
    refused_naming(text, words)


def test_a_colour_that_is_not_hex_and_a_cell_off_the_board() -> None:
    from board_hal.layout import Layout
    from board_hal.leds import parse_colour

    assert parse_colour(" #00ff80 ") == (0, 255, 128)
    for bad in ("#gg0000", "00ff80", "#00ff8"):
        with pytest.raises(ValueError, match="invalid colour"):
            parse_colour(bad)
    with pytest.raises(ValueError, match=r"no cell \(8, 0\) on a 8x8 matrix"):
        Layout("brazilian").board_coord(8, 0)


def test_the_pico_strip_settings_reach_the_bridge() -> None:
    """[pico]'s strip layout, settling time and watchdog, as the host sends them in CONFIG."""
    from board_hal.layout import Layout
    from firmware_bridge import link, open_pico

    cfg = parse_config(
        'variant = "international"\n[board]\nbackend = "pico"\n[pico]\nport = "loop://"\n'
        'first = "j10"\nalong = "columns"\norder = "matrix"\nsettle_us = 50\nwatchdog = 2.5\n',
        "board.toml",
        env={},
    )
    io = open_pico(cfg, Layout("international"))
    try:
        board = io.sensors
        assert board.strip == ((9, 9), link.ALONG_COLUMNS, link.MATRIX)  # type: ignore[attr-defined]
        assert board.settings[3:] == (50, 2500)  # type: ignore[attr-defined]
    finally:
        io.close()
    default = parse_config('[board]\nbackend = "pico"\n', "board.toml", env={}).pico
    assert default is not None and (default.first, default.along, default.order) == ((0, 0), "rows", "serpentine")
    assert (default.settle_us, default.watchdog) == (30, 4.0)
