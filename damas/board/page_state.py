"""What the page is shown of the board loop: the state of ``GET /api/state`` and of every
WebSocket push (a public contract: fields are only added), built from the game in play, the
computer, the analysis and the records in the page's language; the reports folded; the move
list kept between pushes."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import wording
from board_hal.leds import Role as LedRole
from damas.computer.analysis import Mark
from damas.computer.live import bar
from damas.records.store import ABANDONED, ANALYSIS, INTERRUPTED, GameRow, StudyRow
from damas.sentences import kind_of, message
from damas.speech.phrases import move_phrase
from damas.study.training import shipped_games, shipped_tactics
from damas.study.tree import Node
from engine import MATE_BOUND
from referee.clock import TICKS, ClockError, duration_text, parse_control
from referee.vocabulary import MoveMade, Report, ReportKind
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
    suspects: set[int] = set(getattr(ref, "suspects", ()))
    inferred: dict[int, int] = getattr(ref, "inferred", {})  # ply -> the square whose sensor did not answer
    ply = 0
    for item in moves:
        if "pdn" in item:
            if ply < len(stamps):
                item["clock"] = stamps[ply].to_json()
                item["took"] = duration_text(stamps[ply].took)
            ply += 1
            sensor = inferred.get(ply)
            if sensor is not None:
                item["inferred"] = pos.square_text(sensor)  # read without that square's sensor
            mark = marks.get(ply)
            if mark is not None and mark.played == item["pdn"]:
                item.update(mark=mark.symbol, better=mark.better, kind=mark.kind)
    outcome = ref.game.outcome()
    row = app.store.game(s.row.id)
    result = row.result if (row.result_locked or outcome is not None) else "*"
    if outcome is not None and row.purpose == ANALYSIS:  # a line's end: the session records none
        result = outcome.result(ref.variant)
    kinds = wording.words(KINDS, lang)
    active = ref.report or getattr(ref, "colour_report", None)  # (a colour board: referee.colour)
    reports = fold_reports(_report_items(s.history, active, lang, names), words["resolved"])
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
        "purpose": s.row.purpose,  # None: a game; "training", "analysis": a session on the board
        "squares": {str(q): list(geo.coord(q)) for q in geo.squares()},
        "names": {str(q): pos.square_text(q) for q in geo.squares()},
        "pieces": {str(q): piece.symbol for q, piece in pos.pieces().items()},
        # a square whose sensor does not answer shows what the game has there, not its stale reading
        "occupied": sorted((_raw(app) - suspects) | (pos.occupied() & suspects)),
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
            "confirm": _confirm(active, pos, ref.held_answer),
            "line": line(kinds.get(kind_of(active), active.kind.value), message(active, lang, names)),
        },
        "sensors": sorted(getattr(ref, "suspects", ())),  # squares whose sensor does not answer
        # the sensors kept as broken for the next games (the self-test's, and those named in play)
        "remembered": app.memory.listed(app.io.layout, pos),
        "dead_leds": sorted(app.broken()[1]),  # squares whose LED does not light (the page shows their role)
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
        "live": _live_state(app, lang),
        "study": _study_state(app, lang),
        # the analysis mode on the board: its set-up (squares to fill, to empty), or the game put back
        "board_analysis": app.analysis_mode.state(),
        "training": _training_state(app, lang),
        "write_error": None
        if app.write_error is None
        else RECORDS_ERROR.get(lang, RECORDS_ERROR["en"]).format(reason=app.write_error),
        "clock": None
        if s.clock is None
        else {**s.clock.face(app.clock()), "low": app.low_time, "control_text": control_text(s.row.header)},
        "clock_words": wording.words(CLOCK_WORDS, lang),
        "games": [_game_item(r, words, r.id == app.training_mode.left) for r in app.recent_games()],
        "assignment": _assignment_state(app, words),
        "studies": [_kept_item(r, words) for r in app.kept_studies()],
        "analyses": [_analysis_item(r) for r in app.kept_analyses()],  # analyses on the board, left
        "spoken": app.speech.recent(lang),  # what the board said (the page's live region)
        "voice": app.speech.speaker is not None,
    }


def _raw(app: PlayApp) -> set[int]:
    """The squares the board senses occupied: as journalled in the game, or, while the game's
    position is put back after an analysis on the board (nothing journalled), as they are."""
    return set(app.io.occupied()[0]) if app.analysis_mode.returning else app.session.raw


#: a set-up report naming at most this many squares offers "the sensor under ... is broken"
BROKEN_OFFERED = 2


def _confirm(report: Report, pos: Position, held: str | None = None) -> dict[str, Any] | None:
    """What the page may answer to ``report`` (the ``confirm`` action): the moves a board with a
    sensor that may not answer cannot tell apart, or the squares of a set-up that a stuck
    sensor may keep from completing (one whose sensor the player says is broken). ``held``:
    the move the page answered, which the referee holds until it sees the piece set down."""
    if report.kind is ReportKind.SENSOR_CONFIRM:
        texts, answers = report.params.get("choices", ()), report.params.get("moves", ())
        moves = [{"text": t, "move": m} for t, m in zip(texts, answers, strict=False)]
        return {
            "moves": moves,
            "squares": [],
            "wait": bool(report.params.get("wait")),  # nothing is read until the page answers
            "held": next((m["text"] for m in moves if m["move"] == held), None),
        }
    if report.kind is ReportKind.SETUP and 0 < len(report.missing) + len(report.extra) <= BROKEN_OFFERED:
        squares = sorted({*report.missing, *report.extra})
        return {"moves": [], "squares": [{"square": q, "name": pos.square_text(q)} for q in squares]}
    return None


def _game_item(row: GameRow, words: dict[str, str], aside: bool = False) -> dict[str, Any]:
    """A recent game as the page lists it (one left unfinished can be resumed; ``aside``: the game
    a training under way left, played on when it stops — kept aside, not left unfinished)."""
    state = "aside" if aside else "playing" if row.state == "in play" else row.state
    return {
        "id": row.id,
        "variant": row.variant,
        "title": words.get(f"variant_{row.variant}", row.variant),
        "white": row.tags.get("White", "?"),
        "black": row.tags.get("Black", "?"),
        "date": row.tags.get("Date", ""),
        "result": row.result,
        "state": state,
        "state_text": words.get(f"state_{state}", state),
        "plies": row.moves,
        "plies_text": words["plies_one"] if row.moves == 1 else words["plies"].format(count=row.moves),
        "resumable": row.state in (ABANDONED, INTERRUPTED) and not aside,
    }


def _assignment_state(app: PlayApp, words: dict[str, str]) -> dict[str, Any] | None:
    """The tournament hall's next game for this board while it waits (None: none waits): for the
    end of the game in play, of a training, or of an analysis on the board."""
    data = None if app.publisher is None else app.publisher.assignment
    if data is None:
        return None
    names = {k: str(data.get(k) or "?") for k in ("white", "black")}
    head = words["assigned_round"] if data.get("round") not in (None, "") else words["assigned"]
    busy = app.busy()
    why = words["assigned_training" if busy == "a training" else "assigned_analysis" if busy else "assigned_game"]
    return {"round": data.get("round"), **names, "text": f"{head.format(round=data.get('round'), **names)} — {why}"}


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
    lines = _mark_lines(a.marks, lang)
    return {
        "done": a.done,
        "total": a.total,
        "finished": a.finished,
        "error": a.error,
        "lines": lines,
        # the graph: the value after each ply from White's side (hundredths, ±GRAPH_CAP), the marked plies
        "curve": [max(-GRAPH_CAP, min(GRAPH_CAP, v)) for v in a.curve],
        "marked": {m.ply: m.symbol for m in a.marks},
    }


def _mark_lines(marks: list[Mark], lang: str) -> list[str]:
    """The marked moves as the page lists them: ``12. c3-d4? a mistake: better 12. a3-b4``."""
    words = wording.words(UI, lang)
    return [
        f"{m.number} {m.played}{m.symbol} {words['mark_' + m.kind]}: {words['better']} {m.number} {m.better}"
        for m in marks
    ]


def _study_analysis(app: PlayApp, lang: str) -> dict[str, Any] | None:
    """The analysis of the study's game: under way (``done`` of ``total``), finished with its
    marked moves, or failed; None when it was never analysed."""
    a = app.study_analysis()
    if a is None:
        return None
    return {
        "done": a.done,
        "total": a.total,
        "finished": a.finished,
        "error": a.error,
        "lines": _mark_lines(a.marks, lang) if a.finished else [],
    }


def _line_end(app: PlayApp, lang: str) -> dict[str, str] | None:
    """The result the variant's rules give the study's line at the position shown (its draw rules
    counted from the study's start), and why; None while the line goes on."""
    game = app.analysis_mode.game()
    outcome = game.outcome()
    if outcome is None:
        return None
    why = outcome.termination.value
    return {
        "result": outcome.result(game.variant),
        "termination": why,
        "text": wording.words(TERMINATIONS, lang).get(why, why),
    }


def _analysis_item(row: GameRow) -> dict[str, Any]:
    """An analysis on the board that was left, as the page lists it: its players, when it ended,
    the study its lines went into (opened again with the action study/open's study)."""
    study = row.header.get("study")
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.ended)) if row.ended else ""
    return {
        "id": row.id,
        "white": row.tags.get("White", "?"),
        "black": row.tags.get("Black", "?"),
        "ended": when,
        "study": study if isinstance(study, int) and not isinstance(study, bool) else None,
    }


