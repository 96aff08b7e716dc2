"""The game clock (issue 13): arithmetic of every control, presses judged against the board,
flag fall, the arbiter's pause/resume/adjust, replay and the PDN ``%clock`` round trip."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from board_hal.debounce import Transition
from referee import Action, GameEnd, MoveMade, Pipeline, Referee, Report, ReportKind, Verdict
from referee.clock import TICKS, Clock, ClockAction, ClockError, ClockKeeper, clock_text, parse_control, ticks
from referee.log import LogError, LogHeader, dump_log, parse_log
from rules import Color, Position
from rules.pdn import read_game

W, B = Color.WHITE, Color.BLACK
GEO = Position.start("brazilian").geometry


def sq(name: str) -> int:
    return GEO.parse_square(name)


# -- the syntax ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "canonical", "tag"),
    [
        ("fenacef", "21", "1260"),
        ("21", "21", "1260"),
        ("5+3", "5+3", "300+3"),
        ("5d3", "5d3", "300d3"),
        ("5b3", "5b3", "300b3"),
        ("0.5", "0.5", "30"),
        ("40/90, 30+30", "40/90,30+30", "40/5400:1800+30"),
        ("40/120", "40/120", "40/7200"),
        (" FENACEF ", "21", "1260"),
    ],
)
def test_controls_read_and_write(text: str, canonical: str, tag: str) -> None:
    tc = parse_control(text)
    assert tc.text() == canonical
    assert tc.pdn() == tag
    assert parse_control(tc.text()) == tc


def test_none_is_no_clock_and_user_presets() -> None:
    assert parse_control("none").none and parse_control("none").pdn() == "-"
    assert parse_control("blitz", {"blitz": "5+3"}).text() == "5+3"
    assert parse_control("club", {"club": "fenacef"}).text() == "21"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("5+", "cannot read '5+'"),
        ("", "cannot read ''"),
        ("0", "0 minutes"),
        ("90,40/30", "only the last period"),
        ("0/5", "0 moves"),
        ("5+4000", "at most 3600"),
        ("blitz", "cannot read 'blitz'"),
        ("2000", "2000 minutes"),
    ],
)
def test_a_bad_control_is_one_line_quoting_it(text: str, why: str) -> None:
    with pytest.raises(ClockError) as exc:
        parse_control(text)
    message = str(exc.value)
    assert why in message and "\n" not in message and message.startswith(f"invalid clock {text!r}")


def test_faces() -> None:
    assert clock_text(ticks(21 * 60)) == "21:00"
    assert clock_text(ticks(59.01)) == "1:00"  # rounded up: 0 only when the flag has fallen
    assert clock_text(ticks(9.91)) == "0:10"
    assert clock_text(ticks(9.89)) == "0:09.9"
    assert clock_text(1) == "0:00.1"
    assert clock_text(0) == "0:00"
    assert clock_text(ticks(3723)) == "1:02:03"


# -- the arithmetic: property tests over many seeded random games -------------------------------
CONTROLS = ["21", "5+3", "5d3", "5b3", "3/1,2/1,1+2", "2/1", "0.5+10"]


def _simulate(control: str, seed: int) -> None:
    """Random presses (with and without a move) and pauses against an independent model."""
    rnd = random.Random(seed)
    tc = parse_control(control)
    c = Clock(tc)
    t = 0
    c.start(W, t)
    model = {W: tc.periods[0].seconds, B: tc.periods[0].seconds}
    counted = {W: 0, B: 0}
    increments = {W: 0, B: 0}
    for _ in range(rnd.randint(5, 60)):
        side = c.running
        assert side is not None
        p = c._period(side)
        spend = rnd.randint(0, 40 * TICKS)
        if rnd.random() < 0.1:  # a pause in the middle of the turn costs nothing
            t += spend // 2
            c.pause(t)
            t += rnd.randint(0, 600 * TICKS)
            c.resume(t)
            t += spend - spend // 2
        else:
            t += spend
        due = c.deadline()
        assert due is not None
        if due <= t:  # the flag falls first: the deadline is the first moment with nothing left
            assert c.remaining(side, due) == 0 < c.remaining(side, due - 1)
            c.fall(due)
            assert c.remaining(side, t) == 0 and c.flag is side
            return
        moved = rnd.random() < 0.9
        charged = max(0, spend - p.delay) if p.delay and not p.bronstein else spend
        model[side] -= charged
        assert c.remaining(side, t) == model[side] >= 0  # never negative, exactly the model
        in_period_before = c.in_period[side]
        c.press(side, t, counted=moved)
        if moved:
            counted[side] += 1
            model[side] += p.increment + (min(p.delay, spend) if p.bronstein else 0)
            increments[side] += p.increment
            if p.moves is not None and in_period_before + 1 == p.moves:  # the period changes at its last move
                nxt = tc.periods[min(c.period[side], len(tc.periods) - 1)]
                model[side] += nxt.seconds
        assert c.remaining(side, t) == model[side]
        assert c.moves[side] == counted[side]  # increments and periods count moves, once each
        assert c.running is side.other
    if len(tc.periods) == 1:
        for side in (W, B):
            assert increments[side] == counted[side] * tc.periods[0].increment


@pytest.mark.parametrize("control", CONTROLS)
def test_clock_arithmetic_properties(control: str) -> None:
    for seed in range(150):
        _simulate(control, seed)


def test_periods_change_at_the_right_move() -> None:
    c = Clock(parse_control("2/1,1+5"))  # 2 moves in 1 minute, then 1 minute + 5 s a move
    c.start(W, 0)
    t = 0
    for n in range(1, 4):
        t += ticks(10)
        c.press(W, t)
        t += ticks(1)
        c.press(B, t, counted=False)  # black's presses without moves change nothing for white
        expect = {1: 50, 2: 40 + 60, 3: 90 + 5}[n]
        assert c.remaining(W, t) == ticks(expect), n
        assert c.period[W] == (0 if n < 2 else 1)


def test_repeating_last_period_and_simple_delay_flag() -> None:
    c = Clock(parse_control("1/1"))
    c.start(W, 0)
    c.press(W, ticks(30))
    assert c.remaining(W, ticks(30)) == ticks(90)  # the period repeats: another minute
    d = Clock(parse_control("1d5"))
    d.start(W, 0)
    assert d.deadline() == ticks(65)  # the first 5 s of the turn are free
    assert d.remaining(W, ticks(4)) == ticks(60)


# -- beside the referee: a game with hands and buttons ------------------------------------------
class Game:
    def __init__(
        self,
        control: str = "5+3",
        mode: str = "tournament",
        auto: bool = False,
        fen: str | None = None,
        window: float = 0.0,
    ) -> None:
        self.ref = Referee("brazilian", fen, mode=mode)
        self.keeper = ClockKeeper(parse_control(control), self.ref, auto=auto)
        self.pipe = Pipeline(self.ref, window, self.keeper)
        self.t = 0.0
        self.events: list[Transition | ClockAction] = []
        self.out: list[Verdict] = []

    def at(self, dt: float) -> Game:
        self.t = round(self.t + dt, 4)
        return self

    def feed(self, ev: Transition | ClockAction) -> None:
        self.events.append(ev)
        self.out += self.pipe.feed(ev)

    def move(self, *steps: str, dt: float = 1.0) -> Game:
        for step in steps:  # "-c3" lift, "+d4" place
            self.at(dt).feed(Transition(self.t, sq(step[1:]), step[0] == "+"))
        return self

    def press(self, side: Color, dt: float = 1.0) -> Game:
        self.at(dt).feed(ClockAction(self.t, "clock", side, "button"))
        return self

    def wait(self, dt: float) -> Game:
        self.at(dt)
        self.out += self.pipe.advance(self.t)
        return self

    def reports(self) -> list[ReportKind]:
        return [v.kind for v in self.out if isinstance(v, Report)]

    def left(self, side: Color) -> float:
        return self.keeper.clock.remaining(side, ticks(self.t)) / TICKS


def test_a_regular_game_stamps_every_move_after_its_press() -> None:
    g = Game("5+3").press(B, 0)  # black starts white's clock
    g.move("-c3", "+d4", dt=5).press(W, 1)  # white: 10 s, +3
    g.move("-f6", "+e5", dt=2).press(B, 1)  # black: 5 s, +3
    assert g.reports() == []
    assert g.left(W) == 300 - 11 + 3 and g.left(B) == 300 - 5 + 3
    pg = g.pipe.pdn_game()
    assert [pm.clock for pm in pg.moves] == [
        pgclock(292, 300, B),
        pgclock(292, 298, W),
    ]
    assert pg.tags["TimeControl"] == "300+3"
    assert [s.took for s in g.keeper.stamps] == [ticks(11), ticks(5)]


def pgclock(w: float, b: float, running: Color | None) -> object:
    from rules.pdn import Clock as PdnClock

    return PdnClock(w, b, running)


def test_press_without_a_move_tournament_reported_casual_advances() -> None:
    g = Game(mode="tournament").press(B, 0).press(W, 3)  # white presses before moving
    assert g.reports() == [ReportKind.CLOCK_NO_MOVE]
    assert g.keeper.clock.running is W  # not switched: white's own time keeps running
    c = Game(mode="casual").press(B, 0).press(W, 3)
    assert c.reports() == [] and c.keeper.clock.running is B
    assert c.keeper.clock.moves[W] == 0  # no move: no increment
    assert c.left(W) == 300 - 3


def test_a_press_before_the_debounce_window_confirmed_the_move_is_regular() -> None:
    """A fast hand presses 20 ms after the piece landed, before the board's debounce window
    (50 ms) has confirmed the move: judged by the board as it is, it is a regular press."""
    g = Game("5+3", mode="tournament", window=0.05).press(B, 0)
    g.move("-c3", "+d4").press(W, 0.02)
    assert g.reports() == [] and g.keeper.clock.running is B
    g.wait(1.0)
    assert [v.pdn for v in g.out if isinstance(v, MoveMade)] == ["c3-d4"]
    stamp = g.keeper.stamps[0]
    assert (stamp.white, stamp.black, stamp.running, stamp.took) == (ticks(300 - 2.02 + 3), ticks(300), B, ticks(2.02))
    g.move("-f6", "+e5").press(B, 0.5)  # and the next move is pressed as usual
    assert g.reports() == [] and g.keeper.clock.running is W and g.keeper.stamps[0].took == ticks(2.02)


def test_press_by_the_side_whose_clock_is_not_running() -> None:
    g = Game(mode="tournament").press(B, 0).press(B, 2)
    assert g.reports() == [ReportKind.CLOCK_WRONG_SIDE]
    report = next(v for v in g.out if isinstance(v, Report))
    assert report.params["side"] == "black" and "black" in report.message.lower()
    assert g.keeper.clock.running is W
    assert Game(mode="casual").press(B, 0).press(B, 2).reports() == []


# white d4 takes e5 (d4xf6); the captured piece must be off the board before the press
CAPTURE_FEN = f"W:W{sq('d4')},{sq('h2')}:B{sq('e5')},{sq('b8')}"


def test_press_before_the_captured_piece_is_off_the_board() -> None:
    g = Game(mode="tournament", fen=CAPTURE_FEN).press(B, 0)
    g.move("-d4", "+f6").press(W, 1)  # landed, e5 still on the board
    assert g.reports() == [ReportKind.CLOCK_EARLY]
    report = next(v for v in g.out if isinstance(v, Report))
    assert report.squares == (sq("e5"),)
    assert g.keeper.clock.running is W
    g.move("-e5").press(W, 1)  # the capture completed, pressed again: fine
    assert g.reports() == [ReportKind.CLOCK_EARLY] and g.keeper.clock.running is B
    c = Game(mode="casual", fen=CAPTURE_FEN).press(B, 0)
    c.move("-d4", "+f6").press(W, 1).move("-e5")  # casual: it simply advances, and the move counts
    assert c.reports() == [] and c.keeper.clock.running is B and c.keeper.clock.moves[W] == 1


def test_a_move_while_the_opponents_clock_runs_is_a_notice() -> None:
    g = Game(mode="tournament").press(B, 0)
    g.move("-c3", "+d4")  # white moved and forgot to press
    g.move("-f6", "+e5")  # black moves on white's time
    kinds = g.reports()
    assert kinds == [ReportKind.CLOCK_NOT_PRESSED]
    report = next(v for v in g.out if isinstance(v, Report))
    assert report.params["side"] == "white"
    assert g.ref.report is None  # a notice, not an irregularity: nothing to restore, nothing lit
    g.press(W).press(B)  # both presses are now owed and regular
    assert g.reports() == [ReportKind.CLOCK_NOT_PRESSED] and g.keeper.clock.running is W


@pytest.mark.parametrize("loser", [W, B])
def test_flag_fall_on_each_side(loser: Color) -> None:
    g = Game("1").press(B, 0)
    if loser is B:
        g.move("-c3", "+d4").press(W)
    g.wait(59.0)
    assert not any(isinstance(v, GameEnd) for v in g.out)
    g.wait(10.0)
    ends = [v for v in g.out if isinstance(v, GameEnd)]
    assert len(ends) == 1 and ends[0].termination == "time-forfeit"
    assert ends[0].result == ("0-1" if loser is W else "1-0")
    flag_t = 60.0 if loser is W else 63.0
    assert ends[0].t == flag_t  # at the exact deadline, not when somebody looked
    assert g.reports()[-1] is ReportKind.FLAG_FALL and g.keeper.clock.flag is loser
    assert g.ref.ended
    before = len(g.out)
    g.press(loser)  # presses after the flag change nothing
    assert g.out[before:] == [] and g.left(loser) == 0


def test_flag_does_not_fall_at_the_end_of_a_log() -> None:
    g = Game("1").press(B, 0)
    g.out += g.pipe.finish()
    assert not any(isinstance(v, GameEnd) for v in g.out)


def test_the_arbiter_pauses_adjusts_and_resumes() -> None:
    g = Game("5").press(B, 0).wait(10)
    g.at(0).feed(ClockAction(g.t, "clock-pause", source="arbiter"))
    g.wait(1000)
    assert g.left(W) == 290
    g.press(W)  # a player's press does not resume an arbiter's pause
    assert g.keeper.clock.paused
    g.at(1).feed(ClockAction(g.t, "clock-adjust", source="arbiter", white=120.0, black=200.5))
    assert g.left(W) == 120 and g.left(B) == 200.5
    g.at(1).feed(ClockAction(g.t, "clock-resume", source="arbiter"))
    g.wait(20)
    assert g.left(W) == 100
    assert g.reports() == [ReportKind.CLOCK_PAUSED, ReportKind.CLOCK_ADJUSTED, ReportKind.CLOCK_RESUMED]


def test_casual_auto_press_and_takeback() -> None:
    g = Game("5+2", mode="casual", auto=True)
    g.move("-c3", "+d4", dt=4)  # the first move starts black's clock
    assert g.keeper.clock.running is B
    g.move("-f6", "+e5", dt=3)
    assert g.keeper.clock.running is W and g.left(B) == 300 - 6 + 2
    g.move("-e5", "+f6", dt=2)  # black takes its move back: black's clock again, the increment undone
    assert g.keeper.clock.running is B
    assert g.left(B) == 300 - 6 - 0 and g.keeper.clock.moves[B] == 0
    assert len(g.keeper.stamps) == 1


def _asked(control: str = "5", **kw: object) -> tuple[Game, list[Report]]:
    """An auto clock; g3-h4 h6-g5, then white's a3-b4 from a3, whose sensor is dead (c3 not
    heard yet: c3-b4 reads the same): the page is asked at once (a still board)."""
    g = Game(control, mode="casual", auto=True)
    g.move("-g3", "+h4", dt=1).move("-h6", "+g5", dt=2)
    g.at(10).feed(Transition(g.t, sq("b4"), True))  # a3-b4: no lift seen
    g.wait(2)
    return g, [v for v in g.out if isinstance(v, Report) and v.kind is ReportKind.SENSOR_CONFIRM]


def test_the_auto_clock_switches_while_the_page_is_asked_which_move_was_played() -> None:
    """Both readings are a white move: white's clock stops when the page is asked, black's
    runs (it used to keep running white's, black's time charged to white until the answer);
    black replies while the question stands: white's runs again; the answer charges nothing
    again, and the moves' stamps are the times as they were played."""
    g, asked = _asked()  # h6-g5 landed at t=6 (black's clock 296), b4 filled at t=16
    assert len(asked) == 1 and set(asked[0].params["moves"]) == {"21-17", "22-17"}
    t = asked[0].t
    assert t == 17 and g.keeper.clock.running is B
    assert g.left(W) == 300 - (t - 6)  # white's clock ran from h6-g5 to the question
    g.wait(20)
    assert g.left(W) == 289 and g.left(B) == 296 - (g.t - t)
    g.move("-g7", "+h6", dt=1)  # black replies while the question stands (both readings play it on)
    assert g.keeper.clock.running is W and g.left(B) == 296 - 23 and g.t == 40
    g.wait(5)
    g.out += g.pipe.feed(Action(g.t, "confirm", move="21-17"))
    assert [v.pdn for v in g.out if isinstance(v, MoveMade)] == ["g3-h4", "h6-g5", "a3-b4", "g7-h6"]
    assert g.keeper.clock.running is W
    assert g.left(W) == 289 - 5 and g.left(B) == 273  # nothing charged again
    assert [s.took for s in g.keeper.stamps][2:] == [ticks(11), ticks(23)]
    assert [(s.white, s.black, s.running) for s in g.keeper.stamps][2:] == [
        (ticks(289), ticks(296), B),
        (ticks(289), ticks(273), W),
    ]


