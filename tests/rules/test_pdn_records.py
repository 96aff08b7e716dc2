"""PDN records in detail: the move numbers in the text written and in the errors read, set-ups at
the end of a game, games split at their set-ups, the line width, tag and clock details (what a
mutation run showed no other test of tests/rules checked; docs/mutation.md)."""

from __future__ import annotations

import pytest

from rules import Color, Game, Outcome, PdnSyntaxError, Position, Termination
from rules.errors import PdnTagError
from rules.pdn import Clock, PdnGame, check_tag, iter_games, parse_clock, read_game, read_pdn, split_at_setups


# -- errors name the move by its number, as the file writes it ----------------------------------
@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("1. 32-28 19-23\n2. 28-22 *", "g.pdn:2: game 1 (? - ?): move 2. '28-22': illegal move (legal: 28x19)"),
        (
            "1. 32-28 19-23 2. 28x19 14-20 *",
            "g.pdn:1: game 1 (? - ?): move 2... '14-20': illegal move (legal: 13x24 14x23)",
        ),
        ("1. 32-28 18-23 2. 37-32 12-18 3. 28-24 *", "g.pdn:1: game 1 (? - ?): move 3. '28-24': illegal move"),
        # a game that starts with Black to move: its first move is 1...
        ('[FEN "B:W31-50:B1-20"]\n1... 19-23 2. 32-28 23-29 *', "g.pdn:2: game 1 (? - ?): move 2... '23-29'"),
        ('[FEN "B:W31-50:B1-20"]\n1... 19-23 2. 32-29 *', "g.pdn:2: game 1 (? - ?): move 2. '32-29'"),
    ],
)
def test_an_illegal_move_is_named_by_its_number(text: str, where: str) -> None:
    with pytest.raises(PdnSyntaxError) as info:
        read_pdn(text, "g.pdn")
    assert str(info.value).startswith(where), str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("1. 32-28 {a comment\nover\nthree lines} 19-23\n2. 28-22 *", 4),
        ('1. 32-28 19-23 /FEN\n"W:W28:B23"\n/ 2. 28-22 *', 3),
        ('[Event "a"]\n\n[White "b"]\n{x\ny}\n1. 32-28 19-23\n2. 28-22 *', 7),
    ],
)
def test_lines_are_counted_through_tokens_that_span_lines(text: str, line: int) -> None:
    with pytest.raises(PdnSyntaxError, match=rf"^g\.pdn:{line}: game 1 \(. - \?\): move 2\. '28-22': illegal move"):
        read_pdn(text, "g.pdn")


# -- writing --------------------------------------------------------------------------------------
def test_a_black_move_after_a_comment_gets_its_number_again() -> None:
    g = Game("brazilian")
    for text in ("c3-d4", "f6-g5", "b2-c3", "g7-f6"):
        g.push_pdn(text)
    pg = PdnGame.from_game(g)
    pg.moves[0].comments.append("the centre")
    pg.moves[2].comments.append("solid")
    text = pg.pdn()
    assert "1. c3-d4 {the centre} 1... f6-g5 2. b2-c3 {solid} 2... g7-f6 *" in text
    pg.moves[0].comments.clear()
    assert "1. c3-d4 f6-g5 2. b2-c3 {solid} 2... g7-f6 *" in pg.pdn()
    assert [m.comments for m in read_game(text).moves] == [["the centre"], [], ["solid"], []]


def test_a_setup_after_the_last_move_is_written_and_read_back() -> None:
    g = Game("brazilian", "W:Wc3,e3,g3:Bb6,h6")
    g.push_pdn("c3-d4")
    g.setup(Position.from_fen("B:Wd4,g3:Bh6", "brazilian"))
    pg = PdnGame.from_game(g)
    text = pg.pdn()
    assert text.rstrip().endswith('1. c3-d4 /FEN "B:Wd4,g3:Bh6"/ *')
    back = read_game(text)
    assert back.setups == {1: Position.from_fen("B:Wd4,g3:Bh6", "brazilian")}
    assert back.game().position == Position.from_fen("B:Wd4,g3:Bh6", "brazilian")


