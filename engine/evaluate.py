"""The static evaluation, per variant, in hundredths of a man from the side to move's view.

Terms: material (a king's value per variant), advancement (tempo, stronger as the board
empties; on 10x10 growing faster near the crowning row), the centre (on 10x10 by files),
on 10x10 the men's free steps forward and the balance of the wings, the back-rank guard
(while the opponent has no king), runaway men (no enemy piece in the cone in front of a
man and no enemy king: it will crown), king mobility, and the endgame draw rules (a
material balance that the variant's small-ending rules or practice make a draw is scaled
towards 0, so the side ahead does not trade into it and the side behind does).

The weighted evaluation reads a table (``weights_<variant>.json`` beside this module, written
by ``tools/tune_eval.py``; International's hand-set values when it has none, 8x8's own hand-set
evaluation above when it has none): the men's square values for the opening and for the
ending, blended by the number of men on the board, the weight of each other term (and, fitted
to Scan's scores, the trade when ahead, the outposts and the kings on the long diagonal), and
learned men patterns (blocks of eight squares within every two neighbouring rows, each
configuration of men a weight; see :func:`pattern_blocks`), folded into one lookup table per
pair of rows so that they cost a lookup a pair (on 8x8 the men's square values are folded into
the same tables, one set per number of men on the board). :meth:`Evaluator.features` is the linear form
the tuner fits, kept exact by
a test.

Everything is precomputed per variant as bit masks in the rules engine's internal layout
(:mod:`rules.geometry`), so an evaluation is a few dozen ``int.bit_count`` calls.
"""

from __future__ import annotations

import json
from array import array
from functools import cache
from pathlib import Path
from typing import Any

from rules import Variant, geometry_for
from rules.geometry import DOWN, UP

MAN = 100
#: a king in men: flying kings are strong on every board here; Portuguese men cannot capture
#: backwards, which makes a king relatively stronger still
KING_VALUE = {"international": 320, "brazilian": 300, "portuguese": 330}
#: International: a man's advancement by rows from his own back row, the central files, the
#: weight of a free step forward and of the imbalance between the wings
ADVANCE_10 = (0, 2, 4, 8, 12, 18, 26, 38, 52)
CENTRE_FILE_10 = (0, 1, 3, 4, 6, 6, 4, 3, 1, 0)
MOBILITY_10 = 2
BALANCE_10 = 3
#: International's tuned weights (data, written by tools/tune_eval.py): a tapered square table
#: for the men (opening/middle game and ending, blended by the men on the board) and the
#: weights of the other terms. Without the file the hand-set values above are used.
WEIGHTS_DIR = Path(__file__).parent
WEIGHTS_10 = WEIGHTS_DIR / "weights_international.json"
#: International's men patterns: the board read as five bands of two rows (ten squares, ten
#: consecutive bits of the internal layout), each band seen through two overlapping windows of
#: four squares per row (the left four and the right four of each row): ten blocks of eight
#: squares, each configuration of its men (empty, White's man, Black's man: a base-3 number) a
#: learned weight for White. A block and its image with the board turned (and the colours
#: swapped) share one table, so five tables of 3^8 weights; a configuration never seen in the
#: training data weighs 0, as do all of them without a weights file. Kings are not men here.
#: Across the bands as well: the same windows over each pair of rows that straddles two bands
#: (rows 8-7, 6-5, 4-3, 2-1 from the top; eleven bits with the padding bit inside), four more
#: tables, so that every two neighbouring rows are seen together.
PATTERN_TABLES = 9
PATTERN_SIZE = 3**8
BAND_BITS = 11
#: the scalar terms that came with the fit of issue 30 (after ``support`` in the table's order);
#: they weigh 0 in a table written before them, and in the hand-set one
NEW_SCALARS = ("trade", "outposts", "king_diagonal")


def weights_path(variant: Variant) -> Path:
    """Where a variant's fitted table lives (``engine/weights_<variant>.json``)."""
    return WEIGHTS_10 if variant.name == "international" else WEIGHTS_DIR / f"weights_{variant.name}.json"