def test_a_press_while_the_page_is_asked_which_move_was_played_ends_the_move() -> None:
    """Tournament clock, pressed by hand: white presses after a3-b4 (a3's sensor dead) while the
    page asks a3-b4 or c3-b4. Every reading is a white move: the press ends it (it used to be
    "pressed without having moved", white's clock running on), and the answer is no "did not
    press the clock"."""
    g = Game("5", mode="tournament").press(B, 0)  # black starts white's clock
    g.move("-g3", "+h4", dt=1).press(W, 1)  # white: 3 s
    g.move("-h6", "+g5", dt=1).press(B, 1)  # black: 3 s, white's clock from t=6
    g.at(10).feed(Transition(g.t, sq("b4"), True))  # a3-b4 at t=16, no lift seen
    g.wait(2)
    assert ReportKind.SENSOR_CONFIRM in g.reports()
    g.press(W, 1)  # t=19: white took 13 s
    assert g.keeper.clock.running is B and g.left(W) == 300 - 3 - 13
    assert ReportKind.CLOCK_NO_MOVE not in g.reports()
    g.wait(5)
    g.out += g.pipe.feed(Action(g.t, "confirm", move="21-17"))
    assert [v.pdn for v in g.out if isinstance(v, MoveMade)][-1] == "a3-b4"
    assert ReportKind.CLOCK_NOT_PRESSED not in g.reports()
    assert g.keeper.clock.running is B and g.left(W) == 284 and g.left(B) == 300 - 3 - 5
    assert g.keeper.stamps[-1].took == ticks(13)


