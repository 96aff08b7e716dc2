"""A small driver for scripted referee tests: hands on a board, through the live pipeline."""

from __future__ import annotations

from collections.abc import Iterable

from board_hal.debounce import Transition
from referee import Action, GameEnd, MoveMade, Pipeline, Referee, Report, ReportKind, Role, Takeback, Verdict
from rules import Color


class Board:
    def __init__(
        self,
        variant: str,
        fen: str | None = None,
        *,
        mode: str = "casual",
        board: Iterable[int] | None = None,
        suspects: Iterable[int] = (),
        heard: Iterable[int] = (),
    ):
        self.ref = Referee(variant, fen, mode=mode, board=board, suspects=suspects, heard=heard)
        self.pipe = Pipeline(self.ref)
        self.t = 0.0
        self.all: list[Verdict] = []
        self._seen = 0

    def _feed(self, key: int | str, occupied: bool) -> None:
        self.t += 0.3
        self.all += self.pipe.feed(Transition(self.t, key, occupied))
        self.t += 0.1
        self.all += self.pipe.advance(self.t)  # past the debounce window, not the settle time

    def lift(self, *squares: int) -> Board:
        for sq in squares:
            self._feed(sq, False)
        return self

    def place(self, *squares: int) -> Board:
        for sq in squares:
            self._feed(sq, True)
        return self

    def move(self, a: int, b: int, *captured: int) -> Board:
        return self.lift(a).place(b).lift(*captured)

    def cell(self, name: str, occupied: bool) -> Board:
        self._feed(name, occupied)
        return self

    def wait(self, seconds: float = 2.0) -> Board:
        self.t += seconds
        self.all += self.pipe.advance(self.t)
        return self

    def action(self, name: str, side: Color | None = None, result: str | None = None) -> Board:
        self.t += 0.3
        self.all += self.pipe.feed(Action(self.t, name, side, result))
        return self

    # -- what happened -----------------------------------------------------------------------
    def new(self) -> list[Verdict]:
        out = self.all[self._seen :]
        self._seen = len(self.all)
        return out

    def moves(self) -> list[str]:
        return [v.pdn for v in self.all if isinstance(v, MoveMade)]

    def reports(self) -> list[Report]:
        return [v for v in self.all if isinstance(v, Report)]

    def kinds(self) -> list[str]:
        return [r.kind.value for r in self.reports()]

    def takebacks(self) -> list[int]:
        return [v.ply for v in self.all if isinstance(v, Takeback)]

    def ends(self) -> list[GameEnd]:
        return [v for v in self.all if isinstance(v, GameEnd)]

    def report_kind(self) -> ReportKind | None:
        """The active report's kind (None: none)."""
        return None if self.ref.report is None else self.ref.report.kind

    def last(self, kind: ReportKind) -> Report:
        return [r for r in self.reports() if r.kind is kind][-1]

    def leds(self) -> dict[int, Role]:
        return {i.square: i.role for i in self.ref.led_intents()}

    def lit(self, role: Role) -> set[int]:
        return {sq for sq, r in self.leds().items() if r is role}
