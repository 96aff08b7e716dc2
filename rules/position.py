"""Positions: who stands where and who is to move; legal moves; FEN; move notation.

A :class:`Position` is an immutable value (hashable, comparable). :class:`rules.Game`
adds the history, the draw rules and the result on top of it.

>>> p = Position.start("international")
>>> len(p.legal_moves)
9
>>> p.fen()
'W:W31-50:B1-20'
>>> p.parse_pdn("32-28")
Move(path=(32, 28))
>>> p.pdn(Move((32, 28)))
'32-28'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from rules.engine import Engine, RawMove, engine_for, make_move
from rules.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidSquareError,
    shown_text,
)
from rules.geometry import Geometry, Square
from rules.move import Move
from rules.variants import Color, Variant, find_variant


class Piece(NamedTuple):
    color: Color
    king: bool

    @property
    def symbol(self) -> str:
        """``w``/``b`` for men, ``W``/``B`` for kings."""
        s = self.color.letter
        return s if self.king else s.lower()


_ASCII_NUMBER = re.compile(r"[0-9]{1,9}")  # str.isdigit() also passes '²' and '١', which int() refuses
_SQUARE_RE = re.compile(r"[a-jA-J](?:10|[1-9])|[0-9]{1,2}")


class Position:
    """The pieces and the side to move, for one variant."""

    __slots__ = ("_legal", "_occupied", "_pseudo", "bk", "bm", "engine", "turn", "variant", "wk", "wm")

    def __init__(
        self,
        variant: Variant | str,
        *,
        white_men: Iterable[Square] = (),
        white_kings: Iterable[Square] = (),
        black_men: Iterable[Square] = (),
        black_kings: Iterable[Square] = (),
        turn: Color = Color.WHITE,
    ) -> None:
        v = find_variant(variant)
        eng = engine_for(v)
        geo = eng.geo
        masks = []
        seen: set[Square] = set()
        for group in (white_men, white_kings, black_men, black_kings):
            m = 0
            for sq in group:
                if not isinstance(sq, int) or not 1 <= sq <= geo.count:
                    raise InvalidSquareError(f"no square {sq!r} on a {geo.size}x{geo.size} board")
                if sq in seen:
                    raise InvalidSquareError(f"square {sq!r} holds two pieces")
                seen.add(sq)
                m |= 1 << geo.bit_of_square[sq]
            masks.append(m)
        self._init(v, eng, masks[0], masks[1], masks[2], masks[3], turn)

    def _init(self, v: Variant, eng: Engine, wm: int, wk: int, bm: int, bk: int, turn: Color) -> None:
        self.variant = v
        self.engine = eng
        self.wm, self.wk, self.bm, self.bk = wm, wk, bm, bk
        self.turn = turn
        self._legal: list[RawMove] | None = None
        self._pseudo: list[RawMove] | None = None
        self._occupied: frozenset[Square] | None = None

    @classmethod
    def _from_bits(cls, v: Variant, eng: Engine, wm: int, wk: int, bm: int, bk: int, turn: Color) -> Position:
        p = cls.__new__(cls)
        p._init(v, eng, wm, wk, bm, bk, turn)
        return p

    @classmethod
    def start(cls, variant: Variant | str) -> Position:
        v = find_variant(variant)
        return cls.from_fen(v.start_fen(), v)

    @property
    def geometry(self) -> Geometry:
        return self.engine.geo

    # -- value semantics -------------------------------------------------------------------
    @property
    def key(self) -> tuple[int, int, int, int, bool]:
        return (self.wm, self.wk, self.bm, self.bk, self.turn is Color.WHITE)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self.variant is other.variant and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Position({self.variant.name!r}, {self.fen()!r})"

    def __str__(self) -> str:
        return self.diagram()

    # -- pieces ------------------------------------------------------------------------------
    def _squares(self, mask: int) -> list[Square]:
        sq_of = self.engine.geo.square_of_bit
        out = []
        while mask:
            low = mask & -mask
            out.append(sq_of[low.bit_length() - 1])
            mask ^= low
        return sorted(out)

    def squares(self, color: Color, king: bool | None = None) -> list[Square]:
        """The squares of one side's pieces (men, kings, or both when ``king`` is None)."""
        men, kings = (self.wm, self.wk) if color is Color.WHITE else (self.bm, self.bk)
        mask = (men | kings) if king is None else (kings if king else men)
        return self._squares(mask)

    def occupied(self) -> frozenset[Square]:
        if self._occupied is None:  # (a position never changes: the referee asks this often)
            self._occupied = frozenset(self._squares(self.wm | self.wk | self.bm | self.bk))
        return self._occupied

    def piece_at(self, square: Square) -> Piece | None:
        geo = self.engine.geo
        if not 1 <= square <= geo.count:
            raise InvalidSquareError(f"no square {square!r} on a {geo.size}x{geo.size} board")
        b = 1 << geo.bit_of_square[square]
        if self.wm & b:
            return Piece(Color.WHITE, False)
        if self.wk & b:
            return Piece(Color.WHITE, True)
        if self.bm & b:
            return Piece(Color.BLACK, False)
        if self.bk & b:
            return Piece(Color.BLACK, True)
        return None

    def pieces(self) -> dict[Square, Piece]:
        out: dict[Square, Piece] = {}
        for mask, piece in (
            (self.wm, Piece(Color.WHITE, False)),
            (self.wk, Piece(Color.WHITE, True)),
            (self.bm, Piece(Color.BLACK, False)),
            (self.bk, Piece(Color.BLACK, True)),
        ):
            for sq in self._squares(mask):
                out[sq] = piece
        return dict(sorted(out.items()))

    def material(self) -> tuple[int, int, int, int]:
        """(white kings, white men, black kings, black men)."""
        return (self.wk.bit_count(), self.wm.bit_count(), self.bk.bit_count(), self.bm.bit_count())

    def with_turn(self, turn: Color) -> Position:
        return Position._from_bits(self.variant, self.engine, self.wm, self.wk, self.bm, self.bk, turn)

    # -- moves -------------------------------------------------------------------------------
    def _sides(self) -> tuple[int, int, int, int, int]:
        if self.turn is Color.WHITE:
            return self.wm, self.wk, self.bm, self.bk, 0
        return self.bm, self.bk, self.wm, self.wk, 1

    def _raw_moves(self) -> list[RawMove]:
        if self._legal is None:
            self._legal = self.engine.moves(*self._sides())
        return self._legal

    def _to_move(self, raw: RawMove, route: int = 0) -> Move:
        sq = self.engine.geo.square_of_bit
        o, d, _cm, promotes, routes = raw
        if routes is None:
            return Move((sq[o], sq[d]), (), promotes)
        path, caps = routes[route]
        return Move(tuple(sq[b] for b in path), tuple(sq[b] for b in caps), promotes)

    @property
    def legal_moves(self) -> LegalMoves:
        """The legal moves, as a live view: ``move in pos.legal_moves``, ``len(...)``,
        ``bool(...)``, iteration (one route per move; see :meth:`routes`)."""
        return LegalMoves(self)

    def has_legal_moves(self) -> bool:
        return bool(self._raw_moves())

    def has_captures(self) -> bool:
        raw = self._raw_moves()
        return bool(raw) and raw[0][4] is not None

    def capture_moves(self) -> list[Move]:
        """The legal captures (empty when no capture is possible)."""
        return [self._to_move(r) for r in self._raw_moves() if r[4] is not None]

    def _pseudo_raw_moves(self) -> list[RawMove]:
        if self._pseudo is None:
            own_m, own_k, opp_m, opp_k, side = self._sides()
            eng = self.engine
            self._pseudo = eng.pseudo_captures(own_m, own_k, opp_m, opp_k, side) + eng.quiet_moves(
                own_m, own_k, opp_m, opp_k, side
            )
        return self._pseudo

    @property
    def pseudo_legal_moves(self) -> PseudoLegalMoves:
        """The moves the pieces could make by their way of moving alone, ignoring that a
        capture is compulsory and the capture law (majority, quantity then quality): every
        plain move and every capture a piece can complete (it still jumps while it can).
        A live view like :attr:`legal_moves`, which it contains.

        What a player may try on a real board: the referee tells a wrong move of this kind
        ("a capture is compulsory", "the law requires taking 2 pieces") from an impossible one.

        >>> p = Position.from_fen("W:W28,33:B22,23,12", "international")
        >>> [str(m) for m in p.legal_moves]
        ['28x17x8']
        >>> sorted(str(m) for m in p.pseudo_legal_moves)
        ['28x17x8', '28x19', '33-29']
        """
        return PseudoLegalMoves(self)

    def pseudo_captures(self) -> list[Move]:
        """Every capture of :attr:`pseudo_legal_moves`: what each piece can take, before the
        capture law picks among them."""
        return [self._to_move(r) for r in self._pseudo_raw_moves() if r[4] is not None]

    def _find_raw(self, move: Move, raws: list[RawMove] | None = None) -> RawMove | None:
        key = move.key
        sq = self.engine.geo.square_of_bit
        for raw in self._raw_moves() if raws is None else raws:
            o, d, _cm, _p, routes = raw
            if sq[o] != key[0] or sq[d] != key[1]:
                continue
            caps = frozenset(sq[b] for b in routes[0][1]) if routes else frozenset()
            if caps == key[2]:
                return raw
        return None

    def is_legal(self, move: Move) -> bool:
        return self._find_raw(move) is not None

    def routes(self, move: Move) -> list[Move]:
        """Every route (landing squares, jump order) that realises a legal move."""
        raw = self._find_raw(move)
        if raw is None:
            raise IllegalMoveError(f"illegal move: {move.numeric()!r} in {self.fen()!r}")
        if raw[4] is None:
            return [self._to_move(raw)]
        return [self._to_move(raw, i) for i in range(len(raw[4]))]

    def legal(self, move: Move) -> Move:
        """The canonical legal move equal to ``move`` (raises if it is not legal)."""
        raw = self._find_raw(move)
        if raw is None:
            raise IllegalMoveError(f"illegal move: {move.numeric()!r} in {self.fen()!r}")
        # keep the caller's route if it is one of the legal routes
        if raw[4] is not None:
            for i in range(len(raw[4])):
                m = self._to_move(raw, i)
                if m.path == move.path and m.captured == move.captured:
                    return m
        return self._to_move(raw)

    def _apply_raw(self, raw: RawMove) -> Position:
        own_m, own_k, opp_m, opp_k, side = self._sides()
        next_m, next_k, mover_m, mover_k = make_move(raw, own_m, own_k, opp_m, opp_k)
        if side == 0:
            return Position._from_bits(self.variant, self.engine, mover_m, mover_k, next_m, next_k, Color.BLACK)
        return Position._from_bits(self.variant, self.engine, next_m, next_k, mover_m, mover_k, Color.WHITE)

    def apply(self, move: Move) -> Position:
        """The position after a legal move (raises :class:`IllegalMoveError` otherwise)."""
        raw = self._find_raw(move)
        if raw is None:
            raise IllegalMoveError(f"illegal move: {move.numeric()!r} in {self.fen()!r}")
        return self._apply_raw(raw)

    def children(self) -> Iterator[tuple[Move, Position]]:
        for raw in self._raw_moves():
            yield self._to_move(raw), self._apply_raw(raw)

    # -- notation ----------------------------------------------------------------------------
    def square_text(self, square: Square, notation: str | None = None) -> str:
        style = notation or self.variant.notation
        return self.engine.geo.square_name(square) if style == "algebraic" else str(square)

    def pdn(self, move: Move, notation: str | None = None, *, full: bool | None = None) -> str:
        """PDN text of a legal move: ``32-28``, ``26x37``, or the whole path when the
        origin and destination alone would be ambiguous (``47x38x24x13x36``)."""
        if full is None:
            full = False
            if move.captured:
                sq = self.engine.geo.square_of_bit
                ends = (move.from_square, move.to_square)
                full = sum(1 for r in self._raw_moves() if (sq[r[0]], sq[r[1]]) == ends) > 1
        sep = "x" if move.captured else "-"
        squares = move.path if (full and move.captured) else (move.path[0], move.path[-1])
        return sep.join(self.square_text(s, notation) for s in squares)

    def parse_pdn(self, text: str) -> Move:
        """The legal move that PDN move text names (numbers or algebraic squares,
        ``-``/``x``/``:`` separators, full or partial capture paths).

        Raises :class:`InvalidMoveError` for text that is not a move, :class:`IllegalMoveError`
        for a move that is not legal here, :class:`AmbiguousMoveError` when it could be several.
        """
        candidates = self.match_moves(text)
        if not candidates:
            raise IllegalMoveError(f"illegal move: {text!r} in {self.fen()!r}")
        if len(candidates) > 1:
            alts = ", ".join(self.pdn(m, full=True) for m in candidates)
            raise AmbiguousMoveError(f"ambiguous move: {text!r} could be {alts}", tuple(candidates))
        return candidates[0]

    def match_moves(self, text: str) -> list[Move]:
        """Every legal move that the move text could mean (empty if none; raises
        :class:`InvalidMoveError` for text that is not a move)."""
        geo = self.engine.geo
        raw_text = text.strip()
        tokens = _SQUARE_RE.findall(raw_text)
        if len(tokens) < 2 or _SQUARE_RE.sub("", raw_text).strip(" -x:X") != "":
            raise InvalidMoveError(f"invalid move text: {text!r}")
        try:
            squares = [geo.parse_square(t) for t in tokens]
        except InvalidSquareError as exc:
            raise InvalidMoveError(f"invalid move text: {text!r} ({exc})") from None
        origin, dest, middle = squares[0], squares[-1], squares[1:-1]
        out: list[Move] = []
        sq = geo.square_of_bit
        for raw in self._raw_moves():
            o, d, _cm, _p, routes = raw
            if sq[o] != origin or sq[d] != dest:
                continue
            if not middle:
                out.append(self._to_move(raw))
                continue
            if routes is None:
                continue
            for i, (path, _caps) in enumerate(routes):
                landings = [sq[b] for b in path[1:-1]]
                if _is_subsequence(middle, landings):
                    out.append(self._to_move(raw, i))
                    break
        wants_capture = "x" in raw_text.lower() or ":" in raw_text
        if len(out) > 1:
            same_kind = [m for m in out if bool(m.captured) == wants_capture]
            out = same_kind or out
        return out

    # -- FEN ---------------------------------------------------------------------------------
    @classmethod
    def from_fen(cls, fen: str, variant: Variant | str) -> Position:
        """Read PDN FEN: ``W:W31-50:B1-20``, ``K`` for kings, numbers or algebraic squares."""
        if not isinstance(fen, str):
            raise InvalidFenError(f"invalid fen: {fen!r} (not text)")
        shown = fen if len(fen) <= 80 else fen[:77] + "..."  # a one-line error, however long the input
        v = find_variant(variant)
        eng = engine_for(v)
        geo = eng.geo
        text = fen.strip().strip('"').strip()
        if text.endswith("."):
            text = text[:-1]
        parts = [p.strip() for p in text.split(":")]
        if not parts or not parts[0]:
            raise InvalidFenError(f"invalid fen: {shown!r} (empty)")
        side = parts[0].upper()
        if side not in ("W", "B"):
            raise InvalidFenError(f"invalid fen: {shown!r} (side to move must be W or B, not {shown_text(parts[0])})")
        turn = Color.WHITE if side == "W" else Color.BLACK
        masks = {"W": [0, 0], "B": [0, 0]}
        seen_colors: set[str] = set()
        for part in parts[1:]:
            if not part:
                continue
            color = part[0].upper()
            if color in ("H", "F") and _ASCII_NUMBER.fullmatch(part[1:].strip()):
                continue  # lidraughts move counters
            if color not in ("W", "B"):
                raise InvalidFenError(f"invalid fen: {shown!r} (unexpected field {shown_text(part)})")
            if color in seen_colors:
                raise InvalidFenError(f"invalid fen: {shown!r} (two {color} fields)")
            seen_colors.add(color)
            body = part[1:].strip()
            if not body:
                continue
            for item in body.split(","):
                item = item.strip()
                if not item:
                    continue
                king = item[0] in "Kk"
                if king:
                    item = item[1:].strip()
                try:
                    if "-" in item:
                        a, b = (geo.parse_square(x) for x in item.split("-", 1))
                        if a > b:
                            raise InvalidFenError(f"invalid fen: {shown!r} (backward range {shown_text(item)})")
                        squares: Iterable[int] = range(a, b + 1)
                    else:
                        squares = (geo.parse_square(item),)
                except InvalidSquareError as exc:
                    raise InvalidFenError(f"invalid fen: {shown!r} ({exc})") from None
                for s in squares:
                    bit = 1 << geo.bit_of_square[s]
                    if any(bit & m for ms in masks.values() for m in ms):
                        raise InvalidFenError(f"invalid fen: {shown!r} (square {s} listed twice)")
                    masks[color][1 if king else 0] |= bit
        wm, wk = masks["W"]
        bm, bk = masks["B"]
        if wm & geo.top_row:
            raise InvalidFenError(f"invalid fen: {shown!r} (a white man on the crowning row)")
        if bm & geo.bottom_row:
            raise InvalidFenError(f"invalid fen: {shown!r} (a black man on the crowning row)")
        return cls._from_bits(v, eng, wm, wk, bm, bk, turn)

    def fen(self, notation: str | None = None) -> str:
        """PDN FEN in the variant's notation (or ``"numeric"``/``"algebraic"``)."""
        style = notation or self.variant.notation
        out = [self.turn.letter]
        for letter, men, kings in (("W", self.wm, self.wk), ("B", self.bm, self.bk)):
            men_sq = set(self._squares(men))
            items: list[str] = []
            all_sq = sorted(men_sq | set(self._squares(kings)))
            i = 0
            while i < len(all_sq):
                s = all_sq[i]
                if s not in men_sq:
                    items.append("K" + self.square_text(s, style))
                    i += 1
                    continue
                j = i
                while (
                    style == "numeric"
                    and j + 1 < len(all_sq)
                    and all_sq[j + 1] == all_sq[j] + 1
                    and all_sq[j + 1] in men_sq
                ):
                    j += 1
                if j - i >= 2:
                    items.append(f"{s}-{all_sq[j]}")
                    i = j + 1
                else:
                    items.append(self.square_text(s, style))
                    i += 1
            out.append(letter + ",".join(items))
        return ":".join(out)

    def diagram(self) -> str:
        """A text picture from White's side (``w``/``b`` men, ``W``/``B`` kings)."""
        geo = self.engine.geo
        rows = []
        for r in range(geo.size - 1, -1, -1):
            cells = []
            for f in range(geo.size):
                sq = geo.square_at(f, r)
                if sq is None:
                    cells.append(" ")
                else:
                    p = self.piece_at(sq)
                    cells.append(p.symbol if p else ".")
            rows.append(f"{r + 1:>2} " + " ".join(cells))
        rows.append("   " + " ".join("abcdefghij"[: geo.size]))
        return "\n".join(rows)