def test_a_question_with_no_move_as_a_reading_leaves_the_clock_alone() -> None:
    """f6-g5 on a square known dead, no reply: the piece may still be in the hand, so the
    page's question is not a move for sure: black's clock keeps running."""
    g = Game("5", mode="casual", auto=True, fen="B:W21,22:B11")
    g.ref = Referee("brazilian", "B:W21,22:B11", mode="casual", suspects={16}, heard=set(range(1, 33)) - {16})
    g.keeper = ClockKeeper(parse_control("5"), g.ref, auto=True)
    g.pipe = Pipeline(g.ref, 0.0, g.keeper)
    g.press(W, 0)  # (the clock starts: black to move)
    g.at(1).feed(Transition(g.t, 11, False))
    g.wait(10)
    (ask,) = [v for v in g.out if isinstance(v, Report) and v.kind is ReportKind.SENSOR_CONFIRM]
    assert "in the hand" in ask.message
    assert g.keeper.clock.running is B and g.left(B) == 300 - 11


def test_replay_of_the_log_gives_the_same_times() -> None:
    rnd = random.Random(7)
    g = Game("5+3", mode="tournament").press(B, 0)
    moves = [("c3", "d4"), ("f6", "e5"), ("b2", "c3"), ("g7", "f6")]
    for (a, b), side in zip(moves, [W, B, W, B], strict=True):
        g.move(f"-{a}", f"+{b}", dt=rnd.uniform(0.3, 20)).press(side, rnd.uniform(0.1, 2))
    header = LogHeader(variant="brazilian", mode="tournament", extra={"clock": "5+3"})
    text = dump_log(header, g.events)
    h, events = parse_log(text.splitlines())
    ref = Referee("brazilian", mode="tournament")
    keeper = ClockKeeper.from_header(h.to_json(), ref)
    assert keeper is not None
    pipe = Pipeline(ref, 0.0, keeper)
    out = pipe.run(events)
    live = [v.clock for v in g.out if isinstance(v, MoveMade)]
    assert [v.clock for v in out if isinstance(v, MoveMade)] == live
    assert [(s.white, s.black, s.running, s.took) for s in keeper.stamps] == [
        (s.white, s.black, s.running, s.took) for s in g.keeper.stamps
    ]
    assert pipe.pdn_game().pdn() == g.pipe.pdn_game().pdn()


