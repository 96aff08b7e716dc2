"""A king dragged slowly along its diagonal, resting on each square it crosses, fed through the
live pipeline and followed the way ``damas play``'s loop does (it wakes at the next debounce or
referee deadline): ``benchmarks/referee.py`` times it, ``tests/referee/test_drags.py`` checks
that the drag is recorded as the one move played.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from board_hal.debounce import Transition
from referee import MoveMade, Pipeline, Referee, Role, Verdict
from rules import Game, Move, Position
from rules.pdn import load_pdn

GAMES = Path(__file__).resolve().parents[1] / "data" / "games"


@dataclass(frozen=True)
class KingMove:
    """A plain king move of a real game, in its position; ``heard``: the squares the game's moves
    before it lifted a piece from or set one down on (the sensors live play has heard by then)."""

    position: Position
    move: Move
    heard: frozenset[int]


def king_moves(files: Iterable[Path] | None = None) -> list[KingMove]:
    """Every plain king move of two squares or more in the games (``files``: tests/data/games)."""
    out = []
    for path in sorted(GAMES.glob("*/*.pdn")) if files is None else files:
        for g in load_pdn(path):
            game = Game(g.variant, g.start)
            heard: set[int] = set()
            for pm in g.moves:
                if game.outcome() is not None:
                    break
                pos = game.position
                piece = pos.piece_at(pm.move.from_square)
                if piece is not None and piece.king and not pm.move.captured:
                    (fa, _), (fb, _) = pos.geometry.coord(pm.move.from_square), pos.geometry.coord(pm.move.to_square)
                    if abs(fa - fb) >= 2:
                        out.append(KingMove(pos, pm.move, frozenset(heard)))
                game.push(pm.move)
                heard |= {pm.move.from_square, pm.move.to_square, *pm.move.captured}
    return out


@dataclass
class Drag:
    """What the pipeline made of a drag: its verdicts, the referee after it, when the last
    placement was, and when (None: never) the LEDs showed the move and a verdict recorded it."""

    move: Move
    verdicts: list[Verdict]
    referee: Referee
    placed: float
    shown: float | None
    recorded: float | None

    @property
    def played(self) -> bool:
        """Recorded as the one move played, and lit so?"""
        return self.referee.game.move_stack == [self.move] and self.shown is not None and self.recorded is not None

    @property
    def misrecorded(self) -> bool:
        """Does the record hold another move, and nobody is asked about it?"""
        moves = self.referee.game.move_stack
        return bool(moves) and moves != [self.move] and self.referee.report is None


def crossed(pos: Position, move: Move) -> list[int]:
    """The squares a plain king move crosses, in order."""
    geo = pos.geometry
    (fa, ra), (fb, rb) = geo.coord(move.from_square), geo.coord(move.to_square)
    n = abs(fb - fa)
    return [geo.square_at(fa + (fb - fa) // n * k, ra + (rb - ra) // n * k) for k in range(1, n)]


def drag(
    pos: Position,
    move: Move,
    rest: float | Sequence[float],
    *,
    heard: Iterable[int] = (),
    sensor_faults: bool = True,
) -> Drag:
    """Lift the king, set it down on each square it crosses for ``rest`` seconds (or the next
    of ``rest``'s, square by square), then on its destination; follow the pipeline until
    nothing is due (``heard``: the sensors the referee has heard before, as live play would have)."""
    ref = Referee(pos.variant, pos.fen(), heard=heard, sensor_faults=sensor_faults)
    pipe = Pipeline(ref)
    squares = crossed(pos, move)
    rests = [rest] * len(squares) if isinstance(rest, float | int) else list(rest)
    t = 1.0
    out = pipe.feed(Transition(t, move.from_square, False))
    t += 0.3
    for sq, held in zip(squares, rests, strict=True):
        out += pipe.feed(Transition(t, sq, True))
        t += held
        out += pipe.feed(Transition(t, sq, False))
        t += 0.04
    placed = t
    out += pipe.feed(Transition(placed, move.to_square, True))
    shown = recorded = None
    now = placed
    for step in range(100):  # damas play's loop: wake at the next deadline
        if step:
            # (a referee timer past due waits for a transition still in its debounce window: the
            # loop wakes again when that window ends)
            due = [d for d in (pipe.debouncer.next_deadline(), ref.next_deadline()) if d is not None and d > now]
            if not due:
                break
            now = min(due)
            out += pipe.advance(now)
        roles = {i.square: i.role for i in ref.led_intents()}
        if shown is None and (roles.get(move.from_square), roles.get(move.to_square)) in (
            (Role.FROM, Role.TO),
            (Role.LAST, Role.LAST),
        ):  # the move lit as under way, or at once as the last move recorded
            shown = now
        if recorded is None and any(isinstance(v, MoveMade) and v.ply == 1 and v.move == move for v in out):
            recorded = now
    return Drag(move, out, ref, placed, shown, recorded)
