"""The engine behind the Hub protocol, version 2 (Scan's protocol); ``damas hub`` runs it.

The GUI writes one command per line on standard input; the engine answers on standard
output. The search runs in a thread, so that ``stop``, ``ponder-hit`` and ``ping`` are
answered while it thinks. Standard input closed means the GUI died: exit at once.

Positions (``pos pos=...``) are the side to move and one letter per square in the
variant's official numbering (``w``/``b`` men, ``W``/``B`` kings, ``e`` empty); moves are
``from-to`` or ``fromxtoxcaptured...`` in square numbers.
"""

from __future__ import annotations

import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from engine import LEVELS, MATE_BOUND, Engine, Limits, SearchInfo, SearchResult
from engine.endgame import VARIANTS as ENDGAME_VARIANTS
from engine.endgame import open_databases
from rules import DraughtsError, Game, Move, Position, find_variant
from rules.variants import Color

NAME = "damas"
AUTHOR = "The damas developers"
#: Hub variant names (Scan's ``normal`` is International) and ours for 8x8
HUB_VARIANTS = {"normal": "international", "brazilian": "brazilian", "portuguese": "portuguese"}
DEFAULT_TT_MB = 64
MAX_LINE = 64 * 1024  # characters of a line from the GUI (a pos line of a long game is a few thousand)
MAX_MESSAGE = 200  # characters of an error message (what it quotes of a bad line is cut short)


class HubError(ValueError):
    """A line the engine cannot use (answered with ``error message="..."``)."""


# -- the line format -------------------------------------------------------------------------------
def parse_line(line: str) -> tuple[str, dict[str, str], list[str]]:
    """``command name=value name="a value" flag`` -> (command, values, flags)."""
    text = line.strip()
    i, n = 0, len(text)
    words: list[tuple[str, str | None]] = []
    while i < n:
        if text[i].isspace():
            i += 1
            continue
        start = i
        while i < n and not text[i].isspace() and text[i] != "=":
            i += 1
        name = text[start:i]
        if not name:
            raise HubError(f"a value without a name in {line.strip()!r}")
        if i < n and text[i] == "=":
            i += 1
            if i < n and text[i] == '"':
                end = text.find('"', i + 1)
                if end < 0:
                    raise HubError(f"unterminated quote in {line.strip()!r}")
                words.append((name, text[i + 1 : end]))
                i = end + 1
            else:
                start = i
                while i < n and not text[i].isspace():
                    i += 1
                words.append((name, text[start:i]))
        else:
            words.append((name, None))
    if not words:
        return "", {}, []
    command = words[0][0]
    if words[0][1] is not None:
        raise HubError(f"a line must start with a command, not {line.strip()!r}")
    values: dict[str, str] = {}
    flags: list[str] = []
    for name, value in words[1:]:
        if value is None:
            flags.append(name)
        else:
            values[name] = value
    return command, values, flags


def quote(value: str) -> str:
    if value == "" or any(c.isspace() or c in '="' for c in value):
        return '"' + value.replace('"', "'") + '"'
    return value


def format_line(command: str, *flags: str, **values: Any) -> str:
    parts = [command, *flags]
    parts.extend(f"{name.replace('_', '-')}={quote(str(value))}" for name, value in values.items())
    return " ".join(parts)


# -- positions and moves -------------------------------------------------------------------------
def parse_position(text: str, variant: str) -> Position:
    """A Hub position string (side to move + one letter per square) for ``variant``."""
    v = find_variant(variant)
    count = v.squares
    if len(text) != count + 1:
        raise HubError(f"a {v.name} position has {count + 1} letters, not {len(text)}: {text!r}")
    side = text[0]
    if side not in "WB":
        raise HubError(f"the side to move must be W or B, not {side!r} in {text!r}")
    groups: dict[str, list[int]] = {"w": [], "W": [], "b": [], "B": []}
    for sq, c in enumerate(text[1:], start=1):
        if c in groups:
            groups[c].append(sq)
        elif c != "e":
            raise HubError(f"unknown letter {c!r} on square {sq} in {text!r}")
    pos = Position(
        v,
        white_men=groups["w"],
        white_kings=groups["W"],
        black_men=groups["b"],
        black_kings=groups["B"],
        turn=Color.WHITE if side == "W" else Color.BLACK,
    )
    geo = pos.geometry
    top = {sq for sq in geo.squares() if geo.coord(sq)[1] == geo.size - 1}
    bottom = {sq for sq in geo.squares() if geo.coord(sq)[1] == 0}
    if top & set(groups["w"]) or bottom & set(groups["b"]):
        raise HubError(f"a man on its crowning row in {text!r}")
    return pos