def test_pdn_clock_round_trip() -> None:
    g = Game("21").press(B, 0)
    g.move("-c3", "+d4", dt=30).press(W, 0.5)  # 60.5 s: 19:59.5 shows 20:00
    g.move("-f6", "+e5", dt=40).press(B, 1)  # 81 s
    text = g.pipe.pdn_game().pdn()
    assert "1. c3-d4 {[%clock w0:20:00 B0:21:00]} 1... f6-e5 {[%clock W0:20:00 b0:19:39]}" in text
    back = read_game(text)
    assert [pm.clock for pm in back.moves] == [s.pdn() for s in g.keeper.stamps]
    assert back.tags["TimeControl"] == "1260"


def test_no_drift_over_a_two_hour_game() -> None:
    """Thousands of presses at awkward times: the clocks are exactly the sums of the events."""
    rnd = random.Random(3)
    c = Clock(parse_control("120+0"))
    c.start(W, 0)
    t = Decimal(0)
    spent = {W: Decimal(0), B: Decimal(0)}
    for _ in range(5000):
        side = c.running
        assert side is not None
        dt = Decimal(f"{rnd.uniform(0.0001, 1.8):.4f}")
        t += dt
        c.press(side, ticks(float(t)))
        spent[side] += dt
    assert t > 3600
    for side in (W, B):  # decimal arithmetic on the log's times is the oracle
        assert c.remaining(side, ticks(float(t))) == int((120 * 60 - spent[side]) * TICKS)


def test_log_refuses_bad_clock_lines() -> None:
    cases = [
        ('{"clock": "5+"}', "cannot read '5+'"),
        ('{"t": 1, "action": "clock"}', "clock needs 'side'"),
        ('{"t": 1, "action": "clock", "side": "white", "source": "elbow"}', "unknown clock source 'elbow'"),
        ('{"t": 1, "action": "clock-adjust"}', "clock-adjust needs 'white' or 'black'"),
        ('{"t": 1, "action": "clock-adjust", "white": -1}', "must be seconds"),
        ('{"clock_auto": "yes"}', "'clock_auto' must be true or false"),
    ]
    for line, why in cases:
        with pytest.raises(LogError) as exc:
            parse_log([line])
        assert why in str(exc.value), (line, str(exc.value))
