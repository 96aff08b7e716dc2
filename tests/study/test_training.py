"""Training on the board (damas.study.training): the judging of the moves made, and the sets
shipped in the package (every game replays, every tactic's move is legal and is the engine's,
every tactic's whole line is legal with the opponent's only or engine-best replies)."""

from __future__ import annotations

import pytest

from damas.study.training import LINE_DEPTH, Training, line_engine, shipped_games, shipped_tactics
from engine import Engine, Limits
from rules import Color, Game, Move, Position


def line(variant: str, *texts: str) -> tuple[Position, list[Move]]:
    start = Position.start(variant)
    pos, moves = start, list[Move]()
    for t in texts:
        m = pos.parse_pdn(t)
        moves.append(m)
        pos = pos.apply(m)
    return start, moves


def test_replay_lights_every_move_to_the_end() -> None:
    start, moves = line("brazilian", "c3-d4", "f6-g5")
    t = Training("t", start, moves)
    assert t.lit() == moves[0] and t.verdict() == "play"
    t.follow(moves[:1])
    assert t.lit() == moves[1]
    t.follow(moves)
    assert t.finished and t.verdict() == "done" and t.lit() is None and (t.right, t.wrong) == (0, 0)


def test_guessing_one_side() -> None:
    start, moves = line("brazilian", "c3-d4", "f6-g5", "g3-h4")
    t = Training("t", start, moves, "guess", Color.WHITE)
    assert t.lit() is None and t.verdict() == "guess"  # White's first move: to find
    wrong = start.parse_pdn("e3-f4")
    t.follow([wrong])
    assert t.verdict() == "wrong" and t.off == 0 and t.lit() is None and t.wrong == 1
    t.follow([])  # taken back: the move is shown now, and counts no more
    assert t.lit() == moves[0] and t.verdict() == "play"
    t.follow(moves[:1])
    assert t.lit() == moves[1]  # Black's: lit
    t.follow(moves[:2])
    assert t.lit() is None and t.verdict() == "guess"
    t.follow(moves)
    assert (t.right, t.wrong) == (1, 1) and t.verdict() == "done"
    assert t.move_text(2) == "2. g3-h4" and t.move_text(1) == "1... f6-g5"


def test_a_tactic_solved_or_failed() -> None:
    tactic = shipped_tactics("brazilian")[1]
    start = Position.from_fen(tactic.fen, "brazilian")
    shot = start.parse_pdn(tactic.move)
    solved = Training("1", start, [shot], "tactic")
    assert solved.side is start.turn and solved.lit() is None
    solved.follow([shot])
    assert solved.verdict() == "solved"
    failed = Training("1", start, [shot], "tactic")
    failed.follow([next(m for m in start.legal_moves if m != shot)])
    assert failed.verdict() == "wrong"
    failed.follow([])
    assert failed.lit() == shot
    failed.follow([shot])
    assert failed.verdict() == "failed"
    with pytest.raises(ValueError, match="unknown training mode 'blitz'"):
        Training("x", start, [shot], "blitz")


def test_a_tactic_is_judged_to_the_end_of_its_line() -> None:
    """The whole combination counts: the key move found, the opponent's reply lit, the next move
    to find; a wrong move at the second step fails the tactic (after the line is played out)."""
    tactic = next(t for t in shipped_tactics("brazilian") if len(t.line) >= 3)
    start, line = tactic.moves("brazilian")
    t = Training("1", start, line, "tactic")
    t.follow(line[:1])
    assert t.verdict() == "right" and t.lit() == line[1] and not t.finished  # the reply: lit, made by the player
    t.follow(line[:2])
    assert t.verdict() == "guess" and t.lit() is None  # the next move: to find
    t.follow(line[:3])
    assert (t.right, t.wrong) == (2, 0) and (t.verdict() == "solved") is (len(line) == 3)
    failed = Training("1", start, line, "tactic")
    at = start.apply(line[0]).apply(line[1])
    miss = next(m for m in at.legal_moves if m != line[2])
    failed.follow([*line[:2], miss])
    assert failed.verdict() == "wrong" and failed.off == 2 and (failed.right, failed.wrong) == (1, 1)
    failed.follow(line[:2])
    assert failed.lit() == line[2]  # taken back: the line's move lit
    failed.follow(line)
    assert failed.verdict() == "failed"
    shown = Training("1", start, line, "tactic")  # "Show the move": given up, lit, counted wrong
    shown.show()
    assert shown.lit() == line[0] and shown.verdict() == "play" and shown.wrong == 1
    shown.follow(line)
    assert shown.verdict() == "failed" and (shown.right, shown.wrong) == (1, 1)
    assert failed.line_text().startswith(failed.move_text(0) + " " + start.apply(line[0]).pdn(line[1]))


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_every_shipped_tactic_line_is_legal_with_forced_or_best_replies(variant: str) -> None:
    """Each tactic's line (``tools/make_training_sets.py``): legal from its position, starting with
    its key move, ending on the player's move; every opponent's move the only legal reply or a
    fresh engine's choice at the depth and with the evaluation the lines were made with (the
    hand-set one: :func:`line_engine`); every later move of the player's
    the only legal one or the engine's choice. Most tactics are more than one move."""
    tactics = shipped_tactics(variant)
    longer = 0
    for tactic in tactics:
        assert tactic.line and tactic.line[0] == tactic.move and len(tactic.line) % 2 == 1, tactic
        start, line = tactic.moves(variant)
        game = Game(variant, start)
        for ply, move in enumerate(line):
            assert move in game.legal_moves, (tactic, ply)
            if ply and len(game.legal_moves) > 1:
                found = line_engine(variant).search(game, Limits(depth=LINE_DEPTH)).move
                assert found == move, (tactic, ply, game.position.pdn(found) if found else None)
            game.push(move)
        longer += len(line) > 1
    assert longer >= len(tactics) // 2, (variant, longer)


@pytest.mark.parametrize("variant", ["brazilian", "international"])
def test_the_shipped_games_replay(variant: str) -> None:
    games = shipped_games(variant)
    assert len(games) >= 3
    for g in games:
        assert g.error is None and len(g.moves) >= 20 and g.result != "*"
        game = Game(g.variant, g.start_position)
        for pm in g.moves:
            game.push(pm.move)
    assert shipped_games("portuguese") == []  # (no public collection of Portuguese games found)


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_every_shipped_tactic_is_a_legal_move_the_engine_finds(variant: str) -> None:
    tactics = shipped_tactics(variant)
    assert len(tactics) >= 20
    for t in tactics[:4]:  # (a few searched here; tests/engine/test_tactics.py searches them all)
        pos = Position.from_fen(t.fen, variant)
        move = pos.parse_pdn(t.move)
        assert move in pos.legal_moves and not pos.has_captures()
        found = Engine(variant, level=10, seed=0, tt_mb=4).search(Game(variant, pos), Limits(depth=6))
        assert found.move == move, (t, pos.pdn(found.move) if found.move else None)
    for t in tactics:
        pos = Position.from_fen(t.fen, variant)
        assert pos.parse_pdn(t.move) in pos.legal_moves
