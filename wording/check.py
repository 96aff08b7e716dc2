"""The one check of every table of words (the page's, the hall's, and each domain added to this
package): a key missing in a language or one English lacks, an empty text, a translation whose
``{placeholders}`` differ from English (it would drop the square it must name), a European word
in pt-BR, a Brazilian one in pt-PT ("pedra", a man, is both: the Brazilian rules and the FENACEF's
regulation call a man so). ``tests/wording`` runs it over every domain; a domain is a
module of this package with a ``TABLES`` dict (name -> language -> key -> text), and, for the
tables whose English is said elsewhere (the referee's own sentence), ``ENGLISH_ELSEWHERE``.

A domain that must hold no English word in its Portuguese (the talking board's phrases: a
voice reads every word aloud) names the few words both languages share in ``SHARED_WORDS``;
any other word of a table's English texts found in its pt-BR or pt-PT texts is a problem.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import string
from collections.abc import Collection, Mapping

import wording
from wording import LANGUAGES, Table

#: European words a Brazilian reads as foreign (never in pt-BR), and the Brazilian ones for them
#: (never in pt-PT); a word matches at the start of a word, in its case
PORTUGAL_ONLY = (
    "Descarregar",
    "registado",
    "registos",
    "ecrã",
    "Guardar",
    "ligado",
    "actual",
    "a mover",
    "emparelha",  # the pairings: emparceiramento in the FENACEF's rules
    "ronda",  # a round: rodada in Brazil
    "tem de",  # must: tem que, deve in Brazil
    "têm de",
    "terá de",
)
BRAZIL_ONLY = ("Baixar", "registrado", "registros", "Salvar", "conectado", "movê-la", "emparceira", "rodada")


def fields(text: str) -> set[str]:
    """The ``{names}`` a text fills in."""
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name}


def words_of(text: str) -> set[str]:
    """The words a text says (lower case; its ``{placeholders}`` left out)."""
    return set(re.findall(r"[^\W\d_]+", re.sub(r"\{[^}]*\}", "", text).lower()))


def problems(
    domain: str,
    tables: Mapping[str, Table],
    english_elsewhere: Collection[str] = (),
    shared_words: Collection[str] | None = None,
) -> list[str]:
    """One line per problem in a domain's tables (none: the tables are whole); with
    ``shared_words``, also every English word (beyond those) in a Portuguese text."""
    out: list[str] = []
    for name, table in tables.items():
        where = f"{domain}.{name}"
        langs = [lang for lang in LANGUAGES if lang != "en" or name not in english_elsewhere]
        absent = [lang for lang in langs if lang not in table]
        if absent:
            out.append(f"{where}: no {', '.join(absent)} texts")
        unknown = sorted(set(table) - set(LANGUAGES))
        if unknown:
            out.append(f"{where}: languages that are not ours: {', '.join(unknown)}")
        reference = langs[-1] if "en" in langs else "pt-BR"
        keys = set(table.get(reference, {}))
        for lang in langs:
            texts = table.get(lang)
            if texts is None:
                continue
            missing, extra = sorted(keys - set(texts)), sorted(set(texts) - keys)
            if missing:
                out.append(f"{where}[{lang}] lacks {missing}")
            if extra:
                out.append(f"{where}[{lang}] has keys {reference} lacks: {extra}")
            for key in sorted(keys & set(texts)):
                if not texts[key].strip():
                    out.append(f"{where}[{lang}][{key}] is empty")
                elif fields(texts[key]) != fields(table[reference][key]):
                    out.append(
                        f"{where}[{lang}][{key}] fills in {sorted(fields(texts[key]))}, "
                        f"{reference} {sorted(fields(table[reference][key]))}"
                    )
    for lang, foreign in (("pt-BR", PORTUGAL_ONLY), ("pt-PT", BRAZIL_ONLY)):
        for name, table in tables.items():
            for key, text in table.get(lang, {}).items():
                said = [w for w in foreign if re.search(rf"\b{re.escape(w)}", text)]
                if said:
                    out.append(f"{domain}.{name}[{lang}][{key}] says {', '.join(map(repr, said))}: {text!r}")
    if shared_words is not None:
        shared = {w.lower() for w in shared_words}
        for name, table in tables.items():
            english = set().union(*map(words_of, table.get("en", {}).values())) - shared
            for lang in ("pt-BR", "pt-PT"):
                for key, text in table.get(lang, {}).items():
                    said = sorted(words_of(text) & english)
                    if said:
                        out.append(
                            f"{domain}.{name}[{lang}][{key}] says English {', '.join(map(repr, said))}: {text!r}"
                        )
    return out


def domains() -> dict[str, tuple[Mapping[str, Table], Collection[str], Collection[str] | None]]:
    """Every domain of this package: its tables, those whose English is said elsewhere, and the
    words its English and Portuguese may share (None: not checked)."""
    found: dict[str, tuple[Mapping[str, Table], Collection[str], Collection[str] | None]] = {}
    for info in pkgutil.iter_modules(wording.__path__):
        module = importlib.import_module(f"wording.{info.name}")
        tables = getattr(module, "TABLES", None)
        if isinstance(tables, dict):
            found[info.name] = (
                tables,
                getattr(module, "ENGLISH_ELSEWHERE", frozenset()),
                getattr(module, "SHARED_WORDS", None),
            )
    return found


def all_problems() -> list[str]:
    """The check over every domain."""
    return [
        line
        for name, (tables, elsewhere, shared) in domains().items()
        for line in problems(name, tables, elsewhere, shared)
    ]
