"""The page's languages (issue 11 §1): every report kind, LED role and end of game named, the
page's own words defined, each language's sentences. Every table's keys, placeholders and
Brazilian/European words are checked once for every domain by ``wording.check`` (tests/wording)."""

from __future__ import annotations

import re
from pathlib import Path

import damas
from board_hal.leds import Role
from damas.sentences import message
from referee import Report
from referee.vocabulary import TERMINATIONS, ReportKind
from wording import LANGUAGES, language, pick_language
from wording.check import fields
from wording.page import CLOCK_MESSAGES, KINDS, LEGEND, RECORDS_ERROR, REPORTS, TABLES, UI, PageError


def test_every_report_kind_led_role_and_end_is_named() -> None:
    kinds = {k.value for k in ReportKind}
    for lang in LANGUAGES:
        assert kinds <= set(KINDS[lang]), f"KINDS[{lang}] lacks {sorted(kinds - set(KINDS[lang]))}"
        assert {r.value for r in Role} - {"test"} <= set(LEGEND[lang]), lang
        assert set(TERMINATIONS) <= set(TABLES["TERMINATIONS"][lang]), lang
        assert "{reason}" in RECORDS_ERROR[lang]
    for lang in set(LANGUAGES) - {"en"}:  # English keeps the referee's own sentence
        said = set(REPORTS[lang]) | set(CLOCK_MESSAGES[lang])  # the clock's reports have their own table
        assert kinds <= said, f"REPORTS[{lang}] lacks {sorted(kinds - said)}"
        for kind, text in REPORTS[lang].items():
            assert fields(text) <= {"squares", "missing", "extra", "cells", "moves", "at", "next", "move", "count"}, (
                lang,
                kind,
            )


def test_no_identifier_is_shown_as_a_word() -> None:
    """Report kinds used to be shown as `wrong-side`: every label is words in its language."""
    for lang in set(LANGUAGES) - {"en"}:
        for kind, label in KINDS[lang].items():
            assert label != kind or kind == "touch-move", (lang, kind)


def test_brazilian_and_european_words_where_they_differ() -> None:
    """(Every text of every table is checked for the other country's words by wording.check.)"""
    assert UI["pt-BR"]["download"] == "Baixar PDN" and UI["pt-PT"]["download"] == "Descarregar PDN"


def test_the_language_asked_for() -> None:
    assert language("pt") == "pt-BR" and language("pt-br") == "pt-BR" and language("pt-PT") == "pt-PT"
    assert language("en-GB") == "en" and language("fr") is None and language(None) is None
    assert pick_language(None, "pt-BR,pt;q=0.9,en;q=0.8") == "pt-BR"
    assert pick_language(None, "pt-PT,pt;q=0.9") == "pt-PT"
    assert pick_language(None, "pt") == "pt-BR"  # a bare pt: the Brazilian players are most
    assert pick_language(None, "fr-FR,en;q=0.5,pt;q=0.9") == "pt-BR"  # in the order of preference
    assert pick_language(None, "fr") == "en" and pick_language(None, None) == "en"
    assert pick_language("pt-PT", "pt-BR") == "pt-PT"  # --lang / [app] language first


def test_report_messages_name_the_squares_in_each_language() -> None:
    r = Report(ReportKind.WRONG_SIDE, (9,), "it is white's move: put the piece back on a3", missing=(9,), extra=(13,))

    def names(squares: tuple[int, ...]) -> str:
        return ", ".join({9: "a3", 13: "b4"}[q] for q in squares)

    assert message(r, "en", names) == r.message
    assert message(r, "pt-BR", names) == "Não é a vez dessa cor: devolva a peça para a3"
    assert message(r, "pt-PT", names) == "Não é a vez dessa cor: devolva a peça a a3"


def test_page_errors_in_each_language_on_one_line() -> None:
    exc = PageError("board-size", size=8, variant="international", needed=10)
    assert str(exc) == "this board is 8x8: International draughts needs 10x10"
    for lang in LANGUAGES:
        assert "\n" not in exc.text(lang) and "8x8" in exc.text(lang) and "10x10" in exc.text(lang)


def test_every_key_the_page_uses_exists() -> None:
    """The page's own words: each data-ui / data-ui-label of index.html and each ui("key") or
    state.ui.key of app.js is a key of every language (a missing one showed the key itself)."""
    static = Path(damas.__file__).parent / "web" / "static"
    html = (static / "index.html").read_text(encoding="utf-8")
    js = (static / "app.js").read_text(encoding="utf-8")
    used = set(re.findall(r'data-ui(?:-label)?="([a-z_]+)"', html))
    used |= set(re.findall(r'\bui\("([a-z_]+)"\)', js)) | set(re.findall(r"state\.ui\.([a-z_]+)", js))
    used |= {"casual", "tournament", "steady", "slow", "fast"}  # looked up by value: the mode, a LED pattern
    assert len(used) > 40
    for lang in LANGUAGES:
        assert not used - set(UI[lang]), f"UI[{lang}] lacks {sorted(used - set(UI[lang]))}"
