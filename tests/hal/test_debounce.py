"""The debouncer's order and its pending state: what the referee and the app loop rely on."""

from __future__ import annotations

import pytest

from board_hal.debounce import Debouncer, Transition


def test_events_settle_in_time_order_whatever_order_they_arrive_in() -> None:
    # two sources (the board's scan and a cell on another chain) can deliver out of order
    d = Debouncer(window=0.05, initial={5: True, 3: True})
    assert d.feed(Transition(0.020, 5, False)) == []
    assert d.feed(Transition(0.010, 3, False)) == []
    assert d.flush(0.100) == [Transition(0.010, 3, False), Transition(0.020, 5, False)]
    assert d.state(3) is False and d.state(5) is False


def test_simultaneous_events_settle_in_one_order_whatever_order_they_arrive_in() -> None:
    # live play and the replay of its log must give the same events: ties have one order
    orders = []
    for first, second in ((9, 22), (22, 9)):
        d = Debouncer(window=0.05, initial={9: True, 22: True})
        d.feed(Transition(1.0, first, False))
        d.feed(Transition(1.0, second, False))
        orders.append([tr.key for tr in d.flush(2.0)])
    assert orders[0] == orders[1] and sorted(orders[0]) == [9, 22]


def test_pending_is_true_only_while_a_change_waits_out_its_window() -> None:
    d = Debouncer(window=0.05, initial={22: True})
    assert not d.pending() and d.next_deadline() is None and d.pending_since() is None
    d.feed(Transition(1.0, 22, False))
    assert d.pending() and d.pending_since() == 1.0 and d.next_deadline() == 1.05
    assert d.flush(1.04) == [] and d.pending()  # not yet held for the window
    assert d.flush(1.05) == [Transition(1.0, 22, False)]
    assert not d.pending() and d.next_deadline() is None
    # a bounce back before the window ends leaves nothing pending and nothing to settle
    d.feed(Transition(2.0, 22, True))
    d.feed(Transition(2.001, 22, False))
    assert not d.pending() and d.flush(3.0) == []


def test_a_transition_to_the_state_already_held_is_no_event() -> None:
    # a switch that reports its state again (a re-sent frame, a rescan) with nothing pending
    d = Debouncer(window=0.05, initial={22: True})
    assert d.feed(Transition(1.0, 22, True)) == []
    assert not d.pending() and d.flush(2.0) == [] and d.state(22) is True


def test_a_negative_window_is_refused_with_its_value() -> None:
    with pytest.raises(ValueError, match=r"debounce window must not be negative: -0\.01"):
        Debouncer(window=-0.01)
