"""The referee: turning square events into moves for a rules game.

>>> from board_hal.debounce import Transition
>>> ref = Referee("international")
>>> ref.feed(Transition(0.0, 32, False))
[]
>>> [v.pdn for v in ref.feed(Transition(0.5, 28, True))]
['32-28']
"""

from referee.clock import ClockAction, ClockKeeper, TimeControl, parse_control
from referee.core import ACTIONS, LINK_STATES, MODES, Action, Link, Referee
from referee.log import LogError, LogHeader, dump_log, parse_log
from referee.pipeline import Pipeline
from referee.reconstruct import Reconstruction, reconstruct
from referee.vocabulary import (
    TERMINATIONS,
    GameEnd,
    LedIntent,
    MoveMade,
    Report,
    ReportKind,
    Role,
    Takeback,
    Verdict,
)

__all__ = [
    "ACTIONS",
    "LINK_STATES",
    "MODES",
    "TERMINATIONS",
    "Action",
    "ClockAction",
    "ClockKeeper",
    "GameEnd",
    "LedIntent",
    "Link",
    "LogError",
    "LogHeader",
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
    "parse_control",
    "parse_log",
    "reconstruct",
]
