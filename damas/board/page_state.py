"""What the page is shown of the board loop: the state of ``GET /api/state`` and of every
WebSocket push (a public contract: fields are only added), built from the game in play, the
computer, the analysis and the records in the page's language; the reports folded; the move
list kept between pushes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import wording
from board_hal.leds import Role as LedRole
from damas.computer.analysis import Mark
from damas.sentences import kind_of, message
from damas.speech.phrases import move_phrase
from referee.clock import duration_text
from referee.vocabulary import ReportKind
from rules import Color, Game, Position
from rules.variants import VARIANTS
from wording import LANGUAGES, NATIVE, language
from wording.page import CLOCK_WORDS, KINDS, LEGEND, RECORDS_ERROR, TERMINATIONS, UI

if TYPE_CHECKING:
    from damas.board.loop import PlayApp


def page_state(app: PlayApp, lang: str) -> dict[str, Any]:
    """What the page shows of the board loop in ``lang`` (``pt``: pt-BR): ``/api/state`` and every push."""
    lang = language(lang) or "en"  # (pt: pt-BR)
    s = app.session
    ref = s.referee
    pos = ref.position
    geo = pos.geometry
    words = wording.words(UI, lang)

    def names(squares: tuple[int, ...]) -> str:
        return ", ".join(pos.square_text(q) for q in sorted(squares))

    # (copies: the clock's times and the marks are added below)
    moves = [dict(m) for m in app.moves.items(s.row.id, ref.game)]
    for item in moves:
        if "said" in item:
            item["said"] = item["said"][lang]  # the move as the board says it (a screen reader's label)
    stamps = s.clock.stamps if s.clock is not None else []
    marks = _marks(app)
    ply = 0
    for item in moves:
        if "pdn" in item:
            if ply < len(stamps):
                item["clock"] = stamps[ply].to_json()
                item["took"] = duration_text(stamps[ply].took)
            ply += 1
            mark = marks.get(ply)
            if mark is not None and mark.played == item["pdn"]:
                item.update(mark=mark.symbol, better=mark.better, kind=mark.kind)
    outcome = ref.game.outcome()
    row = app.store.game(s.row.id)
    result = row.result if (row.result_locked or outcome is not None) else "*"
    kinds = wording.words(KINDS, lang)
    reports = fold_reports(
        {
            "kind": r.kind.value,
            "label": kinds.get(kind_of(r), r.kind.value),
            "message": message(r, lang, names),
            "t": r.t,
            "squares": list(r.squares),
        }
        for r in s.reports()[-40:]
    )
    active = ref.report or getattr(ref, "colour_report", None)  # (a colour board: referee.colour)
    if active is not None and reports and reports[-1]["kind"] == active.kind.value:
        reports[-1]["active"] = True
    legend = wording.words(LEGEND, lang)
    last = moves[-1] if moves and "pdn" in moves[-1] else None
    return {
        "version": app.version,
        "lang": lang,
        "ui": words,
        "variant": pos.variant.name,
        "title": words.get(f"variant_{pos.variant.name}", pos.variant.title),
        "size": geo.size,
        "mode": ref.mode,
        "game": s.row.id,
        "squares": {str(q): list(geo.coord(q)) for q in geo.squares()},
        "names": {str(q): pos.square_text(q) for q in geo.squares()},
        "pieces": {str(q): piece.symbol for q, piece in pos.pieces().items()},
        "occupied": sorted(s.raw),
        "cells": sorted(s.raw_cells),
        # a board that senses colour: the piece it reads on each square (w, b, W, B; ? not
        # known), so the page can draw what stands there where it is not the game's
        "sensed": _sensed(ref),
        "leds": {str(q): role.value for q, role in app.led_intents()},
        "moves": moves,
        "pdn": s.pdn_game().pdn(),
        "reports": reports,
        "active": None
        if active is None
        else {
            "kind": active.kind.value,
            "label": kinds.get(kind_of(active), active.kind.value),
            "message": message(active, lang, names),
        },
        "last": None if last is None else {"path": last["path"], "captured": last["captured"]},
        "fen": pos.fen(),
        "start": ref.game.start.fen(),
        "legend": [
            {
                "role": role,
                "colour": "#{:02x}{:02x}{:02x}".format(*app.looks[LedRole(role)].colour),
                "pattern": app.looks[LedRole(role)].pattern.value,
                "text": text,
            }
            for role, text in legend.items()
        ],
        "languages": [[code, NATIVE[code]] for code in LANGUAGES],
        "variants": [
            {"name": v.name, "title": words.get(f"variant_{v.name}", v.title), "example": FEN_EXAMPLES[v.name]}
            for v in VARIANTS.values()
        ],
        "board_size": None if app.sim is not None else app.io.sensors.size,
        "turn": pos.turn.value,
        "result": result,
        "termination": None
        if outcome is None
        else wording.words(TERMINATIONS, lang).get(outcome.termination.value, outcome.termination.value),
        "tags": row.tags,
        "simulated": app.sim is not None,
        "link": {"state": app.io.link, "since": s.link_since if s.link == app.io.link else None},
        "token_required": bool(app.token),
        "computer": _computer_state(app, lang),
        "analysis": _analysis_state(app, lang),
        "write_error": None
        if app.write_error is None
        else RECORDS_ERROR.get(lang, RECORDS_ERROR["en"]).format(reason=app.write_error),
        "clock": None if s.clock is None else {**s.clock.face(app.clock()), "low": app.low_time},
        "clock_words": wording.words(CLOCK_WORDS, lang),
        "spoken": app.speech.recent(lang),  # what the board said (the page's live region)
        "voice": app.speech.speaker is not None,
    }


def _marks(app: PlayApp) -> dict[int, Mark]:
    """The analysis' marks of the game in play, by ply (once the analysis has finished)."""
    a = app.analysis
    if a is None or a.game_id != app.session.row.id or not a.finished:
        return {}
    return {m.ply: m for m in a.marks}


