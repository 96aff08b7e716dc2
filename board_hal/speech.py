"""The board's voice: an output device beside the LEDs that says phrases, off the board loop.

The app composes the phrases (``damas.speech``, from the referee's verdicts and the rules'
notation); this module only says them, and imports nothing of ours: a :class:`Phrase` is text
in a language with a few words on how to queue it. A :class:`Speaker` owns a queue and a
thread of its own, so the board loop hands a phrase over in microseconds and never waits for
a voice (sensing and the LEDs go on while a phrase is said):

- phrases are said in the order they were given;
- an **urgent** phrase (an illegal move, a flag) goes before every waiting phrase that is not
  urgent, and cuts the one being said if that is not urgent; a cut phrase with a ``topic`` (a
  move: the record) is said again after it, any other cut phrase is dropped;
- a phrase of a ``group`` (the report of the moment, the piece held up, a read-out) replaces
  the waiting phrase of its group and cuts the one of its group being said: only the newest
  is worth hearing;
- :meth:`Speaker.withdraw` drops the phrases of a ``topic`` (a move taken back), waiting or
  being said.

A backend (:class:`SpeechBackend`) says one phrase and returns when it is said or cut:

- :class:`EspeakNg` runs Debian's ``espeak-ng`` (GPL-3, run as a program, never linked) and
  plays its sound with ALSA's ``aplay`` on a device of the configuration (``default``: the
  Pi's jack, HDMI or a USB speaker as ALSA's default says; ``plughw:1,0`` a USB card; an ALSA
  plugin such as ``file:FILE=said.wav,FORMAT=wav`` to record what went through ALSA);
- :class:`RecordingSpeech` says nothing and records each phrase (tests), optionally taking
  the time a voice would (so cutting and queueing can be seen).

>>> rec = RecordingSpeech()
>>> with Speaker(rec) as voice:
...     voice.say(Phrase("c3 d4", "pt-BR"))
...     voice.wait_idle(5.0)
True
>>> [s.text for s in rec.said]
['c3 d4']
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Self

log = logging.getLogger(__name__)

#: espeak-ng's voice for each of the app's languages (``pt`` is European Portuguese there)
VOICES: dict[str, str] = {"pt-BR": "pt-br", "pt-PT": "pt", "en": "en"}
DEFAULT_RATE = 175  # words per minute (espeak-ng's default)
RATES = (80, 450)  # espeak-ng's useful range
DEFAULT_VOLUME = 100  # espeak-ng's amplitude: 100 is its default, 200 its loudest
VOLUMES = (0, 200)
DEFAULT_DEVICE = "default"  # ALSA's default device
NICE = 10  # espeak-ng and aplay run at this priority: the board loop comes first


class SpeechError(RuntimeError):
    """The voice cannot be used (a missing program, a voice espeak-ng does not have): one line."""


@dataclass(frozen=True)
class Phrase:
    """What to say: ``text`` in ``lang`` (``pt-BR``, ``pt-PT``, ``en``); ``urgent``: it goes
    first and cuts what is being said; ``group``: only the newest phrase of a group is said;
    ``topic``: what it is about, for :meth:`Speaker.withdraw` (a phrase with a topic is a
    record: when an urgent phrase cuts it, it is said again afterwards)."""

    text: str
    lang: str = "en"
    urgent: bool = False
    group: str | None = None
    topic: str | None = None


@dataclass(frozen=True)
class Said:
    """A phrase a backend said: when it started and ended (the backend's clock), and whether
    it was said whole (False: cut)."""

    phrase: Phrase
    start: float
    end: float
    whole: bool

    @property
    def text(self) -> str:
        return self.phrase.text


class SpeechBackend:
    """Says one phrase at a time (called from the speaker's thread only)."""

    name = "speech"

    def speak(self, phrase: Phrase, stop: threading.Event) -> bool:
        """Say ``phrase``; return when it is said (True) or as soon as ``stop`` is set (False)."""
        raise NotImplementedError

    def close(self) -> None:
        """Let go of what the backend holds (nothing is being said by then)."""


class RecordingSpeech(SpeechBackend):
    """Says nothing; records every phrase in ``said``. ``seconds_per_char``: how long each
    phrase takes, as a voice would (0: at once), so that a test can cut one."""

    name = "recording"

    def __init__(self, seconds_per_char: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds_per_char = seconds_per_char
        self.clock = clock
        self.said: list[Said] = []
        self.speaking: Phrase | None = None  # the phrase being said now
        self._lock = threading.Lock()

    def speak(self, phrase: Phrase, stop: threading.Event) -> bool:
        start = self.clock()
        self.speaking = phrase
        whole = not stop.wait(self.seconds_per_char * len(phrase.text)) if self.seconds_per_char else not stop.is_set()
        with self._lock:
            self.said.append(Said(phrase, start, self.clock(), whole))
            self.speaking = None
        return whole

    def texts(self) -> list[str]:
        """The phrases said whole, in order."""
        with self._lock:
            return [s.text for s in self.said if s.whole]


@dataclass(frozen=True)
class EspeakSettings:
    """How espeak-ng speaks: ``voice`` (an espeak-ng voice name such as ``pt-br+f3``; None: the
    phrase's language's own, :data:`VOICES`), ``rate`` in words per minute, ``volume``
    (espeak-ng's amplitude, 0-200), ``device`` (ALSA's name for where the sound goes)."""

    voice: str | None = None
    rate: int = DEFAULT_RATE
    volume: int = DEFAULT_VOLUME
    device: str = DEFAULT_DEVICE

    def __post_init__(self) -> None:
        if not RATES[0] <= self.rate <= RATES[1]:
            raise SpeechError(f"rate must be {RATES[0]}-{RATES[1]} words a minute, not {self.rate}")
        if not VOLUMES[0] <= self.volume <= VOLUMES[1]:
            raise SpeechError(f"volume must be {VOLUMES[0]}-{VOLUMES[1]}, not {self.volume}")
        for name, value in (("voice", self.voice), ("device", self.device)):
            if value is not None and (not value.strip() or any(c in value for c in "\n\r\0")):
                raise SpeechError(f"{name} must be a name, not {value[:40]!r}")

    def voice_for(self, lang: str) -> str:
        return self.voice or VOICES.get(lang, VOICES["en"])

    def command(self, lang: str) -> list[str]:
        """espeak-ng's arguments for one phrase (its text comes on standard input)."""
        return ["-v", self.voice_for(lang), "-s", str(self.rate), "-a", str(self.volume)]


class EspeakNg(SpeechBackend):
    """espeak-ng renders each phrase (``--stdout``), ALSA's ``aplay`` plays it on the device;
    a cut kills both. A failure (no sound card, a device that does not exist) is logged once
    per distinct message and the next phrase is tried: the board never stops for its voice."""

    name = "espeak-ng"

    def __init__(
        self,
        settings: EspeakSettings | None = None,
        *,
        espeak: str = "espeak-ng",
        aplay: str = "aplay",
        check: bool = True,
    ) -> None:
        self.settings = settings or EspeakSettings()
        found = shutil.which(espeak)
        player = shutil.which(aplay)
        if found is None:
            raise SpeechError(f"{espeak} is not installed (on Debian: sudo apt install espeak-ng alsa-utils)")
        if player is None:
            raise SpeechError(f"{aplay} is not installed (on Debian: sudo apt install alsa-utils)")
        self.espeak, self.aplay = found, player
        self.errors: list[str] = []  # each distinct failure, once
        if check:
            for voice in sorted({self.settings.voice_for(lang) for lang in VOICES}):
                self._check_voice(voice)

    def _check_voice(self, voice: str) -> None:
        r = subprocess.run(
            [self.espeak, "-q", "-v", voice, ""], capture_output=True, text=True, timeout=30, check=False
        )
        if r.returncode != 0:
            why = (r.stderr or r.stdout).strip().splitlines()
            raise SpeechError(f"espeak-ng has no voice {voice!r}" + (f" ({why[-1][:80]})" if why else ""))

    def render(self, text: str, lang: str, path: str) -> None:
        """Write ``text`` as a WAV file (what the board would say, without a sound card)."""
        r = subprocess.run(
            [self.espeak, *self.settings.command(lang), "-w", path, "--stdin"],
            input=text,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        if r.returncode != 0:
            raise SpeechError(f"espeak-ng could not render {text[:40]!r}: {r.stderr.strip()[:120]}")

    def speak(self, phrase: Phrase, stop: threading.Event) -> bool:
        if stop.is_set():
            return False
        voice = subprocess.Popen(
            [self.espeak, *self.settings.command(phrase.lang), "--stdout", "--stdin"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        player = subprocess.Popen(
            [self.aplay, "-q", "-D", self.settings.device, "-"],
            stdin=voice.stdout,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for proc in (voice, player):  # the voice yields the processor to the board
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, proc.pid, NICE)
        assert voice.stdin is not None and voice.stdout is not None
        voice.stdout.close()  # the player holds the pipe now: espeak-ng sees it close if aplay stops
        try:
            voice.stdin.write(phrase.text.encode())
            voice.stdin.close()
        except BrokenPipeError:
            pass
        whole = True
        while player.poll() is None:
            if stop.wait(0.01):
                whole = False
                break
        for proc in (voice, player):
            if proc.poll() is None:
                proc.kill()
        voice_err, player_err = (_ended(proc) for proc in (voice, player))
        if whole and (player.returncode or voice.returncode):
            err = (player_err or voice_err or b"").decode(errors="replace").strip().splitlines()
            self._failed(err[-1] if err else f"exit status {player.returncode or voice.returncode}")
            return False
        return whole

    def _failed(self, why: str) -> None:
        text = f"speech: cannot play on ALSA device {self.settings.device!r}: {why[:160]}"
        if text not in self.errors:
            self.errors.append(text)
            log.warning("%s", text)


def _ended(proc: subprocess.Popen[bytes]) -> bytes:
    """What a finished (or killed) process wrote on its standard error."""
    proc.wait()
    assert proc.stderr is not None
    with proc.stderr:
        return proc.stderr.read()


@dataclass
class _Waiting:
    phrase: Phrase
    again: bool = False  # said again after an urgent phrase cut it


@dataclass
class _State:
    queue: list[_Waiting] = field(default_factory=list)
    current: _Waiting | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    busy: bool = False
    closed: bool = False


class Speaker:
    """The queue and the thread that feed a backend (see the module's docstring). Every method
    returns at once; ``on_said`` (called in the speaker's thread) hears each phrase said whole."""

    def __init__(self, backend: SpeechBackend, *, on_said: Callable[[Phrase], None] | None = None) -> None:
        self.backend = backend
        self.on_said = on_said
        self._cond = threading.Condition()
        self._s = _State()
        self._thread = threading.Thread(target=self._run, name="damas-speech", daemon=True)
        self._thread.start()

    # -- what the board loop calls (never waits) ------------------------------------------------
    def say(self, phrase: Phrase) -> None:
        with self._cond:
            s = self._s
            if s.closed:
                return
            if phrase.group is not None:
                s.queue = [w for w in s.queue if w.phrase.group != phrase.group]
                if s.current is not None and s.current.phrase.group == phrase.group:
                    s.stop.set()
            item = _Waiting(phrase)
            if phrase.urgent:
                at = next((i for i, w in enumerate(s.queue) if not w.phrase.urgent), len(s.queue))
                s.queue.insert(at, item)
                cur = s.current
                if cur is not None and not cur.phrase.urgent and not s.stop.is_set():
                    s.stop.set()
                    if cur.phrase.topic is not None:  # a record: said again after this one
                        s.queue.insert(at + 1, _Waiting(cur.phrase, again=True))
            else:
                s.queue.append(item)
            self._cond.notify_all()

    def withdraw(self, topic: str) -> None:
        """Drop the phrases about ``topic`` (waiting, or being said)."""
        with self._cond:
            s = self._s
            s.queue = [w for w in s.queue if w.phrase.topic != topic]
            if s.current is not None and s.current.phrase.topic == topic:
                s.stop.set()

    def silence(self, group: str | None = None) -> bool:
        """Stop the phrase being said and drop the waiting ones (only those of ``group`` when
        given); True when something was being said or waiting."""
        with self._cond:
            s = self._s
            before = len(s.queue)
            s.queue = [w for w in s.queue if group is not None and w.phrase.group != group]
            hit = len(s.queue) != before
            if s.current is not None and (group is None or s.current.phrase.group == group):
                s.stop.set()
                hit = True
            return hit

    def saying(self, group: str | None = None) -> bool:
        """Is a phrase (of ``group``) being said or waiting?"""
        with self._cond:
            s = self._s
            items = s.queue + ([s.current] if s.current is not None else [])
            return any(group is None or w.phrase.group == group for w in items)

    def wait_idle(self, timeout: float) -> bool:
        """Wait until nothing is said or waiting (tests, and a clean stop); False on timeout."""
        end = time.monotonic() + timeout
        with self._cond:
            while self._s.queue or self._s.busy:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
        return True

    # -- the speaker's thread -------------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._cond:
                s = self._s
                while not s.queue and not s.closed:
                    self._cond.wait()
                if s.closed:
                    return
                item = s.queue.pop(0)
                s.current, s.busy = item, True
                s.stop = threading.Event()
                stop = s.stop
            whole = False
            try:
                whole = self.backend.speak(item.phrase, stop)
            except Exception as exc:  # a voice that fails must not silence the next phrases
                log.warning("speech: %s failed: %s", self.backend.name, exc)
            with self._cond:
                s.current, s.busy = None, False
                self._cond.notify_all()
            if whole and self.on_said is not None:
                try:
                    self.on_said(item.phrase)
                except Exception:
                    log.exception("speech: on_said failed")

    def close(self) -> None:
        with self._cond:
            self._s.closed = True
            self._s.queue.clear()
            self._s.stop.set()
            self._cond.notify_all()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)
        self.backend.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def open_backend(name: str, settings: EspeakSettings | None = None) -> SpeechBackend:
    """A backend by its name in the configuration: ``espeak-ng`` or ``recording``."""
    if name == EspeakNg.name:
        return EspeakNg(settings)
    if name == RecordingSpeech.name:
        return RecordingSpeech()
    raise SpeechError(f"unknown speech backend {name[:40]!r} (espeak-ng or recording)")


BACKENDS: Sequence[str] = (EspeakNg.name, RecordingSpeech.name)
__all__ = [
    "BACKENDS",
    "VOICES",
    "EspeakNg",
    "EspeakSettings",
    "Phrase",
    "RecordingSpeech",
    "Said",
    "Speaker",
    "SpeechBackend",
    "SpeechError",
    "open_backend",
]
