"""Fuzzing the rules' text readers: FEN and PDN (seeded, bounded; see harness.py)."""

from __future__ import annotations

import random

import pytest

from rules import DraughtsError, Position
from rules.errors import PdnSyntaxError, PdnTagError
from rules.pdn import iter_games, read_pdn
from tests.conftest import shared_path
from tests.fuzz.harness import SIZES, mutate_text, nasty_text, run_case

VARIANTS = ("brazilian", "international", "portuguese")
FEN_SEEDS = [
    "W:W31-50:B1-20",
    "B:WK15,31,29:B14,12-13,K9",
    "W:Wa3,c3,e3:Bb8,d8.",
    "W:W21-32:B1-12:H0:F1",
    '"B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29"',
]


def _fen_text(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return nasty_text(rng, rng.randint(0, 30))
    return mutate_text(rng, rng.choice(FEN_SEEDS))


@pytest.mark.parametrize("cases", SIZES)
def test_fuzz_fen(cases: int) -> None:
    rng = random.Random(16_7_1)
    for i in range(cases):
        text = _fen_text(rng)
        variant = rng.choice(VARIANTS)

        def case() -> None:
            pos = Position.from_fen(text, variant)  # noqa: B023
            assert Position.from_fen(pos.fen(), variant) == pos  # noqa: B023
            list(pos.legal_moves)

        run_case(f"fen case {i} {text[:80]!r} ({variant})", case, (DraughtsError,))


def _pdn_corpus() -> list[str]:
    texts = [shared_path("games", "brazilian", "lidraughts-brazilian.pdn").read_text(encoding="utf-8")]
    intl = shared_path("games", "international", "kurnik.pdn").read_bytes()
    texts.append(intl.decode("utf-8", "replace"))
    return texts


@pytest.mark.parametrize("cases", SIZES)
def test_fuzz_pdn_reader_and_writer(cases: int) -> None:
    """Damaged real files: the reader gives games (each with or without an error) or one
    PdnSyntaxError; every game read whole is written back and read again."""
    rng = random.Random(16_7_2)
    corpus = _pdn_corpus()
    for i in range(cases):
        base = rng.choice(corpus)
        start = rng.randrange(len(base))
        text = mutate_text(rng, base[start : start + rng.choice([200, 2000, 20000])], rounds=6)

        def case() -> None:
            for g in iter_games(text, "fuzz.pdn"):  # noqa: B023
                if g.error is not None:
                    assert "\n" not in str(g.error)
                    continue
                g.game()
                try:
                    out = g.pdn()
                except PdnTagError:  # a tag name the strict writer refuses (the reader is tolerant)
                    continue
                again = read_pdn(out, "again.pdn", g.variant)
                assert [m.move for m in again[0].moves] == [m.move for m in g.moves]
                assert again[0].tags.keys() >= g.tags.keys() - {"GameType", "FEN"}

        run_case(f"pdn case {i} {text[:60]!r}", case, (PdnSyntaxError,))
