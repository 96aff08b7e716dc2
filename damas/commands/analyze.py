"""``damas analyze GAME|FILE.pdn``: the engine goes through a recorded game and marks the
moves that lose material (``?``) or the game (``??``), each with the engine's better move.

Every position of the game is searched once (our engine, in this process: nothing else
runs); a move's value is the search's score of the position it leads to, from the mover's
side. A move is marked when it is worse than the engine's best by at least a man (about
100 hundredths), or when it turns a game that was not lost into a forced loss (or lets a
forced win go).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from damas.commands.common import GAME_ID, command, open_store, variants_help
from damas.errors import UserError
from engine import MATE_BOUND, Engine, Limits
from rules import Color, Game, Move, Position
from rules.pdn import iter_games, read_pdn_file

MATERIAL = 80  # hundredths: worse than the best move by this much loses material (a man is 100)
WIN = 300  # hundredths: a position this good is won in practice
LOST = 500  # hundredths: a position this bad is lost in practice


@dataclass(frozen=True)
class Mark:
    """A move that loses something, with the better move the engine found."""

    ply: int  # 1 = White's first move (in the game's own numbering: see ``number``)
    number: str  # "12." or "12..."
    played: str
    better: str
    loss: int  # hundredths of a man, from the mover's side
    kind: str  # "material", "game" or "win"
    before: int  # the position's value with the best move (mover's side)
    after: int  # its value after the move played

    @property
    def symbol(self) -> str:
        return "??" if self.kind == "game" else "?"

    def text(self) -> str:
        what = {"game": "loses the game", "win": "lets the win go", "material": "loses material"}[self.kind]
        return (
            f"{self.number} {self.played}{self.symbol}  {what} ({score_text(self.after)}): "
            f"better {self.number} {self.better} ({score_text(self.before)})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "ply": self.ply,
            "move": self.played,
            "mark": self.symbol,
            "kind": self.kind,
            "better": self.better,
            "loss": self.loss,
            "score_before": self.before,
            "score_after": self.after,
        }


def score_text(score: int) -> str:
    """A score for people: ``+1.2`` men, ``=`` level, ``wins``/``loses`` for a forced result."""
    if score >= MATE_BOUND:
        return "wins"
    if score <= -MATE_BOUND:
        return "loses"
    if abs(score) < 10:
        return "="
    return f"{score / 100:+.1f}"


def classify(best: int, played: int) -> str | None:
    """What a move worth ``played`` loses when the best was worth ``best`` (both the mover's view):
    ``game`` (from a game not lost to a forced or practical loss), ``win`` (a forced win let go),
    ``material`` (a man or more, unless the game stays won or was lost anyway), or nothing."""
    if best > -LOST and (played <= -MATE_BOUND < best or (best >= -MATERIAL and played <= -LOST)):
        return "game"
    if best >= MATE_BOUND and played < WIN:
        return "win"
    if best - played >= MATERIAL and played < WIN and best > -WIN:
        return "material"
    return None


def analyze_game(
    game: Game,
    limits: Limits,
    *,
    engine: Engine | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Mark]:
    """The marked moves of a game (its moves as replayed in ``game``; set-ups start afresh)."""
    eng = engine or Engine(game.variant, level=10, tt_mb=16)
    steps = game.steps()
    replay = Game(game.variant, game.start)
    scores: list[tuple[int, Move | None]] = []
    prepared: list[tuple[Position, Move | Position]] = []
    # the value of every position the game went through, with its best move
    for i, (before, entry) in enumerate(steps):
        if isinstance(entry, Position):
            replay.setup(entry)
            prepared.append((before, entry))
            scores.append((0, None))
            continue
        result = eng.search(replay, limits)
        scores.append((result.score, result.move))
        prepared.append((before, entry))
        replay.push(entry, after_end=True)
        if progress is not None:
            progress(i + 1, len(steps))
    final = eng.search(replay, limits) if replay.outcome() is None else None
    end_score = _end_score(replay) if final is None else final.score
    marks: list[Mark] = []
    ply = 0
    for i, (before, entry) in enumerate(prepared):
        if isinstance(entry, Position):
            continue
        ply += 1
        best_score, best = scores[i]
        nxt = i + 1
        if nxt < len(prepared) and isinstance(prepared[nxt][1], Position):
            continue  # the position after it was replaced by a set-up: nothing to compare
        after = -(scores[nxt][0] if nxt < len(prepared) else end_score)
        if best is None or best == entry:
            continue
        kind = classify(best_score, after)
        if kind is None:
            continue
        played, better = before.move_pdn(entry), before.move_pdn(best)
        marks.append(Mark(ply, _number(before, ply, game), played, better, best_score - after, kind, best_score, after))
    return marks


def _end_score(game: Game) -> int:
    """The value of a finished game for the side to move there."""
    outcome = game.outcome()
    if outcome is None or outcome.winner is None:
        return 0
    return MATE_BOUND + 1 if outcome.winner is game.position.turn else -(MATE_BOUND + 1)


def _number(before: Position, ply: int, game: Game) -> str:
    """``12.`` for White's move, ``12...`` for Black's (counted from the game's first move)."""
    first_black = game.start.turn is Color.BLACK
    index = ply - 1 + (1 if first_black else 0)
    move_no = index // 2 + 1
    return f"{move_no}." if before.turn is Color.WHITE else f"{move_no}..."


def _games(source: str, db: str | None, variant: str | None) -> Iterator[tuple[str, Game]]:
    """The games to analyse: a recorded game by its id, or every game of a PDN file."""
    if GAME_ID.fullmatch(source) and not Path(source).exists():
        from damas.session import export_game

        with open_store(db) as store:
            pg = export_game(store, int(source))
        yield f"game {source} ({pg.tags.get('White', '?')} - {pg.tags.get('Black', '?')})", pg.game()
        return
    try:
        text = read_pdn_file(source)
    except OSError as exc:
        raise UserError(f"cannot read {source}: {exc.strerror or exc}") from None
    found = False
    for pg in iter_games(text, source, variant):
        found = True
        if pg.error is not None:
            print(f"damas: warning: {pg.error} (the moves before it are analysed)", file=sys.stderr)
        yield f"{source}: {pg.title()}", pg.game()
    if not found:
        raise UserError(f"{source}: no game found")


def run(args: argparse.Namespace) -> int:
    if args.time is not None and not 0.01 <= args.time <= 600:
        raise UserError(f"--time must be seconds between 0.01 and 600, not {args.time}")
    if args.depth is not None and not 1 <= args.depth <= 40:
        raise UserError(f"--depth must be 1-40, not {args.depth}")
    limits = Limits(depth=args.depth) if args.depth is not None else Limits(move_time=args.time or 0.5)
    how = f"depth {args.depth}" if args.depth is not None else f"{limits.move_time:g} s per position"
    total = 0
    for title, game in _games(args.source, args.db, args.variant):
        marks = analyze_game(game, limits)
        total += len(marks)
        if args.json:
            print(json.dumps({"game": title, "marks": [m.to_json() for m in marks]}, ensure_ascii=False))
            continue
        print(f"{title}, {game.variant.name}, {len(game.move_stack)} moves ({how})")
        for m in marks:
            print(f"  {m.text()}")
        sides = {"white": 0, "black": 0}
        for m in marks:
            sides["white" if m.number.endswith(".") and not m.number.endswith("...") else "black"] += 1
        print(
            f"  {len(marks)} marked move{'s' if len(marks) != 1 else ''} "
            f"(white {sides['white']}, black {sides['black']})"
            if marks
            else "  no move loses material or the game"
        )
    return 0


def register(sub: Any) -> None:
    p = command(
        sub,
        "analyze",
        "mark the moves of a recorded game that lose material or the game, with better moves",
        "damas analyze games.pdn --time 1",
        description="Go through a recorded game (its id in the database) or every game of a PDN file with the "
        "engine, and mark the moves that lose material (?) or the game (??), each with the engine's "
        "better move and the values before and after (in men, from the mover's side).",
    )
    p.add_argument("source", metavar="GAME|FILE.pdn", help="a recorded game's id, or a PDN file")
    p.add_argument("--db", help="the game database (default: the user's data directory)")
    p.add_argument("--variant", help=variants_help("for the PDN games without a GameType tag; default: International"))
    p.add_argument("--time", type=float, help="seconds the engine thinks per position (default 0.5)")
    p.add_argument("--depth", type=int, help="a fixed depth instead of a time (reproducible)")
    p.add_argument("--json", action="store_true", help="one JSON object per game")
    p.set_defaults(func=run)
