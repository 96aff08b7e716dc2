"""The talking board in the board loop: what the referee decided and what the hands are doing,
turned into utterances for the board's voice and the page's live region.

The loop hands over each game's verdicts as they come (:meth:`Announcer.watch` listens to
the session: it only keeps them), and once a turn, after the LEDs and the pages have been
served, calls :meth:`Announcer.update`: the utterances are composed then, in the board's
language for its voice (:class:`board_hal.speech.Speaker`, which says them in a thread of its
own) and in any language a page asks for (:meth:`Announcer.recent`). So neither sensing nor
the LEDs ever wait for a phrase.

What is said (the ``[speech] say`` list names the kinds the voice says; the page announces
every one):

- ``moves``: every move with its whole path and promotion, whose turn and the compulsory
  capture after it (with the law that applies), a move taken back, the result and why, a new
  or resumed game, a session that is not a game beginning (an analysis or a training on the
  board: its own phrase, keyed on the session's purpose) and the game again after it;
- ``reports``: the referee's reports with what to put back and take off, the captured pieces
  still to remove, the board's link and the records;
- ``clock``: the clock's reports, low time (at ``low_time`` and at 10 seconds) and the flag;
- ``computer``: the computer's move to play and a hint;
- ``pieces``: a piece held up longer than the grace time: its square and where it can go.

A phrase of a move taken back is dropped if it was not said yet (it would be stale); the
read-out (both clock buttons, the Pico's read-out button) is said whatever ``say`` lists,
and the same gesture during a read-out stops it.
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from board_hal.leds import Role
from board_hal.speech import Phrase, Speaker
from damas.records.session import GameSession
from damas.speech import phrases
from referee.clock import TICKS, ticks
from referee.core import DEFAULT_GRACE
from referee.vocabulary import GameEnd, MoveMade, Report, ReportKind, Takeback, Verdict
from rules import Color, Move, Position, parse_result

#: what the voice may say (``[speech] say``)
WHAT = ("moves", "reports", "clock", "computer", "pieces")
GROUP_REPORT = "report"  # only the newest report is worth hearing
GROUP_PIECE = "piece"  # the piece held up now
GROUP_REMOVE = "remove"
GROUP_READ_OUT = "read-out"
LAST_SECONDS = 10.0  # the last warning of low time
KEPT = 200  # utterances kept for the pages


@dataclass
class Utterance:
    """One thing the board says: ``what`` (a kind of :data:`WHAT`, or ``read-out``), its text
    in each language (``render``), and how the voice queues it."""

    id: int
    what: str
    render: Callable[[str], str]
    urgent: bool = False
    group: str | None = None
    topic: str | None = None
    withdrawn: bool = False
    _texts: dict[str, str] = field(default_factory=dict, repr=False)

    def text(self, lang: str) -> str:
        if lang not in self._texts:
            self._texts[lang] = self.render(lang)
        return self._texts[lang]

    def to_json(self, lang: str) -> dict[str, object]:
        text = self.text(lang)
        return {
            "id": self.id,
            "text": text,
            "say": phrases.spoken(text, lang),
            "urgent": self.urgent,
            "what": self.what,
            "withdrawn": self.withdrawn,
            "group": self.group,  # piece, remove, report (the newest only worth hearing), read-out
        }


@dataclass(frozen=True)
class Seen:
    """What the board loop shows besides the verdicts, read once a turn."""

    now: float
    expected: Move | None = None  # the computer's move the hands are to play
    hint: Move | None = None
    link: str = "up"
    write_error: str | None = None
    computer_error: str | None = None
    low_time: float = 60.0


class Announcer:
    """Composes what the board says (see the module's docstring). ``speaker``: the board's
    voice (None: the page only); ``language``: the voice's; ``say``: what the voice says."""

    def __init__(
        self,
        *,
        language: str = "en",
        speaker: Speaker | None = None,
        say: Iterable[str] = WHAT,
        grace: float = DEFAULT_GRACE,
    ) -> None:
        self.language = language
        self.speaker = speaker
        self.say = frozenset(say)
        self.grace = grace
        self.log: deque[Utterance] = deque(maxlen=KEPT)
        self.version = 0  # changes whenever the log does
        self._next_id = 1
        self._session: GameSession | None = None
        self._heard: list[Verdict] = []
        self._plies: dict[int, tuple[Position, Move, Utterance]] = {}  # the moves announced, by ply
        self._held: tuple[int, float] | None = None  # the piece held up, since
        self._held_said = False
        self._remove: tuple[frozenset[int], float] | None = None
        self._remove_said = False
        # the report said last (its words told what to put back and take off then); and
        # guidance grown since (new squares), with the time the board has shown it
        self._guided: Report | None = None
        self._regrown: tuple[tuple[frozenset[int], frozenset[int]], float] | None = None
        self._warned: dict[Color, float] = {}
        self._seen: Seen | None = None
        self._read_out = False
        self._begun: set[int] = set()  # the sessions begun so far (a game seen again: back to it)
        self._told: dict[str, str] | None = None  # what the app tells, said at the next update

    # -- the loop's side -------------------------------------------------------------------------
    def _listen(self, verdicts: list[Verdict]) -> None:
        self._heard += verdicts  # (composed in update, after the LEDs)

    def tell(self, texts: dict[str, str]) -> None:
        """Something the app says in its own words (a training's verdict), in each language; a
        newer one replaces it in the voice's queue. Composed at the next update, after what the
        board saw (a session that has just begun, the move that earned the verdict)."""
        self._told = texts

    def read_out_asked(self) -> None:
        """The read-out gesture was made (said at the next update)."""
        self._read_out = True

    def update(self, session: GameSession, seen: Seen) -> bool:
        """Compose what happened since the last update; True when the log changed."""
        before = self.version
        if session is not self._session:
            # a game with moves already (resumed at start-up or on the page, or back from an
            # analysis on the board) says where it stands; a new one says that it begins
            played = any(isinstance(e, Move) for _p, e in session.referee.game.steps())
            self._begin(session, resumed=bool(session.history) if self._session is None else played)
        heard, self._heard = self._heard, []
        if heard:
            self._verdicts(session, heard, seen.now)
        if self._told is not None:
            texts, self._told = self._told, None
            self._add("reports", lambda lang: texts.get(lang) or texts.get("en", ""), group="told")
        self._board(session, seen)
        self._guidance(session, seen)
        self._clock(session, seen.now, seen.low_time)
        self._others(session, seen)
        if self._read_out:
            self._read_out = False
            self._say_read_out(session, seen.now)
        return self.version != before

    def recent(self, lang: str, limit: int = 30) -> list[dict[str, object]]:
        """The last utterances, in ``lang``, oldest first (the page's live region)."""
        return [u.to_json(lang) for u in list(self.log)[-limit:]]

    def read_out_text(self, session: GameSession, lang: str, now: float, part: str = "all") -> str:
        """The read-out in ``lang``, or one ``part`` of it (the page's keys: said on the page, not
        by the board)."""
        ref = session.referee
        text = phrases.read_out(lang, ref.position, self._last(session), session.clock, now, part)
        if part == "all" and ref.report is not None and not ref.ended:
            # what the board says is wrong, as it stands now (how to put it right), first
            text = f"{phrases.report_phrase(lang, ref.report, ref.position)} {text}"
        return text

    def close(self) -> None:
        if self.speaker is not None:
            self.speaker.close()

    # -- composing -------------------------------------------------------------------------------
    def _add(
        self,
        what: str,
        render: Callable[[str], str],
        *,
        urgent: bool = False,
        group: str | None = None,
        topic: str | None = None,
    ) -> Utterance:
        u = Utterance(self._next_id, what, render, urgent, group, topic)
        self._next_id += 1
        self.log.append(u)
        self.version += 1
        if self.speaker is not None and (what in self.say or what == "read-out"):
            lang = self.language
            self.speaker.say(Phrase(phrases.spoken(u.text(lang), lang), lang, urgent, group, topic))
        return u

    def _begin(self, session: GameSession, *, resumed: bool) -> None:
        before = self._session
        if before is not None and self._listen in before.listeners:
            before.listeners.remove(self._listen)
        self._session = session
        session.listeners.append(self._listen)
        self._heard, self._plies, self._warned = [], {}, {}
        self._held = self._remove = None
        if self.speaker is not None:
            self.speaker.silence()  # nothing of the last game is worth hearing now
        pos = session.referee.position
        variant = pos.variant.name
        purpose = session.row.purpose
        # (a game seen before, or one with moves, after an analysis or a training: back to it)
        back = before is not None and before.row.purpose is not None and purpose is None
        back = back and (resumed or session.row.id in self._begun)
        self._begun.add(session.row.id)
        if purpose is not None:
            if before is None or before.row.purpose != purpose:  # (not again at each new position)
                key = f"session_{purpose}" if f"session_{purpose}" in phrases.words("en") else "game_new"
                self._add("moves", lambda lang: phrases.say(lang, key, variant=phrases.say(lang, f"variant_{variant}")))
        elif back or resumed:
            count = sum(1 for _p, e in session.referee.game.steps() if isinstance(e, Move))
            last = self._last(session)

            def again(lang: str) -> str:
                parts = [phrases.say(lang, "game_back") if back else phrases.say(lang, "game_resumed", moves=count)]
                if last is not None:
                    prev, move = last
                    side = phrases.side_name(lang, prev.turn)
                    parts.append(phrases.say(lang, "last_move", side=side, move=phrases.move_text(lang, prev, move)))
                return " ".join(parts)

            self._add("moves", again)
        else:
            key = f"variant_{variant}"
            self._add("moves", lambda lang: phrases.say(lang, "game_new", variant=phrases.say(lang, key)))
        if session.ended:
            return

        def turn(lang: str) -> str:
            return " ".join(filter(None, [phrases.turn_phrase(lang, pos), phrases.must_capture_phrase(lang, pos)]))

        self._add("moves", turn)

    def _topic(self, ply: int) -> str:
        assert self._session is not None
        return f"{self._session.row.id}:{ply}"

    def _verdicts(self, session: GameSession, heard: list[Verdict], now: float) -> None:
        ref = session.referee
        steps = ref.game.steps()
        moves = [(p, e) for p, e in steps if isinstance(e, Move)]
        moved = False
        for i, v in enumerate(heard):
            if isinstance(v, MoveMade):
                if v.ply > len(moves) or moves[v.ply - 1][1] != v.move:
                    continue  # taken back (or replaced) in this same turn: stale, never said
                before = moves[v.ply - 1][0]
                move = v.move
                u = self._add(
                    "moves",
                    functools.partial(_move_phrase, before, move),
                    topic=self._topic(v.ply),
                )
                self._plies[v.ply] = (before, move, u)
                moved = True
            elif isinstance(v, Takeback):
                self._took_back(v, corrected=any(isinstance(w, MoveMade) and w.ply == v.ply for w in heard[i + 1 :]))
            elif isinstance(v, Report):
                if v.kind is ReportKind.FLAG_FALL and any(isinstance(w, GameEnd) for w in heard):
                    continue  # the result says it
                self._report(v, ref.position)
            elif isinstance(v, GameEnd):
                winner = parse_result(v.result)
                side = winner if isinstance(winner, Color) else None
                termination = v.termination
                self._add(
                    "moves",
                    functools.partial(_result_phrase, side, termination),
                    urgent=termination == "time-forfeit",
                )
        pos = ref.position
        if moved and not ref.ended and pos.has_captures():
            topic = self._topic(len(moves))
            self._add("moves", lambda lang: phrases.must_capture_phrase(lang, pos), topic=topic)

    def _took_back(self, v: Takeback, *, corrected: bool) -> None:
        first = self._plies.get(v.ply)
        for ply in sorted(p for p in self._plies if p >= v.ply):
            _before, _move, u = self._plies.pop(ply)
            u.withdrawn = True
            if self.speaker is not None:
                self.speaker.withdraw(self._topic(ply))
        self.version += 1
        if first is not None and not corrected:
            before, move, _u = first
            self._add("moves", lambda lang: phrases.say(lang, "takeback", move=phrases.move_text(lang, before, move)))
            self._add("moves", lambda lang: phrases.turn_phrase(lang, before))

    def _report(self, r: Report, pos: Position) -> None:
        what = "clock" if r.kind in phrases.CLOCK_REPORTS else "reports"
        self._guided, self._regrown = r, None
        self._add(
            what,
            lambda lang: phrases.report_phrase(lang, r, pos),
            urgent=r.kind in phrases.URGENT,
            group=GROUP_REPORT,
        )

    # -- what the hands are doing ------------------------------------------------------------------
    def _board(self, session: GameSession, seen: Seen) -> None:
        """A piece held up past the grace time; captured pieces left on the board past it."""
        ref = session.referee
        pos = ref.position
        occ = ref.occupied
        now = seen.now
        held = None
        remove: frozenset[int] = frozenset()
        # (only what the raw sensors agree with: a piece put back but not settled yet is not held)
        if not ref.ended and ref.report is None and occ != pos.occupied() and session.raw == occ:
            expected = pos.occupied()
            lifted = expected - occ
            if len(lifted) == 1 and not occ - expected:
                (q,) = lifted
                piece = pos.piece_at(q)
                if piece is not None and piece.color is pos.turn:
                    held = q
            elif occ - expected:
                remove = frozenset(i.square for i in ref.led_intents() if i.role is Role.REMOVE)
        # the piece held up
        if held is None:
            if self._held is not None and self._held_said and self.speaker is not None:
                self.speaker.silence(GROUP_PIECE)  # put down: what it could do is no news now
            self._held = None
        elif self._held is None or self._held[0] != held:
            # held since the event that lifted it (its time is the journal's: a loop turn late
            # under load does not shorten the grace)
            self._held, self._held_said = (held, min(now, session.last_t)), False
        elif not self._held_said and now - self._held[1] >= self.grace:
            self._held_said = True
            hints = ref.hints and ref.mode == "casual"
            self._add(
                "pieces",
                lambda lang: phrases.lift_phrase(lang, pos, held, destinations=hints),
                group=GROUP_PIECE,
            )
        # the captured pieces still on the board
        if not remove:
            self._remove = None
        elif self._remove is None or self._remove[0] != remove:
            self._remove, self._remove_said = (remove, min(now, session.last_t)), False
        elif not self._remove_said and now - self._remove[1] >= self.grace:
            self._remove_said = True
            self._add("reports", lambda lang: phrases.remove_phrase(lang, pos, remove), group=GROUP_REMOVE)

    def _guidance(self, session: GameSession, seen: Seen) -> None:
        """A report standing whose squares to put back or take off have grown since it was said
        (a piece put down somewhere else again: the hands moved away from right, not towards
        it) is said again, with its guidance as it stands, once the board has shown it still for
        the grace time. Guidance that only shrinks (the hands putting it right) says nothing."""
        ref = session.referee
        r, said = ref.report, self._guided
        if r is None or said is None or ref.ended or (r.kind, r.squares) != (said.kind, said.squares):
            self._regrown = None
            return
        missing, extra = frozenset(r.missing), frozenset(r.extra)
        if (missing <= set(said.missing) and extra <= set(said.extra)) or session.raw != ref.occupied:
            self._regrown = None
            return
        if self._regrown is None or self._regrown[0] != (missing, extra):
            self._regrown = ((missing, extra), min(seen.now, session.last_t))
        elif seen.now - self._regrown[1] >= self.grace:
            self._report(r, ref.position)

    def _clock(self, session: GameSession, now: float, low_time: float) -> None:
        keeper = session.clock
        if keeper is None or session.ended:
            return
        c = keeper.clock
        side = c.running
        if side is None or not c.ticking:
            return
        left = c.remaining(side, ticks(now)) / TICKS
        marks = sorted({m for m in (low_time, LAST_SECONDS) if m > 0}, reverse=True)
        warned = self._warned.get(side)
        if warned is not None and left > warned + 1:  # time was given back (increment, the arbiter)
            warned = None
            self._warned.pop(side, None)
        due = [m for m in marks if left <= m and (warned is None or m < warned)]
        if due:
            mark = min(due)
            self._warned[side] = mark
            shown = max(left, 0.0)
            self._add("clock", lambda lang: phrases.low_time_phrase(lang, side, shown), urgent=mark <= LAST_SECONDS)

    def _others(self, session: GameSession, seen: Seen) -> None:
        """The computer's move and hint, the board's link, the records: said when they change."""
        last = self._seen
        self._seen = seen
        pos = session.referee.position
        if last is None:
            return
        if seen.expected is not None and seen.expected != last.expected:
            move = seen.expected
            self._add(
                "computer", lambda lang: phrases.say(lang, "computer_move", move=phrases.move_text(lang, pos, move))
            )
        if seen.hint is not None and seen.hint != last.hint:
            hint = seen.hint
            self._add("computer", lambda lang: phrases.say(lang, "hint", move=phrases.move_text(lang, pos, hint)))
        if seen.computer_error is not None and seen.computer_error != last.computer_error:
            self._add("computer", lambda lang: phrases.say(lang, "computer_failed"))
        if seen.link != last.link and seen.link in ("up", "down"):
            key = f"link_{seen.link}"
            self._add("reports", lambda lang: phrases.say(lang, key), urgent=seen.link == "down")
        if seen.write_error is not None and last.write_error is None:
            self._add("reports", lambda lang: phrases.say(lang, "write_error"), urgent=True)

    # -- the read-out ------------------------------------------------------------------------------
    def _last(self, session: GameSession) -> tuple[Position, Move] | None:
        for before, entry in reversed(session.referee.game.steps()):
            if isinstance(entry, Move):
                return before, entry
        return None

    def _say_read_out(self, session: GameSession, now: float) -> None:
        if self.speaker is not None and self.speaker.saying(GROUP_READ_OUT):
            self.speaker.silence(GROUP_READ_OUT)  # the gesture again: enough
            return
        # every language now: the clocks run on
        texts = {lang: self.read_out_text(session, lang, now) for lang in phrases.LANGS}
        self._add("read-out", lambda lang: texts.get(lang, texts["en"]), group=GROUP_READ_OUT)


def _move_phrase(before: Position, move: Move, lang: str) -> str:
    return phrases.move_phrase(lang, before, move)


def _result_phrase(winner: Color | None, termination: str, lang: str) -> str:
    return phrases.result_phrase(lang, winner, termination)
