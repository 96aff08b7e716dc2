"""The engines the app plays with: the computer's moves, hints and analysis.

Two implementations of one small interface (:class:`Opponent`), both off the board loop:

* :class:`HubEngine` drives any engine that speaks the Hub protocol (``ENGINES.md``) in a
  subprocess: ``[engine] command = "scan hub"``, or, by default, our own ``damas hub``. A
  worker thread holds the dialogue (start-up, ``pos``/``level``/``go``, ``stop``) with a
  timeout on every answer; the board loop only ever looks at what has arrived (:meth:`poll`).
* :class:`LocalEngine`: our engine in a worker thread of this process. A pure-Python search
  holds the GIL, so while it thinks the board loop's turns wait for it:
  ``benchmarks/opponent.py`` measured the delay from a board event to the LEDs at 37 ms
  (median) and 73 ms (90th percentile) with the engine in a thread, against 13/24 ms with no
  engine and 15/27 ms with the engine in its own process (a loaded 2-core machine). That is
  why ``damas play`` runs even our own engine in a process of its own.

An engine that cannot start, crashes, hangs, answers nonsense or an illegal move, or writes
more than a Hub engine would (a line longer than ``MAX_LINE``, more than ``RATE`` bytes a
second: its output is read in bounded pieces, never held whole) is a
:class:`EngineFailed` with one line saying so; the engine is then closed for good (killed
with every process it started: it runs in a process group of its own) and :meth:`poll`
hands the message over once (the app shows it, and the game goes on between the players).
Its memory is bounded too (``[engine] memory``; by default half the machine's): an engine
that wants more fails its allocation, and so the game, not the board.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import queue
import resource
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import LEVELS, MATE_BOUND, Engine, Limits, level_settings
from engine.endgame import VARIANTS as ENDGAME_VARIANTS
from engine.endgame import open_databases
from engine.hub import HUB_VARIANTS, HubError, format_line, move_text, parse_hub_move, parse_line, position_text
from referee.vocabulary import Mode
from rules import Color, Game, Move, Position

log = logging.getLogger(__name__)

#: the Hub name of each of our variants (Scan calls International ``normal``)
HUB_NAMES = {ours: hub for hub, ours in HUB_VARIANTS.items()}
#: seconds a move of an external engine takes per level (it has no levels of its own)
EXTERNAL_TIMES = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 2.0, 3.0, 5.0)
DEFAULT_LEVEL = 3
DEFAULT_TIMEOUT = 10.0  # seconds beyond the expected time before an engine counts as hung
DEPTH_TIME = 30.0  # seconds a depth-limited search is expected to take at most
# nodes a second our search makes at the least on the slowest board computer we support (a
# Raspberry Pi 3; this 2-core x86 machine makes 60-130k): a level bounded by nodes is given
# nodes / SLOWEST_NPS seconds before it counts as hung (level 10's 600,000 nodes: 120 s)
SLOWEST_NPS = 5_000
STOP_TIMEOUT = 5.0  # seconds an engine has to answer ``stop``
START_TIMEOUT = 5.0  # seconds, at least, a starting engine has to answer ``hub`` (a loaded Pi starts slowly)
HINT_TIME = 1.0  # seconds for a hint
# what an engine may write: its lines are a few hundred bytes, a few a second
MAX_LINE = 16 * 1024  # bytes of one line (a longer one fails the engine)
RATE = 1 << 20  # bytes a second, sustained, on each of its outputs (more fails the engine)...
BURST = 4 << 20  # ...beyond this many at once
QUEUED = 256  # lines read and not yet taken (the engine waits while that many are)...
FULL_FOR = 2.0  # ...for at most this many seconds
HINT_MODES = ("casual", "always", "never")
MEMORY_RANGE = (64, 1 << 20)  # MB an engine may be given (engine.memory)


class EngineFailed(Exception):
    """The engine cannot go on (one line: what it did)."""


@dataclass(frozen=True)
class Answer:
    """What a search came back with: the move (None in a finished game), or why there is none."""

    ticket: int
    move: Move | None
    score: int | None = None  # hundredths of a man for the side to move, when the engine said
    error: str | None = None
    pv: tuple[Move, ...] = ()  # the line the engine expects, from its move on (when it said)
    depth: int | None = None  # the depth its last finished iteration reached (when it said)


@dataclass(frozen=True)
class EngineSettings:
    """The ``[engine]`` table of the configuration, checked."""

    command: str | None = None  # None: our own engine
    level: int = DEFAULT_LEVEL
    side: Color = Color.BLACK  # the side the computer plays
    opponent: str = "human"  # "engine": damas play starts a game against the computer
    move_time: float | None = None  # seconds per move, instead of the level's
    hints: str = "casual"  # when the page offers a hint: casual games, always, never
    timeout: float = DEFAULT_TIMEOUT
    tt_size: int = 16  # MB of our engine's transposition table
    seed: int | None = None  # our engine's random seed: the same seed, the same game (levels 1-6)
    memory: int | None = None  # MB the engine's process may take (None: default_memory)
    endgames: str | None = None  # a directory of 8x8 endgame databases for our own engine

    def endgames_for(self, variant: str) -> str | None:
        """The endgames directory when it holds ``variant``'s tables (None: the engine plays
        without, and why is logged: International has none, or they were not built there)."""
        if self.endgames is None or variant not in ENDGAME_VARIANTS:
            return None
        try:
            open_databases(variant, Path(self.endgames))
        except ValueError as exc:
            log.warning("the engine plays %s without endgame databases: %s", variant, exc)
            return None
        return self.endgames

    def allows_hint(self, mode: Mode) -> bool:
        return self.hints == "always" or (self.hints == "casual" and mode == "casual")


KEYS = (
    "command",
    "level",
    "side",
    "opponent",
    "move_time",
    "hints",
    "timeout",
    "tt_size",
    "seed",
    "memory",
    "endgames",
)


def default_memory(tt_mb: int) -> int:
    """MB an engine may take unless ``[engine] memory`` says: half the machine's memory, and
    never less than our own engine needs with its table (``tt_mb``) twice over."""
    try:
        half = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2 >> 20
    except (ValueError, OSError):
        half = 1024
    return max(half, 2 * tt_mb + 256)


def settings_from_config(table: Mapping[str, Any], source: str) -> EngineSettings:
    """``[engine]`` as settings; a problem is a ``ValueError`` of one line naming the file and the key."""

    def bad(key: str, what: str) -> ValueError:
        value = table[key]
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        return ValueError(f"{source}: engine.{key} must be {what}, not {shown}")

    for key in table:
        if key not in KEYS:
            return_key = str(key)[:40]
            raise ValueError(f"{source}: unknown setting engine.{return_key} (known: {', '.join(KEYS)})")
    s: dict[str, Any] = {}
    if "command" in table:
        command = table["command"]
        if not isinstance(command, str) or not command.strip():
            raise bad("command", 'the command line of a Hub engine (e.g. "scan hub")')
        try:
            shlex.split(command)
        except ValueError as exc:
            raise ValueError(f"{source}: engine.command: {exc} in {command[:60]!r}") from None
        s["command"] = command
    if "level" in table:
        level = table["level"]
        if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= len(LEVELS):
            raise bad("level", f"a level 1-{len(LEVELS)}")
        s["level"] = level
    if "side" in table:
        if table["side"] not in ("white", "black"):
            raise bad("side", '"white" or "black" (the side the computer plays)')
        s["side"] = Color(table["side"])
    if "opponent" in table:
        if table["opponent"] not in ("human", "engine"):
            raise bad("opponent", '"human" or "engine"')
        s["opponent"] = table["opponent"]
    for key, low, high in (("move_time", 0.01, 3600.0), ("timeout", 0.5, 3600.0)):
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                raise bad(key, f"seconds between {low:g} and {high:g}")
            s[key] = float(value)
    if "hints" in table:
        if table["hints"] not in HINT_MODES:
            raise bad("hints", '"casual", "always" or "never"')
        s["hints"] = table["hints"]
    if "tt_size" in table:
        size = table["tt_size"]
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= 4096:
            raise bad("tt_size", "megabytes, 1-4096")
        s["tt_size"] = size
    if "seed" in table:
        seed = table["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
            raise bad("seed", "a whole number, 0 or more")
        s["seed"] = seed
    if "memory" in table:
        memory, (low, high) = table["memory"], MEMORY_RANGE
        if isinstance(memory, bool) or not isinstance(memory, int) or not low <= memory <= high:
            raise bad("memory", f"megabytes, {low}-{high}")
        s["memory"] = memory
    if "endgames" in table:
        s["endgames"] = _endgames_setting(table, source)
    return EngineSettings(**s)


def _endgames_setting(table: Mapping[str, Any], source: str) -> str:
    """``engine.endgames``: a directory holding the databases of at least one 8x8 variant."""
    where = table["endgames"]
    if "command" in table:
        raise ValueError(f"{source}: engine.endgames is for our own engine, not for engine.command's")
    if not isinstance(where, str) or not where.strip():
        raise ValueError(
            f"{source}: engine.endgames must be a directory of endgame databases "
            f"(python -m engine.endgame build), not {where!r}"[:200]
        )
    folder = Path(where).expanduser()
    problems = []
    for variant in ENDGAME_VARIANTS:
        try:
            open_databases(variant, folder)
        except ValueError as exc:
            problems.append(str(exc))
        else:
            return str(folder)
    raise ValueError(f"{source}: engine.endgames: {problems[0]}")


def limits_for(
    level: int, move_time: float | None = None, *, external: bool = False, variant: str | None = None
) -> Limits:
    """How long the computer thinks at ``level`` (in ``variant``: a level may differ by
    variant): our engine's levels 1-6 by depth, 7-10 by nodes: reproducible, the same strength
    on any machine under any load; an external engine by time; ``move_time`` instead of the level's."""
    if move_time is not None:
        return Limits(move_time=move_time)
    settings = level_settings(level, variant)
    if external:
        return Limits(move_time=EXTERNAL_TIMES[level - 1])
    return Limits(depth=settings.depth, nodes=settings.nodes)