def test_move_text_fills_lines_up_to_the_width_exactly() -> None:
    g = Game("international")
    for text in ("32-28", "18-23", "37-32", "12-18", "41-37", "7-12"):
        g.push_pdn(text)
    pg = PdnGame.from_game(g)
    words = ["1.", "32-28", "18-23", "2.", "37-32", "12-18", "3.", "41-37", "7-12", "*"]
    for n in range(2, len(words)):
        width = len(" ".join(words[:n]))
        body = pg.pdn(width=width).split("\n\n", 1)[1].splitlines()
        assert body[0] == " ".join(words[:n]), (width, body)
        assert all(len(line) <= width for line in body)


def test_split_parts_start_where_the_game_did_and_keep_the_intro_once() -> None:
    g = Game("brazilian", "W:Wc3,e3,g3:Bb6,h6")
    g.push_pdn("c3-d4")
    g.push_pdn("b6-a5")
    setup = Position.from_fen("W:Wc3,g3:Bh6", "brazilian")
    g.setup(setup)
    g.push_pdn("c3-b4")
    pg = PdnGame.from_game(g, {"Event": "Club", "FEN": "W:Wc3,e3,g3:Bb6,h6"}, result="1-0")
    pg.intro.append("played on the club's board")
    first, second = split_at_setups(pg)
    assert first.start == Position.from_fen("W:Wc3,e3,g3:Bb6,h6", "brazilian") == pg.start
    assert second.start == setup
    assert first.intro == ["played on the club's board"] and second.intro == []
    # a part's start is its own: no FEN tag of the whole game left in its tags to contradict it
    assert "FEN" not in first.tags and "FEN" not in second.tags
    assert first.tags["Event"] == second.tags["Event"] == "Club"
    assert '[FEN "W:Wc3,e3,g3:Bb6,h6"]' in first.pdn() and '[FEN "W:Wc3,g3:Bh6"]' in second.pdn()
    assert (first.result, second.result) == ("*", "1-0")


# -- tags and clocks ------------------------------------------------------------------------------
def test_a_tag_value_that_is_not_text_is_named() -> None:
    with pytest.raises(PdnTagError, match=r"^tag Event: the value must be text, not 5$"):
        check_tag("Event", 5)
    with pytest.raises(PdnTagError, match=r"^tag Round: the value must be text, not \[1, 2\]$"):
        check_tag("Round", [1, 2])


def test_a_clock_with_no_side_running() -> None:
    assert parse_clock("[%clock w0:01:00 b0:02:00]") == Clock(60.0, 120.0, None)
    assert parse_clock("[%clock B0:00:30]") == Clock(None, 30.0, Color.BLACK)
    assert Clock(60.0, 120.0, None).comment() == "[%clock w0:01:00 b0:02:00]"


def test_a_bad_setup_is_named_with_its_line() -> None:
    with pytest.raises(PdnSyntaxError) as info:
        read_pdn('1. 32-28 19-23\n/FEN "W:W51:B1"/ 2. 28x19 *', "g.pdn")
    assert str(info.value) == (
        "g.pdn:2: game 1 (? - ?): bad set-up: invalid fen: 'W:W51:B1' (no square '51' on a 10x10 board)"
    )


def test_ambiguous_captures_in_a_row_are_resolved_by_looking_further_ahead() -> None:
    # 16x15 takes 11, 12, 20 or 8, 11, 20; looking ahead from either reading meets 15x3, ambiguous
    # again (two captured sets each): the lookahead goes on through it, and both readings fit, so
    # the first in generation order is read
    g = read_game('[FEN "W:WK16,K44:B8,11,12,14,20,22,27"]\n1. 16x15 14-20 2. 15x3 *', "international")
    assert [(m.move.numeric(), sorted(m.move.captured)) for m in g.moves] == [
        ("16x7x29x15", [11, 12, 20]),
        ("14-20", []),
        ("15x33x17x3", [8, 20, 22]),
    ]
    assert g.game().fen() == "B:WK3,K44:B27"


