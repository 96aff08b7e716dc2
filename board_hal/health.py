"""What ``damas selftest`` found wrong with the board, kept for ``damas play`` (issue 31).

A reed switch that does not answer (dead, or stuck) and a LED that does not light are
written, by physical cell (``e3``: the board's own cells, whatever variant is played on it),
to ``board-health.json`` in the data directory, beside the games (the service's state
directory, ``/var/lib/damas``, which the service can write; ``/etc/damas`` is read-only to
it)::

    {"format": 1, "checked": "2026-11-26 07:10", "size": 8,
     "sensors": ["e3"], "leds": ["a1", "h8"]}

``damas play`` reads it when a game starts: the referee plays around those sensors from the
first move (each move over them marked inferred) and the page shows what a dead LED would
light. A self-test that finds nothing wrong writes an empty file: a repaired board is sound
again. A missing file is a board nobody checked (the referee infers a dead sensor from play);
a damaged one is named in one line and ignored.

What the referee finds broken during play is kept beside it, in ``sensors-found.json``
(:class:`FoundInPlay`, written by ``damas play``), with when it was named::

    {"format": 1, "size": 8, "sensors": {"e3": "2026-11-26 19:10"}}

``damas play`` plays around those from the next game on, and after a restart, until the sensor
answers as the game has it again (a piece seen set down there and taken away, never read
otherwise), the player says it was repaired (the page), or ``damas selftest`` finds it sound.
"""

from __future__ import annotations

import datetime
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_hal.layout import Cell, Layout, cell_name

FILE_NAME = "board-health.json"
FOUND_NAME = "sensors-found.json"
FORMAT = 1


class HealthError(ValueError):
    """A board-health file that cannot be read (a one-line reason naming the file)."""


def default_path(db: str | Path | None = None, name: str = FILE_NAME) -> Path:
    """Beside the game database ``db`` (the data directory when none is given, as the store's)."""
    if db is not None:
        return Path(db).parent / name
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "damas" / name


def _save(path: Path, obj: dict[str, Any]) -> None:
    """Written whole or not at all (a power cut mid-write leaves the old file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(obj) + "\n")
    os.replace(tmp, path)


def _load(path: Path, what: str) -> tuple[dict[str, Any], int] | None:
    """The JSON object at ``path`` of format :data:`FORMAT` and its board size; None if there is
    no file; a :class:`HealthError` (naming ``path``) if it cannot be read."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HealthError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        obj = json.loads(text)
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise ValueError(f"not a {what} file of format {FORMAT}")
        size = obj.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or not 4 <= size <= 10:
            raise ValueError(f"size must be a board size (8 or 10), not {size!r}")
    except ValueError as exc:  # (json's errors are ValueErrors too)
        raise HealthError(f"{path}: {exc}") from None
    return obj, size


def _cells_of(cells: set[Cell], layout: Layout, size: int) -> set[int]:
    """The playing squares of ``layout`` at ``cells`` (a board of another size: none)."""
    if layout.size != size:
        return set()
    return {sq for c in cells if (sq := layout.square_of(*c)) is not None}


def parse_cell_name(text: str, size: int) -> Cell:
    """``e3`` -> ``(2, 4)`` (the inverse of :func:`board_hal.layout.cell_name`)."""
    m = re.fullmatch(r"([a-j])(\d{1,2})", text) if isinstance(text, str) else None
    if m is None:
        raise ValueError(f"{text!r} is not a cell (a1-{'abcdefghij'[size - 1]}{size})")
    col, row = "abcdefghij".index(m.group(1)), int(m.group(2)) - 1
    if not (0 <= row < size and col < size):
        raise ValueError(f"{text!r} is not a cell of a {size}x{size} board")
    return row, col


@dataclass
class BoardHealth:
    """The cells whose sensor does not answer, and those whose LED does not light."""

    size: int
    sensors: set[Cell] = field(default_factory=set)
    leds: set[Cell] = field(default_factory=set)
    checked: str | None = None

    def squares(self, layout: Layout) -> tuple[set[int], set[int]]:
        """The playing squares of ``layout`` whose sensor / LED is broken (a board of another
        size: none, it is not the board that was checked)."""
        return _cells_of(self.sensors, layout, self.size), _cells_of(self.leds, layout, self.size)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "checked": self.checked,
            "size": self.size,
            "sensors": [cell_name(c) for c in sorted(self.sensors)],
            "leds": [cell_name(c) for c in sorted(self.leds)],
        }

    def save(self, path: Path) -> None:
        _save(path, self.to_json())

    @classmethod
    def load(cls, path: Path) -> BoardHealth | None:
        """The file at ``path``; None if there is none; a :class:`HealthError` if it is damaged."""
        loaded = _load(path, "board-health")
        if loaded is None:
            return None
        obj, size = loaded
        try:
            lists = [obj.get(k, []) for k in ("sensors", "leds")]
            if not all(isinstance(x, list) for x in lists):
                raise ValueError("sensors and leds must be lists of cells")
            sensors, leds = ({parse_cell_name(c, size) for c in x} for x in lists)
        except ValueError as exc:  # (json's errors are ValueErrors too)
            raise HealthError(f"{path}: {exc}") from None
        checked = obj.get("checked")
        return cls(size, sensors, leds, checked if isinstance(checked, str) else None)


@dataclass
class FoundInPlay:
    """The cells whose sensor the referee named broken during play, with when (``damas play``
    writes it; the module's docstring)."""

    size: int
    sensors: dict[Cell, str] = field(default_factory=dict)

    def squares(self, layout: Layout) -> set[int]:
        return _cells_of(set(self.sensors), layout, self.size)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "size": self.size,
            "sensors": {cell_name(c): self.sensors[c] for c in sorted(self.sensors)},
        }

    def save(self, path: Path) -> None:
        _save(path, self.to_json())

    @classmethod
    def load(cls, path: Path) -> FoundInPlay | None:
        """The file at ``path``; None if there is none; a :class:`HealthError` if it is damaged."""
        loaded = _load(path, "sensors-found")
        if loaded is None:
            return None
        obj, size = loaded
        found = obj.get("sensors", {})
        try:
            if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
                raise ValueError("sensors must map cells to when they were found")
            sensors = {parse_cell_name(c, size): when for c, when in found.items()}
        except ValueError as exc:
            raise HealthError(f"{path}: {exc}") from None
        return cls(size, sensors)


def now_text() -> str:
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
