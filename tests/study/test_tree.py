"""A study's tree of moves (damas.study.tree): variations tried from any position, written as
PDN variations and read back, deleted, promoted; bad requests are one line that changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from damas.study.tree import MAX_NODES, Study, StudyError
from rules import Game, Move, Position
from rules.pdn import read_game
from tests.conftest import shared_path


def moves_text(study: Study) -> str:
    return " ".join(study.pdn().split("\n\n", 1)[1].split())


def test_a_variation_tried_from_a_past_position_is_written_and_read_back() -> None:
    study = Study.from_pdn(read_game("1. c3-d4 f6-g5 2. g3-h4 *", "brazilian"))
    first = study.main_line()[0]
    tried = study.play(first.id, "b6-a5")
    assert study.current is tried and tried.ply == 2
    study.play(tried.id, "d4-c5")
    assert moves_text(study) == "1. c3-d4 f6-g5 (1... b6-a5 2. d4-c5) 2. g3-h4 *"
    assert study.play(first.id, "b6-a5") is tried  # a move there already is not played twice
    again = Study.from_pdn(read_game(study.pdn()))
    assert moves_text(again) == moves_text(study)
    assert [t["text"] for t in study.tokens() if t["kind"] != "open" and t["kind"] != "close"] == [
        "1.",
        "c3-d4",
        "f6-g5",
        "1...",
        "b6-a5",
        "2.",
        "d4-c5",
        "2.",
        "g3-h4",
    ]


def test_promote_and_delete() -> None:
    study = Study.from_game(Game("brazilian"))
    a = study.play(0, "c3-d4")
    b = study.play(0, "e3-f4")
    assert moves_text(study) == "1. c3-d4 (1. e3-f4) *"
    study.promote(b.id)
    assert moves_text(study) == "1. e3-f4 (1. c3-d4) *"
    study.play(a.id, "f6-g5")
    study.goto(a.id + 2)
    study.delete(a.id)
    assert moves_text(study) == "1. e3-f4 *" and study.current is study.root
    assert set(study.nodes) == {0, b.id}


def test_nested_variations_and_their_notes_are_kept() -> None:
    text = "32-28 19-23 (18-23 38-32 (37-32? 23-29! { Black wins }) 12-18) 28x19 14x23 *"
    study = Study.from_pdn(read_game(text))
    want = "1. 32-28 19-23 (1... 18-23 2. 38-32 (2. 37-32? 23-29! {Black wins}) 2... 12-18) 2. 28x19 14x23 *"
    assert moves_text(study) == want
    assert "(1... 18-23 2. 29x18 13x22)" in moves_text(
        Study.from_pdn(read_game(shared_path("pdn-syntax", "variation.pdn").read_text()))
    )


@pytest.mark.parametrize(
    ("node", "move", "said"),
    [
        (99, "c3-d4", "no move 99 in this study"),
        ("0", "c3-d4", "no move '0' in this study"),
        (0, "c3-c4", "'c3-c4'"),
        (0, "d6-c5", "'d6-c5' is not a legal move here (legal: "),
        (0, 5, "a move must be text, not 5"),
    ],
)
def test_a_bad_request_is_one_line_and_changes_nothing(node: object, move: object, said: str) -> None:
    study = Study.from_game(Game("brazilian"))
    with pytest.raises(StudyError) as exc:
        study.play(node, move)
    assert said in str(exc.value) and "\n" not in str(exc.value)
    assert study.nodes == {0: study.root} and study.current is study.root
    with pytest.raises(StudyError, match="cannot be deleted"):
        study.delete(0)


def test_a_study_is_bounded() -> None:
    study = Study.from_game(Game("brazilian"))
    node = study.root
    with pytest.raises(StudyError, match=f"at most {MAX_NODES} moves"):
        for _ in range(MAX_NODES + 1):
            # two plies forward and back would repeat positions: a fresh variation each time
            move = next(iter(node.position.legal_moves))
            node = study.play(node.id, node.position.pdn(move))
            if not node.position.legal_moves:
                node = study.root
                study.root.children.clear()  # (keep the nodes counted, start a new line)


# -- a study as the records keep it (Study.to_json / from_json) ------------------------------------
def test_a_study_stored_and_read_back_is_the_same_tree() -> None:
    study = Study.from_pdn(read_game("1. c3-d4 f6-g5 (1... b6-a5 2. d4-c5 (2. g3-h4)) 2. g3-h4 *", "brazilian"))
    study.tags.update({"White": "Ana", "Black": "Rui"})
    line = study.main_line()
    line[0].comments.append("a comment with } and { and\nlines")
    line[1].nags.append("!?")
    tried = study.play(line[1].id, "a3-b4")  # a variation after the line's second move
    study.play(study.root.id, "e3-f4")  # another first move
    study.current = tried
    again = Study.from_json(json.loads(json.dumps(study.to_json())))
    assert again.pdn() == study.pdn()
    assert again.tokens() == study.tokens()  # the page's ids too
    assert again.current.text == "a3-b4" and again.current.parent is not None
    assert again.current.parent.text == line[1].text
    assert again.main_line()[0].comments == ["a comment with } and { and\nlines"]
    assert again.tags == study.tags and again.result == study.result
    assert again.play(again.current.id, "b6-a5").id not in study.nodes  # a new move: a new id


def test_a_study_from_a_set_up_position_keeps_its_start() -> None:
    fen = "W:W21,22:B9,10"
    study = Study(Game("brazilian", fen).start.variant, Game("brazilian", fen).start)
    study.play(0, study.root.position.pdn(next(iter(study.root.position.legal_moves))))
    again = Study.from_json(study.to_json())
    assert again.root.position == study.root.position and again.pdn() == study.pdn()


def test_a_long_line_is_stored_flat() -> None:
    """A line of thousands of moves is not thousands of nested levels (JSON's recursion limit)."""
    pos = Game("brazilian", "W:WKa1:BKh2").start
    study = Study(pos.variant, pos)
    node = study.root
    cycle = ("a1-b2", "h2-g1", "b2-a1", "g1-h2")  # two kings shuffling: a line as long as one likes
    for i in range(1500):
        node = study.extend(node, node.position.parse_pdn(cycle[i % 4]))
    assert node.ply == 1500
    text = json.dumps(study.to_json())
    assert Study.from_json(json.loads(text)).pdn() == study.pdn()


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda d: d.update(format=9), "unknown study format 9"),
        (lambda d: d.update(fen="W:W99:B1"), "its start is not a position"),
        (lambda d: d["moves"][1].update(move="c3-d4"), "move 2: 'c3-d4' is not one legal move"),
        (lambda d: d["moves"][1].update(parent=5), "move 2: its parent 5 is not a move before it"),
        (lambda d: d["moves"][0].update(comments=[3]), "move 1: its comments are not text"),
        (lambda d: d.update(current=99), "the position shown 99 is not one"),
        (lambda d: d["moves"][1].update(id=1), "move 2: its id 1 is not a new positive number"),
        (lambda d: d["moves"].append({**d["moves"][0], "id": 50}), "move 4: 'c3-d4' is there twice"),
        (lambda d: d.update(moves={}), "its moves are not a list"),
        (lambda d: d.update(tags=[]), "its tags are not text"),
    ],
)
def test_a_damaged_stored_study_is_one_line(change: Any, said: str) -> None:
    data = Study.from_pdn(read_game("1. c3-d4 f6-g5 2. g3-h4 *", "brazilian")).to_json()
    change(data)
    with pytest.raises(StudyError) as info:
        Study.from_json(data)
    assert said in str(info.value) and "\n" not in str(info.value)


