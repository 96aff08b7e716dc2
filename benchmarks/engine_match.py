"""Engine matches that outlast a sitting: each game written as it ends, resumed, added up.

A match is two players, a variant, a time control and a kind of start. Game ``i`` starts
from start ``i // 2`` and player A has White in the even games, Black in the odd ones, so
every start is played with both colours. The games are one JSON line each in the match's
record (``.bench/matches/<match>.jsonl`` unless told otherwise), written as each game ends;
run the same match again and it plays only the games the record lacks, up to ``games``:
a stopped run resumes, and a longer one adds games to a shorter one.

Each record line carries the fingerprint of the engine that played it (the engine package's
code without comments and docstrings, its weights tables and a player's own data files): a
summary adds up only the games of one fingerprint, so a changed engine starts a new count
in the same file.

Games run in worker processes (``jobs``), each pinned to one CPU core: a game's two engines
share that core and alternate (they never think at once), each held to the same wall-clock
time a move; the CPU time each really got is recorded, with the machine's load average.

Players: ``damas`` (our engine, level 10) with options after colons (``damas:level=3``,
``damas:weights=FILE`` or ``damas:weights=hand``, ``damas:rev=REV`` for the search of another
git revision, ``damas:db=DIR`` for endgame databases, ``damas:tt=MB``), and py-draughts
1.10.1's ``turbo`` (TurboEngine, International) and ``simple`` (SimpleEngine), loaded from
``.bench/py-draughts`` (GPL-3.0: installed there by ``make bench``, never imported by the
project).
"""

from __future__ import annotations

import ast
import datetime
import hashlib
import json
import math
import multiprocessing as mp
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
PEER = ROOT / ".bench" / "py-draughts"
RECORDS = ROOT / ".bench" / "matches"

from engine import Engine, Level, Limits, level_settings  # noqa: E402
from rules import Color, Game, Move, Position, find_variant  # noqa: E402

MAX_PLIES = 300
PYTHON = f"{platform.python_implementation()} {platform.python_version()}"  # (in each game's record)


# -- starts ------------------------------------------------------------------------------------------
@cache
def _two_ply(variant: str) -> tuple[str, ...]:
    """Every two-ply opening, each White first move in turn (Black's replies in a seeded order)."""
    game = Game(variant)
    whites = [game.position.pdn(m) for m in game.legal_moves]
    rng = random.Random(2026)
    by_white: dict[str, list[str]] = {}
    for w in whites:
        g = game.copy()
        g.push_pdn(w)
        replies = [g.position.pdn(m) for m in g.legal_moves]
        rng.shuffle(replies)
        by_white[w] = replies
    out: list[str] = []
    while any(by_white.values()):
        for w in whites:
            if by_white[w]:
                out.append(f"{w} {by_white[w].pop()}")
    return tuple(out)


@cache
def _four_ply(variant: str, count: int) -> tuple[str, ...]:
    """``count`` distinct four-ply openings: each two-ply one in turn, two seeded random plies more."""
    base = _two_ply(variant)
    out: list[str] = []
    seen: set[str] = set()
    j = 0
    while len(out) < count:
        rng = random.Random(f"{variant}:{j}")
        game = Game(variant)
        for text in base[j % len(base)].split():
            game.push_pdn(text)
        plies = base[j % len(base)].split()
        for _ in range(2):
            moves = list(game.legal_moves)
            if game.outcome() is not None or not moves:
                break
            m = rng.choice(moves)
            plies.append(game.position.pdn(m))
            game.push(m)
        text = " ".join(plies)
        if text not in seen and len(plies) == 4:
            seen.add(text)
            out.append(text)
        j += 1
    return tuple(out)


def opening(variant: str, n: int) -> str:
    """Opening ``n`` (the same every run): the two-ply ones first, then four-ply ones."""
    two = _two_ply(variant)
    if n < len(two):
        return two[n]
    return _four_ply(variant, n - len(two) + 1)[n - len(two)]


_ENDGAMES: dict[tuple[str, int], tuple[list[str], list[int]]] = {}


