"""The hall's languages (pt-BR, pt-PT, en, as the board's page): every key the page uses defined,
the language chosen as the board's page chooses it (?lang=, --lang, Accept-Language), and the
hall page and its printable pages drawn in Brazilian Portuguese in Chromium. Every key in every
language with the same placeholders, and each country's words: ``wording.check`` (tests/wording)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import damas.web.routes
from hall.app import Hall
from hall.broker import Mosquitto
from hall.store import HallStore
from hall.tournament import TournamentError
from tests.conftest import OUTPUT, ROOT, shared_path, wait_until
from tests.hall.conftest import BoardProcess, HallProcess
from wording.hall import LANGUAGES, UI, pick_language, text

STATIC = ROOT / "hall" / "static"


def test_each_country_names_the_pairings() -> None:
    """(Every key of every language, and each country's words: wording.check.)"""
    assert set(UI) == set(LANGUAGES) == {"pt-BR", "pt-PT", "en"}
    assert UI["pt-BR"]["pairings"] != UI["pt-PT"]["pairings"]  # emparceiramento (FENACEF), emparelhamento (Portugal)


def test_every_key_the_page_uses_is_defined() -> None:
    html = (STATIC / "hall.html").read_text()
    js = (STATIC / "hall.js").read_text()
    used = set(re.findall(r'data-i18n(?:-placeholder)?="(\w+)"', html))
    used |= set(re.findall(r'\bt\("(\w+)"', js))
    for prefix in re.findall(r"t\(`(\w+)\$\{", js):  # t(`alert_flag_${side}`), t(`by_${a.by}`)...
        tails = ("arbiter", "power", "page", "button", "pico") if prefix == "by_" else ("white", "black")
        used |= {prefix + x for x in tails}
    assert len(used) > 40
    assert not used - set(UI["en"]), sorted(used - set(UI["en"]))


def test_the_language_is_chosen_as_the_boards_page_chooses_it() -> None:
    assert pick_language is damas.web.routes.pick_language  # one rule for both pages
    assert pick_language(None, "pt-BR,pt;q=0.9,en;q=0.8") == "pt-BR"
    assert pick_language(None, "pt-PT") == "pt-PT" and pick_language(None, "fr") == "en"
    assert pick_language("pt", "en") == "pt-BR"  # --lang first
    assert pick_language(None, "fr;q=high, pt-PT;q=0.5, en;q=0.4") == "pt-PT"  # a bad weight counts as 0
    assert text("pt-BR", "alert_flag_white", board="7") == "tabuleiro 7: caiu a bandeira das brancas"
    assert text("xx", "round_of", round=1, rounds=7) == "Round 1 of 7"


def test_the_alerts_carry_what_each_language_needs(tmp_path: Path) -> None:
    store = HallStore(tmp_path / "hall.sqlite3")
    try:
        hall = Hall(store, None, token="t")
        start = {"type": "start", "variant": "brazilian", "fen": None, "mode": "tournament", "intro": [], "tags": {}}
        texts = {"en": "a man moved backward", "pt-BR": "uma pedra andou para trás", "pt-PT": "x"}
        report = {"type": "report", "kind": "backward-man", "message": "a man moved backward", "squares": [9], "t": 5}
        for seq, m in enumerate([start, {**report, "texts": texts}]):
            hall.receive("damas/board/3/game", json.dumps({**m, "board": "3", "game": 1, "seq": seq}).encode())
        (alert,) = hall.alerts()
        assert alert["texts"] == texts and alert["report"] == "a man moved backward"
        hall.settings({"language": "pt"})
        assert hall.language == "pt-BR"
        with pytest.raises(ValueError, match="language must be pt-BR, pt-PT or en, not 'fr'"):
            hall.settings({"language": "fr"})
        with pytest.raises(TournamentError) as refused:
            hall.settings({"rounds": 100})
        assert str(refused.value) == "rounds must be a number from 1 to 99, not '100'"  # (the CLI's, in English)
        assert refused.value.text("pt-BR") == "o número de rodadas deve ser de 1 a 99, não '100'"
        assert refused.value.text("pt-PT") == "o número de rondas deve ser de 1 a 99, não '100'"
    finally:
        store.close()


def test_the_hall_page_in_brazilian_portuguese(tmp_path: Path, mosquitto: Mosquitto, browser: Any) -> None:
    pdn = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--rounds", "5").start()
    board = BoardProcess(tmp_path, "1", mosquitto.url, pdn, 0, plies=6, gap=0.05)
    context = browser.new_context(viewport={"width": 1280, "height": 860}, locale="pt-BR")
    page = context.new_page()
    try:
        wait_until(board.done, timeout=60, what="the board to play")
        hall.post("/api/players", {"csv": "name\nAna\nBia\nCid\n"})
        hall.post("/api/pair", {"boards": ["1"]})
        page.goto(hall.url + f"/?token={hall.token}")  # the browser says pt-BR: the page speaks it
        page.locator('.card[data-board="1"] h3').wait_for()
        wait_until(lambda: page.locator("#round").inner_text() == "Rodada 1 de 5", what="the round in Portuguese")
        assert page.locator("html").get_attribute("lang") == "pt-BR"
        assert page.locator('.card[data-board="1"] h3').inner_text().startswith("Tabuleiro 1")
        assert page.locator("#pairings h2").text_content() == "Emparceiramentos"
        assert page.locator("#pairform button").inner_text() == "Emparceirar a próxima rodada"
        assert "trocar as cores" in page.locator("#pairingrows").inner_text()
        assert "bye (1)" in page.locator("#pairingrows").inner_text()
        assert page.locator("#pname").get_attribute("placeholder") == "nome"
        assert page.locator("#broker").inner_text() == "broker conectado"
        page.locator("#pairform button").click()  # the arbiter's action refused: why, in Portuguese
        wait_until(
            lambda: page.locator("#message").inner_text() == "rodada 1, mesa 1: ainda sem resultado confirmado",
            what="the refusal in Portuguese",
        )
        board.stop()  # an alert, in Portuguese
        page.locator('.alert.offline[data-board="1"]').wait_for(timeout=15000)
        assert page.locator("#alerts").inner_text().strip() == "tabuleiro 1 está desconectado"
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / "hall-pt-BR.png"), full_page=True)
        # the printable pages follow the page's language
        page.goto(hall.url + page.locator("#standingslink").get_attribute("href"))
        assert page.locator("h1").inner_text().startswith("Torneio: classificação após a rodada 1 de 5")
        assert "Jogador" in page.locator("thead").inner_text() and "leitura literal" in page.inner_text("body")
        page.goto(hall.url + "/pairings/1")
        assert page.locator("h1").inner_text() == "Torneio: rodada 1 de 5" and "Pretas" in page.inner_text("thead")
        page.goto(hall.url + "/games/1-1/sheet")
        assert "Súmula:" in page.locator("h1").inner_text() and "Assinatura das brancas" in page.inner_text("body")
        # the page's own choice wins, and is remembered; then pt-PT's words
        page.goto(hall.url + "/board/1")
        page.locator("#lang").select_option("pt-PT")
        # (the back link reads the same in pt-BR: wait for a word that differs, then check both)
        wait_until(lambda: page.locator("#onesheet").inner_text() == "boletim de jogo", what="pt-PT")
        assert page.locator("#back").inner_text() == "← todos os tabuleiros"
        page.goto(hall.url + "/")
        wait_until(lambda: page.locator("html").get_attribute("lang") == "pt-PT", what="the choice remembered")
        page.goto(hall.url + "/?lang=en")
        wait_until(lambda: page.locator("#pairings h2").text_content() == "Pairings", what="?lang=en")
    finally:
        context.close()
        board.stop()
        hall.stop()


def test_damas_hall_lang_sets_the_halls_language(tmp_path: Path, mosquitto: Mosquitto) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, "--lang", "pt-PT").start()
    try:
        assert hall.get("/api/lang")["lang"] == "pt-PT"  # (no Accept-Language: the hall's own)
        assert "<h1>Torneio: classificação após a ronda 0 de 7</h1>" in hall.get("/standings")
    finally:
        hall.stop()
