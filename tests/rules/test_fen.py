from __future__ import annotations

import pytest

from rules import Color, InvalidFenError, Position, find_variant, geometry_for


def test_start_fens() -> None:
    assert Position.start("international").fen() == "W:W31-50:B1-20"
    assert Position.start("portuguese").fen() == "W:W1-12:B21-32"
    assert Position.start("brazilian").fen("numeric") == "W:W21-32:B1-12"
    assert Position.start("brazilian").fen() == (
        "W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6"
    )


def test_kings_ranges_and_any_order() -> None:
    pos = Position.from_fen("B:WK15,31,29:B14,12-13,K9", "international")
    assert pos.turn is Color.BLACK
    assert pos.squares(Color.WHITE, king=True) == [15]
    assert pos.squares(Color.WHITE, king=False) == [29, 31]
    assert pos.squares(Color.BLACK, king=True) == [9]
    assert pos.squares(Color.BLACK, king=False) == [12, 13, 14]
    assert Position.from_fen(pos.fen(), "international") == pos


def test_algebraic_and_numeric_read_the_same() -> None:
    a = Position.from_fen("W:Wa3,c3:Bb8", "brazilian")
    n = Position.from_fen("W:W21,22:B1", "brazilian")
    assert a == n
    assert a.fen() == "W:Wa3,c3:Bb8"


def test_tolerated_forms() -> None:
    ref = Position.from_fen("W:W31-50:B1-20", "international")
    assert Position.from_fen("W:W31-50:B1-20.", "international") == ref
    assert Position.from_fen('"W:W31-50:B1-20"', "international") == ref
    assert Position.from_fen("W:B1-20:W31-50", "international") == ref
    assert Position.from_fen("W:W31-50:B1-20:H0:F1", "international") == ref
    assert Position.from_fen(" w : W31-50 : B1-20 ", "international") == ref


@pytest.mark.parametrize(
    ("fen", "why"),
    [
        ("", "empty"),
        ("X:W1:B2", "side to move"),
        ("?:W29,13,11:B22,4,2", "side to move"),
        ("W:W51:B1", "no square '51'"),
        ("W:W1,1:B2", "listed twice"),
        ("W:W5:B5", "listed twice"),
        ("W:W31-50:B1-20:Q3", "unexpected field"),
        ("W:W40-31:B1", "backward range"),
        ("W:Wa2:B1", "not a playing square"),
        ("W:W1:B30", "crowning row"),
        ("W:W30:B46", "crowning row"),
        ("W:W1:W2", "two W fields"),
    ],
)
def test_invalid_fens_name_the_problem(fen: str, why: str) -> None:
    with pytest.raises(InvalidFenError) as info:
        Position.from_fen(fen, "international")
    assert why in str(info.value)
    assert repr(fen) in str(info.value)


def test_numbering_rules_md_section_1() -> None:
    i = geometry_for(find_variant("international"))
    assert [i.square_name(s) for s in (1, 5, 6, 46, 50)] == ["b10", "j10", "a9", "a1", "i1"]
    p = geometry_for(find_variant("portuguese"))
    assert [p.square_name(s) for s in (1, 2, 3, 4, 5, 29, 32)] == ["h1", "f1", "d1", "b1", "g2", "g8", "a8"]
    b = geometry_for(find_variant("brazilian"))
    assert [b.square_name(s) for s in (1, 4, 5, 29, 32)] == ["b8", "h8", "a7", "a1", "g1"]
    # Portuguese plays on h1 (dark), Brazilian on a1
    assert p.square_at(7, 0) == 1 and p.square_at(0, 0) is None
    assert b.square_at(0, 0) == 29 and b.square_at(7, 0) is None


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
def test_square_names_round_trip(variant: str) -> None:
    g = geometry_for(find_variant(variant))
    for s in g.squares():
        assert g.parse_square(g.square_name(s)) == s
        assert g.parse_square(str(s)) == s
        f, r = g.coord(s)
        assert g.square_at(f, r) == s


# -- hostile input (issue 16.7): only ASCII digits are digits, and errors stay one short line
@pytest.mark.parametrize(
    "fen",
    [
        "W:W²:B1",  # str.isdigit() passes, int() fails
        "W:W1:B١",  # an Arabic-Indic digit: int() would take it
        "W:W³-5:B1",
        "W:W1:B1:H²",
        "W:W" + "9" * 5000 + ":B1",  # int() refuses more than 4300 digits
        "W:Wa²:B1",
    ],
)
@pytest.mark.parametrize("variant", ["brazilian", "international"])
def test_non_ascii_and_huge_numbers_are_invalid_fens(fen: str, variant: str) -> None:
    with pytest.raises(InvalidFenError) as info:
        Position.from_fen(fen, variant)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 300, msg


def test_non_text_fen_is_an_invalid_fen() -> None:
    with pytest.raises(InvalidFenError, match="not text"):
        Position.from_fen(5, "brazilian")  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["²", "١", "a²", "b١", "9" * 5000, "a" + "1" * 5000])
def test_square_parsing_accepts_ascii_digits_only(text: str) -> None:
    from rules import InvalidSquareError

    geo = geometry_for(find_variant("international"))
    with pytest.raises(InvalidSquareError):
        geo.parse_square(text)
    with pytest.raises(InvalidSquareError):
        geo.parse_cell(text)
