"""Which language a page speaks: Brazilian Portuguese, European Portuguese or English.

Shared by the board's page (``damas.i18n``) and the hall's (``hall.i18n``), so both choose the
same way; it imports nothing (the hall never imports the board's side, see DESIGN.md §1).

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
