"""What a user reads: bad input quoted in the one-line error, clock times written in PDN."""

from __future__ import annotations

import pytest

from rules import Color, find_variant
from rules.errors import UnknownVariantError
from rules.pdn import Clock, parse_clock


def test_an_unknown_variant_is_quoted_in_the_error() -> None:
    with pytest.raises(UnknownVariantError, match=r"^unknown variant: 'chess' \(known: "):
        find_variant("chess")
    with pytest.raises(UnknownVariantError, match=r"^unknown variant: 'xxxxxxxxx.*\.\.\. \(known: "):
        find_variant("x" * 500)  # cut short: still one short line


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0, "0:00:00"), (59.6, "0:01:00"), (3599, "0:59:59"), (3600, "1:00:00"), (3661, "1:01:01"), (36000, "10:00:00")],
)
def test_clock_times_are_written_as_hours_minutes_seconds_and_read_back(seconds: float, text: str) -> None:
    clock = Clock(white=seconds, black=3600, running=Color.BLACK)
    assert clock.comment() == f"[%clock w{text} B1:00:00]"
    assert parse_clock("{" + clock.comment() + "}") == Clock(white=round(seconds), black=3600, running=Color.BLACK)
