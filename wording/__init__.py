"""Every word damas shows (and soon says), in its three languages: Brazilian Portuguese,
European Portuguese and English; one table module per domain (``wording.page``: the board's
page; ``wording.hall``: the hall's page), one way to choose the language and look a text up
(this module), one check of every table (``wording.check``: a key missing in a language,
placeholders that differ, a European word in pt-BR or a Brazilian one in pt-PT).

It imports nothing of ours: the board's side (``damas``) and the hall (``hall``), which never
imports the board's side, both use it (see CONTRIBUTING.md's map).

``pt`` (and a Brazilian browser) means ``pt-BR``: the users of the Brazilian rules and of
the FENACEF regulation; ``pt-PT`` is for Portugal's players of Portuguese draughts.
"""

from __future__ import annotations

LANGUAGES = ("pt-BR", "pt-PT", "en")
#: other spellings of the languages (a link's ``?lang=pt``, ``--lang pt``, a browser's ``pt-br``)
ALIASES = {"pt": "pt-BR", "pt-br": "pt-BR", "pt-pt": "pt-PT", "en": "en", "br": "pt-BR"}
#: each language's name in itself (the selector)
NATIVE = {"pt-BR": "Português (Brasil)", "pt-PT": "Português (Portugal)", "en": "English"}


def language(code: str | None) -> str | None:
    """One of :data:`LANGUAGES` for a code (``pt``, ``pt-br``, ``en-GB``...), or None."""
    if not code:
        return None
    code = code.strip()
    if code in LANGUAGES:
        return code
    low = code.lower()
    if low in ALIASES:
        return ALIASES[low]
    base = low.split("-")[0]
    if base == "en":
        return "en"
    return None


def pick_language(configured: str | None, accept: str | None) -> str:
    """The configured language, else the browser's (Accept-Language, in its order of
    preference: ``pt-PT`` is European Portuguese, any other ``pt`` Brazilian), else English."""
    chosen = language(configured)
    if chosen is not None:
        return chosen
    weighted: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept or "").split(",")):
        code, _, rest = part.partition(";")
        q = 1.0
        if rest.strip().startswith("q="):
            try:
                q = float(rest.strip()[2:])
            except ValueError:
                q = 0.0
        weighted.append((-q, i, code.strip()))
    for _q, _i, code in sorted(weighted):
        low = code.lower()
        if low.startswith("pt"):
            return "pt-PT" if low == "pt-pt" else "pt-BR"
        if language(code) is not None:
            return language(code) or "en"
    return "en"


#: a table of texts: language -> key -> text (``{name}`` fields filled in by :func:`say`)
Table = dict[str, dict[str, str]]


def words(table: Table, lang: str | None) -> dict[str, str]:
    """The table's texts in ``lang`` (a code or an alias such as ``pt``); English for any other."""
    return table.get(language(lang) or "en", table["en"])


def say(table: Table, lang: str | None, key: str, /, **params: object) -> str:
    """One text of ``table`` in ``lang`` (English for an unknown language), its ``{fields}`` filled in."""
    text = words(table, lang)[key]
    return text.format(**params) if params else text
