"""Endgame databases for the 8x8 variants: every position of a few pieces, its distance to the win.

    python -m engine.endgame build brazilian --pieces 4 --dir DIR   # builds what DIR lacks (resumable;
                                                                    # --jobs N: N classes at once)
    python -m engine.endgame verify brazilian --dir DIR             # the values against their successors
    python -m engine.endgame info brazilian --dir DIR               # positions and results per class

A database holds, for each material class (the side to move's kings and men, the other
side's kings and men), the value of every position with that side to move: a win or a loss
in so many plies (to the position where the loser has no piece or no move), or a draw, in
the plain game: no draw rule counted. The draw rules count moves (RULES.md §5: the
kings-only count, Brazilian small endings, the Portuguese forced-win rule), which a value
without the counters cannot hold; the search applies them when it probes
(:meth:`Databases.probe` gives the distance, and a win counts only when it fits in every
count that is running: :func:`fits`), and otherwise searches on.

Positions are stored from the side to move's view (the board turned for Black: the board
and the colours are symmetric), one byte a position, indexed by the combinations of each
kind of piece (its men off their crowning row): ``((men, opposing men), kings, opposing
kings)``, where a combination that overlaps another piece is a hole (byte 255). Byte 0 is a
draw, 1-127 a win in ``2b - 1`` plies, 128-254 a loss in ``2(b - 128)`` plies.

The build is the classic retrograde analysis, class by class from the fewest pieces (a
capture leads into a smaller class, a crowning into a class with fewer men, both already
built): every position's moves are counted, positions whose moves leave the class (captures,
crownings) or that have none are valued at once, and from each valued position the moves
are played backwards, level by level of distance: a predecessor of a lost position is won
one ply later; a predecessor whose every move reaches a won position is lost. What is never
valued is a draw. Standard library only; each class is written when done, with a manifest
of the counts (``manifest.json``), so a stopped build resumes with the next class. The
classes of one number of pieces and of men depend on none of each other, so ``--jobs`` builds
that many at once, each in a process of its own (the tables they read mapped, and shared).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import mmap
import random
import sys
import time
from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from math import comb
from pathlib import Path

from rules import Variant, find_variant, geometry_for
from rules.engine import engine_for
from rules.geometry import DOWN

Material = tuple[int, int, int, int]  # (own kings, own men, opposing kings, opposing men)

DRAW, HOLE = 0, 255
#: the 8x8 variants (10x10 databases would need far more than a Pi holds)
VARIANTS = ("brazilian", "portuguese")
FORMAT = 1


def win_byte(plies: int) -> int:
    assert plies % 2 == 1 and plies <= 253, plies
    return (plies + 1) // 2


def loss_byte(plies: int) -> int:
    assert plies % 2 == 0 and plies <= 252, plies
    return 128 + plies // 2


def decode(b: int) -> tuple[int, int]:
    """(result for the side to move: 1 win, 0 draw, -1 loss; plies to the end)."""
    if b == DRAW:
        return (0, 0)
    if b < 128:
        return (1, 2 * b - 1)
    return (-1, 2 * (b - 128))


def fits(
    plies: int, quiet: int, quiet_limit: int, ending: tuple[int, int] | None, ending_limits: tuple[int, ...]
) -> bool:
    """Whether a win ``plies`` away is reached before a draw rule that is counting now ends the
    game: the kings-only count (``quiet`` plies of ``quiet_limit``; 0: no such rule) and the
    small-ending count (``ending``: rule index, plies counted). The last move wins even when
    it completes a count (rules.Game looks at the pieces first), hence ``<=``."""
    if quiet_limit and quiet + plies > quiet_limit:
        return False
    return not (ending is not None and ending[1] + plies > ending_limits[ending[0]])


def classes(pieces: int) -> list[Material]:
    """Every material class of ``pieces`` pieces with a piece a side, in build order: fewest
    men first (a crowning leads to one man fewer), a class next to its mirror."""
    out: list[Material] = []
    for ok in range(pieces + 1):
        for om in range(pieces + 1 - ok):
            for xk in range(pieces + 1 - ok - om):
                xm = pieces - ok - om - xk
                if ok + om and xk + xm:
                    out.append((ok, om, xk, xm))
    out.sort(key=lambda m: (m[1] + m[3], min(m, mirror(m)), m != min(m, mirror(m))))
    return out


def mirror(m: Material) -> Material:
    return (m[2], m[3], m[0], m[1])


def name_of(m: Material) -> str:
    return "".join(map(str, m))


# -- the layout ----------------------------------------------------------------------------------
class Layout:
    """A variant's squares as a dense 0-31 numbering (the rules engine's internal order: rows
    from the top, where the side to move crowns), with the conversions and combinations the
    index needs. Turning the board maps dense square ``p`` to ``31 - p``."""

    def __init__(self, variant: Variant) -> None:
        geo = geometry_for(variant)
        if geo.size != 8:
            raise ValueError(f"endgame databases are for the 8x8 variants, not {variant.name}")
        self.variant = variant
        self.geo = geo
        self.rules = engine_for(variant)
        bits = sorted(geo.bit_of_square[1:])
        self.bit_of_dense: tuple[int, ...] = tuple(bits)
        dense_of_bit = {b: i for i, b in enumerate(bits)}
        # the turned board is the reversed order (checked: the padding is symmetric)
        for b in bits:
            f, r = geo.coords[geo.square_of_bit[b]]
            turned = next(x for x in bits if geo.coords[geo.square_of_bit[x]] == (7 - f, 7 - r))
            assert dense_of_bit[turned] == 31 - dense_of_bit[b]
        # padded -> dense, and padded -> turned dense, a byte at a time
        self.to_dense: tuple[tuple[int, tuple[int, ...]], ...] = self._chunks(lambda b: 1 << dense_of_bit[b])
        self.to_turned: tuple[tuple[int, tuple[int, ...]], ...] = self._chunks(lambda b: 1 << (31 - dense_of_bit[b]))
        self.from_dense: tuple[tuple[int, ...], ...] = tuple(
            tuple(sum(1 << bits[lo + i] for i in range(8) if (v >> i) & 1) for v in range(256)) for lo in (0, 8, 16, 24)
        )
        self.top = 0xF  # dense 0-3: the row the side to move crowns on
        self.bottom = 0xF << 28
        self.binom = tuple(tuple(comb(n, k) for k in range(9)) for n in range(33))

    def _chunks(self, value: Callable[[int], int]) -> tuple[tuple[int, tuple[int, ...]], ...]:
        out = []
        for lo in range(0, self.geo.nbits, 8):
            table = []
            for v in range(256):
                x = 0
                for i in range(8):
                    b = lo + i
                    if (v >> i) & 1 and b in self.bit_of_dense:
                        x |= value(b)
                table.append(x)
            out.append((lo, tuple(table)))
        return tuple(out)

    def dense(self, x: int) -> int:
        d = 0
        for lo, table in self.to_dense:
            d |= table[(x >> lo) & 255]
        return d

    def turned(self, x: int) -> int:
        d = 0
        for lo, table in self.to_turned:
            d |= table[(x >> lo) & 255]
        return d

    def padded(self, d: int) -> int:
        f = self.from_dense
        return f[0][d & 255] | f[1][(d >> 8) & 255] | f[2][(d >> 16) & 255] | f[3][(d >> 24) & 255]

    def rank(self, d: int) -> int:
        """The combination's rank among those of its size (colex order)."""
        binom = self.binom
        r, i = 0, 1
        while d:
            low = d & -d
            r += binom[low.bit_length() - 1][i]
            i += 1
            d ^= low
        return r

    @cache  # noqa: B019  (one layout per variant, kept for the process)
    def combos(self, n: int, k: int) -> tuple[int, ...]:
        """The dense masks of ``k`` squares among ``0..n-1``, in rank order."""
        out = sorted((sum(1 << p for p in c) for c in itertools.combinations(range(n), k)), key=self.rank)
        return tuple(out)

    def size(self, m: Material) -> int:
        ok, om, xk, xm = m
        b = self.binom
        return b[28][om] * b[28][xm] * b[32][ok] * b[32][xk]

    def index(self, m: Material, om: int, ok: int, xm: int, xk: int) -> int:
        """The index of a position (dense masks, the side to move crowning on dense 0-3)."""
        b = self.binom
        rank = self.rank
        return ((rank(om >> 4) * b[28][m[3]] + rank(xm)) * b[32][m[0]] + rank(ok)) * b[32][m[2]] + rank(xk)


