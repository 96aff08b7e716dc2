"""What the talking board says, checked against the rules: a move's spoken squares are the
PDN's, every report kind and end has its phrase in every language, the read-out names every
piece, and the Portuguese phrases hold no English word."""

from __future__ import annotations

import random
import re

import pytest

from damas.speech import phrases
from damas.speech.phrases import LANGS, capture_law, move_text, read_out, spoken
from referee.vocabulary import Report, ReportKind
from rules import Color, Move, Position
from rules.game import Termination
from tests.conftest import random_game
from wording.check import words_of
from wording.speech import LETTERS, SHARED_WORDS, SPEECH

VARIANTS = ("brazilian", "international", "portuguese")
#: the words of a move, per language: plain, capture
WORDS = {"en": ("to", "takes"), "pt-BR": ("para", "toma"), "pt-PT": ("para", "toma")}
SQUARE = re.compile(r"\b(?:[a-h][1-8]|\d{1,2})\b")


def said_squares(text: str) -> list[str]:
    return SQUARE.findall(text)


def test_every_report_kind_and_every_end_has_its_phrase() -> None:
    for lang in LANGS:
        table = SPEECH[lang]
        assert {f"report_{k.value}" for k in ReportKind} <= set(table), lang
        assert {f"why_{t.value}" for t in Termination} <= set(table), lang
        assert {f"variant_{v}" for v in VARIANTS} <= set(table), lang


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_move_is_said_square_by_square_as_pdn_writes_its_path(variant: str) -> None:
    """Every move of random games (captures favoured, so many with several landings and kings):
    the squares said, in order, are the PDN's full path; the words between them say whether it
    is a capture; a promotion is said after the move."""
    checked = captures = promotions = 0
    for seed in range(12):
        start, moves = random_game(variant, seed, 160)
        pos = start
        for move in moves:
            pdn = pos.pdn(move, full=True)
            for lang in LANGS:
                text = move_text(lang, pos, move)
                assert said_squares(text) == re.split("[-x]", pdn), (lang, text, pdn)
                plain, takes = WORDS[lang]
                between = SQUARE.sub("#", text.split(", " + phrases.say(lang, "promoted"))[0])
                if move.captured:
                    assert between.count(takes) == len(move.path) - 1 and plain not in between.split(), text
                else:
                    assert between == f"# {plain} #", text
                assert text.endswith(phrases.say(lang, "promoted")) == move.promotes, text
                said = phrases.move_phrase(lang, pos, move)
                assert said.startswith(phrases.sentence(phrases.side_name(lang, pos.turn)) + ": "), said
            checked += 1
            captures += len(move.path) > 2
            promotions += move.promotes
            pos = pos.apply(move)
    assert checked > 500 and captures > 10 and promotions > 5, (checked, captures, promotions)


def test_the_notation_is_the_variants() -> None:
    br = Position.from_fen("W:Wc3:Bd4,f6", "brazilian")
    assert phrases.move_phrase("pt-BR", br, br.parse_pdn("c3xg7")) == "Brancas: c3 toma e5, toma g7."
    intl = Position.from_fen("W:W32:B27,28,19,18", "international")  # INT numbers, read as numbers
    move = intl.parse_pdn("32x23x12")
    assert phrases.move_phrase("en", intl, move) == "White: 32 takes 23, takes 12."
    assert phrases.move_phrase("pt-PT", intl, move) == "Brancas: 32 toma 23, toma 12."
    pt = Position.from_fen("B:W10:B25", "portuguese")
    assert phrases.move_phrase("pt-PT", pt, pt.parse_pdn("25-21")) == "Pretas: 25 para 21."


def test_a_voice_says_the_letter_of_a_square() -> None:
    assert spoken("Brancas: c3 toma e5.", "pt-BR") == "Brancas: cê3 toma é5."
    assert spoken("Retire a1, f6 e h8.", "pt-PT") == "Retire á1, éfe6 e agá8."
    assert spoken("White: c3 to e5.", "en") == "White: c3 to e5."
    assert spoken("Brancas: 32 toma 23.", "pt-BR") == "Brancas: 32 toma 23."  # numbers stay
    assert set(LETTERS["pt-BR"]) == set("abcdefgh")


