"""The search: iterative deepening negamax with principal-variation search, aspiration
windows at the root, late-move reductions and, in International, forward pruning (Scan's).

It works on the rules engine's bitboards (:meth:`rules.engine.Engine.moves`) and keeps
the game's draw rules inside the tree: repetition (the game's history plus the path
searched; a cycle inside the search counts as a draw at once), the kings-only count and
the variant's small-ending counts, exactly as :class:`rules.Game` applies them. A draw
scores 0, so the side ahead steers clear of it and the side behind walks into it.

Captures are compulsory, so the quiescence search is simply: at depth 0, while the side to
move has captures, search them all (no stand-pat); otherwise evaluate.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.evaluate import evaluator_for
from engine.levels import Level, level_settings
from engine.tt import EXACT, LOWER, NO_MOVE, SCORE_OFF, UPPER, TranspositionTable
from rules import Color, EndingRule, Game, Move, Position, Variant, find_variant, geometry_for
from rules.engine import RawMove, engine_for
from rules.geometry import DOWN, UP

if TYPE_CHECKING:  # (engine.endgame is imported when databases are given: python -m engine.endgame runs it)
    from engine.endgame import Databases

MATE = 100_000
MATE_BOUND = MATE - 1_000
INF = 1_000_000
MAX_PLY = 120
_CHECK_EVERY = 63  # nodes between looks at the clock and the stop event (a mask)
#: no threat extension at the horizon beyond this ply
_THREAT_PLIES = 48
#: ... and beyond the iteration's depth plus this (-1: never; 0 lost 57.5 % v 65 % without, 20 games
#: each against py-draughts' TurboEngine at 0.1 s: the depth it costs outweighs the shots it sees;
#: after the search got cheaper, 0 scored 55 % (+13 =18 -9) in self-play against -1: not clear)
_THREAT_EXTRA = -1
#: forward pruning, by variant: the bar's height per ply of depth (none: no pruning). International
#: prunes at 10 (Scan's and TurboEngine's bar): with the fitted table it scored 77.6 % of 250 games
#: against TurboEngine at 0.2 s of CPU a move (the same search without it 74.2 % of 250). With the
#: hand-set table it had shown no gain (12 scored 42.5 % in self-play, 0.1 s, 40 games; 10 56.2 %
#: of 96 against TurboEngine); the 8x8 variants are not measured with it, so they do not prune.
_PRUNE_MARGIN: dict[str, int] = {"international": 10}
#: late-move reductions (quiet moves at a null window): from this depth, after this many moves,
#: one ply; two plies from ``_LMR2_DEPTH`` after ``_LMR2_AFTER`` moves (0: never).
#: Tried in self-play, International, 0.1 s a move, 40 games each against these defaults (none
#: won clearly, so none is kept): _LMR2_DEPTH 5 scored 51 %, _LMR_DEPTH 2 50 %, _LMR_AFTER 2 52.5 %
_LMR_DEPTH = 3
_LMR_AFTER = 3
_LMR2_DEPTH = 0
_LMR2_AFTER = 6
#: on a cut by a quiet move, the quiet moves tried before it lose this share of the bonus (0: none)
#: (50 with _HISTORY_AGE 4 scored 46 % in the same trial)
_HISTORY_MALUS = 0
#: each search starts from the last one's history divided by this (1: kept as it is)
_HISTORY_AGE = 1
#: a single legal move costs no depth: 2 any, 1 only a plain move (not a capture), 0 never.
#: 1 and 0 reach a fixed depth four times sooner but miss shots at the tactics' depths; in games
#: (same trial) 1 lost, 0 scored 52.5 %
_EXTEND_FORCED = 2
#: the aspiration window's half-width around the last iteration's score (0: none)
_ASPIRATION = 20
#: plies from the kings-only limit within which the count is part of the table's key
_COUNT_HORIZON = 48
#: a node's empty principal variation (shared: the table's rows are replaced, never changed)
_NO_PV: list[RawMove] = []


def _capture_order(raw: RawMove) -> int:
    """Captures first that take the most, then those that crown."""
    return raw[2].bit_count() * 2 + raw[3]


class _Stop(Exception):
    """Raised inside the tree to unwind when the search must stop."""


@dataclass(frozen=True)
class Limits:
    """What bounds a search. Times are seconds; nothing set means the level's own time.

    ``time`` (with ``inc``) is the clock's remaining time: sudden death, or Fischer when
    ``inc`` is set (the increment counts before the move); with ``moves`` it is the time for
    that many moves (moves in time).
    """

    depth: int | None = None
    move_time: float | None = None
    time: float | None = None
    inc: float = 0.0
    moves: int | None = None
    infinite: bool = False
    nodes: int | None = None

    def budget(self) -> tuple[float, float] | None:
        """(soft, hard) seconds: no new iteration after ``soft``, stop at ``hard``.

        A move time is used in full (``soft == hard``): the time is the move's anyway, and an
        iteration cut short still counts (the root moves it finished)."""
        if self.infinite:
            return None
        if self.move_time is not None:
            hard = max(0.005, self.move_time * 0.97 - 0.005)
            return (hard, hard)
        if self.time is not None:
            avail = max(0.0, self.time) + max(0.0, self.inc)
            togo = max(1, self.moves) if self.moves else 30
            if togo == 1:
                hard = max(0.005, avail * 0.9 - 0.05)
                return (hard * 0.6, hard)
            soft = avail / togo
            hard = max(0.005, min(avail * 0.5, soft * 3) - 0.02)
            return (min(soft, hard), hard)
        return None


@dataclass(frozen=True)
class SearchInfo:
    """One finished iteration: what the GUI's ``info`` line shows."""

    depth: int
    score: int  # hundredths of a man, for the side to move; beyond ±MATE_BOUND: a forced win/loss
    nodes: int
    time: float
    pv: tuple[Move, ...]


