"""The pipeline live play and replay share: debounce -> referee.

Time comes from the events: ``feed`` takes raw transitions (and entered actions);
``advance(now)`` lets time pass (live play calls it from its clock; a replay calls it
with the next event's time), so a log replays to exactly what live play showed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from board_hal.debounce import DEFAULT_WINDOW, Debouncer, Transition
from referee.clock import ClockAction, ClockKeeper
from referee.core import Action, Link, Referee
from referee.reconstruct import MAX_PLIES
from referee.vocabulary import Verdict
from rules.pdn import PdnGame


class Pipeline:
    """``clock``: the game clock beside the referee (its flag is one more timer, its presses
    are events like the others)."""

    def __init__(self, referee: Referee, window: float = DEFAULT_WINDOW, clock: ClockKeeper | None = None) -> None:
        self.referee = referee
        self.clock = clock
        initial: dict[int | str, bool] = {sq: True for sq in referee.occupied}
        initial.update({c: True for c in referee.cells})
        self.debouncer = Debouncer(window, initial, getattr(referee, "sensed", None))

    def advance(self, now: float) -> list[Verdict]:
        """Deliver what has settled by ``now`` and let the referee's timers run.

        A referee timer runs only if no transition still in its debounce window happened
        before it: a piece put back before the grace period ends raises no alarm, even if
        the debouncer confirms the placement only after it."""
        out: list[Verdict] = []
        seen: tuple[float | None, float | None, float | None, float | None] | None = None
        while True:
            due = self.debouncer.next_deadline()
            since = self.debouncer.pending_since()
            ref_due = self.referee.next_deadline()
            flag_due = self.clock.next_deadline() if self.clock is not None else None
            if (due, since, ref_due, flag_due) == seen:
                raise RuntimeError(f"the pipeline makes no progress at t={now}: debounce {due}, referee {ref_due}")
            seen = (due, since, ref_due, flag_due)
            if (
                self.clock is not None
                and flag_due is not None
                and flag_due <= now
                and math.isfinite(now)  # the end of a log is not a time: no flag falls there
                and all(d is None or flag_due <= d for d in (due, ref_due))
            ):
                out += self.clock.tick(flag_due)
                continue
            if ref_due is not None and ref_due <= now and (since is None or ref_due < since):
                out += self._judged(self.referee.tick(ref_due if math.isfinite(ref_due) else now))
                continue
            if due is None or due > now:
                break
            for tr in self.debouncer.flush(due):
                out += self._square(tr)
        return out

    def _square(self, tr: Transition) -> list[Verdict]:
        """A settled square event to the referee; a change of piece on a square that stays
        occupied (only a board that senses colour reports one) is not a lift or a place: a
        referee that reads pieces (``referee.colour``) takes it apart, any other ignores it."""
        now = tr.key in self.referee.cells if isinstance(tr.key, str) else tr.key in self.referee.occupied
        if tr.piece is not None and tr.occupied == now:
            piece_changed = getattr(self.referee, "piece_changed", None)
            return [] if piece_changed is None else self._judged(piece_changed(tr))
        return self._judged(self.referee.feed(tr))

    def _judged(self, verdicts: list[Verdict]) -> list[Verdict]:
        """The referee's verdicts as the clock sees them (moves stamped, its notices added)."""
        return verdicts if self.clock is None else self.clock.observe(verdicts)

    def feed(self, event: Transition | Action | Link | ClockAction) -> list[Verdict]:
        out = self.advance(event.t)
        if isinstance(event, Link):
            if event.state == "up":
                out += self.resync(event)
            return out
        if isinstance(event, ClockAction):
            if self.clock is not None:  # a press is judged against the board as it is, settled or not
                board = set(self.referee.occupied)
                for key, occupied in self.debouncer.pending_states().items():
                    if isinstance(key, int):
                        (board.add if occupied else board.discard)(key)
                out += self.clock.feed(event, frozenset(board))
            return out
        if isinstance(event, Action):
            if event.action == "new-game" and self.clock is not None:
                self.clock.new_game()
            if event.action == "sensor-repaired" and event.square is not None:
                out += self._judged(self.referee.trust(event.square, event.t))
            else:
                out += self._judged(self.referee.feed(event))
        else:
            for tr in self.debouncer.feed(event):  # only with a zero window: the rest came via advance()
                out += self._square(tr)
        return out

    def finish(self, now: float | None = None) -> list[Verdict]:
        """End of input: everything pending settles."""
        end = math.inf if now is None else now
        return self.advance(end)

    def resync(self, link: Link) -> list[Verdict]:
        """The board's whole occupancy after a gap: it replaces whatever was still
        settling (the board debounces too), and the referee reconciles."""
        initial: dict[int | str, bool] = {sq: True for sq in link.board}
        initial.update({c: True for c in link.cells})
        self.debouncer = Debouncer(self.debouncer.window, initial, dict(link.pieces) or None)
        sense_all = getattr(self.referee, "sense_all", None)
        if sense_all is not None and link.pieces:  # a colour board: what stands where, after the gap
            sense_all(dict(link.pieces))
        plies = MAX_PLIES if link.lost is None else min(MAX_PLIES, link.lost)
        return self._judged(self.referee.resync(link.board, link.t, link.cells, max_plies=plies))

    def pdn_game(self, tags: dict[str, str] | None = None) -> PdnGame:
        """The referee's record, with the clock's times after every move."""
        pg = self.referee.pdn_game(tags)
        return pg if self.clock is None else self.clock.annotate(pg)

    def run(self, events: Iterable[Transition | Action | Link | ClockAction]) -> list[Verdict]:
        out: list[Verdict] = []
        for ev in events:
            out += self.feed(ev)
        out += self.finish()
        return out
