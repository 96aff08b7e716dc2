"""What the hall accepts from the broker: every message checked before it can change anything.

A board's messages (``docs/hall.md``) come through a broker that anyone with a login — or, on the
quick start's anonymous broker, anyone at all — can write to. So nothing is trusted: a payload is
bounded in size, parsed as strict JSON (no ``NaN``/``Infinity``, no number out of range, no nesting
deeper than a message has), and each message is checked field by field against its type before the
hall folds it (``hall.games``), where it is also checked against the game it continues. What fails
is refused with one line naming the board, the field and why (:class:`BadMessage`); nothing of it is
kept, and the hall reports it to the arbiter once (``hall.app``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from rules import DraughtsError, find_variant, parse_result
from rules.errors import shown
from rules.pdn import check_tag

MAX_PAYLOAD = 64 * 1024  # bytes of one message (a board's longest is a few KiB)
MAX_STATUS = 4 * 1024  # bytes of a status
MAX_INT = 2**31 - 1  # game ids, sequence numbers, steps
MAX_SECONDS = 10**10  # a time (Unix seconds, clock faces) beyond this is not a time
MAX_TEXT = 4096  # characters of a comment, a report's sentence, a tag value
MAX_TAGS = 64
MAX_COMMENTS = 32
MAX_DEPTH = 6  # nesting of a board's messages: {"clocks": {...}} is 2
MAX_RECENT = 16  # games a status names (a board names its last 5)
BOARD_RE = re.compile(r"[A-Za-z0-9_.-]{1,40}")
UID_RE = re.compile(r"[A-Za-z0-9_-]{8,64}")
TYPES = ("start", "move", "clock", "setup", "undo", "tags", "result", "report")
SIDES = ("white", "black")


class BadMessage(ValueError):
    """A message the hall refuses (one line: which field, and why)."""


def _no_constant(name: str) -> Any:
    raise BadMessage(f"{name} is not a JSON number")


def _float(text: str) -> float:
    x = float(text)
    if not math.isfinite(x):
        raise BadMessage(f"the number {text[:20]} is out of range")
    return x


def _depth(obj: Any, limit: int) -> None:
    """Refuse nesting deeper than ``limit`` (iteratively: no recursion to exhaust)."""
    stack = [(obj, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, dict | list):
            if d >= limit:
                raise BadMessage(f"nested deeper than {limit} levels")
            stack.extend((y, d + 1) for y in (x.values() if isinstance(x, dict) else x))


def load(payload: bytes, limit: int = MAX_PAYLOAD) -> dict[str, Any]:
    """A payload as a JSON object, or :class:`BadMessage`."""
    if len(payload) > limit:
        raise BadMessage(f"{len(payload):,} bytes (at most {limit:,})")
    try:
        data = json.loads(payload, parse_constant=_no_constant, parse_float=_float)
    except BadMessage:
        raise
    except RecursionError:
        raise BadMessage("nested too deep") from None
    except (ValueError, UnicodeDecodeError) as exc:  # (also an integer of more than 4,300 digits)
        raise BadMessage(f"not JSON ({str(exc)[:60]})") from None
    if not isinstance(data, dict):
        raise BadMessage("not a JSON object")
    _depth(data, MAX_DEPTH)
    return data


# -- fields -------------------------------------------------------------------------------------------
def integer(m: dict[str, Any], key: str, lo: int = 0, hi: int = MAX_INT) -> int:
    v = m.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise BadMessage(f"{key} must be a whole number from {lo} to {hi}, not {_shown(v)}")
    return v


def number(m: dict[str, Any], key: str, *, optional: bool = True, lo: float = -MAX_SECONDS) -> float | None:
    v = m.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, int | float) or isinstance(v, bool) or not lo <= v <= MAX_SECONDS:
        raise BadMessage(f"{key} must be a number, not {_shown(v)}")
    return float(v)


def text(m: dict[str, Any], key: str, limit: int = MAX_TEXT, *, optional: bool = True) -> str | None:
    v = m.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, str) or len(v) > limit:
        raise BadMessage(f"{key} must be text of at most {limit} characters, not {_shown(v)}")
    return v


def texts(m: dict[str, Any], key: str, count: int = MAX_COMMENTS) -> list[str]:
    v = m.get(key, [])
    if not isinstance(v, list) or len(v) > count or not all(isinstance(x, str) and len(x) <= MAX_TEXT for x in v):
        raise BadMessage(f"{key} must be a list of at most {count} texts, not {_shown(v)}")
    return list(v)


def flag(m: dict[str, Any], key: str) -> None:
    v = m.get(key)
    if v is not None and not isinstance(v, bool):
        raise BadMessage(f"{key} must be true or false, not {_shown(v)}")


def side(m: dict[str, Any], key: str) -> None:
    if m.get(key) not in (None, *SIDES):
        raise BadMessage(f"{key} must be white, black or null, not {_shown(m.get(key))}")


def tags(m: dict[str, Any]) -> dict[str, str]:
    """The PDN tags: names and values as the board's own writer takes them (``check_tag``), so
    no tag can break a feed (a bad name, a quote, a bracket or a line break in a value)."""
    v = m.get("tags")
    if not isinstance(v, dict) or len(v) > MAX_TAGS:
        raise BadMessage(f"tags must be an object of at most {MAX_TAGS} tags, not {_shown(v)}")
    for key, value in v.items():
        if not isinstance(value, str) or len(value) > MAX_TEXT:
            raise BadMessage(f"tag {_shown(key)}: the value must be text of at most {MAX_TEXT} characters")
        try:
            check_tag(key, value)
        except DraughtsError as exc:
            raise BadMessage(str(exc)) from None
    return dict(v)


def faces(m: dict[str, Any]) -> None:
    """A clock's faces and state (``clocks`` of ``start``/``move``, or a ``clock`` message)."""
    for key in SIDES:
        if key in m:
            number(m, key, optional=False, lo=0)
    for key in ("took", "t"):
        number(m, key)
    side(m, "running")
    side(m, "flag")
    for key in ("ticking", "paused", "stopped"):
        flag(m, key)
    text(m, "paused_by", 20)
    state = m.get("state")
    if state is not None and not (isinstance(state, list) and len(state) <= 16):
        raise BadMessage(f"state must be a short list, not {_shown(state)}")


