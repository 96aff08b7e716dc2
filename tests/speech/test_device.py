"""The board's voice as a device (board_hal.speech): its queue, urgent phrases, groups,
withdrawals, and espeak-ng really speaking through ALSA."""

from __future__ import annotations

import os
import shutil
import stat
import threading
import time
import wave
from pathlib import Path

import pytest

from board_hal.speech import (
    EspeakNg,
    EspeakSettings,
    Phrase,
    RecordingSpeech,
    Speaker,
    SpeechBackend,
    SpeechError,
)
from tests.conftest import wait_until

HAVE_ESPEAK = shutil.which("espeak-ng") is not None and shutil.which("aplay") is not None
needs_espeak = pytest.mark.skipif(
    not HAVE_ESPEAK and os.environ.get("CI") != "true", reason="espeak-ng and aplay are not installed"
)


class Gate(SpeechBackend):
    """A voice that holds each phrase until the test lets it go (or it is cut)."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.done: list[tuple[str, bool]] = []
        self.release = threading.Event()

    def speak(self, phrase: Phrase, stop: threading.Event) -> bool:
        self.started.append(phrase.text)
        while not self.release.is_set():
            if stop.wait(0.005):
                break
        # (a test cuts, then releases: a phrase cut before the release is cut, whichever the
        # thread saw first; it used to be read as said whole when the release came in between)
        whole = not stop.is_set()
        self.done.append((phrase.text, whole))
        return whole


def test_phrases_are_said_in_order_and_say_never_waits() -> None:
    gate = Gate()
    with Speaker(gate) as voice:
        t0 = time.perf_counter()
        for i in range(50):
            voice.say(Phrase(f"phrase {i}"))
        handed = time.perf_counter() - t0
        wait_until(lambda: gate.started == ["phrase 0"], what="the first phrase begun")
        assert handed < 0.5  # fifty phrases handed over while the voice is still on the first
        gate.release.set()
        assert voice.wait_idle(5.0)
    assert gate.done == [(f"phrase {i}", True) for i in range(50)]


def test_an_urgent_phrase_goes_first_and_cuts_a_record_that_is_said_again() -> None:
    gate = Gate()
    with Speaker(gate) as voice:
        voice.say(Phrase("White: c3 to d4.", topic="1:1"))
        wait_until(lambda: gate.started == ["White: c3 to d4."])
        voice.say(Phrase("Black: f6 to e5.", topic="1:2"))
        voice.say(Phrase("Illegal move. Put back on c3.", urgent=True, group="report"))
        wait_until(lambda: len(gate.started) == 2)
        gate.release.set()
        assert voice.wait_idle(5.0)
    assert gate.done == [
        ("White: c3 to d4.", False),  # cut
        ("Illegal move. Put back on c3.", True),
        ("White: c3 to d4.", True),  # a record: said again, before what waited
        ("Black: f6 to e5.", True),
    ]


def test_a_cut_phrase_without_a_topic_is_dropped() -> None:
    gate = Gate()
    with Speaker(gate) as voice:
        voice.say(Phrase("c3: d4 or b4.", group="piece"))
        wait_until(lambda: gate.started == ["c3: d4 or b4."])
        voice.say(Phrase("Pieces are out of place.", urgent=True))
        gate.release.set()
        assert voice.wait_idle(5.0)
    assert gate.done == [("c3: d4 or b4.", False), ("Pieces are out of place.", True)]


def test_only_the_newest_phrase_of_a_group_is_said() -> None:
    gate = Gate()
    with Speaker(gate) as voice:
        voice.say(Phrase("White: c3 to d4."))
        wait_until(lambda: gate.started == ["White: c3 to d4."])
        voice.say(Phrase("Illegal move.", group="report"))
        voice.say(Phrase("Put right.", group="report"))  # replaces the waiting one
        gate.release.set()
        assert voice.wait_idle(5.0)
        gate.release.clear()
        voice.say(Phrase("A capture is compulsory.", group="report"))
        wait_until(lambda: gate.started[-1] == "A capture is compulsory.")
        voice.say(Phrase("Put right.", group="report"))  # cuts the one being said
        gate.release.set()
        assert voice.wait_idle(5.0)
    assert gate.done == [
        ("White: c3 to d4.", True),
        ("Put right.", True),
        ("A capture is compulsory.", False),
        ("Put right.", True),
    ]


def test_a_withdrawn_topic_is_dropped_waiting_or_being_said() -> None:
    gate = Gate()
    with Speaker(gate) as voice:
        voice.say(Phrase("White: c3 to d4.", topic="1:1"))
        wait_until(lambda: gate.started == ["White: c3 to d4."])
        voice.say(Phrase("Black: f6 to e5.", topic="1:2"))
        voice.say(Phrase("Black must capture.", topic="1:2"))
        voice.withdraw("1:2")  # waiting: never said
        voice.withdraw("1:1")  # being said: cut
        voice.say(Phrase("Move taken back."))
        gate.release.set()
        assert voice.wait_idle(5.0)
    assert gate.done == [("White: c3 to d4.", False), ("Move taken back.", True)]


def test_silence_and_saying() -> None:
    gate = Gate()
    with Speaker(gate) as voice:
        voice.say(Phrase("the read-out", group="read-out"))
        voice.say(Phrase("after it"))
        wait_until(lambda: gate.started == ["the read-out"])
        assert voice.saying("read-out") and voice.saying()
        assert voice.silence("read-out")
        wait_until(lambda: gate.started == ["the read-out", "after it"])
        assert not voice.saying("read-out")
        assert voice.silence()  # everything
        assert voice.wait_idle(5.0)
        assert not voice.silence()
    assert gate.done == [("the read-out", False), ("after it", False)]


def test_a_failing_voice_does_not_silence_the_next_phrases(caplog: pytest.LogCaptureFixture) -> None:
    class Flaky(RecordingSpeech):
        def speak(self, phrase: Phrase, stop: threading.Event) -> bool:
            if phrase.text == "boom":
                raise OSError("the card went away")
            return super().speak(phrase, stop)

    flaky = Flaky()
    with Speaker(flaky) as voice:
        for text in ("one", "boom", "two"):
            voice.say(Phrase(text))
        assert voice.wait_idle(5.0)
    assert flaky.texts() == ["one", "two"]
    assert "the card went away" in caplog.text


def test_a_recording_voice_takes_its_time_and_can_be_cut() -> None:
    rec = RecordingSpeech(seconds_per_char=0.05)
    with Speaker(rec) as voice:
        voice.say(Phrase("a long phrase that takes its time", topic="1:1"))
        wait_until(lambda: rec.speaking is not None)
        voice.withdraw("1:1")
        assert voice.wait_idle(5.0)
    assert [(s.text, s.whole) for s in rec.said] == [("a long phrase that takes its time", False)]
    assert rec.texts() == []


def test_settings_are_checked() -> None:
    with pytest.raises(SpeechError, match="rate must be 80-450"):
        EspeakSettings(rate=20)
    with pytest.raises(SpeechError, match="volume must be 0-200"):
        EspeakSettings(volume=300)
    with pytest.raises(SpeechError, match="device must be a name"):
        EspeakSettings(device="  ")
    assert EspeakSettings().command("pt-BR") == ["-v", "pt-br", "-s", "175", "-a", "100"]
    assert EspeakSettings(voice="en-us").voice_for("pt-PT") == "en-us"
    assert EspeakSettings().voice_for("pt-PT") == "pt"


def test_a_missing_program_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(SpeechError, match=r"^no-such-espeak is not installed \(on Debian: sudo apt install"):
        EspeakNg(espeak="no-such-espeak")


@needs_espeak
def test_a_voice_espeak_ng_lacks_is_one_line() -> None:
    with pytest.raises(SpeechError, match=r"^espeak-ng has no voice 'xx-nowhere'"):
        EspeakNg(EspeakSettings(voice="xx-nowhere"))


def _wav(path: Path) -> tuple[float, int]:
    """(seconds, the peak sample) of a 16-bit mono WAV."""
    with wave.open(str(path)) as w:
        frames = w.readframes(w.getnframes())
        seconds = w.getnframes() / w.getframerate()
    samples = memoryview(frames).cast("h")
    return seconds, max((abs(s) for s in samples), default=0)


@needs_espeak
def test_espeak_ng_speaks_through_alsa(tmp_path: Path) -> None:
    """The sound goes through ALSA's aplay: its ``file`` plugin writes what it was given."""
    out = tmp_path / "said.wav"
    voice = EspeakNg(EspeakSettings(device=f"file:FILE={out},FORMAT=wav"))
    with Speaker(voice) as speaker:
        speaker.say(Phrase("Brancas: cê3 toma é5, toma gê7.", "pt-BR"))
        assert speaker.wait_idle(30.0)
    assert voice.errors == []
    seconds, peak = _wav(out)
    assert 1.0 < seconds < 6.0, seconds
    assert peak > 3000, peak  # not silence


