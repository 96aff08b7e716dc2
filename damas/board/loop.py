"""``damas play``'s board loop: what the board (real or simulated) saw and what the players
entered, journalled and judged, lit on the LEDs and pushed to the pages (``PlayApp``). What the
page is shown is built in ``page_state``; what the page may ask is checked in ``requests``."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from board_hal.backends import BoardIO, LinkStatus, ReadOut
from board_hal.buttons import ButtonPress, ChordFilter, ClockButtons
from board_hal.debounce import Transition
from board_hal.health import BoardHealth
from board_hal.layout import Layout
from board_hal.leds import DEFAULT_LOOKS, Look
from board_hal.leds import Role as LedRole
from board_hal.simulated import SimulatedBoard
from board_hal.squares import Sensing, SquareState
from damas.board.analysis_mode import AnalysisMode
from damas.board.page_state import MoveList, page_state
from damas.board.requests import check_result, check_tags, clock_seconds, new_game_request, preset_name, valid_tag
from damas.board.sensor_memory import SensorMemory
from damas.board.studies import KeptStudies, session_pdn
from damas.board.training_mode import TrainingMode, suggested
from damas.computer.analysis import GameAnalysis, KeptAnalysis
from damas.computer.live import LiveAnalysis
from damas.computer.opponent import EngineSettings, open_engine
from damas.computer.player import Computer, computer_tag, is_computer_tag
from damas.hall_link.publish import Publisher
from damas.log import Throttle
from damas.records.session import DamagedGame, GameSession, export_game, recorded_game
from damas.records.store import ABANDONED, ANALYSIS, CLOSED, DAMAGED, INTERRUPTED, GameRow, Store, StoreError, StudyRow
from damas.speech.announcer import Announcer, Seen
from damas.speech.phrases import spoken
from engine import Limits
from referee import Action, ClockAction
from referee.clock import parse_control
from referee.vocabulary import CLOCK_ACTIONS, ClockActionName, Mode, Verdict, known
from rules import Color, DraughtsError, Move, Position, find_variant, parse_result
from rules.errors import shown
from rules.pdn import write_pdn
from wording import language
from wording.page import RECORDS_ERROR, PageError

log = logging.getLogger(__name__)

TICK = 0.02  # seconds between two looks at the sensors and the timers
RETRY = 0.5  # seconds between two attempts to write the records while writing fails


class PlayApp:
    def __init__(
        self,
        store: Store,
        io: BoardIO,
        session: GameSession,
        *,
        token: str | None = None,
        language: str | None = None,
        tags: dict[str, str] | None = None,
        window: float = 0.05,
        clock: Callable[[], float] = time.time,
        buttons: ClockButtons | None = None,
        low_time: float = 60.0,
        clock_presets: dict[str, str] | None = None,
        looks: dict[LedRole, Look] | None = None,
        engine: EngineSettings | None = None,
        computer: Computer | None = None,
        speech: Announcer | None = None,
        chord: float = 0.0,
        health: BoardHealth | None = None,
        memory: SensorMemory | None = None,
    ) -> None:
        self.store = store
        # what damas selftest found broken (board_hal.health: sensors, LEDs) and the sensors the
        # referee named broken in play, kept between games and restarts (damas.board.sensor_memory)
        self.memory = memory or SensorMemory(None, health)
        self.io = io
        self.session = session
        self.token = token
        self.language = language
        self.default_tags = dict(tags or {})
        self.window = window
        self.clock = clock
        self.looks = dict(looks or DEFAULT_LOOKS)  # the board's LED colours: the page's legend and marks use them
        # who watches: each takes the state's text in its language (the web page's viewers register here)
        self.watchers: list[Callable[[Callable[[str], str]], None]] = []
        self.loop_task: asyncio.Task[None] | None = None
        self.version = 0  # changes whenever what the page or the LEDs show changes
        self._dirty = False  # a push to the page is due
        self._shown: tuple[Any, ...] | None = None  # the view the current version describes
        self.buttons = buttons  # the game clock's push buttons on the Pi's pins
        self.low_time = low_time  # seconds: the page warns below this
        self.clock_presets = dict(clock_presets or {})
        self._alive: tuple[Any, ...] | None = None  # what the clock showed when last written as alive
        self.pending: deque[Transition | LinkStatus | ButtonPress] = deque()  # what could not be journaled yet
        self.write_error: str | None = None  # why the records cannot be written (the board is paused)
        self.moves = MoveList()  # the page's move list, kept between pushes
        self._retry_at = 0.0
        self.engine_settings = engine or EngineSettings()
        self.computer = computer or Computer(self.engine_settings, session.row.variant)
        # the page's analysis of a game (damas.computer.analysis): under way, or kept in the records
        self.analysis: GameAnalysis | KeptAnalysis | None = None
        self._analyses: dict[int, KeptAnalysis | None] = {}  # the records' analyses read (by game)
        self._analysis_kept: GameAnalysis | None = None  # the last analysis written to the records
        self.live: LiveAnalysis | None = None  # the position searched while the players move (the page's bar)
        self._live_variant = ""  # the variant the live analysis' engine plays
        # a game opened on the page to try moves in (its variations), on the page or on the board
        self.analysis_mode = AnalysisMode(self)
        self.training_mode = TrainingMode(self)  # a game replayed or a tactic on the board
        self.publisher: Publisher | None = None  # the tournament hall's feed (damas play --broker)
        self._assignment: dict[str, Any] | None = None  # the hall's assignment the page shows waiting
        self._recent: tuple[tuple[int, int], list[GameRow]] | None = None  # the page's list of recent games
        self._analyses_listed: tuple[tuple[int, int], list[GameRow]] | None = None  # ...and of analyses left
        self._records_changed = 0  # a game started, resumed or corrected: the list is read again
        # what the board says (its voice, if it has one, and the page's live region)
        self.speech = speech or Announcer(language=language or "en")
        # the clock buttons, the Pi's and the Pico's: a press waits ``chord`` s for the other (the read-out)
        self.gestures = ChordFilter(chord)
        session.listeners.append(self._changed)
        # the studies the records keep: the one open when the program stopped is open again
        self.kept = KeptStudies(store)
        self.analysis_mode.load()
        self._restore_analysis()

    @property
    def sim(self) -> SimulatedBoard | None:
        s = self.io.sensors
        return s if isinstance(s, SimulatedBoard) else None

    def _changed(self, verdicts: list[Verdict]) -> None:
        if verdicts:
            s = self.session
            ref = s.referee
            settled = not ref.events and ref.report is None and not ref.cells
            self.memory.saw(verdicts, self.io.layout, ref.position, set(s.raw), settled)
        self._mark()

    def _mark(self, view: tuple[Any, ...] | None = None) -> None:
        """What is shown has changed: a new version, and a push to the page is due."""
        self._dirty = True
        self.version += 1
        self._shown = self._view() if view is None else view

    def _view(self) -> tuple[Any, ...]:
        """What the referee makes the LEDs and the page show (cheap: compared every loop turn).

        A settled event or a timer can change it without any verdict (a lift lights its
        origin and hints, a touch-down its path, a landing its captures), so the loop compares
        this rather than waiting for verdicts."""
        s = self.session
        ref = s.referee
        return (
            tuple(self.led_intents()),
            ref.report,
            len(s.history),
            ref.position,
            frozenset(ref.occupied),
            frozenset(ref.cells),
            frozenset(s.raw),
            frozenset(s.raw_cells),
            self.write_error,
            self.io.link,
            s.link,
            self.computer.thinking(ref),
            self.computer.hint_move(ref),
            self.computer.hint_pending(ref),
            self.computer.error,
            None if self.analysis is None else self.analysis.progress(),
            None if self.live is None else (self.live.seen(), self.live.error),
            self.analysis_mode.version,
            self.analysis_mode.returning,
            self.training_mode.shown(),
            None if s.clock is None else s.clock.shown(self.clock()),  # last: ``pump`` reads it as view[-1]
        )

    # -- the sensors and the timers ------------------------------------------------------------
    def pump(self) -> None:
        """Feed what the board saw (journalled first: see ``_feed_pending``), then let time pass;
        whenever that changes what is shown, a new version is due (``broadcast``, in the same
        turn, lights it and pushes it)."""
        seen: list[Transition | LinkStatus | ButtonPress | ReadOut] = list(self.io.poll_events())  # + Pico buttons
        if self.buttons is not None:
            seen += self.buttons.poll()
            seen.sort(key=lambda ev: ev.t)  # (stable: the board's own events keep their order)
        now = self.clock()
        for ev in seen:
            if isinstance(ev, (ButtonPress, ReadOut)):
                self.gestures.feed(ev)
                self._take_gestures(now)
            elif not self.analysis_mode.returning:  # (the hands putting the game back: not its moves)
                self.pending.append(ev)
        self._take_gestures(now)
        self._feed_pending()
        if not self.pending:  # time passes for the referee only once every earlier event is in
            self.trust_again()  # (a sensor the last events read as the game has it)
            self.session.tick(self.clock())
            # the computer's move, once its engine has answered (entered like a player's action)
            self.computer.update(self.session.referee, self._enter, self.clock())
            self.analysis_mode.follow()
            self.analysis_mode.keep()
            self._keep_analysis()
            self._follow_live()
            self.training_mode.follow()
        view = self._view()
        if view != self._shown:
            self._mark(view)
            self._still_alive(view[-1])

    def _take_gestures(self, now: float) -> None:
        """The presses that count by now go to the journal; a read-out is said, never journalled."""
        for ev in self.gestures.take(now):
            if isinstance(ev, ReadOut):
                self.speech.read_out_asked()
            else:
                self.pending.append(ev)

    def _still_alive(self, clock_shown: tuple[Any, ...] | None) -> None:
        """While the game clock runs, note when what it shows changed (a resume after a power
        cut brings it back as it was then: see ``GameSession.resume``)."""
        s = self.session
        if clock_shown is None or s.clock is None or not s.clock.clock.ticking or clock_shown == self._alive:
            return
        self._alive = clock_shown
        try:
            self.store.set_alive(s.row.id, max(self.clock(), s.last_t))
        except StoreError as exc:  # the journal is what matters; this costs at most the outage's time
            log.debug("cannot note the clock's time: %s", exc)

    # -- when the records cannot be written ---------------------------------------------------
    def _feed_pending(self) -> None:
        """Journal and process the board's events in order. An event that cannot be journaled
        is not processed: it stays queued (with everything after it), the board is paused and
        says why, and the next attempts retry it first (what this changes, the loop sees by
        comparing what is shown)."""
        if self.write_error is not None and self.clock() < self._retry_at:
            return
        was = self.write_error
        try:
            if not self.session.write_records():
                raise StoreError(self.session.record_error or "cannot write")
            if was is not None and not self.pending:
                self.store.probe()  # nothing waiting to show that writing works again: try it
            while self.pending:
                self.session.feed(self.pending[0])
                self.pending.popleft()
        except StoreError as exc:
            self.write_error = str(exc)
            self._retry_at = self.clock() + RETRY
        else:
            self.write_error = None
        if self.write_error != was:  # (part of the view: the next comparison makes a new version)
            if self.write_error is not None:
                log.error("cannot write the records (%s): the board is paused", self.write_error)
            else:
                log.info("the records can be written again: play goes on")

    def _refuse_while_paused(self) -> None:
        if self.write_error is not None or self.pending:
            raise ValueError(RECORDS_ERROR["en"].format(reason=self.write_error or "events are waiting"))

    def led_intents(self) -> Iterable[tuple[int, LedRole]]:
        """What the LEDs show: the referee's intents, or the error pattern (every square blinking
        red) while the records cannot be written."""
        if self.write_error is not None:
            geo = self.session.referee.position.geometry
            return [(q, LedRole.ERROR) for q in geo.squares()]
        ref = self.session.referee
        if self.analysis_mode.returning:  # back from the analysis: what to put back for the game
            return sorted(self.analysis_mode.return_leds().items())
        lit = {i.square: i.role for i in ref.led_intents()}
        hint = self.computer.hint_move(ref)
        if hint is not None and ref.report is None and frozenset(ref.occupied) == ref.position.occupied():
            lit.update(suggested(ref.position, hint))  # the engine's move for the player (over the last move)
        lit.update(self.training_mode.leds())
        intents = sorted(lit.items())
        keeper = self.session.clock
        if keeper is not None and keeper.clock.flag is not None:  # a flag fell: the loser's pieces glow red
            pos = ref.position
            lost = set(pos.squares(keeper.clock.flag))
            intents = [(q, r) for q, r in intents if q not in lost] + [(q, LedRole.ERROR) for q in sorted(lost)]
        return intents

    def _next_wake(self) -> float:
        """Seconds until the loop should look again: the next tick, or sooner when a debounce
        window or a settle timer ends before it (the page then updates without waiting)."""
        pipe = self.session.pipeline
        flag = pipe.clock.next_deadline() if pipe.clock is not None else None
        chord = self.gestures.next_deadline()  # a press waiting for the other button
        settled, since = pipe.debouncer.next_deadline(), pipe.debouncer.pending_since()
        timer = pipe.referee.next_deadline()
        if settled is not None and since is not None and timer is not None and timer >= since:
            # a referee timer does not run while a transition before it is in its debounce window
            # (Pipeline.advance): it runs when that window ends (waking every 1 ms meanwhile, up to
            # the window's 50 wake-ups, changed nothing); so does a flag that waits for it
            if flag is not None and flag > timer:
                flag = max(flag, settled)
            timer = max(timer, settled)
        due = [d for d in (settled, timer, flag, chord) if d is not None]
        if not due:
            return TICK
        return min(TICK, max(0.0, min(due) - self.clock()) + 0.001)

    async def turn(self) -> None:
        """One turn of the board loop: what the board saw and what time did is shown at once,
        on the LEDs and on every page."""
        self.pump()
        await self.flush()
        if self.speech.update(self.session, self._seen()):  # after the LEDs: the voice never holds them up
            self._mark()
            await self.flush()
        if self.publisher is not None:  # after the LEDs; the real game only (kept aside during an analysis)
            game = self.game_in_play()
            self.publisher.poll(game, self.version if game is self.session else 0)
            if self.publisher.assignment is not self._assignment:  # one waits, or no more: the page says so
                self._assignment = self.publisher.assignment
                self._mark()
                await self.flush()

    def _seen(self) -> Seen:
        """What the talking board reads besides the verdicts (damas.speech)."""
        ref = self.session.referee
        return Seen(
            self.clock(),
            ref.expected(),
            self.computer.hint_move(ref),
            self.io.link,
            self.write_error,
            self.computer.error,
            self.low_time,
        )

    def read_out(self, lang: str, part: str = "all") -> dict[str, str]:
        """The position, the last move and both clocks, or one ``part`` of them, read out in
        ``lang`` (the page's keys): ``text``, and ``say``, the same as a voice should read it."""
        lang = language(lang) or "en"
        text = self.speech.read_out_text(self.session, lang, self.clock(), part)
        return {"text": text, "say": spoken(text, lang)}

    async def flush(self) -> None:
        """Light and push what changed since the last push, if anything did (the board loop and
        the request handlers both call it, so one change makes one push)."""
        if self._dirty:
            await self.broadcast()

    async def run_loop(self) -> None:
        # a turn that fails fails again 20 ms later: one line, then at most one per 10 s
        throttle = Throttle(log, "error in the board loop", clock=self.clock)
        wake = asyncio.Event()
        if self.buttons is not None:  # a clock press is taken at once, not at the next tick
            loop = asyncio.get_running_loop()

            def wake_up() -> None:
                loop.call_soon_threadsafe(wake.set)

            self.buttons.on_press = wake_up
        while True:
            try:
                await self.turn()
            except Exception as exc:  # keep the board running; the problem is shown
                throttle.failed(exc)
            else:
                throttle.ok()
            if self.buttons is None:
                await asyncio.sleep(self._next_wake())
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), self._next_wake())
            wake.clear()

    async def broadcast(self) -> None:
        """Show the LEDs (the one place that writes them) and hand the new state to every page.
        Never waits for a page: each
        viewer's own task sends it the newest state (see damas.web.viewers); by now the events
        behind it are already journalled."""
        self._dirty = False
        self.io.show(self.led_intents())
        cache: dict[str, str] = {}

        def text_for(lang: str) -> str:
            if lang not in cache:
                cache[lang] = json.dumps(self.state(lang))
            return cache[lang]

        for push in list(self.watchers):
            push(text_for)

    # -- commands -------------------------------------------------------------------------------
    def sim_event(self, op: str, square: Any, cell: Any, piece: Any = None) -> None:
        sim = self.sim
        if sim is None:
            raise ValueError("there is no simulated board: the pieces are real")
        if op == "fix":
            self._sim_fix(sim)
            return
        if op not in ("lift", "place"):
            raise ValueError(f"unknown op {shown(op)} (lift, place or fix)")
        occupied = op == "place"
        put: SquareState | None = None
        if piece is not None:
            if not occupied or piece not in ("w", "b", "W", "B"):
                raise ValueError(f"no piece {shown(piece)} to place (w, b, W or B, with op place)")
            put = SquareState.from_code(piece)
        if cell is not None:
            try:
                where = sim.layout.geometry.parse_cell(str(cell))
            except DraughtsError as exc:
                raise ValueError(str(exc)) from None
            rc = sim.layout.physical(*where)
            if occupied:
                sim.place_cell(rc, self.clock(), put)
            else:
                sim.lift_cell(rc, self.clock())
        else:
            if not isinstance(square, int) or isinstance(square, bool) or not 1 <= square <= sim.layout.geometry.count:
                raise ValueError(f"no square {shown(square)}")
            if occupied:
                sim.place(square, self.clock(), put)
            else:
                sim.lift(square, self.clock())
        self.pump()  # journalled before the answer: an acknowledged event is durable
        if self.pending:
            raise ValueError(RECORDS_ERROR["en"].format(reason=self.write_error))

    def _sim_fix(self, sim: SimulatedBoard) -> None:
        """The simulated hands do what the lit squares ask: a piece (the position's) on each
        square to fill, none on each square to empty (a set-up, a position to put back)."""
        pos = self.session.referee.position
        for q, role in list(self.led_intents()):
            if role is LedRole.EXTRA:
                sim.lift(q, self.clock())
            elif role is LedRole.MISSING:
                p = pos.piece_at(q)
                sim.place(q, self.clock(), None if p is None else SquareState.of(p.color.value, p.king))
            self.pump()
        if self.pending:
            raise ValueError(RECORDS_ERROR["en"].format(reason=self.write_error))

    def action(self, data: dict[str, Any]) -> None:
        name = data.get("action")
        now = self.clock()
        if self.analysis_mode.board is not None and name in ("resign", "draw", "result"):
            raise ValueError(f"{name}: the board analyses a study (no result): leave the analysis first")
        if name == "new-game":
            asked = new_game_request(data, self.engine_settings, self.clock_presets)
            if asked.computer is not None:  # its strength: the level, or a time a move (its own, not the hints')
                self.computer.settings = dataclasses.replace(self.engine_settings, move_time=asked.move_time)
            self.new_game(asked.fen, asked.variant, asked.mode, asked.tags, asked.clock, computer=asked.computer)
            return
        clock_action = known(name, CLOCK_ACTIONS)
        if clock_action is not None and clock_action != "flag":  # a flag is the clock's own note
            self._clock_action(clock_action, data, now)
            self._mark()
            return
        if name == "hint":
            self.computer.ask_hint(self.session.referee, self.session.referee.mode)
            self._mark()
            return
        if name == "analyze":
            self.analyze(data.get("game"))
            return
        if name == "live":
            self.live_analysis(data.get("on"))
            return
        if name == "study":
            self.analysis_mode.action(data)
            return
        if name == "training":
            self.training_mode.action(data)
            return
        if name == "resume-game":
            self.resume_game(data.get("game"))
            return
        if name == "sensor-repaired":
            self.sensor_repaired(data.get("square"))
            return
        if name == "resign":
            side = data.get("side")
            if side not in ("white", "black"):
                raise ValueError("resign needs side: white or black")
            self._enter(Action(now, "resign", Color(side)))
        elif name == "draw":
            self._enter(Action(now, "draw"))
        elif name == "result":
            self._enter(Action(now, "result", result=self._result(data.get("result"))))
        elif name == "confirm":
            self._enter(self._confirm(data, now))
        else:
            raise ValueError(f"unknown action {shown(name)}")
        self._mark()

    def _confirm(self, data: dict[str, Any], now: float) -> Action:
        """The page's answer to a ``sensor-confirm`` report (``move``: the move played, in square
        numbers) or to a set-up a stuck sensor keeps from completing (``square``: its sensor is
        broken). The referee takes it only if it asked about it (referee/README.md)."""
        move, square = data.get("move"), data.get("square")
        if isinstance(move, str) and re.fullmatch(r"\d{1,2}([-x]\d{1,2})+", move.strip()):
            return Action(now, "confirm", move=move.strip())
        if isinstance(square, int) and not isinstance(square, bool):
            if square not in self.session.referee.position.geometry.squares():
                raise ValueError(f"confirm: there is no square {square} on this board")
            return Action(now, "confirm", square=square)
        raise ValueError(
            f"confirm needs move (square numbers, e.g. 21-17) or square (a number), not {shown(move or square)}"
        )

    def _clock_action(self, name: ClockActionName, data: dict[str, Any], now: float) -> None:
        """A press on the page, or the arbiter's pause, resume or adjustment (journaled)."""
        if self.session.clock is None:
            raise ValueError("this game has no clock (start one with a time control: damas play --clock 21)")
        if name == "clock":
            side = data.get("side")
            if side not in ("white", "black"):
                raise ValueError(f"clock needs side: white or black, not {shown(side)}")
            self._enter(ClockAction(now, "clock", Color(side), "page"))
        elif name == "clock-adjust":
            white, black = (clock_seconds(data.get(k), k) for k in ("white", "black"))
            if white is None and black is None:
                raise ValueError("clock-adjust needs white or black: the time to show (seconds or m:ss)")
            self._enter(ClockAction(now, name, None, "arbiter", white, black))
        else:
            self._enter(ClockAction(now, name, None, "arbiter"))

    def _enter(self, action: Action | ClockAction) -> None:
        """What the players entered: journaled like the board's events (so a replay agrees),
        after them, and refused while the records cannot be written."""
        self._refuse_while_paused()
        try:
            self.session.feed(action)
        except StoreError as exc:
            self.write_error = str(exc)  # shown until a write succeeds again
            self._retry_at = self.clock() + RETRY
            self._mark()
            raise ValueError(RECORDS_ERROR["en"].format(reason=exc)) from None

    def _result(self, value: Any) -> str:
        """A result in the game's variant style (``1-1`` for an international draw...)."""
        winner = parse_result(check_result(value))
        if winner == "*":
            return "*"
        white, draw, black = self.session.referee.variant.results
        return draw if winner is None else white if winner is Color.WHITE else black

    def new_game(
        self,
        fen: str | None = None,
        variant: str | None = None,
        mode: Mode | None = None,
        tags: dict[str, str] | None = None,
        clock: str | None = None,
        *,
        computer: tuple[Color, int] | None = None,
        purpose: str | None = None,
        aside: int | None = None,
    ) -> None:
        """A new game (the clock as before, unless ``clock`` names another control; ``computer``:
        the side the computer plays and its level; ``purpose``: a session that is not a game,
        ``Store.new_game``; ``aside``: the game a training leaves, in its header)."""
        try:
            v = find_variant(variant or self.session.row.variant).name
        except DraughtsError:
            raise PageError("bad-variant", variant=shown(variant)) from None
        if fen:
            try:
                Position.from_fen(fen, v)
            except DraughtsError as exc:
                raise PageError("bad-fen", variant=v, detail=str(exc)) from None
        layout = self._layout_for(v)
        self._refuse_while_paused()
        self.analysis_mode.drop()  # (an analysis on the board ends: the game kept aside is the one in play)
        old = self.session
        try:
            if not old.ended:
                self.store.abandon(old.row.id)
            if layout is not None:
                self._use_layout(layout)
            squares, _cells = self.io.occupied()
            if self.sim is not None:
                squares = set(Position.from_fen(fen, v).occupied() if fen else Position.start(v).occupied())
            carried = ("Event", "Site", "White", "Black")
            old_tags = old.tags() if old.row.purpose is None else {}  # (a training's names are not the next game's)
            kept = {k: val for k, val in old_tags.items() if k in carried and valid_tag(k, val)}
            # the computer's name does not carry over to a game between people
            kept = {k: val for k, val in kept.items() if not is_computer_tag(val)}
            kept.update({k: val for k, val in (tags or {}).items() if val})
            if computer is not None:
                tag = computer_tag(self.computer.name, computer[1], self.computer.settings.move_time)
                kept[computer[0].value.capitalize()] = tag
            h = old.row.header
            control = h.get("clock") if clock is None else parse_control(clock, self.clock_presets).text()
            name = h.get("clock_name") if clock is None else preset_name(clock, self.clock_presets)
            if self.sim is not None:  # the simulated hands set the pieces up at once
                set_up(self.sim, Position.from_fen(fen, v) if fen else Position.start(v))
                while not self.sim.transitions.empty():
                    self.sim.transitions.get_nowait()
            session = self.start_session(
                v,
                fen,
                mode or old.row.mode,
                squares,
                kept,
                clock=control,
                clock_auto=bool(h.get("clock_auto", False)),
                clock_name=name if isinstance(name, str) else None,
                purpose=purpose,
                aside=aside,
            )
        except StoreError as exc:
            raise ValueError(RECORDS_ERROR["en"].format(reason=exc)) from None
        self._switch_to(session)
        if computer is not None:
            self.start_computer(*computer)
        self._mark()

    def start_session(
        self,
        variant: str,
        fen: str | None,
        mode: Mode,
        squares: Iterable[int],
        tags: dict[str, str],
        *,
        clock: str | None = None,
        clock_auto: bool = False,
        clock_name: str | None = None,
        purpose: str | None = None,
        study: int | None = None,
        aside: int | None = None,
    ) -> GameSession:
        """A new session on this board (a game, or one that is not: ``purpose``, a training or
        the analysis mode's), what the board senses and the sensors the self-test found broken in
        its journal's header."""
        senses, pieces = board_pieces(self.io)
        return GameSession.start(
            self.store,
            variant,
            fen,
            mode,
            squares,
            tags,
            window=self.window,
            clock=clock,
            clock_auto=clock_auto,
            clock_name=clock_name,
            senses=senses,
            pieces=pieces,
            broken=self.broken()[0],
            purpose=purpose,
            study=study,
            aside=aside,
        )

    def broken(self) -> tuple[set[int], set[int]]:
        """The squares whose sensor, and those whose LED, the self-test found broken (none
        without a self-test: board_hal.health)."""
        return self.memory.broken(self.io.layout)

    def sensor_repaired(self, square: Any) -> None:
        """The player says the sensor under ``square`` was repaired: played around no more, from
        this game's next event on (the moves recorded stay as they were) and in the next games."""
        if not isinstance(square, int) or isinstance(square, bool):
            raise ValueError(f"sensor-repaired needs square: a number, not {shown(square)}")
        if square not in self.broken()[0] and square not in self.session.referee.suspects:
            raise ValueError(f"sensor-repaired: the sensor under square {square} is not remembered as broken")
        if not self.memory.forget(square, self.io.layout, "the player says it was repaired"):
            self.memory.sound.append(square)  # (the game's referee alone played around it)
        self.trust_again()
        self._mark()

    def trust_again(self) -> None:
        """The sensors found sound again (repaired, or read as the game had them): the game's
        referee reads them again at once, journaled (a replay agrees); while the records cannot
        be written, once they can."""
        while self.memory.sound and self.write_error is None and not self.pending:
            square = self.memory.sound[0]
            if square in self.session.referee.suspects:
                try:
                    self._enter(Action(self.clock(), "sensor-repaired", square=square))
                except ValueError:
                    return  # (the records cannot be written: the board is paused and says so)
            self.memory.sound.pop(0)

    def _switch_to(self, session: GameSession) -> None:
        """The board plays ``session`` from now on (a new game, or one resumed)."""
        self.session = session
        self.memory.new_game()
        if self._changed not in session.listeners:  # (a game kept aside by the analysis mode comes back)
            session.listeners.append(self._changed)
        self._alive = None
        self._records_changed += 1
        self.computer.reset()
        self.computer.set_variant(session.row.variant)
        self._restore_analysis()
        self.trust_forgotten()

    def trust_forgotten(self) -> None:
        """The game in play (resumed, after a restart or from the page's list) reads again at once
        the sensors its referee plays around that are remembered broken no more (repaired, or
        found sound by ``damas selftest`` since it began), as when one is forgotten in play."""
        self.memory.sound += sorted(self.session.referee.suspects - self.broken()[0])
        self.trust_again()

    def resume_game(self, game_id: Any) -> None:
        """Play on a game left unfinished (a new game started while it was in play, or a restart that
        did not resume it); the game in play, if not over, is left unfinished in its turn. The
        simulated board takes the game's pieces at once; a real board is compared with the game (the
        LEDs say what to put back, as after a link gap: ``reconcile``)."""
        if not isinstance(game_id, int) or isinstance(game_id, bool):
            raise ValueError(f"resume-game needs game: a game's id, not {shown(game_id)}")
        if game_id == self.session.row.id:
            raise ValueError(f"game {game_id} is the game in play")
        try:
            row = self.store.game(game_id)
        except StoreError as exc:
            raise ValueError(str(exc)) from None
        if row.state not in (ABANDONED, INTERRUPTED) or row.purpose is not None:
            raise PageError("not-resumable", game=game_id)  # (a session is not a game to play on)
        layout = self._layout_for(row.variant)
        self._refuse_while_paused()
        self.analysis_mode.drop()
        old = self.session
        try:
            self.store.reopen_unfinished(game_id)
            try:
                session = GameSession.resume(self.store, self.store.game(game_id), window=self.window, now=self.clock())
            except DamagedGame:
                self.store.abandon(game_id, DAMAGED)
                raise
            if not old.ended:
                self.store.abandon(old.row.id)
        except StoreError as exc:
            raise ValueError(RECORDS_ERROR["en"].format(reason=exc)) from None
        if layout is not None:
            self._use_layout(layout)
        sim = self.sim
        if sim is not None:
            sim_occupancy(session, sim)
        else:
            reconcile(session, self.io, self.clock())
        self._switch_to(session)
        log.info("resumed game %d (%d plies)", game_id, row.moves)
        self._mark()

    def recent_games(self) -> list[GameRow]:
        """The latest games but the one in play (read again when a game starts, resumes or is corrected)."""
        key = (self.session.row.id, self._records_changed)
        if self._recent is None or self._recent[0] != key:
            try:
                rows = self.store.games(limit=RECENT + 1)
            except StoreError:
                rows = []
            self._recent = (key, [r for r in rows if r.id != self.session.row.id][:RECENT])
        return self._recent[1]

    def kept_analyses(self) -> list[GameRow]:
        """The latest analyses on the board that were left (closed sessions, kept whole), of the
        board's variant (read again whenever another session takes the board)."""
        key = (-1, self._records_changed)
        if self._analyses_listed is None or self._analyses_listed[0] != key:
            try:
                rows = self.store.sessions(ANALYSIS, RECENT * 2)
            except StoreError:
                rows = []
            variant = self.session.row.variant
            kept = [r for r in rows if r.status == CLOSED and r.variant == variant][:RECENT]
            self._analyses_listed = (key, kept)
        return self._analyses_listed[1]

    def _layout_for(self, variant: str) -> Layout | None:
        """The board's layout for another variant (None: the same one). The simulated board takes
        any size; a real board only a variant of its own size (one line naming both, else)."""
        old = self.io.layout
        if variant == old.variant.name:
            return None
        layout = Layout(variant, old.rotation, old.white_side)
        size = self.io.sensors.size
        if self.sim is None and size != layout.size:
            raise PageError("board-size", size=size, variant=layout.variant.name, needed=layout.size)
        return layout

    def _use_layout(self, layout: Layout) -> None:
        """Read the board through another variant's layout (a new game in another variant)."""
        sim = self.sim
        if sim is not None and sim.size != layout.size:
            self.io = SimulatedBoard(layout, clock=sim.clock).io()
            return
        if sim is not None:
            sim.layout = layout
        self.io.layout = layout

    def analyze(self, game_id: Any = None) -> None:
        """Analyse the game in play (its moves so far), or a recorded game (``game_id``: its graph
        and marks shown in its study), off the board loop; the page shows the marks."""
        game, variant = self.session.referee.game, self.session.row.variant
        if game_id is None:
            game_id = self.session.row.id
        elif game_id != self.session.row.id:
            if not isinstance(game_id, int) or isinstance(game_id, bool):
                raise ValueError(f"game must be a game's id, not {shown(game_id)}")
            try:
                row = self.store.game(game_id)
                if row.ended is None:
                    raise ValueError(f"game {game_id} is in play: it is analysed as the game in play")
                game, variant = recorded_game(self.store, game_id), row.variant
            except (StoreError, DamagedGame, DraughtsError) as exc:
                raise ValueError(str(exc)) from None
        if self.analysis is not None:
            self.analysis.cancel()
        settings = self.engine_settings
        limits = analysis_limits(settings)
        self.analysis = GameAnalysis(game_id, game, lambda: open_engine(variant, settings, level=10), limits)
        self._mark()

    # -- analyses kept in the records: a finished game's graph comes back ------------------------
    def _keep_analysis(self) -> None:
        """An analysis just finished: written to the records (its graph and marks outlive the
        program, and the game's turn in play)."""
        a = self.analysis
        if not isinstance(a, GameAnalysis) or a is self._analysis_kept or (data := a.to_json()) is None:
            return
        self._analysis_kept = a
        try:
            self.store.save_analysis(a.game_id, data)
        except StoreError as exc:
            log.warning("the analysis of game %d could not be written: %s", a.game_id, exc)
        self._analyses[a.game_id] = KeptAnalysis.from_json(a.game_id, data)

    def _kept_analysis(self, game_id: int) -> KeptAnalysis | None:
        """A game's analysis from the records (read once; a damaged one: none)."""
        if game_id not in self._analyses:
            try:
                data = self.store.analysis(game_id)
            except StoreError:
                data = None
            self._analyses[game_id] = None if data is None else KeptAnalysis.from_json(game_id, data)
        return self._analyses[game_id]

    def _restore_analysis(self) -> None:
        """The game in play's kept analysis, when it is of the game's moves as they are (a
        finished game resumed or after a restart: its graph again)."""
        a, game = self.analysis, self.session.referee.game
        if a is not None and a.game_id == self.session.row.id:
            return
        moves = [pos.pdn(m) for pos, m in game.steps() if isinstance(m, Move)]
        kept = self._kept_analysis(self.session.row.id) if moves else None
        if kept is not None and kept.moves == moves:
            self.analysis = kept

    def study_analysis(self) -> GameAnalysis | KeptAnalysis | None:
        """The analysis of the recorded game the study was opened from: under way, or kept."""
        study = self.analysis_mode.study
        if study is None or study.source is None:
            return None
        a = self.analysis
        return a if a is not None and a.game_id == study.source else self._kept_analysis(study.source)

    def study_graph(self) -> dict[str, Any] | None:
        """The evaluation graph of the study's game (the recorded game it was opened from), from
        its analysis — under way and finished, or kept — while the study's main line begins
        with the game's moves: the values, the marked plies, and the main line's nodes."""
        study = self.analysis_mode.study
        found = self.study_analysis()
        if study is None or found is None or not found.finished or found.error is not None:
            return None
        line = study.main_line()
        if [n.text for n in line][: len(found.moves)] != found.moves:
            return None
        return {
            "curve": list(found.curve),
            "marked": {m.ply: m.symbol for m in found.marks},
            "nodes": [study.root.id] + [n.id for n in line[: len(found.moves)]],
        }

    def live_allowed(self) -> bool:
        """Live analysis is a hint on every move: only where hints are (``[engine] hints``: casual
        games by default) and once a game is over."""
        ref = self.session.referee
        return self.session.ended or self.engine_settings.allows_hint(ref.mode)

    def live_analysis(self, on: Any) -> None:
        """Turn the live analysis on (the position searched while the players move) or off."""
        if not isinstance(on, bool):
            raise ValueError(f"live needs on: true or false, not {shown(on)}")
        if on and not self.live_allowed():
            raise PageError("no-live")
        if not on:
            self._stop_live()
        elif self.live is None:
            settings, variant = self.engine_settings, self.session.row.variant
            self.live = LiveAnalysis(lambda: open_engine(variant, settings, level=10))
            self._live_variant = variant
            self._follow_live()
        self._mark()

    def _stop_live(self) -> None:
        if self.live is not None:
            self.live.close()
            self.live = None

    def _follow_live(self) -> None:
        """The live analysis follows the game on the board (a new variant: a new engine; a game in
        a mode without hints: off)."""
        if self.live is None:
            return
        if not self.live_allowed():
            self._stop_live()
        elif self._live_variant != self.session.row.variant:
            self._stop_live()
            self.live_analysis(True)
        else:
            studying = self.analysis_mode.study is not None
            self.live.follow(self.analysis_mode.game() if studying else self.session.referee.game)

    def kept_studies(self) -> list[StudyRow]:
        """The page's list of kept studies (of the board's variant, but the one open)."""
        return self.kept.listed(self.session.row.variant, self.analysis_mode.study_id, RECENT)

    def close(self) -> None:
        """Stop the engines (the computer's, an analysis under way, the live one) and the voice."""
        self._stop_live()
        if self.analysis is not None:
            self.analysis.cancel()
        self.computer.close()
        self.speech.close()

    def start_computer(self, side: Color, level: int) -> None:
        """The computer plays ``side`` at ``level`` in the game in play, or at its time a move when
        the strength was chosen by time (journalled, so a resumed or replayed game knows both)."""
        self._enter(Action(self.clock(), "computer", side, level=level, move_time=self.computer.settings.move_time))

    def correct(self, game_id: int, tags: Any, result: Any) -> None:
        """Tags (``""`` removes one) and result of a game. A result for the game in play ends it, as
        the players' entry (journaled): referee, records, page and export agree; ``*`` leaves it
        going. A bad tag or result is a ``ValueError`` naming it, and nothing is changed."""
        if tags is not None:
            check_tags(tags)
        if result is not None:
            result = self._result(result)
            if game_id == self.session.row.id and not self.session.ended:
                if result != "*":
                    self._enter(Action(self.clock(), "result", result=result))
                result = None
        try:
            self.store.correct(game_id, tags, result)
        except StoreError as exc:
            raise ValueError(str(exc)) from None
        if self.publisher is not None and game_id != self.session.row.id:
            self.publisher.corrected.add(game_id)  # the hall gets the correction too
        self._records_changed += 1
        self._mark()

    def busy(self) -> str | None:
        """What the board is doing that is not a game (a hall's assignment waits for its end)."""
        if self.training_mode.training is not None:
            return "a training"
        if self.analysis_mode.board is not None:
            return "an analysis on the board"
        return None

    def assign(self, data: dict[str, Any]) -> None:
        """The hall's next game for this board (players, colours, round, event): the game in play
        takes the names while it has no move yet, else the next game starts with them once this
        one is over. During a training or an analysis on the board it waits (shown on the page)
        and is taken when the session ends, by the game played on then, or a new game. An
        assignment already taken is not taken again."""
        given = {
            "White": data.get("white"),
            "Black": data.get("black"),
            "Round": data.get("round"),
            "Event": data.get("event"),
        }
        tags = {k: str(v) for k, v in given.items() if v not in (None, "")}
        check_tags(tags)
        busy = self.busy()
        if busy is not None:  # kept (the page shows it), taken once the session ends: never lost, never switched to
            raise ValueError(f"{busy} is under way: round {tags.get('Round', '?')} waits for its end")
        if self.session.row.purpose is not None:  # a training stopped with no game to go back to
            self.new_game(tags=tags)
            return
        current = self.session.tags()
        if all(current.get(k) == v for k, v in tags.items()):
            return  # already this game
        if not self.session.referee.game.steps():
            self.correct(self.session.row.id, tags, None)
        elif self.session.ended:
            self.new_game(tags=tags)
        else:
            raise ValueError(f"game {self.session.row.id} is in play: round {tags.get('Round', '?')} waits for its end")

    # -- views ------------------------------------------------------------------------------------
    def game_pdn(self, game_id: int) -> str:
        """A game as PDN (an analysis session: every line it played, ``session_pdn``)."""
        if game_id == self.session.row.id and self.session.row.purpose != ANALYSIS:
            return self.session.pdn_game().pdn()
        try:
            return session_pdn(self.store, game_id).pdn()
        except StoreError as exc:
            raise LookupError(str(exc)) from None

    def game_in_play(self) -> GameSession | None:
        """The real game: the session on the board when it is a game, the game an analysis on the
        board keeps aside, or None (a training, or an analysis from one): what the broadcast feed
        and the hall show, never a session that is not a game."""
        held = self.analysis_mode.held
        game = self.session if held is None else held
        return game if game.row.purpose is None else None

    def live_pdn(self, recent: int = 10) -> str:
        """The broadcast feed: the real game in play first (none during a training), then the
        recent games (never a training or analysis session)."""
        game = self.game_in_play()
        games = [] if game is None else [game.pdn_game()]
        for row in self.store.games(limit=recent + 1):
            if game is None or row.id != game.row.id:
                games.append(export_game(self.store, row.id))
        return write_pdn(games[: recent + 1])

    def state(self, lang: str) -> dict[str, Any]:
        """What the page shows in ``lang``: ``/api/state`` and every push (``damas.board.page_state``)."""
        return page_state(self, lang)