def expected_seconds(limits: Limits) -> float:
    """How long a search with ``limits`` should take at most, before any allowance."""
    if limits.move_time is not None:
        return limits.move_time
    if limits.time is not None:
        return limits.time + limits.inc
    if limits.nodes is not None:
        return max(DEPTH_TIME, limits.nodes / SLOWEST_NPS)
    return DEPTH_TIME


def _start_and_moves(game: Game) -> tuple[Position, list[Move]]:
    """The position the game last started from (its start, or its last set-up) and the moves since."""
    start = game.start
    moves: list[Move] = []
    for _before, entry in game.steps():
        if isinstance(entry, Position):
            start, moves = entry, []
        else:
            moves.append(entry)
    return start, moves


class Opponent:
    """An engine: ask for a move (never waits), look for the answer later, cancel, close."""

    name = "engine"

    def __init__(self) -> None:
        self.failed: str | None = None  # why the engine gave up, once it has
        self._tickets = 0
        self._current = 0  # the ticket whose answer is wanted
        self._answers: queue.Queue[Answer] = queue.Queue()

    def ask(self, game: Game, limits: Limits, *, level: int | None = None) -> int:
        """Start a search for the move of ``game``'s side to move; returns its ticket
        (the earlier searches are cancelled: only the newest one's answer comes)."""
        raise NotImplementedError

    def poll(self) -> Answer | None:
        """The answer to the newest question, once it has arrived (an engine's failure comes
        once, with its message)."""
        return self.wait(0.0)

    def wait(self, timeout: float) -> Answer | None:
        """Block until the answer arrives (for the command line and tests, not the board loop)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                answer = self._answers.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if answer.error is not None or answer.ticket == self._current:
                return answer
            # an answer that arrived just before its question was cancelled or replaced

    def cancel(self) -> None:
        """Forget the search under way (its answer never comes)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def _next_ticket(self) -> int:
        self._tickets += 1
        return self._tickets