def _endgames(variant: str, pieces: int, count: int) -> list[str]:
    """The first ``count`` of a fixed list of quiet positions with ``pieces - 2`` to ``pieces``
    pieces (material within a piece), one from each of a series of seeded level-6 games (the
    same list every run, extended as needed), as FEN."""
    out, state = _ENDGAMES.setdefault((variant, pieces), ([], [0]))
    seen = set(out)
    while len(out) < count:
        g = state[0]
        state[0] += 1
        rng = random.Random(f"endgame:{variant}:{g}")
        game = Game(variant)
        engines = (Engine(variant, level=6, seed=g, tt_mb=2), Engine(variant, level=6, seed=g + 7, tt_mb=2))
        while game.outcome() is None and game.ply < 200:
            p = game.position
            n = (p.wm | p.wk | p.bm | p.bk).bit_count()
            if n <= pieces:
                if (
                    n >= pieces - 2
                    and not p.has_captures()
                    and abs((p.wm | p.wk).bit_count() - (p.bm | p.bk).bit_count()) <= 1
                    and rng.random() < 0.5
                ):
                    fen = p.fen()
                    if fen not in seen and Game(variant, p).outcome() is None:
                        seen.add(fen)
                        out.append(fen)
                break
            m = engines[game.ply % 2].search(game).move
            assert m is not None
            game.push(m)
    return out


def start_of(variant: str, kind: str, n: int) -> str:
    """Start ``n`` of ``kind``: ``openings``, or ``endgames:P`` (positions of about P pieces)."""
    if kind == "openings":
        return opening(variant, n)
    if kind.startswith("endgames:"):
        return _endgames(variant, int(kind.split(":", 1)[1]), n + 1)[n]
    raise ValueError(f"unknown kind of start {kind!r} (openings, endgames:PIECES)")


def start_game(variant: str, start: str) -> Game:
    if ":" in start:
        return Game(variant, Position.from_fen(start, variant))
    game = Game(variant)
    for text in start.split():
        game.push_pdn(text)
    return game


# -- players -----------------------------------------------------------------------------------------
#: a player's options: ``depth``, ``noise`` and ``nodes`` change its level's settings (a level
#: being calibrated: ``damas:level=3:noise=150``; ``nodes=none``: depth only)
OPTIONS = ("level", "weights", "rev", "db", "tt", "depth", "noise", "nodes")


@dataclass(frozen=True)
class Spec:
    """A player: ``name`` and its options (``damas:level=3:weights=FILE``)."""

    name: str
    options: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, text: str) -> Spec:
        name, *rest = text.split(":")
        if name not in ("damas", "turbo", "simple"):
            raise ValueError(f"unknown player {name!r} (damas, turbo, simple)")
        options = []
        for item in rest:
            key, eq, value = item.partition("=")
            if not eq or key not in OPTIONS:
                raise ValueError(f"player option {item!r} is not {'=, '.join(OPTIONS)}=")
            options.append((key, value))
        return cls(name, tuple(options))

    def get(self, key: str, default: str | None = None) -> str | None:
        return dict(self.options).get(key, default)

    def __str__(self) -> str:
        return ":".join([self.name, *(f"{k}={v}" for k, v in self.options)])


class Player:
    """One side of a game: told the game's start and every move, asked for its moves."""

    depth_of_last = 0

    def start(self, game: Game) -> None:
        pass

    def played(self, game: Game, move: Move) -> None:
        pass

    def choose(self, game: Game, move_time: float | None) -> Move:
        raise NotImplementedError


def level_of(spec: Spec, variant: str) -> Level:
    """A ``damas`` player's level settings in ``variant``: its level's, changed by ``depth``,
    ``nodes``, ``noise``."""
    lv = level_settings(int(spec.get("level", "10") or 10), variant)
    n = spec.get("nodes")
    return replace(
        lv,
        depth=int(spec.get("depth") or lv.depth),
        nodes=(int(n) if n != "none" else None) if n else lv.nodes,
        noise=int(spec.get("noise") or lv.noise),
    )


class Damas(Player):
    def __init__(self, spec: Spec, variant: str, seed: int) -> None:
        level = int(spec.get("level", "10") or 10)
        tt = float(spec.get("tt", "16") or 16)
        cls: Any = Engine
        if spec.get("rev"):
            cls = baseline_engine(str(spec.get("rev")))
        self.engine = cls(variant, level=level, seed=seed, tt_mb=tt)
        if spec.get("depth") or spec.get("noise") or spec.get("nodes"):  # (a rev keeps its own levels)
            self.engine.level = level_of(spec, variant)
        weights = spec.get("weights")
        if weights is not None:
            self.engine.evaluator = evaluator_of(variant, weights)
        db = spec.get("db")
        if db is not None:
            from engine.endgame import open_databases

            self.engine.set_databases(open_databases(variant, Path(db)))

    def choose(self, game: Game, move_time: float | None) -> Move:
        r = self.engine.search(game, Limits(move_time=move_time) if move_time is not None else None)
        assert r.move is not None
        self.depth_of_last = r.depth
        return r.move