ANALYSIS_TIME = 0.3  # seconds per position when the page asks for an analysis
RECENT = 6  # games the page lists beside the game in play


def analysis_limits(settings: EngineSettings) -> Limits:
    """What bounds the search of each position when the page asks for an analysis: the
    ``[engine]`` move time, else ANALYSIS_TIME."""
    return Limits(move_time=settings.move_time or ANALYSIS_TIME)


def set_up(sim: SimulatedBoard, pos: Position) -> None:
    """The simulated hands set up ``pos``: its pieces, coloured and crowned, wherever the board can tell."""
    if sim.senses > Sensing.PRESENCE:
        sim.set_pieces({sq: SquareState.of(p.color.value, p.king) for sq, p in pos.pieces().items()})
    else:
        sim.set_squares(pos.occupied())


def board_pieces(io: BoardIO) -> tuple[str | None, dict[int, SquareState] | None]:
    """What a board that senses colour tells (``colour``/``crown``) and the pieces it reads
    now, for a new game's journal; (None, None) for a board that senses presence only."""
    if io.senses <= Sensing.PRESENCE:
        return None, None
    return io.senses.name.lower(), {k: s for k, s in io.pieces().items() if isinstance(k, int)}


def sim_occupancy(session: GameSession, sim: SimulatedBoard) -> None:
    """After a resume, the simulated board holds what the journal says it held (on a board that
    senses colour, the game's pieces where the game has them)."""
    sim.set_squares(session.raw)
    if sim.senses > Sensing.PRESENCE:
        pos = session.referee.position
        sim.set_pieces(
            {
                sq: SquareState.of(p.color.value, p.king) if (p := pos.piece_at(sq)) else SquareState.OCCUPIED
                for sq in session.raw
            }
        )
    for name in session.raw_cells:
        f, r = sim.layout.geometry.parse_cell(name)
        sim.place_cell(sim.layout.physical(f, r))
    while not sim.transitions.empty():
        sim.transitions.get_nowait()


def reconcile(session: GameSession, io: BoardIO, now: float) -> None:
    """After a resume, the real board may differ from the journal: the players went on while
    the program was away. That is a link gap like any other (journalled as the link coming
    back with the board): the moves made meanwhile are reconstructed when only one sequence
    explains the board, else the page says what to restore."""
    if io.link == "down":
        return  # not heard from yet: when it is, its link coming up does this
    squares, cells = io.occupied()
    if squares != session.raw or cells != session.raw_cells:
        session.feed(LinkStatus(now, True, frozenset(squares), frozenset(cells)))
