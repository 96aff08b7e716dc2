"""The event log (DESIGN.md §4, a public contract): JSON lines of what the board saw
and what the players entered.

    {"format": 1, "variant": "brazilian", "fen": "W:W21-32:B1-12", "mode": "casual"}
    {"t": 0.000, "square": 22, "event": "lift"}
    {"t": 0.640, "square": 17, "event": "place"}
    {"t": 9.120, "cell": "b1", "event": "place"}
    {"t": 95.00, "action": "resign", "side": "black"}
    {"t": 0.010, "action": "computer", "side": "black", "level": 3}
    {"t": 12.40, "action": "computer-move", "move": "9-13"}
    {"t": 20.00, "action": "confirm", "move": "21-17"}
    {"t": 21.00, "action": "confirm", "square": 15}
    {"t": 25.00, "action": "sensor-repaired", "square": 15}
    {"t": 30.00, "action": "position", "fen": "W:W21,22:B5,9"}
    {"t": 97.50, "link": "down"}
    {"t": 130.2, "link": "up", "board": [1, 2, 3, 18], "cells": ["b1"]}
    {"t": 130.2, "link": "reconstructed", "moves": ["c3-d4", "f6-e5"]}
    {"t": 131.0, "action": "clock", "side": "white", "source": "button"}
    {"t": 140.0, "action": "clock-pause", "source": "arbiter"}
    {"t": 150.0, "action": "clock-adjust", "white": 600, "black": 540.5}
    {"t": 155.0, "action": "clock-resume", "source": "arbiter"}
    {"t": 900.2, "action": "flag", "side": "black"}

``computer`` lines: the computer plays ``side`` (at ``level``, 1-10) from then on; without
``side``, nobody any more (its engine failed: the players go on). ``move_time`` (optional,
seconds a move): its strength was chosen by time, not by the level (readers before it ignore it,
and play at the level). ``computer-move``: the
computer's move in the position of that moment (``from-to``, or ``fromxtoxcaptured...`` in
square numbers); the referee accepts only that move from the hands on the computer's turn
(``referee.expect``). Readers before these lines refuse them as unknown actions.

``position`` lines (issue 28, the analysis mode on the board): the game starts again from
``fen`` (the players set up another position of the study; the referee lights the set-up and
checks it), as ``new-game`` does from the header's. Readers before these lines refuse them as
unknown actions.

``confirm`` lines (issue 31): the page answered a ``sensor-confirm`` report with the move
played (square numbers, as ``computer-move``), or said that the sensor under ``square`` is
broken. Readers before these lines refuse them as unknown actions.

``sensor-repaired`` lines (issue 31): the player said the sensor under ``square`` was repaired
(or the board read it as the game had it again): the referee reads it again from then on, as any
other (the moves recorded before stay as they were). Readers before these lines refuse them as
unknown actions.

``link`` lines (a board behind a link, e.g. the Pico's serial line): the link went
``down``; it is ``up`` again with the whole occupancy then (``board``: occupied squares,
``cells``: occupied non-playing cells, optional) — also written without a ``down`` when
frames were lost on a noisy line, with ``lost``, how many (at most that many moves can hide
in such a gap); ``reconstructed`` notes the moves an ``up`` recorded
(the replay derives them again from the ``up``).

``clock`` actions (the game clock, ``referee/clock.py``): a press of ``side``'s button
(``source``: ``button``, ``pico`` or ``page``); ``clock-pause`` and ``clock-resume``
(``source``: ``arbiter``, or ``power``: the clocks were paused when play resumed after the
program stopped); ``clock-adjust`` (``white``/``black``: the seconds each clock shows from
then on, either may be left out); ``flag``, a note that ``side``'s time ran out then (the
replay derives it from the times). The header's ``clock`` names the time control
(``"21"``, ``"5+3"``, ``"40/90,30+30"``...; none: no clock) and ``clock_auto`` (casual
mode) whether a recorded move presses the clock by itself (such presses are not logged);
``clock_name``, when the control was chosen by a name (``"fenacef"``), that name.

The header is optional. An optional header field ``board`` lists the occupied squares
when the log starts (default: the start position, already set up); ``broken`` (issue 31) the
squares whose sensor ``damas selftest`` found broken when the game started (the referee plays
around them from the first move; readers before it ignore it, as any unknown header field). A malformed log
raises :class:`LogError` naming the line.

**Format 2** (a board that senses colour, ``referee/colour.py``; readers of format 1 refuse
it as an unsupported format, and a board that senses presence only still writes format 1):

    {"format": 2, "variant": "brazilian", "senses": "crown", "pieces": {"w": [21, 22], "b": [1, 2]}}
    {"t": 3.210, "square": 22, "event": "lift"}
    {"t": 3.905, "square": 18, "event": "place", "piece": "w"}
    {"t": 9.000, "square": 18, "event": "place", "piece": "W"}     a crown put on: 18 stays occupied
    {"t": 130.2, "link": "up", "board": [1, 18], "pieces": {"b": [1], "W": [18]}}

The header's ``senses`` says what the board tells (``colour``, or ``crown``: colour and
crown) and ``pieces`` what stood where when the log began (by piece letter: ``w``/``b``
men, ``W``/``B`` kings, ``?`` a piece the board could not read). A ``place`` carries the
piece put down (``piece``), also a change of piece on a square that stays occupied; a
``link`` ``up`` line the pieces then.

**Format 3** (since issue 29: the game's id across databases; readers of formats 1 and 2
refuse it as an unsupported format): a format 1 or format 2 header with ``uid``, the game's id
``<database>-<game>`` (the database's own id, made once, and the game's number in it: the id a
board's messages to the tournament hall carry, ``docs/hall.md``; a fresh SD card makes a new
database id, so two games never share one). ``senses`` and ``pieces`` are as in format 2, and
optional: without them the board senses presence only. Everything else is as in formats 1
and 2; ``damas play`` writes format 3 for every game it starts, and logs of formats 1 and 2
are read as before.

    {"format": 3, "variant": "brazilian", "mode": "casual", "uid": "Yq3v0sXb2mWc9KfA-12"}

What a reader refuses (one line each, naming the line): a line longer than 64 KiB; text
that is not JSON, including numbers of more than 4300 digits and nesting too deep for
the parser; ``NaN`` and ``Infinity`` anywhere (JSON has no such numbers; the recorder
never writes them); a time ``t`` that is not a finite number, or that goes backwards
(the recorder clamps its clock, so a log it wrote never does); squares outside the
board, in events and in the header's ``board``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from board_hal.debounce import Transition
from board_hal.squares import CODES, SquareState
from referee.clock import MAX_CLOCK_SECONDS, SOURCES, ClockAction, ClockError, parse_control
from referee.core import Action, Link
from referee.vocabulary import ACTIONS, CLOCK_ACTIONS, LINK_STATES, MODES, ClockActionName, Mode, known
from rules import Color, DraughtsError, Geometry, Position, find_variant, geometry_for, parse_result
from rules.errors import shown

LOG_FORMAT = 1
#: the format of a log of a board that senses colour (pieces on its places and in its header)
COLOUR_FORMAT = 2
#: the format of a log whose header names the game's id across databases (``uid``)
UID_FORMAT = 3
FORMATS = (LOG_FORMAT, COLOUR_FORMAT, UID_FORMAT)
UID_RE = re.compile(r"[A-Za-z0-9_-]{1,60}-[0-9]{1,19}")  # <database>-<game>
SENSES = ("colour", "crown")
_MOVE = re.compile(r"[0-9]{1,2}(-[0-9]{1,2}|(x[0-9]{1,2}){2,})")
MAX_LINE = 64 * 1024  # characters of one line of a log
MAX_MOVE_TIME = 3600.0  # seconds: a ``computer`` line's longest ``move_time``


def _float(value: int | float) -> float:
    try:
        return float(value)
    except OverflowError:  # an integer beyond any float
        return math.inf


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number in an event log")


class LogError(ValueError):
    """A malformed event log; the message names the line."""

    def __init__(self, line: int, message: str, source: str = "log") -> None:
        self.line = line
        super().__init__(f"{source}:{line}: {message}")


@dataclass
class LogHeader:
    format: int = LOG_FORMAT
    variant: str | None = None
    fen: str | None = None
    mode: Mode | None = None
    board: list[int] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    #: format 2: what the board senses (``colour`` or ``crown``), and the pieces when the log began
    senses: str | None = None
    pieces: dict[int, SquareState] | None = None
    #: squares whose sensor the self-test found broken (the referee plays around them: issue 31)
    broken: list[int] | None = None
    #: format 3: the game's id across databases (``<database>-<game>``)
    uid: str | None = None

    def to_json(self) -> dict[str, Any]:
        fmt = UID_FORMAT if self.uid else COLOUR_FORMAT if self.senses else self.format
        out: dict[str, Any] = {"format": fmt}
        for key in ("variant", "fen", "mode", "board", "senses", "uid", "broken"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.pieces is not None:
            out["pieces"] = pieces_to_json(self.pieces)
        out.update(self.extra)
        return out


def pieces_to_json(pieces: dict[int, SquareState]) -> dict[str, list[int]]:
    """Pieces by letter (``{"w": [21, 22], "B": [3]}``), as format 2 writes them."""
    out: dict[str, list[int]] = {}
    for sq, state in sorted(pieces.items()):
        if state.occupied:
            out.setdefault(state.code, []).append(sq)
    return out


def _pieces(obj: Any, count: int, n: int, source: str, where: str) -> dict[int, SquareState]:
    if not isinstance(obj, dict):
        raise LogError(n, f"'{where}' must be pieces by letter (w, b, W, B, ?), not {shown(obj)}", source)
    out: dict[int, SquareState] = {}
    for code, squares in obj.items():
        if code not in CODES or code == ".":
            raise LogError(n, f"'{where}': {shown(code)} is not a piece letter (w, b, W, B, ?)", source)
        if not isinstance(squares, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= count for x in squares
        ):
            raise LogError(n, f"'{where}': {code} must list square numbers (1-{count}), not {shown(squares)}", source)
        for sq in squares:
            if sq in out:
                raise LogError(n, f"'{where}' puts two pieces on square {sq}", source)
            out[sq] = SquareState.from_code(code)
    return out


LogEvent = Transition | Action | Link | ClockAction


def event_to_json(ev: LogEvent) -> dict[str, Any]:
    if isinstance(ev, ClockAction):
        return ev.to_json()
    if isinstance(ev, Link):
        link: dict[str, Any] = {"t": round(ev.t, 4), "link": ev.state}
        if ev.state == "up":
            link["board"] = sorted(ev.board)
            if ev.cells:
                link["cells"] = sorted(ev.cells)
            if ev.lost is not None:
                link["lost"] = ev.lost
            if ev.pieces:
                link["pieces"] = pieces_to_json(dict(ev.pieces))
        if ev.state == "reconstructed":
            link["moves"] = list(ev.moves)
        return link
    if isinstance(ev, Action):
        out: dict[str, Any] = {"t": round(ev.t, 4), "action": ev.action}
        if ev.side is not None:
            out["side"] = ev.side.value
        if ev.result is not None:
            out["result"] = ev.result
        if ev.move is not None:
            out["move"] = ev.move
        if ev.level is not None:
            out["level"] = ev.level
        if ev.square is not None:
            out["square"] = ev.square
        if ev.move_time is not None:
            out["move_time"] = ev.move_time
        if ev.fen is not None:
            out["fen"] = ev.fen
        return out
    where = "cell" if isinstance(ev.key, str) else "square"
    out = {"t": round(ev.t, 4), where: ev.key, "event": "place" if ev.occupied else "lift"}
    if ev.piece is not None and ev.occupied:
        out["piece"] = ev.piece.code
    return out


def dump_log(header: LogHeader | None, events: Iterable[LogEvent]) -> str:
    lines = [json.dumps(header.to_json())] if header is not None else []
    lines += [json.dumps(event_to_json(ev)) for ev in events]
    return "\n".join(lines) + "\n"


def parse_log(
    lines: Iterable[str], source: str = "log", variant: str | None = None
) -> tuple[LogHeader, list[LogEvent]]:
    """Read a log; ``variant`` (if given) overrides the header's for checking squares."""
    header = LogHeader()
    events: list[LogEvent] = []
    last_t = -math.inf
    squares = None
    for n, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        if len(text) > MAX_LINE:
            raise LogError(n, f"line longer than {MAX_LINE // 1024} KiB", source)
        try:
            obj = json.loads(text, parse_constant=_no_constant)
        except json.JSONDecodeError as exc:
            raise LogError(n, f"not JSON: {exc.msg} in {text[:60]!r}", source) from None
        except ValueError as exc:  # NaN/Infinity, or an integer of more than 4300 digits
            raise LogError(n, f"not JSON: {str(exc).splitlines()[0][:80]} in {text[:60]!r}", source) from None
        except RecursionError:
            raise LogError(n, f"not JSON: nested too deeply in {text[:60]!r}", source) from None
        if not isinstance(obj, dict):
            raise LogError(n, f"expected a JSON object, got {text[:60]!r}", source)
        if "t" not in obj:
            if events or (n > 1 and header.format not in FORMATS):
                raise LogError(n, f"line without a time 't': {text[:60]!r}", source)
            header = _header(obj, n, source)
            continue
        t = obj["t"]
        if not isinstance(t, (int, float)) or isinstance(t, bool):
            raise LogError(n, f"time must be a number, not {shown(t)}", source)
        if not math.isfinite(_float(t)):
            raise LogError(n, f"time must be a finite number, not {shown(t)}", source)
        t = float(t)
        if t < last_t:
            raise LogError(n, f"time goes backwards: {t} after {last_t}", source)
        last_t = t
        if squares is None:
            squares = _geometry(variant or header.variant, n, source)
            if header.board is not None:
                _check_board(header.board, squares.count, n, source)
            if header.pieces is not None:
                _check_board(sorted(header.pieces), squares.count, n, source)
        clock_action = known(obj.get("action"), CLOCK_ACTIONS)
        if clock_action is not None:
            events.append(_clock_action(clock_action, obj, float(t), n, source))
            continue
        if "action" in obj:
            events.append(_action(obj, float(t), n, source, variant or header.variant))
            continue
        if "link" in obj:
            link = _link(obj, float(t), n, source, squares)
            if "pieces" in obj and header.senses and link.state == "up":
                got = _pieces(obj["pieces"], squares.count, n, source, "pieces")
                if set(got) != set(link.board):
                    raise LogError(n, "'pieces' must name the squares of 'board'", source)
                link = dataclasses.replace(link, pieces=tuple(sorted(got.items())))
            events.append(link)
            continue
        ev = obj.get("event")
        if ev not in ("lift", "place"):
            raise LogError(n, f"unknown event {shown(ev)} (lift or place)", source)
        if "square" in obj:
            sq = obj["square"]
            if not isinstance(sq, int) or isinstance(sq, bool) or not 1 <= sq <= squares.count:
                raise LogError(n, f"square out of range: {shown(sq)} (1-{squares.count})", source)
            events.append(Transition(float(t), sq, ev == "place", _piece(obj, ev == "place", header, n, source)))
        elif "cell" in obj:
            name = _cell(squares, obj["cell"], n, source, "give its number as 'square'")
            events.append(Transition(float(t), name, ev == "place"))
        else:
            raise LogError(n, f"event without 'square' or 'cell': {text[:60]!r}", source)
    if squares is None and header.board is not None:  # a header without events
        _check_board(header.board, _geometry(variant or header.variant, 1, source).count, 1, source)
    return header, events


