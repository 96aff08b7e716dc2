"""The move generator: bitboards in the padded layout of :mod:`rules.geometry`.

This is the hot path (perft, the referee's matching), so it works on plain ints:
``own_men, own_kings, opp_men, opp_kings`` of the side to move. A *raw move* is a
tuple ``(origin_bit, dest_bit, captured_mask, promotes, routes)`` where ``routes`` is
``None`` for a plain move or a tuple of ``(landing_bits, captured_bits)`` pairs: every
route (sequence of landing squares) that realises the same capture. Distinct legal
moves are distinct ``(origin, destination, captured set)``.

The capture laws live here, never in callers: captured pieces stay on the board until
the move ends (they block and cannot be jumped twice), a king must land where its
capture continues, and the variant's law (majority, quantity-then-quality) filters.
"""

from __future__ import annotations

from functools import cache

from rules.geometry import DOWN, UP, Geometry, geometry_for
from rules.variants import CaptureLaw, Variant

RawRoute = tuple[tuple[int, ...], tuple[int, ...]]
RawMove = tuple[int, int, int, bool, "tuple[RawRoute, ...] | None"]


def _bits(x: int) -> list[int]:
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


class Engine:
    """Move generation for one variant (shared, immutable)."""

    def __init__(self, variant: Variant) -> None:
        geo: Geometry = geometry_for(variant)
        self.variant = variant
        self.geo = geo
        self.mask = geo.mask
        self.step = geo.step
        self.rays = geo.rays
        offs = geo.offsets
        self.flying = variant.flying_kings
        self.law = variant.capture_law
        # per side (index 0 = white, 1 = black)
        self.fwd_offsets = ((offs[UP[0]], offs[UP[1]]), (offs[DOWN[0]], offs[DOWN[1]]))
        all_dirs = (0, 1, 2, 3)
        if variant.men_capture_backward:
            self.man_cap_dirs: tuple[tuple[int, ...], tuple[int, ...]] = (all_dirs, all_dirs)
        else:
            self.man_cap_dirs = (UP, DOWN)
        self.man_cap_offsets = tuple(tuple(offs[d] for d in dirs) for dirs in self.man_cap_dirs)
        self.promo = (geo.top_row, geo.bottom_row)

    # -- generation ----------------------------------------------------------------------
    def moves(self, own_m: int, own_k: int, opp_m: int, opp_k: int, side: int) -> list[RawMove]:
        """All distinct legal moves of the side to move."""
        caps = self.captures(own_m, own_k, opp_m, opp_k, side)
        if caps:
            return caps
        return self.quiet_moves(own_m, own_k, opp_m, opp_k, side)

    def quiet_moves(self, own_m: int, own_k: int, opp_m: int, opp_k: int, side: int) -> list[RawMove]:
        empty = self.mask & ~(own_m | own_k | opp_m | opp_k)
        promo = self.promo[side]
        out: list[RawMove] = []
        for off in self.fwd_offsets[side]:
            t = ((own_m >> -off) if off < 0 else (own_m << off)) & empty
            while t:
                low = t & -t
                b = low.bit_length() - 1
                t ^= low
                out.append((b - off, b, 0, bool(low & promo), None))
        if own_k:
            rays = self.rays
            flying = self.flying
            for k in _bits(own_k):
                for ray in rays[k]:
                    for b in ray:
                        if not (empty >> b) & 1:
                            break
                        out.append((k, b, 0, False, None))
                        if not flying:
                            break
        return out

    def count_quiet(self, own_m: int, own_k: int, opp_m: int, opp_k: int, side: int) -> int:
        """The number of plain moves (no capture) — perft's bulk count at the leaves."""
        empty = self.mask & ~(own_m | own_k | opp_m | opp_k)
        n = 0
        for off in self.fwd_offsets[side]:
            n += (((own_m >> -off) if off < 0 else (own_m << off)) & empty).bit_count()
        if own_k:
            rays = self.rays
            flying = self.flying
            for k in _bits(own_k):
                for ray in rays[k]:
                    for b in ray:
                        if not (empty >> b) & 1:
                            break
                        n += 1
                        if not flying:
                            break
        return n

    def men_that_capture(self, own_m: int, opp: int, empty: int, side: int) -> int:
        """Mask of the men with at least one immediate capture."""
        cand = 0
        for off in self.man_cap_offsets[side]:
            if off > 0:
                cand |= own_m & (opp >> off) & (empty >> (off + off))
            else:
                cand |= own_m & (opp << -off) & (empty << -(off + off))
        return cand

    def captures(
        self, own_m: int, own_k: int, opp_m: int, opp_k: int, side: int, law: CaptureLaw | None = None
    ) -> list[RawMove]:
        """The legal captures (after the capture law), deduplicated, with all routes.

        ``law`` replaces the variant's capture law (:meth:`pseudo_captures` passes ``FREE``).
        """
        opp = opp_m | opp_k
        occ = own_m | own_k | opp
        empty = self.mask & ~occ
        found: list[RawRoute] = []
        offs = self.man_cap_offsets[side]
        # the men that can capture (men_that_capture, inline: this is the hot path)
        men = 0
        for off in offs:
            if off > 0:
                men |= own_m & (opp >> off) & (empty >> (off + off))
            else:
                men |= own_m & (opp << -off) & (empty << -(off + off))
        if men:
            dirs = self.man_cap_dirs[side]
            while men:
                low = men & -men
                men ^= low
                b = low.bit_length() - 1
                here = empty | low
                # one jump each way; a jump that cannot go on is a route at once (the common
                # case), one that can is followed by the full search (_man_dfs)
                for off in offs:
                    mid = b + off
                    land = mid + off
                    if land < 0 or not (opp >> mid) & 1 or not (here >> land) & 1:
                        continue
                    rest = opp & ~(1 << mid)
                    for off2 in offs:
                        m2 = land + off2
                        l2 = m2 + off2
                        if l2 >= 0 and (rest >> m2) & 1 and (here >> l2) & 1:
                            self._man_dfs(land, rest, here, [b, land], [mid], found, dirs)
                            break
                    else:
                        found.append(((b, land), (mid,)))
        if own_k:
            for k in _bits(own_k):
                self._king_dfs(k, opp, empty | (1 << k), [k], [], found)
        if not found:
            return []
        promo = self.promo[side]
        if len(found) == 1:  # the common case: nothing to choose, nothing to merge
            path, caps = found[0]
            cm = 0
            for c in caps:
                cm |= 1 << c
            o, d = path[0], path[-1]
            return [(o, d, cm, bool((own_m >> o) & 1 and (promo >> d) & 1), ((path, caps),))]
        # the capture law
        if law is None:
            law = self.law
        if law is not CaptureLaw.FREE:
            best = max(len(c) for _, c in found)
            found = [r for r in found if len(r[1]) == best]
            if law is CaptureLaw.QUANTITY_QUALITY and len(found) > 1:

                def kings(route: tuple[tuple[int, ...], tuple[int, ...]]) -> int:
                    return sum((opp_k >> c) & 1 for c in route[1])

                most = max(kings(r) for r in found)
                found = [r for r in found if kings(r) == most]
        # one move per (origin, destination, captured set)
        groups: dict[tuple[int, int, int], list[RawRoute]] = {}
        for path, caps in found:
            cm = 0
            for c in caps:
                cm |= 1 << c
            groups.setdefault((path[0], path[-1], cm), []).append((path, caps))
        out: list[RawMove] = []
        for (o, d, cm), routes in groups.items():
            promotes = bool((own_m >> o) & 1 and (promo >> d) & 1)
            out.append((o, d, cm, promotes, tuple(routes)))
        return out

    def pseudo_captures(self, own_m: int, own_k: int, opp_m: int, opp_k: int, side: int) -> list[RawMove]:
        """Every capture the pieces could make, whatever the capture law says: each piece
        still takes all it can along its route (a man or king keeps jumping while it can, a
        king lands where its capture continues), but no route is preferred to another."""
        return self.captures(own_m, own_k, opp_m, opp_k, side, CaptureLaw.FREE)

    def _man_dfs(
        self,
        pos: int,
        opp_free: int,
        empty: int,
        path: list[int],
        caps: list[int],
        out: list[RawRoute],
        dirs: tuple[int, ...],
    ) -> None:
        step = self.step
        here = step[pos]
        more = False
        for d in dirs:
            mid = here[d]
            if mid < 0 or not (opp_free >> mid) & 1:
                continue
            land = step[mid][d]
            if land < 0 or not (empty >> land) & 1:
                continue
            more = True
            path.append(land)
            caps.append(mid)
            self._man_dfs(land, opp_free & ~(1 << mid), empty, path, caps, out, dirs)
            path.pop()
            caps.pop()
        if not more and caps:
            out.append((tuple(path), tuple(caps)))

    def _king_jumps(self, pos: int, opp_free: int, empty: int) -> list[tuple[int, list[int]]]:
        """(captured bit, landing bits) for each capture a king on ``pos`` can start."""
        jumps = []
        flying = self.flying
        for ray in self.rays[pos]:
            n = len(ray)
            i = 0
            if flying:
                while i < n and (empty >> ray[i]) & 1:
                    i += 1
            if i >= n or not (opp_free >> ray[i]) & 1:
                continue
            victim = ray[i]
            lands = []
            j = i + 1
            while j < n and (empty >> ray[j]) & 1:
                lands.append(ray[j])
                if not flying:
                    break
                j += 1
            if lands:
                jumps.append((victim, lands))
        return jumps

    def _king_dfs(
        self,
        pos: int,
        opp_free: int,
        empty: int,
        path: list[int],
        caps: list[int],
        out: list[RawRoute],
    ) -> None:
        for victim, lands in self._king_jumps(pos, opp_free, empty):
            rest = opp_free & ~(1 << victim)
            caps.append(victim)
            # a king must land where the capture continues, if it can (INT 4.6, PT 2.2.8)
            going_on = [b for b in lands if self._king_jumps(b, rest, empty)]
            if going_on:
                for b in going_on:
                    path.append(b)
                    self._king_dfs(b, rest, empty, path, caps, out)
                    path.pop()
            else:
                for b in lands:
                    out.append(((*path, b), tuple(caps)))
            caps.pop()


def make_move(raw: RawMove, own_m: int, own_k: int, opp_m: int, opp_k: int) -> tuple[int, int, int, int]:
    """The one make-move: the pieces after ``raw``, seen from the side to move next
    (``opp_m, opp_k, own_m, own_k``: the opponent's men and kings first)."""
    o, d, cm, promotes, _routes = raw
    ob, db = 1 << o, 1 << d
    if own_m & ob:
        # (not ^ for the destination: a capture may end on the square it started from)
        if promotes:
            own_m ^= ob
            own_k |= db
        else:
            own_m = (own_m & ~ob) | db
    else:
        own_k = (own_k & ~ob) | db
    if cm:
        return opp_m & ~cm, opp_k & ~cm, own_m, own_k
    return opp_m, opp_k, own_m, own_k


@cache
def engine_for(variant: Variant) -> Engine:
    return Engine(variant)