def position_text(pos: Position) -> str:
    pieces = pos.pieces()
    out = [pos.turn.letter]
    for sq in pos.geometry.squares():
        p = pieces.get(sq)
        out.append(p.symbol if p is not None else "e")
    return "".join(out)


def move_text(move: Move) -> str:
    """``32-28``, or ``from x to x captured...`` for a capture."""
    if not move.captured:
        return f"{move.from_square}-{move.to_square}"
    return "x".join(str(s) for s in (move.from_square, move.to_square, *move.captured))


def parse_hub_move(pos: Position, text: str) -> Move:
    t = text.strip()
    try:
        if "x" in t:
            numbers = [int(x) for x in t.split("x")]
            if len(numbers) < 3:
                raise ValueError
            key = (numbers[0], numbers[1], frozenset(numbers[2:]))
            for m in pos.legal_moves:
                if m.captured and m.key == key:
                    return m
        else:
            a, b = (int(x) for x in t.split("-"))
            for m in pos.legal_moves:
                if not m.captured and m.from_square == a and m.to_square == b:
                    return m
    except ValueError:
        raise HubError(f"invalid move {text!r}") from None
    raise HubError(f"illegal move {text!r} in position {position_text(pos)}")


def score_text(score: int) -> str:
    if score >= MATE_BOUND:
        return "999"
    if score <= -MATE_BOUND:
        return "-999"
    return f"{score / 100:.2f}"


def parse_level(values: dict[str, str], flags: list[str]) -> Limits:
    def number(name: str) -> float:
        raw = values[name]
        try:
            x = float(raw)
        except ValueError:
            raise HubError(f"level {name}={raw!r} is not a number") from None
        if not x >= 0 or x == float("inf"):
            raise HubError(f"level {name}={raw!r} must be a non-negative number")
        return x

    def whole(name: str, what: str) -> int | None:
        if name not in values:
            return None
        x = number(name)
        if x < 1 or x != int(x):
            raise HubError(f"level {name}={values[name]!r} must be a whole number of {what}, at least 1")
        return int(x)

    if "infinite" in flags or values.get("infinite") in ("true", "1"):
        return Limits(infinite=True)
    # depth= and nodes= bound the search together with a time, whichever comes first
    depth = whole("depth", "plies")
    nodes = whole("nodes", "nodes")
    if "move-time" in values:
        return Limits(depth=depth, nodes=nodes, move_time=number("move-time"))
    if "time" in values:
        inc = number("inc") if "inc" in values else 0.0
        moves = whole("moves", "moves")
        return Limits(depth=depth, nodes=nodes, time=number("time"), inc=inc, moves=moves)
    if depth is not None or nodes is not None:
        return Limits(depth=depth, nodes=nodes)
    raise HubError("level needs depth=, nodes=, move-time=, time= [inc=], moves= time= or infinite")