def _kept_item(row: StudyRow, words: dict[str, str]) -> dict[str, Any]:
    """A kept study as the page lists it (the action study/open with its id opens it again)."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.updated)) if row.updated else ""
    return {
        "id": row.id,
        "title": row.title,
        "moves": row.moves,
        "moves_text": words["plies_one"] if row.moves == 1 else words["plies"].format(count=row.moves),
        "updated": when,
    }


def _study_state(app: PlayApp, lang: str) -> dict[str, Any] | None:
    """The study open on the page: its tree as text, the position shown and its legal moves."""
    study = app.analysis_mode.study
    if study is None:
        return None
    node = study.current
    pos = node.position
    moves = []
    for m in pos.legal_moves:
        path = pos.routes(m)[0].path
        moves.append(
            {"pdn": pos.pdn(m), "from": path[0], "to": path[-1], "path": list(path), "captured": sorted(m.captured)}
        )
    return {
        "id": app.analysis_mode.study_id,  # its row in the records (a study kept: the action study/open's study)
        "title": f"{study.tags.get('White', '?')} – {study.tags.get('Black', '?')}",
        "result": study.result,
        "tokens": study.tokens(),
        "current": node.id,
        "line": [n.id for n in node.path()],
        "fen": pos.fen(),
        "turn": pos.turn.value,
        "last": None
        if node.move is None
        else {"path": list(node.parent.position.routes(node.move)[0].path)}
        if node.parent is not None
        else None,
        "moves": moves,
        "parent": None if node.parent is None else node.parent.id,
        "next": node.children[0].id if node.children else None,
        "version": app.analysis_mode.version,
        "on_board": app.analysis_mode.board is not None,  # its moves are made on the board (the page shows the board)
        # the evaluation graph of the game it was opened from (its analysis, under way or kept):
        # ``curve`` after each ply of the main line, ``marked`` plies, ``nodes`` the line's ids
        "graph": app.study_graph(),
        # how the rules end the line shown (a win, or a draw by a rule: the line goes on all the same)
        "line_end": _line_end(app, lang),
        "source": study.source,  # the recorded game it was opened from (None: a PDN, a FEN)
        "analysis": _study_analysis(app, lang),
    }


def _training_state(app: PlayApp, lang: str) -> dict[str, Any]:
    """The sets to train on (the board's variant), and the training under way: what to do now."""
    words = wording.words(UI, lang)
    variant = app.session.row.variant
    games = [f"{g.tags.get('White', '?')} – {g.tags.get('Black', '?')} ({g.result})" for g in shipped_games(variant)]
    out: dict[str, Any] = {"games": games, "tactics": len(shipped_tactics(variant)), "on": False}
    t = app.training_mode.training
    if t is None:
        return out
    verdict = t.verdict()
    guessed = t.right + t.wrong
    return {
        **out,
        "on": True,
        "title": t.title,
        "mode": t.mode,
        "verdict": verdict,
        "text": training_text(app, lang),
        "ply": t.played,
        "total": len(t.line),
        "right": t.right,
        "wrong": t.wrong,
        "score": words["training_score"].format(right=t.right, guessed=guessed) if guessed else "",
        "to_find": verdict in ("guess", "right") and t.lit() is None,  # ("Show the move" gives it up)
    }


def training_text(app: PlayApp, lang: str) -> str:
    """What the training says now (the page, and the board's voice when it changes)."""
    t = app.training_mode.training
    if t is None:
        return ""
    words = wording.words(UI, lang)
    verdict = t.verdict()
    said: list[str] = []
    if verdict in ("right", "solved") and t.last is not None:
        said.append(words["training_right"].format(move=t.move_text(t.last[0])))
    if verdict == "solved" and len(t.line) > 1:
        said.append(words["training_solved"])
    if verdict == "wrong" and t.off is not None:
        key = (
            "training_wrong" if t.mode != "tactic" else "training_wrong_tactic" if t.off == 0 else "training_wrong_next"
        )
        said.append(words[key].format(move=t.move_text(t.off) if t.off < len(t.line) else "—"))
    elif verdict == "failed":
        said.append(words["training_failed"].format(move=t.line_text()))
    elif verdict == "done":
        said.append(words["training_done"])
    lit = t.lit()
    if app.training_mode.restored() and t.off is not None:
        said = [words["training_play"].format(move=t.move_text(t.off))]  # taken back: the line's move to make
    elif lit is not None:
        said.append(words["training_play"].format(move=t.move_text(t.played)))
    elif verdict in ("guess", "right") and not t.finished:
        find = "training_find" if t.played == 0 else "training_find_next"
        said.append(words[find if t.mode == "tactic" else "training_guess"])
    return " ".join(said)


def _study_last(node: Node) -> dict[str, Any] | None:
    """The move that led to the position shown (the board marks its path)."""
    if node.move is None or node.parent is None:
        return None
    return {"path": list(node.parent.position.routes(node.move)[0].path)}


GRAPH_CAP = 1000  # hundredths of a man: the graph's top and bottom (ten men up, or a forced result)


def _live_state(app: PlayApp, lang: str) -> dict[str, Any]:
    """The live analysis (the evaluation bar, its number, the depth and the engine's line)."""
    live = app.live
    out: dict[str, Any] = {"on": live is not None, "allowed": app.live_allowed()}
    if live is None:
        return out
    words = wording.words(UI, lang)
    seen = live.seen()
    out.update(
        error=None if live.error is None else words["engine_failed"].format(error=live.error),
        depth=None,
        score=None,
        bar=50.0,
        text=words["live_wait"],
        line=[],
        numbered="",
    )
    if seen is not None:
        out.update(
            depth=seen.depth,
            score=seen.score,
            bar=bar(seen.score),
            text=eval_text(seen.score, words),
            depth_text=words["live_depth"].format(depth=seen.depth),
            line=list(seen.line),
            numbered=seen.numbered,
        )
    return out


def eval_text(score: int, words: dict[str, str]) -> str:
    """A value for the page: ``+1.2`` (White a man and a bit better), ``0.0``, or a forced result."""
    if score >= MATE_BOUND:
        return words["forced_white"]
    if score <= -MATE_BOUND:
        return words["forced_black"]
    return f"{score / 100:+.1f}" if score else "0.0"


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
        "move_time": ref.computer_move_time if ref.computer is not None else app.computer.settings.move_time,
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


#: reports that are not about the board as it stands (a set-up ends with setup-ok; tournament
#: notices, the clock's and the link's stand), so neither a restored board nor a move ends them
_NOT_BOARD = {
    ReportKind.RESTORED,
    ReportKind.SETUP,
    ReportKind.SETUP_OK,
    ReportKind.TOUCH_MOVE,
    ReportKind.PROCEDURE,
    ReportKind.IRREGULARITY_ACCEPTED,
    ReportKind.RECONSTRUCTED,
    ReportKind.FLAG_FALL,
    *(kind for kind in ReportKind if kind.value.startswith("clock-")),
}
BOARD_KINDS = frozenset(kind.value for kind in ReportKind) - {kind.value for kind in _NOT_BOARD}
#: what ends an earlier report (``move``: a move recorded), and which kinds it ends
RESOLVES = {
    ReportKind.RESTORED.value: BOARD_KINDS,
    "move": BOARD_KINDS,
    ReportKind.SETUP_OK.value: frozenset({ReportKind.SETUP.value}),
    ReportKind.CLOCK_RESUMED.value: frozenset({ReportKind.CLOCK_PAUSED.value}),
}
#: what is never a line of its own (a move is in the move list; a restore with nothing open ended a
#: pause on the way, as a capture's touch-down)
_NEVER_SHOWN = frozenset({ReportKind.RESTORED.value, ReportKind.SETUP_OK.value, "move"})


def fold_reports(reports: Iterable[dict[str, Any]], resolved: str = "resolved") -> list[dict[str, Any]]:
    """The page's list of reports: an entry that ends earlier reports (``restored`` and a ``move``
    end every report about the board still open, ``setup-ok`` a set-up, ``clock-resumed`` a pause)
    is shown on each of them, as its ``resolved`` (kind, message, time, and the ``line`` shown:
    ``resolved``, the word, and the message), not as a line of its own; every other report has
    ``resolved`` None, and each its ``line`` (its label and message, see :func:`line`)."""
    out: list[dict[str, Any]] = []
    for r in reports:
        ends = RESOLVES.get(r["kind"], frozenset())
        earlier = [x for x in out if x["resolved"] is None and x["kind"] in ends]
        for x in earlier:
            x["resolved"] = {
                "kind": r["kind"],
                "message": r["message"],
                "t": r["t"],
                "line": line(resolved, r["message"]),
            }
        if earlier or r["kind"] in _NEVER_SHOWN:
            continue
        out.append({**r, "line": line(r["label"], r["message"]), "resolved": None})
    return out


def _report_items(
    history: Iterable[object], active: Report | None, lang: str, names: Callable[[tuple[int, ...]], str]
) -> list[dict[str, Any]]:
    """The reports of the game (its last 40) and the moves between them, for :func:`fold_reports`.
    A capture paused on a touch-down square is a guidance while it lasts, not a fault: it is shown
    only while it is the active report."""
    kinds = wording.words(KINDS, lang)
    played = wording.words(UI, lang)["resolved_by_move"]
    items: list[dict[str, Any]] = []
    for v in history:
        if isinstance(v, MoveMade):
            items.append({"kind": "move", "label": "", "message": played.format(move=v.pdn), "t": v.t, "squares": []})
        elif isinstance(v, Report) and (kind_of(v) != "capture-continues" or v is active):
            items.append(
                {
                    "kind": v.kind.value,
                    "label": kinds.get(kind_of(v), v.kind.value),
                    "message": message(v, lang, names),
                    "t": v.t,
                    "squares": list(v.squares),
                }
            )
    shown = [i for i, item in enumerate(items) if item["kind"] != "move"][-40:]
    return items[shown[0] :] if shown else []


_ARTICLES = ("a ", "an ", "the ", "o ", "os ", "as ", "um ", "uma ")


def _plain(text: str) -> str:
    low = text.strip().lower()
    for article in _ARTICLES:
        if low.startswith(article):
            return low[len(article) :]
    return low


def line(label: str, text: str) -> str:
    """A label and its text as the page shows them: ``Label: text`` (after the colon the text
    goes on in lower case, as Portuguese writes it), or the text alone, capitalised, when it
    already says what the label says ("a capture is compulsory: ..." under "capture is compulsory").

    >>> line("captura obrigatória", "Captura obrigatória: capture com b4")
    'Captura obrigatória: capture com b4'
    >>> line("relógio apertado sem lance", "As pretas apertaram o relógio")
    'Relógio apertado sem lance: as pretas apertaram o relógio'
    """
    text = text.strip()
    if not label or _plain(text).startswith(_plain(label)):
        return text[:1].upper() + text[1:]
    word = text.split(" ", 1)[0]
    if not (len(word) > 1 and word.isupper()):  # (not a name in capitals: FEN, a square "B4")
        text = text[:1].lower() + text[1:]
    return f"{label[:1].upper()}{label[1:]}: {text}"


def control_text(header: dict[str, Any]) -> str:
    """The game's time control as a player names it: ``FENACEF, 21 min``, ``5 min + 3 s``."""
    text = str(header.get("clock", ""))
    name = header.get("clock_name")
    try:
        periods = parse_control(text).periods
    except ClockError:
        return text
    if len(periods) == 1 and periods[0].moves is None:
        p = periods[0]
        out = f"{p.seconds / TICKS / 60:g} min"
        if p.increment:
            out += f" + {p.increment / TICKS:g} s"
        if p.delay:
            out = text  # (5d3, 5b3: the control's own notation)
    else:
        out = text
    return f"{str(name).upper() if name == 'fenacef' else name}, {out}" if name else out


#: the new-game form's FEN example per variant (valid: tests/app/test_page_form.py reads each)
FEN_EXAMPLES = {
    "brazilian": "W:Wc3,e3,Kg1:Bb6,d6,f8",
    "international": "W:W31-50:B1-20",
    "portuguese": "W:W1-12:B21-32",
}