@cache
def layout_for(variant: Variant) -> Layout:
    return Layout(variant)


# -- the tables ----------------------------------------------------------------------------------
class Databases:
    """The built classes of one variant (each file mapped read-only: the operating system
    keeps in memory what the probes touch)."""

    def __init__(self, variant: Variant | str, tables: dict[Material, bytes | mmap.mmap], pieces: int) -> None:
        self.variant = find_variant(variant)
        self.layout = layout_for(self.variant)
        self.tables = tables
        self.max_pieces = pieces
        self.probes = 0
        self.hits = 0

    def probe(self, om: int, ok: int, xm: int, xk: int, side: int) -> tuple[int, int] | None:
        """(result for the side to move: 1, 0, -1; plies to the end) of a position (the
        search's padded boards: own men/kings, opposing men/kings, side to move), or None
        when its class is not built."""
        self.probes += 1
        m = (ok.bit_count(), om.bit_count(), xk.bit_count(), xm.bit_count())
        table = self.tables.get(m)
        if table is None:
            return None
        lay = self.layout
        conv = lay.turned if side else lay.dense
        b = table[lay.index(m, conv(om), conv(ok), conv(xm), conv(xk))]
        self.hits += 1
        return decode(b)


def open_databases(variant: Variant | str, directory: Path) -> Databases:
    """The classes built in ``directory`` (as ``build`` writes them): a one-line error names
    a missing or damaged manifest or table."""
    v = find_variant(variant)
    if v.name not in VARIANTS:
        raise ValueError(f"endgame databases are for the 8x8 variants, not {v.name}")
    where = Path(directory) / v.name
    manifest_path = where / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
        built = manifest["classes"]
        if manifest.get("format") != FORMAT:
            raise ValueError(f"format {manifest.get('format')!r}, not {FORMAT}")
    except FileNotFoundError:
        raise ValueError(
            f"{manifest_path}: no endgame databases here (build them with python -m engine.endgame build)"
        ) from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{manifest_path}: not an endgame manifest ({exc})") from None
    lay = layout_for(v)
    tables: dict[Material, bytes | mmap.mmap] = {}
    pieces = 0
    for name in built:
        m = tuple(int(c) for c in name)
        assert len(m) == 4
        mat: Material = (m[0], m[1], m[2], m[3])
        path = where / f"{name}.bin"
        try:
            with path.open("rb") as f:
                size = lay.size(mat)
                if path.stat().st_size != size:
                    raise ValueError(f"{path}: {path.stat().st_size} bytes, not {size}: rebuild it")
                tables[mat] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as exc:
            raise ValueError(f"{path}: cannot read the table ({exc.strerror})") from None
        pieces = max(pieces, sum(mat))
    # a class is usable only with every class its captures and crownings lead to
    complete = 0
    for n in range(2, pieces + 1):
        if all(c in tables for c in classes(n)):
            complete = n
        else:
            break
    return Databases(v, {m: t for m, t in tables.items() if sum(m) <= complete}, complete)


