"""PDN for other readers: ``write_pdn(compat=True)`` splits a game at its mid-game set-ups
(which pydraughts and py-draughts cannot read) into consecutive games, and the result styles."""

from __future__ import annotations

import pytest

from rules import Color, Game, Position
from rules.pdn import PdnGame, read_pdn, split_at_setups, write_pdn

draughts_pdn = pytest.importorskip("draughts.PDN", reason="pydraughts (a test dependency) is not installed")


def game_with_setup() -> PdnGame:
    """A Brazilian game in which an irregularity was accepted as a set-up after move 4."""
    g = Game("brazilian")
    for text in ("c3-d4", "f6-e5", "d4xf6", "g7xe5"):
        g.push_pdn(text)
    after = g.position
    white = after.squares(Color.WHITE)
    black = after.squares(Color.BLACK)
    # the position the players agreed on: one black man fewer (taken off by hand), White to move
    # (a part that starts with Black to move trips pydraughts 0.6.7, which reads its first move twice)
    fen = "W:W" + ",".join(str(s) for s in white) + ":B" + ",".join(str(s) for s in black[1:])
    g.setup(Position.from_fen(fen, "brazilian"))
    for move in list(g.position.legal_moves)[:1]:
        g.push(move)
    pg = PdnGame.from_game(g, {"Event": "Club night", "White": "Ana", "Black": "Rui"}, result="1-0")
    assert pg.setups, "the sample needs a set-up"
    return pg


def test_compat_splits_at_setups_and_each_part_replays() -> None:
    pg = game_with_setup()
    parts = split_at_setups(pg)
    assert [len(p.moves) for p in parts] == [4, 1]
    assert parts[1].start == pg.setups[4]
    assert [p.result for p in parts] == ["*", "1-0"]
    assert all(p.tags["White"] == "Ana" for p in parts)
    assert "part 2 of 2" in parts[1].tags["Annotator"]
    text = write_pdn([pg, pg], compat=True)
    assert "/FEN" not in text
    back = read_pdn(text)
    assert [len(b.moves) for b in back] == [4, 1, 4, 1]
    assert [m.move for b in back[:2] for m in b.moves] == [m.move for m in pg.moves]
    assert back[1].start == pg.setups[4] and back[1].result == "1-0"


def test_pydraughts_reads_every_game_only_in_compat_mode() -> None:
    pg = game_with_setup()
    plain = Game("brazilian")
    plain.push_pdn("c3-b4")
    other = PdnGame.from_game(plain, {"Event": "after"}, result="*")
    strict = draughts_pdn.PDNReader(write_pdn([pg, other]))
    compat = draughts_pdn.PDNReader(write_pdn([pg, other], compat=True))
    # what pydraughts makes of the strict file: the /FEN/ set-up is not a move it knows
    strict_moves = [list(g.moves) for g in strict.games]
    assert strict_moves != [["c3-d4", "f6-e5", "d4xf6", "g7xe5"], [pg.setups[4].pdn(pg.moves[4].move)], ["c3-b4"]]
    assert [list(g.moves) for g in compat.games] == [
        ["c3-d4", "f6-e5", "d4xf6", "g7xe5"],
        [pg.setups[4].pdn(pg.moves[4].move)],
        ["c3-b4"],
    ]
    assert compat.games[1].tags["FEN"] == pg.setups[4].fen()


@pytest.mark.parametrize(
    ("variant", "style", "endings"),
    [
        ("international", "variant", ("2-0", "0-2", "1-1")),
        ("international", "1-0", ("1-0", "0-1", "1/2-1/2")),
        ("brazilian", "variant", ("1-0", "0-1", "1/2-1/2")),
        ("brazilian", "2-0", ("2-0", "0-2", "1-1")),
    ],
)
def test_result_styles(variant: str, style: str, endings: tuple[str, str, str]) -> None:
    for result, expected in zip(("1-0", "0-1", "1/2-1/2"), endings, strict=True):
        pg = PdnGame.from_game(Game(variant), result=result)
        text = write_pdn([pg], result_style=style)
        assert f'[Result "{expected}"]' in text and text.rstrip().endswith(expected)


def test_unknown_result_style_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown result style '3-0'"):
        write_pdn([], result_style="3-0")
