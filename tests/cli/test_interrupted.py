"""``damas`` stopped by the user: Ctrl-C ends a command quietly with status 130, and output cut
short by the reader (``damas moves < fens | head -1``) ends it quietly with status 0."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from tests.store.test_damage import run


class Typing(io.StringIO):
    """Standard input where the user presses Ctrl-C after one position."""

    def __iter__(self) -> Iterator[str]:  # type: ignore[override]
        yield "W:W31:B20\n"
        raise KeyboardInterrupt


class ClosedPipe(io.StringIO):
    """Standard output whose reader has gone (``| head -1``)."""

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_ctrl_c_ends_a_command_quietly_with_130(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", Typing())
    code, out, err = run("moves", "--variant", "brazilian")
    assert (code, err) == (130, "") and out == "31-26 31-27\n"


def test_a_reader_that_went_away_ends_the_command_quietly(monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib

    from damas.cli import main

    err = io.StringIO()
    with contextlib.redirect_stdout(ClosedPipe()), contextlib.redirect_stderr(err):
        code = main(["deploy", "unit"])
    assert (code, err.getvalue()) == (0, "")