# -- the build -----------------------------------------------------------------------------------
class _Solver:
    """One class and its mirror, solved together (a move of one leads into the other)."""

    def __init__(self, lay: Layout, mats: list[Material], known: Mapping[Material, bytes | mmap.mmap]) -> None:
        self.lay = lay
        self.mats = mats
        self.known = known
        self.vals = [bytearray(lay.size(m)) for m in mats]
        self.left = [bytearray(lay.size(m)) for m in mats]  # moves inside the pair not yet valued
        self.worst = [bytearray(lay.size(m)) for m in mats]  # longest loss-making move leaving it
        # positions valued at each distance, and wins through a move leaving the pair, by plies
        # (as arrays of ``index << 1 | which``: 8 bytes a position, not a Python int's 36)
        self.levels: dict[int, array[int]] = {}
        self.wins: dict[int, array[int]] = {}
        rules = lay.rules
        # every combination a side's kind of piece can have up to 6 pieces (5 of a kind: the
        # other side has one), looked up
        self.rank: Callable[[int], int] = _rank_table(lay).__getitem__
        self.captures = rules.captures
        self.quiet = rules.quiet_moves
        self.count = rules.count_quiet

    def child(self, om: int, ok: int, xm: int, xk: int) -> int:
        """The byte of the position after a move (padded boards, the mover's men crowning
        at the top), seen by the opponent (to move, the board turned): looked up among
        the known classes or the pair."""
        m = (xk.bit_count(), xm.bit_count(), ok.bit_count(), om.bit_count())
        if not m[0] + m[1]:
            return loss_byte(0)
        lay = self.lay
        b = lay.binom
        rank = self.rank
        turned = lay.turned
        i = ((rank(turned(xm) >> 4) * b[28][m[3]] + rank(turned(om))) * b[32][m[0]] + rank(turned(xk))) * b[32][
            m[2]
        ] + rank(turned(ok))
        table = self.known.get(m)
        if table is None:
            raise AssertionError(f"class {name_of(m)} is needed but not built")
        return table[i]

    def add(self, plies: int, which: int, i: int) -> None:
        level = self.levels.get(plies)
        if level is None:
            level = self.levels[plies] = array("q")
        level.append(i << 1 | which)

    def initial(self) -> None:
        """Every position's moves: counted, and valued where none stays in the pair."""
        lay = self.lay
        b = lay.binom
        for which, m in enumerate(self.mats):
            ok_n, om_n, xk_n, xm_n = m
            vals, left, worst = self.vals[which], self.left[which], self.worst[which]
            kings = lay.combos(32, ok_n)
            xkings = lay.combos(32, xk_n)
            n_k, n_xk = len(kings), len(xkings)
            kings_p = [lay.padded(k) for k in kings]
            xkings_p = [lay.padded(k) for k in xkings]
            block = n_k * n_xk
            has_capture = self._has_capture
            i = 0
            for om_d in lay.combos(28, om_n):
                om_d <<= 4  # the side to move's men: dense 4-31
                om = lay.padded(om_d)
                for xm_d in lay.combos(28, xm_n):
                    if om_d & xm_d:
                        vals[i : i + block] = bytes([HOLE]) * block
                        i += block
                        continue
                    xm = lay.padded(xm_d)
                    men = om_d | xm_d
                    for ki, ok_d in enumerate(kings):
                        if ok_d & men:
                            vals[i : i + n_xk] = bytes([HOLE]) * n_xk
                            i += n_xk
                            continue
                        ok = kings_p[ki]
                        taken = men | ok_d
                        for xi, xk_d in enumerate(xkings):
                            if xk_d & taken:
                                vals[i] = HOLE
                            else:
                                opp = xm_d | xk_d
                                cap = has_capture(om_d, ok_d, opp, ~(taken | xk_d) & 0xFFFFFFFF)
                                self._first(which, i, om, ok, xm, xkings_p[xi], vals, left, worst, cap)
                            i += 1
            assert i == lay.size(m) == b[28][om_n] * b[28][xm_n] * n_k * n_xk

    def _first(
        self,
        which: int,
        i: int,
        om: int,
        ok: int,
        xm: int,
        xk: int,
        vals: bytearray,
        left: bytearray,
        worst: bytearray,
        capture: bool,
    ) -> None:
        caps = self.captures(om, ok, xm, xk, 0) if capture else None
        if caps:
            outs = []
            for o, d, cm, promotes, _r in caps:
                ob, db = 1 << o, 1 << d
                if om & ob:
                    nm, nk = (om ^ ob, ok | db) if promotes else ((om & ~ob) | db, ok)
                else:
                    nm, nk = om, (ok & ~ob) | db
                outs.append(self.child(nm, nk, xm & ~cm, xk & ~cm))
            self._settle(which, i, outs, vals)
            return
        n = self.count(om, ok, xm, xk, 0)
        if n == 0:
            vals[i] = loss_byte(0)
            self.add(0, which, i)
            return
        outs = []
        if om & self._before_top:
            for o, d, _cm, promotes, _r in self.quiet(om, ok, xm, xk, 0):
                if promotes:
                    outs.append(self.child(om ^ (1 << o), ok | (1 << d), xm, xk))
        if len(outs) == n:
            self._settle(which, i, outs, vals)
            return
        inside = n - len(outs)  # the plain moves: each leads into the pair (the mirror class)
        win = 0
        far = 0
        for v in outs:
            r, plies = decode(v)
            if r < 0:  # a crowning the opponent loses after: a win, unless one inside is quicker
                win = plies + 1 if not win else min(win, plies + 1)
            elif r == 0:
                far = 255  # a crowning that draws: never lost
            else:
                far = max(far, plies) if far != 255 else far
        if win or far == 255:
            inside += 100  # never a loss: the count of moves left cannot reach 0
        left[i] = inside
        worst[i] = far if far != 255 else 0
        if win:
            wins = self.wins.get(win)
            if wins is None:
                wins = self.wins[win] = array("q")
            wins.append(i << 1 | which)

    _before_top = 0

    def _settle(self, which: int, i: int, outs: list[int], vals: bytearray) -> None:
        """A position every move of which leaves the pair: its value now."""
        best_win, worst_loss, draw = 0, -1, False
        for v in outs:
            r, plies = decode(v)
            if r < 0:
                best_win = plies + 1 if not best_win else min(best_win, plies + 1)
            elif r == 0:
                draw = True
            else:
                worst_loss = max(worst_loss, plies + 1)
        if best_win:
            vals[i] = win_byte(best_win)
            self.add(best_win, which, i)
        elif not draw:
            vals[i] = loss_byte(worst_loss)
            self.add(worst_loss, which, i)
        # a draw stays 0 and is final: such a position has no move inside the pair to undo

    def propagate(self) -> None:
        """Level by level of distance: the predecessors of each valued position."""
        plies = 0
        while self.levels or self.wins:
            for code in self.wins.pop(plies, ()):
                which, i = code & 1, code >> 1
                if self.vals[which][i] == DRAW:
                    self.vals[which][i] = win_byte(plies)
                    self.add(plies, which, i)
            for code in self.levels.pop(plies, ()):
                self._back(plies, code & 1, code >> 1)
            plies += 1

    def _back(self, plies: int, which: int, i: int) -> None:
        """Every position of the pair whose (plain, non-crowning) move leads to position
        ``i``: its value follows from this one's. Worked in the predecessor's frame (the board
        turned: its side to move crowning at the top), where only the moved piece's part of
        the index changes from one predecessor to the next."""
        lay = self.lay
        b = lay.binom
        rank = self.rank
        m = self.mats[which]
        om, ok, xm, xk = self._unrank(m, i)
        lost = decode(self.vals[which][i])[0] < 0
        rev = _turn
        am, ak, bm, bk = rev(xm), rev(xk), rev(om), rev(ok)  # the predecessor's mover moved last
        pm = (m[2], m[3], m[0], m[1])  # its class
        pw = which if pm == m else 1 - which
        vals, left, worst = self.vals[pw], self.left[pw], self.worst[pw]
        n_bm, n_ak, n_bk = b[28][pm[3]], b[32][pm[0]], b[32][pm[2]]
        r_bm, r_bk = rank(bm), rank(bk)
        opp = bm | bk
        empty = ~(am | ak | opp) & 0xFFFFFFFF
        r_ak = rank(ak)
        # a king came back along a ray: only the kings' rank changes
        base = (rank(am >> 4) * n_bm + r_bm) * n_ak * n_bk + r_bk
        preds: list[int] = []
        x = ak
        while x:
            low = x & -x
            x ^= low
            rest = ak ^ low
            for ray in self._dense_rays[low.bit_length() - 1]:
                for q in ray:
                    if not (empty >> q) & 1:
                        break
                    k2 = rest | (1 << q)
                    preds.append(base + rank(k2) * n_bk)
        # a man came up from a row below: only the men's rank changes
        tail = r_ak * n_bk + r_bk
        x = am
        while x:
            low = x & -x
            x ^= low
            for q in self._man_from[low.bit_length() - 1]:
                if (empty >> q) & 1:
                    m2 = (am ^ low) | (1 << q)
                    preds.append((rank(m2 >> 4) * n_bm + r_bm) * n_ak * n_bk + tail)
        for j in preds:
            if vals[j] != DRAW or not left[j]:
                # valued, or a draw with no plain move counted: one with a capture (captures
                # are compulsory, so the plain move was not legal there); every other position
                # with a plain move keeps a count above 0 until it is valued
                continue
            if lost:
                vals[j] = win_byte(plies + 1)
                self.add(plies + 1, pw, j)
            else:
                left[j] -= 1
                if left[j] == 0:
                    d = max(plies, worst[j]) + 1
                    vals[j] = loss_byte(d)
                    self.add(d, pw, j)

    def _has_capture(self, men: int, kings: int, opp: int, empty: int) -> bool:
        """Whether the side to move (dense, crowning at the top) has a capture: its men all at
        once, a group of squares at a time (the squares whose jump in one direction passes
        over and lands at the same offsets), then each king's first piece along each ray."""
        for src, over, land in self._man_jump_groups:
            x = men & src
            if x:
                x = ((x << over) if over > 0 else (x >> -over)) & opp
                if x and ((x << land) if land > 0 else (x >> -land)) & empty:
                    return True
        if kings:
            occ = ~empty & 0xFFFFFFFF
            rays = self._king_rays
            beyond = self._beyond
            while kings:
                low = kings & -kings
                kings ^= low
                for ray, up, d in rays[low.bit_length() - 1]:
                    r = occ & ray
                    if r:
                        q = (r.bit_length() if up else (r & -r).bit_length()) - 1
                        if (opp >> q) & 1 and beyond[d][q] & empty:
                            return True
        return False

    def _unrank(self, m: Material, i: int) -> tuple[int, int, int, int]:
        lay = self.lay
        b = lay.binom
        n_xk = b[32][m[2]]
        n_k = b[32][m[0]]
        n_xm = b[28][m[3]]
        i, r_xk = divmod(i, n_xk)
        i, r_k = divmod(i, n_k)
        r_om, r_xm = divmod(i, n_xm)
        return (
            lay.combos(28, m[1])[r_om] << 4,
            lay.combos(32, m[0])[r_k],
            lay.combos(28, m[3])[r_xm],
            lay.combos(32, m[2])[r_xk],
        )

    def prepare(self) -> None:
        lay = self.lay
        geo = lay.geo
        dense_of_bit = {b: i for i, b in enumerate(lay.bit_of_dense)}
        self._dense_rays = tuple(
            tuple(tuple(dense_of_bit[q] for q in ray) for ray in geo.rays[b]) for b in lay.bit_of_dense
        )
        # the side to move's men move up (to lower dense numbers): one came from a square down
        self._man_from = tuple(
            tuple(dense_of_bit[geo.step[b][d]] for d in DOWN if geo.step[b][d] >= 0) for b in lay.bit_of_dense
        )
        # its men's captures in the variant's directions, grouped by the offsets (dense) of the
        # square jumped and, from there, of the square landed on: (the squares, over, land)
        groups: dict[tuple[int, int], int] = {}
        for p, b in enumerate(lay.bit_of_dense):
            for d in lay.rules.man_cap_dirs[0]:
                ray = geo.rays[b][d]
                if len(ray) >= 2:
                    over, land = dense_of_bit[ray[0]], dense_of_bit[ray[1]]
                    key = (over - p, land - over)
                    groups[key] = groups.get(key, 0) | 1 << p
        self._man_jump_groups = tuple((src, over, land) for (over, land), src in groups.items())
        # the kings': each ray as a mask, whether it runs to lower dense numbers (its first
        # piece is then the highest bit), and the direction, for the square beyond a piece
        self._king_rays = tuple(
            tuple(
                (sum(1 << dense_of_bit[q] for q in ray), dense_of_bit[ray[0]] < p, d)
                for d, ray in enumerate(geo.rays[b])
                if len(ray) >= 2
            )
            for p, b in enumerate(lay.bit_of_dense)
        )
        self._beyond = tuple(
            tuple((1 << dense_of_bit[geo.step[b][d]]) if geo.step[b][d] >= 0 else 0 for b in lay.bit_of_dense)
            for d in range(len(geo.rays[lay.bit_of_dense[0]]))
        )
        # the side to move's men one step from crowning (padded): the second row from the top
        self._before_top = lay.padded(0xF << 4)


