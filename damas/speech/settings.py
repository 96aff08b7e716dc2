"""``[speech]``: the talking board's settings, checked (one line per problem, naming the file
and the key), and the voice they open.

.. code-block:: toml

    [speech]
    enabled = true        # or damas play --speak
    language = "pt-BR"    # pt-BR, pt-PT or en (default: --lang / [app] language, else the variant's)
    voice = "pt-br+f3"    # an espeak-ng voice (default: the language's own)
    rate = 175            # words a minute, 80-450
    volume = 100          # espeak-ng's amplitude, 0-200
    device = "default"    # the ALSA device (plughw:1,0: a USB speaker; see hardware/accessible.md)
    say = ["moves", "reports", "clock", "computer", "pieces"]   # what the voice says
    chord = 0.15          # seconds a clock press waits for the other button (the read-out gesture)
    backend = "espeak-ng" # or "log": write each phrase to the program's log instead
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from board_hal.speech import (
    DEFAULT_DEVICE,
    DEFAULT_RATE,
    DEFAULT_VOLUME,
    RATES,
    VOLUMES,
    EspeakNg,
    EspeakSettings,
    Phrase,
    SpeechBackend,
    SpeechError,
)
from damas.speech.announcer import WHAT

log = logging.getLogger("damas.speech")

KEYS = ("enabled", "language", "voice", "rate", "volume", "device", "say", "chord", "backend")
LANGUAGES = ("pt-BR", "pt-PT", "en")
BACKENDS = ("espeak-ng", "log")
DEFAULT_CHORD = 0.15
#: the language a board speaks when nothing says which: the variant's country's
BY_VARIANT = {"brazilian": "pt-BR", "portuguese": "pt-PT", "international": "en"}


@dataclass(frozen=True)
class SpeechSettings:
    enabled: bool = False
    language: str | None = None
    voice: str | None = None
    rate: int = DEFAULT_RATE
    volume: int = DEFAULT_VOLUME
    device: str = DEFAULT_DEVICE
    say: tuple[str, ...] = WHAT
    chord: float = DEFAULT_CHORD
    backend: str = "espeak-ng"

    def language_for(self, app_language: str | None, variant: str) -> str:
        return self.language or app_language or BY_VARIANT.get(variant, "en")

    def open_backend(self) -> SpeechBackend:
        """The voice these settings ask for (:class:`SpeechError`, one line, when it cannot speak)."""
        if self.backend == "log":
            return LogSpeech()
        return EspeakNg(EspeakSettings(self.voice, self.rate, self.volume, self.device))


class LogSpeech(SpeechBackend):
    """Writes each phrase to the program's log (``says: ...``) instead of a loudspeaker."""

    name = "log"

    def speak(self, phrase: Phrase, stop: threading.Event) -> bool:
        log.info("says (%s): %s", phrase.lang, phrase.text)
        return True


def settings_from_config(table: Mapping[str, Any], source: str) -> SpeechSettings:
    """``[speech]`` as settings; a problem is a ``ValueError`` of one line naming the file and the key."""

    def bad(key: str, what: str) -> ValueError:
        value = table[key]
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        return ValueError(f"{source}: speech.{key} must be {what}, not {shown}")

    for key in table:
        if key not in KEYS:
            raise ValueError(f"{source}: unknown setting speech.{str(key)[:40]} (known: {', '.join(KEYS)})")
    s: dict[str, Any] = {}
    if "enabled" in table:
        if not isinstance(table["enabled"], bool):
            raise bad("enabled", "true or false")
        s["enabled"] = table["enabled"]
    if "language" in table:
        if table["language"] not in LANGUAGES:
            raise bad("language", " or ".join(LANGUAGES))
        s["language"] = table["language"]
    for key, low, high in (("rate", *RATES), ("volume", *VOLUMES)):
        if key in table:
            value = table[key]
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise bad(key, f"a whole number {low}-{high}")
            s[key] = value
    for key in ("voice", "device"):
        if key in table:
            value = table[key]
            if not isinstance(value, str) or not value.strip() or len(value) > 200 or any(c in value for c in "\n\r\0"):
                raise bad(key, "an espeak-ng voice such as pt-br" if key == "voice" else "an ALSA device's name")
            s[key] = value.strip()
    if "say" in table:
        say = table["say"]
        if not isinstance(say, list) or not all(isinstance(w, str) and w in WHAT for w in say):
            raise bad("say", f"a list of {', '.join(WHAT)}")
        s["say"] = tuple(dict.fromkeys(say))
    if "chord" in table:
        chord = table["chord"]
        if isinstance(chord, bool) or not isinstance(chord, (int, float)) or not 0 <= chord <= 1:
            raise bad("chord", "seconds between 0 and 1")
        s["chord"] = float(chord)
    if "backend" in table:
        if table["backend"] not in BACKENDS:
            raise bad("backend", " or ".join(f'"{b}"' for b in BACKENDS))
        s["backend"] = table["backend"]
    return SpeechSettings(**s)


__all__ = ["BACKENDS", "KEYS", "LogSpeech", "SpeechError", "SpeechSettings", "settings_from_config"]