@cache
def band_rows(variant: Variant) -> tuple[tuple[int, int], ...]:
    """The pairs of rows the patterns read, upper row first: the bands of two rows from the
    top, then (10x10) the pairs that straddle two bands."""
    size = geometry_for(variant).size
    rows = [(size - 1 - 2 * band, size - 2 - 2 * band) for band in range(size // 2)]
    if size == 10:
        rows += [(size - 2 - 2 * k, size - 3 - 2 * k) for k in range(size // 2 - 1)]
    return tuple(rows)


@cache
def pattern_bands(variant: Variant) -> tuple[tuple[int, int], ...]:
    """Each pair of :func:`band_rows` in the internal layout: (first bit, width in bits; a
    width includes the padding bits inside)."""
    geo = geometry_for(variant)
    out = []
    for rows in band_rows(variant):
        bits = [geo.bit_of_square[s] for s in range(1, geo.count + 1) if geo.coords[s][1] in rows]
        out.append((min(bits), max(bits) - min(bits) + 1))
    return tuple(out)


def bands_of(variant: Variant) -> tuple[tuple[int, int], ...]:
    """The board as bands of two rows in the internal layout: (first bit, width in bits)
    per band, from the top (a band's width includes the padding bits inside it)."""
    return pattern_bands(variant)[: geometry_for(variant).size // 2]


@cache
def pattern_blocks(variant: Variant) -> tuple[tuple[int, int, tuple[int, ...], int], ...]:
    """The pattern blocks of a variant: (band, table, the squares' bit offsets within the
    band in the table's order, sign: +1 when a White man is the table's digit 1, -1 for the
    turned image, where a Black man is digit 1 and the weight counts for Black).

    International: each band of two rows seen through two overlapping windows of four squares
    per row (ten blocks of eight squares, five tables), and the same over the pairs of rows
    that straddle two bands (bands 5-8 of :func:`pattern_bands`: eight blocks, four tables).
    8x8: each band whole (eight squares; four blocks, two tables: a band and its turned image
    share one)."""
    geo = geometry_for(variant)
    size = geo.size
    by_coord = {geo.coords[s]: s for s in range(1, geo.count + 1)}
    bit = geo.bit_of_square
    bands = pattern_bands(variant)
    rows = band_rows(variant)

    def turned(b: int) -> int:
        s = geo.square_of_bit[b]
        f, r = geo.coords[s]
        return bit[by_coord[(size - 1 - f, size - 1 - r)]]

    def band_squares(band: int) -> list[int]:
        # the band's squares: its upper row, then its lower row, files left to right
        r_up, r_down = rows[band]
        up = sorted((f, bit[s]) for (f, r), s in by_coord.items() if r == r_up)
        down = sorted((f, bit[s]) for (f, r), s in by_coord.items() if r == r_down)
        return [b for _f, b in up] + [b for _f, b in down]

    windows: list[tuple[int, list[int]]] = []
    if size == 10:
        for band, right in [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (5, 0), (5, 1), (6, 0), (6, 1)]:
            sq = band_squares(band)
            windows.append((band, sq[right : right + 4] + sq[5 + right : 9 + right]))
    else:
        windows = [(band, band_squares(band)) for band in range(len(bands) // 2)]
    out = []
    for table, (band, window) in enumerate(windows):
        lo, width = bands[band]
        assert all(lo <= b < lo + width for b in window)
        out.append((band, table, tuple(b - lo for b in window), 1))
        image = [turned(b) for b in window]
        r_up, r_down = rows[band]
        iband = rows.index((size - 1 - r_down, size - 1 - r_up))
        ilo, iwidth = bands[iband]
        assert all(ilo <= b < ilo + iwidth for b in image)
        out.append((iband, table, tuple(b - ilo for b in image), -1))
    return tuple(out)


def pattern_blocks_10() -> tuple[tuple[int, int, tuple[int, ...], int], ...]:
    """International's blocks (:func:`pattern_blocks`)."""
    return pattern_blocks(_international())


def pattern_count(variant: Variant) -> int:
    """The number of pattern tables (each of :data:`PATTERN_SIZE` weights)."""
    return max(t for _b, t, _o, _s in pattern_blocks(variant)) + 1


def pattern_index(wm: int, bm: int, shift: int, offsets: tuple[int, ...], sign: int) -> int:
    """A block's configuration as its table's index (digit 1: White's man for sign +1)."""
    idx = 0
    one, two = (wm, bm) if sign > 0 else (bm, wm)
    for i, o in enumerate(offsets):
        if (one >> (shift + o)) & 1:
            idx += 3**i
        elif (two >> (shift + o)) & 1:
            idx += 2 * 3**i
    return idx


def pattern_index_10(wm: int, bm: int, band: int, offsets: tuple[int, ...], sign: int) -> int:
    """International's :func:`pattern_index` (band ``band`` starts at bit ``band x BAND_BITS``)."""
    return pattern_index(wm, bm, band * BAND_BITS, offsets, sign)


def hand_weights_10() -> dict[str, Any]:
    """International's hand-set weights in the tuned file's shape (the tuner's start)."""
    from rules import find_variant

    geo = geometry_for(find_variant("international"))
    mid, end = [], []
    for s in range(1, geo.count + 1):
        f, r = geo.coords[s]
        adv = ADVANCE_10[min(r, len(ADVANCE_10) - 1)]
        mid.append(adv + CENTRE_FILE_10[f])
        end.append(adv * 3 // 2 + CENTRE_FILE_10[f])
    return {
        "king": KING_VALUE["international"],
        "men_opening": mid,
        "men_ending": end,
        "mobility": MOBILITY_10,
        "balance": BALANCE_10,
        "back_rank": 8,
        "runaway": [40, 30, 20],
        "king_mobility": 2,
        "support": 0,
        **dict.fromkeys(NEW_SCALARS, 0),
        "patterns": [[0] * PATTERN_SIZE for _ in range(PATTERN_TABLES)],
    }


def hand_weights(variant: Variant) -> dict[str, Any]:
    """A variant's hand-set weights in the tuned file's shape: International's table; on 8x8
    the nearest table to the hand-set evaluation (its men's values by row and centre, per
    phase; the back rank, runaways, king mobility), the tuner's start."""
    if variant.name == "international":
        return hand_weights_10()
    geo = geometry_for(variant)
    ev = Evaluator(variant, tuned=False)  # (not the cached evaluator: a table may be under test)
    mid, end = [], []
    for s in range(1, geo.count + 1):
        r = geo.coords[s][1]
        centre = 6 if (ev.centre >> geo.bit_of_square[s]) & 1 else 0
        adv = r if 1 <= r <= geo.size - 2 else 0
        mid.append(2 * adv + centre)
        end.append(4 * adv + centre)
    return {
        "king": KING_VALUE.get(variant.name, 300),
        "men_opening": mid,
        "men_ending": end,
        "mobility": 0,
        "balance": 0,
        "back_rank": 8,
        "runaway": [40, 30, 20],
        "king_mobility": 2,
        "support": 0,
        **dict.fromkeys(NEW_SCALARS, 0),
        "patterns": [[0] * PATTERN_SIZE for _ in range(pattern_count(variant))],
    }


def weights_10() -> dict[str, Any]:
    table = weights_for(_international())
    assert table is not None
    return table


def weights_for(variant: Variant) -> dict[str, Any] | None:
    """The variant's fitted table (its file), International's hand-set one without a file, or
    None (8x8 without a file: the hand-set evaluation)."""
    path = weights_path(variant)
    if not path.exists():
        return hand_weights_10() if variant.name == "international" else None
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        # the shape the evaluator needs: every weight present, the square tables full length
        vector = weight_vector(data, variant)
        if len(vector) != len(weight_names(variant)) or not all(isinstance(v, int | float) for v in vector):
            raise ValueError("a table of the wrong size or with a non-number")
    except KeyError as e:
        raise ValueError(f"{path}: not a weights table (no {e}); rewrite it with tools/tune_eval.py") from None
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path}: not a weights table ({e}); rewrite it with tools/tune_eval.py") from None
    return data


def _chunked(values: dict[int, int], nbits: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """A per-bit table as lookups of 8 bits at a time: ((shift, 256 sums), ...)."""
    out = []
    for lo in range(0, nbits, 8):
        sums = [0] * 256
        for v in range(1, 256):
            low = v & -v
            sums[v] = sums[v ^ low] + values.get(lo + low.bit_length() - 1, 0)
        out.append((lo, tuple(sums)))
    return tuple(out)


class Evaluator:
    """Evaluation tables for one variant (shared, immutable)."""

    def __init__(self, variant: Variant, tuned: bool = True) -> None:
        """``tuned``: the variant's fitted table when it has one (``weights_<variant>.json``);
        false: the hand-set evaluation whatever ships (International's hand-set table, 8x8's
        own evaluation), the one a fitted table is measured against."""
        geo = geometry_for(variant)
        self.variant = variant
        self.geo = geo
        size = geo.size
        self.king = KING_VALUE.get(variant.name, 300)
        self.mask = geo.mask
        bit = geo.bit_of_square
        coord = geo.coords

        def rank_of(sq: int, side: int) -> int:
            r = coord[sq][1]
            return r if side == 0 else size - 1 - r

        squares = range(1, geo.count + 1)
        # rows counted from each side's own back row (0) to its crowning row (size - 1)
        self.rows: tuple[tuple[int, ...], ...] = tuple(
            tuple(sum(1 << bit[s] for s in squares if rank_of(s, side) == r) for r in range(size)) for side in (0, 1)
        )
        self.back: tuple[int, int] = (self.rows[0][0], self.rows[1][0])
        lo, hi = 2, size - 3
        rlo, rhi = size // 2 - 2, size // 2 + 1
        self.centre = sum(1 << bit[s] for s in squares if lo <= coord[s][0] <= hi and rlo <= coord[s][1] <= rhi)
        # the cone in front of a man: every square it could be stopped from
        cones: list[dict[int, int]] = [{}, {}]
        for side in (0, 1):
            for s in squares:
                f, r = coord[s]
                m = 0
                for t in squares:
                    tf, tr = coord[t]
                    ahead = (tr - r) if side == 0 else (r - tr)
                    if ahead > 0 and abs(tf - f) <= ahead:
                        m |= 1 << bit[t]
                cones[side][bit[s]] = m
        self.cones = cones
        # men past the middle: the only ones checked for a free run
        self.front: tuple[int, int] = (
            sum(self.rows[0][r] for r in range(size // 2, size)),
            sum(self.rows[1][r] for r in range(size // 2, size)),
        )
        self.rank_of_bit: tuple[dict[int, int], dict[int, int]] = (
            {bit[s]: rank_of(s, 0) for s in squares},
            {bit[s]: rank_of(s, 1) for s in squares},
        )
        self.rays = geo.rays
        self.size = size
        self.start_men = variant.start_rows * geo.half * 2
        # material balances that are draws in practice (or by a small-ending rule): the
        # strong side's advantage is divided by 8. The Portuguese forced-win rule (3 kings
        # v 1 once the rio is held) is a win, so rules counted from squares are left out.
        drawish: set[tuple[int, int, int, int]] = set()
        for rule in variant.endings:
            if rule.counted_from_squares:
                continue
            for sk, sm, k, m in rule.material:
                drawish.add((sk, sm, k, m))
                drawish.add((k, m, sk, sm))
        for a in range(1, 3):
            for b in range(1, 3):
                drawish.add((a, 0, b, 0))  # 1 or 2 kings against 1 or 2 kings
        self.drawish = frozenset(drawish)
        self.drawish_pieces = max((sum(d) for d in drawish), default=0)
        # the men's square tables (advancement and centre), per phase (1: the opening and
        # middle game, 2: half the men gone) and side, looked up 8 bits at a time
        files = [coord[s][0] for s in squares]
        ten = size == 10
        self.ten = ten

        def man_value(s: int, side: int, phase: int) -> int:
            r = rank_of(s, side)
            if ten:
                # International (after py-draughts' tuned shape, Scan-like): advancement grows
                # faster near the crowning row; the central files count
                adv = ADVANCE_10[min(r, len(ADVANCE_10) - 1)] * (3 if phase == 2 else 2) // 2
                return adv + CENTRE_FILE_10[coord[s][0]]
            adv = r * 2 * phase if 1 <= r <= size - 2 else 0
            return adv + (6 if (self.centre >> bit[s]) & 1 else 0)

        nbits = geo.nbits
        self.pst: tuple[tuple[tuple[tuple[int, tuple[int, ...]], ...], ...], ...] = tuple(
            tuple(_chunked({bit[s]: man_value(s, side, phase) for s in squares}, nbits) for side in (0, 1))
            for phase in (1, 2)
        )
        self.left = sum(1 << bit[s] for s, f in zip(squares, files, strict=True) if f <= 3)
        self.right = sum(1 << bit[s] for s, f in zip(squares, files, strict=True) if f >= size - 4)
        offs = geo.offsets
        self.fwd = ((offs[UP[0]], offs[UP[1]]), (offs[DOWN[0]], offs[DOWN[1]]))
        # White's two steps forward as right shifts (Black's: the same as left shifts)
        self.steps = (-self.fwd[0][0], -self.fwd[0][1])
        assert min(self.steps) > 0 and self.fwd[1] == (self.steps[1], self.steps[0])
        # the opponent's half, short of the crowning row: where a man is an outpost
        self.outpost_rows = (
            sum(self.rows[0][r] for r in range(size // 2, size - 1)),
            sum(self.rows[1][r] for r in range(size // 2, size - 1)),
        )
        # the long diagonal (double corner to double corner): a king's road
        diag = [s for s in squares if coord[s][0] == coord[s][1]]
        if len(diag) < size:
            diag = [s for s in squares if coord[s][0] + coord[s][1] == size - 1]
        self.long_diagonal = sum(1 << bit[s] for s in diag)
        # the square each side's man stands on, seen from White's side (the tables' index)
        by_coord = {coord[s]: s for s in squares}
        self.rel: tuple[dict[int, int], dict[int, int]] = (
            {bit[s]: s for s in squares},
            {bit[s]: by_coord[(size - 1 - coord[s][0], size - 1 - coord[s][1])] for s in squares},
        )
        # the weighted evaluation (International always; 8x8 with a fitted table), else 8x8's own
        self.weighted = False
        self.bands = pattern_bands(variant)
        self.n_bands = size // 2  # the bands proper; after them (10x10) the straddling pairs
        self.blocks = pattern_blocks(variant)
        table = weights_for(variant) if tuned else (hand_weights_10() if self.ten else None)
        if table is not None:
            self.use_weights(table)

    def use_weights(self, w: dict[str, Any]) -> None:
        """A weights table (tuned, or hand-set in the table's shape) as chunked tables per
        side: from now on the weighted evaluation (:meth:`features` is its linear form)."""
        self.weighted = True
        self.king = int(w["king"])
        self.w_open = tuple(int(v) for v in w["men_opening"])
        self.w_end = tuple(int(v) for v in w["men_ending"])
        # the blended men's tables per number of men on the board (built when first needed):
        # per side, the lookup tables of 8 bits each (seven on 10x10, five on 8x8)
        # (a set-up position may hold more men than the start: up to a man on every square,
        # valued as at the start)
        self.w_men_luts: list[tuple[tuple[tuple[int, ...], ...], ...]] = [()] * (self.geo.count + 1)
        self.w_mob = int(w["mobility"])
        self.w_bal = int(w["balance"])
        self.w_back = int(w["back_rank"])
        self.w_run = tuple(int(x) for x in w["runaway"])
        self.w_kmob = int(w["king_mobility"])
        self.w_sup = int(w["support"])
        self.w_trade, self.w_post, self.w_diag = (int(w.get(k, 0)) for k in NEW_SCALARS)
        self.w_extra = bool(self.w_post or self.w_diag)
        self.use_patterns(w.get("patterns"))
        if not self.ten:
            self._fold_bands()

    use_weights_10 = use_weights

    def use_patterns(self, patterns: list[list[int]] | None) -> None:
        """The pattern weights folded per band: one table of 3^width sums indexed by the
        band's White men (:attr:`trit1`) plus its Black men (:attr:`trit2`); none when all are 0."""
        self.pat_tables: tuple[list[int], ...] = ()
        self.cross_tables: tuple[list[int], ...] = ()
        if not patterns or not any(any(t) for t in patterns):
            return
        tables = [[int(v) for v in t] for t in patterns]
        width = max(w for _lo, w in self.bands[: self.n_bands])
        geo = self.geo
        squares = {geo.bit_of_square[s] for s in range(1, geo.count + 1)}

        def digits(band: int) -> list[int]:
            # a band's digits: every bit of a band proper (so 8x8's padding inside counts as an
            # always-empty square); a straddling pair's squares alone (its padding bit skipped)
            lo, w = self.bands[band]
            if band < self.n_bands:
                return list(range(width))
            return [o for o in range(w) if lo + o in squares]

        bands: dict[int, list[int]] = {}
        for band, table, offsets, sign in self.blocks:
            # the block's index for every configuration of the band's squares, built digit
            # by digit (the band's configuration is sum of digit x 3^position, White's man 1)
            idx = [0]
            for o in digits(band):
                d1 = d2 = 0
                if o in offsets:
                    p = 3 ** offsets.index(o)
                    d1, d2 = (p, 2 * p) if sign > 0 else (2 * p, p)
                idx = idx + [x + d1 for x in idx] + [x + d2 for x in idx]
            weights = tables[table]
            add = [sign * weights[i] for i in idx]
            prev = bands.get(band)
            bands[band] = add if prev is None else [a + b for a, b in zip(prev, add, strict=True)]
        assert sorted(bands) == list(range(len(self.bands)))  # as the evaluation reads them
        self.pat_tables = tuple(bands[band] for band in range(self.n_bands))
        self.cross_tables = tuple(bands[band] for band in range(self.n_bands, len(self.bands)))
        self.trit1 = tuple(sum(3**o for o in range(width) if (v >> o) & 1) for v in range(1 << width))
        self.trit2 = tuple(2 * t for t in self.trit1)
        if self.cross_tables:
            _lo, cw = self.bands[self.n_bands]
            ds = digits(self.n_bands)
            assert all(digits(b) == ds for b in range(self.n_bands, len(self.bands)))
            self.ctrit1 = tuple(sum(3**i for i, o in enumerate(ds) if (v >> o) & 1) for v in range(1 << cw))
            self.ctrit2 = tuple(2 * t for t in self.ctrit1)
            self.cross_mask = (1 << cw) - 1
            self.cross_shifts = tuple(lo for lo, _w in self.bands[self.n_bands :])

    use_patterns_10 = use_patterns

    def _fold_bands(self) -> None:
        """8x8: the men's square values and the patterns, both sums over a band's men, read
        together: one table per band of its men's configuration (base 3 over its eight squares,
        White's man 1), built for each number of men on the board when first needed
        (:meth:`_band_tables`). Four lookups instead of ten and four."""
        geo = self.geo
        squares = {geo.bit_of_square[s] for s in range(1, geo.count + 1)}
        bands = self.bands[: self.n_bands]
        width = max(w for _lo, w in bands)
        offsets = [o for o in range(width) if bands[0][0] + o in squares]
        assert all([o for o in range(width) if lo + o in squares] == offsets for lo, _w in bands)
        self.band_offsets = tuple(offsets)
        self.band_mask = (1 << width) - 1
        self.band_shifts = tuple(lo for lo, _w in bands)
        self.btrit1 = tuple(sum(3**i for i, o in enumerate(offsets) if (v >> o) & 1) for v in range(1 << width))
        self.btrit2 = tuple(2 * t for t in self.btrit1)
        size = 3 ** len(offsets)
        if self.pat_tables:
            # the pattern tables are indexed over every bit of the band (padding too, always 0:
            # :attr:`trit1`)
            t1 = self.trit1
            sq = [sum(1 << o for i, o in enumerate(offsets) if (c // 3**i) % 3 == 1) for c in range(size)]
            sq2 = [sum(1 << o for i, o in enumerate(offsets) if (c // 3**i) % 3 == 2) for c in range(size)]
            self.band_patterns = tuple(
                [table[t1[a] + 2 * t1[b]] for a, b in zip(sq, sq2, strict=True)] for table in self.pat_tables
            )
        else:
            self.band_patterns = tuple([0] * size for _ in bands)
        self.w_band_luts: list[tuple[array[int], ...]] = [()] * (self.geo.count + 1)

    def _blend(self, total_men: int) -> list[int]:
        """The men's square values (from each side's own view, square 1 first) for ``total_men``
        men on the board: the opening's and the ending's tables blended by the men left (more
        men than the start, in a set-up position: valued as at the start)."""
        start = self.start_men
        men = min(total_men, start)
        return [round((a * men + e * (start - men)) / start) for a, e in zip(self.w_open, self.w_end, strict=True)]

    def _band_tables(self, total_men: int) -> tuple[array[int], ...]:
        """8x8: each band's table (:meth:`_fold_bands`) for ``total_men`` men on the board,
        from White's view: his men's square values less Black's, plus the patterns (machine
        integers: 105 KB a number of men, where lists of Python integers took 630 KB)."""
        blend = self._blend(total_men)
        white, black = self.rel
        out = []
        for (lo, _w), patterns in zip(self.bands[: self.n_bands], self.band_patterns, strict=True):
            values = [0]
            for o in self.band_offsets:
                # digit by digit: empty, White's man (his value), Black's man (less his)
                vw, vb = blend[white[lo + o] - 1], blend[black[lo + o] - 1]
                values = values + [x + vw for x in values] + [x - vb for x in values]
            out.append(array("i", [v + p for v, p in zip(values, patterns, strict=True)]))
        self.w_band_luts[total_men] = tables = tuple(out)
        return tables

    def evaluate(self, om: int, ok: int, xm: int, xk: int, side: int) -> int:
        """The position's value for the side to move (own men/kings, opponent's men/kings)."""
        if self.weighted:
            return self._evaluate_w(om, ok, xm, xk, side)
        n_om, n_ok, n_xm, n_xk = om.bit_count(), ok.bit_count(), xm.bit_count(), xk.bit_count()
        king = self.king
        material = (n_om - n_xm) * MAN + (n_ok - n_xk) * king
        total_men = n_om + n_xm
        # advancement weighs more as the board empties (the race to crown)
        phase = 2 if total_men * 2 <= self.start_men else 1
        score = material
        for sh, table in self.pst[phase - 1][side]:
            score += table[(om >> sh) & 255]
        for sh, table in self.pst[phase - 1][1 - side]:
            score -= table[(xm >> sh) & 255]
        # the back rank keeps the opponent from crowning: worth something while he has no king
        if not xk and phase == 1:
            score += 8 * (om & self.back[side]).bit_count()
        if not ok and phase == 1:
            score -= 8 * (xm & self.back[1 - side]).bit_count()
        # runaway men: nothing in front can stop them and no enemy king to catch them
        if not xk:
            score += self._runaways(om & self.front[side], xm | xk, side)
        if not ok:
            score -= self._runaways(xm & self.front[1 - side], om | ok, 1 - side)
        # king mobility
        if ok or xk:
            empty = self.mask & ~(om | ok | xm | xk)
            score += 2 * (self._mobility(ok, empty) - self._mobility(xk, empty))
        if (n_ok, n_om, n_xk, n_xm) in self.drawish:
            score = score // 8 if score >= 0 else -(-score // 8)  # towards 0 alike for both sides
        return score

    def _evaluate_w(self, om: int, ok: int, xm: int, xk: int, side: int) -> int:
        """From the weights table (the same terms as :meth:`features`)."""
        n_om, n_ok, n_xm, n_xk = om.bit_count(), ok.bit_count(), xm.bit_count(), xk.bit_count()
        total_men = n_om + n_xm
        start = self.start_men
        score = (n_om - n_xm) * MAN + (n_ok - n_xk) * self.king
        if self.ten:
            per_side = self.w_men_luts[total_men] or self._men_tables(total_men)
            # (unrolled: 54 bits are seven lookups of 8)
            t0, t1, t2, t3, t4, t5, t6 = per_side[side]
            score += (
                t0[om & 255]
                + t1[(om >> 8) & 255]
                + t2[(om >> 16) & 255]
                + t3[(om >> 24) & 255]
                + t4[(om >> 32) & 255]
                + t5[(om >> 40) & 255]
                + t6[(om >> 48) & 255]
            )
            t0, t1, t2, t3, t4, t5, t6 = per_side[1 - side]
            score -= (
                t0[xm & 255]
                + t1[(xm >> 8) & 255]
                + t2[(xm >> 16) & 255]
                + t3[(xm >> 24) & 255]
                + t4[(xm >> 32) & 255]
                + t5[(xm >> 40) & 255]
                + t6[(xm >> 48) & 255]
            )
        else:
            # 8x8: the men's square values and the patterns, band by band (:meth:`_fold_bands`)
            q0, q1, q2, q3 = self.w_band_luts[total_men] or self._band_tables(total_men)
            u1, u2 = self.btrit1, self.btrit2
            m = self.band_mask
            _s0, s1, s2, s3 = self.band_shifts
            wm, bm = (xm, om) if side else (om, xm)
            men = (
                q0[u1[wm & m] + u2[bm & m]]
                + q1[u1[(wm >> s1) & m] + u2[(bm >> s1) & m]]
                + q2[u1[(wm >> s2) & m] + u2[(bm >> s2) & m]]
                + q3[u1[(wm >> s3) & m] + u2[(bm >> s3) & m]]
            )
            score += -men if side else men
        own, opp = om | ok, xm | xk
        empty = self.mask & ~(own | opp)
        # the men's free steps forward and the men with a piece of theirs behind (White steps
        # to lower bits by a and b, Black to higher)
        a, b = self.steps
        if side:
            wm, wn, bm, bn = xm, opp, om, own
        else:
            wm, wn, bm, bn = om, own, xm, opp
        # (a term whose weight is 0 is not computed)
        if self.w_mob:
            mob = (
                ((wm >> a) & empty).bit_count()
                + ((wm >> b) & empty).bit_count()
                - ((bm << a) & empty).bit_count()
                - ((bm << b) & empty).bit_count()
            )
            score += self.w_mob * (-mob if side else mob)
        if self.w_sup:
            sup = (
                (wm & (wn >> a)).bit_count()
                + (wm & (wn >> b)).bit_count()
                - (bm & (bn << a)).bit_count()
                - (bm & (bn << b)).bit_count()
            )
            score += self.w_sup * (-sup if side else sup)
        if self.w_bal:
            left, right = self.left, self.right
            bal = abs((opp & left).bit_count() - (opp & right).bit_count()) - abs(
                (own & left).bit_count() - (own & right).bit_count()
            )
            score += self.w_bal * bal
        if total_men * 2 > start:
            if not xk:
                score += self.w_back * (om & self.back[side]).bit_count()
            if not ok:
                score -= self.w_back * (xm & self.back[1 - side]).bit_count()
        if not xk and om & self.front[side]:
            score += self._runaways(om & self.front[side], opp, side, self.w_run)
        if not ok and xm & self.front[1 - side]:
            score -= self._runaways(xm & self.front[1 - side], own, 1 - side, self.w_run)
        if ok or xk:
            score += self.w_kmob * (self._mobility(ok, empty) - self._mobility(xk, empty))
        pieces = n_om + n_ok + n_xm + n_xk
        if self.w_trade:
            score += self.w_trade * (n_om + n_ok - n_xm - n_xk) * ((start - pieces) // 4)
        if self.w_extra:
            # (:meth:`_extra`'s outposts and long diagonal, inline: White's men with both
            # squares behind them held, less Black's, then for the side to move)
            rows = self.outpost_rows
            post = (wm & rows[0] & (wn >> a) & (wn >> b)).bit_count() - (
                bm & rows[1] & (bn << a) & (bn << b)
            ).bit_count()
            diag = self.long_diagonal
            score += self.w_post * (-post if side else post) + self.w_diag * (
                (ok & diag).bit_count() - (xk & diag).bit_count()
            )
        if self.pat_tables and self.ten:
            t1, t2 = self.trit1, self.trit2
            wm, bm = (xm, om) if side else (om, xm)
            # International: the five bands of two rows (bits 0-9, 11-20, ...), unrolled, White's
            # men first
            p0, p1, p2, p3, p4 = self.pat_tables
            pat = (
                p0[t1[wm & 1023] + t2[bm & 1023]]
                + p1[t1[(wm >> 11) & 1023] + t2[(bm >> 11) & 1023]]
                + p2[t1[(wm >> 22) & 1023] + t2[(bm >> 22) & 1023]]
                + p3[t1[(wm >> 33) & 1023] + t2[(bm >> 33) & 1023]]
                + p4[t1[(wm >> 44) & 1023] + t2[(bm >> 44) & 1023]]
            )
            if self.cross_tables:
                # the four pairs of rows across the bands (bits 5-15, 16-26, ...)
                c0, c1, c2, c3 = self.cross_tables
                u1, u2 = self.ctrit1, self.ctrit2
                pat += (
                    c0[u1[(wm >> 5) & 2047] + u2[(bm >> 5) & 2047]]
                    + c1[u1[(wm >> 16) & 2047] + u2[(bm >> 16) & 2047]]
                    + c2[u1[(wm >> 27) & 2047] + u2[(bm >> 27) & 2047]]
                    + c3[u1[(wm >> 38) & 2047] + u2[(bm >> 38) & 2047]]
                )
            score += -pat if side else pat
        if pieces <= self.drawish_pieces and (n_ok, n_om, n_xk, n_xm) in self.drawish:
            score = score // 8 if score >= 0 else -(-score // 8)
        return score

    def _extra(self, om: int, ok: int, xm: int, xk: int, side: int, ahead: int) -> tuple[int, int, int]:
        """The terms of issue 30's fit, each own minus the opponent's: the pieces ahead times
        how empty the board is (in quarters of the men at the start: trading when ahead),
        the outposts (a man in the opponent's half with both squares behind him held) and
        kings on the long diagonal."""
        own, opp = om | ok, xm | xk
        trade = ahead * ((self.start_men - (own | opp).bit_count()) // 4)
        post = 0
        for men, mine, (f0, f1), rows, sign in (
            (om, own, self.fwd[side], self.outpost_rows[side], 1),
            (xm, opp, self.fwd[1 - side], self.outpost_rows[1 - side], -1),
        ):
            held = men & rows
            if held:
                held &= (mine << f0) if f0 > 0 else (mine >> -f0)
                held &= (mine << f1) if f1 > 0 else (mine >> -f1)
                post += sign * held.bit_count()
        diag = (ok & self.long_diagonal).bit_count() - (xk & self.long_diagonal).bit_count()
        return trade, post, diag

    def _men_tables(self, total_men: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """The men's square values blended for ``total_men`` men on the board, per side: the
        lookup tables of 8 bits each, from bit 0 up."""
        blend = self._blend(total_men)
        tables = tuple(_chunked({b: blend[t - 1] for b, t in self.rel[sd].items()}, self.geo.nbits) for sd in (0, 1))
        assert all([sh for sh, _t in tables[sd]] == list(range(0, 8 * len(tables[sd]), 8)) for sd in (0, 1))
        assert len(tables[0]) == 7  # (10x10 alone: 8x8 reads its men by bands, :meth:`_band_tables`)
        self.w_men_luts[total_men] = tuple(tuple(t for _sh, t in tables[sd]) for sd in (0, 1))
        return self.w_men_luts[total_men]

    def features(self, om: int, ok: int, xm: int, xk: int, side: int) -> tuple[int, dict[int, float]]:
        """The weighted evaluation for the tuner: (the untuned part: men's material, {weight
        index: its factor}), in the order of :func:`weight_names`; the score is the part plus
        the sum of weight x factor (before the draw scaling and the integer rounding)."""
        n_om, n_ok, n_xm, n_xk = om.bit_count(), ok.bit_count(), xm.bit_count(), xk.bit_count()
        total_men = n_om + n_xm
        start = self.start_men
        x: dict[int, float] = {}

        def add(i: int, v: float) -> None:
            if v:
                x[i] = x.get(i, 0.0) + v

        add(0, n_ok - n_xk)
        count = self.geo.count
        men = min(total_men, start)  # (more men than the start: valued as at the start)
        a, e = men / start, (start - men) / start
        for men, sign, sd in ((om, 1, side), (xm, -1, 1 - side)):
            rel = self.rel[sd]
            while men:
                low = men & -men
                b = low.bit_length() - 1
                men ^= low
                t = rel[b]
                add(t, sign * a)
                add(count + t, sign * e)
        base = 1 + 2 * count
        own, opp = om | ok, xm | xk
        empty = self.mask & ~(own | opp)
        mob = sup = 0
        for off in self.fwd[side]:
            mob += (((om >> -off) if off < 0 else (om << off)) & empty).bit_count()
            sup += (om & ((own >> -off) if off < 0 else (own << off))).bit_count()
        for off in self.fwd[1 - side]:
            mob -= (((xm >> -off) if off < 0 else (xm << off)) & empty).bit_count()
            sup -= (xm & ((opp >> -off) if off < 0 else (opp << off))).bit_count()
        add(base, mob)
        left, right = self.left, self.right
        add(
            base + 1,
            abs((opp & left).bit_count() - (opp & right).bit_count())
            - abs((own & left).bit_count() - (own & right).bit_count()),
        )
        if total_men * 2 > start:
            if not xk:
                add(base + 2, (om & self.back[side]).bit_count())
            if not ok:
                add(base + 2, -(xm & self.back[1 - side]).bit_count())
        top = self.size - 1
        for men, blockers, sd, sign, cond in (
            (om & self.front[side], opp, side, 1, not xk),
            (xm & self.front[1 - side], own, 1 - side, -1, not ok),
        ):
            if not cond:
                continue
            cones, ranks = self.cones[sd], self.rank_of_bit[sd]
            while men:
                low = men & -men
                b = low.bit_length() - 1
                men ^= low
                if not cones[b] & blockers:
                    add(base + 3, sign)
                    add(base + 4, sign * (ranks[b] * 2 > top))
                    add(base + 5, sign * (top - ranks[b] <= 2))
        if ok or xk:
            add(base + 6, self._mobility(ok, empty) - self._mobility(xk, empty))
        add(base + 7, sup)
        ahead = n_om + n_ok - n_xm - n_xk
        for i, v in enumerate(self._extra(om, ok, xm, xk, side, ahead)):
            add(base + 8 + i, v)
        wm, bm = (om, xm) if side == 0 else (xm, om)
        view = 1 if side == 0 else -1
        bands = self.bands
        first = base + 8 + len(NEW_SCALARS)
        for band, table, offsets, sign in self.blocks:
            add(first + table * PATTERN_SIZE + pattern_index(wm, bm, bands[band][0], offsets, sign), view * sign)
        return (n_om - n_xm) * MAN, x

    features_10 = features

    def _runaways(self, men: int, blockers: int, side: int, weights: tuple[int, ...] = (40, 30, 20)) -> int:
        """Men with nothing in their cone: ``base`` each, ``past`` more beyond the middle,
        ``near`` more within two ranks of crowning (8x8's fixed weights by default; 10x10
        passes its table's)."""
        base, past, near = weights
        bonus = 0
        cones = self.cones[side]
        ranks = self.rank_of_bit[side]
        top = self.size - 1
        while men:
            low = men & -men
            b = low.bit_length() - 1
            men ^= low
            if not cones[b] & blockers:
                bonus += base + past * (ranks[b] * 2 > top) + near * (top - ranks[b] <= 2)
        return bonus

    def _mobility(self, kings: int, empty: int) -> int:
        n = 0
        rays = self.rays
        while kings:
            low = kings & -kings
            k = low.bit_length() - 1
            kings ^= low
            for ray in rays[k]:
                for b in ray:
                    if not (empty >> b) & 1:
                        break
                    n += 1
        return n


def weight_vector(w: dict[str, Any], variant: Variant) -> list[float]:
    """The weights in the order of :meth:`Evaluator.features`."""
    return [
        w["king"],
        *w["men_opening"],
        *w["men_ending"],
        w["mobility"],
        w["balance"],
        w["back_rank"],
        *w["runaway"],
        w["king_mobility"],
        w["support"],
        *(w.get(k, 0) for k in NEW_SCALARS),
        *_patterns_of(w, pattern_count(variant)),
    ]


def _patterns_of(w: dict[str, Any], tables_count: int) -> list[float]:
    """The pattern weights flat (table by table); none in the table: all 0."""
    tables = w.get("patterns")
    if tables is None:
        return [0] * (tables_count * PATTERN_SIZE)
    if not isinstance(tables, list) or not all(isinstance(t, list) for t in tables):
        raise ValueError("patterns: not a list of tables")
    return [v for t in tables for v in t]


def weight_names(variant: Variant) -> list[str]:
    """The name of each entry of :func:`weight_vector` (a square table's as ``name[square]``)."""
    squares = geometry_for(variant).count
    return [
        "king",
        *(f"men_opening[{s}]" for s in range(1, squares + 1)),
        *(f"men_ending[{s}]" for s in range(1, squares + 1)),
        "mobility",
        "balance",
        "back_rank",
        "runaway[0]",
        "runaway[1]",
        "runaway[2]",
        "king_mobility",
        "support",
        *NEW_SCALARS,
        *(f"patterns[{t}][{i}]" for t in range(pattern_count(variant)) for i in range(PATTERN_SIZE)),
    ]


def weight_dict(v: list[int], variant: Variant) -> dict[str, Any]:
    """The inverse of :func:`weight_vector` (for the tuner's output)."""
    tables = pattern_count(variant)
    scalars = 9 + len(NEW_SCALARS)  # the king, then after the men's tables every other term
    n = (len(v) - scalars - tables * PATTERN_SIZE) // 2
    p0 = scalars + 2 * n
    return {
        "king": v[0],
        "men_opening": v[1 : 1 + n],
        "men_ending": v[1 + n : 1 + 2 * n],
        "mobility": v[1 + 2 * n],
        "balance": v[2 + 2 * n],
        "back_rank": v[3 + 2 * n],
        "runaway": v[4 + 2 * n : 7 + 2 * n],
        "king_mobility": v[7 + 2 * n],
        "support": v[8 + 2 * n],
        **{k: v[9 + 2 * n + i] for i, k in enumerate(NEW_SCALARS)},
        "patterns": [v[p0 + t * PATTERN_SIZE : p0 + (t + 1) * PATTERN_SIZE] for t in range(tables)],
    }


def _international() -> Variant:
    from rules import find_variant

    return find_variant("international")


def weight_vector_10(w: dict[str, Any]) -> list[float]:
    return weight_vector(w, _international())


def weight_names_10() -> list[str]:
    return weight_names(_international())


def weight_dict_10(v: list[int]) -> dict[str, Any]:
    return weight_dict(v, _international())


@cache
def evaluator_for(variant: Variant) -> Evaluator:
    return Evaluator(variant)