@cache
def _rank_table(lay: Layout) -> dict[int, int]:
    """Every combination of up to five squares and its rank (the build looks them up)."""
    return {
        mask: lay.rank(mask)
        for k in range(6)
        for mask in (sum(1 << p for p in c) for c in itertools.combinations(range(32), k))
    }


_REV8 = tuple(int(f"{v:08b}"[::-1], 2) for v in range(256))


def _turn(d: int) -> int:
    """A dense mask on the turned board (square p -> 31 - p)."""
    r = _REV8
    return r[d & 255] << 24 | r[(d >> 8) & 255] << 16 | r[(d >> 16) & 255] << 8 | r[d >> 24]


@dataclass
class ClassReport:
    material: Material
    positions: int
    wins: int
    draws: int
    losses: int
    longest: int
    seconds: float


def build(
    variant: Variant | str,
    pieces: int,
    directory: Path,
    progress: Callable[[str], None] = print,
    jobs: int = 1,
) -> list[ClassReport]:
    """Build every class of up to ``pieces`` pieces that ``directory`` lacks, ``jobs`` pairs of
    classes at a time (in as many processes): the pairs of one number of pieces and of men need
    only classes built before them (a capture leads to fewer pieces, a crowning to fewer men)."""
    v = find_variant(variant)
    if v.name not in VARIANTS:
        raise ValueError(f"endgame databases are for the 8x8 variants, not {v.name}")
    if jobs < 1:
        raise ValueError(f"jobs must be 1 or more, not {jobs}")
    where = Path(directory) / v.name
    where.mkdir(parents=True, exist_ok=True)
    manifest_path = where / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    if manifest.get("format", FORMAT) != FORMAT:
        raise ValueError(f"{manifest_path}: format {manifest.get('format')}, not {FORMAT}: build into a new directory")
    manifest.update({"format": FORMAT, "variant": v.name})
    manifest.setdefault("classes", {})
    reports: list[ClassReport] = []

    def done(tallies: list[ClassReport]) -> None:
        for rep in tallies:
            reports.append(rep)
            manifest["classes"][name_of(rep.material)] = {
                "positions": rep.positions,
                "wins": rep.wins,
                "draws": rep.draws,
                "losses": rep.losses,
                "longest": rep.longest,
                "seconds": round(rep.seconds, 1),
                "built": datetime.datetime.now().isoformat(timespec="seconds"),
            }
            manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
            progress(
                f"{v.name} {name_of(rep.material)}: {rep.positions:,} positions, +{rep.wins:,} ={rep.draws:,} "
                f"-{rep.losses:,}, longest {rep.longest} plies ({rep.seconds:.0f} s)"
            )

    # (imported here: the app imports this module for the probe alone)
    import concurrent.futures
    import multiprocessing

    pool = None
    try:
        for n in range(2, pieces + 1):
            todo = [m for m in classes(n) if name_of(m) not in manifest["classes"]]
            pairs: list[list[Material]] = []
            for m in todo:
                if not any(m in p for p in pairs):
                    pairs.append([m] if mirror(m) == m else [m, mirror(m)])
            for men in sorted({p[0][1] + p[0][3] for p in pairs}):
                group = [p for p in pairs if p[0][1] + p[0][3] == men]
                built = sorted(manifest["classes"])
                if jobs == 1 or len(group) == 1:
                    for pair in group:
                        done(_solve_pair(v.name, pair, str(where), built))
                        built = sorted(manifest["classes"])
                    continue
                if pool is None:
                    # started afresh, not forked: the caller may have threads (a fork copies
                    # their locks as they stand)
                    pool = concurrent.futures.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
                # the largest first, so that the last to finish is a small one
                group.sort(key=lambda p: -layout_for(v).size(p[0]))
                futures = [pool.submit(_solve_pair, v.name, pair, str(where), built) for pair in group]
                for fut in concurrent.futures.as_completed(futures):
                    done(fut.result())
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return reports


