"""espeak-ng really speaks every kind of phrase in all three languages: each rendered to a WAV
by the board's own voice settings, checked non-silent (its peak and RMS) with a duration a
listener can follow (between 40 and 150 ms per character said, the rate it was asked for)."""

from __future__ import annotations

import math
import os
import shutil
import wave
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from board_hal.speech import EspeakNg, EspeakSettings
from damas.speech import phrases
from damas.speech.phrases import LANGS
from referee.clock import ClockKeeper, parse_control
from referee.core import Referee
from referee.vocabulary import Report, ReportKind
from rules import Color, Move, Position
from rules.game import Termination

pytestmark = pytest.mark.skipif(
    (shutil.which("espeak-ng") is None or shutil.which("aplay") is None) and os.environ.get("CI") != "true",
    reason="espeak-ng and aplay are not installed",
)


def catalogue(lang: str) -> dict[str, str]:
    """One phrase of every kind the board says, composed as it composes them."""
    pos = Position.from_fen("W:Wc3,e3,Kh2,b6:Bd4,f6,Kb8,a7", "brazilian")
    g = pos.geometry.parse_square
    plain = Move((g("e3"), g("f4")))  # (the texts do not ask whether a move is legal here)
    out = {
        "move": phrases.move_phrase(lang, pos, plain),
        "capture": phrases.move_phrase(lang, pos, pos.parse_pdn("c3xe5xg7")),
        "promotion": phrases.move_phrase(lang, pos, Move((g("b6"), g("c7")), (), True)),
        "turn": phrases.turn_phrase(lang, pos),
        "must-capture": phrases.must_capture_phrase(lang, pos),
        "quality": phrases.must_capture_phrase(lang, Position.from_fen("W:W1,2:B5,K6", "portuguese")),
        "takeback": phrases.say(lang, "takeback", move=phrases.move_text(lang, pos, plain)),
        "computer-move": phrases.say(lang, "computer_move", move=phrases.move_text(lang, pos, plain)),
        "hint": phrases.say(lang, "hint", move=phrases.move_text(lang, pos, plain)),
        "new-game": phrases.say(lang, "game_new", variant=phrases.say(lang, "variant_international")),
        "resumed": phrases.say(lang, "game_resumed", moves=23),
        "session-analysis": phrases.say(lang, "session_analysis", variant=phrases.say(lang, "variant_brazilian")),
        "session-training": phrases.say(lang, "session_training", variant=phrases.say(lang, "variant_portuguese")),
        "game-back": " ".join(
            [
                phrases.say(lang, "game_back"),
                phrases.say(
                    lang,
                    "last_move",
                    side=phrases.side_name(lang, Color.WHITE),
                    move=phrases.move_text(lang, pos, plain),
                ),
            ]
        ),
        "low-time": phrases.low_time_phrase(lang, Color.WHITE, 60),
        "last-seconds": phrases.low_time_phrase(lang, Color.BLACK, 9.5),
        "lift": phrases.lift_phrase(lang, pos, g("e3"), destinations=True),
        "lift-capture": phrases.lift_phrase(lang, pos, g("c3"), destinations=True),
        "lift-none": phrases.lift_phrase(
            lang, Position.from_fen("W:Wa1:Bb2,c3", "brazilian"), g("a1"), destinations=True
        ),
        "lift-tournament": phrases.lift_phrase(lang, pos, g("h2"), destinations=False),
        "remove": phrases.remove_phrase(lang, pos, [g("d4"), g("f6")]),
        "link-down": phrases.say(lang, "link_down"),
        "link-up": phrases.say(lang, "link_up"),
        "write-error": phrases.say(lang, "write_error"),
        "computer-failed": phrases.say(lang, "computer_failed"),
    }
    keeper = ClockKeeper(parse_control("21"), Referee("brazilian"))
    keeper.clock.start(Color.WHITE, 0)
    out["read-out"] = phrases.read_out(lang, pos, (pos, plain), keeper, 95.0)
    for t in Termination:
        out[f"result-{t.value}"] = phrases.result_phrase(
            lang, None if t.value in ("agreement", "kings-only", "small-ending", "repetition") else Color.WHITE, t.value
        )
    for kind in ReportKind:
        r = Report(kind, (g("c3"),), "", missing=(g("c3"),), extra=(g("b4"),), cells=("b1",), params={"side": "white"})
        out[f"report-{kind.value}"] = phrases.report_phrase(lang, r, pos)
    return out


def test_the_catalogue_holds_every_kind() -> None:
    kinds = set(catalogue("en"))
    assert len(kinds) >= 25 + len(Termination) + len(ReportKind)
    for lang in LANGS:
        assert set(catalogue(lang)) == kinds


def _measure(path: Path) -> tuple[float, int, float]:
    """(seconds, peak, RMS) of a 16-bit mono WAV, read with the standard library."""
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        n = w.getnframes()
        samples = memoryview(w.readframes(n)).cast("h")
        seconds = n / w.getframerate()
    peak = max(abs(s) for s in samples)
    rms = math.sqrt(sum(s * s for s in samples) / len(samples))
    return seconds, peak, rms


@pytest.mark.parametrize("lang", LANGS)
def test_espeak_ng_says_every_kind_of_phrase(lang: str, tmp_path: Path) -> None:
    voice = EspeakNg(EspeakSettings())
    said = {kind: phrases.spoken(text, lang) for kind, text in catalogue(lang).items()}

    def render(kind: str) -> tuple[str, float, int, float]:
        path = tmp_path / f"{kind}.wav"
        voice.render(said[kind], lang, str(path))
        return (kind, *_measure(path))

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(render, sorted(said)))
    for kind, seconds, peak, rms in results:
        chars = len(said[kind])
        assert peak > 4000 and rms > 300, (kind, said[kind], peak, rms)  # speech, not silence
        assert 0.04 * chars <= seconds <= 0.15 * chars + 0.5, (kind, said[kind], seconds)
