"""A game: a start position, the moves played, the draw rules and the result.

>>> g = Game("international")
>>> g.push_pdn("32-28")
Move(path=(32, 28))
>>> g.turn
<Color.BLACK: 'black'>
>>> g.pop()
Move(path=(32, 28))
>>> g.outcome() is None
True
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from itertools import pairwise

from rules.errors import IllegalMoveError, InvalidResultError, shown_text
from rules.move import Move
from rules.position import LegalMoves, NoMoves, Position
from rules.variants import Color, EndingRule, Variant, find_variant


class Termination(enum.Enum):
    """Why a game ended: a closed vocabulary (values are stable strings)."""

    NO_PIECES = "no-pieces"  # the side to move has no piece left (INT 7.2, PT 4.2)
    NO_MOVES = "no-moves"  # the side to move cannot move
    KINGS_ONLY = "kings-only"  # draw: N moves with only kings moved and no capture
    SMALL_ENDING = "small-ending"  # draw: a small ending not won in time
    REPETITION = "repetition"  # draw: the same position for the third time
    RESIGNATION = "resignation"
    AGREEMENT = "agreement"  # draw by agreement
    RESULT_ENTERED = "result-entered"  # a result entered by the players or the arbiter
    TIME_FORFEIT = "time-forfeit"  # the player's time ran out (the clock is the referee's)


@dataclass(frozen=True)
class Outcome:
    termination: Termination
    winner: Color | None

    def result(self, variant: Variant | str) -> str:
        """The PDN result in the variant's style (``1-0``, ``2-0``, ``1/2-1/2``...)."""
        white, draw, black = find_variant(variant).results
        if self.winner is None:
            return draw
        return white if self.winner is Color.WHITE else black


def parse_result(text: str) -> Color | str | None:
    """A PDN result in any style: the winner, None for a draw, or ``"*"`` when unknown.

    Raises :class:`InvalidResultError` (a ``ValueError``) for text that is not a result.

    >>> parse_result("2-0"), parse_result("1/2-1/2"), parse_result("*")
    (<Color.WHITE: 'white'>, None, '*')
    """
    t = text.strip().replace("½", "1/2")
    if t in ("1-0", "2-0"):
        return Color.WHITE
    if t in ("0-1", "0-2"):
        return Color.BLACK
    if t in ("1/2-1/2", "1-1", "0.5-0.5"):
        return None
    if t in ("*", "0-0", "?", ""):
        return "*"
    raise InvalidResultError(f"invalid result: {shown_text(text)}")


@dataclass(frozen=True)
class _State:
    position: Position
    quiet_king_plies: int
    ending: tuple[int, int] | None  # (rule index, plies counted)
    entry: Move | Position | None  # the move that led here, or a set-up position