class Peer(Player):
    """py-draughts' engine on its own board, kept in step with our game."""

    def __init__(self, spec: Spec, variant: str, move_time: float | None) -> None:
        if not PEER.exists():
            raise SystemExit(f"py-draughts not found in {PEER}; `make bench` installs it")
        if str(PEER) not in sys.path:
            sys.path.insert(0, str(PEER))
        import draughts  # type: ignore[import-not-found,import-untyped,unused-ignore]
        from draughts.engines import (  # type: ignore[import-not-found,import-untyped,unused-ignore]
            SimpleEngine,
            TurboEngine,
        )

        boards = {"brazilian": draughts.BrazilianBoard, "international": draughts.StandardBoard}
        if variant not in boards or (spec.name == "turbo" and variant != "international"):
            raise ValueError(f"py-draughts' {spec.name} does not play {variant}")
        self.board = boards[variant]()
        cls = TurboEngine if spec.name == "turbo" else SimpleEngine
        self.engine = cls(depth_limit=40, time_limit=move_time if move_time is not None else 1.0)
        self.variant = variant

    def _fen(self) -> str:
        return str(self.board.fen).replace("[FEN", "").replace("]", "").strip().strip('"')

    def start(self, game: Game) -> None:
        if game.positions()[0] != Position.start(self.variant) or any(isinstance(e, Position) for e in game.history()):
            raise ValueError("py-draughts plays only from openings, not from set-up positions")
        for pos in game.positions()[1:]:
            self._follow(pos)  # the opening, move by move

    def _follow(self, target: Position) -> None:
        """Play on py-draughts' board the move that leads to ``target``."""
        for cand in list(self.board.legal_moves):
            self.board.push(cand)
            if Position.from_fen(self._fen(), self.variant) == target:
                return
            self.board.pop()
        raise AssertionError(f"py-draughts has no move to {target.fen()}")

    def played(self, game: Game, move: Move) -> None:
        if not self._mine:
            self._follow(game.position)
        self._mine = False

    _mine = False

    def choose(self, game: Game, move_time: float | None) -> Move:
        theirs = self.engine.get_best_move(self.board)
        self.board.push(theirs)
        self._mine = True
        target = Position.from_fen(self._fen(), self.variant)
        matches = [m for m in game.legal_moves if game.position.apply(m) == target]
        if not matches:
            raise AssertionError(f"cannot follow py-draughts' {theirs} in {game.fen()}")
        return matches[0]


def make_player(spec: Spec, variant: str, move_time: float | None, seed: int) -> Player:
    if spec.name == "damas":
        return Damas(spec, variant, seed)
    return Peer(spec, variant, move_time)


def evaluator_of(variant: str, weights: str) -> Any:
    """The evaluator of ``variant`` with a weights table (a JSON file), or ``hand``: the
    hand-set evaluation (International's hand-set table; 8x8's own evaluation, unweighted)."""
    from engine.evaluate import Evaluator

    ev = Evaluator(find_variant(variant), tuned=False)
    if weights != "hand":
        ev.use_weights(json.loads(Path(weights).read_text()))
    return ev


@cache
def baseline_engine(rev: str) -> Any:
    """The ``Engine`` class of the search at git revision ``rev`` (its engine/search.py and
    engine/tt.py), with today's evaluation and levels: only the search differs."""
    import types

    def source(path: str) -> str:
        try:
            return subprocess.run(
                ["git", "-C", str(ROOT), "show", f"{rev}:{path}"], capture_output=True, text=True, check=True
            ).stdout
        except subprocess.CalledProcessError as exc:
            raise SystemExit(f"engine_match.py: cannot read {path} at revision {rev!r}: {exc.stderr.strip()}") from None

    tag = "".join(c if c.isalnum() else "_" for c in rev)
    tt = types.ModuleType(f"baseline_tt_{tag}")
    sys.modules[tt.__name__] = tt
    exec(compile(source("engine/tt.py"), f"{rev}:engine/tt.py", "exec"), tt.__dict__)
    search = types.ModuleType(f"baseline_search_{tag}")
    sys.modules[search.__name__] = search
    code = source("engine/search.py").replace("from engine.tt import", f"from {tt.__name__} import")
    exec(compile(code, f"{rev}:engine/search.py", "exec"), search.__dict__)
    return search.Engine