def _solve_pair(variant: str, pair: list[Material], where: str, built: list[str]) -> list[ClassReport]:
    """Solve one class and its mirror from the classes ``built`` in ``where`` (mapped, so that
    processes building at once share them), write their tables; their tallies (the manifest
    is the caller's: a table it does not list is built again)."""
    lay = layout_for(find_variant(variant))
    folder = Path(where)
    known: dict[Material, mmap.mmap] = {}
    try:
        for name in built:
            mat = tuple(int(c) for c in name)
            with (folder / f"{name}.bin").open("rb") as f:
                known[(mat[0], mat[1], mat[2], mat[3])] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        t0 = time.monotonic()
        solver = _Solver(lay, pair, known)
        solver.prepare()
        solver.initial()
        solver.propagate()
        seconds = time.monotonic() - t0
    finally:
        for table in known.values():
            table.close()
    out = []
    for which, mat in enumerate(pair):
        path = folder / f"{name_of(mat)}.bin"
        part = path.with_suffix(".part")
        part.write_bytes(solver.vals[which])
        part.replace(path)
        out.append(_report(mat, solver.vals[which], seconds / len(pair)))
    return out


def _report(m: Material, vals: bytes | bytearray, seconds: float) -> ClassReport:
    counts = [0] * 256
    for b, n in _histogram(vals).items():
        counts[b] = n
    wins = sum(counts[1:128])
    losses = sum(counts[128:255])
    longest = max(
        [2 * b - 1 for b in range(1, 128) if counts[b]] + [2 * (b - 128) for b in range(128, 255) if counts[b]] + [0]
    )
    return ClassReport(m, len(vals) - counts[HOLE], wins, counts[DRAW], losses, longest, seconds)