def _piece(obj: dict[str, Any], placed: bool, header: LogHeader, n: int, source: str) -> SquareState | None:
    """A square event's piece: in a format-2 log a place names it (a lift empties the square);
    in format 1 there is none."""
    code = obj.get("piece")
    if not header.senses:
        if code is not None:
            raise LogError(n, "'piece' in a log of a board that senses presence only (format 1)", source)
        return None
    if not placed:
        if code is not None:
            raise LogError(n, "a lift names no 'piece'", source)
        return SquareState.EMPTY
    if code is None:
        return SquareState.OCCUPIED  # a place the board could not read
    if not isinstance(code, str) or code not in CODES or code == ".":
        raise LogError(n, f"'piece' must be a piece letter (w, b, W, B, ?), not {shown(code)}", source)
    return SquareState.from_code(code)


def _geometry(name: str | None, n: int, source: str) -> Geometry:
    try:
        return geometry_for(find_variant(name or "brazilian"))
    except DraughtsError as exc:
        raise LogError(n, str(exc), source) from None


def _check_board(board: list[int], count: int, n: int, source: str) -> None:
    bad = [sq for sq in board if not 1 <= sq <= count]
    if bad:
        raise LogError(n, f"'board' holds squares that are not on the board: {shown(bad)} (1-{count})", source)
    if len(set(board)) != len(board):
        raise LogError(n, "'board' lists a square twice", source)


