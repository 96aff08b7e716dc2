"""Reconciling after a link gap: the search for the moves made meanwhile, the referee's
resync (record a unique sequence, marked; ask for the position back otherwise), and the
journal's link lines (a replay gives the same game)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from board_hal.debounce import Transition
from referee import (
    Link,
    LogError,
    MoveMade,
    Pipeline,
    Referee,
    Report,
    ReportKind,
    Role,
    parse_log,
    reconstruct,
)
from referee.candidates import candidates
from referee.core import RECONSTRUCTED_COMMENT
from referee.log import dump_log, event_to_json
from rules import Game, Move, Position, find_variant
from rules.pdn import read_pdn


def line(pos: Position, texts: str) -> tuple[list[Move], Position]:
    moves = []
    for text in texts.split():
        m = pos.parse_pdn(text)
        moves.append(m)
        pos = pos.apply(m)
    return moves, pos


def pdn(pos: Position, moves: tuple[Move, ...] | list[Move]) -> list[str]:
    out = []
    for m in moves:
        out.append(pos.pdn(m))
        pos = pos.apply(m)
    return out


def hands(ref: Referee, move: Move, t: float) -> list[object]:
    """Play a move on the referee's board: lift, place, take the captured pieces off."""
    out: list[object] = []
    out += ref.feed(Transition(t, move.from_square, False))
    out += ref.feed(Transition(t + 0.2, move.to_square, True))
    for i, sq in enumerate(move.captured):
        out += ref.feed(Transition(t + 0.3 + 0.1 * i, sq, False))
    return out


def brute(pos: Position, target: frozenset[int], plies: int) -> list[tuple[tuple[Move, ...], bool]]:
    """Every explanation without pruning: sequences of up to ``plies`` legal moves ending
    on ``target``, and of 1 to ``plies - 1`` moves after which a move is under way there
    (judged by the referee's own candidates)."""

    def walk(p: Position, seq: tuple[Move, ...], left: int) -> Iterator[tuple[tuple[Move, ...], bool]]:
        if p.occupied() == target:
            yield seq, False
        elif seq and left and any(c.in_progress(target) and c.after != target for c in candidates(p)):
            yield seq, True
        if left:
            for m, child in p.children():
                yield from walk(child, (*seq, m), left - 1)

    return list(walk(pos, (), plies))


def test_search_agrees_with_brute_force_on_random_positions() -> None:
    rng = random.Random(7)
    checked = unique = ambiguous = 0
    for i in range(60):
        variant = ("brazilian", "international", "portuguese")[i % 3]
        g = Game(variant)
        for _ in range(rng.randint(0, 40)):
            ms = list(g.legal_moves)
            if not ms:
                break
            g.push(rng.choice([m for m in ms if m.captured] or ms))
        start = g.position
        end = start
        for _ in range(rng.randint(2, 3)):
            children = list(end.children())
            if not children:
                break
            end = rng.choice(children)[1]
        every = brute(start, end.occupied(), 3)
        found = reconstruct(start, end.occupied(), 3)
        assert found.unique == (len(every) == 1)
        assert found.ambiguous == (len(every) > 1)
        if found.unique:
            assert (found.moves, found.under_way) == every[0]
            unique += 1
        ambiguous += found.ambiguous
        checked += 1
    assert checked == 60 and unique >= 10 and ambiguous >= 3  # both outcomes really occur


