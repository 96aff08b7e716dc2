"""Training on the board, as PicoChess does it for chess: a game replayed move by move on the
physical board, or a tactic to find, judged by the board.

A :class:`Training` holds the line to follow (the moves from its start position) and judges the
moves the players make on the board, which the board loop hands it as they are recorded
(:meth:`Training.follow`). Three modes:

* ``replay``: every move is lit (the LEDs' suggested-move roles); the players make them;
* ``guess``: the moves of the side the player trains (``side``) are not lit: the player makes
  the move they think was played, and is told right or wrong; the other side's moves are lit;
* ``tactic``: the side to move finds the shot, the whole combination: its key move, then, after
  each of the opponent's replies (lit, made by the player as in a replay), the next move, to the
  line's end; every move found is "solved", a wrong move at any step "failed".

A move off the line is told at once ("the game went 12. c3-d4: take your move back"); the board
loop lights what to put back, and once the move is taken back the line's move is lit. Only
the judging lives here (a pure function of the moves played); the sets shipped with the
package are read by :func:`shipped_games` and :func:`shipped_tactics`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

from rules import Color, Move, Position, find_variant
from rules.pdn import PdnGame, read_pdn

if TYPE_CHECKING:
    from engine import Engine

MODES = ("replay", "guess", "tactic")
#: the depth of the searches that chose the shipped tactics' replies (``tools/make_training_sets.py``)
LINE_DEPTH = 6


def line_engine(variant: str) -> Engine:
    """The engine the shipped tactics' lines were made with, and are checked against: level 10,
    seed 0, the hand-set evaluation (the lines stay what they were whatever fitted table the
    engine ships; search them :data:`LINE_DEPTH` deep)."""
    from engine import Engine
    from engine.evaluate import Evaluator

    eng = Engine(variant, level=10, seed=0, tt_mb=16)
    eng.evaluator = Evaluator(find_variant(variant), tuned=False)
    return eng


@dataclass(frozen=True)
class Tactic:
    """A position where one move wins (a shot, or a forced win of the game), and the line that
    follows it: the opponent's replies and the player's next moves, to where the shot has won."""

    fen: str
    move: str  # in the variant's notation
    kind: str  # "shot" or "forced win"
    line: tuple[str, ...] = ()  # the whole solution, from ``move`` (the variant's notation)

    def moves(self, variant: str) -> tuple[Position, list[Move]]:
        """The tactic's start and its solution line as moves."""
        pos = start = Position.from_fen(self.fen, variant)
        out = []
        for text in self.line or (self.move,):
            out.append(pos.parse_pdn(text))
            pos = pos.apply(out[-1])
        return start, out


@cache
def shipped_games(variant: str) -> list[PdnGame]:
    """The games shipped to replay in ``variant`` (none for a variant without a public source)."""
    name = f"games-{find_variant(variant).name}.pdn"
    path = resources.files("damas.study") / name
    if not path.is_file():
        return []
    return read_pdn(path.read_text(encoding="utf-8"), name)


@cache
def shipped_tactics(variant: str) -> list[Tactic]:
    """The project's tactical positions for ``variant`` (``tools/make_training_sets.py``)."""
    name = f"tactics-{find_variant(variant).name}.json"
    path = resources.files("damas.study") / name
    if not path.is_file():
        return []
    tactics = json.loads(path.read_text(encoding="utf-8"))
    return [Tactic(t["fen"], t["move"], t["kind"], tuple(t.get("line", ()))) for t in tactics]


