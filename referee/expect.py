"""A side whose moves are set from outside: the computer plays it, the hands only execute.

The app enters ``{"action": "computer", "side": "black", "level": 3}`` (the computer plays
black from now on; without ``side``: nobody any more) and, for each of its moves,
``{"action": "computer-move", "move": "22-17"}`` (square numbers: ``from-to``, or
``fromxtoxcaptured...`` for a capture). On that side's turn the referee accepts only that
move (no move at all while it is not known yet: the computer is thinking), lights it, and
reports anything else the hands do ("play the computer's move 22-17: put the piece back on 9").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from referee.vocabulary import LedIntent, Role
from rules import Move, Position


def engine_text(move: Move) -> str:
    """``move`` in square numbers, as the app enters it (``32-28``, ``28x19x23``)."""
    if not move.captured:
        return f"{move.from_square}-{move.to_square}"
    return "x".join(str(sq) for sq in (move.from_square, move.to_square, *move.captured))


def parse_engine_move(pos: Position, text: str) -> Move | None:
    """The legal move of ``pos`` that ``text`` names (``32-28``, ``28x19x23``: origin, end and
    every captured square), else None."""
    t = text.strip()
    try:
        if "x" in t:
            numbers = [int(x) for x in t.split("x")]
            if len(numbers) < 3:
                return None
            key = (numbers[0], numbers[1], frozenset(numbers[2:]))
            return next((m for m in pos.legal_moves if m.captured and m.key == key), None)
        a, b = (int(x) for x in t.split("-"))
    except ValueError:
        return None
    return next((m for m in pos.legal_moves if not m.captured and m.path == (a, b)), None)


def expected_message(
    pdn: str | None, missing: Iterable[int], extra: Iterable[int], names: Callable[[Iterable[int]], str]
) -> str:
    """What the hands must do: the computer's move (or wait for it), and what to restore first."""
    missing, extra = sorted(missing), sorted(extra)
    guide = []
    if missing:
        guide.append(f"put the piece{'s' if len(missing) > 1 else ''} back on {names(missing)}")
    if extra:
        guide.append(f"take the piece{'s' if len(extra) > 1 else ''} off {names(extra)}")
    head = f"play the computer's move {pdn}" if pdn is not None else "wait for the computer's move"
    return head + (": " + " and ".join(guide) if guide else "")


def expected_leds(pos: Position, move: Move, occupied: frozenset[int]) -> list[LedIntent]:
    """The computer's move as the LEDs show it: its origin, the landings of its route, its end,
    and the captured pieces still on the board."""
    route = pos.routes(move)[0]
    out = [LedIntent(move.from_square, Role.FROM)]
    out += [LedIntent(sq, Role.PATH) for sq in route.path[1:-1] if sq != move.from_square]
    if move.to_square != move.from_square:
        out.append(LedIntent(move.to_square, Role.TO))
    out += [LedIntent(sq, Role.REMOVE) for sq in move.captured if sq in occupied]
    return out
