"""The talking board's phrases, composed from the rules' positions and moves and the referee's
verdicts, in each language (the words are :mod:`wording.speech`). Pure: every function
takes what it reads and returns text; nothing here says anything.

A move reads as its variant writes it, every landing square of a capture included (the path
PDN writes when the route matters)::

    >>> from rules import Position
    >>> pos = Position.from_fen("W:Wc3:Bd4,f6", "brazilian")
    >>> move = pos.parse_pdn("c3xg7")
    >>> move_phrase("pt-BR", pos, move)
    'Brancas: c3 toma e5, toma g7.'
    >>> move_phrase("en", pos, move)
    'White: c3 takes e5, takes g7.'
    >>> spoken("Brancas: c3 toma e5, toma g7.", "pt-BR")
    'Brancas: cê3 toma é5, toma gê7.'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from referee.clock import TICKS, ClockKeeper, ticks
from referee.vocabulary import Report, ReportKind
from rules import CaptureLaw, Color, DraughtsError, Move, Position
from wording.speech import LETTERS, SPEECH

LANGS = tuple(SPEECH)
_SQUARE = re.compile(r"\b([a-j])(\d{1,2})\b")


def words(lang: str) -> dict[str, str]:
    return SPEECH.get(lang, SPEECH["en"])


def say(lang: str, key: str, **params: object) -> str:
    text = words(lang)[key]
    return text.format(**params) if params else text


def sentence(text: str) -> str:
    """The text with its first letter a capital (``pretas: ...`` -> ``Pretas: ...``); a text
    that starts with a number or a square (``2 peças``, ``c3: ...``) stays as it is."""
    if not text or not text[0].isalpha() or _SQUARE.match(text):
        return text
    return text[0].upper() + text[1:]


def side_name(lang: str, color: Color) -> str:
    return say(lang, color.value)


def join(lang: str, items: Sequence[str], conj: str = "and") -> str:
    """``a``, ``a e b``, ``a, b e c`` (``conj``: ``and`` or ``or``, in the language)."""
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {say(lang, conj)} {items[-1]}"


def squares(pos: Position, qs: Iterable[int], lang: str, conj: str = "and") -> str:
    """The squares in order, joined; in numbers, a run of three or more as ``31 a 50``."""
    ordered = sorted(qs)
    if pos.variant.notation == "algebraic":  # rank by rank from White's side, each from the a-file
        names = sorted((pos.square_text(q) for q in ordered), key=lambda n: (int(n[1:]), n[0]))
        return join(lang, names, conj)
    if conj != "and":
        return join(lang, [pos.square_text(q) for q in ordered], conj)
    runs: list[list[int]] = []
    for q in ordered:
        if runs and q == runs[-1][-1] + 1:
            runs[-1].append(q)
        else:
            runs.append([q])
    items: list[str] = []
    for run in runs:
        if len(run) >= 3:
            items.append(say(lang, "range", first=run[0], last=run[-1]))
        else:
            items += [str(q) for q in run]
    return join(lang, items, conj)


def spoken(text: str, lang: str) -> str:
    """The text as a voice should read it: the letter of an algebraic square by its name
    where the language would read it as a word (``e5`` -> ``é5`` in Portuguese)."""
    letters = LETTERS.get(lang) or {}
    if not letters:
        return text
    return _SQUARE.sub(lambda m: letters.get(m.group(1), m.group(1)) + m.group(2), text)


# -- moves ------------------------------------------------------------------------------------
def path_text(lang: str, pos: Position, path: Sequence[int], capture: bool) -> str:
    """``c3 para d4``; a capture with every landing square: ``c3 toma e5, toma g7``."""
    name = pos.square_text
    if not capture:
        return say(lang, "plain", origin=name(path[0]), target=name(path[-1]))
    parts = [say(lang, "capture_first", origin=name(path[0]), target=name(path[1]))]
    parts += [say(lang, "capture_next", target=name(q)) for q in path[2:]]
    return ", ".join(parts)


def move_text(lang: str, pos: Position, move: Move) -> str:
    """A move of ``pos`` (the position before it), its promotion said after it."""
    text = path_text(lang, pos, move.path, bool(move.captured))
    if move.promotes:
        text += ", " + say(lang, "promoted")
    return text


def move_phrase(lang: str, pos: Position, move: Move) -> str:
    """``Brancas: c3 toma e5, toma g7.``: the side, then its move."""
    return sentence(say(lang, "move", side=side_name(lang, pos.turn), move=move_text(lang, pos, move)))


def pdn_text(lang: str, pos: Position, pdn: str) -> str:
    """A move given as PDN text (the computer's, a reconstructed one) read as a move of ``pos``
    when it is one, else as its squares."""
    try:
        return move_text(lang, pos, pos.parse_pdn(pdn))
    except DraughtsError:
        parts = re.split(r"[-x:]", pdn)
        return path_text(lang, pos, [_number(pos, p) for p in parts], "x" in pdn) if len(parts) > 1 else pdn


def _number(pos: Position, text: str) -> int:
    try:
        return pos.geometry.parse_square(text)
    except (DraughtsError, ValueError):
        return 0


# -- whose turn, and the capture that is compulsory --------------------------------------------
def turn_phrase(lang: str, pos: Position) -> str:
    return sentence(say(lang, "turn", side=side_name(lang, pos.turn)))


def capture_law(pos: Position) -> tuple[int, str | None]:
    """The most pieces a legal capture takes, and the law that rules out other captures
    (``majority``: fewer pieces; ``quality``: Portuguese quality), or None when none is ruled out."""
    legal = pos.capture_moves()
    if not legal:
        return 0, None
    most = max(len(m.captured) for m in legal)
    allowed = {m.key for m in legal}
    ruled_out = [m for m in pos.pseudo_captures() if m.key not in allowed]
    if not ruled_out:
        return most, None
    if any(len(m.captured) < most for m in ruled_out):
        return most, "majority"
    return most, "quality" if pos.variant.capture_law is CaptureLaw.QUANTITY_QUALITY else "majority"


def law_phrase(lang: str, pos: Position) -> str:
    most, law = capture_law(pos)
    if law == "majority":
        return say(lang, "law_majority", count=most)
    if law == "quality":
        return say(lang, "law_quality")
    return ""


def must_capture_phrase(lang: str, pos: Position) -> str:
    """``Captura obrigatória para as pretas, com b6. 2 peças, pela lei da maioria.`` (empty
    when no capture is compulsory)."""
    legal = pos.capture_moves()
    if not legal:
        return ""
    pieces = squares(pos, {m.from_square for m in legal}, lang, "or")
    text = sentence(say(lang, "must_capture", side=side_name(lang, pos.turn), pieces=pieces))
    law = law_phrase(lang, pos)
    return f"{text} {sentence(law)}" if law else text


# -- the clock -------------------------------------------------------------------------------------
def duration(lang: str, seconds: float) -> str:
    """``4 minutos e 10 segundos`` (whole seconds, rounded up while under a minute)."""
    total = max(0, int(seconds + 0.999) if seconds < 60 else int(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    parts = []
    for n, unit in ((h, "hours"), (m, "minutes"), (s, "seconds")):
        if n:
            parts.append(say(lang, f"{unit}_one") if n == 1 else say(lang, f"{unit}_many", n=n))
    return join(lang, parts or [say(lang, "seconds_many", n=0)])


def clocks_phrase(lang: str, keeper: ClockKeeper, now: float) -> str:
    c = keeper.clock
    t = ticks(now)
    text = say(
        lang,
        "clocks",
        white=duration(lang, c.remaining(Color.WHITE, t) / TICKS),
        black=duration(lang, c.remaining(Color.BLACK, t) / TICKS),
    )
    if c.paused:
        text += " " + say(lang, "clocks_paused")
    return text


def low_time_phrase(lang: str, side: Color, seconds: float) -> str:
    return sentence(say(lang, "low_time", side=side_name(lang, side), time=duration(lang, seconds)))


# -- the end -------------------------------------------------------------------------------------
def result_phrase(lang: str, winner: Color | None, termination: str) -> str:
    """``Fim da partida: vitória das brancas. As pretas não têm lance.``"""
    key = f"why_{termination}"
    loser = winner.other if winner is not None else None
    why = words(lang).get(key, "")
    why = sentence(why.format(loser=side_name(lang, loser) if loser else "")) if why else ""
    if winner is None:
        return say(lang, "result_draw", why=why).strip()
    return say(lang, "result_win", winner=side_name(lang, winner), why=why).strip()


# -- reports ---------------------------------------------------------------------------------------
def report_phrase(lang: str, report: Report, pos: Position) -> str:
    """What went wrong, then how to put it right: ``Lance ilegal. Recoloque em c3.``"""
    kind = report.kind.value
    p = report.params
    if report.kind is ReportKind.REQUIRED_CAPTURE and "at" in p:
        nxt = p.get("next") or ()
        at = p["at"]
        text = say(
            lang,
            "report_capture-continues",
            at=pos.square_text(at) if isinstance(at, int) else "-",
            next=squares(pos, [q for q in nxt if isinstance(q, int)], lang, "or"),
        )
        return sentence(text)
    if report.kind is ReportKind.COMPUTER_MOVE and not p.get("move"):
        kind = "computer-wait"
    if report.kind is ReportKind.SENSOR_CONFIRM and p.get("wait"):
        kind = "sensor-confirm-wait"  # nothing is read until the page answers
    side = p.get("side")
    color = Color(side) if side in ("white", "black") else pos.turn
    fields: dict[str, object] = {
        "squares": squares(pos, report.squares, lang),
        "side": side_name(lang, color),
        "other": side_name(lang, color.other),
        "cells": join(lang, sorted(report.cells)),
        "moves": join(lang, [pdn_text(lang, pos, str(m)) for m in p.get("moves", ())]),
        "move": pdn_text(lang, pos, str(p["move"])) if p.get("move") else "",
        "at": "",
        "next": "",
    }
    parts = [sentence(say(lang, f"report_{kind}", **_used(lang, f"report_{kind}", fields)))]
    if report.kind is ReportKind.REQUIRED_CAPTURE:
        law = law_phrase(lang, pos)
        if law:
            parts.append(sentence(law))
    if report.kind is ReportKind.WRONG_SIDE:
        parts[0] = sentence(say(lang, "report_wrong-side", side=side_name(lang, pos.turn)))
    if report.missing:
        parts.append(sentence(say(lang, "put_back", squares=squares(pos, report.missing, lang))))
    if report.extra:
        parts.append(sentence(say(lang, "take_off", squares=squares(pos, report.extra, lang))))
    return " ".join(parts)


def _used(lang: str, key: str, fields: dict[str, object]) -> dict[str, object]:
    text = words(lang)[key]
    return {k: v for k, v in fields.items() if "{" + k + "}" in text}


#: the reports said at once, before what waits (something is wrong on the board, or time is up)
URGENT = frozenset(
    {
        ReportKind.REQUIRED_CAPTURE,
        ReportKind.WRONG_SIDE,
        ReportKind.BACKWARD_MAN,
        ReportKind.ILLEGAL_SQUARE,
        ReportKind.NO_LEGAL_MOVE,
        ReportKind.OFF_SQUARE,
        ReportKind.OWN_PIECE_REMOVED,
        ReportKind.WRONG_PIECE_REMOVED,
        ReportKind.CAPTURED_PIECE_LEFT,
        ReportKind.KNOCKED_OVER,
        ReportKind.UNEXPLAINED,
        ReportKind.LINK_GAP,
        ReportKind.FLAG_FALL,
        ReportKind.COMPUTER_MOVE,
        ReportKind.GAME_OVER,
        ReportKind.WRONG_PIECE,
        ReportKind.PIECES_SWAPPED,
        ReportKind.LOST_CROWN,
        ReportKind.EXTRA_CROWN,
    }
)
#: the clock's reports (said when the clock is, ``[speech] say``)
CLOCK_REPORTS = frozenset(
    {
        ReportKind.CLOCK_EARLY,
        ReportKind.CLOCK_NO_MOVE,
        ReportKind.CLOCK_WRONG_SIDE,
        ReportKind.CLOCK_NOT_PRESSED,
        ReportKind.FLAG_FALL,
        ReportKind.CLOCK_PAUSED,
        ReportKind.CLOCK_RESUMED,
        ReportKind.CLOCK_ADJUSTED,
    }
)


# -- on demand: a lifted piece, the pieces to take off, the whole position -------------------------
def lift_phrase(lang: str, pos: Position, square: int, *, destinations: bool) -> str:
    """A piece held up: its square, then where it can go (``c3: d4 ou b4.``; a capture by
    its path; ``destinations`` False — tournament — the square alone, and ``dama`` for a king)."""
    name = pos.square_text(square)
    piece = pos.piece_at(square)
    if not destinations:
        return sentence(say(lang, "lift_king" if piece is not None and piece.king else "lift_held", square=name))
    moves = [m for m in pos.legal_moves if m.from_square == square]
    if not moves:
        return sentence(say(lang, "lift_none", square=name))
    if moves[0].captured:
        routes = [r for m in moves for r in pos.routes(m)]
        # each route without its origin (said first): "toma e5, toma g7; ou toma a5"
        targets = f"; {say(lang, 'or')} ".join(path_text(lang, pos, r.path, True).split(" ", 1)[1] for r in routes)
    else:
        targets = squares(pos, {m.to_square for m in moves}, lang, "or")
    return sentence(say(lang, "lift_moves", square=name, targets=targets))


def remove_phrase(lang: str, pos: Position, qs: Iterable[int]) -> str:
    return sentence(say(lang, "remove", squares=squares(pos, qs, lang)))


def pieces_phrase(lang: str, pos: Position, color: Color) -> str:
    """``Brancas: 11 peças em a1, c1 ...; uma dama em h8.``"""
    parts = []
    for king, one, many in ((False, "men_one", "men_many"), (True, "kings_one", "kings_many")):
        qs = pos.squares(color, king)
        if qs:
            listed = squares(pos, qs, lang)
            n = len(qs)
            parts.append(say(lang, one, squares=listed) if n == 1 else say(lang, many, count=n, squares=listed))
    pieces = "; ".join(parts) or say(lang, "no_pieces")
    return sentence(say(lang, "side_pieces", side=side_name(lang, color), pieces=pieces))


#: what a read-out may be asked for: everything (the gesture, the page's R), the last move
#: (L), the clocks (C), the pieces (P)
READ_OUT_PARTS = ("all", "last", "clocks", "position")


def read_out(
    lang: str,
    pos: Position,
    last: tuple[Position, Move] | None,
    keeper: ClockKeeper | None,
    now: float,
    part: str = "all",
) -> str:
    """The read-out: whose turn (and a compulsory capture), the last move, both clocks, then
    the pieces of each side by square — short first, details after. ``part`` asks for one of
    them only (:data:`READ_OUT_PARTS`): ``last`` the turn and the last move, ``clocks`` both
    clocks, ``position`` the turn and the pieces."""
    if part not in READ_OUT_PARTS:
        raise ValueError(f"no read-out part {part!r} (one of {', '.join(READ_OUT_PARTS)})")
    if part == "clocks":
        return clocks_phrase(lang, keeper, now) if keeper is not None else say(lang, "no_clock")
    parts = [turn_phrase(lang, pos)]
    must = must_capture_phrase(lang, pos)
    if must:
        parts.append(must)
    if part in ("all", "last"):
        if last is None:
            parts.append(say(lang, "no_move_yet"))
        else:
            before, move = last
            side = side_name(lang, before.turn)
            parts.append(say(lang, "last_move", side=side, move=move_text(lang, before, move)))
    if part == "all" and keeper is not None and keeper.clock.started:
        parts.append(clocks_phrase(lang, keeper, now))
    if part in ("all", "position"):
        parts += [pieces_phrase(lang, pos, Color.WHITE), pieces_phrase(lang, pos, Color.BLACK)]
    return " ".join(parts)
