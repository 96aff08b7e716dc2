"""Every game of the lidraughts sample on the simulated board with the real voice (slow): espeak-ng renders every
phrase and ALSA's aplay plays it (on its ``null`` device: no sound card here), off the board
loop — the phrases said are the game's, in order, none lost, and espeak-ng reports no error."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from board_hal.speech import EspeakNg, EspeakSettings
from rules.pdn import load_pdn
from tests.speech.table import Table
from tests.speech.test_board import GAME, expected_phrases

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        (shutil.which("espeak-ng") is None or shutil.which("aplay") is None) and os.environ.get("CI") != "true",
        reason="espeak-ng and aplay are not installed",
    ),
]


GAMES = load_pdn(GAME)  # the 13 lidraughts games (486 plies)


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_a_whole_game_said_by_espeak_ng(index: int, tmp_path: Path) -> None:
    pg = GAMES[index]
    voice = EspeakNg(EspeakSettings(device="null"))
    table = Table(tmp_path, lang="pt-BR", voice=voice)
    try:
        pos = table.app.session.referee.position
        texts = [m.text for m in pg.moves]
        for text in texts:
            table.play(pos.routes(pos.parse_pdn(text))[0])
            pos = table.app.session.referee.position
        assert table.said() == expected_phrases("pt-BR", texts)
        assert voice.errors == []
    finally:
        table.close()