class LocalEngine(Opponent):
    """Our engine in a worker thread of this process."""

    def __init__(self, variant: str, *, level: int = DEFAULT_LEVEL, tt_mb: float = 16, seed: int | None = None) -> None:
        super().__init__()
        self.engine = Engine(variant, level=level, tt_mb=tt_mb, seed=seed)
        self.name = f"damas level {level}"
        self._jobs: queue.Queue[tuple[int, Game, Limits, int | None] | None] = queue.Queue()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="engine", daemon=True)
        self._thread.start()

    def ask(self, game: Game, limits: Limits, *, level: int | None = None) -> int:
        with self._lock:
            self._stop.set()  # an earlier search ends now; its answer is dropped
            ticket = self._current = self._next_ticket()
        self._jobs.put((ticket, game.copy(), limits, level))
        return ticket

    def cancel(self) -> None:
        with self._lock:
            self._current = self._next_ticket()
            self._stop.set()

    def close(self) -> None:
        self.cancel()
        self._jobs.put(None)
        self._thread.join(timeout=5)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            ticket, game, limits, level = job
            with self._lock:
                if ticket != self._current:
                    continue
                self._stop = stop = threading.Event()
            if level is not None:
                self.engine.set_level(level)
            result = self.engine.search(game, limits, stop_event=stop)
            with self._lock:
                if ticket == self._current:
                    self._answers.put(Answer(ticket, result.move, result.score, pv=result.pv, depth=result.depth))