def moves_from(pos: Position, *texts: str) -> list[Move]:
    out = []
    for text in texts:
        out.append(pos.parse_pdn(text))
        pos = pos.apply(out[-1])
    return out


def test_an_analysis_sessions_lines_in_its_study_s_tree() -> None:
    """``with_lines``: the lines an analysis session played on the board (a position of the study
    and the moves from it) with the study's moves that lead to them, in the study's order and with
    its comments; moves the study lacks (deleted since) follow their line; a line from a position
    the study does not hold is left out (none: None)."""
    study = Study.from_pdn(read_game("1. c3-d4 {the game} f6-g5 (1... b6-a5 2. a3-b4) 2. g3-h4 *", "brazilian"))
    first, second = study.main_line()[:2]
    there = second.position
    lines = [(there, moves_from(there, "g3-h4")), (first.position, []), (there, moves_from(there, "a3-b4", "b6-a5"))]
    tree = study.with_lines(lines)
    assert tree is not None
    assert moves_text(tree) == "1. c3-d4 {the game} 1... f6-g5 2. g3-h4 (2. a3-b4 b6-a5) *"
    elsewhere = Position.start("brazilian").apply(Position.start("brazilian").parse_pdn("e3-f4"))
    assert study.with_lines([(elsewhere, [])]) is None
    tree = study.with_lines([(elsewhere, []), (first.position, [])])
    assert tree is not None and moves_text(tree) == "1. c3-d4 {the game} *"
