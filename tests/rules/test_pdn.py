"""PDN reading (tolerant) and writing (strict), on real files and on the quirks of PDN.md."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import Color, Game, PdnSyntaxError, Position, find_variant, parse_result
from rules.errors import PdnTagError
from rules.pdn import (
    MAX_TAG_VALUE,
    ROSTER,
    TAG_NAME_RE,
    PdnGame,
    check_tag,
    iter_games,
    load_pdn,
    parse_clock,
    read_game,
    read_pdn,
    read_pdn_file,
    write_pdn,
)
from tests.conftest import shared_path
from tests.fuzz.harness import bounded

# games and plies each file holds (games/README.md); header-only entries count as games
EXPECTED = {
    "brazilian/lidraughts-brazilian.pdn": (13, 486),
    "international/nk2003-amsterdam.pdn": (33, None),
    "international/wk2003.pdn": (23, None),
    "international/nk-ronde-01.pdn": (7, None),
    "international/nk-ronde-02.pdn": (7, None),
    "international/rk-ronde-12.pdn": (7, None),
    "international/090417ronde12.pdn": (7, None),
    "international/kurnik.pdn": (4, None),
    "international/PROF2.pdn": (16, None),
    "international/lidraughts-international.pdn": (None, None),
}


def game_files() -> list[Path]:
    root = shared_path("games")
    files = sorted(root.glob("*/*.pdn"))
    assert files, "no games in shared/games"
    return files


def test_every_real_game_loads_and_replays() -> None:
    total_plies = {"brazilian": 0, "international": 0}
    for path in game_files():
        games = load_pdn(path)
        rel = f"{path.parent.name}/{path.name}"
        n_games, n_plies = EXPECTED[rel]
        if n_games is not None:
            assert len(games) == n_games, rel
        plies = sum(len(g.moves) for g in games)
        if n_plies is not None:
            assert plies == n_plies, rel
        for g in games:
            assert g.variant.name == path.parent.name
            game = g.game()  # every move legal from the start (or FEN) position
            assert game.ply == len(g.moves)
        total_plies[path.parent.name] += plies
    assert total_plies["international"] > 12_000
    assert total_plies["brazilian"] >= 486
    with_moves = [g for g in load_pdn(shared_path("games", "international", "lidraughts-international.pdn")) if g.moves]
    assert len(with_moves) == 13


def test_real_games_round_trip() -> None:
    for path in game_files():
        for g in load_pdn(path):
            text = g.pdn()
            (back,) = read_pdn(text, variant=None)
            assert back.variant is g.variant
            assert back.start == g.start
            assert [m.move for m in back.moves] == [m.move for m in g.moves]
            assert parse_result(back.result) == parse_result(g.result)
            for key, value in g.tags.items():
                if key not in ("GameType", "Result", "FEN"):
                    assert back.tags[key] == (value or "?"), (path, key)
            assert [m.comments for m in back.moves] == [m.comments for m in g.moves]


def test_brazilian_written_in_algebraic_with_gametype_26() -> None:
    path = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")
    g = load_pdn(path)[0]
    text = g.pdn()
    assert '[GameType "26,W,8,8,A0,0"]' in text
    assert "1. c3-b4 b6-a5 2. b4-c5 d6xb4" in text
    assert '[Result "1-0"]' in text and text.rstrip().endswith("1-0")
    assert g.pdn(result_style="2-0").rstrip().endswith("2-0")


def test_pdn_syntax_corner_cases_load_or_fail_clearly() -> None:
    root = shared_path("pdn-syntax")
    files = sorted(root.glob("*.pdn"))
    assert len(files) >= 8
    for path in files:
        for g in iter_games(path.read_text(encoding="utf-8"), str(path)):
            if g.error:
                msg = str(g.error)
                assert msg.startswith(f"{path}:") and "\n" not in msg, msg
    fen_games = list(iter_games(shared_path("pdn-syntax", "fen.pdn").read_text(), "fen.pdn"))
    assert [bool(g.error) for g in fen_games] == [True, False, False]
    assert "side to move" in str(fen_games[0].error)
    (v,) = read_pdn(shared_path("pdn-syntax", "variation.pdn").read_text())
    assert [m.text for m in v.moves] == ["34-29", "20-24", "29x20", "15x24"]
    (s,) = read_pdn(shared_path("pdn-syntax", "movestrength.pdn").read_text())
    assert [m.nags for m in s.moves] == [["?!"], ["!!?"], []]
    (u,) = read_pdn(shared_path("pdn-syntax", "unicode.pdn").read_text())
    assert u.tags["White"] == "Iser Kuperman — Исер Куперман" and u.tags["Black"] == "José Gonçalves 何"
    (st,) = read_pdn(shared_path("pdn-syntax", "string.pdn").read_text())
    assert st.tags["White"] == 'A quoted "name" inside'
    (a,) = read_pdn(shared_path("pdn-syntax", "alphanumeric.pdn").read_text())
    assert a.variant.name == "brazilian" and a.moves[0].move.numeric() == "23-19"


# -- the quirks of real files (PDN.md "Reading") ----------------------------------------------
def moves_of(text: str, variant: str | None = None) -> list[str]:
    (g,) = read_pdn(text, variant=variant)
    return [m.move.numeric() for m in g.moves]


def test_crlf_and_literal_backslash_r() -> None:
    assert moves_of('[GameType "20"]\r\n1. 32-28 19-23\\r\n2. 28x19 14x23 *\r\n') == [
        "32-28",
        "19-23",
        "28x19",
        "14x23",
    ]


def test_glued_numbers_ellipsis_leading_zeros_spaces_colons() -> None:
    assert moves_of("01.32-28 19-23 02.28x19 14x23 *") == ["32-28", "19-23", "28x19", "14x23"]
    assert moves_of("1. 32-28 1. ... 19-23 2.28:19 14 x 23 *") == ["32-28", "19-23", "28x19", "14x23"]
    assert moves_of("1. 32- 28 19 -23 *") == ["32-28", "19-23"]


def test_ambiguous_start_end_capture_resolved_by_legality_then_following_moves() -> None:
    # two kings routes 4x15 (different captured pieces): the next black move decides
    fen = "W:WK4:B13,20,32,37"
    a = read_game(f'[FEN "{fen}"]\n1. 4x15 37-41 *', "international")
    assert set(a.moves[0].move.captured) == {13, 20, 32}
    b = read_game(f'[FEN "{fen}"]\n1. 4x15 32-38 *', "international")
    assert set(b.moves[0].move.captured) == {13, 20, 37}
    # partial path with one intermediate square
    c = read_game(f'[FEN "{fen}"]\n1. 4x31x15 *', "international")
    assert set(c.moves[0].move.captured) == {13, 20, 37}
    # written back with the complete path
    assert "4x31x42x15" in c.pdn()


def test_ambiguous_capture_that_nothing_resolves_is_an_error_or_first_reading() -> None:
    # 4x15 is 4x27x38x15 (takes 13, 20, 32) or 4x31x42x15 (takes 13, 20, 37): both end on 15,
    # so only the captured set tells the readings apart; the first in generation order is read
    g = read_game('[FEN "W:WK4:B13,20,32,37"]\n1. 4x15 *', "international")
    assert len(g.moves) == 1 and g.moves[0].move.to_square == 15
    assert sorted(g.moves[0].move.captured) == [13, 20, 32]
    assert g.game().position.squares(Color.BLACK) == [37]
    # a following move that only the other reading allows picks that reading instead
    g = read_game('[FEN "W:WK4:B13,20,32,37"]\n1. 4x15 32-38 *', "international")
    assert sorted(g.moves[0].move.captured) == [13, 20, 37]


def test_result_styles_and_terminators() -> None:
    assert read_game("1. 32-28 19-23 2-0").result == "2-0"
    assert read_game("1. 32-28 19-23 1/2-1/2").result == "1/2-1/2"
    assert read_game("1. 32-28 19-23 0-0").result == "0-0"
    tagged = read_game('[Result "0-2"]\n1. 32-28 19-23 *')
    assert tagged.result == "0-2"
    assert parse_result(tagged.result) is Color.BLACK
    games = read_pdn("1. 32-28 1-0\n1. 33-28 0-1\n1. 34-29 1-1\n")
    assert [g.result for g in games] == ["1-0", "0-1", "1-1"]


def test_fen_forms_and_gametype_inference() -> None:
    g = read_game('[FEN "W:W31-50:B1-20."]\n1. 32-28 *')
    assert g.variant.name == "international"
    b = read_game('[FEN "W:Wa3,c3,e3,g3,b2,d2,f2,h2,a1,c1,e1,g1:Bb8,d8,f8,h8,a7,c7,e7,g7,b6,d6,f6,h6"]\n1. c3-d4 *')
    assert b.variant.name == "brazilian"
    n = read_game('[GameType "26"]\n[FEN "W:W21-32:B1-12"]\n1. c3-d4 *')
    assert n.moves[0].move.numeric() == "22-18"
    assert read_game("1. c3-d4 f6-g5 *").variant.name == "brazilian"
    assert read_game("1. 32-28 19-23 *").variant.name == "international"
    p = read_game('[GameType "28"]\n1. 10-14 22-18 *')
    assert p.variant.name == "portuguese"
    assert p.pdn().startswith('[Event "?"]')


def test_tags_several_per_line_tabs_empty_non_english() -> None:
    text = '\t[Event "Open"] [Site "Lisboa"]\n[Empty]\n[Torneio "Aberto"]\n[Date "2026.01.02"]\n1. 32-28 *'
    g = read_game(text)
    assert g.tags == {"Event": "Open", "Site": "Lisboa", "Torneio": "Aberto", "Date": "2026.01.02"}


def test_header_only_entries_are_games_without_moves() -> None:
    games = read_pdn('[Event "a"][White "x"]\n\n[Event "b"]\n1. 32-28 *')
    assert [len(g.moves) for g in games] == [0, 1]
    assert [g.tags["Event"] for g in games] == ["a", "b"]


def test_comments_nags_clocks_variations_line_comments() -> None:
    text = (
        "% a line comment\n"
        "{intro} 1. 32-28 {[%clock w0:12:10 B0:11:03]} 19-23 $1 {engine: +0.3 d=12}\n"
        "(19-24 (18-23) 28x19) 2. 28x19! 14x23?! *"
    )
    g = read_game(text)
    assert g.intro == ["intro"]
    assert [m.move.numeric() for m in g.moves] == ["32-28", "19-23", "28x19", "14x23"]
    clock = g.moves[0].clock
    assert clock is not None and clock.white == 730 and clock.black == 663 and clock.running is Color.BLACK
    assert g.moves[1].nags == ["$1"] and g.moves[1].comments == ["engine: +0.3 d=12"]
    assert g.moves[2].nags == ["!"] and g.moves[3].nags == ["?!"]
    out = g.pdn()
    assert "{[%clock w0:12:10 B0:11:03]}" in out and "28x19!" in out and "$1" in out
    assert [m.comments for m in read_game(out).moves] == [m.comments for m in g.moves]


def test_parse_clock_forms() -> None:
    c = parse_clock("[%clock W1:00 b0:59]")
    assert c is not None and c.white == 60 and c.black == 59 and c.running is Color.WHITE
    assert parse_clock("no clock") is None
    assert c.comment() == "[%clock W0:01:00 b0:00:59]"


def test_setup_in_move_text() -> None:
    text = '1. 32-28 19-23 /FEN "W:W28,31-50:B1-18,20,23"/ 2. 28x19 14x23 *'
    g = read_game(text)
    assert list(g.setups) == [2]
    game = g.game()
    assert isinstance(game.history()[2], Position)
    out = g.pdn()
    assert '/FEN "W:W28,31-50:B1-18,20,23"/' in out
    back = read_game(out)
    assert [m.move for m in back.moves] == [m.move for m in g.moves] and list(back.setups) == [2]


def test_black_to_move_start_numbering() -> None:
    g = read_game('[FEN "B:W31-50:B1-20"]\n1... 19-23 2. 32-28 *')
    out = g.pdn()
    assert "1... 19-23 2. 32-28" in out


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("1. 32-28 19-23\n2. 28-22 *", 2, "illegal move"),
        ('[White "x"]\n\n1. 32-28 {never closed', 3, "comment without a closing"),
        ("1. 32-28 19-23\n2. 28x99 *", 2, "no square"),
        ('[GameType "21"]\n1. 9-13 *', 1, "unsupported GameType"),
        ('[FEN "W:W51:B1"]\n1. 32-28 *', 1, "no square '51'"),
        ("1. 32-28 19-23 2. ~~ *", 1, "unexpected text"),
    ],
)
def test_errors_name_file_and_line(text: str, line: int, why: str) -> None:
    with pytest.raises(PdnSyntaxError) as info:
        read_pdn(text, "games.pdn")
    msg = str(info.value)
    assert msg.startswith(f"games.pdn:{line}: "), msg
    assert why in msg


def test_a_bad_game_does_not_stop_the_others() -> None:
    text = "1. 32-28 19-23 2. 28-22 *\n\n1. 33-28 18-23 *\n"
    games = list(iter_games(text, "x.pdn"))
    assert [bool(g.error) for g in games] == [True, False]
    assert len(games[0].moves) == 2  # the moves before the error are kept


def test_write_multi_game_file_and_game_from_play() -> None:
    g = Game("portuguese")
    g.push_pdn("10-14")
    g.push_pdn("22-18")
    from rules.pdn import PdnGame

    pg = PdnGame.from_game(g, {"White": "Ana", "Black": "Rui", "Event": "Clube"})
    text = write_pdn([pg, pg])
    games = read_pdn(text)
    assert len(games) == 2
    assert games[0].tags["White"] == "Ana" and games[0].tags["Site"] == "?"
    assert '[GameType "28,W,8,8,N1,1"]' in text
    assert [m.move for m in games[1].moves] == g.move_stack


# -- tags: escaped on writing, refused when no reader could get them back (issue 16.3) -------
def _tagged(tags: dict[str, str]) -> str:
    g = Game("international")
    g.push(next(iter(g.legal_moves)))
    return PdnGame.from_game(g, tags).pdn()


@pytest.mark.parametrize(
    "value", ["ends with a backslash \\", 'say "hi"', '\\"', "C:\\games\\new", "x\\\\", '"]\n[Event "x']
)
def test_tag_values_with_backslashes_and_quotes_round_trip(value: str) -> None:
    text = _tagged({"White": value, "Annotator": value})
    games = read_pdn(text + "\n" + _tagged({"Black": "next"}), "t.pdn")  # the game after it still reads
    assert len(games) == 2
    expected = value.replace("\n", " ")  # control characters are written as spaces
    assert games[0].tags["White"] == expected
    assert games[0].tags["Annotator"] == expected
    assert len(games[0].moves) == 1
    assert games[1].tags["Black"] == "next"


@pytest.mark.parametrize(
    "key", ['X"]\n[Y', "white", "", "Two words", "Ünicode", "A" * 65, "[Event", "Key]", 'Q"', "1st"]
)
def test_bad_tag_names_are_refused_by_the_writer(key: str) -> None:
    with pytest.raises(PdnTagError) as info:
        PdnGame(find_variant("international"), {key: "v"}).pdn()
    assert "\n" not in str(info.value)
    assert "tag name" in str(info.value)
    # a record of a game leaves the tag out, names it in a comment, and stays readable
    text = _tagged({key: "v", "White": "Ana"})
    (game,) = read_pdn(text + "\n" + _tagged({"Black": "next"}))[:1]
    assert game.tags["White"] == "Ana" and key not in game.tags and len(game.moves) == 1
    assert game.intro and game.intro[0].startswith("tag left out: bad tag name")


@pytest.mark.parametrize("value", [5, None, ["a"], {"a": 1}, True, 1.5])
def test_non_string_tag_values_are_refused_by_the_writer(value: object) -> None:
    with pytest.raises(PdnTagError, match="must be text"):
        PdnGame(find_variant("international"), {"White": value}).pdn()  # type: ignore[dict-item]


def test_tag_value_longer_than_the_reader_accepts_is_refused() -> None:
    with pytest.raises(PdnTagError, match="longer than 64 KiB"):
        PdnGame(find_variant("international"), {"Event": "x" * (MAX_TAG_VALUE + 1)}).pdn()
    assert read_game(_tagged({"Event": "x" * MAX_TAG_VALUE})).tags["Event"] == "x" * MAX_TAG_VALUE


def test_strict_check_refuses_control_characters() -> None:
    check_tag("White", "a\tb")
    with pytest.raises(PdnTagError, match="control character"):
        check_tag("White", "a\nb", strict=True)


@settings(max_examples=300, deadline=None)
@given(key=st.from_regex(TAG_NAME_RE, fullmatch=True), value=st.text(max_size=200))
def test_any_tag_value_round_trips(key: str, value: str) -> None:
    if key in ("Result", "GameType", "FEN", "Empty"):
        key = "X" + key
    text = _tagged({key: value})
    got = read_game(text).tags[key]
    written = re.sub(r"[\x00-\x1f\x7f]", " ", value)  # the documented exception: control characters
    if key in ROSTER and not value:
        written = "?"
    assert got == written


# -- limits: linear time and bounded memory on hostile files (issue 16.7) ----------------------
@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ('[Event "ok"]\n[Site "' + "x" * 1000, 2, "no closing quote"),
        ('[Event "ok"]\n[Site "' + "x" * 5_000_000, 2, "longer than 64 KiB"),
        ('[Event "' + "x" * (MAX_TAG_VALUE + 10) + '"]\n1. 32-28 *', 1, "longer than 64 KiB"),
        ('[Event "' + "\\x" * (MAX_TAG_VALUE // 2 + 10) + '"]\n1. 32-28 *', 1, "longer than 64 KiB"),
        ("1. 32-28 {" + "y" * (MAX_TAG_VALUE + 10) + "} *", 1, "comment longer than 64 KiB"),
        ('[GameType "20"]\n\n' + "1. 32-28 19-23 " * 80_000, 3, "more than 100,000 tokens"),
        ('[GameType "20"]\n\n' + ("{" + "c" * 60_000 + "} ") * 20, 3, "longer than 1 MiB"),
        ('[GameType "20"]\n\n' + "( ) " * 60_000, 3, "more than 100,000 tokens"),
        ("\n".join(f"[T{i}]" for i in range(200_000)), 100_001, "more than 100,000 tokens"),
        ('[Event "x" junk]', 1, "is not closed"),
        ("[" + "K" * 1000 + ' "v"]', 1, "is not closed"),
    ],
)
def test_limits_give_one_line_naming_file_and_line(text: str, line: int, why: str) -> None:
    msg = str(first_problem(text, "big.pdn"))
    assert msg.startswith(f"big.pdn:{line}: "), msg[:200]
    assert why in msg
    assert "\n" not in msg and len(msg) < 300


def first_problem(text: str, source: str) -> PdnSyntaxError | None:
    """The first problem reading ``text`` gives: one that stops the reader (a game's size limit),
    a game's error or a warning (a broken tag line skipped)."""
    try:
        for g in iter_games(text, source):
            if g.warnings or g.error:
                return (g.warnings or [g.error])[0]
    except PdnSyntaxError as exc:
        return exc
    return None


def test_long_moves_and_numbers_are_bounded() -> None:
    with pytest.raises(PdnSyntaxError, match="illegal move"):  # a 41-square path, then '-2-1...' is cut
        read_pdn("1. " + "1-2-" * 50_000 + "3 *", "m.pdn")
    with pytest.raises(PdnSyntaxError, match="unexpected text"):
        read_pdn("1. 32-28 $" + "9" * 5000 + " *", "n.pdn")
    assert read_game("0000000000000000000001. 32-28 *").moves  # a long move number is only text


def test_files_are_read_in_a_bounded_way(tmp_path: Path) -> None:
    if Path("/dev/zero").exists():
        with bounded("read /dev/zero", memory=200 * 2**20), pytest.raises(PdnSyntaxError, match="larger than 64 MiB"):
            read_pdn_file("/dev/zero")
    p = tmp_path / "g.pdn"
    p.write_bytes('[Event "é"]\n1. 32-28 *\n'.encode("latin-1"))
    assert load_pdn(p)[0].tags["Event"] == "é"


def test_clock_comment_with_huge_or_unicode_numbers() -> None:
    assert parse_clock("[%clock w" + "9" * 5000 + " B0:11:03]") == parse_clock("[%clock B0:11:03]")
    clock = parse_clock("[%clock w²:10 B0:11:03]")
    assert clock is not None and clock.white is None and clock.black == 663


# -- one broken spot costs at most one game (issue 10 §1) -----------------------------------------
def export_games(name: str) -> list[PdnGame]:
    path = shared_path("pdn-syntax", name)
    return list(iter_games(path.read_text(encoding="utf-8"), name))


def test_a_result_written_dash_is_unknown() -> None:
    games = export_games("export-result-dash.pdn")  # games 2 and 4: [Result "-"] and move text ending ' -'
    assert [len(g.moves) for g in games] == [80, 93, 90, 96, 95, 101]
    assert [g.error for g in games] == [None] * 6
    assert [g.result for g in games] == ["1-1", "*", "1-1", "*", "1-1", "2-0"]
    assert games[1].tags["Result"] == "*" and games[1].game().result() == "*"
    assert read_game("1. 32-28 19-23 -").result == "*"
    assert read_game("1. 32-28 -\n").moves[0].move.numeric() == "32-28"


def test_localised_tag_names_with_spaces_and_entities() -> None:
    fr, nl, pt, ru = export_games("export-localised-tags.pdn")
    assert [len(g.moves) for g in (fr, nl, pt, ru)] == [113, 119, 123, 143]
    assert [g.error for g in (fr, nl, pt, ru)] == [None] * 4
    assert fr.tags == {
        "Event": "WK 2003",
        "Site": "Zwartewaterland (Pays-Bas) & Amsterdam, Netherlands",  # '&amp;' decoded
        "Date": "2003.05.23",
        "Round": "1",
        "White": "Samb,N.",
        "Black": "Thijssen,K.",
        "Result": "1-1",  # written [R&#x00e9;sultat "1-1"]
        "GameType": "20",  # written [Type de jeu "20"]
    }
    for g, white, black, result in (
        (nl, "Clerc,R.", "Andall,A.K.", "2-0"),
        (pt, "Georgiev,A.", "Schwarzman,A.", "1-1"),
        (ru, "Getmanski,A.", "Boezjinski,E.", "1-1"),
    ):
        assert (g.tags["White"], g.tags["Black"], g.tags["Result"], g.result) == (white, black, result, result)
        assert g.tags["Event"] == "WK 2003" and g.tags["Date"] == "2003.05.23" and g.tags["GameType"] == "20"
        assert g.variant.name == "international"


def test_standard_names_win_over_localised_ones_and_unknown_names_stay() -> None:
    g = read_game('[White "A"]\n[Blanc "B"]\n[Commentaire du jeu "x &lt; y"]\n[wit "c"]\n1. 32-28 *')
    assert g.tags == {"White": "A", "Blanc": "B", "Commentaire du jeu": "x < y", "wit": "c"}
    g = read_game('[Blanc "B"]\n[White "A"]\n[ Datum  "2003.05.23"]\n1. 32-28 *')
    assert g.tags == {"White": "A", "Date": "2003.05.23"}  # the standard name written later wins


def test_a_game_cut_off_and_a_tag_without_its_bracket_cost_at_most_that_game() -> None:
    games = export_games("export-cut-off.pdn")
    # 1 whole; 2 cut off after move 20 without a result; 3 its Event tag lost its '['; 4 '[[Event';
    # 5 an unknown annotation symbol after move 30 (partial); 6 move text starting with '<br/>' (lost); 7 whole
    assert [len(g.moves) for g in games] == [81, 40, 84, 100, 60, 0, 111]
    assert [g.tags["Event"] for g in games] == ["WK 2003"] * 7
    assert [g.result for g in games] == ["1-1"] * 7  # from the Result tags
    assert [bool(g.error) for g in games] == [False, False, False, False, True, True, False]
    assert [len(g.warnings) for g in games] == [0, 0, 1, 0, 0, 0, 0]
    assert str(games[2].warnings[0]) == (
        "export-cut-off.pdn:34: game 3 (Samb,N. - Clerc,R.): tag 'Event' without its '[': read as a tag"
    )
    assert str(games[4].error).startswith("export-cut-off.pdn:87: game 5 (Boezjinski,E. - Schwarzman,A.): ")
    assert "unexpected text '± 31. 48-42" in str(games[4].error)
    assert str(games[5].error).startswith("export-cut-off.pdn:102: game 6 ")
    assert "'[Event" not in "".join(games[3].tags)


def test_a_broken_tag_costs_its_line_and_stray_text_between_games_costs_nothing() -> None:
    text = (
        '[Event "A"]\n[Site "never closed\n[White "w"]\n\n1. 32-28 19-23 2-0\n\n'
        "a note between games\n\n"
        '[Event "B"]\n1. 33-28 { no end\n\n[Event "C"]\n1. 34-29 *\n'
    )
    a, b, c = iter_games(text, "t.pdn")
    assert (a.tags, len(a.moves), a.error) == ({"Event": "A", "White": "w"}, 2, None)
    assert [str(w) for w in a.warnings] == ["t.pdn:2: game 1 (w - ?): tag 'Site': the value has no closing quote"]
    assert (b.tags, len(b.moves), b.error is not None) == ({"Event": "B"}, 1, True)
    assert [str(w) for w in b.warnings] == ["t.pdn:7: game 2 (? - ?): unexpected text 'a note between games'"]
    assert str(b.error) == "t.pdn:10: game 2 (? - ?): comment without a closing '}'; the game is cut here"
    assert (c.tags, len(c.moves), c.error, c.warnings) == ({"Event": "C"}, 1, None, [])


def test_variations_are_read_with_the_move_they_replace_and_written_back() -> None:
    g = read_game("32-28 19-23 (18-23 38-32 (37-32? 23-29! { Black wins }) 12-18) 28x19 14x23 *")
    (line,) = g.moves[1].variations
    assert [m.text for m in line] == ["18-23", "38-32", "12-18"]
    (inner,) = line[1].variations
    assert [(m.text, m.nags) for m in inner] == [("37-32", ["?"]), ("23-29", ["!"])] and inner[1].comments
    out = g.pdn()
    assert "19-23 (1... 18-23 2. 38-32 (2. 37-32? 23-29! {Black wins}) 2... 12-18) 2. 28x19" in " ".join(out.split())
    assert read_game(out).pdn() == out
    # a continuation written after the move (not instead of it) belongs to the next move; a move
    # that cannot be played ends its variation, the moves before it kept
    g = read_game("1. 32-28 (19-24 (18-23) 28x19) 19-23 2. 28x19 14x23 *")
    assert [[m.text for m in v] for v in g.moves[1].variations] == [["19-24"]]  # (28x19: not after 19-24)
    assert [[m.text for m in v] for v in g.moves[1].variations[0][0].variations] == [["18-23"]]
    g = read_game("1. 32-28 19-23 (17-21 99-98 16-20) 2. 28x19 14x23 *")
    assert [[m.text for m in v] for v in g.moves[1].variations] == [["17-21"]]
    assert [m.text for m in g.moves] == ["32-28", "19-23", "28x19", "14x23"]


def test_deeply_nested_variations_are_read_only_so_deep() -> None:
    """A file nesting variations thousands deep (a forged or broken one) reads without a
    recursion error: the main line whole, the variations down to MAX_VARIATION_DEPTH."""
    from rules.pdn import MAX_VARIATION_DEPTH

    g = read_game("1. 32-28 19-23 " + "(18-23 " * 5000 + ")" * 5000 + " 2. 28x19 14x23 *")
    assert [m.text for m in g.moves] == ["32-28", "19-23", "28x19", "14x23"]
    depth, moves = 0, g.moves[1:]
    while moves[0].variations:
        depth += 1
        moves = moves[0].variations[0]
    assert depth == MAX_VARIATION_DEPTH
