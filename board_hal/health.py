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
FORMAT = 1


class HealthError(ValueError):
    """A board-health file that cannot be read (a one-line reason naming the file)."""


def default_path(db: str | Path | None = None) -> Path:
    """Beside the game database ``db`` (the data directory when none is given, as the store's)."""
    if db is not None:
        return Path(db).parent / FILE_NAME
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "damas" / FILE_NAME


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
        if layout.size != self.size:
            return set(), set()

        def of(cells: set[Cell]) -> set[int]:
            return {sq for c in cells if (sq := layout.square_of(*c)) is not None}

        return of(self.sensors), of(self.leds)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "checked": self.checked,
            "size": self.size,
            "sensors": [cell_name(c) for c in sorted(self.sensors)],
            "leds": [cell_name(c) for c in sorted(self.leds)],
        }

    def save(self, path: Path) -> None:
        """Written whole or not at all (a power cut mid-write leaves the old file)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json()) + "\n")
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> BoardHealth | None:
        """The file at ``path``; None if there is none; a :class:`HealthError` if it is damaged."""
        try:
            text = path.read_text()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise HealthError(f"{path}: cannot be read ({exc.strerror})") from None
        try:
            obj = json.loads(text)
            if not isinstance(obj, dict) or obj.get("format") != FORMAT:
                raise ValueError(f"not a board-health file of format {FORMAT}")
            size = obj.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or not 4 <= size <= 10:
                raise ValueError(f"size must be a board size (8 or 10), not {size!r}")
            lists = [obj.get(k, []) for k in ("sensors", "leds")]
            if not all(isinstance(x, list) for x in lists):
                raise ValueError("sensors and leds must be lists of cells")
            sensors, leds = ({parse_cell_name(c, size) for c in x} for x in lists)
        except ValueError as exc:  # (json's errors are ValueErrors too)
            raise HealthError(f"{path}: {exc}") from None
        checked = obj.get("checked")
        return cls(size, sensors, leds, checked if isinstance(checked, str) else None)


def now_text() -> str:
    return datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
