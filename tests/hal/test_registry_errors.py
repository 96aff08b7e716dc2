"""A broken third-party backend package is one line naming the package's entry point, never a
traceback that looks like damas' own bug (board_hal/registry.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from board_hal import registry
from board_hal.config import ConfigError, parse_config

PACKAGE = """
from board_hal.registry import Backend

class Shiny(Backend):
    summary = "a class: the registry makes the instance"
    sensors = True

NOT_A_BACKEND = {"summary": "a dict, not a Backend"}
OPENED = []


class Blind(Backend):
    summary = "opens LEDs only, though registered for sensors"
    sensors = True

    def open(self, config, layout, hw, *, sensors, leds):
        return None, None


class Wrong(Backend):
    summary = "always a 10x10 board, whatever the game"
    sensors = True

    def open(self, config, layout, hw, *, sensors, leds):
        from board_hal.layout import Layout
        from board_hal.simulated import SimulatedBoard

        board = SimulatedBoard(Layout("international"), occupied=[])
        OPENED.append(board)
        return board, None
"""


@pytest.fixture
def toys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    (tmp_path / "damas_toys").mkdir()
    (tmp_path / "damas_toys" / "__init__.py").write_text(PACKAGE)
    (tmp_path / "damas_toys" / "crash.py").write_text("raise ImportError('needs libfoo 2')\n")
    info = tmp_path / "damas_toys-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: damas-toys\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[damas.backends]\n"
        "crashing = damas_toys.crash:BACKEND\n"
        "missing = damas_toys:NOTHING_HERE\n"
        "dictish = damas_toys:NOT_A_BACKEND\n"
        "shiny = damas_toys:Shiny\n"
        "blind = damas_toys:Blind\n"
        "wrong = damas_toys:Wrong\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.clear_cache()
    yield
    registry.clear_cache()


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("crashing", ("backend 'crashing' (damas_toys.crash:BACKEND) cannot be loaded: ImportError: needs libfoo 2",)),
        ("missing", ("backend 'missing' (damas_toys:NOTHING_HERE) cannot be loaded: AttributeError",)),
        ("dictish", ("backend 'dictish' (damas_toys:NOT_A_BACKEND) is not a board_hal.registry.Backend",)),
    ],
)
def test_a_broken_backend_package_is_one_line(toys: None, name: str, words: tuple[str, ...]) -> None:
    with pytest.raises(registry.BackendError) as e:
        registry.get(name)
    assert "\n" not in str(e.value)
    for w in words:
        assert w in str(e.value)
    # and through a configuration: the one line the CLI prints, naming the file
    with pytest.raises(ConfigError) as c:
        parse_config(f'[board]\nbackend = "{name}"\n', "board.toml", env={})
    assert "\n" not in str(c.value) and str(c.value).startswith("board.toml: ")
    assert words[0] in str(c.value)


def test_a_backend_class_is_instantiated_once_and_named(toys: None) -> None:
    backend = registry.get("shiny")
    assert isinstance(backend, registry.Backend) and backend.name == "shiny"
    assert registry.get("shiny") is backend  # cached: loaded once per process


def test_a_backend_that_opens_no_sensors_or_the_wrong_size_is_one_line(toys: None) -> None:
    import damas_toys  # type: ignore[import-not-found]

    from board_hal.factory import open_board

    with pytest.raises(ConfigError) as e:
        open_board(parse_config('[board]\nbackend = "blind"\n', "board.toml", env={}), "brazilian")
    assert str(e.value) == "board.toml: board.backend: blind opened no sensors"
    with pytest.raises(ConfigError) as e:
        open_board(parse_config('[board]\nbackend = "wrong"\n', "board.toml", env={}), "brazilian")
    assert str(e.value) == "board.toml: board.backend: wrong: a 10x10 sensor matrix cannot play brazilian"
    (board,) = damas_toys.OPENED
    assert board.closed  # what it opened is not left open
