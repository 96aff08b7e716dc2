"""Live analysis: the position on the board searched while the players move (the page's
evaluation bar, its number and the engine's line), as lidraughts' analysis board does.

A worker thread holds an engine in a process of its own (``damas.computer.opponent``, as the
computer's moves and the game's analysis do), so the board loop only hands it the game
(:meth:`LiveAnalysis.follow`, cheap: compared by position) and reads the newest finished depth
(:meth:`LiveAnalysis.seen`). Each position is searched one depth after another, so a deeper
answer replaces a shallower one while the players think; a move on the board drops the search
under way and starts again from depth 1. The search stops at ``max_depth`` or after
``max_time`` seconds in one position (the engine's process then sleeps).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from damas.computer.analysis import white_view
from damas.computer.opponent import EngineFailed, Opponent, expected_seconds
from engine import MATE_BOUND, Limits
from rules import Color, Game, Move, Position

log = logging.getLogger(__name__)

MAX_DEPTH = 30  # plies: beyond this the line no longer changes in practice
MAX_TIME = 60.0  # seconds in one position before the engine rests


@dataclass(frozen=True)
class Seen:
    """The deepest finished search of one position."""

    key: tuple[str, int]  # the position's FEN and the game's ply count: which position this is
    depth: int
    score: int  # hundredths of a man, from White's side; beyond ±MATE_BOUND a forced result
    line: tuple[str, ...]  # the engine's line in the variant's notation, from the side to move
    numbered: str  # the line as a player reads it: ``12. c3-d4 f6-e5 13. ...``


def bar(score: int) -> float:
    """The share of the bar that is White's (0-100): level is half, a man up about two thirds,
    a forced win all of it."""
    if score >= MATE_BOUND:
        return 100.0
    if score <= -MATE_BOUND:
        return 0.0
    return round(100 / (1 + 10 ** (-score / 400)), 1)


def line_text(pos: Position, moves: tuple[Move, ...], first_number: int) -> tuple[tuple[str, ...], str]:
    """The moves in the variant's notation, and as a numbered line (``12... f6-e5 13. c3-d4``)."""
    words: list[str] = []
    out: list[str] = []
    number = first_number
    for i, m in enumerate(moves):
        text = pos.pdn(m)
        words.append(text)
        if pos.turn is Color.WHITE:
            out.append(f"{number}. {text}")
        else:
            out.append(f"{number}... {text}" if i == 0 else text)
            number += 1
        pos = pos.apply(m)
    return tuple(words), " ".join(out)


def move_number(game: Game) -> int:
    """The number of the move the side to move is about to make (counted from the game's start)."""
    first_black = game.start.turn is Color.BLACK
    return (game.ply + (1 if first_black else 0)) // 2 + 1


class LiveAnalysis:
    """The game's position searched depth after depth, off the board loop."""

    def __init__(
        self,
        open_engine: Callable[[], Opponent],
        *,
        max_depth: int = MAX_DEPTH,
        max_time: float = MAX_TIME,
    ) -> None:
        self._open = open_engine
        self.max_depth = max_depth
        self.max_time = max_time
        self.error: str | None = None
        self._seen: Seen | None = None
        self._game: Game | None = None
        self._key: tuple[str, int] | None = None
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="live-analysis", daemon=True)
        self._thread.start()

    def follow(self, game: Game) -> None:
        """The position to analyse now (nothing changes when it is the one already followed)."""
        key = (game.position.fen(), game.ply)
        with self._lock:
            if key == self._key:
                return
            self._key, self._game = key, game.copy()
        self._wake.set()

    def seen(self) -> Seen | None:
        """The deepest finished search of the position followed now (None until depth 1 is in)."""
        with self._lock:
            s = self._seen
            return s if s is not None and s.key == self._key else None

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=10)

    # -- the worker ------------------------------------------------------------------------------
    def _current(self) -> tuple[tuple[str, int] | None, Game | None]:
        with self._lock:
            return self._key, self._game

    def _run(self) -> None:
        engine: Opponent | None = None
        try:
            engine = self._open()
            while not self._stop.is_set():
                self._wake.wait()
                self._wake.clear()
                key, game = self._current()
                if key is None or game is None or self._stop.is_set():
                    continue
                self._deepen(engine, key, game)
        except EngineFailed as exc:
            self.error = str(exc)
        except Exception as exc:  # never a dead thread without a word: the page says what happened
            log.exception("the live analysis failed")
            self.error = f"the live analysis failed: {exc}"
        finally:
            if engine is not None:
                engine.close()

    def _deepen(self, engine: Opponent, key: tuple[str, int], game: Game) -> None:
        """Search ``game`` one depth after another until the position changes, the depth or the
        time runs out, or the analysis is closed."""
        if game.outcome() is not None:
            return  # a finished game: the page shows its result, not a search
        started = time.monotonic()
        first = move_number(game)
        for depth in range(1, self.max_depth + 1):
            limits = Limits(depth=depth)
            engine.ask(game, limits, level=10)
            deadline = time.monotonic() + expected_seconds(limits) + 30
            while (answer := engine.wait(0.1)) is None:
                if self._moved(key) or time.monotonic() > started + self.max_time:
                    engine.cancel()
                    return
                if time.monotonic() > deadline:
                    raise EngineFailed(f"the engine ({engine.name}) did not answer in time")
            if answer.error is not None:
                raise EngineFailed(answer.error)
            if answer.move is None or self._moved(key):
                return
            words, numbered = line_text(game.position, answer.pv or (answer.move,), first)
            seen = Seen(key, answer.depth or depth, white_view(answer.score or 0, game.turn), words, numbered)
            with self._lock:
                self._seen = seen
            if abs(seen.score) >= MATE_BOUND or time.monotonic() > started + self.max_time:
                return  # a forced result needs no deeper look

    def _moved(self, key: tuple[str, int]) -> bool:
        return self._stop.is_set() or self._current()[0] != key
