"""The event log and the referee's JSON, as other programs read them (public contracts:
DESIGN.md): the lines written, the format checked, errors that name the file."""

from __future__ import annotations

import json
import re

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
    "fmt", [4, 0, "1", True]
)  # (format 2: a board that senses colour, tests/referee/test_colour.py; format 3: below)
def test_a_log_of_another_format_is_refused_naming_it(fmt: object) -> None:
    with pytest.raises(LogError, match=r"^game\.jsonl:1: unsupported log format .* \(this reads formats 1, 2 and 3\)$"):
        parse_log([json.dumps({"format": fmt, "variant": "brazilian"})], "game.jsonl")
    # no format at all is format 1 (logs written before the field)
    assert parse_log([json.dumps({"variant": "brazilian"})], "game.jsonl")[0].variant == "brazilian"


def test_format_3_names_the_game_s_uid_and_formats_1_and_2_are_read_as_before() -> None:
    """Issue 29: the game's id across databases (``<database>-<game>``) in the header, under a
    format number of its own; a presence board's and a colour board's headers both take it."""
    events = [Action(1.5, "draw")]
    for header, fields in [
        (LogHeader(variant="brazilian", mode="casual", uid="Yq3v0sXb2m_c9K-A-12"), {}),
        (LogHeader(variant="brazilian", senses="crown", uid="card0001-3"), {"senses": "crown"}),
    ]:
        lines = dump_log(header, events).splitlines()
        mode = {} if fields else {"mode": "casual"}
        assert json.loads(lines[0]) == {"format": 3, "variant": "brazilian", **mode, **fields, "uid": header.uid}
        read, got = parse_log(lines, "game.jsonl")
        assert read.uid == header.uid and read.senses == header.senses and read.extra == {} and got == events
        assert read.to_json() == header.to_json()
    old = [
        json.dumps({"format": 1, "variant": "brazilian", "uid": "free-text"}),
        json.dumps({"t": 1.0, "action": "draw"}),
    ]
    read, _ = parse_log(old, "game.jsonl")  # (in format 1 a field of that name is nobody's: kept, not read)
    assert read.uid is None and read.extra == {"uid": "free-text"} and read.to_json()["format"] == 1
    colour = [json.dumps({"format": 2, "variant": "brazilian", "senses": "colour"})]
    assert parse_log(colour, "game.jsonl")[0].senses == "colour"
    for bad, why in [
        ({"format": 3, "variant": "brazilian"}, "a format-3 log needs 'uid': <database>-<game>, not None"),
        ({"format": 3, "uid": "no game number"}, "a format-3 log needs 'uid'"),
        ({"format": 3, "uid": 12}, "a format-3 log needs 'uid'"),
        ({"format": 3, "uid": "card0001-3", "senses": "smell"}, "a format-3 colour log needs 'senses'"),
        ({"format": 1, "senses": "colour"}, "'senses' and 'pieces' belong to formats 2 and 3"),
    ]:
        with pytest.raises(LogError, match=rf"^game\.jsonl:1: {re.escape(why)}"):
            parse_log([json.dumps(bad)], "game.jsonl")


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
