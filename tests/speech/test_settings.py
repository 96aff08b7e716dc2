"""``[speech]`` and ``--speak``: every problem one line naming the file and the key; the board
speaking from the command line; a voice that cannot speak refused before anything starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
from pathlib import Path

import pytest

from damas.speech.settings import SpeechSettings, settings_from_config
from tests.app.server import Server
from tests.conftest import damas, one_line_error


def test_defaults_and_a_whole_table() -> None:
    assert settings_from_config({}, "board.toml") == SpeechSettings()
    s = settings_from_config(
        {
            "enabled": True,
            "language": "pt-PT",
            "voice": "pt+f3",
            "rate": 150,
            "volume": 180,
            "device": "plughw:1,0",
            "say": ["moves", "clock"],
            "chord": 0.2,
            "backend": "log",
        },
        "board.toml",
    )
    assert (s.enabled, s.language, s.voice, s.rate, s.volume, s.device) == (
        True,
        "pt-PT",
        "pt+f3",
        150,
        180,
        "plughw:1,0",
    )
    assert s.say == ("moves", "clock") and s.chord == 0.2 and s.backend == "log"
    # the language: [speech], else the page's, else the variant's country's
    assert SpeechSettings().language_for(None, "brazilian") == "pt-BR"
    assert SpeechSettings().language_for(None, "portuguese") == "pt-PT"
    assert SpeechSettings().language_for("pt-BR", "international") == "pt-BR"
    assert SpeechSettings(language="en").language_for("pt-BR", "brazilian") == "en"


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"enabled": "yes"}, "board.toml: speech.enabled must be true or false, not 'yes'"),
        ({"language": "fr"}, "board.toml: speech.language must be pt-BR or pt-PT or en, not 'fr'"),
        ({"rate": 1000}, "board.toml: speech.rate must be a whole number 80-450, not 1000"),
        ({"volume": 1.5}, "board.toml: speech.volume must be a whole number 0-200, not 1.5"),
        ({"voice": ""}, "board.toml: speech.voice must be an espeak-ng voice such as pt-br, not ''"),
        ({"device": 3}, "board.toml: speech.device must be an ALSA device's name, not 3"),
        (
            {"say": ["moves", "gossip"]},
            "board.toml: speech.say must be a list of moves, reports, clock, computer, pieces",
        ),
        ({"chord": 2}, "board.toml: speech.chord must be seconds between 0 and 1, not 2"),
        ({"backend": "festival"}, 'board.toml: speech.backend must be "espeak-ng" or "log", not \'festival\''),
        ({"loud": True}, "board.toml: unknown setting speech.loud (known: enabled, language, voice"),
    ],
)
def test_every_problem_is_one_line(table: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as err:
        settings_from_config(table, "board.toml")
    assert str(err.value).startswith(message), str(err.value)
    assert "\n" not in str(err.value)


def test_a_bad_speech_table_stops_damas_play(tmp_path: Path) -> None:
    config = tmp_path / "board.toml"
    config.write_text('[speech]\nrate = "fast"\n')
    r = damas("play", "--config", str(config), "--db", str(tmp_path / "g.db"), "--no-browser", timeout=60)
    one_line_error(r, "speech.rate must be a whole number 80-450", "'fast'")
    assert not (tmp_path / "g.db").exists()  # refused before the records were touched


def test_without_espeak_ng_speak_is_refused_in_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    r = subprocess.run(
        [sys.executable, "-m", "damas", "play", "--speak", "--db", str(tmp_path / "g.db"), "--no-browser"],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": str(empty)},
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    one_line_error(r, "speech: espeak-ng is not installed (on Debian: sudo apt install espeak-ng alsa-utils)")
    assert not (tmp_path / "g.db").exists()


def test_damas_play_speak_says_the_moves(tmp_path: Path) -> None:
    """``--speak`` with the log voice (``[speech] backend = "log"``): the moves of the simulated
    hands are said in the configured language, and ``/api/read-out`` reads the position."""
    config = tmp_path / "board.toml"
    config.write_text('[speech]\nbackend = "log"\nlanguage = "pt-PT"\n')
    server = Server(tmp_path / "g.db", "--config", str(config), "--speak", "--variant", "portuguese")
    server.start()
    try:
        server.move(10, 14)
        server.wait_for(lambda s: [u["text"] for u in s["spoken"]][-1:] == ["White: 10 to 14."])
        text = server.get("/api/read-out?lang=en")["text"]
        assert text.startswith("Black to move. Last move: White, 10 to 14. White: 12 men on 1 to 9, 11, 12 and 14.")
        # one part at a time (the page's L, C, P keys); a part it does not have is a 400 naming it
        assert server.get("/api/read-out?lang=en&part=last")["text"] == "Black to move. Last move: White, 10 to 14."
        assert server.get("/api/read-out?lang=en&part=clocks")["text"] == "This game has no clock."
        assert server.get("/api/read-out?lang=en&part=position")["text"].startswith("Black to move. White: 12 men")
        with pytest.raises(urllib.error.HTTPError) as bad:
            server.get("/api/read-out?part=moves")
        assert bad.value.code == 400 and "no read-out part 'moves'" in json.loads(bad.value.read())["error"]
    finally:
        out = server.stop()
    assert "the board speaks pt-PT (log)" in out
    said = [line.split("says (pt-PT): ", 1)[1] for line in out.splitlines() if "says (pt-PT)" in line]
    assert said == ["Nova partida, damas clássicas.", "Jogam as brancas.", "Brancas: 10 para 14."], out
