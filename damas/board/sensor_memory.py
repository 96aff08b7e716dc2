"""What the board knows broken, kept between games and restarts (issue 31).

Two files beside the game database (``board_hal.health``): ``board-health.json``, what
``damas selftest`` found (sensors and LEDs), and ``sensors-found.json``, the sensors the referee
named broken during play. Every new game's referee plays around both from its first event (the
journal's header lists them: a replay agrees), so a stuck sensor named in one game does not
stall the next one's set-up again.

A remembered sensor is forgotten when it answers as the game has it again — in one game, a
piece seen set down there and one seen taken away at moments the rest of the board matched the
game, and never a reading against it at such a moment — when the player says it was repaired
(the page's ``sensor-repaired``), or when ``damas selftest`` finds it sound; the game in play
then reads it again at once too (``sound``: the board loop journals a ``sensor-repaired`` action
for its referee). A damaged file is
one line in the log and is read as empty (the next finding writes it again); a file that cannot
be written is one line too: the game goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_hal.health import (
    FILE_NAME,
    FOUND_NAME,
    BoardHealth,
    FoundInPlay,
    HealthError,
    default_path,
    now_text,
)
from board_hal.layout import Cell, Layout, cell_name
from referee.vocabulary import MoveMade, Report, ReportKind, Verdict
from rules import Position

log = logging.getLogger("damas")


def load_found(db: str | Path) -> FoundInPlay | None:
    """``sensors-found.json`` beside ``db`` (a damaged file: one line, ignored)."""
    path = default_path(db, FOUND_NAME)
    try:
        found = FoundInPlay.load(path)
    except HealthError as exc:
        log.warning("%s: ignored (the sensors found broken in play are found again)", exc)
        return None
    if found is not None and found.sensors:
        log.info(
            "sensors found broken in play, played around: %s (%s)",
            ", ".join(f"{cell_name(c)} since {when}" for c, when in sorted(found.sensors.items())),
            path,
        )
    return found


@dataclass
class _Watch:
    """How a remembered sensor has read in this game at moments the rest of the board matched it."""

    set_down: bool = False  # read a piece the game has there
    taken: bool = False  # read empty where the game has none
    against: bool = False  # read otherwise


@dataclass
class SensorMemory:
    """The self-test's findings and the sensors found broken in play, for the board's ``layout``
    (``db``: the game database, whose directory holds the files; None: nothing is written)."""

    db: Path | None
    health: BoardHealth | None = None
    found: FoundInPlay | None = None
    _watch: dict[int, _Watch] = field(default_factory=dict)
    #: the squares forgotten since the board loop last told the game's referee (it reads them
    #: again at once: ``BoardApp.trust_again``)
    sound: list[int] = field(default_factory=list)

    @classmethod
    def open(cls, db: str | Path | None, health: BoardHealth | None) -> SensorMemory:
        return cls(None if db is None else Path(db), health, None if db is None else load_found(db))

    # -- what is known ---------------------------------------------------------------------------
    def broken(self, layout: Layout) -> tuple[set[int], set[int]]:
        """The squares whose sensor does not answer (either file), and those whose LED does not light."""
        sensors, leds = (set(), set()) if self.health is None else self.health.squares(layout)
        if self.found is not None:
            sensors |= self.found.squares(layout)
        return sensors, leds

    def listed(self, layout: Layout, pos: Position) -> list[dict[str, Any]]:
        """The page's list: each remembered sensor, by whom and since when."""
        out: dict[int, dict[str, Any]] = {}
        if self.health is not None:
            for sq in self.health.squares(layout)[0]:
                out[sq] = {"square": sq, "name": pos.square_text(sq), "by": "selftest", "since": self.health.checked}
        if self.found is not None and self.found.size == layout.size:
            for cell, when in self.found.sensors.items():
                at = layout.square_of(*cell)
                if at is not None:
                    out[at] = {"square": at, "name": pos.square_text(at), "by": "play", "since": when}
        return [out[sq] for sq in sorted(out)]

    # -- changes ---------------------------------------------------------------------------------
    def remember(self, square: int, layout: Layout) -> None:
        """The referee named the sensor under ``square`` broken during play."""
        cell = layout.cell_of(square)
        if self.found is None or self.found.size != layout.size:
            self.found = FoundInPlay(layout.size)
        if cell in self.found.sensors:
            return
        self.found.sensors[cell] = now_text()
        self._watch.pop(square, None)
        self._save_found()

    def forget(self, square: int, layout: Layout, why: str) -> bool:
        """The sensor under ``square`` is sound again (``why``, for the log): in neither file any more."""
        cell = layout.cell_of(square)
        gone = False
        if self.found is not None and self.found.size == layout.size and cell in self.found.sensors:
            del self.found.sensors[cell]
            self._save_found()
            gone = True
        if self.health is not None and self.health.size == layout.size and cell in self.health.sensors:
            self.health.sensors.discard(cell)
            self._save(self.health.save, FILE_NAME)
            gone = True
        if gone:
            log.info("the sensor at %s is no longer played around: %s", cell_name(cell), why)
            self.sound.append(square)
        return gone

    def _save_found(self) -> None:
        if self.found is not None:
            self._save(self.found.save, FOUND_NAME)

    def _save(self, save: Any, name: str) -> None:
        if self.db is None:
            return
        path = default_path(self.db, name)
        try:
            save(path)
        except OSError as exc:
            log.warning("%s: cannot be written (%s): kept for this run only", path, exc.strerror)

    # -- watching play ---------------------------------------------------------------------------
    def new_game(self) -> None:
        self._watch = {}

    def saw(
        self,
        verdicts: Iterable[Verdict],
        layout: Layout,
        pos: Position,
        raw: set[int],
        settled: bool,
    ) -> None:
        """A game's verdicts: a sensor the referee names is remembered; after a move, at a moment
        the board is ``settled`` (nothing under way) and every other square reads as ``pos`` has
        it, each remembered sensor's reading is weighed (a sound one is forgotten)."""
        moved = False
        for v in verdicts:
            if isinstance(v, Report) and v.kind is ReportKind.SENSOR:
                square = v.params.get("square")
                if isinstance(square, int):
                    self.remember(square, layout)
            moved = moved or isinstance(v, MoveMade)
        if not moved or not settled:
            return
        remembered = self.broken(layout)[0]
        if not remembered:
            return
        expect = pos.occupied()
        if (raw ^ expect) - remembered:
            return  # the board does not match the game elsewhere: no moment to judge by
        for sq in remembered:
            w = self._watch.setdefault(sq, _Watch())
            if (sq in raw) != (sq in expect):
                w.against = True
            elif sq in raw:
                w.set_down = True
            else:
                w.taken = True
            if w.set_down and w.taken and not w.against:
                self.forget(sq, layout, "it read as the game had it, a piece set down and one taken away")
                del self._watch[sq]


def forget_checked(db: str | Path, layout: Layout, checked: Iterable[Cell]) -> list[Cell]:
    """``damas selftest`` checked these cells (sound, or now in board-health.json): no longer
    remembered as found in play. Returns those forgotten (a damaged file, or one that cannot be
    written: none)."""
    path = default_path(db, FOUND_NAME)
    try:
        found = FoundInPlay.load(path)
    except HealthError:
        return []
    if found is None or found.size != layout.size:
        return []
    memory = SensorMemory(Path(db), None, found)
    at = {cell: layout.square_of(*cell) for cell in sorted(set(found.sensors) & set(checked))}
    gone = [c for c, sq in at.items() if sq is not None and memory.forget(sq, layout, "damas selftest checked it")]
    try:
        kept = FoundInPlay.load(path)
    except HealthError:
        return []
    return [cell for cell in gone if kept is None or cell not in kept.sensors]
