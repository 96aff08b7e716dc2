"""The page's languages (issue 11 §1): every key in every language, every report kind, LED
role and end of game named, Brazilian words for Brazil and European ones for Portugal."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

import damas
from board_hal.leds import Role
from damas.i18n import (
    CLOCK_MESSAGES,
    KINDS,
    LANGUAGES,
    LEGEND,
    RECORDS_ERROR,
    REPORTS,
    TABLES,
    UI,
    PageError,
    language,
    message,
    pick_language,
)
from referee import Report
from referee.vocabulary import TERMINATIONS, ReportKind


def fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("table", sorted(TABLES))
def test_every_key_in_every_language(table: str) -> None:
    """A key missing in any language (or one language's extra key) fails here, named."""
    texts = TABLES[table]
    assert set(texts) == set(LANGUAGES), f"{table}: languages {sorted(texts)}"
    keys = set(texts["en"])
    for lang in LANGUAGES:
        missing = keys - set(texts[lang])
        extra = set(texts[lang]) - keys
        assert not missing, f"{table}[{lang}] lacks {sorted(missing)}"
        assert not extra, f"{table}[{lang}] has keys English lacks: {sorted(extra)}"
        for key in keys:
            assert texts[lang][key].strip(), f"{table}[{lang}][{key}] is empty"
            # the same placeholders: a translation cannot drop the square it must name
            assert fields(texts[lang][key]) == fields(texts["en"][key]), f"{table}[{lang}][{key}]"


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
            assert fields(text) <= {"squares", "missing", "extra", "cells", "moves", "at", "next", "move"}, (lang, kind)


def test_no_identifier_is_shown_as_a_word() -> None:
    """Report kinds used to be shown as `wrong-side`: every label is words in its language."""
    for lang in set(LANGUAGES) - {"en"}:
        for kind, label in KINDS[lang].items():
            assert label != kind or kind == "touch-move", (lang, kind)


# European words a Brazilian reads as foreign, and the Brazilian ones for them
PORTUGAL_ONLY = ("Descarregar", "registado", "registos", "pedra", "ecrã", "Guardar", "ligado", "actual", "a mover")
BRAZIL_ONLY = ("Baixar", "registrado", "registros", "Salvar", "conectado", "movê-la")


def test_brazilian_and_european_portuguese_differ_where_they_should() -> None:
    def words(lang: str) -> str:
        texts = [t for table in TABLES.values() for t in table[lang].values()]
        return " ".join([*texts, *REPORTS[lang].values(), RECORDS_ERROR[lang]])

    br, pt = words("pt-BR"), words("pt-PT")
    for w in PORTUGAL_ONLY:
        assert not re.search(rf"\b{re.escape(w)}", br), f"pt-BR says {w!r}"
    for w in BRAZIL_ONLY:
        assert not re.search(rf"\b{re.escape(w)}", pt), f"pt-PT says {w!r}"
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
