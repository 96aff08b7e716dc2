"""The referee's stable vocabulary: report kinds, LED roles and verdicts.

The web page, the LED backends and the PDN recorder all consume these; the string
values are a public contract (they appear in ``damas replay --json``).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, get_args

from board_hal.leds import Role
from rules import Move, Termination

__all__ = [
    "ACTIONS",
    "CLOCK_ACTIONS",
    "DEFAULT_MODE",
    "LINK_STATES",
    "MODES",
    "TERMINATIONS",
    "ActionName",
    "ClockActionName",
    "GameEnd",
    "LedIntent",
    "LinkState",
    "Mode",
    "MoveMade",
    "Report",
    "ReportKind",
    "Role",
    "Takeback",
    "Verdict",
    "known",
]

#: how strictly the referee judges: ``casual`` accepts takebacks and corrections, ``tournament``
#: reports them (and touch-move, the order of removals, the clock's procedure)
Mode = Literal["casual", "tournament"]
MODES: tuple[Mode, ...] = get_args(Mode)
DEFAULT_MODE: Mode = "casual"

#: what the players (or the app) enter: the ``action`` of an event-log line (``referee.core.Action``)
ActionName = Literal[
    "resign", "draw", "result", "new-game", "computer", "computer-move", "confirm", "position", "sensor-repaired"
]
ACTIONS: tuple[ActionName, ...] = get_args(ActionName)

#: the game clock's actions in the event log (``referee.clock.ClockAction``)
ClockActionName = Literal["clock", "clock-pause", "clock-resume", "clock-adjust", "flag"]
CLOCK_ACTIONS: tuple[ClockActionName, ...] = get_args(ClockActionName)

#: the board's link in the event log (``referee.core.Link``)
LinkState = Literal["down", "up", "reconstructed"]
LINK_STATES: tuple[LinkState, ...] = get_args(LinkState)


_Name = TypeVar("_Name", bound=str)


def known(value: object, names: tuple[_Name, ...]) -> _Name | None:
    """``value`` (text from a user, a file or the network) as one of ``names``, or None.

    >>> known("tournament", MODES), known("blitz", MODES), known(None, MODES)
    ('tournament', None, None)
    """
    return next((name for name in names if value == name), None)


class ReportKind(enum.Enum):
    """What a report is about (closed vocabulary)."""

    SETUP = "setup"  # the board does not match the start (or FEN) position yet
    SETUP_OK = "setup-ok"  # it does now
    REQUIRED_CAPTURE = "required-capture"  # a capture is compulsory (or a larger one is)
    WRONG_SIDE = "wrong-side"  # a piece of the side not to move was moved
    BACKWARD_MAN = "backward-man"  # a man moved backward
    ILLEGAL_SQUARE = "illegal-square"  # a piece was put on a square it cannot reach
    NO_LEGAL_MOVE = "no-legal-move"  # a piece that cannot move was lifted and held
    OFF_SQUARE = "off-square"  # a piece stands on a non-playing cell
    OWN_PIECE_REMOVED = "own-piece-removed"  # one's own piece taken off the board
    WRONG_PIECE_REMOVED = "wrong-piece-removed"  # a piece that was not captured was removed
    CAPTURED_PIECE_LEFT = "captured-piece-left"  # the opponent moved before the captured pieces came off
    KNOCKED_OVER = "knocked-over"  # several pieces out of place at once
    UNEXPLAINED = "unexplained"  # no legal move or move in progress explains the board
    TOUCH_MOVE = "touch-move"  # tournament: a piece was touched (lift and put back)
    CORRECTION = "correction"  # tournament: a released piece was moved again
    TAKEBACK = "takeback"  # tournament: the previous position was restored
    PROCEDURE = "procedure"  # tournament: captured pieces removed before the end or out of order
    IRREGULARITY_ACCEPTED = "irregularity-accepted"  # tournament: the opponent played on; it stands
    RESTORED = "restored"  # the board matches the game again; the last report is cleared
    GAME_OVER = "game-over"  # pieces moved after the end of the game
    RECONSTRUCTED = "reconstructed"  # the board's link came back: the moves made meanwhile were recorded
    LINK_GAP = "link-gap"  # the link came back, but the moves made meanwhile cannot be told: restore
    # the game clock (referee/clock.py)
    CLOCK_EARLY = "clock-early"  # tournament: pressed before the captured pieces were off the board
    CLOCK_NO_MOVE = "clock-no-move"  # tournament: pressed without a move having been made
    CLOCK_WRONG_SIDE = "clock-wrong-side"  # tournament: pressed by the side whose clock is not running
    CLOCK_NOT_PRESSED = "clock-not-pressed"  # a notice: a move made while the opponent's clock ran
    FLAG_FALL = "flag-fall"  # a player's time ran out
    CLOCK_PAUSED = "clock-paused"  # the arbiter paused the clocks (or the power went)
    CLOCK_RESUMED = "clock-resumed"
    CLOCK_ADJUSTED = "clock-adjusted"  # the arbiter set the times
    COMPUTER_MOVE = "computer-move"  # the hands did not play the computer's move (or moved while it thinks)
    # a sensor that does not answer (referee.faults)
    SENSOR = "sensor"  # a notice: the sensor under a square does not answer; the game goes on
    SENSOR_CONFIRM = "sensor-confirm"  # a sensor may not answer and two readings remain: confirm the move
    # a board that senses colour (referee/colour.py): the pieces on the board are not the game's
    WRONG_PIECE = "wrong-piece"  # a piece of the other colour stands where the game has a piece
    PIECES_SWAPPED = "pieces-swapped"  # two pieces stand on each other's squares
    CROWN = "crown"  # a notice: a man that became a king has no crown yet
    LOST_CROWN = "lost-crown"  # a king's crown is off
    EXTRA_CROWN = "extra-crown"  # a man wears a crown


@dataclass(frozen=True)
class LedIntent:
    square: int
    role: Role


@dataclass(frozen=True)
class Report:
    kind: ReportKind
    squares: tuple[int, ...]
    message: str
    t: float = 0.0
    missing: tuple[int, ...] = ()
    extra: tuple[int, ...] = ()
    cells: tuple[str, ...] = ()
    #: values the message was made from (for other languages)
    params: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "report",
            "kind": self.kind.value,
            "squares": list(self.squares),
            "message": self.message,
        }
        if self.missing:
            out["missing"] = list(self.missing)
        if self.extra:
            out["extra"] = list(self.extra)
        if self.cells:
            out["cells"] = list(self.cells)
        out["t"] = round(self.t, 3)
        return out


@dataclass(frozen=True)
class MoveMade:
    ply: int
    move: Move
    pdn: str
    t: float
    #: made while the board's link was down, recorded from the occupancy it reported after
    reconstructed: bool = False
    #: read with a sensor that does not answer: the square it could not see (its change inferred)
    inferred: int | None = None
    #: both clocks when the move was recorded (seconds; ``running``, ``took``), with a game clock
    clock: dict[str, Any] | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "move",
            "ply": self.ply,
            "move": self.pdn,
            "from": self.move.from_square,
            "to": self.move.to_square,
            "captured": list(self.move.captured),
            "t": round(self.t, 3),
        }
        if self.reconstructed:
            out["reconstructed"] = True
        if self.inferred is not None:
            out["inferred"] = True
            out["sensor"] = self.inferred
        if self.clock is not None:
            out["clock"] = self.clock
        return out


@dataclass(frozen=True)
class Takeback:
    ply: int
    t: float

    def to_json(self) -> dict[str, Any]:
        return {"type": "takeback", "ply": self.ply, "t": round(self.t, 3)}


@dataclass(frozen=True)
class GameEnd:
    result: str
    termination: str
    t: float

    def to_json(self) -> dict[str, Any]:
        return {"type": "end", "result": self.result, "termination": self.termination, "t": round(self.t, 3)}


Verdict = MoveMade | Takeback | Report | GameEnd

#: the termination values of ``end`` verdicts
TERMINATIONS: tuple[str, ...] = tuple(t.value for t in Termination)