def _header(obj: dict[str, Any], n: int, source: str) -> LogHeader:
    h = LogHeader()
    fmt = obj.get("format", LOG_FORMAT)
    if fmt not in FORMATS or isinstance(fmt, bool):
        raise LogError(n, f"unsupported log format {shown(fmt)} (this reads formats 1, 2 and 3)", source)
    h.format = fmt
    variant = obj.get("variant")
    if variant is not None:
        if not isinstance(variant, str):
            raise LogError(n, f"'variant' must be a name, not {shown(variant)}", source)
        try:
            h.variant = find_variant(variant).name
        except DraughtsError as exc:
            raise LogError(n, str(exc), source) from None
    mode = obj.get("mode")
    h.mode = known(mode, MODES)
    if mode is not None and h.mode is None:
        raise LogError(n, f"unknown mode {shown(mode)} ({' or '.join(MODES)})", source)
    fen = obj.get("fen")
    if fen is not None:
        if not isinstance(fen, str):
            raise LogError(n, f"'fen' must be text, not {shown(fen)}", source)
        try:
            Position.from_fen(fen, h.variant or "brazilian")
        except DraughtsError as exc:
            raise LogError(n, str(exc), source) from None
        h.fen = str(fen)
    clock = obj.get("clock")
    if clock is not None:
        try:
            parse_control(clock)
        except ClockError as exc:
            raise LogError(n, str(exc), source) from None
    auto = obj.get("clock_auto")
    if auto is not None and not isinstance(auto, bool):
        raise LogError(n, f"'clock_auto' must be true or false, not {shown(auto)}", source)
    board = obj.get("board")
    if board is not None:
        if not isinstance(board, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in board):
            raise LogError(n, f"'board' must be a list of square numbers, not {shown(board)}", source)
        h.board = list(board)
    senses = obj.get("senses")
    if fmt == COLOUR_FORMAT or (fmt == UID_FORMAT and (senses is not None or "pieces" in obj)):
        if senses not in SENSES:
            what = "log" if fmt == COLOUR_FORMAT else "colour log"
            raise LogError(n, f"a format-{fmt} {what} needs 'senses': 'colour' or 'crown', not {shown(senses)}", source)
        h.senses = senses
        if "pieces" in obj:
            count = _geometry(h.variant, n, source).count
            h.pieces = _pieces(obj["pieces"], count, n, source, "pieces")
    elif senses is not None or "pieces" in obj:
        raise LogError(n, "'senses' and 'pieces' belong to formats 2 and 3 (a board that senses colour)", source)
    if fmt == UID_FORMAT:
        uid = obj.get("uid")
        if not isinstance(uid, str) or not UID_RE.fullmatch(uid):
            raise LogError(n, f"a format-3 log needs 'uid': <database>-<game>, not {shown(uid)}", source)
        h.uid = uid
    broken = obj.get("broken")
    if broken is not None:
        count = _geometry(h.variant, n, source).count
        if not isinstance(broken, list) or not all(
            isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= count for x in broken
        ):
            raise LogError(n, f"'broken' must be a list of square numbers (1-{count}), not {shown(broken)}", source)
        h.broken = list(broken)
    h.extra = {
        k: v
        for k, v in obj.items()
        if k not in ("format", "variant", "fen", "mode", "board", "senses", "pieces", "broken")
        and not (k == "uid" and fmt == UID_FORMAT)
    }
    return h