# -- a match -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Match:
    variant: str
    a: Spec
    b: Spec
    move_time: float | None  # None: each level's own settings
    starts: str = "openings"
    clock: str = "cpu"  # what the engines' time is counted in: "cpu" (their own) or "wall"

    @property
    def key(self) -> str:
        tc = "level" if self.move_time is None else f"{self.move_time:g}s"
        return f"{self.variant} {self.a} v {self.b} {tc} {self.clock} {self.starts}"

    def default_record(self) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in self.key.replace(" ", "__"))
        return RECORDS / f"{safe}.jsonl"


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body[0] = ast.Pass()
    return tree


@cache
def engine_fingerprint() -> str:
    """12 hex digits of the engine package: its code (comments and docstrings aside) and tables.
    The levels' settings are not in it: each player's own settings are in the match's fingerprint,
    so a record of players whose settings are spelled out survives a change of the levels. Nor
    is the endgame databases' module, which a player runs only with databases (``db=``: then
    the match's fingerprint has it), so that a change to their build restarts no match."""
    h = hashlib.sha256()
    pkg = ROOT / "engine"
    for path in sorted(pkg.iterdir()):
        if path.name in ("levels.py", "endgame.py"):
            continue
        if path.suffix == ".py":
            h.update(path.name.encode())
            h.update(_code_of(path).encode())
        elif path.suffix == ".json":
            h.update(path.name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:12]


def _code_of(path: Path) -> str:
    """A module's code, its comments and docstrings aside."""
    return ast.dump(_strip_docstrings(ast.parse(path.read_text())))


def match_fingerprint(match: Match) -> str:
    """The engine's fingerprint, our players' level settings and their data files (weights
    tables, databases' manifests)."""
    h = hashlib.sha256(engine_fingerprint().encode())
    for spec in (match.a, match.b):
        if spec.name == "damas":
            h.update(repr(level_of(spec, match.variant)).encode())
        w = spec.get("weights")
        if w and w != "hand":
            h.update(Path(w).read_bytes())
        db = spec.get("db")
        if db:
            manifest = Path(db) / "manifest.json"
            h.update(manifest.read_bytes() if manifest.exists() else db.encode())
            h.update(_code_of(ROOT / "engine" / "endgame.py").encode())
        rev = spec.get("rev")
        if rev:
            h.update(_commit(rev).encode())
    return h.hexdigest()[:12]


def _commit(rev: str = "HEAD") -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True)
        return out.stdout.strip() or "?"
    except OSError:
        return "?"


def score_of(game: Game, color: Color) -> float:
    """1 for a win, 0.5 for a draw (or a game stopped at the ply limit), 0 for a loss."""
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return 0.5
    return 1.0 if outcome.winner is color else 0.0


