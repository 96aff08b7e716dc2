"""Which input of which chip is which cell: the map an expander or shift-register backend
reads from its configuration, and the checks a person soldering a board needs.

A map is one list per chip, one entry per input: the physical cell's name as
:func:`board_hal.selftest.cell_name` writes it (column letter, row number from 1:
``"a1"`` is cell (0, 0)) or ``""`` for an input left unconnected. Without a map, inputs
follow each other row by row: input ``i`` of the whole set (chip by chip) is cell
``(i // size, i % size)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from board_hal.layout import Cell, cell_name

FILES = "abcdefghij"

Fail = Callable[[str], Exception]


def parse_cell(name: str, size: int) -> Cell | None:
    """``"c2"`` -> (1, 2); None if it is no cell of a ``size`` x ``size`` board."""
    if len(name) < 2 or name[0] not in FILES[:size] or not name[1:].isdigit() or not name[1:].isascii():
        return None
    row = int(name[1:]) - 1
    return (row, FILES.index(name[0])) if 0 <= row < size else None


def board(size: int) -> str:
    """ "an 8x8 board", "a 10x10 board"."""
    return f"{'an' if size == 8 else 'a'} {size}x{size} board"


def default_map(chips: int, inputs: int, size: int) -> list[list[Cell | None]]:
    """Inputs row by row: input ``i`` overall is cell ``(i // size, i % size)``."""
    out: list[list[Cell | None]] = []
    for chip in range(chips):
        line: list[Cell | None] = []
        for pin in range(inputs):
            i = chip * inputs + pin
            line.append((i // size, i % size) if i < size * size else None)
        out.append(line)
    return out


def parse_map(value: Any, chips: int, inputs: int, size: int, where: str, fail: Fail) -> list[list[Cell | None]]:
    """A configured map, checked: ``chips`` lists of ``inputs`` names, every cell exactly once."""
    if not isinstance(value, list) or len(value) != chips:
        raise fail(f"{where} must be {chips} lists (one per chip) of {inputs} cell names, not {_short(value)}")
    out: list[list[Cell | None]] = []
    seen: dict[Cell, str] = {}
    for k, line in enumerate(value):
        if not isinstance(line, list) or len(line) != inputs or not all(isinstance(x, str) for x in line):
            raise fail(f'{where}[{k}] must be {inputs} cell names ("a1", or "" for a free input), not {_short(line)}')
        cells: list[Cell | None] = []
        for pin, name in enumerate(line):
            if name == "":
                cells.append(None)
                continue
            cell = parse_cell(name, size)
            if cell is None:
                raise fail(f"{where}[{k}][{pin}]: {_short(name)} is no cell of {board(size)}")
            here = f"{where}[{k}][{pin}]"
            if cell in seen:
                raise fail(f"{here}: cell {name} is wired twice ({seen[cell]} and {here})")
            seen[cell] = here
            cells.append(cell)
        out.append(cells)
    missing = [(r, c) for r in range(size) for c in range(size) if (r, c) not in seen]
    if missing:
        names = ", ".join(cell_name(c) for c in missing[:4]) + (" ..." if len(missing) > 4 else "")
        raise fail(f"{where}: {len(missing)} cells have no input ({names})")
    return out


def check_coverage(chips: int, inputs: int, size: int, where: str, what: str, fail: Fail) -> None:
    need = -(-size * size // inputs)
    if chips < need:
        raise fail(
            f"{where}: {chips} {what} have {chips * inputs} inputs; {board(size)} needs {size * size} ({need} {what})"
        )


def gpio_pin(value: Any, where: str, fail: Fail) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 27:
        raise fail(f"{where} must be a GPIO number (0-27), not {_short(value)}")
    return value


def number(value: Any, low: float, high: float, where: str, unit: str, fail: Fail) -> float:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
        raise fail(f"{where} must be {unit} between {low:g} and {high:g}, not {_short(value)}")
    return float(value)


def unknown(table: Sequence[str] | Any, allowed: set[str], where: str, fail: Fail) -> None:
    for key in table:
        if key not in allowed:
            raise fail(f"unknown setting {where}.{str(key)[:40]} (known: {', '.join(sorted(allowed))})")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