def _action(obj: dict[str, Any], t: float, n: int, source: str, variant: str | None = None) -> Action:
    name = known(obj["action"], ACTIONS)
    if name is None:
        raise LogError(n, f"unknown action {shown(obj['action'])} ({', '.join(ACTIONS)})", source)
    side = None
    if name == "resign":
        raw = obj.get("side")
        if raw not in ("white", "black"):
            raise LogError(n, f"resign needs 'side': 'white' or 'black', not {shown(raw)}", source)
        side = Color(raw)
    move = None
    level = None
    move_time = None
    if name == "computer":
        raw = obj.get("side")
        if raw not in ("white", "black", None):
            raise LogError(n, f"computer's 'side' must be 'white', 'black' or absent, not {shown(raw)}", source)
        side = None if raw is None else Color(raw)
        level = obj.get("level")
        if level is not None and (isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10):
            raise LogError(n, f"computer's 'level' must be 1-10, not {shown(level)}", source)
        move_time = obj.get("move_time")
        if move_time is not None and (
            isinstance(move_time, bool) or not isinstance(move_time, (int, float)) or not 0 < move_time <= MAX_MOVE_TIME
        ):
            raise LogError(
                n,
                f"computer's 'move_time' must be seconds a move (0-{MAX_MOVE_TIME:g}), not {shown(move_time)}",
                source,
            )
    square = None
    if (name == "confirm" and "square" in obj) or name == "sensor-repaired":
        square = obj.get("square")
        if isinstance(square, bool) or not isinstance(square, int) or square < 1:
            raise LogError(n, f"{name}'s 'square' must be a square number, not {shown(square)}", source)
    elif name in ("computer-move", "confirm"):
        move = obj.get("move")
        if not isinstance(move, str) or not _MOVE.fullmatch(move):
            raise LogError(n, f"{name} needs 'move' in square numbers (22-17, 26x17x21), not {shown(move)}", source)
    fen = None
    if name == "position":
        fen = obj.get("fen")
        if not isinstance(fen, str) or not fen.strip():
            raise LogError(n, f"position needs 'fen', the position set up, not {shown(fen)}", source)
        try:
            Position.from_fen(fen, variant or "brazilian")
        except DraughtsError as exc:
            raise LogError(n, f"position's 'fen' {shown(fen)} is not a position: {exc}", source) from None
    result = None
    if name == "result":
        result = obj.get("result")
        try:
            if not isinstance(result, str):
                raise ValueError(result)
            parse_result(result)
        except ValueError:
            raise LogError(n, f"invalid result {shown(result)}", source) from None
    return Action(t, name, side, result, move, level, square, None if move_time is None else float(move_time), fen)


