"""What ``damas play`` decides before the page opens: whether to resume (the question on a
terminal), whether the address is this machine only, a configuration's time controls and
clock buttons (one line naming the setting when they cannot be used)."""

from __future__ import annotations

import argparse
import builtins
from pathlib import Path

import pytest
from gpiozero import Button, Device
from gpiozero.pins.mock import MockFactory

from board_hal.config import parse_config
from damas import serve
from damas.errors import UserError


def test_the_resume_question_takes_yes_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []

    def answer(with_text: str) -> object:
        def fake_input(prompt: str) -> str:
            asked.append(prompt)
            if with_text == "EOF":
                raise EOFError
            return with_text

        return fake_input

    for typed, resume in [("", True), ("y", True), ("yes\n", True), ("n", False), (" No ", False), ("EOF", True)]:
        monkeypatch.setattr(builtins, "input", answer(typed))
        assert serve._ask_resume(4, 17) is resume, typed
    assert set(asked) == {"resume the unfinished game 4 (17 plies)? [Y/n] "}


@pytest.mark.parametrize(
    ("host", "local"),
    [
        ("localhost", True),
        ("LocalHost.", True),
        ("127.0.0.1", True),
        ("127.1", True),
        ("0x7f.0.0.1", True),
        ("[::1]", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.20", False),
        ("[fe80::1]", False),
        ("board.local", False),
        ("127.0.0.1 evil", False),
    ],
)
def test_only_this_machine_goes_without_the_token(host: str, local: bool) -> None:
    assert serve._loopback(host) is local


def args(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**{"clock": None} | kw)


def test_a_time_control_from_the_command_line_or_the_configuration() -> None:
    cfg = parse_config('[clock]\ncontrol = "blitz"\n[clock.controls]\nblitz = "5+3"\n', "c.toml")
    assert serve._clock_control(args(), cfg) == "5+3"
    assert serve._clock_control(args(clock="21"), cfg) == "21"
    assert serve._clock_control(args(), parse_config("", "c.toml")) is None
    with pytest.raises(UserError, match=r"^--clock: "):
        serve._clock_control(args(clock="fast"), cfg)
    bad = parse_config('[clock]\ncontrol = "fast"\n', "c.toml")
    with pytest.raises(UserError, match=r"^c\.toml: clock\.control: "):
        serve._clock_control(args(), bad)
    # a broken preset is named even when another one is chosen: it would fail on the page later
    broken = parse_config('[clock]\ncontrol = "blitz"\n[clock.controls]\nblitz = "5+3"\nslow = "5+x"\n', "c.toml")
    with pytest.raises(UserError, match=r"^c\.toml: clock\.controls\.slow: "):
        serve._clock_control(args(), broken)


def test_clock_buttons_on_pins_in_use_are_named_in_one_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    factory = MockFactory()
    monkeypatch.setattr(Device, "pin_factory", factory)
    cfg = parse_config("[clock]\nbuttons = {white = 20, black = 21}\n", str(tmp_path / "c.toml"))
    assert serve._open_buttons(parse_config("", "c.toml")) is None  # none configured
    buttons = serve._open_buttons(cfg)
    assert buttons is not None
    buttons.close()
    with Button(21, pin_factory=factory), pytest.raises(UserError) as e:  # another program holds black's pin
        serve._open_buttons(cfg)
    text = str(e.value)
    assert text.startswith(f"{tmp_path / 'c.toml'}: clock.buttons: cannot open the GPIO pins: ") and "\n" not in text
    assert "21" in text
