"""Turn a game into the raw event log a person's hands would produce.

Seeded randomness: think times, switch bounce, touch-downs on intermediate landing
squares (or none), every removal order, removals before the landing, kings brushing
the empty squares they slide over (shorter than the debounce window), adjustments
(lift and put back) and fast replies.

Sloppier hands (``Style.sloppy()``, off by default): a sleeve brushing any piece off its
sensor for 70-300 ms and back (before or during a move), reed switches dropping out for
a few milliseconds, kings dragged slowly along their diagonal (resting 0.15-0.45 s on
each square they cross before the destination), and a piece that was not captured picked
up by mistake during the removals and put back within a second.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from board_hal.debounce import Transition
from rules import Move, Position


@dataclass
class Style:
    touchdown: float = 0.5  # chance to touch down on each intermediate landing
    bounce: float = 0.5  # chance that a transition bounces
    remove_early: float = 0.3  # chance that each captured piece comes off before the landing
    adjust: float = 0.08  # chance of an adjustment before a move
    brush: float = 0.6  # chance that a sliding king brushes the squares it crosses
    fast_reply: float = 0.2  # chance that the next move starts right away
    removal_order: str = "any"  # any | jump | reverse
    sleeve: float = 0.0  # chance of a piece brushed off its sensor and back, before and during a move
    dropout: float = 0.0  # chance of a reed switch dropping out for a few ms, before and during a move
    drag: float = 0.0  # chance that a king is dragged slowly over the squares it crosses
    mistake: float = 0.0  # chance that a capture's removals include a wrong piece, put back
    hold: float = 0.0  # chance that a plain move's piece is held in the hand while the other side replies

    @classmethod
    def sloppy(cls, **kw: float | str) -> Style:
        """The sloppier club hands of issue 17 on top of the usual ones."""
        base: dict[str, float | str] = {"sleeve": 0.35, "dropout": 0.3, "drag": 0.7, "mistake": 0.4}
        base.update(kw)
        return cls(**base)  # type: ignore[arg-type]


class Hands:
    def __init__(self, seed: int, style: Style | None = None, start: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.style = style or Style()
        self.t = start
        self.events: list[Transition] = []
        #: (ply index, square): a piece of the side to move with a legal move, touched before the
        #: move landed (a touch-move notice in tournament mode)
        self.touches: list[tuple[int, int]] = []
        #: ply indexes whose captured pieces came off before the landing or out of jump order
        #: (a procedure notice in tournament mode, INT 4.11)
        self.out_of_order: list[int] = []
        self.counts: Counter[str] = Counter()  # the sloppy disturbances made
        self.ply = 0
        self.held: int | None = None  # the square a piece in the hand is to be set down on

    def wait(self, lo: float, hi: float) -> None:
        self.t += self.rng.uniform(lo, hi)

    def flip(self, square: int, occupied: bool) -> None:
        self.events.append(Transition(round(self.t, 4), square, occupied))
        if self.rng.random() < self.style.bounce:
            for _ in range(self.rng.randint(1, 3)):
                self.t += self.rng.uniform(0.0002, 0.0006)
                self.events.append(Transition(round(self.t, 4), square, not occupied))
                self.t += self.rng.uniform(0.0002, 0.0006)
                self.events.append(Transition(round(self.t, 4), square, occupied))
        self.t += 0.001

    def lift(self, square: int) -> None:
        self.flip(square, False)

    def place(self, square: int) -> None:
        self.flip(square, True)

    def brush(self, square: int) -> None:
        self.events.append(Transition(round(self.t, 4), square, True))
        self.t += self.rng.uniform(0.004, 0.025)
        self.events.append(Transition(round(self.t, 4), square, False))
        self.t += 0.001

    def sleeve(self, pos: Position, occupied: set[int], exclude: int | None = None, landed: bool = False) -> None:
        """A sleeve or hand brushes a piece off its sensor for 70-300 ms and back (``landed``:
        after the move landed, when touching a piece obliges nothing)."""
        pieces = sorted(occupied - {exclude})
        if not pieces:
            return
        sq = self.rng.choice(pieces)
        self.counts["sleeve"] += 1
        self.lift(sq)
        self.t += self.rng.uniform(0.07, 0.3) - 0.001
        self.place(sq)
        piece = pos.piece_at(sq)
        movable = any(m.from_square == sq for m in pos.legal_moves)
        if not landed and piece is not None and piece.color is pos.turn and movable:
            self.touches.append((self.ply, sq))

    def dropout(self, occupied: set[int]) -> None:
        """A magnet at the edge of its reed switch: off for a few milliseconds."""
        if not occupied:
            return
        sq = self.rng.choice(sorted(occupied))
        self.counts["dropout"] += 1
        self.events.append(Transition(round(self.t, 4), sq, False))
        self.t += self.rng.uniform(0.001, 0.008)
        self.events.append(Transition(round(self.t, 4), sq, True))
        self.t += 0.001

    def noise(self, pos: Position, occupied: set[int], exclude: int | None = None, landed: bool = False) -> None:
        """The sloppy disturbances that may happen at this moment."""
        st = self.style
        occupied = occupied - {self.held}  # (a piece in the hand is not on the board yet)
        if st.dropout and self.rng.random() < st.dropout:
            self.dropout(occupied)
            self.wait(0.01, 0.1)
        if st.sleeve and self.rng.random() < st.sleeve:
            self.sleeve(pos, occupied, exclude, landed)
            self.wait(0.05, 0.3)

    def adjust(self, pos: Position, exclude: int) -> None:
        own = [sq for sq in pos.squares(pos.turn) if sq != exclude]
        if pos.has_captures():
            # lifting a piece that cannot capture is (rightly) reported: people adjust capturers
            own = [sq for sq in {m.from_square for m in pos.legal_moves} if sq != exclude]
        if not own:
            return
        sq = self.rng.choice(own)
        self.lift(sq)
        self.wait(0.15, 0.5)
        self.place(sq)
        self.wait(0.2, 0.6)
        if any(m.from_square == sq for m in pos.legal_moves):
            self.touches.append((self.ply, sq))

    def play(self, pos: Position, move: Move, fast: bool = False, hold: bool = False) -> Move:
        """Events for one move; returns the route the hands followed (``hold``: its piece is
        kept in the hand, :attr:`held`, to be set down by :meth:`set_down_held`)."""
        st, rng = self.style, self.rng
        if fast:
            self.wait(0.06, 0.2)
        else:
            self.wait(0.4, 3.0)
        if rng.random() < st.adjust:
            self.adjust(pos, move.from_square)
        self.noise(pos, set(pos.occupied()))
        route = rng.choice(pos.routes(move))
        captured = list(route.captured)
        if st.removal_order == "jump":
            order = captured
        elif st.removal_order == "reverse":
            order = captured[::-1]
        else:
            order = captured[:]
            rng.shuffle(order)
        early = [sq for sq in order if rng.random() < st.remove_early]
        late = [sq for sq in order if sq not in early]
        origin = route.path[0]
        piece = pos.piece_at(origin)
        king = piece is not None and piece.king
        self.lift(origin)
        self.wait(0.15, 0.4)
        occupied = set(pos.occupied()) - {origin, self.held}
        here = origin
        removed: list[int] = []
        landings = list(route.path[1:])
        drag = king and rng.random() < st.drag
        for i, land in enumerate(landings):
            if early and rng.random() < 0.5:
                sq = early.pop(0)
                self.lift(sq)
                removed.append(sq)
                occupied.discard(sq)
                self.wait(0.15, 0.4)
            if i == 0:
                self.noise(pos, occupied)  # the piece in hand
            last = i == len(landings) - 1
            crossed = self._between(pos, here, land)
            if drag and last:
                # resting on each square it crosses after the last piece it jumps
                beyond = [sq for sq in crossed if sq in occupied or sq in route.captured]
                tail = crossed[crossed.index(beyond[-1]) + 1 :] if beyond else crossed
                self.counts["drag"] += bool(tail)
                for sq in tail:
                    self.place(sq)
                    self.wait(0.15, 0.45)
                    self.lift(sq)
                    self.wait(0.02, 0.06)
            elif king and rng.random() < st.brush:
                for sq in crossed:
                    if sq not in occupied:
                        self.brush(sq)
            if last and hold:
                self.held = land
            elif last or rng.random() < st.touchdown:
                self.place(land)
                if not last:  # a touch-down: put down, then lifted again
                    self.wait(0.1, 0.35)
                    self.lift(land)
                    self.wait(0.05, 0.2)
            here = land
        occupied.add(route.to_square)
        before_landing = bool(removed)
        for sq in early + late:
            self.wait(0.2, 0.6)
            if rng.random() < 0.3:
                self.noise(pos, occupied, landed=True)  # between the removals
            if st.mistake and sq in late and rng.random() < st.mistake:
                self.mistake(pos, move, occupied, sq)
            self.lift(sq)
            removed.append(sq)
            occupied.discard(sq)
        if captured and (before_landing or removed not in (captured, captured[::-1])):
            self.out_of_order.append(self.ply)
        self.ply += 1
        return route

    def set_down_held(self) -> None:
        """The piece held in the hand while the other side replied is set down at last."""
        if self.held is not None:
            self.wait(0.1, 1.2)
            self.counts["hold"] += 1
            self.place(self.held)
            self.held = None
            self.wait(0.3, 0.8)  # (the hand leaves it before anything else)

    def mistake(self, pos: Position, move: Move, occupied: set[int], next_sq: int) -> None:
        """While removing the captured pieces, one that was not captured is picked up by
        mistake (a neighbour of the next one, of its colour) and put back within a second."""
        piece = pos.piece_at(next_sq)
        geo = pos.geometry
        f0, r0 = geo.coord(next_sq)
        near = []
        for df in (-1, 1):
            for dr in (-1, 1):
                x = geo.square_at(f0 + df, r0 + dr)
                p = pos.piece_at(x) if x is not None else None
                if (
                    x in occupied
                    and x not in move.captured
                    and p is not None
                    and p.color is getattr(piece, "color", None)
                ):
                    near.append(x)
        if not near:
            return
        x = self.rng.choice(near)
        self.counts["mistake"] += 1
        self.lift(x)
        self.wait(0.2, 0.9)
        self.place(x)
        self.wait(0.1, 0.3)

    @staticmethod
    def _between(pos: Position, a: int, b: int) -> list[int]:
        geo = pos.geometry
        (fa, ra), (fb, rb) = geo.coord(a), geo.coord(b)
        df = 1 if fb > fa else -1
        dr = 1 if rb > ra else -1
        out = []
        f, r = fa + df, ra + dr
        while (f, r) != (fb, rb) and 0 <= f < geo.size and 0 <= r < geo.size:
            sq = geo.square_at(f, r)
            if sq is not None:
                out.append(sq)
            f, r = f + df, r + dr
        return out


def game_log(
    start: Position, moves: list[Move], seed: int, style: Style | None = None
) -> tuple[list[Transition], list[Move]]:
    """The events of a whole game, and the routes the hands followed."""
    hands = Hands(seed, style)
    pos = start
    routes = []
    for k, move in enumerate(moves):
        fast = hands.rng.random() < hands.style.fast_reply
        reply = moves[k + 1] if k + 1 < len(moves) else None
        held = hands.held
        # (a plain move whose square the reply leaves alone; no draw when holding is off)
        hold = (
            hands.style.hold > 0
            and held is None
            and reply is not None
            and not move.captured
            and move.to_square not in (*reply.path, *reply.captured)
            and hands.rng.random() < hands.style.hold
        )
        routes.append(hands.play(pos, move, fast, hold))
        if held is not None:
            hands.set_down_held()
        pos = pos.apply(move)
    return hands.events, routes


#: how a broken reed switch misreads its square
FAULT_KINDS = ("dead", "stuck-closed", "stuck-open", "intermittent")


def faulty(
    events: list[Transition], start: frozenset[int], square: int, kind: str, rng: random.Random
) -> tuple[list[Transition], frozenset[int]]:
    """What a board whose sensor under ``square`` is broken reports, and the occupancy it
    reads when the game starts (``start``: the true one).

    ``dead``: never changes (it keeps its first reading, the true one); ``stuck-closed``:
    always reads occupied; ``stuck-open``: always empty; ``intermittent``: answers, but drops
    out for 1-5 s now and then (reads empty while a piece stands on it)."""
    others = [ev for ev in events if ev.key != square]
    if kind == "dead":
        return others, start
    if kind == "stuck-closed":
        return others, start | {square}
    if kind == "stuck-open":
        return others, start - {square}
    if kind != "intermittent":
        raise ValueError(kind)
    mine = [ev for ev in events if ev.key == square]
    end = events[-1].t if events else 0.0
    gaps: list[tuple[float, float]] = []
    t = rng.uniform(2.0, 20.0)
    while t < end:
        length = rng.uniform(1.0, 5.0)
        gaps.append((t, t + length))
        t += length + rng.uniform(10.0, 40.0)
    # the true state over time, then read through the drop-outs
    changes = [(ev.t, ev.occupied) for ev in mine]
    marks = sorted({t for t, _ in changes} | {t for g in gaps for t in g})
    truth = square in start
    shown = truth
    out: list[Transition] = []
    i = 0
    for t in marks:
        while i < len(changes) and changes[i][0] <= t:
            truth = changes[i][1]
            i += 1
        reading = truth and not any(a <= t < b for a, b in gaps)
        if reading != shown:
            out.append(Transition(round(t, 4), square, reading))
            shown = reading
    merged = sorted(others + out, key=lambda ev: ev.t)
    return merged, start
