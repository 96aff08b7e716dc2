"""The computer opponent's settings as a user writes them (``[engine]``: one line naming the
key and the value when one is wrong), how long it may think, and the Hub lines that tell an
external engine how long to think and that bring its scores back."""

from __future__ import annotations

import pytest

from damas.computer.opponent import (
    DEPTH_TIME,
    EXTERNAL_TIMES,
    SLOWEST_NPS,
    _level_line,
    _score,
    expected_seconds,
    limits_for,
    settings_from_config,
)
from engine import MATE_BOUND, Limits
from rules import Color


def test_each_engine_setting_is_checked_and_named() -> None:
    good = settings_from_config(
        {"side": "black", "opponent": "engine", "move_time": 2, "timeout": 9.5, "hints": "never", "tt_size": 64},
        "c.toml",
    )
    assert (good.side, good.opponent, good.move_time, good.timeout, good.hints, good.tt_size) == (
        Color.BLACK,
        "engine",
        2.0,
        9.5,
        "never",
        64,
    )
    assert settings_from_config({"seed": 0}, "c.toml").seed == 0
    cases: list[tuple[dict[str, object], str]] = [
        ({"opponent": "robot"}, 'c.toml: engine.opponent must be "human" or "engine", not \'robot\''),
        ({"move_time": 0}, "c.toml: engine.move_time must be seconds between 0.01 and 3600, not 0"),
        ({"timeout": True}, "c.toml: engine.timeout must be seconds between 0.5 and 3600, not True"),
        ({"timeout": "5"}, "c.toml: engine.timeout must be seconds between 0.5 and 3600, not '5'"),
        ({"hints": "sometimes"}, 'c.toml: engine.hints must be "casual", "always" or "never", not \'sometimes\''),
        ({"tt_size": 0}, "c.toml: engine.tt_size must be megabytes, 1-4096, not 0"),
        ({"tt_size": 4097}, "c.toml: engine.tt_size must be megabytes, 1-4096, not 4097"),
        ({"seed": -1}, "c.toml: engine.seed must be a whole number, 0 or more, not -1"),
        ({"seed": 2**31}, "c.toml: engine.seed must be a whole number, 0 or more, not 2147483648"),
        ({"seed": 1.5}, "c.toml: engine.seed must be a whole number, 0 or more, not 1.5"),
    ]
    for table, message in cases:
        with pytest.raises(ValueError) as e:
            settings_from_config(table, "c.toml")
        assert str(e.value) == message


def test_how_long_the_computer_thinks() -> None:
    assert limits_for(4, 1.5) == Limits(move_time=1.5)  # a move time given wins over the level
    assert limits_for(1, external=True) == Limits(move_time=EXTERNAL_TIMES[0])
    assert limits_for(10, external=True) == Limits(move_time=EXTERNAL_TIMES[9])
    assert limits_for(2).depth is not None and limits_for(2).move_time is None  # low levels: by depth
    assert expected_seconds(Limits(move_time=0.5)) == 0.5
    assert expected_seconds(Limits(time=60.0, inc=2.0)) == 62.0
    assert expected_seconds(Limits(depth=6)) == DEPTH_TIME
    # a level bounded by nodes: as long as the slowest board computer takes (level 10: 120 s)
    assert expected_seconds(Limits(depth=100, nodes=600_000)) == 600_000 / SLOWEST_NPS > DEPTH_TIME
    assert expected_seconds(Limits(depth=100, nodes=1_000)) == DEPTH_TIME


def test_the_hub_level_line_an_external_engine_is_sent() -> None:
    assert _level_line(Limits(infinite=True)) == "level infinite"
    assert _level_line(Limits(depth=7)) == "level depth=7"
    assert _level_line(Limits(move_time=0.25)) == "level move-time=0.25"
    assert _level_line(Limits(time=300.0)) == "level time=300"
    assert _level_line(Limits(time=90.5, inc=3.0)) == "level time=90.5 inc=3"
    assert _level_line(Limits(time=600.0, moves=40)) == "level moves=40 time=600"
    assert _level_line(Limits()) == "level move-time=1"


def test_an_engines_scores_come_back_in_hundredths_of_a_man() -> None:
    assert _score("1.25") == 125 and _score("-0.5") == -50 and _score("0") == 0
    assert _score("999") is not None and _score("999") >= MATE_BOUND  # type: ignore[operator]
    assert _score("-999.5") is not None and _score("-999.5") <= -MATE_BOUND  # type: ignore[operator]
    assert _score("many") is None and _score("nan") is None and _score("inf") is None
