"""Analysis of a game: the moves that lose material (``?``) or the game (``??``), each with
the engine's better move (``damas analyze``, and the page's move history).

Every position of the game is searched once; a move's value is the search's score of the
position it leads to, from the mover's side. A move is marked when it is worse than the
engine's best by at least a man (about 100 hundredths), unless the game stays won or was lost
anyway; when it turns a game that was not lost into a forced (or practical) loss; or when it
lets a forced win go.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from damas.computer.opponent import EngineFailed, Opponent, expected_seconds
from engine import MATE_BOUND, Engine, Limits
from rules import Color, Game, Move, Position

log = logging.getLogger(__name__)

MATERIAL = 80  # hundredths: worse than the best move by this much loses material (a man is 100)
WIN = 300  # hundredths: a position this good is won in practice
LOST = 500  # hundredths: a position this bad is lost in practice


@dataclass(frozen=True)
class Mark:
    """A move that loses something, with the better move the engine found."""

    ply: int  # 1 = White's first move (in the game's own numbering: see ``number``)
    number: str  # "12." or "12..."
    played: str
    better: str
    loss: int  # hundredths of a man, from the mover's side
    kind: str  # "material", "game" or "win"
    before: int  # the position's value with the best move (mover's side)
    after: int  # its value after the move played

    @property
    def symbol(self) -> str:
        return "??" if self.kind == "game" else "?"

    def text(self) -> str:
        what = {"game": "loses the game", "win": "lets the win go", "material": "loses material"}[self.kind]
        return (
            f"{self.number} {self.played}{self.symbol}  {what} ({score_text(self.after)}): "
            f"better {self.number} {self.better} ({score_text(self.before)})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.played,
            "mark": self.symbol,
            "kind": self.kind,
            "better": self.better,
            "loss": self.loss,
            "score_before": self.before,
            "score_after": self.after,
        }


def score_text(score: int) -> str:
    """A score for people: ``+1.2`` men, ``=`` level, ``wins``/``loses`` for a forced result."""
    if score >= MATE_BOUND:
        return "wins"
    if score <= -MATE_BOUND:
        return "loses"
    if abs(score) < 10:
        return "="
    return f"{score / 100:+.1f}"


def classify(best: int, played: int) -> str | None:
    """What a move worth ``played`` loses when the best was worth ``best`` (both the mover's view):
    ``game`` (from a game not lost to a forced or practical loss), ``win`` (a forced win let go),
    ``material`` (a man or more, unless the game stays won or was lost anyway), or nothing."""
    if best > -LOST and (played <= -MATE_BOUND < best or (best >= -MATERIAL and played <= -LOST)):
        return "game"
    if best >= MATE_BOUND and played < WIN:
        return "win"
    if best - played >= MATERIAL and played < WIN and best > -WIN:
        return "material"
    return None


Search = Callable[[Game], tuple[int, Move | None]]  # a position's value (side to move) and best move


def engine_search(variant: str, limits: Limits) -> Search:
    """Our engine in this process, searching each position within ``limits``."""
    eng = Engine(variant, level=10, tt_mb=16)

    def search(game: Game) -> tuple[int, Move | None]:
        result = eng.search(game, limits)
        return result.score, result.move

    return search


def analyze_game(
    game: Game,
    limits: Limits | None = None,
    *,
    search: Search | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Mark]:
    """The marked moves of a game (its moves as replayed in ``game``; set-ups start afresh), each
    position valued by ``search`` (default: our engine within ``limits``)."""
    return evaluate_game(game, limits, search=search, progress=progress)[0]


def evaluate_game(
    game: Game,
    limits: Limits | None = None,
    *,
    search: Search | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[Mark], list[int]]:
    """The marked moves of a game and its curve: the value of the start and of the position after
    each move, from White's side (hundredths of a man; a set-up position counts as level)."""
    if search is None:
        search = engine_search(game.variant.name, limits or Limits(move_time=0.5))
    steps = game.steps()
    replay = Game(game.variant, game.start)
    scores: list[tuple[int, Move | None]] = []
    prepared: list[tuple[Position, Move | Position]] = []
    # the value of every position the game went through, with its best move
    for i, (before, entry) in enumerate(steps):
        if isinstance(entry, Position):
            replay.setup(entry)
            prepared.append((before, entry))
            scores.append((0, None))
            continue
        scores.append(search(replay))
        prepared.append((before, entry))
        replay.push(entry, after_end=True)
        if progress is not None:
            progress(i + 1, len(steps))
    end_score = _end_score(replay) if replay.outcome() is not None else search(replay)[0]
    moved = [i for i, (_, entry) in enumerate(prepared) if not isinstance(entry, Position)]
    curve = [white_view(scores[i][0], prepared[i][0].turn) for i in moved]
    curve.append(white_view(end_score, replay.position.turn))
    marks: list[Mark] = []
    ply = 0
    for i, (before, entry) in enumerate(prepared):
        if isinstance(entry, Position):
            continue
        ply += 1
        best_score, best = scores[i]
        nxt = i + 1
        if nxt < len(prepared) and isinstance(prepared[nxt][1], Position):
            continue  # the position after it was replaced by a set-up: nothing to compare
        after = -(scores[nxt][0] if nxt < len(prepared) else end_score)
        if best is None or best == entry:
            continue
        kind = classify(best_score, after)
        if kind is None:
            continue
        played, better = before.pdn(entry), before.pdn(best)
        marks.append(Mark(ply, _number(before, ply, game), played, better, best_score - after, kind, best_score, after))
    return marks, curve


def white_view(score: int, turn: Color) -> int:
    """A score for the side to move as White's."""
    return score if turn is Color.WHITE else -score


def _end_score(game: Game) -> int:
    """The value of a finished game for the side to move there."""
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return 0
    return MATE_BOUND + 1 if outcome.winner is game.position.turn else -(MATE_BOUND + 1)


def _number(before: Position, ply: int, game: Game) -> str:
    """``12.`` for White's move, ``12...`` for Black's (counted from the game's first move)."""
    first_black = game.start.turn is Color.BLACK
    index = ply - 1 + (1 if first_black else 0)
    move_no = index // 2 + 1
    return f"{move_no}." if before.turn is Color.WHITE else f"{move_no}..."


@dataclass
class KeptAnalysis:
    """A finished analysis read back from the records: the same face as :class:`GameAnalysis`
    once it has finished (the page's graph and marks), no engine."""

    game_id: int
    moves: list[str]
    curve: list[int]
    marks: list[Mark] = field(default_factory=list)
    error: str | None = None
    finished: bool = True

    @property
    def total(self) -> int:
        return len(self.curve)

    @property
    def done(self) -> int:
        return len(self.curve)

    def progress(self) -> tuple[int, int, bool, str | None]:
        return (self.game_id, self.done, self.finished, self.error)

    def cancel(self) -> None:
        pass

    @classmethod
    def from_json(cls, game_id: int, data: Any) -> KeptAnalysis | None:
        """What :meth:`GameAnalysis.to_json` wrote; ``None`` for anything else (a damaged row:
        the game is simply not analysed)."""
        if not isinstance(data, dict) or data.get("format") != 1:
            return None
        moves, curve, marks = data.get("moves"), data.get("curve"), data.get("marks")
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            return None
        if not isinstance(curve, list) or len(curve) != len(moves) + 1:
            return None
        if not all(isinstance(v, int) and not isinstance(v, bool) for v in curve):
            return None
        try:
            kept = [Mark(**m) for m in marks] if isinstance(marks, list) else None
        except TypeError:
            return None
        if kept is None or not all(_a_mark(m, len(moves)) for m in kept):
            return None
        return cls(game_id, moves, curve, kept)


def _a_mark(m: Mark, plies: int) -> bool:
    numbers = (m.ply, m.loss, m.before, m.after)
    return (
        all(isinstance(n, int) and not isinstance(n, bool) for n in numbers)
        and 0 < m.ply <= plies
        and all(isinstance(t, str) for t in (m.number, m.played, m.better))
        and m.kind in ("material", "game", "win")
    )


class GameAnalysis:
    """The analysis of a game for the page. A worker thread asks an engine in a process of its
    own (``damas.computer.opponent``), so the board loop never waits for it; the page reads ``done`` of
    ``total`` positions, then ``marks`` (or ``error``)."""

    def __init__(self, game_id: int, game: Game, open_engine: Callable[[], Opponent], limits: Limits) -> None:
        self.game_id = game_id
        self.game = game.copy()
        self.moves = [pos.pdn(m) for pos, m in self.game.steps() if isinstance(m, Move)]
        self.total = len(self.game.steps()) + 1
        self.done = 0
        self.marks: list[Mark] = []
        self.curve: list[int] = []  # the value after each move, from White's side (once finished)
        self.error: str | None = None
        self.finished = False
        self._open = open_engine
        self._limits = limits
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="analysis", daemon=True)
        self._thread.start()

    def progress(self) -> tuple[int, int, bool, str | None]:
        return (self.game_id, self.done, self.finished, self.error)

    def cancel(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def to_json(self) -> dict[str, Any] | None:
        """The finished analysis as the records keep it (None: not finished, or failed)."""
        if not self.finished or self.error is not None:
            return None
        return {"format": 1, "moves": self.moves, "curve": self.curve, "marks": [asdict(m) for m in self.marks]}

    def _search(self, engine: Opponent, game: Game) -> tuple[int, Move | None]:
        if self._stop.is_set():
            raise EngineFailed("the analysis was cancelled")
        engine.ask(game, self._limits, level=10)
        deadline = time.monotonic() + expected_seconds(self._limits) + 30
        while (answer := engine.wait(0.2)) is None:
            if self._stop.is_set():
                raise EngineFailed("the analysis was cancelled")
            if time.monotonic() > deadline:
                raise EngineFailed(f"the engine ({engine.name}) did not answer in time")
        if answer.error is not None:
            raise EngineFailed(answer.error)
        self.done += 1
        return (answer.score or 0, answer.move)

    def _run(self) -> None:
        engine = None
        try:
            engine = self._open()
            opened = engine
            self.marks, self.curve = evaluate_game(self.game, search=lambda g: self._search(opened, g))
        except EngineFailed as exc:
            self.error = str(exc)
        except Exception as exc:  # never a dead thread without a word: the page says what happened
            log.exception("the analysis failed")
            self.error = f"the analysis failed: {exc}"
        finally:
            if engine is not None:
                engine.close()
            self.finished = True