@dataclass
class Training:
    """The line to follow from ``start``, and what the moves made so far earned."""

    title: str
    start: Position
    line: list[Move]
    mode: str = "replay"
    side: Color | None = None  # the side whose moves are guessed (guess, tactic); None: both lit
    white: str = "?"  # the players of the game replayed (the training game's tags)
    black: str = "?"
    right: int = 0
    wrong: int = 0
    judged: set[int] = field(default_factory=set)  # plies already counted right or wrong
    revealed: set[int] = field(default_factory=set)  # plies guessed wrong: lit from then on
    played: int = 0  # plies made on the board since the start (on the line or not)
    off: int | None = None  # the first ply off the line, while it stands on the board
    last: tuple[int, bool] | None = None  # the newest guess judged: its ply, right or not

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown training mode {self.mode!r} ({', '.join(MODES)})")
        if self.side is None and self.mode in ("guess", "tactic"):
            self.side = self.start.turn

    def positions(self) -> list[Position]:
        """The line's positions: the start, then after each of its moves."""
        out = [self.start]
        for m in self.line:
            out.append(out[-1].apply(m))
        return out

    def guessed(self, ply: int) -> bool:
        """Is the move at ``ply`` (0: the first) the player's to find?"""
        if self.mode == "replay" or self.side is None:
            return False
        mover = self.start.turn if ply % 2 == 0 else self.start.turn.other
        return mover is self.side

    def follow(self, moves: list[Move]) -> None:
        """The moves made on the board since the start: the newest are judged."""
        self.played = len(moves)
        self.off = next((i for i, m in enumerate(moves) if i >= len(self.line) or m != self.line[i]), None)
        for i in range(len(moves)):
            if i in self.judged or (self.off is not None and i > self.off):
                continue
            if self.guessed(i) and i not in self.revealed:
                self.judged.add(i)
                good = self.off != i
                if good:
                    self.right += 1
                else:
                    self.wrong += 1
                    self.revealed.add(i)
                self.last = (i, good)
            elif self.off != i:
                self.judged.add(i)

    def show(self) -> None:
        """The player gives up the move to find: it counts as wrong, and is lit from then on."""
        ply = self.played
        if self.off is not None or self.finished or not self.guessed(ply) or ply in self.revealed:
            return
        self.judged.add(ply)
        self.revealed.add(ply)
        self.wrong += 1
        self.last = (ply, False)

    @property
    def finished(self) -> bool:
        """The line has been played to its end (the tactic's shot made, the game replayed)."""
        return self.off is None and self.played >= len(self.line)

    def lit(self) -> Move | None:
        """The move the LEDs show now: the line's next move, unless the player is to find it
        (nothing while a move off the line stands on the board)."""
        if self.off is not None or self.finished:
            return None
        ply = self.played
        return self.line[ply] if not self.guessed(ply) or ply in self.revealed else None

    def move_text(self, ply: int) -> str:
        """The line's move at ``ply`` as a player reads it (``12. c3-d4``, ``12... f6-g5``)."""
        pos = self.positions()[ply]
        index = ply + (1 if self.start.turn is Color.BLACK else 0)
        number = f"{index // 2 + 1}." if pos.turn is Color.WHITE else f"{index // 2 + 1}..."
        return f"{number} {pos.pdn(self.line[ply])}"

    def line_text(self) -> str:
        """The whole line as a player reads it (``1... g7-h6 2. g3-f4 e3xg5``): a move number
        before White's moves and before the first."""
        texts = [self.move_text(ply) for ply in range(len(self.line))]
        return " ".join(
            t if ply == 0 or not t.split(" ", 1)[0].endswith("...") else t.split(" ", 1)[1]
            for ply, t in enumerate(texts)
        )

    def verdict(self) -> str:
        """What the page says: ``solved``/``failed`` (a tactic), ``done`` (a game replayed to its
        end), ``wrong`` (a move off the line stands: take it back), ``right`` (the newest guess was
        right), ``guess`` (the player's move to find), ``play`` (the lit move to make)."""
        if self.finished:
            if self.mode == "tactic":
                return "solved" if self.wrong == 0 else "failed"
            return "done"
        if self.off is not None:
            return "wrong"
        if self.last is not None and self.last[0] == self.played - 1 and self.last[1]:
            return "right"
        return "guess" if self.lit() is None else "play"