def test_unique_and_ambiguous_gaps() -> None:
    start = Position.start("brazilian")
    _moves, after = line(start, "c3-d4 f6-g5")
    assert pdn(start, reconstruct(start, after.occupied()).moves) == ["c3-d4", "f6-g5"]
    assert not reconstruct(start, after.occupied()).under_way
    # f6-e5 d4xf6 and b6-c5 d4xb6 leave the same occupancy: the board cannot tell them apart
    _, p1 = line(start, "c3-d4")
    _, p2 = line(p1, "f6-e5 d4xf6")
    found = reconstruct(p1, p2.occupied())
    assert found.ambiguous and found.moves == ()
    assert {tuple(pdn(p1, s)) for s in found.sequences} <= {("f6-e5", "d4xf6"), ("b6-c5", "d4xb6")}
    # nothing reaches a board with an extra piece, nor a gap longer than the search
    assert reconstruct(start, start.occupied() | {17}).sequences == ()
    _, far = line(start, "c3-d4 f6-g5 g3-h4 g7-f6 b2-c3")
    assert reconstruct(start, far.occupied(), 4).sequences == ()
    with pytest.raises(ValueError, match="max_plies"):
        reconstruct(start, far.occupied(), -1)


def test_resync_records_a_unique_sequence_marked_reconstructed() -> None:
    ref = Referee("brazilian")
    seen, start = line(ref.position, "g3-h4 h6-g5 e3-f4 g5xe3 f2xd4 b6-c5")
    for i, m in enumerate(seen):
        hands(ref, m, float(i))
    assert ref.game.ply == 6 and ref.position == start
    moves, after = line(start, "d4xb6 a7xc5 c3-b4")
    out = ref.resync(after.occupied(), 10.0)
    made = [v for v in out if isinstance(v, MoveMade)]
    assert [v.pdn for v in made] == ["d4xb6", "a7xc5", "c3-b4"]
    assert all(v.reconstructed and v.t == 10.0 for v in made)
    assert [v.to_json()["reconstructed"] for v in made] == [True, True, True]
    note = [v for v in out if isinstance(v, Report)]
    assert [r.kind for r in note] == [ReportKind.RECONSTRUCTED]
    assert ref.position == after and ref.report is None
    # every move it recorded is lit (from and to), not just the last
    lit = {i.square: i.role for i in ref.led_intents()}
    assert set(lit) == {sq for m in moves for sq in (m.from_square, m.to_square)}
    assert set(lit.values()) == {Role.LAST}
    # the record says which moves were reconstructed
    text = ref.pdn_game().pdn()
    assert text.count(RECONSTRUCTED_COMMENT) == 3
    assert [bool(m.comments) for m in read_pdn(text)[0].moves] == [False] * 6 + [True] * 3
    # a normal move afterwards is not marked
    v = hands(ref, after.parse_pdn("d6-e5"), 11.0)
    assert [x.reconstructed for x in v if isinstance(x, MoveMade)] == [False]
    assert ref.pdn_game().pdn().count(RECONSTRUCTED_COMMENT) == 3


def test_resync_with_a_capture_and_a_takeback_of_a_reconstructed_move() -> None:
    ref = Referee("brazilian")
    start = ref.position
    _, p = line(start, "g3-h4 h6-g5 e3-f4")
    for m in line(start, "g3-h4 h6-g5 e3-f4")[0]:
        hands(ref, m, ref.t + 1)
    _, after = line(p, "g5xe3 f2xd4")
    out = ref.resync(after.occupied(), 50.0)
    assert [v.pdn for v in out if isinstance(v, MoveMade)] == ["g5xe3", "f2xd4"]
    assert ref.reconstructed == {4, 5}
    # casual: putting the last position back takes the reconstructed move back, and its mark
    last = ref.game.move_stack[-1]
    ref.feed(Transition(51.0, last.to_square, False))
    ref.feed(Transition(51.1, last.from_square, True))
    for sq in last.captured:
        ref.feed(Transition(51.2, sq, True))
    assert ref.game.ply == 4 and ref.reconstructed == {4}
    assert ref.pdn_game().pdn().count(RECONSTRUCTED_COMMENT) == 1