def message(board: str, m: dict[str, Any]) -> dict[str, Any]:
    """A game message checked field by field (not yet against its game: ``HallGame.check``)."""
    if m.get("board") != board:
        raise BadMessage(f"its board {_shown(m.get('board'))} is not the topic's {board}")
    integer(m, "game", 0)
    integer(m, "seq", 0)
    kind = m.get("type")
    if kind not in TYPES:
        raise BadMessage(f"unknown type {_shown(kind)}")
    uid = m.get("uid")
    if uid is not None and not (isinstance(uid, str) and UID_RE.fullmatch(uid)):
        raise BadMessage(f"uid must be 8-64 letters or digits, not {_shown(uid)}")
    if uid is not None and not uid.endswith(f"-{m['game']}"):
        raise BadMessage(f"uid {_shown(uid)} is not game {m['game']}'s (<database>-{m['game']})")
    text(m, "resync", 64)
    if kind == "start":
        variant = text(m, "variant", 40, optional=False)
        try:
            find_variant(str(variant))
        except DraughtsError as exc:
            raise BadMessage(str(exc)) from None
        text(m, "fen", 400)
        if m.get("mode", "casual") not in ("casual", "tournament"):
            raise BadMessage(f"mode must be casual or tournament, not {_shown(m.get('mode'))}")
        tags(m)
        texts(m, "intro")
        number(m, "started")
        text(m, "control", 60)
        if m.get("clocks") is not None:
            faces(_object(m, "clocks"))
    elif kind == "move":
        integer(m, "step")
        if m.get("ply") is not None:
            integer(m, "ply")
        text(m, "move", 200)
        text(m, "path", 400, optional=False)
        texts(m, "comments")
        number(m, "t")
        if m.get("clock") is not None:
            used = _object(m, "clock")
            for key in SIDES:
                number(used, key, lo=0)
        text(m, "control", 60)
        if m.get("clocks") is not None:
            faces(_object(m, "clocks"))
    elif kind == "clock":
        text(m, "control", 60)
        faces(m)
    elif kind == "setup":
        integer(m, "step")
        text(m, "fen", 400, optional=False)
    elif kind == "undo":
        integer(m, "steps")
    elif kind == "tags":
        tags(m)
        texts(m, "intro")
    elif kind == "result":
        result = text(m, "result", 10, optional=False)
        try:
            parse_result(str(result))
        except DraughtsError:
            raise BadMessage(f"unknown result {_shown(result)}") from None
        text(m, "termination", 40)
    elif kind == "report":
        text(m, "kind", 40, optional=False)
        text(m, "message", 500)
        squares = m.get("squares", [])
        if not isinstance(squares, list) or len(squares) > 64 or not all(_square(q) for q in squares):
            raise BadMessage(f"squares must be a list of square numbers, not {_shown(squares)}")
        number(m, "t")
        said = m.get("texts")
        if said is not None:
            if not isinstance(said, dict) or len(said) > 8:
                raise BadMessage(f"texts must be an object of a few languages, not {_shown(said)}")
            for lang in said:
                text(said, lang, 500, optional=False)
    return m


def status(board: str, m: dict[str, Any]) -> dict[str, Any]:
    """A board's status, reduced to the fields the hall knows, each checked."""
    if m.get("board", board) != board:
        raise BadMessage(f"its board {_shown(m.get('board'))} is not the topic's {board}")
    flag(m, "online")
    out: dict[str, Any] = {"board": board, "online": bool(m.get("online"))}
    t = number(m, "t")
    if t is not None:
        out["t"] = t
    if m.get("game") is not None:
        out["game"] = integer(m, "game", 0)
    games = m.get("games")
    if games is not None:
        if not isinstance(games, dict) or len(games) > MAX_RECENT:
            raise BadMessage(f"games must name at most {MAX_RECENT} games, not {_shown(games)}")
        kept: dict[str, int] = {}
        for key in games:
            digits = isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 10
            if not digits or int(key) > MAX_INT:
                raise BadMessage(f"games: {_shown(key)} is not a game id")
            kept[str(int(key))] = integer(games, key, -1)
        out["games"] = kept
    for key in ("uid", "db", "boot"):  # the game in play's uid, the database's and the program's ids
        v = m.get(key)
        if v is not None:
            if not (isinstance(v, str) and UID_RE.fullmatch(v)):
                raise BadMessage(f"{key} must be 8-64 letters or digits, not {_shown(v)}")
            out[key] = v
    return out


def database(uid: str | None) -> str | None:
    """The database's id in a game's ``uid`` (``<db>-<game>``), None without one."""
    return uid.rsplit("-", 1)[0] if uid else None


def _object(m: dict[str, Any], key: str) -> dict[str, Any]:
    v = m.get(key)
    if not isinstance(v, dict):
        raise BadMessage(f"{key} must be an object, not {_shown(v)}")
    return v


def _square(q: Any) -> bool:
    return isinstance(q, int) and not isinstance(q, bool) and 1 <= q <= 50


def _shown(v: Any) -> str:
    """A bad value quoted in a one-line error (a list or an object by its size: its repr could be
    as big as the message)."""
    return f"{type(v).__name__} of {len(v)}" if isinstance(v, dict | list) else shown(v, 40)