def _histogram(vals: bytes | bytearray) -> dict[int, int]:
    return {b: vals.count(bytes([b])) for b in set(vals)}


# -- checks --------------------------------------------------------------------------------------
def verify(variant: Variant | str, directory: Path, sample: int = 2000, seed: int = 1) -> dict[str, int]:
    """Each class: ``sample`` positions drawn at random, each checked against its successors
    (a plain one-ply retrograde step: a win is one ply more than its best successor lost for
    the opponent, a loss one more than its longest successor won by the opponent, a draw has
    no successor lost for the opponent and one drawn); returns the counts checked and wrong."""
    db = open_databases(variant, directory)
    lay = db.layout
    rules = lay.rules
    rng = random.Random(seed)
    checked = wrong = counts = 0
    for m, table in sorted(db.tables.items()):
        size = len(table)
        counts += size - table[:].count(bytes([HOLE])) != count_positions(db.variant, m)
        for _ in range(sample):
            i = rng.randrange(size)
            if table[i] == HOLE:
                continue
            om, ok, xm, xk = (lay.padded(x) for x in _Solver(lay, [m], {})._unrank(m, i))
            moves = rules.moves(om, ok, xm, xk, 0)
            outs = []
            for o, d, cm, promotes, _r in moves:
                ob, db_ = 1 << o, 1 << d
                if om & ob:
                    nm, nk = (om ^ ob, ok | db_) if promotes else ((om & ~ob) | db_, ok)
                else:
                    nm, nk = om, (ok & ~ob) | db_
                nxm, nxk = xm & ~cm, xk & ~cm
                if not (nxm | nxk):
                    outs.append((-1, 0))
                else:
                    hit = db.probe(nxm, nxk, nm, nk, 1)
                    assert hit is not None
                    outs.append(hit)
            expect = _from_successors(outs)
            checked += 1
            if decode(table[i]) != expect:
                wrong += 1
    return {"checked": checked, "wrong": wrong, "counts": counts}


