"""Real and random games played by simulated hands; injected faults; fuzzing."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from board_hal.debounce import Transition
from referee import MoveMade, Pipeline, Referee, Report, ReportKind, Role, Takeback
from referee.core import MAX_EVENTS
from rules import Game, Move, Position
from rules.pdn import load_pdn
from tests.conftest import random_game, shared_path
from tests.referee.hands import Hands, Style, game_log

SEEDS = (0, 1, 2)


def real_games() -> list[tuple[str, Position, list[Move]]]:
    out = []
    for path in sorted(shared_path("games").glob("*/*.pdn")):
        for g in load_pdn(path):
            if not g.moves:
                continue
            game = Game(g.variant, g.start)
            for pm in g.moves:
                if game.outcome() is not None:
                    break  # a record that went on after a draw rule applied (kurnik.pdn game 3)
                game.push(pm.move)
            out.append((f"{path.name}#{g.index}", g.start, list(game.move_stack)))
    return out


def replay(start: Position, events: list[Transition], mode: str = "casual") -> tuple[Referee, list[object]]:
    ref = Referee(start.variant, start.fen(), mode=mode)
    return ref, Pipeline(ref).run(events)


def test_real_games_with_human_hands_reconstruct_exactly() -> None:
    games = real_games()
    assert len(games) >= 120
    plies = 0
    for name, start, moves in games:
        for seed in SEEDS:
            events, _routes = game_log(start, moves, seed)
            _ref, verdicts = replay(start, events)
            made = [v for v in verdicts if isinstance(v, MoveMade)]
            assert [v.move for v in made] == moves, (name, seed)
            assert [set(v.move.captured) for v in made] == [set(m.captured) for m in moves]
            assert not [v for v in verdicts if isinstance(v, (Report, Takeback))], (name, seed)
            plies += len(moves)
    assert plies > len(SEEDS) * 12_000


# -- sloppier hands (issue 17): undone disturbances raise no alarm -----------------------------------
def sloppy_replay(start: Position, moves: list[Move], seed: int, mode: str) -> tuple[Hands, Referee, list[object]]:
    hands = Hands(seed, Style.sloppy())
    pos = start
    for move in moves:
        hands.play(pos, move, hands.rng.random() < hands.style.fast_reply)
        pos = pos.apply(move)
    ref, verdicts = replay(start, hands.events, mode)
    return hands, ref, verdicts


def check_sloppy(name: str, start: Position, moves: list[Move], seed: int, mode: str) -> Hands:
    """Exactly the game; in casual mode no report, in tournament mode only the notices the
    laws call for: touch-move for each movable piece of the side to move that was touched
    (brushed, adjusted) before its move landed, procedure where captured pieces came off
    before the landing or out of jump order."""
    hands, ref, verdicts = sloppy_replay(start, moves, seed, mode)
    assert list(ref.game.move_stack) == moves, (name, seed, mode)
    pdn = ref.pdn_game().pdn()
    assert "/FEN" not in pdn  # no set-up: nothing irregular was accepted
    ply = 0
    touched: set[tuple[int, int]] = set()
    procedure: set[int] = set()
    for v in verdicts:
        if isinstance(v, MoveMade):
            ply = v.ply
        elif isinstance(v, Takeback):
            # only a move read again, same ply: a king's stop read too early and then slid on, or
            # the same travel whose removals told another capture apart
            ply = v.ply - 1
            withdrawn = [m for m in verdicts[: verdicts.index(v)] if isinstance(m, MoveMade) and m.ply == v.ply][-1]
            nxt = verdicts[verdicts.index(v) + 1]
            assert isinstance(nxt, MoveMade) and nxt.ply == v.ply, (name, seed, mode)
            assert withdrawn.move.from_square == nxt.move.from_square, (name, seed, v)
            piece = ref.game.positions()[v.ply - 1].piece_at(nxt.move.from_square)
            same_travel = withdrawn.move.to_square == nxt.move.to_square
            assert same_travel or (piece is not None and piece.king), (name, seed, v)
        elif isinstance(v, Report):
            assert mode == "tournament", (name, seed, v)
            if v.kind is ReportKind.TOUCH_MOVE:
                touched.add((ply, v.params["touched"]))
            else:
                assert v.kind is ReportKind.PROCEDURE, (name, seed, v)
                procedure.add(ply)
    assert touched == (set(hands.touches) if mode == "tournament" else set()), (name, seed)
    assert procedure <= set(hands.out_of_order), (name, seed)
    return hands


SLOPPY_SEEDS = (0, 1)


@pytest.mark.parametrize("mode", ["casual", "tournament"])
def test_real_games_with_sloppy_hands_quick(mode: str) -> None:
    """Every fourth real game, two seeds (the slow campaign runs them all)."""
    games = real_games()[::4]
    made: Counter[str] = Counter()
    for name, start, moves in games:
        for seed in SLOPPY_SEEDS:
            made += check_sloppy(name, start, moves, seed, mode).counts
    assert min(made[k] for k in ("sleeve", "dropout", "drag", "mistake")) >= 20, made


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("mode", ["casual", "tournament"])
def test_real_games_with_sloppy_hands_every_game(mode: str, seed: int) -> None:
    games = real_games()
    assert len(games) >= 120
    for name, start, moves in games:
        check_sloppy(name, start, moves, seed, mode)


def test_the_sloppy_hands_make_every_disturbance_of_issue_17() -> None:
    """The model really does what it claims: brushes of 70-300 ms, dropouts of a few ms,
    kings resting 0.15-0.45 s on the squares they cross, wrong pieces put back within 1 s."""
    _name, start, moves = next(g for g in real_games() if "lidraughts-international" in g[0])
    hands, _ref, _v = sloppy_replay(start, moves, 3, "casual")
    off: dict[object, float] = {}
    spans: list[float] = []
    for ev in hands.events:
        if not ev.occupied:
            off[ev.key] = ev.t
        elif ev.key in off:
            spans.append(ev.t - off.pop(ev.key))
    assert any(s < 0.01 for s in spans)  # dropouts (and bounces)
    assert any(0.07 <= s <= 0.3 for s in spans)  # brushes
    assert any(0.4 <= s <= 1.0 for s in spans)  # wrong pieces picked up during the removals
    assert hands.touches
    assert all(hands.counts[k] for k in ("sleeve", "dropout", "drag", "mistake")), hands.counts


@pytest.mark.parametrize("order", ["jump", "reverse"])
def test_removals_in_jump_order_in_tournament_mode_give_no_report(order: str) -> None:
    for name, start, moves in real_games()[:20]:
        style = Style(remove_early=0.0, adjust=0.0, removal_order=order)
        events, _ = game_log(start, moves, 5, style)
        _, verdicts = replay(start, events, "tournament")
        assert [v.move for v in verdicts if isinstance(v, MoveMade)] == moves, name
        assert not [v for v in verdicts if isinstance(v, Report)], name


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["brazilian", "international", "portuguese"]), st.integers(0, 10**9))
def test_random_games_reconstruct(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    start, moves = random_game(variant, rng, 200, capture_bias=0.7)
    events, _routes = game_log(start, moves, seed)
    _ref, verdicts = replay(start, events)
    made = [v.move for v in verdicts if isinstance(v, MoveMade)]
    assert made == moves
    assert not [v for v in verdicts if isinstance(v, (Report, Takeback))]


@pytest.mark.parametrize("seed", range(6))
def test_long_king_captures_with_touch_downs_follow_the_hands_route(seed: int) -> None:
    for fen in ("W:WK47:B9,19,28,29,38", "W:WK47:B14,19,29,31,42", "W:WK38:B18,19,32,33", "W:WK2:B7,8,17,18"):
        start = Position.from_fen(fen, "international")
        for move in start.legal_moves:
            style = Style(touchdown=1.0, brush=1.0)
            events, routes = game_log(start, [move], seed, style)
            _ref, verdicts = replay(start, events)
            (made,) = [v for v in verdicts if isinstance(v, MoveMade)]
            assert made.move == move
            assert made.move.path == routes[0].path  # every landing was touched: the route is known


# -- injected faults -----------------------------------------------------------------------------
FAULTS = ["illegal", "missed-capture", "captured-left", "knocked", "takeback"]


@dataclass
class Staged:
    """A fault the hands made, and the report it must get while the board was in the fault's
    state: one of ``options`` (kind, squares, restore guidance: missing, extra)."""

    fault: str
    options: list[tuple[str, tuple[int, ...], tuple[int, ...], tuple[int, ...]]]
    t0: float
    t1: float = 0.0

    def matches(self, r: Report) -> bool:
        return (r.kind.value, r.squares, r.missing, r.extra) in self.options and self.t0 <= r.t <= self.t1


def inject(kind: str, pos: Position, hands: Hands, rng: random.Random) -> Staged | None:
    """Events of a fault, then the board restored; None if the fault cannot be staged here."""
    own = pos.squares(pos.turn)
    empty = [sq for sq in pos.geometry.squares() if pos.piece_at(sq) is None]
    capturers = tuple(sorted({m.from_square for m in pos.legal_moves})) if pos.has_captures() else ()
    if kind == "illegal":  # an own piece put on a square it cannot legally reach
        a = rng.choice(own)
        legal_to = {m.to_square for m in pos.legal_moves if m.from_square == a}
        targets = [b for b in empty if b not in legal_to]
        if not targets:
            return None
        b = rng.choice(targets)
        hands.wait(0.5, 1.0)
        staged = Staged(kind, [], hands.t)
        # a move the law forbids, or a piece that cannot go there; with a capture compulsory, the
        # piece held up (if it cannot capture) or the move (a capture left unfinished on one of its
        # landings too) is a required capture
        ab = tuple(sorted((a, b)))
        staged.options = [("illegal-square", ab, (a,), (b,)), ("backward-man", ab, (a,), (b,))]
        if capturers:
            staged.options += [("required-capture", capturers, (a,), (b,)), ("required-capture", capturers, (a,), ())]
        hands.lift(a)
        hands.wait(0.2, 0.4)
        hands.place(b)
        hands.wait(2.0, 3.0)  # the board settles: reported
        hands.lift(b)
        hands.wait(0.2, 0.4)
        hands.place(a)
        staged.t1 = hands.t
        return staged
    if kind == "missed-capture":  # a capture is compulsory and a piece that cannot capture is lifted
        movers = [a for a in own if a not in capturers]
        if not capturers or not movers:
            return None
        a = rng.choice(movers)
        hands.wait(0.5, 1.0)
        staged = Staged(kind, [("required-capture", capturers, (a,), ())], hands.t)
        hands.lift(a)
        hands.wait(1.5, 2.5)
        hands.place(a)
        staged.t1 = hands.t
        return staged
    if kind == "knocked":  # a group of pieces knocked off their squares, then put back
        group = set(rng.sample(sorted(pos.occupied()), k=min(3, len(pos.occupied()))))
        if any(group <= {m.from_square} | set(m.captured) for m in pos.legal_moves):
            return None  # that is a capture under way, not a fault
        mine = tuple(sorted(group & set(own)))
        lifted = tuple(sorted(group))
        option = ("own-piece-removed", mine, lifted, ()) if mine else ("wrong-piece-removed", lifted, lifted, ())
        hands.wait(0.5, 1.0)
        staged = Staged(kind, [option], hands.t)
        for sq in sorted(group):
            hands.lift(sq)
        hands.wait(2.0, 3.0)
        for sq in sorted(group):
            hands.place(sq)
        staged.t1 = hands.t
        return staged
    return None


def play_leaving_a_captured_piece(pos: Position, move: Move, reply: Move, hands: Hands) -> Staged:
    """The capture lands, one captured piece stays while the opponent lifts a piece; then it comes off."""
    route = pos.routes(move)[0]
    hands.wait(0.5, 1.0)
    t0 = hands.t
    hands.lift(route.from_square)
    hands.wait(0.2, 0.4)
    hands.place(route.to_square)
    left, *rest = route.captured
    for sq in rest:
        hands.wait(0.2, 0.4)
        hands.lift(sq)
    hands.wait(0.3, 0.5)
    hands.lift(reply.from_square)  # the opponent starts moving
    hands.wait(2.0, 3.0)  # the board settles: reported
    hands.lift(left)
    option = ("captured-piece-left", (left,), (reply.from_square,), (left,))
    return Staged("captured-left", [option], t0, hands.t)


@pytest.mark.parametrize("variant", ["brazilian", "international", "portuguese"])
@pytest.mark.parametrize("seed", range(4))
def test_injected_faults_are_reported_never_recorded(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    start, moves = random_game(variant, rng, 60, capture_bias=0.7)
    hands = Hands(seed, Style(adjust=0.0))
    pos = start
    staged: list[Staged] = []
    takebacks_made = 0
    skip: set[int] = set()
    for i, move in enumerate(moves):
        if i in skip:
            continue
        kind = rng.choice(FAULTS)
        if kind == "takeback" and i > 0:
            prev_move = moves[i - 1]
            before = Game(start.variant, start)
            for m in moves[: i - 1]:
                before.push(m)
            # undo the last move with the hands, then play it again
            hands.wait(0.5, 1.0)
            hands.lift(prev_move.to_square)
            hands.wait(0.2, 0.4)
            if prev_move.from_square != prev_move.to_square:
                hands.place(prev_move.from_square)
            for sq in prev_move.captured:
                hands.place(sq)
            hands.wait(0.3, 0.6)
            replayed = hands.play(before.position, prev_move)
            assert replayed == prev_move
            takebacks_made += 1
        elif kind == "captured-left" and move.captured and i + 1 < len(moves) and moves[i + 1].captured == ():
            reply = moves[i + 1]
            if reply.from_square not in move.captured and not set(reply.path) & set(move.captured):
                staged.append(play_leaving_a_captured_piece(pos, move, reply, hands))
                pos = pos.apply(move)
                # the reply goes on from the lifted piece
                hands.wait(0.2, 0.4)
                hands.place(reply.to_square)
                pos = pos.apply(reply)
                skip.add(i + 1)
                continue
        elif fault := inject(kind, pos, hands, rng):
            staged.append(fault)
        hands.play(pos, move)
        pos = pos.apply(move)
    ref, verdicts = replay(start, hands.events)
    made = [v for v in verdicts if isinstance(v, MoveMade)]
    # every fault was reported or withdrawn, never kept: the game is exactly the one played
    assert list(ref.game.move_stack) == moves
    reports = [v for v in verdicts if isinstance(v, Report)]
    takebacks = [v for v in verdicts if isinstance(v, Takeback)]
    assert len(staged) >= 3
    for fault in staged:  # each fault got its own report: its kind, its squares, its guidance
        assert any(fault.matches(r) for r in reports), (fault, [r for r in reports if fault.t0 <= r.t <= fault.t1])
    for r in reports:  # and nothing else was reported
        assert r.kind.value == "restored" or any(f.matches(r) for f in staged), r
    assert len(takebacks) == takebacks_made
    assert len(made) == len(moves) + takebacks_made


# -- fuzzing -----------------------------------------------------------------------------------------
@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    st.sampled_from(["brazilian", "international", "portuguese"]),
    st.sampled_from(["casual", "tournament"]),
    st.lists(st.tuples(st.floats(0, 3), st.integers(1, 50), st.booleans()), max_size=120),
)
def test_random_event_streams_never_crash_or_record_an_illegal_move(
    variant: str, mode: str, stream: list[tuple[float, int, bool]]
) -> None:
    ref = Referee(variant, mode=mode)
    pipe = Pipeline(ref)
    n = ref.position.geometry.count
    t = 0.0
    verdicts = []
    for dt, sq, occ in stream:
        t += dt
        verdicts += pipe.feed(Transition(t, (sq - 1) % n + 1, occ))
        ref.led_intents()
    verdicts += pipe.finish()
    # the recorded game replays legally from its start, set-ups included
    g = Game(ref.variant)
    for entry in ref.game.history():
        if isinstance(entry, Position):
            g.setup(entry)
        else:
            g.push(entry)
    assert g.position == ref.game.position
    assert mode == "tournament" or not any(isinstance(e, Position) for e in ref.game.history())


@pytest.mark.parametrize("seed", [3, 4])
def test_a_long_random_stream_keeps_the_referee_bounded_and_in_step(seed: int) -> None:
    """5,000 random events: the referee sees exactly what the debouncer settled, keeps a bounded
    memory of them (it once kept every event since the board last matched: each event slower
    than the last), and once the board is put back as the game stands, no alarm remains."""
    rng = random.Random(seed)
    ref = Referee("international")
    pipe = Pipeline(ref)
    t = 0.0
    longest = 0
    for _ in range(5000):
        t += rng.uniform(0, 0.5)
        pipe.feed(Transition(t, rng.randint(1, 50), rng.random() < 0.5))
        longest = max(longest, len(ref.events))
    pipe.finish(t + 1)
    assert longest <= MAX_EVENTS
    assert ref.occupied == {sq for sq, on in pipe.debouncer.stable.items() if on}
    assert len(ref.reports) > 10  # the chaos was reported
    for _ in range(10):  # put the board back as the game stands (which may complete a move)
        e = ref.position.occupied()
        if ref.occupied == e:
            break
        for sq in sorted(ref.occupied - e) + sorted(e - ref.occupied):
            t += 0.4
            pipe.feed(Transition(t, sq, sq in e))
        t += 2
        pipe.advance(t)
    assert ref.occupied == ref.position.occupied()
    assert ref.report is None
    roles = {i.role for i in ref.led_intents()}
    assert not roles & {Role.ERROR, Role.MISSING, Role.EXTRA, Role.MUST_CAPTURE}
