"""The computer's side (issue 12.4): on its turn the referee accepts only the computer's move
from the hands, lights it, and reports anything else with what to put back; the actions
that say so are part of the event log and replay alike."""

from __future__ import annotations

import pytest

from board_hal.debounce import Transition
from referee import Action, LogError, LogHeader, Pipeline, Referee, ReportKind, Role, dump_log, parse_log
from rules import Color
from tests.referee.driver import Board

# International numbering: white men 31-50 move up (32-28), black men 1-20 move down (19-23)


def computer_board(side: Color = Color.BLACK, fen: str | None = None) -> Board:
    b = Board("international", fen)
    b.t += 0.1
    b.all += b.pipe.feed(Action(b.t, "computer", side, level=3))
    return b


def computer_move(b: Board, text: str) -> None:
    b.t += 0.1
    b.all += b.pipe.feed(Action(b.t, "computer-move", move=text))


def test_only_the_computers_move_is_accepted_and_anything_else_is_reported() -> None:
    b = computer_board()
    b.move(32, 28)  # the player
    assert b.moves() == ["32-28"]
    assert b.ref.expected() is None  # the computer thinks: nothing is lit for it
    computer_move(b, "19-23")
    assert b.leds() == {19: Role.FROM, 23: Role.TO}
    # the hands play another black move: not recorded, reported once it is held
    b.move(18, 22).wait(0.5)
    assert b.moves() == ["32-28"]
    report = b.last(ReportKind.COMPUTER_MOVE)
    assert report.message == "play the computer's move 19-23: put the piece back on 18 and take the piece off 22"
    assert report.missing == (18,) and report.extra == (22,) and report.params["move"] == "19-23"
    assert b.leds() == {18: Role.MISSING, 22: Role.EXTRA}
    b.move(22, 18)  # restored: the computer's move is lit again
    assert b.kinds()[-1] == "restored" and b.ref.report is None
    assert b.leds() == {19: Role.FROM, 23: Role.TO}
    b.move(19, 23)
    assert b.moves() == ["32-28", "19-23"]
    assert b.ref.expected() is None and b.leds() == {19: Role.LAST, 23: Role.LAST}  # the last move, as always


def test_a_capture_is_lit_with_its_path_and_the_pieces_to_remove() -> None:
    # black 23 takes 28 and 38 (23x32x43 via 32)... set up: black man 23, white men 28 and 38
    b = computer_board(fen="B:W28,38,50:B23,1")
    computer_move(b, "23x43x28x38")
    assert b.leds() == {23: Role.FROM, 32: Role.PATH, 43: Role.TO, 28: Role.REMOVE, 38: Role.REMOVE}
    b.lift(23).place(32).lift(32).place(43).lift(28)
    assert b.leds() == {23: Role.FROM, 32: Role.PATH, 43: Role.TO, 38: Role.REMOVE}  # one piece still to remove
    b.lift(38)
    assert b.moves() == ["23x43"]


def test_while_the_computer_thinks_no_move_of_its_side_is_taken() -> None:
    b = computer_board(Color.WHITE)
    b.move(32, 28).wait(0.5)
    assert b.moves() == []
    assert b.last(ReportKind.COMPUTER_MOVE).message == (
        "wait for the computer's move: put the piece back on 32 and take the piece off 28"
    )
    b.move(28, 32)
    assert b.ref.report is None
    computer_move(b, "32-28")
    b.move(32, 28)
    assert b.moves() == ["32-28"]


def test_a_brushed_piece_raises_no_alarm() -> None:
    b = computer_board(Color.WHITE)
    computer_move(b, "32-28")
    b.lift(34)  # a sleeve brushes a piece off its sensor and back within the grace time
    b.t += 0.05
    b.all += b.pipe.feed(Transition(b.t, 34, True))
    b.wait(2)
    assert ReportKind.COMPUTER_MOVE.value not in b.kinds()
    b.move(32, 28)
    assert b.moves() == ["32-28"]