class HubEngine(Opponent):
    """A Hub engine in a subprocess (``command``; by default our own ``damas hub``)."""

    def __init__(
        self,
        variant: str,
        command: str | None = None,
        *,
        level: int = DEFAULT_LEVEL,
        timeout: float = DEFAULT_TIMEOUT,
        tt_mb: int = 16,
        seed: int | None = None,
        memory: int | None = None,
        endgames: str | None = None,
    ) -> None:
        super().__init__()
        self.variant = variant
        self.seed = seed
        self.memory = default_memory(tt_mb) if memory is None else memory  # MB
        self.hub_variant = HUB_NAMES[variant]
        self.external = command is not None
        if command is None:
            self.argv = [sys.executable, "-m", "damas", "hub", "--variant", self.hub_variant]
            self.argv += ["--level", str(level), "--tt-size", str(tt_mb)]
            if endgames:
                self.argv += ["--endgames", endgames]
            self.name = "damas"
        else:
            self.argv = shlex.split(command)
            self.name = self.argv[0] if self.argv else "engine"
        self.command = command or "damas hub"
        self.timeout = timeout
        self.level = level
        self.params: dict[str, dict[str, str]] = {}
        self.proc: subprocess.Popen[bytes] | None = None
        self._lines: queue.Queue[str | _Overrun | None] = queue.Queue(QUEUED)
        self._overrun: _Overrun | None = None  # why the reader stopped reading a flood
        self._stderr: deque[str] = deque(maxlen=5)
        self._jobs: queue.Queue[tuple[int, Game, Limits, int | None] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._searching = 0  # the ticket of the search the engine is running (0: none)
        self._sent_level: int | None = None
        self._stopped_at: float | None = None  # when stop was sent for the search under way
        self._closing = False
        self.ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hub-engine", daemon=True)
        self._thread.start()

    # -- the interface ------------------------------------------------------------------------------
    def ask(self, game: Game, limits: Limits, *, level: int | None = None) -> int:
        with self._lock:
            ticket = self._current = self._next_ticket()
            self._stop_search()
        self._jobs.put((ticket, game.copy(), limits, level))
        return ticket

    def cancel(self) -> None:
        with self._lock:
            self._current = self._next_ticket()
            self._stop_search()

    def close(self) -> None:
        with self._lock:
            self._closing = True
            self._current = self._next_ticket()
            self._stop_search()
        self._jobs.put(None)
        self._thread.join(timeout=STOP_TIMEOUT + 2)
        self._kill()

    # -- the worker ------------------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            self._start()
            self.ready.set()
            while (job := self._jobs.get()) is not None:
                ticket, game, limits, level = job
                with self._lock:
                    if ticket != self._current:
                        continue
                answer = self._search(ticket, game, limits, level)
                with self._lock:
                    if answer is not None and ticket == self._current:
                        self._answers.put(answer)
            self._quit()
        except Exception as exc:  # EngineFailed, or anything unforeseen: never a worker gone without a word
            with self._lock:
                closing = self._closing
            self._kill()
            if not closing:
                if not isinstance(exc, EngineFailed):
                    log.debug("the engine client failed", exc_info=True)
                    exc = EngineFailed(f"could not be used: {exc}")
                self.failed = f"the engine ({self.command}) {exc}"
                log.error("%s", self.failed)
                self._answers.put(Answer(self._current, None, error=self.failed))
        finally:
            self.ready.set()

    def _start(self) -> None:
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # Ctrl-C on the terminal is the app's to handle
            )
        except OSError as exc:
            raise EngineFailed(f"cannot be started: {exc.strerror or exc}") from None
        self._bound_memory(self.proc.pid)
        threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()
        self._send("hub")
        allowed = max(self.timeout, START_TIMEOUT)
        deadline = time.monotonic() + allowed
        while True:
            command, values, _flags = self._next(deadline, "hub", allowed=allowed)
            if command == "id" and "name" in values:
                self.name = values["name"] + (f" {values['version']}" if "version" in values else "")
            elif command == "param" and "name" in values:
                self.params[values["name"]] = values
            elif command == "wait":
                break
        variants = self.params.get("variant")
        if variants is None:
            if self.hub_variant != "normal":
                raise EngineFailed(
                    f"plays only International draughts (it has no variant parameter), not {self.variant}"
                )
        else:
            known = variants.get("values", "").split()
            if known and self.hub_variant not in known:
                raise EngineFailed(f"does not play {self.variant} draughts (its variants: {', '.join(known)})")
            self._send(format_line("set-param", name="variant", value=self.hub_variant))
        self._set_level(self.level)
        if self.seed is not None and "seed" in self.params:
            self._send(format_line("set-param", name="seed", value=self.seed))
        self._send("init")
        allowed = max(self.timeout, 30.0)  # an engine may load its tables now
        deadline = time.monotonic() + allowed
        while self._next(deadline, "init", allowed=allowed)[0] != "ready":
            pass
        log.info("engine %s ready (%s)", self.name, self.command)

    def _bound_memory(self, pid: int) -> None:
        """The engine's data (what it allocates: heap, anonymous mappings, thread stacks) is
        bounded at ``self.memory`` MB: beyond, its allocations fail (Python's MemoryError, C's
        NULL from malloc) and it ends or says so, while the board goes on. Set as it starts,
        before it has read a line (``preexec_fn`` is unsafe with the board's threads)."""
        if not hasattr(resource, "prlimit"):  # (Linux only)
            return
        limit = self.memory << 20
        try:
            _soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
            if hard != resource.RLIM_INFINITY:
                limit = min(limit, hard)
            resource.prlimit(pid, resource.RLIMIT_DATA, (limit, limit))
        except (OSError, ValueError) as exc:  # (an engine that is set-user-id: not ours to bound)
            log.warning("the engine's memory is not bounded: %s", exc)

    def _set_level(self, level: int | None) -> None:
        if level is not None and "level" in self.params and level != self._sent_level:
            self._send(format_line("set-param", name="level", value=level))
            self._sent_level = level

    def _search(self, ticket: int, game: Game, limits: Limits, level: int | None) -> Answer | None:
        if game.outcome() is not None:
            return Answer(ticket, None)
        start, moves = _start_and_moves(game)
        self._set_level(level)
        if moves:
            self._send(format_line("pos", pos=position_text(start), moves=" ".join(move_text(m) for m in moves)))
        else:
            self._send(format_line("pos", pos=position_text(start)))
        self._send(_level_line(limits))
        with self._lock:
            if ticket != self._current:
                return None
            self._searching = ticket
        self._send("go think")
        deadline = time.monotonic() + expected_seconds(limits) + self.timeout
        score: int | None = None
        line, depth = "", None
        said = ""  # the engine's last error line during this search
        try:
            while True:
                with self._lock:
                    stop_at = self._stopped_at
                waiting = "go think" if stop_at is None else "stop"
                if stop_at is not None:
                    deadline = min(deadline, stop_at + STOP_TIMEOUT)
                command, values, _flags = self._next(min(deadline, time.monotonic() + 0.1), waiting, deadline)
                if command == "info" and "score" in values:
                    score = _score(values["score"])
                    line, depth = values.get("pv", ""), _depth(values.get("depth"))
                elif command == "error" and "message" in values:
                    log.warning("engine %s: %s", self.name, values["message"])
                    said = values["message"][:200]
                elif command == "done":
                    break
        finally:
            with self._lock:
                stopped = self._searching != ticket
                self._searching = 0
                self._stopped_at = None
        if stopped or ticket != self._current:
            return None  # cancelled: its answer is not wanted
        text = values.get("move")
        if text is None:
            because = f" (it said: {said})" if said else ""
            raise EngineFailed(f"answered done without a move in {game.position.fen()}{because}")
        try:
            move = parse_hub_move(game.position, text)
        except HubError as exc:
            if str(exc).startswith("invalid move"):
                raise EngineFailed(f"answered {text[:40]!r}, which is not a move") from None
            legal = " ".join(move_text(m) for m in list(game.position.legal_moves)[:12])
            raise EngineFailed(f"answered an illegal move {text[:40]!r} (legal: {legal})") from None
        return Answer(ticket, move, score, pv=_line(game.position, line, move), depth=depth)

    def _stop_search(self) -> None:
        """(with the lock held) Ask the engine to stop the search under way; its done line is read
        and dropped by the worker. An engine that does not answer is closed."""
        if self._searching:
            self._searching = -1  # the answer that comes is dropped
            self._stopped_at = time.monotonic()
            with contextlib.suppress(EngineFailed):
                self._send("stop")

    def _quit(self) -> None:
        with contextlib.suppress(EngineFailed):
            self._send("quit")
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=1.0)

    def _kill(self) -> None:
        """The engine and every process it started (a command that is a script, a wrapper):
        its process group, of which it is the leader."""
        proc = self.proc
        if proc is None:
            return
        # (the group's id stays reserved while any of its processes lives, so that it names no other)
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.poll() is None:
            proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=5)
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()

    # -- lines -------------------------------------------------------------------------------------------
    def _send(self, line: str) -> None:
        proc = self.proc
        if proc is None or proc.stdin is None:
            raise EngineFailed("is not running")
        try:
            proc.stdin.write((line + "\n").encode())
            proc.stdin.flush()
        except (OSError, ValueError):
            raise EngineFailed(self._exited("while reading its input")) from None

    def _next(
        self, until: float, waiting_for: str, deadline: float | None = None, *, allowed: float | None = None
    ) -> tuple[str, dict[str, str], list[str]]:
        """The next line the engine wrote that the protocol knows (others are ignored), by ``until``;
        ``("", {}, [])`` when ``until`` comes first, unless it is the ``deadline`` (the default):
        then the engine has failed (``allowed``: the seconds it had, said in the error; by default
        the move timeout)."""
        deadline = until if deadline is None else deadline
        while True:
            left = until - time.monotonic()
            if left <= 0:  # (checked first: an engine that floods its output cannot hold the worker)
                if until < deadline:
                    return "", {}, []
                timeout = self.timeout if allowed is None else allowed
                raise EngineFailed(f"did not answer {waiting_for!r} in time (timeout {timeout:g} s)")
            if self._overrun is not None:
                raise EngineFailed(self._overrun.why)
            try:
                line = self._lines.get(timeout=min(left, 0.25))
            except queue.Empty:
                continue
            if line is None:
                raise EngineFailed(self._exited(f"after {waiting_for!r}"))
            if isinstance(line, _Overrun):
                raise EngineFailed(line.why)
            try:
                command, values, flags = parse_line(line)
            except HubError:
                log.debug("engine %s: ignored %r", self.name, line[:80])
                continue
            if command:
                return command, values, flags

    def _exited(self, when: str) -> str:
        proc = self.proc
        status = None
        if proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                status = proc.wait(timeout=1.0)
        said = f": {self._stderr[-1][:120]}" if self._stderr else ""
        how = f"exited with status {status}" if status is not None else "closed its output"
        return f"{how} {when}{said}"

    def _read(self, stream: Any) -> None:
        """The engine's output, line by line, in bounded pieces: an overlong line or a flood
        is handed to the worker as an :class:`_Overrun` (the engine then fails), never held."""
        rate = _Rate(RATE, BURST)
        try:
            while raw := stream.readline(MAX_LINE + 1):
                if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                    self._hand(_Overrun(f"wrote a line longer than {MAX_LINE // 1024} KiB"))
                    return
                if not rate.take(len(raw)):
                    self._hand(_Overrun(f"wrote more than {RATE >> 20} MiB a second"))
                    return
                if not self._hand(raw.decode("utf-8", "replace").rstrip("\r\n")):
                    return
        except (OSError, ValueError):
            pass
        self._hand(None)

    def _hand(self, item: str | _Overrun | None) -> bool:
        """Queue a line for the worker, waiting while the queue is full (so the engine waits
        too); ``False`` when nobody takes it: the engine is gone, or it writes faster than its
        lines can be read (the queue full for ``FULL_FOR`` seconds: an overrun)."""
        if isinstance(item, _Overrun):
            self._overrun = item  # (seen by the worker even with the queue full)
        waited = 0.0
        while True:
            try:
                self._lines.put(item, timeout=0.5)
                return True
            except queue.Full:
                proc = self.proc
                if proc is None or proc.poll() is not None or isinstance(item, _Overrun):
                    return False
                waited += 0.5
                if waited >= FULL_FOR:
                    self._overrun = _Overrun(f"wrote more than {QUEUED} lines faster than they could be read")
                    return False

    def _read_stderr(self) -> None:
        """What the engine says on its error output (the last few lines, each cut short), read
        in bounded pieces; a flood fails the engine as on its output."""
        proc = self.proc
        assert proc is not None and proc.stderr is not None
        rate = _Rate(RATE, BURST)
        with contextlib.suppress(OSError, ValueError):
            while raw := proc.stderr.readline(1024):
                if not rate.take(len(raw)):
                    self._hand(_Overrun(f"wrote more than {RATE >> 20} MiB a second on its error output"))
                    return
                line = raw.decode("utf-8", "replace").strip()
                if line:
                    self._stderr.append(line[:200])
                while not raw.endswith(b"\n") and (raw := proc.stderr.readline(1024)):  # the rest of a long line
                    if not rate.take(len(raw)):
                        self._hand(_Overrun(f"wrote more than {RATE >> 20} MiB a second on its error output"))
                        return


