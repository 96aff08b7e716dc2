"""A game's journal as its two copies hold it: the database's ``journal`` rows and the
append-only ``<id>.jsonl`` beside it. Each event carries its ``seq`` (0, 1, 2, ...): every
reader checks that they follow one another, and says what it found in one line.

Both copies hold every acknowledged event (``Store.append`` writes the copy, then the
database, and only then is the event processed). A power cut between the two writes leaves
one event, never acknowledged, in the copy only: it did happen (the hands made it), so the
next start takes it into the database. Anything else missing from one copy is damage, and
the other copy fills it in; an event missing from both is a hole: the game can be replayed
only up to it, and is then kept as damaged, never silently shortened.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


def spans(seqs: Iterable[int]) -> str:
    """Sequence numbers as short ranges: ``0–7, 9, 12–14`` (``none``: empty)."""
    ordered = sorted(set(seqs))
    if not ordered:
        return "none"
    out = []
    start = prev = ordered[0]
    for s in [*ordered[1:], None]:
        if s is not None and s == prev + 1:
            prev = s
            continue
        out.append(str(start) if start == prev else f"{start}–{prev}")
        if s is not None:
            start = prev = s
    return ", ".join(out)


def events_phrase(seqs: Iterable[int]) -> str:
    """``event 4`` / ``events 4–6`` / ``no events``."""
    ordered = sorted(set(seqs))
    if not ordered:
        return "no events"
    return f"event{'s' if len(ordered) > 1 else ''} {spans(ordered)}"


def prefix(seqs: Iterable[int]) -> int:
    """How many events follow one another from seq 0 (the first missing seq)."""
    have = set(seqs)
    n = 0
    while n in have:
        n += 1
    return n


def holes(seqs: Iterable[int]) -> list[int]:
    """The seqs missing below the highest one."""
    have = set(seqs)
    return [s for s in range(max(have) + 1) if s not in have] if have else []


@dataclass
class Merged:
    """The two copies of one game's journal taken together (the database's preferred where
    both hold an event: it is what was processed)."""

    events: dict[int, dict[str, Any]]
    db: set[int]
    copy: set[int]
    differ: list[int] = field(default_factory=list)  # seqs whose two copies are not the same event
    from_copy: set[int] = field(default_factory=set)  # of those, the ones whose database event is damaged

    @property
    def whole(self) -> int:
        """How many events can be replayed: those before the first hole."""
        return prefix(self.events)

    @property
    def holes(self) -> list[int]:
        return holes(self.events)

    @property
    def db_lacks(self) -> set[int]:
        """The events the database lacks, or holds damaged where the copy has them whole."""
        return (set(self.events) - self.db) | self.from_copy

    @property
    def copy_lacks(self) -> set[int]:
        return set(self.events) - self.copy

    def replayable(self) -> list[tuple[int, dict[str, Any]]]:
        return [(s, self.events[s]) for s in range(self.whole)]

    def every(self) -> list[tuple[int, dict[str, Any]]]:
        return sorted(self.events.items())


def merge(
    db: Mapping[int, dict[str, Any]],
    copy: Mapping[int, dict[str, Any]],
    first_bad: Callable[[dict[int, dict[str, Any]]], int | None] | None = None,
) -> Merged:
    """Both copies: the database's event where both hold one, unless ``first_bad`` (given the
    events, the seq of the first that cannot be read as an event) finds it damaged and the
    copy's differs: then the copy's is taken, and the next damaged one looked for."""
    events = {**copy, **db}
    differ = sorted(s for s in set(db) & set(copy) if db[s] != copy[s])
    merged = Merged(events, set(db), set(copy), differ)
    if first_bad is None:
        return merged
    while (bad := first_bad(merged.events)) is not None and bad in differ and bad not in merged.from_copy:
        merged.events[bad] = copy[bad]
        merged.from_copy.add(bad)
    return merged


def found(merged: Merged, copy_name: str) -> str:
    """What each copy holds, when they are not the same: ``the database holds events 0–6, the copy
    X events 0–7``."""
    return f"the database holds {_held(merged.db)}, the copy {copy_name} {_held(merged.copy)}"


def _held(seqs: set[int]) -> str:
    return events_phrase(seqs) if seqs else "no events"
