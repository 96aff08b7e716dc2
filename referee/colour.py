"""The referee on a board that senses colour (and crowns): what presence cannot decide.

A board with reed switches sees only which squares are occupied, so the referee reads
moves from occupancy alone; the rules say which piece stands where. A board that sees each
piece's colour (two Hall switches per square, or DGT's draughts board) and crown (linear
Hall sensors, DGT's board) can tell whether the pieces on the board are the game's. This
referee is the presence referee (``referee.core``) unchanged — every move is still the one
legal move its occupancy allows, so the record never depends on colour — with one more
judgment: whenever the board's occupancy matches the game, and has stayed so for
``settle_time``, the pieces sensed are compared with the game's, and a difference is
reported, with what to do and its squares lit:

========================  ==========================================================  ==============
kind                      when                                                        law
========================  ==========================================================  ==============
``wrong-piece``           a piece of the other colour stands where the game has a     INT 5.4 (an
                          piece (a captured piece put down on the landing square,     opponent's
                          one put back on the wrong square during the removals, a     piece moved;
                          set-up with colours exchanged)                              own pieces
                                                                                      removed), 5.2
``pieces-swapped``        two pieces stand on each other's squares (exchanged in an   INT 5.5 (an
                          adjustment, or a man and a king of one colour lifted        upset position
                          together and put down on each other's places)               is put back)
``crown``                 a man that became a king has no crown yet (a notice: it     INT 3.5, 3.8;
                          counts as a king all the same, PT 2.2.7)                    PT 2.2.5-2.2.7
``lost-crown``            a king's crown is off                                       INT 3.5
``extra-crown``           a man wears a crown (a man passing the far row mid-capture  INT 4.15,
                          stays a man)                                                FEN 21
========================  ==========================================================  ==============

A reading the board cannot make (``?``: a weak magnet) fits any piece; a board that senses
colour but not crowns is not asked about crowns. The report stays until the board is put
right (``restored`` then, except after the ``crown`` notice); play is not held up by it: the
rules decide the moves, the report asks for the board to be put right. With presence only
nothing here applies: the app uses :class:`referee.core.Referee` itself.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from board_hal.debounce import Transition
from board_hal.squares import Sensing, SquareState
from referee.core import Action, Referee
from referee.vocabulary import DEFAULT_MODE, LedIntent, Mode, MoveMade, Report, ReportKind, Role, Takeback, Verdict
from rules import Position

#: the colour reports' kinds, most important first (one is active at a time)
KINDS = (
    ReportKind.PIECES_SWAPPED,
    ReportKind.WRONG_PIECE,
    ReportKind.LOST_CROWN,
    ReportKind.EXTRA_CROWN,
    ReportKind.CROWN,
)
#: how each kind lights its squares
ROLES = {
    ReportKind.PIECES_SWAPPED: Role.ERROR,
    ReportKind.WRONG_PIECE: Role.ERROR,
    ReportKind.LOST_CROWN: Role.MISSING,  # a crown to put back: a piece to put on
    ReportKind.EXTRA_CROWN: Role.EXTRA,  # a crown to take off
    ReportKind.CROWN: Role.MISSING,
}
NOTICES = (ReportKind.CROWN,)
#: more differences than this are not paired up into swaps (a whole side exchanged)
MANY = 4


def state_of(pos: Position, square: int) -> SquareState:
    p = pos.piece_at(square)
    return SquareState.EMPTY if p is None else SquareState.of(p.color.value, p.king)


def describe(state: SquareState) -> str:
    if state.colour is None:
        return "a piece"
    return f"a {state.colour} {'king' if state.king else 'man'}"


@dataclass(frozen=True)
class Difference:
    """What the board shows that the game does not: ``kind``, the squares, the sentence."""

    kind: ReportKind
    squares: tuple[int, ...]
    message: str


def differences(
    pos: Position, sensed: Mapping[int, SquareState], senses: Sensing, uncrowned: Iterable[int] = ()
) -> list[Difference]:
    """Every difference between the pieces ``sensed`` and the game's, by kind (most important
    first); ``uncrowned``: squares of kings promoted without a crown put on since."""
    name = pos.square_text
    wrong: dict[int, SquareState] = {}  # square -> the game's piece, where a piece of the other colour stands
    lost: list[int] = []
    extra: list[int] = []
    crown: list[int] = []
    fresh = set(uncrowned)
    for sq in sorted(pos.occupied()):
        got = sensed.get(sq)
        want = state_of(pos, sq)
        if got is None or not got.occupied or senses.agrees(got, want):
            continue
        if got.colour != want.colour:
            wrong[sq] = want
        elif want.king:
            (crown if sq in fresh else lost).append(sq)
        else:
            extra.append(sq)
    out: list[Difference] = []
    swapped: list[tuple[int, int]] = []
    # two squares holding each other's pieces (by colour, or a man and a king of one colour)
    crowns = {sq: state_of(pos, sq) for sq in lost + extra}
    candidates = {**wrong, **crowns} if len(wrong) + len(crowns) <= MANY else {}
    for a in sorted(candidates):
        for b in sorted(candidates):
            free = a < b and all(x not in p for p in swapped for x in (a, b))
            if free and senses.agrees(sensed[a], candidates[b]) and senses.agrees(sensed[b], candidates[a]):
                swapped.append((a, b))
    paired = {x for p in swapped for x in p}
    if swapped:
        text = "; ".join(f"the pieces on {name(a)} and {name(b)} are swapped" for a, b in swapped)
        out.append(Difference(ReportKind.PIECES_SWAPPED, tuple(sorted(paired)), f"{text}: exchange them"))
    left = [sq for sq in wrong if sq not in paired]
    if len(left) > MANY:  # a set-up with the colours exchanged, a board turned round
        where = ", ".join(name(sq) for sq in left)
        text = f"{len(left)} pieces are of the other colour (on {where}): put the game's pieces there"
        out.append(Difference(ReportKind.WRONG_PIECE, tuple(left), text))
    elif left:
        parts = [
            f"{describe(sensed[sq])} stands on {name(sq)}, where the game has {describe(wrong[sq])}" for sq in left
        ]
        text = "; ".join(parts) + ": put the game's piece there"
        out.append(Difference(ReportKind.WRONG_PIECE, tuple(left), text))
    lost = [sq for sq in lost if sq not in paired]
    if lost:
        where = ", ".join(name(sq) for sq in lost)
        out.append(Difference(ReportKind.LOST_CROWN, tuple(lost), f"the king on {where} lost its crown: put it back"))
    extra = [sq for sq in extra if sq not in paired]
    if extra:
        where = ", ".join(name(sq) for sq in extra)
        out.append(
            Difference(
                ReportKind.EXTRA_CROWN,
                tuple(extra),
                f"the man on {where} wears a crown: take it off (only a man that ends its move on the far row "
                "becomes a king)",
            )
        )
    if crown:
        where = ", ".join(name(sq) for sq in crown)
        out.append(Difference(ReportKind.CROWN, tuple(crown), f"crown the man on {where}: it became a king"))
    return out


class ColourReferee(Referee):
    """The presence referee, plus the pieces a colour board senses (see the module's doc)."""

    def __init__(
        self,
        *args: object,
        senses: Sensing = Sensing.CROWN,
        pieces: Mapping[int, SquareState] | None = None,
        **kwargs: object,
    ) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        if senses <= Sensing.PRESENCE:
            raise ValueError("a colour referee needs a board that senses colour")
        self.senses = senses
        #: the pieces the board reads now (square -> state); unknown until read
        self.sensed: dict[int, SquareState] = {sq: s for sq, s in (pieces or {}).items() if s.occupied}
        self.uncrowned: set[int] = set()  # kings promoted with no crown sensed on them since
        self.colour_report: Report | None = None
        self._colour_due: float | None = None
        self._colour_seen: tuple[Difference, ...] = ()  # the differences the due report is about
        self._in_core = False
        if self.differences():  # the board as the game begins: said at the first tick
            self._colour_due = -math.inf

    # -- input -------------------------------------------------------------------------------
    def feed(self, event: Transition | Action) -> list[Verdict]:
        if isinstance(event, Transition) and isinstance(event.key, int):
            # a reading (or, from a board that stopped sensing colour, none: not known any more)
            self._read(event.key, event.piece if event.piece is not None else SquareState.EMPTY)
        self._in_core = True
        try:
            out = super().feed(event)
        finally:
            self._in_core = False
        if isinstance(event, Action) and event.action in ("new-game", "position"):
            self.uncrowned.clear()
        self._follow(out)
        self._colour(out)
        return out

    def piece_changed(self, event: Transition) -> list[Verdict]:
        """A change of piece on a square that stays occupied (a crown put on or taken off, a
        piece exchanged for another faster than the debounce window)."""
        out = self.tick(event.t)
        self.t = max(self.t, event.t)
        if isinstance(event.key, int) and event.piece is not None:
            self._read(event.key, event.piece)
        self._colour(out)
        return out

    def sense_all(self, pieces: Mapping[int, SquareState]) -> None:
        """The whole board as read after a link gap."""
        self.sensed = {sq: s for sq, s in pieces.items() if s.occupied}
        self.uncrowned = {sq for sq in self.uncrowned if not self.sensed.get(sq, SquareState.EMPTY).king}

    def _read(self, square: int, state: SquareState) -> None:
        if state.occupied:
            self.sensed[square] = state
            if state.king:
                self.uncrowned.discard(square)
        else:
            self.sensed.pop(square, None)

    def tick(self, now: float) -> list[Verdict]:
        self._in_core = True
        try:
            out = super().tick(now)
        finally:
            self._in_core = False
        self._follow(out)
        if self._colour_due is not None and now >= self._colour_due:
            self.t = max(self.t, self._colour_due if math.isfinite(self._colour_due) else now)
            self._colour_due = None
            self._raise(out)
        return out

    def next_deadline(self) -> float | None:
        base = super().next_deadline()
        if self._in_core or self._colour_due is None:
            return base  # (the core's own timers, inside its tick)
        return self._colour_due if base is None else min(base, self._colour_due)

    # -- the pieces ----------------------------------------------------------------------------
    def _follow(self, verdicts: list[Verdict]) -> None:
        """Keep the uncrowned kings' squares with the moves recorded (and forget them on a takeback)."""
        for v in verdicts:
            if isinstance(v, Takeback):
                self.uncrowned.clear()
            elif isinstance(v, MoveMade):
                m = v.move
                self.uncrowned -= set(m.captured)
                if m.from_square in self.uncrowned:
                    self.uncrowned.discard(m.from_square)
                    self.uncrowned.add(m.to_square)
                piece = self.position.piece_at(m.to_square)
                before = self.game.positions()[-2].piece_at(m.from_square) if len(self.game.positions()) > 1 else None
                if piece is not None and piece.king and before is not None and not before.king:
                    self.uncrowned.add(m.to_square)

    def differences(self) -> list[Difference]:
        """What the pieces on the board say that the game does not (nothing while the board's
        occupancy differs from the game: the presence referee is at work)."""
        if self._setup or frozenset(self.occupied) != self.position.occupied() or self.cells:
            return []
        return differences(self.position, self.sensed, self.senses, self.uncrowned)

    def _colour(self, out: list[Verdict]) -> None:
        """After each event: clear a report the board no longer bears out at once; a new
        difference is reported once the board has kept it for ``settle_time``."""
        found = tuple(self.differences())
        shown = self.colour_report
        if not found:
            self._colour_due = None
            self._colour_seen = ()
            if shown is not None:
                self.colour_report = None
                if shown.kind not in NOTICES:
                    self._emit_report(out, ReportKind.RESTORED, (), "the pieces match the game again", active=False)
            return
        if shown is not None and found[0].kind is shown.kind and found[0].squares == shown.squares:
            self._colour_due = None  # still the same
            return
        if found != self._colour_seen or self._colour_due is None:
            self._colour_seen = found
            self._colour_due = self.t + self.settle_time

    def _raise(self, out: list[Verdict]) -> None:
        found = self.differences()
        if not found:
            return
        first = found[0]
        self.colour_report = self._emit_report(
            out, first.kind, first.squares, first.message, active=False, params={"colour": True}
        )

    # -- LEDs ----------------------------------------------------------------------------------
    def led_intents(self) -> list[LedIntent]:
        """The presence referee's, and over them the squares the colour report is about."""
        base = super().led_intents()
        r = self.colour_report
        if r is None or self.report is not None:
            return base
        role = ROLES[r.kind]
        lit = {i.square: i.role for i in base}
        lit.update(dict.fromkeys(r.squares, role))
        return [LedIntent(sq, role) for sq, role in sorted(lit.items())]


def make_referee(
    variant: str,
    fen: str | None = None,
    *,
    mode: Mode = DEFAULT_MODE,
    board: Iterable[int] | None = None,
    senses: str | None = None,
    pieces: Mapping[int, SquareState] | None = None,
    suspects: Iterable[int] = (),
    draw_rules: bool = True,
) -> Referee:
    """The referee for a board that senses ``senses`` (``colour``, ``crown``; None: presence
    only, the presence referee itself), with the ``pieces`` it read when the game began and the
    squares whose sensor is known not to answer (``suspects``: the self-test's)."""
    if not senses:
        return Referee(variant, fen, mode=mode, board=board, suspects=suspects, draw_rules=draw_rules)
    return ColourReferee(
        variant,
        fen,
        mode=mode,
        board=board,
        senses=Sensing.named(senses),
        pieces=pieces,
        suspects=suspects,
        draw_rules=draw_rules,
    )


def pieces_from_json(obj: object) -> dict[int, SquareState] | None:
    """A header's ``pieces`` (by letter, as format 2 writes them), or None if absent or not that."""
    if not isinstance(obj, dict):
        return None
    out: dict[int, SquareState] = {}
    for code, squares in obj.items():
        if not isinstance(squares, list):
            return None
        try:
            state = SquareState.from_code(code)
        except ValueError:
            return None
        out.update((sq, state) for sq in squares if isinstance(sq, int))
    return out