@dataclass(frozen=True)
class _Overrun:
    """An engine that wrote more than a Hub engine would: why (the worker fails it)."""

    why: str


class _Rate:
    """A token bucket: ``rate`` bytes a second, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self, n: int) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        self.tokens -= n
        return self.tokens >= 0


def _level_line(limits: Limits) -> str:
    if limits.infinite:
        return "level infinite"
    values: dict[str, Any] = {}
    if limits.depth is not None:
        values["depth"] = limits.depth
    if limits.nodes is not None:
        values["nodes"] = limits.nodes
    if limits.move_time is not None:
        values["move_time"] = f"{limits.move_time:g}"
    elif limits.time is not None:
        if limits.moves:
            values["moves"] = limits.moves
        values["time"] = f"{limits.time:g}"
        if limits.inc:
            values["inc"] = f"{limits.inc:g}"
    return format_line("level", **values) if values else format_line("level", move_time="1")


def _score(text: str) -> int | None:
    """An ``info score=`` (men, for the side to move) in hundredths; 999 and beyond: a win."""
    try:
        men = float(text)
    except ValueError:
        return None
    if not math.isfinite(men):
        return None
    if abs(men) >= 999:
        return MATE_BOUND if men > 0 else -MATE_BOUND
    return round(men * 100)


def _depth(text: str | None) -> int | None:
    return int(text) if text is not None and text.isdigit() else None


def _line(pos: Position, text: str, move: Move) -> tuple[Move, ...]:
    """The engine's line as moves (it starts with its move), up to the first one that is not
    legal where it stands (an engine's line is a hint, never trusted further)."""
    line: list[Move] = []
    for word in text.split():
        try:
            m = parse_hub_move(pos, word)
        except HubError:
            break
        if not line and m != move:
            break  # the line of an earlier iteration, not of the move it chose
        line.append(m)
        pos = pos.apply(m)
    return tuple(line) or (move,)


def open_engine(variant: str, settings: EngineSettings, *, level: int | None = None) -> Opponent:
    """The engine the settings name: an external Hub engine, or our own in a process of its own."""
    return HubEngine(
        variant,
        settings.command,
        level=level or settings.level,
        timeout=settings.timeout,
        tt_mb=settings.tt_size,
        seed=settings.seed,
        memory=settings.memory,
        endgames=settings.endgames_for(variant),
    )