def _analysis_state(app: PlayApp, lang: str) -> dict[str, Any] | None:
    a = app.analysis
    if a is None or a.game_id != app.session.row.id:
        return None
    words = wording.words(UI, lang)
    lines = [
        f"{m.number} {m.played}{m.symbol} {words['mark_' + m.kind]}: {words['better']} {m.number} {m.better}"
        for m in a.marks
    ]
    return {"done": a.done, "total": a.total, "finished": a.finished, "error": a.error, "lines": lines}


def _sensed(ref: Any) -> dict[str, str] | None:
    """The pieces a colour board reads, by square (None on a board that senses presence only)."""
    sensed = getattr(ref, "sensed", None)  # (referee.colour's ColourReferee)
    if sensed is None:
        return None
    return {str(q): state.code for q, state in sorted(sensed.items())}


def _computer_state(app: PlayApp, lang: str) -> dict[str, Any]:
    """The computer's side of the page: who it plays, its move to execute, a hint, a failure."""
    ref = app.session.referee
    c = app.computer
    pos = ref.position
    expected = ref.expected()
    hint = c.hint_move(ref)
    words = wording.words(UI, lang)
    return {
        "side": None if ref.computer is None else ref.computer.value,
        "level": ref.computer_level,
        "name": c.name,
        "thinking": c.thinking(ref),
        "move": None if expected is None else pos.pdn(expected),
        "hint": None if hint is None else pos.pdn(hint),
        "hint_pending": c.hint_pending(ref),
        "hints": app.engine_settings.allows_hint(ref.mode),
        "error": None if c.error is None else words["engine_failed"].format(error=c.error),
    }


class MoveList:
    """The moves and set-ups of the game in play, each with the position after it (the page's
    history): kept between pushes, as only the end of a game changes."""

    def __init__(self) -> None:
        self._key: tuple[int, Position] | None = None
        self._kept: list[tuple[object, dict[str, Any]]] = []

    def items(self, game_id: int, game: Game) -> list[dict[str, Any]]:
        """The page's list of the game's moves and set-ups (the same dicts while they stand)."""
        key = (game_id, game.start)
        if self._key != key:
            self._key, self._kept = key, []
        steps = game.steps()
        positions = game.positions()[1:]
        kept = self._kept
        n = 0
        while n < min(len(kept), len(steps)) and kept[n][0] is steps[n][1]:
            n += 1
        del kept[n:]
        for i in range(n, len(steps)):
            p, entry = steps[i]
            after = positions[i] if len(positions) == len(steps) else None
            if isinstance(entry, Position):
                item: dict[str, Any] = {"setup": entry.fen(), "fen": entry.fen()}
            else:
                after = after or p.apply(entry)
                item = {
                    "pdn": p.pdn(entry),
                    "white": p.turn is Color.WHITE,
                    "fen": after.fen(),
                    "path": list(entry.path),
                    "captured": list(entry.captured),
                    "said": {lang: move_phrase(lang, p, entry) for lang in LANGUAGES},  # (page_state keeps one)
                }
            kept.append((entry, item))
        return [item for _entry, item in kept]


#: the reports a restored board does not end (a set-up ends with setup-ok; tournament notices stand)
_KEPT = (ReportKind.RESTORED, ReportKind.SETUP, ReportKind.SETUP_OK, ReportKind.TOUCH_MOVE, ReportKind.PROCEDURE)
#: a report kind that ends an earlier one, and which kinds it ends (shown on that report)
RESOLVES = {
    ReportKind.RESTORED.value: frozenset(KINDS["en"]) - {kind.value for kind in _KEPT},
    ReportKind.SETUP_OK.value: frozenset({ReportKind.SETUP.value}),
}


def fold_reports(reports: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The page's list of reports: a report that ends an earlier one (``restored``, ``setup-ok``)
    is shown on the latest report it ends, as its ``resolved`` (kind, message, time), not as a
    line of its own; every other report has ``resolved`` None."""
    out: list[dict[str, Any]] = []
    for r in reports:
        ends = RESOLVES.get(r["kind"], frozenset())
        earlier = next((x for x in reversed(out) if x["resolved"] is None and x["kind"] in ends), None)
        if earlier is not None:
            earlier["resolved"] = {"kind": r["kind"], "message": r["message"], "t": r["t"]}
            continue
        out.append({**r, "resolved": None})
    return out


#: the new-game form's FEN example per variant (valid: tests/app/test_page_form.py reads each)
FEN_EXAMPLES = {
    "brazilian": "W:Wc3,e3,Kg1:Bb6,d6,f8",
    "international": "W:W31-50:B1-20",
    "portuguese": "W:W1-12:B21-32",
}
