"""One place for every word (wording/): one lookup, one picker, and one check of every domain's
tables (the page's, the hall's, and each one added to the package)."""

from __future__ import annotations

import wording
import wording.speech
from wording import say, words
from wording.check import all_problems, domains, problems
from wording.hall import UI as HALL
from wording.page import UI as PAGE


def test_every_table_of_every_domain_is_whole() -> None:
    """Every key in every language with the same placeholders, no empty text, no European word
    in pt-BR and no Brazilian one in pt-PT: the page's tables and the hall's, in one check."""
    assert {"page", "hall", "speech"} <= set(domains())
    assert all_problems() == []


def test_no_english_word_is_said_in_portuguese() -> None:
    """The talking board's phrases (a voice reads every word): an English word left in a
    Portuguese phrase is named; the page's and the hall's tables (FEN, PDN, broker) are not held
    to it."""
    assert domains()["speech"][2] == {"a", "no"} and domains()["page"][2] is None
    tables = {
        "SPEECH": {
            "en": {"move": "{side}: {move}.", "takes": "{a} takes {b}", "turn": "{side} to move."},
            "pt-BR": {"move": "{side}: {move}.", "takes": "{a} takes {b}", "turn": "Vez das {side}."},
            "pt-PT": {"move": "{side} move: {move}.", "takes": "{a} toma {b}", "turn": "Jogam as {side}."},
        }
    }
    assert problems("speech", tables, shared_words={"a"}) == [
        "speech.SPEECH[pt-BR][takes] says English 'takes': '{a} takes {b}'",
        "speech.SPEECH[pt-PT][move] says English 'move': '{side} move: {move}.'",
    ]
    assert problems("speech", tables) == []  # (a domain that does not ask for it)
    broken = {lang: dict(texts) for lang, texts in wording.speech.SPEECH.items()}
    broken["pt-PT"]["promoted"] = "promoted a dama"
    assert problems("speech", {"SPEECH": broken}, shared_words=wording.speech.SHARED_WORDS) == [
        "speech.SPEECH[pt-PT][promoted] says English 'promoted': 'promoted a dama'"
    ]


def test_the_check_names_each_problem() -> None:
    good = {"pt-BR": {"a": "rodada {n}"}, "pt-PT": {"a": "ronda {n}"}, "en": {"a": "round {n}"}}
    assert problems("x", {"T": good}) == []
    tables = {
        "UI": {
            "en": {"go": "Go to {square}", "save": "Save", "title": "Board"},
            "pt-BR": {"go": "Vá para a casa", "save": "Guardar", "title": "Tabuleiro", "more": "mais"},
            "pt-PT": {"go": "Vá para {square}", "save": "Salvar", "title": " "},
        },
        "KINDS": {"en": {"k": "kind"}, "pt-BR": {"k": "tipo"}},
        # English is the referee's own sentence: pt-BR and pt-PT are checked against each other
        "REPORTS": {"pt-BR": {"r": "devolva a peça para {missing}"}, "pt-PT": {"r": "devolva a pedra a {missing}"}},
        "CLOCK": {"pt-BR": {"c": "relógio"}, "pt-PT": {"c": "relógio", "d": "a mais"}, "fr": {"c": "horloge"}},
    }
    assert problems("d", tables, english_elsewhere={"REPORTS", "CLOCK"}) == [
        "d.UI[pt-BR] has keys en lacks: ['more']",
        "d.UI[pt-BR][go] fills in [], en ['square']",
        "d.UI[pt-PT][title] is empty",
        "d.KINDS: no pt-PT texts",
        "d.CLOCK: languages that are not ours: fr",
        "d.CLOCK[pt-PT] has keys pt-BR lacks: ['d']",
        "d.UI[pt-BR][save] says 'Guardar': 'Guardar'",
        "d.UI[pt-PT][save] says 'Salvar': 'Salvar'",
    ]
    # the real tables with a key left out of one language, a placeholder dropped, a word of Portugal
    broken = {name: {lang: dict(texts) for lang, texts in table.items()} for name, table in wording.page.TABLES.items()}
    del broken["UI"]["pt-PT"]["download"]
    broken["REPORTS"]["pt-PT"]["wrong-side"] = "Não é a vez dessa cor"
    broken["LEGEND"]["pt-BR"]["remove"] = "capturada: tem de retirá-la"
    assert problems("page", broken, wording.page.ENGLISH_ELSEWHERE) == [
        "page.UI[pt-PT] lacks ['download']",
        "page.REPORTS[pt-PT][wrong-side] fills in [], pt-BR ['missing']",
        "page.LEGEND[pt-BR][remove] says 'tem de': 'capturada: tem de retirá-la'",
    ]


def test_a_man_is_a_pedra_in_brazil_too() -> None:
    """Issue 28: the Brazilian rules and the FENACEF's regulation call a man "pedra"; the check
    once refused the word in pt-BR. Brazil says "tem que" (or "deve") where Portugal says "tem de"."""
    ok = {"pt-BR": {"m": "a pedra tem que capturar"}, "pt-PT": {"m": "a pedra tem de capturar"}, "en": {"m": "x"}}
    assert problems("d", {"T": ok}) == []
    assert wording.page.UI["pt-BR"]["white_man"] == "pedra branca"
    said = {"pt-BR": {"m": "a pedra tem de capturar"}, "pt-PT": {"m": "a pedra tem de capturar"}, "en": {"m": "x"}}
    assert problems("d", {"T": said}) == ["d.T[pt-BR][m] says 'tem de': 'a pedra tem de capturar'"]


def test_one_lookup_for_every_domain() -> None:
    assert words(PAGE, "pt") is PAGE["pt-BR"] and words(HALL, "pt-pt") is HALL["pt-PT"]
    assert words(PAGE, "fr") is PAGE["en"] and words(HALL, None) is HALL["en"]
    assert say(HALL, "pt-BR", "round_of", round=1, rounds=7) == "Rodada 1 de 7"
    assert say(PAGE, "en", "download") == "Download PDN" and say(PAGE, "xx", "download") == "Download PDN"
    assert wording.hall.text("pt-PT", "round_of", round=2, rounds=5) == "Ronda 2 de 5"
    # a text may fill in fields named as the lookup's own arguments (the hall's {table}, a {key})
    table = {
        "en": {"t": "table {table}, {key} in {lang}"},
        "pt-BR": {"t": "mesa {table}"},
        "pt-PT": {"t": "mesa {table}"},
    }
    assert say(table, "en", "t", table=3, key="k", lang="x") == "table 3, k in x"
    assert wording.hall.text("pt-BR", "err_unconfirmed", round=1, table=2).startswith("rodada 1, mesa 2")
