"""Fixtures of the engine's tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine import evaluate
from engine.evaluate import Evaluator
from rules import find_variant


@pytest.fixture
def refusal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], str]:
    """``refusal(text)``: ``text`` as International's weights file; the error a new evaluator
    gives, checked to be one line naming the file."""

    def refuse(text: str) -> str:
        path = tmp_path / "weights_international.json"
        path.write_text(text)
        monkeypatch.setattr(evaluate, "WEIGHTS_10", path)
        with pytest.raises(ValueError) as err:
            Evaluator(find_variant("international"))
        message = str(err.value)
        assert "\n" not in message
        assert message.startswith(f"{path}: not a weights table (")
        return message

    return refuse
