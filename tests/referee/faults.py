"""Games played on a board with broken sensors, through the live pipeline (issue 31).

The hands model plays the game; :func:`tests.referee.hands.faulty` turns its events into
what a board with a dead, stuck or intermittent reed switch reports; nobody tells the referee
which square. When the referee asks the page (a ``sensor-confirm`` report, or a set-up that
cannot complete because a sensor is stuck), the player answers at once with the truth, as a
person at the board would: the move played, or the square whose sensor is broken.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from referee import Action, Pipeline, Referee, Report, ReportKind, Verdict
from referee.expect import engine_text
from rules import Move, Position
from tests.conftest import random_game
from tests.referee.hands import Style, faulty, game_log
from tests.referee.test_campaigns import real_games


@dataclass
class Played:
    """How the referee did: ``recorded`` (a prefix of the game, or a misrecord), how often it
    asked the page, and the squares it named as not answering."""

    moves: list[Move]
    recorded: list[Move]
    asked: int = 0
    named: set[int] = field(default_factory=set)
    inferred: int = 0

    @property
    def misrecorded(self) -> bool:
        return self.recorded != self.moves[: len(self.recorded)]

    @property
    def whole(self) -> bool:
        return self.recorded == self.moves


def used_squares(moves: list[Move]) -> list[int]:
    """The squares a game changes (the ones whose broken sensor matters)."""
    return sorted({sq for m in moves for sq in (m.from_square, m.to_square, *m.captured)})


def play_faulty(
    start: Position,
    moves: list[Move],
    seed: int,
    faults: list[tuple[int, str]],
    style: Style | None = None,
    *,
    answer: bool | Literal["setup"] = True,
    mode: str = "casual",
) -> Played:
    """Play ``moves`` with the sensors of ``faults`` ((square, kind) pairs) broken; ``answer``:
    the player confirms what the page asks (``"setup"``: only a set-up's broken sensor, named
    once before play starts)."""
    events, _ = game_log(start, moves, seed, style)
    rng = random.Random(seed)
    board = start.occupied()
    for sq, kind in faults:
        events, board = faulty(events, board, sq, kind, rng)
    ref = Referee(start.variant, start.fen(), board=board, mode=mode)  # type: ignore[arg-type]
    pipe = Pipeline(ref)
    played = Played(moves, [])
    truth = {sq for sq, _ in faults}

    def answered(verdicts: list[Verdict], t: float) -> None:
        for v in verdicts:
            if not isinstance(v, Report):
                continue
            if v.kind is ReportKind.SENSOR:
                played.named.update(v.squares)
            if not answer:
                continue
            if v.kind is ReportKind.SENSOR_CONFIRM and answer is True:
                played.asked += 1
                # the move played, among those the page offers (the last one, read again; or the next)
                ply = ref.game.ply
                asked_about = [engine_text(moves[i]) for i in (ply - 1, ply) if 0 <= i < len(moves)]
                offered = [m for m in reversed(asked_about) if m in v.params["moves"]]
                if offered:
                    answered(pipe.feed(Action(t, "confirm", move=offered[0])), t)
            elif v.kind is ReportKind.SETUP and set(v.squares) <= truth:
                played.asked += 1  # the set-up names a square whose sensor is stuck: the player says so
                for sq in v.squares:
                    answered(pipe.feed(Action(t, "confirm", square=sq)), t)

    for ev in events:
        answered(pipe.feed(ev), ev.t)
    t_end = events[-1].t + 10 if events else 10.0
    answered(pipe.advance(t_end), t_end)
    answered(pipe.finish(), t_end)
    played.recorded = list(ref.game.move_stack)
    played.inferred = len(ref.inferred)
    return played


VARIANTS = ("brazilian", "international", "portuguese")


def campaign_games(per_variant: int) -> list[tuple[Position, list[Move]]]:
    """The campaign's games: every real game, then ``per_variant`` generated games of each variant."""
    games = [(start, moves) for _name, start, moves in real_games()]
    for variant in VARIANTS:
        games += [random_game(variant, 1000 + i, 200, capture_bias=0.7) for i in range(per_variant)]
    return games


def campaign_broken(k: int, moves: list[Move], kind: str, n_broken: int) -> list[tuple[int, str]]:
    """The sensors broken in the campaign's game ``k``."""
    return [(sq, kind) for sq in random.Random(k).sample(used_squares(moves), n_broken)]


def campaign(kind: str, n_broken: int, style: Style | None, per_variant: int) -> tuple[int, int, int, int, int]:
    """Every real game and ``per_variant`` generated games of each variant, ``n_broken`` sensors
    of ``kind`` broken in each: (games, recorded whole without help, whole after answers,
    misrecorded, games in which a sound sensor was named as not answering)."""
    games = campaign_games(per_variant)
    return _tally(
        ((start, moves, campaign_broken(k, moves, kind, n_broken), k) for k, (start, moves) in enumerate(games)), style
    )


def _tally(
    cases: Iterable[tuple[Position, list[Move], list[tuple[int, str]], int]], style: Style | None
) -> tuple[int, int, int, int, int]:
    """Each case (start, moves, broken sensors, seed) played unanswered and answered: (games,
    recorded whole without help, whole after answers, misrecorded in either, games in which a
    sound sensor was named in either)."""
    games = alone = helped = wrong = misnamed = 0
    for start, moves, broken, seed in cases:
        first = play_faulty(start, moves, seed, broken, style, answer=False)
        second = play_faulty(start, moves, seed, broken, style, answer=True)
        games += 1
        alone += first.whole
        helped += second.whole
        wrong += first.misrecorded or second.misrecorded
        misnamed += bool((first.named | second.named) - {sq for sq, _ in broken})
    return games, alone, helped, wrong, misnamed


def campaign_named(kind: str, style: Style | None, per_variant: int) -> tuple[int, int, int]:
    """The same with one sensor of ``kind`` broken, the player answering only the set-up's
    question (the square whose sensor is broken, named once): (games, recorded whole, misrecorded)."""
    games = campaign_games(per_variant)
    whole = wrong = 0
    for k, (start, moves) in enumerate(games):
        played = play_faulty(start, moves, k, campaign_broken(k, moves, kind, 1), style, answer="setup")
        whole += played.whole
        wrong += played.misrecorded
    return len(games), whole, wrong


def hold_campaign(style: Style, dead: bool, games: int) -> tuple[int, int, int, int, int]:
    """The hold campaign: ``games`` generated games (seeds 7000 on, the variants in turn, 80
    plies), played by ``style`` (a share of the plain moves held in the hand while the other
    side replies), every sensor sound or one dead (``dead``: a square the game uses, drawn from
    the game's generator): the same figures as :func:`campaign`."""
    return _tally(((*hold_case(7000 + i, dead), 7000 + i) for i in range(games)), style)


def hold_case(seed: int, dead: bool = False) -> tuple[Position, list[Move], list[tuple[int, str]]]:
    """Game ``seed`` of the hold campaign (its variant by the seed, in turn from 7000; 80 plies)
    and its broken sensors: none, or one dead (``dead``) drawn from the game's generator."""
    rng = random.Random(seed)
    start, moves = random_game(VARIANTS[(seed - 7000) % 3], rng, 80, capture_bias=0.7)
    return start, moves, [(rng.choice(used_squares(moves)), "dead")] if dead else []