def test_the_capture_law_is_named_when_it_rules_a_capture_out() -> None:
    majority = Position.from_fen("W:W28,33:B22,23,12", "international")  # 28x19 takes one, 28x17x8 two
    assert capture_law(majority) == (2, "majority")
    assert phrases.must_capture_phrase("en", majority) == (
        "White must capture, with 28. 2 pieces, by the majority rule."
    )
    assert phrases.must_capture_phrase("pt-BR", majority) == (
        "Captura obrigatória para as brancas, com 28. 2 peças, pela lei da maioria."
    )
    quality = Position.from_fen("W:W1,2:B5,K6", "portuguese")  # one piece each way: the king first
    assert capture_law(quality) == (1, "quality")
    assert phrases.must_capture_phrase("pt-PT", quality) == (
        "Captura obrigatória para as brancas, com 2. Pela lei da qualidade: a captura que toma mais damas."
    )
    free = Position.from_fen("W:Wc3,g3:Bd4,f4", "brazilian")  # two captures of one piece each
    assert capture_law(free) == (1, None)
    assert phrases.must_capture_phrase("pt-BR", free) == "Captura obrigatória para as brancas, com c3 ou g3."
    assert phrases.must_capture_phrase("en", Position.start("brazilian")) == ""


def test_a_report_says_what_is_wrong_then_how_to_put_it_right() -> None:
    pos = Position.from_fen("W:Wc3,e3:Bd4,f6", "brazilian")
    g = pos.geometry.parse_square
    required = Report(ReportKind.REQUIRED_CAPTURE, (g("c3"), g("e3")), "", missing=(g("e3"),), extra=(g("f4"),))
    assert phrases.report_phrase("pt-BR", required, pos) == (
        "Captura obrigatória, com c3 e e3. 2 peças, pela lei da maioria. Recoloque em e3. Retire de f4."
    )
    assert phrases.report_phrase("en", required, pos) == (
        "A capture is compulsory, with c3 and e3. 2 pieces, by the majority rule. Put back on e3. Take off f4."
    )
    goes_on = Report(ReportKind.REQUIRED_CAPTURE, (g("e5"),), "", params={"at": g("e5"), "next": [g("g7")]})
    assert phrases.report_phrase("pt-PT", goes_on, pos) == "A captura continua de e5 para g7."
    wrong = Report(ReportKind.WRONG_SIDE, (g("d4"),), "", missing=(g("d4"),))
    assert phrases.report_phrase("en", wrong, pos) == "It is White's move. Put back on d4."
    flag = Report(ReportKind.FLAG_FALL, (), "", params={"side": "black"})
    assert phrases.report_phrase("pt-BR", flag, pos) == "Acabou o tempo das pretas."
    clock = Report(ReportKind.CLOCK_WRONG_SIDE, (), "", params={"side": "white"})
    assert phrases.report_phrase("pt-PT", clock, pos) == (
        "As brancas carregaram no relógio, mas o relógio das pretas está a correr."
    )
    computer = Report(ReportKind.COMPUTER_MOVE, (), "", params={"move": "d4xf2"}, missing=(g("d4"),))
    turn = pos.with_turn(Color.BLACK)
    assert phrases.report_phrase("en", computer, turn) == "Make the computer's move: d4 takes f2. Put back on d4."
    waiting = Report(ReportKind.COMPUTER_MOVE, (), "", params={"move": None})
    assert phrases.report_phrase("pt-BR", waiting, pos) == "Espere o lance do computador."
    back = Report(ReportKind.RECONSTRUCTED, (), "", params={"moves": ["c3-b4", "f6-g5"]})
    assert phrases.report_phrase("en", back, pos) == "The board is back. Moves recorded: c3 to b4 and f6 to g5."
    # every kind, in every language, without a field left unfilled
    for kind in ReportKind:
        r = Report(kind, (g("c3"),), "", missing=(g("c3"),), cells=("b1",), params={"side": "white"})
        for lang in LANGS:
            text = phrases.report_phrase(lang, r, pos)
            assert text and "{" not in text and text[0].isupper(), (kind, lang, text)


def test_the_result_and_why() -> None:
    assert phrases.result_phrase("pt-BR", Color.WHITE, "no-moves") == (
        "Fim da partida: vitória das brancas. As pretas não têm lance."
    )
    assert phrases.result_phrase("pt-PT", Color.BLACK, "resignation") == (
        "Fim da partida: ganham as pretas. As brancas abandonaram."
    )
    assert phrases.result_phrase("en", None, "repetition") == "Game over: a draw. The same position came three times."
    for t in Termination:
        for lang in LANGS:
            text = phrases.result_phrase(lang, None if t.value in ("agreement", "repetition") else Color.WHITE, t.value)
            assert "{" not in text and text.endswith("."), text