# -- the engine side ---------------------------------------------------------------------------------
class Hub:
    def __init__(
        self,
        out: TextIO,
        *,
        variant: str = "normal",
        level: int = 10,
        tt_mb: int = DEFAULT_TT_MB,
        version: str = "unknown",
        endgames: str = "",
    ) -> None:
        self.version = version  # what ``id`` answers: the program's version, given by who runs the engine
        self.out = out
        self.lock = threading.Lock()
        self.params: dict[str, str] = {
            "variant": variant,
            "level": str(level),
            "tt-size": str(tt_mb),
            "seed": "-1",
            "endgames": endgames,
        }
        self.engine: Engine | None = None
        self.game = Game(self.variant_name)
        self.limits = Limits(move_time=1.0)
        self.thread: threading.Thread | None = None
        self.stop = threading.Event()
        self.ponder_hit = threading.Event()
        self.busy = False  # a search is under way (cleared as its done line is written)

    @property
    def variant_name(self) -> str:
        return HUB_VARIANTS[self.params["variant"]]

    def send(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def error(self, message: str) -> None:
        """An ``error`` line; what it quotes of the GUI's line is cut short, never echoed whole."""
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        self.send(format_line("error", message=message))

    @property
    def searching(self) -> bool:
        return self.busy

    # -- commands --------------------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Handle one line; False means quit."""
        try:
            command, values, flags = parse_line(line)
        except HubError as exc:
            self.error(str(exc))
            return True
        if not command:
            return True
        if command == "quit":
            self.stop.set()
            return False
        if command == "ping":
            self.send("pong")
            return True
        if command == "stop":
            self.stop.set()
            return True
        if command == "ponder-hit":
            self.ponder_hit.set()
            return True
        handler: Callable[[dict[str, str], list[str]], None] | None = {
            "hub": self.cmd_hub,
            "set-param": self.cmd_set_param,
            "init": self.cmd_init,
            "new-game": self.cmd_new_game,
            "pos": self.cmd_pos,
            "level": self.cmd_level,
            "go": self.cmd_go,
        }.get(command)
        if handler is None:
            return True  # unknown commands are ignored: that is how the protocol grows
        if self.searching and command != "new-game":
            self.error(f"{command} during a search (send stop first)")
            return True
        try:
            handler(values, flags)
        except (HubError, DraughtsError, ValueError) as exc:
            self.error(str(exc))
        return True

    def cmd_hub(self, values: dict[str, str], flags: list[str]) -> None:
        self.send(format_line("id", name=NAME, version=self.version, author=AUTHOR))
        self.send(
            format_line(
                "param", name="variant", value=self.params["variant"], type="enum", values=" ".join(HUB_VARIANTS)
            )
        )
        self.send(format_line("param", name="level", value=self.params["level"], type="int", min=1, max=len(LEVELS)))
        self.send(format_line("param", name="tt-size", value=self.params["tt-size"], type="int", min=1, max=4096))
        self.send(format_line("param", name="seed", value=self.params["seed"], type="int", min=-1, max=2**31 - 1))
        self.send(format_line("param", name="endgames", value=self.params["endgames"], type="string"))
        self.send("wait")

    def cmd_set_param(self, values: dict[str, str], flags: list[str]) -> None:
        name, value = values.get("name"), values.get("value")
        if name is None or value is None:
            raise HubError("set-param needs name= and value=")
        if name == "variant":
            if value not in HUB_VARIANTS:
                raise HubError(f"unknown variant {value!r} (known: {', '.join(HUB_VARIANTS)})")
            if value != self.params["variant"]:
                self.params["variant"] = value
                self.engine = None
                self.game = Game(self.variant_name)
        elif name == "endgames":
            # a directory of 8x8 endgame databases (python -m engine.endgame build), opened by
            # init, probed at the levels that do not err (7-10)
            self.params["endgames"] = value
            self.engine = None
        elif name in ("level", "tt-size", "seed"):
            try:
                n = int(value)
            except ValueError:
                raise HubError(f"parameter {name}={value!r} is not a whole number") from None
            low, high = {"level": (1, len(LEVELS)), "tt-size": (1, 4096), "seed": (-1, 2**31 - 1)}[name]
            if not low <= n <= high:
                raise HubError(f"parameter {name}={value!r} must be {low}-{high}")
            self.params[name] = str(n)
            if name == "level" and self.engine is not None:
                self.engine.set_level(n)
            elif name != "level":
                self.engine = None
        # unknown parameters are ignored, like unknown commands

    def ensure_engine(self) -> Engine:
        if self.engine is None:
            seed = int(self.params["seed"])
            databases = None
            if self.params["endgames"] and self.variant_name in ENDGAME_VARIANTS:
                databases = open_databases(self.variant_name, Path(self.params["endgames"]))
            self.engine = Engine(
                self.variant_name,
                level=int(self.params["level"]),
                seed=None if seed < 0 else seed,
                tt_mb=int(self.params["tt-size"]),
            )
            self.engine.set_databases(databases)
        return self.engine

    def cmd_init(self, values: dict[str, str], flags: list[str]) -> None:
        self.ensure_engine()
        self.send("ready")

    def cmd_new_game(self, values: dict[str, str], flags: list[str]) -> None:
        if self.searching and self.thread is not None:
            self.stop.set()
            self.thread.join()
        if self.engine is not None:
            self.engine.new_game()
        self.game = Game(self.variant_name)

    def cmd_pos(self, values: dict[str, str], flags: list[str]) -> None:
        variant = self.variant_name
        start = parse_position(values["pos"], variant) if "pos" in values else Position.start(variant)
        game = Game(variant, start)
        for text in values.get("moves", "").split():
            if game.outcome() is not None:
                raise HubError(f"move {text!r} after the end of the game")
            game.push(parse_hub_move(game.position, text))
        self.game = game

    def cmd_level(self, values: dict[str, str], flags: list[str]) -> None:
        self.limits = parse_level(values, flags)

    def cmd_go(self, values: dict[str, str], flags: list[str]) -> None:
        mode = flags[0] if flags else "think"
        if mode not in ("think", "ponder", "analyze"):
            raise HubError(f"go needs think, ponder or analyze, not {mode!r}")
        outcome = self.game.outcome()
        if outcome is not None:
            self.send(format_line("error", message=f"the game is over ({outcome.termination.value})"))
            self.send("done")
            return
        engine = self.ensure_engine()
        self.stop = threading.Event()
        self.ponder_hit = threading.Event()
        self.busy = True
        limits = Limits(infinite=True) if mode == "analyze" else self.limits
        self.thread = threading.Thread(
            target=self._search, args=(engine, self.game.copy(), limits, mode), name="hub-search", daemon=True
        )
        self.thread.start()

    def _search(self, engine: Engine, game: Game, limits: Limits, mode: str) -> None:
        stop, ponder_hit = self.stop, self.ponder_hit

        def info(i: SearchInfo) -> None:
            nps = int(i.nodes / i.time) if i.time > 0 else 0
            pv = " ".join(move_text(m) for m in i.pv)
            self.send(
                format_line(
                    "info",
                    depth=i.depth,
                    score=score_text(i.score),
                    nodes=i.nodes,
                    time=f"{i.time:.3f}",
                    nps=nps,
                    pv=pv,
                )
            )

        try:
            result: SearchResult = engine.search(
                game, limits, stop_event=stop, on_info=info, ponder_hit=ponder_hit if mode == "ponder" else None
            )
        except Exception as exc:  # a bug of ours: say so and answer, never leave the GUI waiting
            traceback.print_exc(file=sys.stderr)
            self.engine = None  # (its tables may be half-written: the next search starts afresh)
            self.error(f"the search failed ({type(exc).__name__}: {exc}) in {position_text(game.position)}")
            self._done("done")
            return
        # in analysis, infinite search and pondering, the GUI decides when the answer is due
        while not stop.is_set():
            if mode == "ponder" and ponder_hit.is_set() and not limits.infinite:
                break
            if mode == "think" and not limits.infinite:
                break
            stop.wait(0.02)
        if result.move is None:
            line = "done"
        else:
            extra = {"ponder": move_text(result.ponder)} if result.ponder is not None else {}
            line = format_line("done", move=move_text(result.move), **extra)
        self._done(line)

    def _done(self, line: str) -> None:
        """The search's ``done`` line, written as the search is marked over (one step, under the
        lock: a command read meanwhile is either refused as during a search or follows it)."""
        with self.lock:
            self.busy = False
            self.out.write(line + "\n")
            self.out.flush()


def run(
    stdin: TextIO,
    stdout: TextIO,
    *,
    variant: str = "normal",
    level: int = 10,
    tt_mb: int = DEFAULT_TT_MB,
    version: str = "unknown",
    endgames: str = "",
) -> int:
    """Serve one GUI on ``stdin``/``stdout`` until ``quit`` or the end of its input."""
    hub = Hub(stdout, variant=variant, level=level, tt_mb=tt_mb, version=version, endgames=endgames)
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:  # the GUI is gone
            hub.stop.set()
            return 0
        if len(line) > MAX_LINE and not line.endswith("\n"):  # read on to its end, never held whole
            while (rest := stdin.readline(MAX_LINE)) and not rest.endswith("\n"):
                pass
            hub.error(f"line longer than {MAX_LINE // 1024} KiB: ignored")
            continue
        if not hub.handle(line):
            if hub.thread is not None:
                hub.thread.join(timeout=1.0)
            return 0
