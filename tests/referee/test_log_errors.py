"""A bad event log is refused with one line naming the file, the line and the problem (what
`damas replay` prints); a good one reads back exactly as it was written."""

from __future__ import annotations

import json

import pytest

from board_hal.debounce import Transition
from referee import Action, ClockAction, Link, LogError, dump_log, parse_log
from rules import Color

HEADER = json.dumps({"format": 1, "variant": "brazilian"})


def _line(**obj: object) -> str:
    return json.dumps(obj)


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ([HEADER, _line(t=1, action="castle")], "game.jsonl:2: unknown action 'castle' ("),
        (
            [HEADER, _line(t=1, square=22, event="lift"), _line(t=0.5, square=22, event="place")],
            "game.jsonl:3: time goes backwards: 0.5 after 1.0",
        ),
        ([HEADER, '{"t": NaN, "square": 22, "event": "lift"}'], "game.jsonl:2: not JSON: NaN is not a number"),
        ([HEADER, '{"t": 1, "pad": "' + "x" * 70_000 + '"}'], "game.jsonl:2: line longer than 64 KiB"),
        ([json.dumps({"fen": 5})], "game.jsonl:1: 'fen' must be text, not 5"),
        (
            [json.dumps({"variant": "brazilian", "board": [1, 2, 2]}), _line(t=1, square=22, event="lift")],
            "game.jsonl:2: 'board' lists a square twice",
        ),
        # a log of only a header: its board is checked against the variant's squares
        (
            [json.dumps({"variant": "brazilian", "board": [1, 40]})],
            "game.jsonl:1: 'board' holds squares that are not on the board: [40] (1-32)",
        ),
        (
            [HEADER, _line(t=1, link="up", board=[1, 2], cells=["b2"])],
            "game.jsonl:2: cell 'b2' is a playing square: list its number in 'board'",
        ),
        ([HEADER, _line(t=1, action="result", result="2-3")], "game.jsonl:2: invalid result '2-3'"),
        ([HEADER, _line(t=1, action="clock-pause", source="elbow")], "game.jsonl:2: unknown clock source 'elbow'"),
        (
            [HEADER, _line(t=1, action="clock-adjust", white=-1)],
            "game.jsonl:2: clock-adjust 'white' must be seconds",
        ),
        ([HEADER, _line(t=1, square=22, event="jump")], "game.jsonl:2: unknown event 'jump' (lift or place)"),
        ([HEADER, _line(t=1, square=33, event="lift")], "game.jsonl:2: square out of range: 33 (1-32)"),
        ([HEADER, _line(t=1, event="lift")], "game.jsonl:2: event without 'square' or 'cell'"),
        ([HEADER, "[1, 2]"], "game.jsonl:2: expected a JSON object, got '[1, 2]'"),
        ([HEADER, _line(t="soon", square=22, event="lift")], "game.jsonl:2: time must be a number, not 'soon'"),
    ],
)
def test_a_bad_log_line_is_named_with_its_file_and_line(lines: list[str], error: str) -> None:
    with pytest.raises(LogError) as exc:
        parse_log(lines, "game.jsonl")
    assert str(exc.value).startswith(error), str(exc.value)
    assert "\n" not in str(exc.value)


def test_the_header_and_every_kind_of_clock_and_computer_line_read_back_as_written() -> None:
    fen = "W:W31,32:B1,2"
    lines = [
        json.dumps({"format": 1, "variant": "brazilian", "fen": fen, "clock": "5+3", "clock_auto": True}),
        _line(t=1.0, action="computer", side="black", level=1),
        _line(t=2.0, action="clock-pause", source="arbiter"),
        _line(t=3.0, action="clock-resume"),
        _line(t=4.0, action="clock-adjust", black=30.0),
        _line(t=5.0, action="clock", side="white", source="button"),
        _line(t=6.0, cell="d3", event="place"),
    ]
    header, events = parse_log(lines, "game.jsonl")
    assert header.fen == fen and header.variant == "brazilian"
    assert header.extra == {"clock": "5+3", "clock_auto": True}  # what the referee's own fields are not
    assert events == [
        Action(1.0, "computer", Color.BLACK, level=1),
        ClockAction(2.0, "clock-pause", None, "arbiter"),
        ClockAction(3.0, "clock-resume"),
        ClockAction(4.0, "clock-adjust", black=30.0),
        ClockAction(5.0, "clock", Color.WHITE, "button"),
        Transition(6.0, "d3", True),
    ]
    assert dump_log(header, events).splitlines() == lines


def test_the_header_variant_numbers_the_squares_and_a_reconstructed_note_may_list_no_moves() -> None:
    header = json.dumps({"variant": "international"})
    _, events = parse_log([header, _line(t=1.0, square=45, event="lift"), _line(t=2.0, link="reconstructed")])
    assert events == [Transition(1.0, 45, False), Link(2.0, "reconstructed")]