def test_a_comment_too_long_costs_its_game_and_later_comments_still_read() -> None:
    text = '[Event "a"]\n1. 32-28 {' + "x" * 70_000 + '\n[Event "b"]\n1. 32-28 {fine} 19-23 {and this} *\n'
    first, second = iter_games(text, "g.pdn")
    assert str(first.error) == "g.pdn:2: game 1 (? - ?): comment longer than 64 KiB; the game is cut here"
    assert [m.move.numeric() for m in first.moves] == ["32-28"]
    assert second.error is None and second.tags == {"Event": "b"}
    assert [m.comments for m in second.moves] == [["fine"], ["and this"]]


# -- where a game starts and ends -----------------------------------------------------------------
def test_a_result_inside_a_nested_variation_does_not_end_the_game() -> None:
    (game,) = read_pdn("1. 32-28 (19-23 (18-23) 33-29 2-0) 19-23 *")
    assert [m.move.numeric() for m in game.moves] == ["32-28", "19-23"] and game.result == "*"


def test_comments_alone_start_no_game() -> None:
    # a remark after the last game, and one between the tags of a game
    assert len(read_pdn("1. 32-28 19-23 *\n{a closing remark}\n")) == 1
    (game,) = read_pdn('[Event "a"]\n{note between tags}\n[White "x"]\n1. 32-28 *')
    assert game.tags == {"Event": "a", "White": "x"} and game.intro == ["note between tags"]


def test_a_game_far_into_a_file_is_measured_from_its_own_start() -> None:
    # the 1 MiB bound is per game: a game after 1 MiB of line comments is an ordinary game
    text = "%" + "x" * 1_100_000 + "\n1. 32-28 19-23 *\n"
    (game,) = read_pdn(text)
    assert [m.move.numeric() for m in game.moves] == ["32-28", "19-23"]
    (game,) = read_pdn("%" + "x" * 1_100_000 + '\n[Event "late"]\n1. 32-28 *\n')
    assert game.tags == {"Event": "late"}


def test_an_unsupported_gametype_is_named_on_its_own_line() -> None:
    with pytest.raises(PdnSyntaxError, match=r"^g\.pdn:3: game 1 \(\? - \?\): unsupported GameType '21'$"):
        read_pdn('[Event "x"]\n[Site "y"]\n[GameType "21"]\n1. 9-13 *', "g.pdn")


def test_a_result_the_board_does_not_show_is_entered_in_the_game() -> None:
    game = read_game('[Result "2-0"]\n1. 32-28 19-23 2-0').game()
    assert game.outcome() == Outcome(Termination.RESULT_ENTERED, Color.WHITE) and game.result() == "2-0"
    going_on = read_game("1. 32-28 19-23 *").game()
    assert going_on.outcome() is None and going_on.result() == "*" and going_on.ply == 2


def test_games_after_a_variation_are_games_of_their_own() -> None:
    games = read_pdn("1. 32-28 (19-23 33-29) 19-23 2-0\n1. 33-28 (18-23 (17-21)) 18-23 0-2\n1. 31-27 *\n")
    assert [([m.move.numeric() for m in g.moves], g.result) for g in games] == [
        (["32-28", "19-23"], "2-0"),
        (["33-28", "18-23"], "0-2"),
        (["31-27"], "*"),
    ]


def test_stray_text_far_into_a_file_costs_no_game() -> None:
    text = "%" + "x" * 1_100_000 + '\n~~ stray\n[Event "late"]\n1. 32-28 *'
    (game,) = iter_games(text, "g.pdn")
    assert game.error is None and game.tags == {"Event": "late"} and len(game.moves) == 1
    assert [str(w) for w in game.warnings] == ["g.pdn:2: game 1 (? - ?): unexpected text '~~ stray'"]