def _clock_action(name: ClockActionName, obj: dict[str, Any], t: float, n: int, source: str) -> ClockAction:
    side = None
    if name in ("clock", "flag"):
        raw = obj.get("side")
        if raw not in ("white", "black"):
            raise LogError(n, f"{name} needs 'side': 'white' or 'black', not {shown(raw)}", source)
        side = Color(raw)
    src = obj.get("source")
    if src is not None and src not in SOURCES:
        raise LogError(n, f"unknown clock source {shown(src)} ({', '.join(SOURCES)})", source)
    times: dict[str, float | None] = {"white": None, "black": None}
    if name == "clock-adjust":
        for key in times:
            value = obj.get(key)
            if value is None:
                continue
            if (
                not isinstance(value, (int, float))
                or isinstance(value, bool)
                or not 0 <= _float(value) <= MAX_CLOCK_SECONDS
            ):
                raise LogError(
                    n, f"clock-adjust '{key}' must be seconds (0-{MAX_CLOCK_SECONDS}), not {shown(value)}", source
                )
            times[key] = float(value)
        if times["white"] is None and times["black"] is None:
            raise LogError(n, "clock-adjust needs 'white' or 'black' (seconds)", source)
    return ClockAction(t, name, side, src, times["white"], times["black"])


def _cell(geo: Geometry, cell: Any, n: int, source: str, hint: str) -> str:
    """The name of a non-playing cell of a log line (a playing square goes by its number)."""
    try:
        f, r = geo.parse_cell(str(cell))
    except DraughtsError:
        raise LogError(n, f"no cell {shown(cell)} on a {geo.size}x{geo.size} board", source) from None
    if geo.is_playable_cell(f, r):
        raise LogError(n, f"cell {shown(cell)} is a playing square: {hint}", source)
    return geo.cell_name(f, r)


