"""What the page may ask of the board loop, checked before anything changes: a field's text, the
arbiter's clock times, a result, tags, a new game's settings. A bad one is a ``ValueError`` (a
``PageError`` where the page shows it in its language) naming the field and what was given."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from damas.computer.opponent import EngineSettings
from damas.computer.player import side_of
from referee.clock import MAX_CLOCK_SECONDS, PRESETS, ClockError, parse_control
from referee.vocabulary import MODES, Mode, known
from rules import Color
from rules.errors import PdnTagError, shown
from rules.pdn import check_tag, standard_tag_name
from wording.page import PageError

#: the results a player may enter or correct: any variant's style (the writer gives the variant's)
RESULTS = ("1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "*")
MAX_TAGS = 64  # tags in one request
GAME_TAGS = ("FEN", "GameType", "Result")  # written from the game itself, never from its tags


def text_or_none(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{key} must be text, not {shown(value)}")
    return value


def clock_seconds(value: Any, key: str) -> float | None:
    """A time the arbiter sets: seconds, or ``m:ss`` / ``h:mm:ss`` text."""
    if value is None or value == "":
        return None
    seconds: float
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and re.fullmatch(r"\d{1,3}(:\d{1,2}){0,2}(\.\d{1,3})?", value.strip()):
        seconds = 0.0
        for part in value.strip().split(":"):
            seconds = seconds * 60 + float(part)
    else:
        raise ValueError(f"{key} must be a time (seconds, m:ss or h:mm:ss), not {shown(value)}")
    if not 0 <= seconds <= MAX_CLOCK_SECONDS:
        raise ValueError(f"{key} must be between 0 and {MAX_CLOCK_SECONDS // 3600} hours, not {shown(value)}")
    return seconds


def preset_name(text: str | None, presets: dict[str, str]) -> str | None:
    """The name of the time control ``text`` names (``fenacef``, or one of ``[clock.controls]``),
    kept with the game so the page says it ("FENACEF, 21 min"); None for a control written out."""
    name = (text or "").strip().lower()
    return name if (name in PRESETS and name != "none") or name in presets else None


def check_result(result: Any) -> str:
    if not isinstance(result, str) or result.strip() not in RESULTS:
        raise ValueError(f"invalid result {shown(result)} (one of {', '.join(RESULTS)})")
    return result.strip()


def check_tags(tags: Any) -> None:
    """Tags from the page: an object of PDN tag names and text values (``""`` removes one)."""
    if not isinstance(tags, dict):
        raise ValueError("tags must be an object of tag names and values")
    if len(tags) > MAX_TAGS:
        raise ValueError(f"too many tags ({len(tags)}; at most {MAX_TAGS})")
    for key, value in tags.items():
        check_tag(key, value, strict=True)
        if value != "" and standard_tag_name(key) in GAME_TAGS:
            raise ValueError(
                f"tag {key} is the game's own (FEN: its start position, GameType: its variant, Result: "
                "its result): it cannot be set as a tag; a result is given as result"
            )


def valid_tag(key: str, value: Any) -> bool:
    try:
        check_tag(key, value, strict=True)
    except PdnTagError:
        return False
    return True


@dataclass(frozen=True)
class NewGame:
    """A new game as the page asks for it (``None``: as the game before)."""

    fen: str | None
    variant: str | None
    mode: Mode | None
    tags: dict[str, str] | None
    clock: str | None  # a time control
    computer: tuple[Color, int] | None  # the side the computer plays and its level
    move_time: float | None = None  # against the computer: its time a move instead of the level's


def new_game_request(data: dict[str, Any], engine: EngineSettings, presets: dict[str, str]) -> NewGame:
    """The ``new-game`` action's fields checked (``variant``, ``fen``, ``mode``, ``tags``, ``clock``;
    against the computer ``opponent``, ``side`` and ``level``)."""
    fen = text_or_none(data, "fen")
    variant = text_or_none(data, "variant")
    asked = text_or_none(data, "mode")
    mode = known(asked, MODES)
    if asked is not None and mode is None:
        raise PageError("bad-mode", mode=shown(asked))
    tags = data.get("tags")
    if tags is not None:
        check_tags(tags)
    control = text_or_none(data, "clock")
    if control is not None:
        try:
            parse_control(control, presets)
        except ClockError as exc:
            raise ValueError(str(exc)) from None
    opponent = text_or_none(data, "opponent") or "human"
    if opponent not in ("human", "engine"):
        raise ValueError(f"unknown opponent {shown(opponent)} (human or engine)")
    computer_side = side_of(text_or_none(data, "side"), engine.side)
    level = data.get("level", engine.level)
    if isinstance(level, str) and level.isdigit():
        level = int(level)
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= 10:
        raise ValueError(f"level must be 1-10, not {shown(level)}")
    computer = (computer_side, level) if opponent == "engine" else None
    move_time = data.get("move_time")
    if move_time is not None and (
        isinstance(move_time, bool) or not isinstance(move_time, (int, float)) or not 0.05 <= move_time <= MAX_MOVE_TIME
    ):
        raise ValueError(f"move_time must be seconds a move, 0.05-{MAX_MOVE_TIME:g}, not {shown(move_time)}")
    return NewGame(fen, variant, mode, tags, control, computer, None if move_time is None else float(move_time))


MAX_MOVE_TIME = 600.0  # seconds: the computer's longest time a move
