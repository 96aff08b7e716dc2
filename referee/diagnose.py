"""Diagnosis: what is wrong with a board that nothing explains, and how to put it right.

The referee asks once the board has been still in a state that is neither the game's
position, nor a move, nor a move under way: :func:`classify` names the report (kind,
squares, message) and the occupancy to restore. Pure: it reads the position and the
board, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from referee.candidates import Candidate
from referee.vocabulary import ReportKind
from rules import Color, Move, Position


@dataclass(frozen=True)
class Diagnosis:
    """A report to raise: ``kind``, the ``squares`` it lights, its ``message``, the occupancy
    to restore (``target``: the restore guidance is ``target - board`` to put back and
    ``board - target`` to clear) and the report's ``params``.

    ``sets_irregular``: the diagnosis also replaces the position an irregular move left
    (``irregular``: tournament mode, the position that stands if the opponent plays on;
    None clears it). Otherwise that position is kept as it was."""

    kind: ReportKind
    squares: frozenset[int]
    message: str
    target: frozenset[int]
    params: dict[str, object] = field(default_factory=dict)
    sets_irregular: bool = False
    irregular: Position | None = None


def names(pos: Position, squares: Iterable[int]) -> str:
    """The squares as the variant writes them, in order, comma-separated."""
    return ", ".join(pos.square_text(s) for s in sorted(squares))


def required_capture(pos: Position, cands: list[Candidate], taken: int = 0) -> tuple[list[int], str, dict[str, object]]:
    """Squares, message and parameters of a required-capture report (``cands``: the legal
    moves, all captures; ``taken``: the number of pieces an insufficient capture took)."""
    must = sorted({c.origin for c in cands})
    capturable = sorted({sq for c in cands for sq in c.captured})
    n = max(len(c.captured) for c in cands)
    params: dict[str, object] = {"must_capture": must, "capturable": capturable}
    law = ""
    if taken and taken < n:
        law = f" (the law requires taking {n} pieces)"
        params["law"] = n  # the majority law: the most pieces
    elif taken:
        law = " (the law requires taking the most kings)"
        params["law"] = "kings"
    msg = f"a capture is compulsory: capture with {names(pos, must)}{law}"
    return must, msg, params


def capture_goes_on(
    pos: Position, live: list[Candidate], at: int, touched: Iterable[int]
) -> tuple[list[int], str, dict[str, object]]:
    """A capture paused on one of its landing squares ``at`` (``live``: the captures the board
    may still be part of; ``touched``: the squares put on since the move began): squares,
    message and parameters of the report saying where it goes on — ``at`` and the next
    landing square of each route through it (of the routes that agree with the touch-downs
    before ``at``, when any does). No restore guidance: the capture goes on."""
    before = set(touched) - {at}
    nexts: set[int] = set()
    agreeing: set[int] = set()
    for c in live:
        for route in pos.routes(c.move):
            path = route.path
            for i in range(1, len(path) - 1):
                if path[i] != at:
                    continue
                nexts.add(path[i + 1])
                if before <= set(path[1:i]):
                    agreeing.add(path[i + 1])
    chosen = sorted(agreeing or nexts)
    message = f"continue the capture from {pos.square_text(at)}: next jump to " + " or ".join(
        pos.square_text(q) for q in chosen
    )
    return [at], message, {"at": at, "next": chosen}


def backward(pos: Position, a: int, b: int) -> bool:
    """Is a -> b a step backward for the side to move?"""
    ra = pos.geometry.coord(a)[1]
    rb = pos.geometry.coord(b)[1]
    return rb < ra if pos.turn is Color.WHITE else rb > ra


def irregular_position(pos: Position, a: int, b: int, removed: Iterable[int]) -> Position:
    """The position an irregular move leaves: the piece on ``a`` put on ``b`` (crowned on
    the far row), ``removed`` taken off, the other side to move."""
    pieces = pos.pieces()
    piece = pieces.pop(a)
    for sq in removed:
        pieces.pop(sq, None)
    geo = pos.geometry
    far = geo.size - 1 if piece.color is Color.WHITE else 0
    king = piece.king or geo.coord(b)[1] == far
    pieces[b] = type(piece)(piece.color, king)
    groups: dict[tuple[Color, bool], list[int]] = {}
    for sq, p in pieces.items():
        groups.setdefault((p.color, p.king), []).append(sq)
    return Position(
        pos.variant,
        white_men=groups.get((Color.WHITE, False), []),
        white_kings=groups.get((Color.WHITE, True), []),
        black_men=groups.get((Color.BLACK, False), []),
        black_kings=groups.get((Color.BLACK, True), []),
        turn=piece.color.other,
    )


def classify(
    pos: Position,
    s: frozenset[int],
    cells: Iterable[str],
    cands: list[Candidate],
    *,
    tournament: bool,
) -> Diagnosis:
    """What is wrong with board ``s`` (and the non-playing ``cells`` occupied) in the game's
    position ``pos`` (``cands``: its legal moves)? ``tournament``: an irregular move may
    stand, so the diagnosis keeps the position it leaves."""
    turn = pos.turn
    e = pos.occupied()
    missing, added = e - s, s - e

    def diagnosis(
        kind: ReportKind, squares: Iterable[int], message: str, params: dict[str, object] | None = None
    ) -> Diagnosis:
        return Diagnosis(kind, frozenset(squares), message, e, params or {})

    if cells:
        return diagnosis(
            ReportKind.OFF_SQUARE,
            missing,
            f"a piece stands on {', '.join(sorted(cells))}, which is not a playing square",
        )
    # a capture made, but its pieces still on the board while the opponent moves
    for c in cands:
        left = s - c.after
        gone = c.after - s
        if c.captured and left and left <= c.captured and c.dest in s and c.origin not in s - {c.dest}:
            if not gone:
                break  # a capture in progress, just not finished: the LEDs show what to remove
            return Diagnosis(
                ReportKind.CAPTURED_PIECE_LEFT,
                frozenset(left),
                f"remove the captured piece{'s' if len(left) > 1 else ''} on {names(pos, left)} before the next move",
                c.after,
                sets_irregular=True,
                irregular=None,
            )
    own = set(pos.squares(turn))
    opp = set(pos.squares(turn.other))
    if len(missing) + len(added) >= 4 or (added and len(missing & own) >= 2) or len(added) >= 2:
        return diagnosis(
            ReportKind.KNOCKED_OVER,
            missing | added,
            f"pieces are out of place: put back {names(pos, missing)}" if missing else "pieces are out of place",
        )
    if len(added) == 1 and missing:
        (b,) = added
        movers = [a for a in missing if pos.piece_at(a) is not None]
        moved = [a for a in movers if a in own] or [a for a in movers if a in opp]
        a = moved[0]
        piece = pos.piece_at(a)
        assert piece is not None
        # the position this move leaves, should the opponent play on from it (tournament)
        stands = irregular_position(pos, a, b, missing - {a}) if tournament else None

        def irregular(
            kind: ReportKind, squares: Iterable[int], message: str, params: dict[str, object] | None = None
        ) -> Diagnosis:
            return Diagnosis(kind, frozenset(squares), message, e, params or {}, sets_irregular=True, irregular=stands)

        if piece.color is not turn:
            return irregular(
                ReportKind.WRONG_SIDE, (a, b), f"it is {turn.value}'s move: put the piece back on {pos.square_text(a)}"
            )
        taken = frozenset(missing - {a})
        # a capture the law does not allow, or a plain move while a capture is compulsory
        tried = pos.pseudo_legal_moves
        larger = bool(taken) and Move((a, b), tuple(taken)) in tried
        if pos.has_captures() and (larger or Move((a, b)) in tried):
            must, msg, params = required_capture(pos, cands, len(taken) if larger else 0)
            return irregular(ReportKind.REQUIRED_CAPTURE, must, msg, params=params)
        if taken & own:
            return irregular(
                ReportKind.OWN_PIECE_REMOVED,
                taken & own,
                f"your own piece on {names(pos, taken & own)} was removed: put it back",
            )
        if not piece.king and backward(pos, a, b):
            return irregular(ReportKind.BACKWARD_MAN, (a, b), f"a man cannot move backward ({pos.square_text(a)})")
        return irregular(
            ReportKind.ILLEGAL_SQUARE, (a, b), f"the piece on {pos.square_text(a)} cannot go to {pos.square_text(b)}"
        )
    if not added and missing:
        if missing & own and len(missing) == 1:
            (a,) = missing
            if not any(c.origin == a for c in cands):
                return diagnosis(
                    ReportKind.NO_LEGAL_MOVE, (a,), f"the piece on {pos.square_text(a)} has no legal move: put it back"
                )
        if missing & own:
            return diagnosis(
                ReportKind.OWN_PIECE_REMOVED, missing & own, f"put back the piece on {names(pos, missing & own)}"
            )
        if len(missing) == 1 and not pos.has_captures():
            return diagnosis(
                ReportKind.WRONG_SIDE,
                missing,
                f"it is {turn.value}'s move: put the piece back on {names(pos, missing)}",
            )
        return diagnosis(
            ReportKind.WRONG_PIECE_REMOVED, missing, f"the piece on {names(pos, missing)} was not captured: put it back"
        )
    if added and not missing:
        return diagnosis(ReportKind.UNEXPLAINED, added, f"remove the extra piece on {names(pos, added)}")
    return diagnosis(
        ReportKind.UNEXPLAINED,
        missing | added,
        f"the board does not match the game: put back {names(pos, missing)}, remove {names(pos, added)}",
    )