def test_resync_never_records_a_guess() -> None:
    ref = Referee("brazilian")
    ref.feed(Transition(0.0, 22, False))
    ref.feed(Transition(0.5, 18, True))
    assert ref.game.ply == 1
    p1 = ref.position
    _, p2 = line(p1, "f6-e5 d4xf6")
    out = ref.resync(p2.occupied(), 5.0)
    assert not [v for v in out if isinstance(v, MoveMade)] and ref.game.ply == 1
    (r,) = [v for v in out if isinstance(v, Report)]
    assert r.kind is ReportKind.LINK_GAP and r.missing == (18,) and r.extra == ()
    assert "d4" in r.message and ref.report == r
    assert {(i.square, i.role) for i in ref.led_intents()} >= {(18, Role.MISSING)}
    # the position restored: play goes on from the last known position
    out = ref.feed(Transition(6.0, 18, True))
    assert ref.report is None and any(isinstance(v, Report) and v.kind is ReportKind.RESTORED for v in out)
    # a gap too long to search: the board as it is, judged as usual (restore guidance)
    _, far = line(p1, "f6-g5 g3-h4 g7-f6 b2-c3 b6-a5")
    out = ref.resync(far.occupied(), 20.0) + ref.tick(25.0)
    assert ref.game.ply == 1 and not [v for v in out if isinstance(v, MoveMade)]
    assert ref.report is not None and set(ref.report.missing) | set(ref.report.extra) == p1.occupied() ^ far.occupied()


def test_resync_with_a_move_under_way_is_judged_as_usual() -> None:
    ref = Referee("brazilian")
    # the gap hid the lift of c3: the board shows it lifted, the hints follow
    out = ref.resync(ref.position.occupied() - {22}, 1.0)
    assert out == [] and ref.game.ply == 0
    assert {i.square for i in ref.led_intents() if i.role is Role.HINT} == {17, 18}
    # a gap hid c3-d4 and the lift of f6: "c3-d4, f6 in the hand" and a four-move sequence
    # end alike: no recording, the last known position back
    out = ref.resync(Position.start("brazilian").occupied() - {22, 11} | {18}, 2.0)
    assert not [v for v in out if isinstance(v, MoveMade)]
    assert ref.report is not None and ref.report.kind is ReportKind.LINK_GAP
    assert (ref.report.missing, ref.report.extra) == ((11, 22), (18,))
    # a gap hid a capture and the lift of the reply, and nothing else ends alike: the
    # capture is recorded, the reply is under way
    ref = Referee("brazilian")
    seen, p = line(ref.position, "g3-h4 h6-g5 e3-f4 g5xe3 f2xd4 b6-c5")
    for i, m in enumerate(seen):
        hands(ref, m, float(i))
    (capture,), p1 = line(p, "d4xb6")
    a7 = p1.parse_pdn("a7xc5").from_square
    out = ref.resync(p1.occupied() - {a7}, 20.0)
    assert [(v.pdn, v.reconstructed) for v in out if isinstance(v, MoveMade)] == [("d4xb6", True)]
    assert ref.report is None and (a7, Role.FROM) in {(i.square, i.role) for i in ref.led_intents()}
    out = ref.feed(Transition(21.0, p1.parse_pdn("a7xc5").to_square, True))
    out += ref.feed(Transition(21.2, capture.to_square, False))
    assert [(v.pdn, v.reconstructed) for v in out if isinstance(v, MoveMade)] == [("a7xc5", False)]
    # nothing changed across a gap: nothing happens
    assert ref.resync(ref.position.occupied(), 30.0) == []


def test_link_lines_round_trip_and_replay_to_the_same_game() -> None:
    start = Position.start("brazilian")
    moves, p = line(start, "a3-b4")
    _, gap = line(p, "f6-g5 c3-d4")
    events = [
        Transition(0.0, moves[0].from_square, False),
        Transition(0.4, moves[0].to_square, True),
        Link(1.0, "down"),
        Link(9.0, "up", tuple(sorted(gap.occupied())), ("b1",)),
        Link(9.0, "reconstructed", moves=("f6-g5", "c3-d4")),
        Link(9.5, "up", tuple(sorted(gap.occupied()))),
    ]
    text = dump_log(None, events)
    assert '"link": "down"' in text and '"cells": ["b1"]' in text and '"moves": ["f6-g5", "c3-d4"]' in text
    _header, back = parse_log(text.splitlines())
    assert back == events
    ref = Referee("brazilian")
    verdicts = Pipeline(ref).run(back)
    # with a piece on b1 nothing is reconstructed; once it is gone, the gap is
    assert [v.pdn for v in verdicts if isinstance(v, MoveMade)] == ["a3-b4", "f6-g5", "c3-d4"]
    assert ref.reconstructed == {2, 3}
    assert event_to_json(Link(2.0, "down")) == {"t": 2.0, "link": "down"}


