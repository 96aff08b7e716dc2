"""Turn a game into the raw event log a person's hands would produce.

Seeded randomness: think times, switch bounce, touch-downs on intermediate landing
squares (or none), every removal order, removals before the landing, kings brushing
the empty squares they slide over (shorter than the debounce window), adjustments
(lift and put back) and fast replies.
"""

from __future__ import annotations

import random
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


class Hands:
    def __init__(self, seed: int, style: Style | None = None, start: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.style = style or Style()
        self.t = start
        self.events: list[Transition] = []

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

    def adjust(self, pos: Position, exclude: int) -> None:
        own = [sq for sq in pos.squares(pos.turn) if sq != exclude]
        if pos.has_captures():
            # lifting a piece that cannot capture is (rightly) reported: people adjust capturers
            own = [sq for sq in {m.from_square for m in pos.legal_moves()} if sq != exclude]
        if not own:
            return
        sq = self.rng.choice(own)
        self.lift(sq)
        self.wait(0.15, 0.5)
        self.place(sq)
        self.wait(0.2, 0.6)

    def play(self, pos: Position, move: Move, fast: bool = False) -> Move:
        """Events for one move; returns the route the hands followed."""
        st, rng = self.style, self.rng
        if fast:
            self.wait(0.06, 0.2)
        else:
            self.wait(0.4, 3.0)
        if rng.random() < st.adjust:
            self.adjust(pos, move.from_square)
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
        occupied = set(pos.occupied()) - {origin}
        here = origin
        landings = list(route.path[1:])
        for i, land in enumerate(landings):
            if early and rng.random() < 0.5:
                sq = early.pop(0)
                self.lift(sq)
                occupied.discard(sq)
                self.wait(0.15, 0.4)
            if king and rng.random() < st.brush:
                for sq in self._between(pos, here, land):
                    if sq not in occupied:
                        self.brush(sq)
            last = i == len(landings) - 1
            if last or rng.random() < st.touchdown:
                self.place(land)
                if not last:  # a touch-down: put down, then lifted again
                    self.wait(0.1, 0.35)
                    self.lift(land)
                    self.wait(0.05, 0.2)
            here = land
        for sq in early + late:
            self.wait(0.2, 0.6)
            self.lift(sq)
        return route

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
    for move in moves:
        fast = hands.rng.random() < hands.style.fast_reply
        routes.append(hands.play(pos, move, fast))
        pos = pos.apply(move)
    return hands.events, routes