def test_durations() -> None:
    assert phrases.duration("pt-BR", 3725) == "1 hora, 2 minutos e 5 segundos"
    assert phrases.duration("en", 61) == "1 minute and 1 second"
    assert phrases.duration("pt-PT", 58.2) == "59 segundos"
    assert phrases.duration("pt-PT", 59.2) == "1 minuto"
    assert phrases.duration("en", 9.01) == "10 seconds"  # rounded up under a minute: never too hopeful
    assert phrases.duration("en", 0) == "0 seconds"


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_read_out_names_every_piece_by_its_square(variant: str) -> None:
    rng = random.Random(7)
    for _ in range(20):
        start, moves = random_game(variant, rng, rng.randint(0, 120))
        pos = start
        last: tuple[Position, Move] | None = None
        for move in moves:
            last = (pos, move)
            pos = pos.apply(move)
        for lang in LANGS:
            text = read_out(lang, pos, last, None, 0.0)
            assert text.startswith(phrases.turn_phrase(lang, pos)), text
            for color in Color:
                part = phrases.pieces_phrase(lang, pos, color)
                assert part in text
                men, kings = pos.squares(color, False), pos.squares(color, True)
                said = {q for q in said_squares(part)}
                if variant != "brazilian":  # runs read as "31 a 50": every square between
                    said = set()
                    for a, b in re.findall(r"(\d+) (?:to|a) (\d+)", part):
                        said |= {str(q) for q in range(int(a), int(b) + 1)}
                    said |= set(said_squares(re.sub(r"\d+ (?:to|a) \d+", "", part)))
                    said -= {str(len(men)), str(len(kings))} - {pos.square_text(q) for q in men + kings}
                names = {pos.square_text(q) for q in men + kings}
                assert names <= said, (part, names - said)
            if last is not None:
                assert phrases.move_text(lang, *last) in text


def _english_words() -> set[str]:
    return set().union(*(words_of(t) for t in SPEECH["en"].values())) - SHARED_WORDS


def test_no_english_word_is_said_in_portuguese() -> None:
    """Every phrase kind composed in pt-BR and pt-PT over real positions holds no word of the
    English phrases (beyond the few that are Portuguese too): the tables are checked with the
    others (tests/wording), and here what they compose with squares, lists and numbers."""
    english = _english_words()
    pos = Position.from_fen("W:Wc3,Kh2,e1:Bd4,f6,Kb8", "brazilian")
    g = pos.geometry.parse_square
    texts: list[tuple[str, str]] = []
    for lang in ("pt-BR", "pt-PT"):
        texts += [(lang, SPEECH[lang][k].format_map(_Blank())) for k in SPEECH[lang]]
        texts.append((lang, read_out(lang, pos, (pos, pos.parse_pdn("c3xe5xg7")), None, 0.0)))
        texts.append((lang, phrases.lift_phrase(lang, pos, g("c3"), destinations=True)))
        texts.append((lang, phrases.lift_phrase(lang, pos, g("h2"), destinations=False)))
        texts.append((lang, phrases.must_capture_phrase(lang, pos)))
        for kind in ReportKind:
            r = Report(kind, (g("c3"),), "", missing=(g("c3"),), extra=(g("b4"),), params={"side": "black"})
            texts.append((lang, phrases.report_phrase(lang, r, pos)))
        for t in Termination:
            texts.append((lang, phrases.result_phrase(lang, Color.BLACK, t.value)))
        texts.append((lang, phrases.low_time_phrase(lang, Color.WHITE, 75)))
    for lang, text in texts:
        found = set(re.findall(r"[^\W\d_]+", text.lower())) & english
        found -= {"c", "d", "e", "f", "g", "h", "b"}  # (no square letter is a word)
        assert not found, (lang, text, found)


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return ""


def test_one_part_of_the_read_out_at_a_time() -> None:
    """The page's L, C and P keys: the last move (with whose turn), both clocks, the pieces —
    each what the whole read-out says of it, and nothing of the others."""
    from referee import Referee
    from referee.clock import ClockKeeper, parse_control

    pos = Position.start("brazilian")
    move = pos.parse_pdn("c3-d4")
    after = pos.apply(move)
    keeper = ClockKeeper(parse_control("21"), Referee("brazilian"))
    keeper.clock.start(Color.BLACK, 0)
    for lang in LANGS:
        whole = read_out(lang, after, (pos, move), keeper, 95.0)
        last = read_out(lang, after, (pos, move), keeper, 95.0, "last")
        clocks = read_out(lang, after, (pos, move), keeper, 95.0, "clocks")
        pieces = read_out(lang, after, (pos, move), keeper, 95.0, "position")
        assert move_text(lang, pos, move) in last and clocks not in last
        assert phrases.pieces_phrase(lang, after, Color.WHITE) not in last
        assert clocks == phrases.clocks_phrase(lang, keeper, 95.0) and clocks in whole
        assert move_text(lang, pos, move) not in pieces and clocks not in pieces
        for color in Color:
            assert phrases.pieces_phrase(lang, after, color) in pieces
        assert last.startswith(phrases.turn_phrase(lang, after)) and whole.startswith(last)
        # a game without a clock says so, rather than nothing
        assert read_out(lang, after, None, None, 0.0, "clocks") == phrases.say(lang, "no_clock")
    with pytest.raises(ValueError, match="no read-out part 'moves'"):
        read_out("en", after, None, None, 0.0, "moves")
