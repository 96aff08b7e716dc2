"""The computer at the board: it plays one side through an engine, and gives hints.

The board loop calls :meth:`Computer.update` on every turn; it never waits for the engine
(``damas.computer.opponent``: the engine thinks in a process of its own). When the engine's move
arrives it is *entered* like a player's action, journalled (``{"action": "computer-move",
"move": "22-17"}``), so the referee expects exactly that move from the hands, the LEDs show
it, and a replay of the journal agrees with what live play showed. An engine that fails is
shown once on the page and in the log; the computer then stops (``{"action": "computer"}``
without a side) and the game goes on between the players.

A hint (on request, casual games unless ``[engine] hints`` says otherwise) is the engine's
move for the player to move, lit in the ``hint`` role until the position changes; it is
not journalled (it changes nothing in the game).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass

from damas.computer.opponent import HINT_TIME, EngineSettings, Opponent, limits_for, open_engine
from engine import Limits
from engine.hub import move_text
from referee import Action, Mode, Referee
from rules import Color, Move, Position

log = logging.getLogger(__name__)

_COMPUTER_TAG = re.compile(r" \((level [0-9]+|[0-9.]+ s a move)\)$")
Key = tuple[int, Position]  # a position in the game: how many moves and set-ups led to it, and it


@dataclass(frozen=True)
class Question:
    kind: str  # "move" or "hint"
    key: Key
    ticket: int


def key_of(referee: Referee) -> Key:
    return (len(referee.game.history()), referee.position)


class Computer:
    """Plays the referee's ``computer`` side with an engine opened on demand, and answers hints."""

    def __init__(
        self,
        settings: EngineSettings,
        variant: str,
        *,
        opener: Callable[[str, EngineSettings, int | None], Opponent] | None = None,
    ) -> None:
        self.settings = settings
        self.variant = variant
        self._open = opener or (lambda v, s, level: open_engine(v, s, level=level))
        self.engine: Opponent | None = None
        self.question: Question | None = None
        self.hint_for: Key | None = None  # a hint was asked for this position
        self.hint: tuple[Key, Move] | None = None
        self.error: str | None = None  # the engine's failure, shown until the next game
        self._due: tuple[Key, Move] | None = None  # an answer to enter (retried while the records cannot be written)
        self._default_name = self._name_before_start()

    # -- what the page shows ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        if self.engine is not None and self.engine.name != "engine":
            return self.engine.name
        return self._default_name

    def _name_before_start(self) -> str:
        """The engine's name before it has said its own: its program's, or ours as our id line says."""
        if self.settings.command:
            return self.settings.command.split()[0].rsplit("/", 1)[-1]
        from damas import version

        return f"damas {version()}"

    def thinking(self, referee: Referee) -> bool:
        return self.question is not None and self.question.kind == "move" and self.question.key == key_of(referee)

    def hint_move(self, referee: Referee) -> Move | None:
        if self.hint is not None and self.hint[0] == key_of(referee):
            return self.hint[1]
        return None

    def hint_pending(self, referee: Referee) -> bool:
        return self.hint_for == key_of(referee) and self.hint_move(referee) is None

    # -- requests -------------------------------------------------------------------------------------
    def ask_hint(self, referee: Referee, mode: Mode) -> None:
        """A hint for the player to move (``ValueError`` naming why there is none)."""
        if not self.settings.allows_hint(mode):
            if self.settings.hints == "never":
                raise ValueError('hints are switched off ([engine] hints = "never")')
            raise ValueError('hints are for casual games (set [engine] hints = "always" to allow them)')
        if referee.ended:
            raise ValueError("the game is over")
        if referee.computer is referee.position.turn:
            raise ValueError("it is the computer's move")
        if self.error is not None and self.engine is None and self.settings.command is not None:
            raise ValueError(self.error)
        self.hint_for = key_of(referee)

    def reset(self) -> None:
        """A new game: forget the questions, the hint and the last failure (the engine stays)."""
        if self.engine is not None and self.question is not None:
            self.engine.cancel()
        self.question = None
        self.hint_for = None
        self.hint = None
        self.error = None
        self._due = None

    def set_variant(self, variant: str) -> None:
        """A new game in another variant: the engine is started again for it when next asked."""
        if variant != self.variant:
            self.close()  # (forgets the engine: the next question starts one for ``variant``)
            self.variant = variant

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None

    # -- the board loop's turn -----------------------------------------------------------------------
    def update(self, referee: Referee, enter: Callable[[Action], None], now: float) -> bool:
        """Look at the engine's answers and ask what is needed now; ``enter`` journals and plays
        an action. Returns whether anything the page shows changed."""
        changed = False
        if self._due is not None:
            changed |= self._enter_move(referee, enter, now)
        if self.engine is not None:
            answer = self.engine.poll()
            if answer is not None:
                changed = True
                question, self.question = self.question, None
                if answer.error is not None:
                    self._failed(answer.error)
                elif question is not None and answer.ticket == question.ticket and answer.move is not None:
                    if question.kind == "move":
                        self._due = (question.key, answer.move)
                        self._enter_move(referee, enter, now)
                    else:
                        self.hint = (question.key, answer.move)
        if self.error is not None and referee.computer is not None:  # the engine failed: the players go on
            try:
                enter(Action(now, "computer"))
                changed = True
            except ValueError:
                pass  # the records cannot be written: the next turn tries again (the page says why)
        want = self._wanted(referee)
        asked = None if self.question is None else (self.question.kind, self.question.key)
        if want != asked:
            changed = True
            if self.question is not None and self.engine is not None:
                self.engine.cancel()
            self.question = None
            if want is not None:
                self._ask(referee, *want)
        return changed

    def _wanted(self, referee: Referee) -> tuple[str, Key] | None:
        if referee.ended:
            return None
        key = key_of(referee)
        turn = referee.position.turn
        if referee.computer is turn:
            if self.error is None and referee.expected() is None and (self._due is None or self._due[0] != key):
                return ("move", key)
            return None
        if self.hint_for == key and self.hint_move(referee) is None:
            return ("hint", key)
        return None

    def _ask(self, referee: Referee, kind: str, key: Key) -> None:
        level = referee.computer_level or self.settings.level
        if self.engine is None:
            try:
                self.engine = self._open(self.variant, self.settings, level)
            except (OSError, ValueError) as exc:  # a process that cannot be made at all
                self.error = f"the engine cannot be started: {exc}"
                log.error("%s", self.error)
                return
        external = self.settings.command is not None
        if kind == "move":  # (its time a move as the game's journal says, else as configured)
            limits = limits_for(
                level, referee.computer_move_time or self.settings.move_time, external=external, variant=self.variant
            )
        else:
            level = 10  # a hint is the engine's best
            limits = Limits(move_time=self.settings.move_time or HINT_TIME)
        ticket = self.engine.ask(referee.game, limits, level=level)
        self.question = Question(kind, key, ticket)

    def _enter_move(self, referee: Referee, enter: Callable[[Action], None], now: float) -> bool:
        assert self._due is not None
        key, move = self._due
        if key != key_of(referee) or referee.computer is not referee.position.turn:
            self._due = None  # the game moved on meanwhile (a takeback, a new game)
            return True
        try:
            enter(Action(now, "computer-move", move=move_text(move)))
        except ValueError:
            return False  # the records cannot be written now: the next turn tries again
        self._due = None
        return True

    def _failed(self, error: str) -> None:
        """The engine gave up: say so once; the players go on without the computer."""
        self.error = error
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        self.hint_for = None
        self._due = None


def computer_tag(name: str, level: int, move_time: float | None = None) -> str:
    """The PDN name of the computer's side (``White``/``Black`` tag): its level, or its time."""
    return f"{name} ({move_time:g} s a move)" if move_time else f"{name} (level {level})"


def is_computer_tag(value: str) -> bool:
    return bool(_COMPUTER_TAG.search(value))


def side_of(text: str | None, default: Color) -> Color:
    if text is None:
        return default
    if text not in ("white", "black"):
        raise ValueError(f"side must be white or black, not {text[:40]!r}")
    return Color(text)