def test_a_gap_of_one_lost_frame_hides_at_most_one_move() -> None:
    """A noisy line: the board sends a frame on every change, so a single lost frame
    cannot hide three moves. g3-f4 here also ends like a three-move sequence."""
    seen, p = line(Position.start("brazilian"), "e3-d4 f6-e5 d4xf6 e7xg5")
    _, after = line(p, "g3-f4")
    assert reconstruct(p, after.occupied(), 4).ambiguous
    events: list[Transition | Link] = []
    for i, m in enumerate(seen):
        events += [Transition(i, m.from_square, False), Transition(i + 0.3, m.to_square, True)]
        events += [Transition(i + 0.5, c, False) for c in m.captured]
    for lost, made in ((None, []), (4, []), (1, ["g3-f4"])):
        ref = Referee("brazilian")
        up = Link(10.0, "up", tuple(sorted(after.occupied())), lost=lost)
        verdicts = Pipeline(ref).run([*events, up])
        assert [v.pdn for v in verdicts if isinstance(v, MoveMade) and v.reconstructed] == made
        assert (ref.report is not None and ref.report.kind is ReportKind.LINK_GAP) == (not made)
    assert event_to_json(up) == {"t": 10.0, "link": "up", "board": sorted(after.occupied()), "lost": 1}
    assert parse_log([json.dumps(event_to_json(up))])[1] == [up]


@pytest.mark.parametrize(
    ("obj", "error"),
    [
        ({"t": 1, "link": "sideways"}, "unknown link state 'sideways'"),
        ({"t": 1, "link": "up"}, "link up needs 'board'"),
        ({"t": 1, "link": "up", "board": [0]}, "link up needs 'board'"),
        ({"t": 1, "link": "up", "board": [1], "cells": ["a1"]}, "cell 'a1' is a playing square"),
        ({"t": 1, "link": "up", "board": [1], "cells": ["z9"]}, "no cell 'z9'"),
        ({"t": 1, "link": "reconstructed", "moves": [1]}, "'moves' must be a list"),
        ({"t": 1, "link": "up", "board": [1], "lost": -1}, "'lost' must be a number of frames"),
    ],
)
def test_bad_link_lines_name_the_line(obj: dict[str, object], error: str) -> None:
    with pytest.raises(LogError, match=error) as info:
        parse_log(['{"format": 1}', json.dumps(obj)], "g.jsonl")
    assert str(info.value).startswith("g.jsonl:2: ")


def test_the_search_is_bounded_in_a_kings_ending() -> None:
    # flying kings on an open board: many sequences, the search still ends (and says ambiguous)
    v = find_variant("international")
    pos = Position.from_fen("W:WK46,K47,K48:BK3,K4,K5", v)
    first = next(c for _m, c in pos.children() if not c.has_captures())
    after = next(c for _m, c in first.children() if not c.has_captures())
    # with two more plies a king can get there in two steps: the board cannot tell
    assert reconstruct(pos, after.occupied(), 4).ambiguous
    # a search cut short proves nothing unique
    cut = reconstruct(pos, after.occupied(), 4, max_nodes=5)
    assert not cut.complete and cut.ambiguous and not cut.unique and cut.moves == ()
    assert reconstruct(Position.start("brazilian"), line(Position.start("brazilian"), "c3-d4")[1].occupied()).complete