@dataclass(frozen=True)
class SearchResult:
    """The move to play (None only in a finished game) and what the search saw."""

    move: Move | None
    score: int
    depth: int
    nodes: int
    pv: tuple[Move, ...] = field(default=())
    time: float = 0.0

    @property
    def ponder(self) -> Move | None:
        """The reply the search expects (the second move of the principal variation)."""
        return self.pv[1] if len(self.pv) > 1 else None


def mate_in(score: int) -> int | None:
    """Plies to the end of the game for a forced-win/loss score, else None."""
    if abs(score) < MATE_BOUND:
        return None
    return MATE - abs(score)


class Engine:
    """A draughts engine for one variant.

    >>> from rules import Game
    >>> eng = Engine("brazilian", level=3, seed=1)
    >>> result = eng.search(Game("brazilian"), Limits(depth=2))
    >>> result.move in Game("brazilian").legal_moves
    True
    """

    def __init__(self, variant: Variant | str, *, level: int = 10, seed: int | None = None, tt_mb: float = 64) -> None:
        self.variant = find_variant(variant)
        self.level: Level = level_settings(level, self.variant)
        self.seed = seed
        self.rng = random.Random(seed)
        self.tt = TranspositionTable(tt_mb)
        self.rules = engine_for(self.variant)
        self.geo = geometry_for(self.variant)
        self.evaluator = evaluator_for(self.variant)
        #: endgame databases (8x8; :func:`engine.endgame.open_databases`), probed inside the tree
        self.endgame: Databases | None = None
        self._probed: Databases | None = None  # the databases this level probes
        zr = random.Random(0x5EED_DA3A5)  # fixed: the same keys in every run, hence reproducible
        nb = self.geo.nbits
        # [white man, white king, black man, black king][bit]
        self.zobrist: tuple[tuple[int, ...], ...] = tuple(
            tuple(zr.getrandbits(64) for _ in range(nb)) for _ in range(4)
        )
        self.z_side = zr.getrandbits(64)
        self.z_count = tuple(zr.getrandbits(64) for _ in range(256))
        self.z_quiet = tuple(zr.getrandbits(64) for _ in range(256))
        offs = self.geo.offsets
        cap_dirs = ((0, 1, 2, 3), (0, 1, 2, 3)) if self.variant.men_capture_backward else (UP, DOWN)
        self._man_cap_offsets = tuple(tuple(offs[d] for d in dirs) for dirs in cap_dirs)
        self._fwd_offsets = self.rules.fwd_offsets
        # the two diagonal steps as positive shifts, and whether men capture both ways (then
        # the test for a capture is one expression)
        self._steps = (abs(offs[0]), abs(offs[1]))
        self._men_back = self.variant.men_capture_backward
        self._mask = self.geo.mask
        self._draw_quiet = 4
        v = self.variant
        self._prune = _PRUNE_MARGIN.get(v.name, 0)
        self.rep_limit = v.repetition_count
        self.kings_only_limit = 2 * v.kings_only_moves
        self._endings: dict[tuple[int, int, int, int], tuple[int, int, int]] = {}
        self._ending_limits: tuple[int, ...] = ()
        self._ending_max_pieces = 0
        self._set_endings(v.endings)
        self._soft: float | None = None
        self._hard: float | None = None
        self._node_limit: int | None = None
        self.history = [0] * (64 * 64)
        self.killers: list[list[tuple[int, int] | None]] = [[None, None] for _ in range(MAX_PLY + 2)]

    # -- public API ---------------------------------------------------------------------------------
    def new_game(self) -> None:
        """Forget what earlier searches learnt (transposition table, history, killers)."""
        self.tt.clear()
        self.history = [0] * (64 * 64)

    def set_level(self, level: int) -> None:
        self.level = level_settings(level, self.variant)
        self._use_databases()

    def set_databases(self, databases: Databases | None) -> None:
        """Probe these endgame databases in the search (None: none). A database's win counts
        where it fits within the draw rules' counts running at the probe (:func:`fits`);
        elsewhere the search goes on as without."""
        if databases is not None and databases.variant is not self.variant:
            raise ValueError(f"{databases.variant.name} databases for a {self.variant.name!r} engine")
        from engine.endgame import fits

        self._fits = fits
        self.endgame = databases
        self._use_databases()

    def _use_databases(self) -> None:
        """A level that errs (1-6) plays without the databases, as its games measured it;
        the levels that play their best (7-10) probe them."""
        probed = self.endgame if not self.level.noise else None
        if probed is not self._probed:
            self._probed = probed
            self.tt.clear()  # its scores were found with or without them

    def search(
        self,
        game: Game | Position,
        limits: Limits | None = None,
        stop_event: threading.Event | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        ponder_hit: threading.Event | None = None,
    ) -> SearchResult:
        """The best move found within ``limits`` and the engine's level.

        ``stop_event`` (set from any thread) ends the search at once: the best move so far is
        returned. With ``ponder_hit``, the search ignores its time budget until the event is
        set, then counts the time from that moment (pondering).
        """
        if isinstance(game, Position):
            game = Game(game.variant, game)
        if game.variant is not self.variant:
            raise ValueError(f"a {game.variant.name!r} game for a {self.variant.name!r} engine")
        start = time.monotonic()
        self._prepare(game, limits, stop_event, ponder_hit, start)
        if game.outcome() is not None:
            return SearchResult(None, 0, 0, 0, (), 0.0)
        pos = game.position
        om, ok, xm, xk, side = self._sides(pos)
        root_moves = self.rules.moves(om, ok, xm, xk, side)
        if not root_moves:
            return SearchResult(None, -MATE, 0, 0, (), 0.0)
        level = self.level
        max_depth = level.depth
        if limits is not None and limits.depth is not None:
            max_depth = min(max_depth, max(1, limits.depth))
        max_depth = min(max_depth, MAX_PLY - 10)
        bounded = self._hard is not None or self._node_limit is not None
        if len(root_moves) == 1 and bounded and ponder_hit is None:
            max_depth = 1  # nothing to think about
        key = self._key(om, ok, xm, xk, side)
        best = root_moves[0]
        best_score = 0
        best_pv: list[RawMove] = [best]
        depth_done = 0
        order = list(range(len(root_moves)))
        scores: list[int] = [0] * len(root_moves)
        fail_high: tuple[RawMove, int, list[RawMove]] | None = None
        try:
            for depth in range(1, max_depth + 1):
                self._threat_ply = min(_THREAT_PLIES, depth + _THREAT_EXTRA) if _THREAT_EXTRA >= 0 else -1
                # aspiration: a window around the last score, widened on a fail (at the root a
                # fail high is a better move found; a fail low, a search again wider)
                delta = _ASPIRATION
                if depth >= 4 and abs(best_score) < MATE_BOUND and delta:
                    lo, hi = best_score - delta, best_score + delta
                else:
                    lo, hi = -INF, INF
                fail_high = None
                while True:
                    score, order, pv = self._root(depth, root_moves, order, om, ok, xm, xk, side, key, scores, lo, hi)
                    if score <= lo:
                        lo = -INF if delta > 4 * _ASPIRATION else score - delta
                    elif score >= hi:
                        hi = INF if delta > 4 * _ASPIRATION else score + delta
                        fail_high = self._iter_best  # a better move: kept if the time runs out
                    else:
                        break
                    delta *= 3
                best, best_score, best_pv, depth_done = root_moves[order[0]], score, pv, depth
                if on_info is not None:
                    on_info(SearchInfo(depth, score, self.nodes, time.monotonic() - start, self._pv_moves(best_pv)))
                if mate_in(score) is not None and depth >= (mate_in(score) or 0) + 1:
                    break
                pondering = self._ponder_hit is not None and not self._ponder_hit.is_set()
                if self._soft is not None and not pondering and self._elapsed() >= self._soft:
                    break
        except _Stop:
            del self.keys[self.root_index + 1 :]  # the path the search was on when it stopped
            if self._iter_best is not None:
                best, best_score, best_pv = self._iter_best
            elif fail_high is not None:
                best, best_score, best_pv = fail_high
        if level.noise > 0 and len(root_moves) > 1 and depth_done >= 1:
            # the error is what makes the level: it is applied even when the clock ran out
            # (the rescoring is shallow), and only a stop request cuts it short
            self._hard = None
            self._node_limit = None
            best, best_score, best_pv = self._noisy_choice(root_moves, depth_done, om, ok, xm, xk, side, key, best)
        elapsed = time.monotonic() - start
        return SearchResult(self._to_move(best), best_score, depth_done, self.nodes, self._pv_moves(best_pv), elapsed)

    # -- set-up --------------------------------------------------------------------------------------
    def _set_endings(self, endings: tuple[EndingRule, ...]) -> None:
        """The material balances of the small-ending rules, first match first (as Game)."""
        table: dict[tuple[int, int, int, int], tuple[int, int, int]] = {}
        bit = self.geo.bit_of_square
        self._ending_max_pieces = 0
        for i, rule in enumerate(endings):
            sqmask = sum(1 << bit[s] for s in rule.counted_from_squares)
            for sk, sm, k, m in rule.material:
                for strong, mat in ((0, (sk, sm, k, m)), (1, (k, m, sk, sm))):
                    table.setdefault(mat, (i, strong, sqmask))
                    self._ending_max_pieces = max(self._ending_max_pieces, sk + sm + k + m)
        self._endings = table
        self._ending_limits = tuple(2 * rule.moves for rule in endings)

    def _prepare(
        self,
        game: Game,
        limits: Limits | None,
        stop_event: threading.Event | None,
        ponder_hit: threading.Event | None,
        start: float,
    ) -> None:
        self.nodes = 0
        ev = self.evaluator  # (bound once a search: the leaves call it)
        self._evaluate: Callable[[int, int, int, int, int], int] = ev._evaluate_w if ev.weighted else ev.evaluate
        self._stop_event = stop_event
        self._ponder_hit = ponder_hit
        self._start = start
        self._iter_best: tuple[RawMove, int, list[RawMove]] | None = None
        self._threat_ply = -1
        # the level's own bound is a node count, not a time: the same on any machine, under
        # any load; a clock given by the caller bounds the time too (never exceeded)
        budget = None
        nodes = self.level.nodes
        if limits is not None and (
            limits.infinite or limits.depth is not None or limits.nodes is not None or limits.budget() is not None
        ):
            budget = limits.budget()
            nodes = limits.nodes
        self._soft = budget[0] if budget is not None else None
        self._hard = budget[1] if budget is not None else None
        self._node_limit = nodes
        self.game_rep_limit = game.repetition_count
        self.game_kings_only = 2 * game.kings_only_moves
        # below this many reversible plies no draw rule but the small endings' can count
        self._draw_quiet = min(4, self.game_kings_only) if self.game_kings_only else 4
        if game.endings is not self.variant.endings:
            self._set_endings(game.endings)
        else:
            self._set_endings(self.variant.endings)
        # the history as Zobrist keys, and the draw-rule counters of the current position
        keys: list[int] = []
        floor = 0
        quiet = 0
        ending: tuple[int, int] | None = None
        positions = game.positions()
        entries = game.history()
        prev_pos: Position | None = None
        for i, p in enumerate(positions):
            om, ok, xm, xk, side = self._sides(p)
            keys.append(self._key(om, ok, xm, xk, side))
            entry = entries[i - 1] if i > 0 else None
            if entry is None or isinstance(entry, Position):
                floor = i
                quiet = 0
                ending = self._ending_next(p.wm, p.wk, p.bm, p.bk, None, False)
            else:
                assert prev_pos is not None
                piece = prev_pos.piece_at(entry.from_square)
                irreversible = bool(entry.captured) or (piece is not None and not piece.king)
                quiet = 0 if irreversible else quiet + 1
                ending = self._ending_next(p.wm, p.wk, p.bm, p.bk, ending, bool(entry.captured))
            prev_pos = p
        self.keys = keys
        self.floor = floor
        self.root_index = len(keys) - 1
        self.root_quiet = quiet
        self.root_ending = ending
        self.pv_table: list[list[RawMove]] = [[] for _ in range(MAX_PLY + 2)]
        if _HISTORY_AGE > 1:
            self.history = [h // _HISTORY_AGE for h in self.history]
        self.killers = [[None, None] for _ in range(MAX_PLY + 2)]

    @staticmethod
    def _sides(pos: Position) -> tuple[int, int, int, int, int]:
        if pos.turn is Color.WHITE:
            return pos.wm, pos.wk, pos.bm, pos.bk, 0
        return pos.bm, pos.bk, pos.wm, pos.wk, 1

    def _key(self, om: int, ok: int, xm: int, xk: int, side: int) -> int:
        z = self.zobrist
        key = 0
        for table, mask in ((z[2 * side], om), (z[2 * side + 1], ok), (z[2 - 2 * side], xm), (z[3 - 2 * side], xk)):
            while mask:
                low = mask & -mask
                key ^= table[low.bit_length() - 1]
                mask ^= low
        return key ^ self.z_side if side else key

    def _ending_next(
        self, wm: int, wk: int, bm: int, bk: int, prev: tuple[int, int] | None, captured: bool
    ) -> tuple[int, int] | None:
        """The small-ending counter after a move, as :class:`rules.Game` keeps it."""
        if not self._endings:
            return None
        entry = self._endings.get((wk.bit_count(), wm.bit_count(), bk.bit_count(), bm.bit_count()))
        if entry is None:
            return None
        i, strong, sqmask = entry
        if prev is not None and prev[0] == i and not captured:
            return (i, prev[1] + 1)
        if sqmask and not ((wk if strong == 0 else bk) & sqmask):
            return None
        return (i, 0)

    # -- the clock ----------------------------------------------------------------------------------
    def _elapsed(self) -> float:
        return time.monotonic() - self._start

    def _check(self) -> None:
        ev = self._stop_event
        if ev is not None and ev.is_set():
            raise _Stop
        ph = self._ponder_hit
        if ph is not None:
            if not ph.is_set():
                return
            # pondering is over: the clock starts now, and the node count
            self._ponder_hit = None
            self._start = time.monotonic()
            if self._node_limit is not None:
                self._node_limit += self.nodes
        if self._node_limit is not None and self.nodes >= self._node_limit:
            raise _Stop
        if self._hard is not None and time.monotonic() - self._start >= self._hard:
            raise _Stop

    # -- moves ----------------------------------------------------------------------------------------
    def _to_move(self, raw: RawMove) -> Move:
        sq = self.geo.square_of_bit
        o, d, _cm, promotes, routes = raw
        if routes is None:
            return Move((sq[o], sq[d]), (), promotes)
        path, caps = routes[0]
        return Move(tuple(sq[b] for b in path), tuple(sq[b] for b in caps), promotes)

    def _pv_moves(self, pv: list[RawMove]) -> tuple[Move, ...]:
        return tuple(self._to_move(r) for r in pv)

    def _make(
        self, raw: RawMove, om: int, ok: int, xm: int, xk: int, side: int, key: int
    ) -> tuple[int, int, int, int, int, bool]:
        """The child (from the opponent's view: own and opposing swapped), its key, and
        whether the move was irreversible (a man moved or something was captured)."""
        o, d, cm, promotes, _r = raw
        ob, db = 1 << o, 1 << d
        z = self.zobrist
        zc = 2 * side
        if om & ob:
            if promotes:
                om ^= ob
                ok |= db
                key ^= z[zc][o] ^ z[zc + 1][d]
            else:
                om = (om & ~ob) | db  # (not ^: a capture may end on the square it started from)
                key ^= z[zc][o] ^ z[zc][d]
            irreversible = True
        else:
            ok = (ok & ~ob) | db
            key ^= z[zc + 1][o] ^ z[zc + 1][d]
            irreversible = False
        if cm:
            irreversible = True
            zo = 2 - zc
            c = cm
            while c:
                low = c & -c
                b = low.bit_length() - 1
                c ^= low
                key ^= z[zo][b] if xm & low else z[zo + 1][b]
            xm &= ~cm
            xk &= ~cm
        return xm, xk, om, ok, key ^ self.z_side, irreversible

    # -- the tree ---------------------------------------------------------------------------------------
    def _root(
        self,
        depth: int,
        moves: list[RawMove],
        order: list[int],
        om: int,
        ok: int,
        xm: int,
        xk: int,
        side: int,
        key: int,
        scores: list[int],
        alpha: int = -INF,
        beta: int = INF,
    ) -> tuple[int, list[int], list[RawMove]]:
        best_i = order[0]
        best_pv: list[RawMove] = [moves[best_i]]
        self._iter_best = None
        for n, i in enumerate(order):
            raw = moves[i]
            score = self._child(
                raw, depth, 1, alpha, beta, om, ok, xm, xk, side, key, self.root_quiet, self.root_ending, n == 0
            )
            scores[i] = score
            if score > alpha:
                alpha = score
                best_i = i
                best_pv = [raw, *self.pv_table[1]]
                self._iter_best = (raw, score, best_pv)
                if alpha >= beta:
                    break
        # the best move first, the rest by their scores (bounds) in this iteration
        rest = sorted((i for i in order if i != best_i), key=lambda i: -scores[i])
        return alpha, [best_i, *rest], best_pv

    def _child(
        self,
        raw: RawMove,
        depth: int,
        ply: int,
        alpha: int,
        beta: int,
        om: int,
        ok: int,
        xm: int,
        xk: int,
        side: int,
        key: int,
        quiet: int,
        ending: tuple[int, int] | None,
        first: bool,
        reduce: int = 0,
    ) -> int:
        """Play ``raw``, search the child with PVS (null window unless ``first``), undo."""
        cm_, ck_, nm, nk, ckey, irrev = self._make(raw, om, ok, xm, xk, side, key)
        nquiet = 0 if irrev else quiet + 1
        nending = ending
        if self._endings:
            if side == 0:
                wm, wk, bm, bk = nm, nk, cm_, ck_
            else:
                wm, wk, bm, bk = cm_, ck_, nm, nk
            if (wm | wk | bm | bk).bit_count() <= self._ending_max_pieces:
                nending = self._ending_next(wm, wk, bm, bk, ending, bool(raw[2]))
            else:
                nending = None
        keys = self.keys
        keys.append(ckey)
        try:
            nd = depth - 1
            if first:
                return -self._negamax(nd, ply, -beta, -alpha, cm_, ck_, nm, nk, 1 - side, ckey, nquiet, nending)
            score = -self._negamax(
                nd - reduce, ply, -alpha - 1, -alpha, cm_, ck_, nm, nk, 1 - side, ckey, nquiet, nending
            )
            if score > alpha and reduce:
                score = -self._negamax(nd, ply, -alpha - 1, -alpha, cm_, ck_, nm, nk, 1 - side, ckey, nquiet, nending)
            if alpha < score < beta:
                score = -self._negamax(nd, ply, -beta, -alpha, cm_, ck_, nm, nk, 1 - side, ckey, nquiet, nending)
            return score
        finally:
            keys.pop()

    def _is_draw(self, key: int, quiet: int, ending: tuple[int, int] | None) -> bool:
        if ending is not None and ending[1] >= self._ending_limits[ending[0]]:
            return True
        if self.game_kings_only and quiet >= self.game_kings_only:
            return True
        if quiet >= 4 and self.game_rep_limit:
            keys = self.keys
            last = len(keys) - 1
            lowest = max(self.floor, last - quiet)
            seen = 1
            root = self.root_index
            for i in range(last - 4, lowest - 1, -2):
                if keys[i] == key:
                    if i >= root:
                        return True  # a cycle inside the search: it can be repeated
                    seen += 1
                    if seen >= self.game_rep_limit:
                        return True
        return False

    def _probe(
        self,
        db: Databases,
        ply: int,
        om: int,
        ok: int,
        xm: int,
        xk: int,
        side: int,
        quiet: int,
        ending: tuple[int, int] | None,
    ) -> int | None:
        """The database's score of a position: a draw, or a win or loss in so many plies where
        it fits within the draw counts running now; None where it does not say."""
        hit = db.probe(om, ok, xm, xk, side)
        if hit is None:
            return None
        result, plies = hit
        if not result:
            return 0
        if not self._fits(plies, quiet, self.game_kings_only, ending, self._ending_limits):
            return None
        return MATE - ply - plies if result > 0 else -(MATE - ply - plies)

    def _threatened(self, om: int, ok: int, xm: int, xk: int, side: int) -> bool:
        """Whether the opponent would have a capture if it were his move."""
        own = om | ok
        empty = self.geo.mask & ~(own | xm | xk)
        if xm:
            for off in self._man_cap_offsets[1 - side]:
                if off > 0:
                    if xm & (own >> off) & (empty >> (off + off)):
                        return True
                elif xm & (own << -off) & (empty << -(off + off)):
                    return True
        if xk:
            rays = self.geo.rays
            flying = self.variant.flying_kings
            k = xk
            while k:
                low = k & -k
                k ^= low
                for ray in rays[low.bit_length() - 1]:
                    n = len(ray)
                    j = 0
                    while j < n and (empty >> ray[j]) & 1 and flying:
                        j += 1
                    if j + 1 < n and (own >> ray[j]) & 1 and (empty >> ray[j + 1]) & 1:
                        return True
        return False

    def _tt_key(self, key: int, quiet: int, ending: tuple[int, int] | None) -> int:
        """The table's key: the position, plus the draw-rule counts where they can matter.

        The small-ending count is always part of it (its limits are short). The kings-only
        count is part of it once the limit is within reach of a search (``_COUNT_HORIZON``
        plies): further away, no tree reaches the limit and the count does not change a score,
        so the king manoeuvres that transpose still share their entries."""
        if ending is not None:
            key ^= self.z_count[min(ending[1], 255)]
        limit = self.game_kings_only
        if limit and quiet and limit - quiet <= _COUNT_HORIZON:
            key ^= self.z_quiet[min(quiet, 255)]
        return key

    def _negamax(
        self,
        depth: int,
        ply: int,
        alpha: int,
        beta: int,
        om: int,
        ok: int,
        xm: int,
        xk: int,
        side: int,
        key: int,
        quiet: int,
        ending: tuple[int, int] | None,
    ) -> int:
        if depth <= 0:
            return self._quiesce(ply, alpha, beta, om, ok, xm, xk, side, key, quiet, ending)
        self.nodes += 1
        if not self.nodes & _CHECK_EVERY:
            self._check()
        pv_table = self.pv_table
        pv_table[ply] = _NO_PV
        rules = self.rules
        if (quiet >= self._draw_quiet or ending is not None) and self._is_draw(key, quiet, ending):
            # no legal move loses before any draw rule counts (as rules.Game decides)
            return 0 if rules.moves(om, ok, xm, xk, side) else -MATE + ply
        if ply >= MAX_PLY:
            return self._evaluate(om, ok, xm, xk, side)
        egdb = self._probed
        if egdb is not None and (om | ok | xm | xk).bit_count() <= egdb.max_pieces:
            known = self._probe(egdb, ply, om, ok, xm, xk, side, quiet, ending)
            if known is not None:
                return known
        # the table's key (as _tt_key, inline: this is every interior node)
        tkey = key
        if ending is not None:
            tkey ^= self.z_count[min(ending[1], 255)]
        limit = self.game_kings_only
        if limit and quiet and limit - quiet <= _COUNT_HORIZON:
            tkey ^= self.z_quiet[min(quiet, 255)]
        tt = self.tt
        e = tt.table[tkey & tt.mask]
        tt_move = NO_MOVE
        if e >> 40 == tkey:
            # (tt.probe, inline) a stored position had legal moves (a lost one is never
            # stored), so the probe may come before the move generation
            tt_move = e & 0xFF
            tdepth = (e >> 10) & 0xFF
            if tdepth >= depth and beta - alpha == 1:
                tscore = ((e >> 18) & 0x3FFFFF) - SCORE_OFF
                if tscore >= MATE_BOUND:
                    tscore -= ply
                elif tscore <= -MATE_BOUND:
                    tscore += ply
                tflag = (e >> 8) & 3
                if tflag == EXACT or (tflag == LOWER and tscore >= beta) or (tflag == UPPER and tscore <= alpha):
                    return tscore
        # (rules' moves, with its men_that_capture inline) most positions have no capture
        moves: list[RawMove] | None = None
        if ok:
            moves = rules.captures(om, ok, xm, xk, side)
        else:
            opp = xm | xk
            empty = self._mask & ~(om | opp)
            a, b = self._steps
            if self._men_back:
                if om & (
                    (opp >> a) & (empty >> (a + a))
                    | (opp >> b) & (empty >> (b + b))
                    | (opp << a) & (empty << (a + a))
                    | (opp << b) & (empty << (b + b))
                ):
                    moves = rules.captures(om, ok, xm, xk, side)
            else:
                for off in self._man_cap_offsets[side]:
                    if off > 0:
                        if om & (opp >> off) & (empty >> (off + off)):
                            moves = rules.captures(om, ok, xm, xk, side)
                            break
                    elif om & (opp << -off) & (empty << -(off + off)):
                        moves = rules.captures(om, ok, xm, xk, side)
                        break
        if moves:
            capture = True
        else:
            moves = rules.quiet_moves(om, ok, xm, xk, side)
            if not moves:
                return -MATE + ply
            capture = False
        n = len(moves)
        # the depth the result is stored with: the one asked for (an extended depth would
        # claim a ply more than a later probe at that depth would have searched)
        asked = depth
        # forced moves (one legal move) cost no depth
        if n == 1 and ply < 2 * MAX_PLY // 3 and (_EXTEND_FORCED == 2 or (_EXTEND_FORCED and not capture)):
            depth += 1
        elif self._prune and depth >= 3 and beta - alpha == 1 and not capture and -MATE_BOUND < beta < MATE_BOUND:
            # forward pruning (as Scan does it): a shallow search that clears a raised bar is
            # taken as the proof that the full one would fail high too
            margin = self._prune * depth
            bar = beta + margin
            score = self._negamax(depth * 2 // 5, ply, bar - 1, bar, om, ok, xm, xk, side, key, quiet, ending)
            if score >= bar:
                return score - margin
        if n > 1:
            # one int per move, the priority above the index: a plain sort of ints
            prio: list[int] = []
            if capture:
                for i, raw in enumerate(moves):
                    s = (1 << 30) if i == tt_move else raw[2].bit_count() * 1000 + raw[3] * 500
                    prio.append(s << 8 | i)
            else:
                hist = self.history
                k0, k1 = self.killers[ply]
                for i, raw in enumerate(moves):
                    if i == tt_move:
                        s = 1 << 30
                    else:
                        o, d = raw[0], raw[1]
                        s = hist[(o << 6 | d) & 4095] + raw[3] * (1 << 26)
                        if k0 is not None and o == k0[0] and d == k0[1]:
                            s += 1 << 25
                        elif k1 is not None and o == k1[0] and d == k1[1]:
                            s += 1 << 24
                    prio.append(s << 8 | i)
            prio.sort(reverse=True)
            order = [p & 255 for p in prio]
        else:
            order = [0]
        orig_alpha = alpha
        best = -INF
        best_i = order[0]
        # make/unmake inline (as _make and _child): the child is seen from the opponent's view
        z = self.zobrist
        zs = self.z_side
        zc = 2 * side
        zmo, zko, zmx, zkx = z[zc], z[zc + 1], z[2 - zc], z[3 - zc]
        keys = self.keys
        endings = self._endings
        nside = 1 - side
        nd = depth - 1
        cply = ply + 1
        lmr = depth >= _LMR_DEPTH and not capture and beta - alpha == 1
        lmr2 = lmr and _LMR2_DEPTH and depth >= _LMR2_DEPTH
        for n_done, i in enumerate(order):
            raw = moves[i]
            o, d, cm, promotes, _r = raw
            ob = 1 << o
            db = 1 << d
            if om & ob:
                if promotes:
                    nm = om ^ ob
                    nk = ok | db
                    ckey = key ^ zmo[o] ^ zko[d] ^ zs
                else:
                    nm = (om & ~ob) | db  # (not ^: a capture may end on the square it started from)
                    nk = ok
                    ckey = key ^ zmo[o] ^ zmo[d] ^ zs
                nquiet = 0
            else:
                nm = om
                nk = (ok & ~ob) | db
                ckey = key ^ zko[o] ^ zko[d] ^ zs
                nquiet = quiet + 1
            if cm:
                nquiet = 0
                c = cm
                while c:
                    low = c & -c
                    b = low.bit_length() - 1
                    c ^= low
                    ckey ^= zmx[b] if xm & low else zkx[b]
                cxm = xm & ~cm
                cxk = xk & ~cm
            else:
                cxm = xm
                cxk = xk
            nending = ending
            if endings:
                if side == 0:
                    pieces = nm | nk | cxm | cxk
                    if pieces.bit_count() <= self._ending_max_pieces:
                        nending = self._ending_next(nm, nk, cxm, cxk, ending, bool(cm))
                    else:
                        nending = None
                else:
                    pieces = nm | nk | cxm | cxk
                    if pieces.bit_count() <= self._ending_max_pieces:
                        nending = self._ending_next(cxm, cxk, nm, nk, ending, bool(cm))
                    else:
                        nending = None
            keys.append(ckey)
            if nd <= 0:
                # the horizon: the quiescence search is exact, so no null window (nothing to redo)
                score = -self._quiesce(cply, -beta, -alpha, cxm, cxk, nm, nk, nside, ckey, nquiet, nending)
            elif n_done == 0:
                score = -self._negamax(nd, cply, -beta, -alpha, cxm, cxk, nm, nk, nside, ckey, nquiet, nending)
            else:
                reduce = 0
                if lmr and n_done >= _LMR_AFTER and not promotes:
                    reduce = 2 if lmr2 and n_done >= _LMR2_AFTER else 1
                score = -self._negamax(
                    nd - reduce, cply, -alpha - 1, -alpha, cxm, cxk, nm, nk, nside, ckey, nquiet, nending
                )
                if score > alpha and reduce:
                    score = -self._negamax(nd, cply, -alpha - 1, -alpha, cxm, cxk, nm, nk, nside, ckey, nquiet, nending)
                if alpha < score < beta:
                    score = -self._negamax(nd, cply, -beta, -alpha, cxm, cxk, nm, nk, nside, ckey, nquiet, nending)
            keys.pop()
            if score > best:
                best = score
                best_i = i
                if score > alpha:
                    alpha = score
                    pv_table[ply] = [raw, *pv_table[cply]]
                    if alpha >= beta:
                        if not capture:
                            od = (o, d)
                            k = self.killers[ply]
                            if k[0] != od:
                                k[1] = k[0]
                                k[0] = od
                            hist = self.history
                            hist[(o << 6 | d) & 4095] += depth * depth
                            if _HISTORY_MALUS and n_done:
                                # the quiet moves that did not cut lose some of theirs
                                malus = depth * depth * _HISTORY_MALUS // 100
                                for j in order[:n_done]:
                                    q = moves[j]
                                    h = (q[0] << 6 | q[1]) & 4095
                                    hist[h] = max(0, hist[h] - malus)
                        break
        flag = EXACT if orig_alpha < best < beta else (LOWER if best >= beta else UPPER)
        stored = best
        if stored >= MATE_BOUND:
            stored += ply
        elif stored <= -MATE_BOUND:
            stored -= ply
        # (tt.store, inline: every interior node) a deeper inexact entry for the position is kept
        table = tt.table
        slot = tkey & tt.mask
        old = table[slot]
        if flag == EXACT or old >> 40 != tkey or (old >> 10) & 0xFF <= asked:
            table[slot] = (tkey << 40) | ((stored + SCORE_OFF) << 18) | (min(asked, 255) << 10) | (flag << 8) | best_i
        return best

    def _quiesce(
        self,
        ply: int,
        alpha: int,
        beta: int,
        om: int,
        ok: int,
        xm: int,
        xk: int,
        side: int,
        key: int,
        quiet: int,
        ending: tuple[int, int] | None,
    ) -> int:
        """Depth 0: a quiet position is evaluated without generating its plain moves; while
        the side to move has captures (compulsory), they are all searched (no stand-pat).
        The table is probed (the last iteration searched this horizon deeper) and its capture
        nodes stored at depth 0."""
        self.nodes += 1
        if not self.nodes & _CHECK_EVERY:
            self._check()
        self.pv_table[ply] = _NO_PV
        rules = self.rules
        if (quiet >= self._draw_quiet or ending is not None) and self._is_draw(key, quiet, ending):
            return 0 if rules.moves(om, ok, xm, xk, side) else -MATE + ply
        if ply >= MAX_PLY:
            return self._evaluate(om, ok, xm, xk, side)
        egdb = self._probed
        if egdb is not None and (om | ok | xm | xk).bit_count() <= egdb.max_pieces:
            known = self._probe(egdb, ply, om, ok, xm, xk, side, quiet, ending)
            if known is not None:
                return known
        tkey = key
        if ending is not None:
            tkey ^= self.z_count[min(ending[1], 255)]
        limit = self.game_kings_only
        if limit and quiet and limit - quiet <= _COUNT_HORIZON:
            tkey ^= self.z_quiet[min(quiet, 255)]
        tt = self.tt
        e = tt.table[tkey & tt.mask]
        hit = e >> 40 == tkey
        tt_move = e & 0xFF if hit else NO_MOVE
        if hit and beta - alpha == 1:
            # a deeper search's result serves here too (iterative deepening: this horizon was
            # the last iteration's interior)
            tscore = ((e >> 18) & 0x3FFFFF) - SCORE_OFF
            if tscore >= MATE_BOUND:
                tscore -= ply
            elif tscore <= -MATE_BOUND:
                tscore += ply
            tflag = (e >> 8) & 3
            if tflag == EXACT or (tflag == LOWER and tscore >= beta) or (tflag == UPPER and tscore <= alpha):
                return tscore
        opp = xm | xk
        empty = self._mask & ~(om | ok | opp)
        moves: list[RawMove] | None = None
        if ok:
            moves = rules.captures(om, ok, xm, xk, side)
        else:
            # (rules' men_that_capture, inline) most positions have no capture at all
            a, b = self._steps
            if self._men_back:
                if om & (
                    (opp >> a) & (empty >> (a + a))
                    | (opp >> b) & (empty >> (b + b))
                    | (opp << a) & (empty << (a + a))
                    | (opp << b) & (empty << (b + b))
                ):
                    moves = rules.captures(om, ok, xm, xk, side)
            else:
                for off in self._man_cap_offsets[side]:
                    if off > 0:
                        if om & (opp >> off) & (empty >> (off + off)):
                            moves = rules.captures(om, ok, xm, xk, side)
                            break
                    elif om & (opp << -off) & (empty << -(off + off)):
                        moves = rules.captures(om, ok, xm, xk, side)
                        break
        if not moves:
            f0, f1 = self._fwd_offsets[side]
            if not (
                ((om << f0) if f0 > 0 else (om >> -f0)) & empty
                or ((om << f1) if f1 > 0 else (om >> -f1)) & empty
                or (ok and rules.count_quiet(om, ok, xm, xk, side))
            ):
                return -MATE + ply
            if ply <= self._threat_ply and self._threatened(om, ok, xm, xk, side):
                # the opponent threatens a capture: one more ply, so that a piece left hanging
                # (or a shot in preparation) is seen
                return self._negamax(1, ply, alpha, beta, om, ok, xm, xk, side, key, quiet, ending)
            return self._evaluate(om, ok, xm, xk, side)
        if len(moves) > 1:
            prio = [(1 << 20 if i == tt_move else _capture_order(raw)) << 8 | i for i, raw in enumerate(moves)]
            prio.sort(reverse=True)
            order = [p & 255 for p in prio]
        else:
            order = [0]
        best_i = order[0]
        best = -INF
        orig_alpha = alpha
        pv_table = self.pv_table
        z = self.zobrist
        zs = self.z_side
        zc = 2 * side
        zmo, zko, zmx, zkx = z[zc], z[zc + 1], z[2 - zc], z[3 - zc]
        keys = self.keys
        endings = self._endings
        nside = 1 - side
        cply = ply + 1
        for i in order:
            raw = moves[i]
            o, d, cm, promotes, _r = raw
            ob = 1 << o
            db = 1 << d
            if om & ob:
                if promotes:
                    nm = om ^ ob
                    nk = ok | db
                    ckey = key ^ zmo[o] ^ zko[d] ^ zs
                else:
                    nm = (om & ~ob) | db
                    nk = ok
                    ckey = key ^ zmo[o] ^ zmo[d] ^ zs
            else:
                nm = om
                nk = (ok & ~ob) | db
                ckey = key ^ zko[o] ^ zko[d] ^ zs
            c = cm
            while c:
                low = c & -c
                b = low.bit_length() - 1
                c ^= low
                ckey ^= zmx[b] if xm & low else zkx[b]
            cxm = xm & ~cm
            cxk = xk & ~cm
            nending = None
            if endings and (nm | nk | cxm | cxk).bit_count() <= self._ending_max_pieces:
                if side == 0:
                    nending = self._ending_next(nm, nk, cxm, cxk, ending, True)
                else:
                    nending = self._ending_next(cxm, cxk, nm, nk, ending, True)
            keys.append(ckey)
            score = -self._quiesce(cply, -beta, -alpha, cxm, cxk, nm, nk, nside, ckey, 0, nending)
            keys.pop()
            if score > best:
                best = score
                best_i = i
                if score > alpha:
                    alpha = score
                    pv_table[ply] = [raw, *pv_table[cply]]
                    if alpha >= beta:
                        break
        flag = EXACT if orig_alpha < best < beta else (LOWER if best >= beta else UPPER)
        stored = best
        if stored >= MATE_BOUND:
            stored += ply
        elif stored <= -MATE_BOUND:
            stored -= ply
        # (tt.store, inline) at depth 0 an entry of any depth for the position is kept,
        # unless this one is exact
        table = tt.table
        slot = tkey & tt.mask
        old = table[slot]
        if flag == EXACT or old >> 40 != tkey or not old & 0x3FC00:
            table[slot] = (tkey << 40) | ((stored + SCORE_OFF) << 18) | (flag << 8) | best_i
        return best

    # -- levels ------------------------------------------------------------------------------------------
    def _noisy_choice(
        self,
        moves: list[RawMove],
        depth: int,
        om: int,
        ok: int,
        xm: int,
        xk: int,
        side: int,
        key: int,
        best: RawMove,
    ) -> tuple[RawMove, int, list[RawMove]]:
        """A weaker level: every move's exact score plus a seeded random error, best of those."""
        noise = self.level.noise
        rng = self.rng
        draws = [rng.uniform(-noise, noise) for _ in moves]
        pick: tuple[float, int, RawMove, list[RawMove]] | None = None
        try:
            for raw, r in zip(moves, draws, strict=True):
                s = self._child(
                    raw, depth, 1, -INF, INF, om, ok, xm, xk, side, key, self.root_quiet, self.root_ending, True
                )
                if pick is None or s + r > pick[0]:
                    pick = (s + r, s, raw, [raw, *self.pv_table[1]])
        except _Stop:
            pass
        if pick is None:
            return best, 0, [best]
        return pick[2], pick[1], pick[3]