class Game:
    """A mutable game with ``push``/``pop``, a public ``move_stack`` and the draw rules.

    Draw thresholds default to the variant's and may be changed per game
    (``kings_only_moves``, ``endings``, ``repetition_count``).
    """

    def __init__(
        self,
        variant: Variant | str = "brazilian",
        fen: str | Position | None = None,
        *,
        kings_only_moves: int | None = None,
        endings: tuple[EndingRule, ...] | None = None,
        repetition_count: int | None = None,
    ) -> None:
        self.variant = find_variant(variant)
        if fen is None:
            start = Position.start(self.variant)
        elif isinstance(fen, Position):
            start = fen
        else:
            start = Position.from_fen(fen, self.variant)
        if start.variant is not self.variant:
            raise ValueError(f"position of {start.variant.name!r} for a {self.variant.name!r} game")
        self.kings_only_moves = self.variant.kings_only_moves if kings_only_moves is None else kings_only_moves
        self.endings = self.variant.endings if endings is None else endings
        self.repetition_count = self.variant.repetition_count if repetition_count is None else repetition_count
        self.start = start
        self.move_stack: list[Move] = []
        self._states: list[_State] = [_State(start, 0, self._ending_state(start, None, False), None)]
        self.entered: Outcome | None = None
        #: the outcome of the last state looked at (a state is appended once, after its history:
        #: the same last state is the same game), as the referee asks after every event
        self._outcome: tuple[_State, Outcome | None] | None = None

    # -- state ------------------------------------------------------------------------------
    @property
    def position(self) -> Position:
        return self._states[-1].position

    @property
    def turn(self) -> Color:
        return self.position.turn

    @property
    def ply(self) -> int:
        """Moves played so far."""
        return len(self.move_stack)

    def fen(self) -> str:
        return self.position.fen()

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves as a live view (``in``, ``len``, iteration); none once the game
        has ended."""
        if self.outcome() is not None:
            return NoMoves(self.position)
        return self.position.legal_moves

    def copy(self) -> Game:
        g = Game.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.move_stack = list(self.move_stack)
        g._states = list(self._states)
        return g

    def history(self) -> list[Move | Position]:
        """Moves and set-ups, in order."""
        return [s.entry for s in self._states[1:] if s.entry is not None]

    def steps(self) -> list[tuple[Position, Move | Position]]:
        """Each move or set-up with the position it was played from (nothing recomputed)."""
        return [(before.position, after.entry) for before, after in pairwise(self._states) if after.entry is not None]

    def positions(self) -> list[Position]:
        return [s.position for s in self._states]

    # -- moving -----------------------------------------------------------------------------
    def push(self, move: Move, *, after_end: bool = False) -> Move:
        """Play a legal move; returns it as the engine knows it (with its route).

        Once the game has ended moves are refused, unless ``after_end`` is set: recorded
        games sometimes go on after a draw rule applied (an online server that did not
        enforce a repetition), and a record must still replay.
        """
        if not after_end and self.outcome() is not None:
            raise IllegalMoveError(f"illegal move: {move.numeric()!r} (the game is over)")
        before = self.position
        legal = before.legal(move)
        after = before.apply(legal)
        piece = before.piece_at(legal.from_square)
        irreversible = bool(legal.captured) or (piece is not None and not piece.king)
        prev = self._states[-1]
        quiet = 0 if irreversible else prev.quiet_king_plies + 1
        ending = self._ending_state(after, prev.ending, bool(legal.captured))
        self._states.append(_State(after, quiet, ending, legal))
        self.move_stack.append(legal)
        return legal

    def push_pdn(self, text: str) -> Move:
        """Play the move that PDN move text names (see :meth:`rules.Position.parse_pdn`)."""
        return self.push(self.position.parse_pdn(text))

    def setup(self, position: Position) -> None:
        """Continue from a set-up position (PDN 3.0 ``/FEN "..."/`` in the move text)."""
        if position.variant is not self.variant:
            raise ValueError(f"position of {position.variant.name!r} for a {self.variant.name!r} game")
        self._states.append(_State(position, 0, self._ending_state(position, None, False), position))

    def pop(self) -> Move | Position:
        """Take back the last move (or set-up); returns it."""
        if len(self._states) == 1:
            raise IndexError("pop from a game with no moves")
        state = self._states.pop()
        assert state.entry is not None
        if isinstance(state.entry, Move):
            self.move_stack.pop()
        self.entered = None
        return state.entry

    def peek(self) -> Move | None:
        return self.move_stack[-1] if self.move_stack else None

    # -- entered results ------------------------------------------------------------------
    def resign(self, color: Color) -> Outcome:
        self.entered = Outcome(Termination.RESIGNATION, color.other)
        return self.entered

    def lose_on_time(self, color: Color) -> Outcome:
        """``color``'s flag fell: a loss on time."""
        self.entered = Outcome(Termination.TIME_FORFEIT, color.other)
        return self.entered

    def agree_draw(self) -> Outcome:
        self.entered = Outcome(Termination.AGREEMENT, None)
        return self.entered

    def set_result(self, result: str) -> Outcome:
        """Enter a result (any PDN style); ``*`` clears an entered result."""
        winner = parse_result(result)
        if winner == "*":
            self.entered = None
            return Outcome(Termination.RESULT_ENTERED, None)
        assert not isinstance(winner, str)
        self.entered = Outcome(Termination.RESULT_ENTERED, winner)
        return self.entered

    # -- ends of game -------------------------------------------------------------------
    def _ending_state(self, pos: Position, prev: tuple[int, int] | None, captured: bool) -> tuple[int, int] | None:
        wk, wm, bk, bm = pos.material()
        for i, rule in enumerate(self.endings):
            for sk, sm, k, m in rule.material:
                for strong, strong_mat, weak_mat in (
                    (Color.WHITE, (wk, wm), (bk, bm)),
                    (Color.BLACK, (bk, bm), (wk, wm)),
                ):
                    if strong_mat != (sk, sm) or weak_mat != (k, m):
                        continue
                    if prev is not None and prev[0] == i and not captured:
                        return (i, prev[1] + 1)
                    if rule.counted_from_squares and not (
                        set(pos.squares(strong, king=True)) & rule.counted_from_squares
                    ):
                        return None
                    return (i, 0)
        return None

    def is_kings_only_draw(self) -> bool:
        return self.kings_only_moves > 0 and self._states[-1].quiet_king_plies >= 2 * self.kings_only_moves

    def is_ending_draw(self) -> bool:
        state = self._states[-1].ending
        return state is not None and state[1] >= 2 * self.endings[state[0]].moves

    def repetitions(self) -> int:
        """How many times the current position (same side to move) has stood."""
        key = self.position.key
        n = 0
        for state in reversed(self._states):
            if state.position.key == key:
                n += 1
            if isinstance(state.entry, Position):
                break
        return n

    def is_repetition(self) -> bool:
        return self.repetition_count > 0 and self.repetitions() >= self.repetition_count

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""
        if self.entered is not None:
            return self.entered
        last = self._states[-1]
        if self._outcome is not None and self._outcome[0] is last:
            return self._outcome[1]
        found = self._outcome_of_position()
        self._outcome = (last, found)
        return found

    def _outcome_of_position(self) -> Outcome | None:
        pos = self.position
        own = pos.squares(pos.turn)
        if not own:
            return Outcome(Termination.NO_PIECES, pos.turn.other)
        if not pos.has_legal_moves():
            return Outcome(Termination.NO_MOVES, pos.turn.other)
        if self.is_repetition():
            return Outcome(Termination.REPETITION, None)
        if self.is_kings_only_draw():
            return Outcome(Termination.KINGS_ONLY, None)
        if self.is_ending_draw():
            return Outcome(Termination.SMALL_ENDING, None)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def result(self) -> str:
        """The PDN result string, ``*`` while the game goes on."""
        o = self.outcome()
        return "*" if o is None else o.result(self.variant)