class LegalMoves:
    """A live view of a position's legal moves (python-chess's ``LegalMoveGenerator``).

    Cheap to make; the moves are generated on first use and kept by the position.
    ``move in view`` compares as :class:`Move` does (origin, destination, captured set).

    >>> moves = Position.start("international").legal_moves
    >>> len(moves), Move((32, 28)) in moves, Move((32, 23)) in moves
    (9, True, False)
    """

    __slots__ = ("_position",)

    def __init__(self, position: Position) -> None:
        self._position = position

    def _raws(self) -> list[RawMove]:
        return self._position._raw_moves()

    def __bool__(self) -> bool:
        return bool(self._raws())

    def __len__(self) -> int:
        return len(self._raws())

    def count(self) -> int:
        """The number of moves (``len``)."""
        return len(self._raws())

    def __iter__(self) -> Iterator[Move]:
        to_move = self._position._to_move
        for raw in self._raws():
            yield to_move(raw)

    def __contains__(self, move: object) -> bool:
        return isinstance(move, Move) and self._position._find_raw(move, self._raws()) is not None

    def __repr__(self) -> str:
        pos = self._position
        texts = ", ".join(pos.pdn(m) for m in self)
        return f"<{type(self).__name__} ({texts})>"


class PseudoLegalMoves(LegalMoves):
    """A live view of a position's pseudo-legal moves (:attr:`Position.pseudo_legal_moves`)."""

    __slots__ = ()

    def _raws(self) -> list[RawMove]:
        return self._position._pseudo_raw_moves()


class NoMoves(LegalMoves):
    """The legal moves of a game that has ended: none (:attr:`rules.Game.legal_moves`)."""

    __slots__ = ()

    def _raws(self) -> list[RawMove]:
        return []


def _is_subsequence(needle: list[int], hay: list[int]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)
