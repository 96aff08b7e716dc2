"""A referee's report as a sentence in each of the page's languages (the page, the hall's
feed): written from the report's kind and squares with ``wording.page``'s tables, so that each
language reads naturally; English keeps the referee's own sentence."""

from __future__ import annotations

from collections.abc import Callable

from referee import Report, ReportKind
from wording import language
from wording.page import CLOCK_MESSAGES, REPORTS, SIDES

#: how the squares are named (the position's own notation: numbers, or a1-h8)
Names = Callable[[tuple[int, ...]], str]


def kind_of(report: Report) -> str:
    """The report's kind as the page names it: a required capture paused on a touch-down square
    (the referee's ``at``: where the capture goes on) is ``capture-continues``."""
    if report.kind is ReportKind.REQUIRED_CAPTURE and "at" in report.params:
        return "capture-continues"
    return report.kind.value


def message(report: Report, lang: str, names: Names) -> str:
    """A report's sentence in ``lang`` (``en`` keeps the referee's own words; ``pt`` is pt-BR)."""
    lang = language(lang) or "en"
    clock = CLOCK_MESSAGES.get(lang, {}).get(report.kind.value)
    if clock is not None:
        side, other = SIDES.get(lang, {}).get(str(report.params.get("side")), ("-", "-"))
        return clock.format(side=side, other=other, squares=names(report.squares) or "-")
    key = kind_of(report)
    if key == "computer-move" and not report.params.get("move"):
        key = "computer-wait"  # the computer is still thinking
    if key == "sensor-confirm" and report.params.get("wait"):
        key = "sensor-confirm-wait"  # nothing is read until the page answers (a king that may have slid on)
    law = report.params.get("law")
    if key == "required-capture" and law is not None:  # a capture the law does not allow: say which law
        key = "required-capture-kings" if law == "kings" else "required-capture-law"
    template = REPORTS.get(lang, {}).get(key)
    if template is None:
        return report.message
    at = report.params.get("at")
    nxt = report.params.get("next")
    return template.format(
        squares=names(report.squares) or "-",
        missing=names(report.missing) or "-",
        extra=names(report.extra) or "-",
        cells=", ".join(report.cells) or "-",
        moves=" ".join(str(m) for m in report.params.get("moves", ())) or "-",
        at=names((at,)) if isinstance(at, int) else "-",
        next=" ou ".join(names((q,)) for q in nxt) if isinstance(nxt, (list, tuple)) and nxt else "-",
        move=report.params.get("move") or "-",
        count=law if isinstance(law, int) else "-",
    )
