"""Perft: the number of legal move sequences of a given length.

Captures that share origin, destination and captured set count once ("drop
duplicates", as Scan, BikDam and the published tables count). Leaves are
bulk-counted: at depth 1 only the number of moves is needed.

Perft needs no routes, so it has its own lean walk over the move generator's tables
(:class:`rules.engine.Engine`): captures as ``(origin, destination, captured)`` found by
a depth-first search on plain ints, the capture law applied to those, and the last ply
counted without listing its moves: with no capture, the men's moves are two shifts and a
``bit_count``; captures by one jump with nowhere to go on, one per jump, by shifts too.
The moves are made by :func:`rules.engine.make_move`, as :class:`rules.Position` makes
them. ``tests/rules/test_perft.py`` checks the walk against the legal moves.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from rules.engine import Engine, RawMove, make_move
from rules.position import Position
from rules.variants import CaptureLaw

Counter = Callable[[int, int, int, int, int, int], int]


@cache
def _counter(eng: Engine) -> Counter:
    """The perft walk for one engine: ``count(own_m, own_k, opp_m, opp_k, side, depth)``."""
    mask = eng.mask
    step = eng.step
    promo = eng.promo
    law = eng.law
    quality = law is CaptureLaw.QUANTITY_QUALITY
    free_law = law is CaptureLaw.FREE
    king_dfs = eng._king_dfs
    king_jumps = eng._king_jumps
    rays = eng.rays
    flying = eng.flying
    # per side and bit: a man's jumps as (victim mask, landing mask, landing bit)
    jumps: list[tuple[tuple[tuple[int, int, int], ...], ...]] = []
    for dirs in eng.man_cap_dirs:
        table: list[tuple[tuple[int, int, int], ...]] = []
        for b in range(len(step)):
            js = []
            for d in dirs:
                mid = step[b][d]
                land = step[mid][d] if mid >= 0 else -1
                if land >= 0:
                    js.append((1 << mid, 1 << land, land))
            table.append(tuple(js))
        jumps.append(tuple(table))

    # the board is symmetric: White's men step by -fa and -fb, Black's by +fa and +fb
    fa, fb = (-o for o in eng.fwd_offsets[0])
    assert tuple(eng.fwd_offsets[1]) == (fb, fa) or tuple(eng.fwd_offsets[1]) == (fa, fb)
    fa2, fb2 = fa + fa, fb + fb
    back = eng.variant.men_capture_backward
    forward_only = not back

    def man_dfs(
        table: tuple[tuple[tuple[int, int, int], ...], ...],
        here: int,
        opp_free: int,
        empty: int,
        taken: int,
        n: int,
        origin: int,
        out: list[tuple[int, int, int, int]],
    ) -> None:
        """A man on ``here`` that can jump: every complete capture from here, as
        ``(pieces taken, origin, destination, taken mask)`` (a call only where it goes on)."""
        n += 1
        for victim, land_m, land in table[here]:
            if opp_free & victim and empty & land_m:
                free = opp_free ^ victim
                for victim2, land_m2, _land2 in table[land]:
                    if free & victim2 and empty & land_m2:
                        man_dfs(table, land, free, empty, taken | victim, n, origin, out)
                        break
                else:
                    out.append((n, origin, land, taken | victim))

    def found_captures(
        own_m: int, own_k: int, opp_k: int, side: int, men: int, opp: int, empty: int
    ) -> list[tuple[int, int, int, int]]:
        """The distinct legal captures as ``(pieces taken, origin, destination, taken mask)``;
        ``men``: the men that can capture."""
        found: list[tuple[int, int, int, int]] = []
        if men:
            table = jumps[side]
            while men:
                low = men & -men
                men ^= low
                b = low.bit_length() - 1
                room = empty | low
                for victim, land_m, land in table[b]:  # man_dfs's first step, inlined
                    if opp & victim and room & land_m:
                        rest = opp ^ victim
                        for victim2, land_m2, _land2 in table[land]:
                            if rest & victim2 and room & land_m2:
                                man_dfs(table, land, rest, room, victim, 1, b, found)
                                break
                        else:
                            found.append((1, b, land, victim))
        if own_k:
            routes: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
            k = own_k
            while k:
                low = k & -k
                k ^= low
                b = low.bit_length() - 1
                king_dfs(b, opp, empty | low, [b], [], routes)
            for path, caps in routes:
                cm = 0
                for c in caps:
                    cm |= 1 << c
                found.append((len(caps), path[0], path[-1], cm))
        if len(found) > 1:
            if not free_law:
                best = max(found)[0]
                found = [f for f in found if f[0] == best]
                if quality and len(found) > 1:
                    most = max((f[3] & opp_k).bit_count() for f in found)
                    found = [f for f in found if (f[3] & opp_k).bit_count() == most]
            if len(found) > 1:
                found = list(dict.fromkeys(found))
        return found

    def has_king_capture(own_k: int, opp: int, empty: int) -> bool:
        while own_k:
            low = own_k & -own_k
            own_k ^= low
            if king_jumps(low.bit_length() - 1, opp, empty | low):
                return True
        return False

    def king_steps(own_k: int, empty: int) -> int:
        n = 0
        while own_k:
            low = own_k & -own_k
            own_k ^= low
            for ray in rays[low.bit_length() - 1]:
                for b in ray:
                    if not (empty >> b) & 1:
                        break
                    n += 1
                    if not flying:
                        break
        return n

    king_quiet = eng.quiet_moves

    def moves(own_m: int, own_k: int, opp_m: int, opp_k: int, side: int) -> list[RawMove]:
        """The legal moves without routes: the captures, else the plain moves."""
        opp = opp_m | opp_k
        empty = mask ^ (own_m | own_k | opp)  # (the pieces stand on playing squares)
        if back:
            cand = (
                ((opp << fa) & (empty << fa2))
                | ((opp << fb) & (empty << fb2))
                | ((opp >> fa) & (empty >> fa2))
                | ((opp >> fb) & (empty >> fb2))
            )
        elif side:
            cand = ((opp >> fa) & (empty >> fa2)) | ((opp >> fb) & (empty >> fb2))
        else:
            cand = ((opp << fa) & (empty << fa2)) | ((opp << fb) & (empty << fb2))
        cand &= own_m
        pm = promo[side]
        if cand or own_k:
            found = found_captures(own_m, own_k, opp_k, side, cand, opp, empty)
            if found:
                return [(o, d, t, bool((own_m >> o) & 1 and (pm >> d) & 1), None) for _n, o, d, t in found]
            if own_k:
                return king_quiet(own_m, own_k, opp_m, opp_k, side)
        out: list[RawMove] = []
        if side:
            for off in (fa, fb):
                t = (own_m << off) & empty
                while t:
                    low = t & -t
                    t ^= low
                    b = low.bit_length() - 1
                    out.append((b - off, b, 0, bool(low & pm), None))
        else:
            for off in (fa, fb):
                t = (own_m >> off) & empty
                while t:
                    low = t & -t
                    t ^= low
                    b = low.bit_length() - 1
                    out.append((b + off, b, 0, bool(low & pm), None))
        return out

    def walk(pieces: tuple[int, int, int, int], side: int, depth: int) -> int:
        own_m, own_k, opp_m, opp_k = pieces
        other = 1 - side
        total = 0
        if depth > 2:
            for raw in moves(own_m, own_k, opp_m, opp_k, side):
                total += walk(make_move(raw, own_m, own_k, opp_m, opp_k), other, depth - 1)
            return total
        # depth 2: each child's moves are counted here, mostly without listing them
        for raw in moves(own_m, own_k, opp_m, opp_k, side):
            om, ok, xm, xk = make_move(raw, own_m, own_k, opp_m, opp_k)
            opp = xm | xk
            empty = mask ^ (om | ok | opp)
            # the squares from which a man could jump, per direction: up by fa, up by fb, down
            # by fa, down by fb (up = towards White's crowning row, the lower bits)
            ua = (opp << fa) & (empty << fa2)
            ub = (opp << fb) & (empty << fb2)
            da = (opp >> fa) & (empty >> fa2)
            db = (opp >> fb) & (empty >> fb2)
            if forward_only:  # men jump forward only (and so do their next jumps)
                if other:
                    ua = ub = 0
                else:
                    da = db = 0
            if om & (ua | ub | da | db):
                ja, jb, jc, jd = om & ua, om & ub, om & da, om & db
                # one jump each and nowhere to go on (the commonest case): one capture per jump;
                # a man landing where it can jump again (not back over its victim) needs the search
                if ok or (
                    ((ja >> fa2) & (ua | ub | db))
                    or ((jb >> fb2) & (ua | ub | da))
                    or ((jc << fa2) & (da | db | ub))
                    or ((jd << fb2) & (da | db | ua))
                ):
                    total += len(found_captures(om, ok, xk, other, ja | jb | jc | jd, opp, empty))
                    continue
                if quality:
                    kings = (
                        ((ja >> fa) & xk).bit_count()
                        + ((jb >> fb) & xk).bit_count()
                        + ((jc << fa) & xk).bit_count()
                        + ((jd << fb) & xk).bit_count()
                    )
                    if kings:
                        total += kings
                        continue
                total += ja.bit_count() + jb.bit_count() + jc.bit_count() + jd.bit_count()
                continue
            if ok:
                if has_king_capture(ok, opp, empty):
                    total += len(found_captures(om, ok, xk, other, 0, opp, empty))
                    continue
                total += king_steps(ok, empty)
            if other:
                total += ((om << fa) & empty).bit_count() + ((om << fb) & empty).bit_count()
            else:
                total += ((om >> fa) & empty).bit_count() + ((om >> fb) & empty).bit_count()
        return total

    def count(own_m: int, own_k: int, opp_m: int, opp_k: int, side: int, depth: int) -> int:
        if depth == 1:
            return len(moves(own_m, own_k, opp_m, opp_k, side))
        return walk((own_m, own_k, opp_m, opp_k), side, depth)

    return count


def perft(position: Position, depth: int) -> int:
    """Count the legal move sequences of ``depth`` plies from ``position``.

    >>> perft(Position.start("brazilian"), 3)
    302
    """
    if depth < 0:
        raise ValueError(f"perft depth must be at least 0, not {depth!r}")
    if depth == 0:
        return 1
    own_m, own_k, opp_m, opp_k, side = position._sides()
    return _counter(position.engine)(own_m, own_k, opp_m, opp_k, side, depth)