def test_takebacks_in_casual_games() -> None:
    b = computer_board()
    b.move(32, 28)
    computer_move(b, "19-23")
    b.move(19, 23)
    # the player takes the computer's move back: its move is expected again (the same one)
    b.move(23, 19)
    assert b.takebacks() == [2] and b.ref.expected() is not None
    assert b.leds() == {19: Role.FROM, 23: Role.TO}
    # ...and the player's own move too: the player is to move again, nothing expected
    b.move(28, 32)
    assert b.takebacks() == [2, 1] and b.ref.expected() is None
    b.move(31, 27)
    assert b.moves()[-1] == "31-27"
    assert b.ref.expected() is None  # another position: the computer thinks anew


def test_a_stale_or_unknown_computer_move_changes_nothing() -> None:
    b = computer_board()
    computer_move(b, "19-23")  # not the computer's turn: ignored
    assert b.ref.expected() is None
    b.move(32, 28)
    computer_move(b, "32-27")  # not a move of this position: ignored
    assert b.ref.expected() is None
    b.move(19, 23).wait(0.5)
    assert b.moves() == ["32-28"]  # the computer's side still waits for its move


def test_when_the_computer_stops_the_players_go_on() -> None:
    b = computer_board()
    b.move(32, 28)
    b.t += 0.1
    b.all += b.pipe.feed(Action(b.t, "computer"))
    assert b.ref.computer is None
    b.move(18, 22)
    assert b.moves() == ["32-28", "18-22"]


def test_the_actions_are_in_the_event_log_and_replay() -> None:
    events = [
        Action(0.1, "computer", Color.BLACK, level=4, move_time=2.5),
        Transition(1.0, 32, False),
        Transition(1.5, 28, True),
        Action(2.0, "computer-move", move="19-23"),
        Transition(3.0, 18, False),
        Transition(3.5, 22, True),
        Transition(6.0, 22, False),
        Transition(6.5, 18, True),
        Transition(7.0, 19, False),
        Transition(7.5, 23, True),
        Action(8.0, "computer"),
    ]
    text = dump_log(LogHeader(variant="international"), events)
    assert '{"t": 0.1, "action": "computer", "side": "black", "level": 4, "move_time": 2.5}' in text
    assert '{"t": 2.0, "action": "computer-move", "move": "19-23"}' in text
    assert '{"t": 8.0, "action": "computer"}' in text
    _header, parsed = parse_log(text.splitlines())
    assert parsed == events
    ref = Referee("international")
    verdicts = Pipeline(ref).run(parsed[:1])
    assert (ref.computer, ref.computer_level, ref.computer_move_time) == (Color.BLACK, 4, 2.5)
    verdicts += Pipeline(ref).run(parsed[1:])
    assert [v.to_json()["move"] for v in verdicts if v.to_json()["type"] == "move"] == ["32-28", "19-23"]
    assert [v.kind.value for v in verdicts if hasattr(v, "kind")] == ["computer-move", "restored"]
    assert ref.computer is None and ref.computer_level is None and ref.computer_move_time is None


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('{"t": 1, "action": "computer", "side": "red"}', "computer's 'side' must be 'white', 'black' or absent"),
        ('{"t": 1, "action": "computer", "side": "black", "level": 0}', "computer's 'level' must be 1-10, not 0"),
        ('{"t": 1, "action": "computer", "side": "black", "move_time": 0}', "computer's 'move_time' must be seconds"),
        ('{"t": 1, "action": "computer", "side": "black", "move_time": "3"}', "computer's 'move_time' must be seconds"),
        ('{"t": 1, "action": "computer-move"}', "computer-move needs 'move' in square numbers"),
        ('{"t": 1, "action": "computer-move", "move": "c3-d4"}', "computer-move needs 'move' in square numbers"),
    ],
)
def test_bad_computer_lines_are_named(line: str, said: str) -> None:
    with pytest.raises(LogError) as err:
        parse_log(['{"format": 1, "variant": "brazilian"}', line], "game.jsonl")
    assert str(err.value).startswith("game.jsonl:2: " + said)
