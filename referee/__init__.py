"""The referee: turning square events into moves for a rules game.

>>> from board_hal.debounce import Transition
>>> ref = Referee("international")
>>> ref.feed(Transition(0.0, 32, False))
[]
>>> [v.pdn for v in ref.feed(Transition(0.5, 28, True))]
['32-28']
"""

from referee.clock import ClockAction, ClockKeeper, TimeControl, parse_control
from referee.colour import ColourReferee, make_referee
from referee.core import Action, Link, Referee
from referee.log import LogError, LogHeader, dump_log, parse_log
from referee.pipeline import Pipeline
from referee.reconstruct import Reconstruction, reconstruct
from referee.vocabulary import (
    ACTIONS,
    CLOCK_ACTIONS,
    DEFAULT_MODE,
    LINK_STATES,
    MODES,
    TERMINATIONS,
    ActionName,
    ClockActionName,
    GameEnd,
    LedIntent,
    LinkState,
    Mode,
    MoveMade,
    Report,
    ReportKind,
    Role,
    Takeback,
    Verdict,
    known,
)

__all__ = [
    "ACTIONS",
    "CLOCK_ACTIONS",
    "DEFAULT_MODE",
    "LINK_STATES",
    "MODES",
    "TERMINATIONS",
    "Action",
    "ActionName",
    "ClockAction",
    "ClockActionName",
    "ClockKeeper",
    "ColourReferee",
    "GameEnd",
    "LedIntent",
    "Link",
    "LinkState",
    "LogError",
    "LogHeader",
    "Mode",
    "MoveMade",
    "Pipeline",
    "Reconstruction",
    "Referee",
    "Report",
    "ReportKind",
    "Role",
    "Takeback",
    "TimeControl",
    "Verdict",
    "dump_log",
    "known",
    "make_referee",
    "parse_control",
    "parse_log",
    "reconstruct",
]
