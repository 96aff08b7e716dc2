"""Positions for fitting an evaluation: sampled from our engine's games, labelled by a Hub engine.

    python tools/positions.py sample international POSITIONS.txt --games 4000 --seed 1
    python tools/positions.py label POSITIONS.txt LABELLED.txt --engine "cd /opt/scan && ./scan hub" --depth 14
    python tools/positions.py label POSITIONS.txt LABELLED.txt --engine "damas hub" --variant brazilian --depth 9

``sample`` plays our engine against itself (a seeded opening of 2-8 random plies, then a
search of a few plies a move, 3 % random moves for variety) and keeps quiet positions (neither
side can capture) from ply 8 on, each with probability ``--keep``, without repeats
(``--depths``: the depths each side's search is drawn from, per game), and with
``--children N`` up to N quiet positions a random move or two away from each (the positions a
search meets off the game's line, for no search at all). A line is
``<position> <game>``: the position as the Hub protocol writes it (the side to move, ``W`` or
``B``, then a letter per square in the official numbering: ``w``/``b`` men, ``W``/``B``
kings, ``e`` empty) and the number of the game it comes from (so that a fit can hold whole
games out). Game ``n`` of a seed is always the same game: a stopped run resumes after the
last game written, and ``--games`` is the total.

``label`` asks a Hub engine for each position's score at a fixed depth (reproducible: the
engine's table is cleared before each position) and appends ``<position> <score> <depth>
<game>`` (the score in hundredths of a man for the side to move), skipping positions already
labelled: a stopped run resumes where it stopped (a forced win or loss found short of the depth
is labelled as found). The engine is any command that speaks the
Hub protocol on its standard input/output: version 2 (``damas hub``, Scan 3) or the first
version (Scan 2.0's ``hub`` mode, which reports a score from depth 12 on). ``--jobs`` runs
that many engines at once; ``--set NAME=VALUE`` sends the engine a parameter (e.g. our
``endgames=DIR``). The first lines of the output, starting with ``#``, say which
engine labelled the positions, at which depth and when.

Both files may be compressed (``.xz``, ``.gz``): the tools read them either way.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gzip
import lzma
import queue
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine import Engine, Limits  # noqa: E402
from engine.hub import HUB_VARIANTS, format_line, parse_line, position_text  # noqa: E402
from rules import Game, find_variant  # noqa: E402
from rules.engine import engine_for  # noqa: E402

#: a score (hundredths of a man) that says the game is decided: a search may stop short of the
#: depth asked once it has found a forced end, and that is the position's label
DECIDED = 9000
#: the Hub protocol's names of our variants
HUB_NAME = {v: k for k, v in HUB_VARIANTS.items()}


class LabelError(Exception):
    """What stops a run (a one-line message: the engine, the file, the line)."""


class NoScore(LabelError):
    """The engine answered without a score at the depth asked (e.g. a single legal move)."""


def open_text(path: Path, mode: str = "rt") -> IO[str]:
    """A text file, read or appended, compressed by its suffix (``.xz``, ``.gz``) or plain."""
    if path.suffix == ".xz":
        return lzma.open(path, mode, encoding="ascii")  # type: ignore[return-value]
    if path.suffix == ".gz":
        return gzip.open(path, mode, encoding="ascii")  # type: ignore[return-value]
    return path.open(mode[0], encoding="ascii")


def read_lines(path: Path) -> Iterator[list[str]]:
    """The fields of each line that is not empty nor a ``#`` comment."""
    if not path.exists():
        return
    with open_text(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                yield line.split()


# -- sampling ---------------------------------------------------------------------------------------
def quiet(game: Game) -> bool:
    """Neither side can capture (the side to move, nor the other if it were its turn)."""
    p = game.position
    rules = engine_for(p.variant)
    for side, (om, ok, xm, xk) in enumerate(((p.wm, p.wk, p.bm, p.bk), (p.bm, p.bk, p.wm, p.wk))):
        if rules.captures(om, ok, xm, xk, side):
            return False
    return True


def sample_game(
    variant: str, seed: int, game_no: int, keep: float, depths: tuple[int, ...] = (3, 4, 4, 5), children: int = 0
) -> list[str]:
    """The kept positions of game ``game_no`` (the same list for the same arguments), each
    followed by up to ``children`` quiet positions a random move or two away from it (what a
    search meets beside the game's own line, at no cost of search)."""
    rng = random.Random(f"{seed}:{game_no}")
    game = Game(variant)
    for _ in range(rng.randint(2, 8)):
        if game.outcome() is not None:
            return []
        game.push(rng.choice(list(game.legal_moves)))
    depth = (rng.choice(depths), rng.choice(depths))
    engines = (Engine(variant, tt_mb=4), Engine(variant, tt_mb=4))
    out: list[str] = []
    while game.outcome() is None and game.ply < 250:
        if game.ply >= 8 and quiet(game) and rng.random() < keep:
            out.append(position_text(game.position))
            for _ in range(children):
                child = _random_quiet(game, rng)
                if child is not None:
                    out.append(child)
        side = game.ply % 2  # (the engines' own colours alternate with the plies)
        moves = list(game.legal_moves)
        if len(moves) > 1 and rng.random() < 0.03:
            move = rng.choice(moves)
        else:
            found = engines[side].search(game, Limits(depth=depth[side])).move
            assert found is not None
            move = found
        game.push(move)
    return out


def _random_quiet(game: Game, rng: random.Random) -> str | None:
    """A quiet position one or two random moves after the game's (three tries), or None."""
    for _ in range(3):
        g = game.copy()
        for _ply in range(rng.choice((1, 2))):
            moves = list(g.legal_moves)
            if not moves or g.outcome() is not None:
                break
            g.push(rng.choice(moves))
        if g.ply > game.ply and g.outcome() is None and quiet(g):
            return position_text(g.position)
    return None


def sample(
    variant: str, out: Path, games: int, seed: int, keep: float, depths: tuple[int, ...], children: int = 0
) -> None:
    find_variant(variant)
    seen: set[str] = set()
    last = -1
    for fields in read_lines(out):
        seen.add(fields[0])
        last = max(last, int(fields[-1]))
    if last + 1 >= games:
        print(f"{out}: {games} games sampled already ({len(seen)} positions)")
        return
    t0 = time.monotonic()
    with open_text(out, "at") as f:
        if last < 0:
            d = ",".join(map(str, depths))
            f.write(
                f"# {variant} positions from damas self-play (tools/positions.py sample --seed {seed} --depths {d}"
                f" --keep {keep} --children {children})\n"
            )
        for n in range(last + 1, games):
            new = []
            for p in sample_game(variant, seed, n, keep, depths, children):
                if p not in seen:
                    seen.add(p)
                    new.append(p)
            f.writelines(f"{p} {n}\n" for p in new)
            f.flush()
            if n % 50 == 0:
                print(f"game {n}: {len(seen)} positions ({time.monotonic() - t0:.0f} s)", flush=True)
    print(f"{out}: {len(seen)} positions from {games} games")


# -- labelling --------------------------------------------------------------------------------------
class HubEngine:
    """A Hub engine run as a subprocess, asked for one position's score at a time."""

    def __init__(self, command: str, variant: str, timeout: float = 600.0, params: tuple[str, ...] = ()) -> None:
        self.command = command
        self.variant = variant
        self.timeout = timeout
        try:
            self.proc = subprocess.Popen(
                command,
                shell=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                bufsize=1,
            )
        except OSError as exc:
            raise LabelError(f"cannot start the engine {command!r}: {exc}") from None
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._reader, daemon=True).start()
        self.name = "?"
        self.send("hub")
        first: list[str] = []
        while True:
            line = self.read("the answer to hub")
            first.append(line)
            if line == "wait":
                break
        ids = [parse_line(x) for x in first if x.startswith("id ")]
        if ids:
            self.version = 2
            values = ids[0][1]
            self.name = " ".join(v for v in (values.get("name"), values.get("version")) if v)
            if variant != "international":
                self.send(format_line("set-param", name="variant", value=HUB_NAME[variant]))
            for param in params:
                name, _eq, value = param.partition("=")
                self.send(format_line("set-param", name=name, value=value))
        else:
            self.version = 1
            names = [x.split(None, 1)[1] for x in first if x.startswith("name ")]
            self.name = names[0] if names else "?"
            if variant != "international":
                raise LabelError(f"{command!r} speaks the first Hub protocol (10x10 only), not {variant}")
        self.send("init")
        while self.read("the answer to init") != "ready":
            pass

    def _reader(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())
        self.lines.put(None)

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except OSError:
            raise LabelError(f"the engine {self.command!r} exited (writing {line!r})") from None

    def read(self, waiting_for: str) -> str:
        try:
            line = self.lines.get(timeout=self.timeout)
        except queue.Empty:
            raise LabelError(
                f"the engine {self.command!r} said nothing for {self.timeout:g} s ({waiting_for})"
            ) from None
        if line is None:
            raise LabelError(f"the engine {self.command!r} exited ({waiting_for})")
        return line

    def score(self, pos: str, depth: int) -> tuple[int, int]:
        """(score for the side to move in hundredths of a man, depth) of a search to ``depth``."""
        last: tuple[int, int] | None = None
        if self.version == 2:
            self.send("new-game")
            self.send(format_line("pos", pos=pos))
            self.send(format_line("level", depth=depth))
            self.send("go think")
            while True:
                line = self.read(f"the search of {pos}")
                command, values, _flags = parse_line(line)
                if command == "info" and "score" in values and "depth" in values:
                    last = (round(float(values["score"]) * 100), int(values["depth"]))
                elif command == "error":
                    raise LabelError(f"the engine {self.command!r}: {values.get('message', line)} (position {pos})")
                elif command == "done":
                    break
        else:
            self.send("new")
            self.send(f"pos {pos[0].lower()}{pos[1:]}")
            self.send(f"depth {depth}")
            self.send("analyse")
            while True:
                line = self.read(f"the search of {pos}")
                words = line.split()
                if words[0] == "info" and len(words) >= 4:
                    last = (int(words[3]), int(words[1]))
                elif words[0] == "error":
                    raise LabelError(f"the engine {self.command!r}: {line} (position {pos})")
                elif words[0] == "move":
                    break
        if last is None or (last[1] < depth and abs(last[0]) < DECIDED):
            raise NoScore(
                f"the engine {self.command!r} gave no score at depth {depth} for {pos}"
                + (" (Scan 2.0 reports scores from depth 12 on)" if self.version == 1 else "")
            )
        return last

    def close(self) -> None:
        with contextlib.suppress(LabelError):
            self.send("quit")
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def label(
    src: Path,
    out: Path,
    command: str,
    variant: str,
    depth: int,
    jobs: int,
    limit: int | None,
    params: tuple[str, ...] = (),
) -> None:
    find_variant(variant)
    # (a line cut off by a killed run has fewer fields: its position is labelled again)
    done = {fields[0] for fields in read_lines(out) if len(fields) == 4}
    todo: list[tuple[str, str]] = []
    for fields in read_lines(src):
        if fields[0] not in done:
            todo.append((fields[0], fields[-1]))
            done.add(fields[0])
    if limit is not None:
        todo = todo[:limit]
    if not todo:
        print(f"{out}: every position of {src} is labelled")
        return
    engines = [HubEngine(command, variant, params=params) for _ in range(max(1, jobs))]
    work: queue.Queue[tuple[str, str] | None] = queue.Queue()
    for item in todo:
        work.put(item)
    results: queue.Queue[tuple[str, Any]] = queue.Queue()

    def worker(engine: HubEngine) -> None:
        try:
            while True:
                item = work.get_nowait() if not work.empty() else None
                if item is None:
                    break
                pos, game = item
                try:
                    score, reached = engine.score(pos, depth)
                except NoScore as exc:
                    results.put(("skip", str(exc)))
                    continue
                results.put(("line", f"{pos} {score} {reached} {game}\n"))
        except LabelError as exc:
            results.put(("error", str(exc)))
        except queue.Empty:
            pass
        finally:
            results.put(("end", None))

    fresh = not out.exists() or not any(True for _ in read_lines(out))
    t0 = time.monotonic()
    with open_text(out, "at") as f:
        if fresh:
            today = datetime.date.today().isoformat()
            f.write(f"# {variant} positions of {src.name} labelled by {engines[0].name} at depth {depth}, {today}\n")
            f.write("# <position (Hub)> <score, hundredths of a man for the side to move> <depth> <game>\n")
        for engine in engines:
            threading.Thread(target=worker, args=(engine,), daemon=True).start()
        running, written, error = len(engines), 0, None
        skipped: list[str] = []
        while running:
            kind, value = results.get()
            if kind == "end":
                running -= 1
            elif kind == "skip":
                skipped.append(value)
            elif kind == "error":
                error = error or value
                while not work.empty():  # the others finish the position they are on
                    work.get_nowait()
            else:
                f.write(value)
                f.flush()  # whole lines only, whenever the run is stopped
                written += 1
                if written % 200 == 0:
                    rate = written / (time.monotonic() - t0)
                    print(f"{written} of {len(todo)} labelled ({rate:.1f}/s)", flush=True)
    for engine in engines:
        engine.close()
    if error is not None:
        raise LabelError(f"{error}; {written} positions written to {out}, run again to resume")
    if skipped and not written:
        raise LabelError(skipped[0])
    print(f"{out}: {written} positions labelled ({time.monotonic() - t0:.0f} s)")
    if skipped:
        print(f"{len(skipped)} skipped, e.g.: {skipped[0]}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("sample", help="quiet positions from our engine's games")
    sp.add_argument("variant")
    sp.add_argument("out", type=Path)
    sp.add_argument("--games", type=int, default=1000, help="games in all (default 1000)")
    sp.add_argument("--seed", type=int, default=1)
    sp.add_argument("--keep", type=float, default=0.5, help="the share of quiet positions kept (default 0.5)")
    sp.add_argument("--depths", default="3,4,4,5", help="each side's search depth, drawn per game (default 3,4,4,5)")
    sp.add_argument("--children", type=int, default=0, help="quiet positions a random move or two away, each")
    lp = sub.add_parser("label", help="label positions with a Hub engine's score at a fixed depth")
    lp.add_argument("positions", type=Path)
    lp.add_argument("out", type=Path)
    lp.add_argument("--engine", required=True, help="the command that runs the Hub engine (a shell line)")
    lp.add_argument("--variant", default="international")
    lp.add_argument("--depth", type=int, required=True)
    lp.add_argument("--jobs", type=int, default=1, help="engines at once (default 1)")
    lp.add_argument("--limit", type=int, help="label at most this many positions in this run")
    lp.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter for the engine (Hub 2's set-param)",
    )
    args = ap.parse_args(argv)
    try:
        if args.cmd == "sample":
            depths = tuple(int(d) for d in args.depths.split(","))
            sample(find_variant(args.variant).name, args.out, args.games, args.seed, args.keep, depths, args.children)
        else:
            if not args.positions.exists():
                raise LabelError(f"no positions file {args.positions}")
            label(
                args.positions,
                args.out,
                args.engine,
                find_variant(args.variant).name,
                args.depth,
                args.jobs,
                args.limit,
            )
    except (LabelError, ValueError, OSError, EOFError, lzma.LZMAError) as exc:
        print(f"positions.py: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