def _from_successors(outs: list[tuple[int, int]]) -> tuple[int, int]:
    if not outs:
        return (-1, 0)
    wins = [p + 1 for r, p in outs if r < 0]
    if wins:
        return (1, min(wins))
    if any(r == 0 for r, _p in outs):
        return (0, 0)
    return (-1, max(p for _r, p in outs) + 1)


def plain_values(variant: Variant | str, pieces: int) -> dict[tuple[int, int, int, int, bool], tuple[int, int]]:
    """Every position of up to ``pieces`` pieces (a piece a side) solved the plain way, apart
    from the build: through the rules' public API (:class:`rules.Position`: its legal moves,
    its moves applied), each position a key, its successors listed, distances found by
    repeated sweeps (a position is won at ``d`` once a move reaches a loss at ``d - 1``, lost
    at ``d`` once every move reaches a win, the longest ``d - 1``). Slow: for checking."""
    from rules import Color, Position

    v = find_variant(variant)
    geo = geometry_for(v)
    squares = list(geo.squares())
    top = {s for s in squares if geo.coord(s)[1] == 7}
    bottom = {s for s in squares if geo.coord(s)[1] == 0}
    keys: list[tuple[int, int, int, int, bool]] = []
    succ: list[list[int] | None] = []
    where: dict[tuple[int, int, int, int, bool], int] = {}
    positions: list[Position] = []
    for n in range(2, pieces + 1):
        for placed in itertools.combinations(squares, n):
            for kinds in itertools.product(range(4), repeat=n):
                wm = [s for s, k in zip(placed, kinds, strict=True) if k == 0]
                wk = [s for s, k in zip(placed, kinds, strict=True) if k == 1]
                bm = [s for s, k in zip(placed, kinds, strict=True) if k == 2]
                bk = [s for s, k in zip(placed, kinds, strict=True) if k == 3]
                if not (wm or wk) or not (bm or bk) or set(wm) & top or set(bm) & bottom:
                    continue
                for turn in (Color.WHITE, Color.BLACK):
                    pos = Position(v, white_men=wm, white_kings=wk, black_men=bm, black_kings=bk, turn=turn)
                    where[pos.key] = len(keys)
                    keys.append(pos.key)
                    positions.append(pos)
    value: list[tuple[int, int] | None] = [None] * len(keys)
    for i, pos in enumerate(positions):
        moves = list(pos.legal_moves)
        if not moves:
            value[i] = (-1, 0)
            succ.append(None)
            continue
        out = []
        for m in moves:
            after = pos.apply(m)
            if not after.squares(after.turn):
                out.append(-1)  # the opponent has no piece left: lost at once
            else:
                out.append(where[after.key])
        succ.append(out)
    d = 1
    while True:
        changed = []
        for i, nexts in enumerate(succ):
            if value[i] is not None or nexts is None:
                continue
            vals = [(-1, 0) if j < 0 else value[j] for j in nexts]
            if any(x is not None and x[0] < 0 and x[1] == d - 1 for x in vals):
                changed.append((i, (1, d)))
            elif all(x is not None and x[0] > 0 for x in vals) and max(x[1] for x in vals if x) == d - 1:
                changed.append((i, (-1, d)))
        for i, val in changed:
            value[i] = val
        if not changed and d > 2 * max([x[1] for x in value if x] + [0]) + 2:
            break
        d += 1
    return {k: (value[i] or (0, 0)) for i, k in enumerate(keys)}