def play_game(match: Match, i: int) -> dict[str, Any]:
    """Game ``i`` of ``match``: its record line."""
    start = start_of(match.variant, match.starts, i // 2)
    a_color = Color.WHITE if i % 2 == 0 else Color.BLACK
    game = start_game(match.variant, start)
    players = (
        make_player(match.a, match.variant, match.move_time, seed=2 * i),
        make_player(match.b, match.variant, match.move_time, seed=2 * i + 1),
    )
    for p in players:
        p.start(game)
    if match.clock == "cpu":
        use_cpu_clock()  # (after the players' modules are loaded)
    wall = [0.0, 0.0]
    cpu = [0.0, 0.0]
    depth = [0, 0]
    moves = [0, 0]
    while game.outcome() is None and game.ply < MAX_PLIES:
        k = 0 if game.turn is a_color else 1
        t0, c0 = time.monotonic(), time.process_time()
        move = players[k].choose(game, match.move_time)
        wall[k] += time.monotonic() - t0
        cpu[k] += time.process_time() - c0
        depth[k] += players[k].depth_of_last
        moves[k] += 1
        game.push(move)
        for p in players:
            p.played(game, move)
    end = game.outcome()
    sc = score_of(game, a_color)
    n = [max(1, m) for m in moves]
    return {
        "match": match.key,
        "game": i,
        "start": start,
        "a": "white" if a_color is Color.WHITE else "black",
        "result": game.result(),
        "score": sc,
        "end": end.termination.value if end is not None else "ply limit",
        "plies": game.ply,
        "moves": " ".join(p.pdn(m) for p, m in _moves(game)),
        "a_time": [round(wall[0] / n[0], 4), round(cpu[0] / n[0], 4)],
        "b_time": [round(wall[1] / n[1], 4), round(cpu[1] / n[1], 4)],
        "a_depth": round(depth[0] / n[0], 2),
        "b_depth": round(depth[1] / n[1], 2),
        "load": [round(x, 2) for x in os.getloadavg()],
        "cpu": sorted(os.sched_getaffinity(0)),
        "python": PYTHON,
    }


def _moves(game: Game) -> Iterator[tuple[Position, Move]]:
    for pos, entry in game.steps():
        if isinstance(entry, Move):
            yield pos, entry


def read_record(path: Path) -> list[dict[str, Any]]:
    out = []
    if path.exists():
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    print(f"{path}:{n}: not a record line (a game cut off while written?); skipped")
    return out


class _CpuClock:
    """Stands in for the ``time`` module inside the engines' code: every clock they read is
    the CPU time of the thread that searches, so a move's budget is the same work on a busy
    machine as on an idle one."""

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)

    monotonic = perf_counter = time = staticmethod(time.thread_time)


def use_cpu_clock() -> None:
    """Point the engines' clocks (ours, other revisions', py-draughts') at CPU time, in this process."""
    import engine.search

    engine.search.time = _CpuClock()  # type: ignore[assignment]
    for name, module in list(sys.modules.items()):
        if name.startswith(("baseline_search_", "draughts.engines.")) and hasattr(module, "time"):
            module.time = _CpuClock()


def _worker(match: Match, cpu: int, todo: Any, done: Any) -> None:
    os.sched_setaffinity(0, {cpu})
    while True:
        i = todo.get()
        if i is None:
            return
        try:
            done.put(("game", play_game(match, i)))
        except BaseException as exc:  # the parent says which game failed and stops
            done.put(("error", f"game {i}: {type(exc).__name__}: {exc}"))
            return


def run_match(
    match: Match,
    games: int,
    *,
    jobs: int = 1,
    record: Path | None = None,
    verbose: bool = True,
    keep: bool = True,
) -> list[dict[str, Any]]:
    """Play the games of ``match`` up to ``games`` that its record lacks (every game when
    ``keep`` is false: nothing read or written); returns the fingerprint's games, all of them."""
    path = record or match.default_record()
    fp = match_fingerprint(match)
    mine = [r for r in read_record(path) if r.get("match") == match.key and r.get("engine") == fp] if keep else []
    have = {r["game"] for r in mine}
    todo_list = [i for i in range(games) if i not in have]
    if verbose:
        print(
            f"# {match.key}: {len(have)} games in {path if keep else 'no record'} (engine {fp}), "
            f"{len(todo_list)} to play on {jobs} core(s)",
            flush=True,
        )
    if not todo_list:
        return mine
    if keep:
        path.parent.mkdir(parents=True, exist_ok=True)
    start_of(match.variant, match.starts, max(todo_list) // 2)  # the starts made once, before the workers fork
    cpus = sorted(os.sched_getaffinity(0))
    ctx = mp.get_context("fork")
    todo: Any = ctx.Queue()
    done: Any = ctx.Queue()
    for i in todo_list:
        todo.put(i)
    n_jobs = max(1, min(jobs, len(todo_list)))
    for _ in range(n_jobs):
        todo.put(None)
    procs = [ctx.Process(target=_worker, args=(match, cpus[k % len(cpus)], todo, done)) for k in range(n_jobs)]
    for p in procs:
        p.start()
    commit = _commit()
    remaining = len(todo_list)
    try:
        while remaining:
            kind, value = done.get()
            if kind == "error":
                raise RuntimeError(f"{match.key}: {value}")
            remaining -= 1
            value["engine"] = fp
            value["commit"] = commit
            value["at"] = datetime.datetime.now().isoformat(timespec="seconds")
            mine.append(value)
            if keep:
                with path.open("a") as f:
                    f.write(json.dumps(value) + "\n")
            if verbose:
                print(
                    f"  game {value['game'] + 1} ({value['start']}): {match.a} {value['a']}, {value['result']} "
                    f"({value['end']}, {value['plies']} plies; load {value['load'][0]:.1f})",
                    flush=True,
                )
    finally:
        for p in procs:
            if p.is_alive():
                p.terminate()
            p.join()
    return mine


# -- figures -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tally:
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self) -> tuple[float, float]:
        """The score's 95 % interval: the normal approximation on the games' own spread (wins,
        draws, losses), or Wilson's interval when every game had the same result."""
        n = self.games
        if n == 0:
            return (0.0, 1.0)
        s = self.score
        var = (self.wins * (1 - s) ** 2 + self.draws * (0.5 - s) ** 2 + self.losses * s**2) / max(1, n - 1)
        z = 1.96
        if var == 0:
            mid = (s + z * z / (2 * n)) / (1 + z * z / n)
            half = z * math.sqrt(s * (1 - s) / n + z * z / (4 * n * n)) / (1 + z * z / n)
            return (max(0.0, mid - half), min(1.0, mid + half))
        half = z * math.sqrt(var / n)
        return (max(0.0, s - half), min(1.0, s + half))

    def elo(self) -> float | None:
        s = self.score
        if not 0 < s < 1:
            return None
        return -400 * math.log10(1 / s - 1)

    def text(self) -> str:
        lo, hi = self.interval()
        elo = self.elo()
        e = f", {elo:+.0f} Elo" if elo is not None else ""
        return (
            f"+{self.wins} ={self.draws} -{self.losses}  {100 * self.score:.1f} % of {self.games} games "
            f"(95 %: {100 * lo:.1f}-{100 * hi:.1f} %{e})"
        )


