"""The event log and the referee's JSON, as other programs read them (public contracts:
DESIGN.md): the lines written, the format checked, errors that name the file."""

from __future__ import annotations

import json

import pytest

from referee import Action, GameEnd, LogError, LogHeader, Report, ReportKind, dump_log, parse_log
from rules import Color


def test_the_header_and_player_actions_are_written_as_the_format_says_and_read_back() -> None:
    header = LogHeader(variant="brazilian", mode="casual", board=[1, 2, 3])
    events = [
        Action(10.25, "resign", side=Color.WHITE),
        Action(11.0, "result", result="1-0"),
        Action(12.0, "draw"),
    ]
    lines = dump_log(header, events).splitlines()
    assert [json.loads(line) for line in lines] == [
        {"format": 1, "variant": "brazilian", "mode": "casual", "board": [1, 2, 3]},
        {"t": 10.25, "action": "resign", "side": "white"},
        {"t": 11.0, "action": "result", "result": "1-0"},
        {"t": 12.0, "action": "draw"},
    ]
    read_header, read_events = parse_log(lines, "game.jsonl")
    assert read_header.to_json() == header.to_json() and read_events == events


@pytest.mark.parametrize(
    "fmt", [3, 0, "1", True]
)  # (format 2: a board that senses colour, tests/referee/test_colour.py)
def test_a_log_of_another_format_is_refused_naming_it(fmt: object) -> None:
    with pytest.raises(LogError, match=r"^game\.jsonl:1: unsupported log format .* \(this reads formats 1 and 2\)$"):
        parse_log([json.dumps({"format": fmt, "variant": "brazilian"})], "game.jsonl")
    # no format at all is format 1 (logs written before the field)
    assert parse_log([json.dumps({"variant": "brazilian"})], "game.jsonl")[0].variant == "brazilian"


def test_a_bad_link_line_names_the_file_and_line() -> None:
    lines = [json.dumps({"format": 1}), json.dumps({"t": 1.0, "link": "up", "board": [1], "cells": "a1"})]
    with pytest.raises(LogError, match=r"^game\.jsonl:2: 'cells' must be a list of cell names"):
        parse_log(lines, "game.jsonl")


def test_reports_and_game_ends_as_the_page_and_the_api_receive_them() -> None:
    report = Report(ReportKind.WRONG_PIECE_REMOVED, (14,), "a piece that was not captured", 3.14159, missing=(14,))
    assert report.to_json() == {
        "type": "report",
        "kind": "wrong-piece-removed",
        "squares": [14],
        "message": "a piece that was not captured",
        "missing": [14],
        "t": 3.142,
    }
    assert GameEnd("0-1", "resignation", 7.00049).to_json() == {
        "type": "end",
        "result": "0-1",
        "termination": "resignation",
        "t": 7.0,
    }