def _link(obj: dict[str, Any], t: float, n: int, source: str, geo: Any) -> Link:
    state = known(obj["link"], LINK_STATES)
    if state is None:
        raise LogError(n, f"unknown link state {obj['link']!r} ({', '.join(LINK_STATES)})", source)
    if state == "down":
        return Link(t, state)
    if state == "reconstructed":
        moves = obj.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise LogError(n, f"'moves' must be a list of moves, not {moves!r}", source)
        return Link(t, state, moves=tuple(moves))
    board = obj.get("board")
    if not isinstance(board, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= geo.count for x in board
    ):
        raise LogError(n, f"link up needs 'board', a list of square numbers (1-{geo.count}), not {board!r}", source)
    cells = obj.get("cells", [])
    names = []
    if not isinstance(cells, list):
        raise LogError(n, f"'cells' must be a list of cell names, not {cells!r}", source)
    for cell in cells:
        names.append(_cell(geo, cell, n, source, "list its number in 'board'"))
    lost = obj.get("lost")
    if lost is not None and (not isinstance(lost, int) or isinstance(lost, bool) or lost < 0):
        raise LogError(n, f"'lost' must be a number of frames, not {lost!r}", source)
    return Link(t, state, tuple(sorted(set(board))), tuple(sorted(set(names))), lost=lost)


def iter_json_lines(verdicts: Iterable[Any]) -> Iterator[str]:
    for v in verdicts:
        yield json.dumps(v.to_json(), ensure_ascii=False)