def tally(records: list[dict[str, Any]]) -> Tally:
    w = sum(1 for r in records if r["score"] == 1)
    d = sum(1 for r in records if r["score"] == 0.5)
    return Tally(w, d, len(records) - w - d)


def describe(records: list[dict[str, Any]]) -> str:
    """The tally and what the games cost: each side's mean wall/CPU time a move, depth, load.
    Where some games were played by another Python (PyPy: at a level bounded by nodes the same
    moves, in other times), the costs are CPython's games' and the others are named."""
    if not records:
        return "no games"
    cpython = [r for r in records if python_of(r).startswith("CPython")]
    timed = cpython or records
    n = len(timed)

    def mean(key: str, j: int | None = None) -> float:
        vals = [r[key][j] if j is not None else r[key] for r in timed]
        return sum(vals) / n

    load = sum(r["load"][0] for r in timed) / n
    note = ""
    if len(cpython) != len(records):
        others = sorted({python_of(r) for r in records if not python_of(r).startswith("CPython")})
        note = f" ({len(records) - len(cpython)} games under {', '.join(others)}"
        note += f"; the times are the other {n}'s)" if cpython else ")"
    return (
        f"{tally(records).text()}; a move: A {mean('a_time', 0):.3f} s ({mean('a_time', 1):.3f} s CPU, "
        f"depth {mean('a_depth'):.1f}), B {mean('b_time', 0):.3f} s ({mean('b_time', 1):.3f} s CPU"
        + (f", depth {mean('b_depth'):.1f}" if mean("b_depth") else "")
        + f"); load average {load:.1f}{note}"
    )


def python_of(record: dict[str, Any]) -> str:
    """The Python that played a recorded game (records from before this was noted: CPython)."""
    return str(record.get("python", "CPython"))


def summary(paths: list[Path]) -> None:
    """Every match and engine fingerprint in the records, with its figures."""
    for path in paths:
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in read_record(path):
            groups.setdefault((r["match"], r.get("engine", "?")), []).append(r)
        for (key, fp), records in groups.items():
            commits = sorted({r.get("commit", "?") for r in records})
            print(f"{key} (engine {fp}, commit {', '.join(commits)}):\n  {describe(records)}")


def record_paths(args: list[str]) -> list[Path]:
    out: list[Path] = []
    for a in args or [str(RECORDS)]:
        p = Path(a)
        out.extend(sorted(p.glob("*.jsonl")) if p.is_dir() else [p])
    return out


Runner = Callable[[Match, int], list[dict[str, Any]]]