@needs_espeak
def test_a_device_that_fails_is_said_once_and_the_voice_goes_on(tmp_path: Path) -> None:
    voice = EspeakNg(EspeakSettings(device="no-such-card"))
    with Speaker(voice) as speaker:
        for text in ("one", "two"):
            speaker.say(Phrase(text))
        assert speaker.wait_idle(30.0)
    assert len(voice.errors) == 1
    assert voice.errors[0].startswith("speech: cannot play on ALSA device 'no-such-card': aplay:")


@needs_espeak
def test_a_cut_stops_the_programs(tmp_path: Path) -> None:
    """A player that would play for half a minute is stopped within a moment of the cut."""
    slow = tmp_path / "slow-aplay"
    pids = tmp_path / "pids"
    slow.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 30\n")
    slow.chmod(slow.stat().st_mode | stat.S_IEXEC)
    voice = EspeakNg(aplay=str(slow), check=False)
    stop = threading.Event()
    result: list[bool] = []
    worker = threading.Thread(target=lambda: result.append(voice.speak(Phrase("a long phrase"), stop)))
    worker.start()
    wait_until(lambda: pids.exists() and pids.read_text().strip(), what="the player started")
    t0 = time.monotonic()
    stop.set()
    worker.join(5.0)
    assert result == [False] and time.monotonic() - t0 < 2.0
    pid = int(pids.read_text().split()[0])
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()