def plain_check(variant: Variant | str, directory: Path, pieces: int) -> dict[str, int]:
    """Every position of up to ``pieces`` pieces: the database's value against
    :func:`plain_values` (both sides to move, through the probe)."""
    db = open_databases(variant, directory)
    if db.max_pieces < pieces:
        raise ValueError(f"the databases hold {db.max_pieces} pieces, not {pieces}")
    checked = wrong = 0
    for (wm, wk, bm, bk, white), expect in plain_values(variant, pieces).items():
        got = db.probe(wm, wk, bm, bk, 0) if white else db.probe(bm, bk, wm, wk, 1)
        checked += 1
        wrong += got != expect
    return {"checked": checked, "wrong": wrong}


def count_positions(variant: Variant | str, m: Material) -> int:
    """The legal positions of a class counted directly (every placement of the pieces, men off
    their crowning row), independently of the index: the table's non-hole bytes must match."""
    ok_n, om_n, xk_n, xm_n = m
    total = 0
    # the side to move's men on dense 4-31, the opponent's on 0-27: split by the 24 squares both may use
    for a in range(om_n + 1):  # own men on the top row's complement only (4 squares: 28-31)
        for c in range(xm_n + 1):  # opposing men on 0-3 only
            own_shared, opp_shared = om_n - a, xm_n - c
            if own_shared + opp_shared > 24:
                continue
            ways = comb(4, a) * comb(4, c) * comb(24, own_shared) * comb(24 - own_shared, opp_shared)
            free = 32 - om_n - xm_n
            total += ways * comb(free, ok_n) * comb(free - ok_n, xk_n)
    return total


# -- the command ---------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m engine.endgame", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    bp = sub.add_parser("build", help="build the classes the directory lacks")
    bp.add_argument("variant")
    bp.add_argument("--pieces", type=int, default=4, help="up to this many pieces (default 4)")
    bp.add_argument("--dir", type=Path, required=True)
    bp.add_argument("--jobs", type=int, default=1, help="classes built at once, each in a process (default 1)")
    vp = sub.add_parser("verify", help="check sampled positions against their successors")
    vp.add_argument("variant")
    vp.add_argument("--dir", type=Path, required=True)
    vp.add_argument("--sample", type=int, default=2000, help="positions a class (default 2000)")
    vp.add_argument("--plain", type=int, default=0, help="also every position of up to N pieces solved plainly")
    ip = sub.add_parser("info", help="positions and results per class")
    ip.add_argument("variant")
    ip.add_argument("--dir", type=Path, required=True)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "build":
            build(args.variant, args.pieces, args.dir, lambda s: print(s, flush=True), args.jobs)
        elif args.cmd == "verify":
            r = verify(args.variant, args.dir, args.sample)
            print(f"{r['checked']:,} sampled positions checked against their successors, {r['wrong']} wrong")
            bad = r["wrong"] + r["counts"]
            print(f"positions per class against a direct count: {r['counts']} classes differ")
            if args.plain:
                p = plain_check(args.variant, args.dir, args.plain)
                print(f"{p['checked']:,} positions of up to {args.plain} pieces solved plainly, {p['wrong']} differ")
                bad += p["wrong"]
            return 1 if bad else 0
        else:
            v = find_variant(args.variant)
            manifest = json.loads((args.dir / v.name / "manifest.json").read_text())
            for name, c in manifest["classes"].items():
                counts = f"+{c['wins']:,} ={c['draws']:,} -{c['losses']:,}"
                print(f"{name}: {c['positions']:,} positions {counts}, longest {c['longest']} plies")
    except (ValueError, OSError) as exc:
        print(f"engine.endgame: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
