"""The pipeline (debounce -> referee) with a zero debounce window, and its termination."""

from __future__ import annotations

import pytest

from board_hal.config import load_config
from board_hal.debounce import Debouncer, Transition
from referee import MoveMade, Pipeline, Referee, Report, Takeback
from tests.referee.hands import Style, game_log
from tests.referee.test_campaigns import real_games

CLEAN = Style(bounce=0.0, brush=0.0)  # a zero window passes every raw transition on: no chatter


def test_zero_window_replays_real_games_exactly() -> None:
    games = real_games()[::10]
    assert len(games) >= 12
    for name, start, moves in games:
        for seed in (0, 1):
            events, _ = game_log(start, moves, seed, CLEAN)
            ref = Referee(start.variant, start.fen())
            pipe = Pipeline(ref, window=0)
            verdicts = []
            for ev in events:
                before = len(ref.events) + len(ref.game.move_stack)
                verdicts += pipe.feed(ev)
                assert not pipe.debouncer.pending()  # nothing waits: each transition is an event at once
                assert len(ref.events) + len(ref.game.move_stack) > before or ev.occupied == (ev.key in ref.occupied)
            verdicts += pipe.finish()
            assert list(ref.game.move_stack) == moves, (name, seed)
            assert not [v for v in verdicts if isinstance(v, (Report, Takeback))], (name, seed)
            # and the same log through the default window gives the same moves
            default = Pipeline(Referee(start.variant, start.fen()))
            assert [v.move for v in default.run(events) if isinstance(v, MoveMade)] == moves


def test_zero_window_is_selected_by_the_configuration(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "damas.toml"
    path.write_text("[board]\ndebounce = 0\n")
    cfg = load_config(path)
    assert cfg.debounce == 0
    pipe = Pipeline(Referee("international"), window=cfg.debounce)
    out = pipe.feed(Transition(1.0, 32, False)) + pipe.feed(Transition(1.2, 28, True))
    assert [v.pdn for v in out if isinstance(v, MoveMade)] == ["32-28"]  # at once: no window to wait for


def test_zero_window_sees_a_chattering_lift_and_still_reads_the_move() -> None:
    # without debouncing a chattering switch is seen as it is: the move is still read once
    ref = Referee("international")
    pipe = Pipeline(ref, window=0)
    out = []
    for t, occ in [(1.0, False), (1.0004, True), (1.0008, False)]:
        out += pipe.feed(Transition(t, 32, occ))
    out += pipe.feed(Transition(1.3, 28, True))
    out += pipe.finish()
    assert [v.pdn for v in out if isinstance(v, MoveMade)] == ["32-28"]


class _StuckDebouncer(Debouncer):
    """The edit that once hung the suite: a pending transition that flush never settles."""

    def flush(self, now: float) -> list[Transition]:
        return []


def test_advance_cannot_loop_forever_on_a_debouncer_that_never_settles() -> None:
    pipe = Pipeline(Referee("international"), window=0.05)
    pipe.debouncer = _StuckDebouncer(0.05, dict(pipe.debouncer.stable))
    pipe.feed(Transition(1.0, 32, False))
    with pytest.raises(RuntimeError, match="no progress"):
        pipe.advance(2.0)


def test_advance_cannot_loop_forever_on_a_timer_that_never_ends() -> None:
    class Stuck(Referee):
        def tick(self, now: float) -> list[object]:  # type: ignore[override]
            return []  # the deadline stays due

    ref = Stuck("international")
    pipe = Pipeline(ref, window=0)
    pipe.feed(Transition(1.0, 32, False))
    pipe.feed(Transition(1.1, 25, True))  # a piece where it cannot go: a settle timer
    assert ref.next_deadline() is not None
    with pytest.raises(RuntimeError, match="no progress"):
        pipe.advance(5.0)


@pytest.mark.parametrize("window", [0.0, 0.05])
def test_advance_terminates_on_every_prefix_of_a_game(window: float) -> None:
    """Every deadline the referee and debouncer set is reached and passed."""
    name, start, moves = real_games()[0]
    events, _ = game_log(start, moves[:30], 2, CLEAN if window == 0 else None)
    ref = Referee(start.variant, start.fen())
    pipe = Pipeline(ref, window=window)
    for ev in events:
        pipe.feed(ev)
        pipe.advance(ev.t + 5)  # far past every timer
        assert ref.next_deadline() is None or ref.next_deadline() > ev.t + 5  # type: ignore[operator]
        assert pipe.debouncer.next_deadline() is None
    assert list(ref.game.move_stack) == moves[:30], name
