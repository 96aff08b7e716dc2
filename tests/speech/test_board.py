"""The talking board on the simulated board: what the voice says as the hands play, in order,
none lost, none stale; a piece held up; the read-out gesture; the clock; a resumed game."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from gpiozero.pins.mock import MockFactory

from board_hal.buttons import ClockButtons
from board_hal.speech import RecordingSpeech, Said
from damas.records.session import GameSession
from damas.records.store import Store
from damas.speech import phrases
from rules import Color, Game
from rules.pdn import load_pdn
from tests.conftest import ROOT, wait_until
from tests.speech.table import Table

GAME = ROOT / "tests" / "data" / "games" / "brazilian" / "lidraughts-brazilian.pdn"


def expected_phrases(lang: str, moves: list[str]) -> list[str]:
    """What the board must say for these moves from the start, composed from the rules alone
    (the result and why, when the rules end the game)."""
    game = Game("brazilian")
    out = [
        phrases.say(lang, "game_new", variant=phrases.say(lang, "variant_brazilian")),
        phrases.turn_phrase(lang, game.position),
    ]
    for text in moves:
        pos = game.position
        move = pos.parse_pdn(text)
        out.append(phrases.move_phrase(lang, pos, pos.routes(move)[0]))
        game.push(move)
        outcome = game.outcome()
        if outcome is not None:
            out.append(phrases.result_phrase(lang, outcome.winner, outcome.termination.value))
        elif game.position.has_captures():
            out.append(phrases.must_capture_phrase(lang, game.position))
    return [phrases.spoken(t, lang) for t in out]


def test_a_whole_game_is_said_in_order_none_lost(tmp_path: Path) -> None:
    pg = load_pdn(GAME)[0]
    texts = [m.text for m in pg.moves]
    assert len(texts) == 41
    table = Table(tmp_path, lang="pt-BR")
    try:
        pos = table.app.session.referee.position
        for text in texts:
            table.play(pos.routes(pos.parse_pdn(text))[0])
            pos = table.app.session.referee.position
        assert len(table.app.session.referee.game.move_stack) == 41
        said = table.said()
        assert said == expected_phrases("pt-BR", texts)
        assert "Pretas: é7 toma cê5, toma é3." in said  # e7xe3: the whole path
        assert said[-1] == "Brancas: bê8 toma agá2."  # a king's long capture
        # the page's live region: the same phrases, in its language, in order
        page = [u["text"] for u in table.app.state("en")["spoken"]]
        assert page == expected_phrases("en", texts)[-30:]
        assert "White: a7 to b8, promoted to king." in page
    finally:
        table.close()


def test_a_move_taken_back_before_it_was_said_is_never_said(tmp_path: Path) -> None:
    """A slow voice is still saying White's move when Black moves and takes it back: Black's move
    is dropped (stale), the takeback is said."""
    voice = RecordingSpeech(seconds_per_char=0.03)
    table = Table(tmp_path, lang="en", voice=voice)
    try:
        table.speaker.wait_idle(30.0)
        table.move("c3", "d4")
        wait_until(lambda: voice.speaking is not None and voice.speaking.text == "White: c3 to d4.")
        table.move("f6", "e5")
        table.move("e5", "f6")  # back where it was: casual mode takes the move back
        said = table.said()
        assert said == [
            "New game, Brazilian draughts.",
            "White to move.",
            "White: c3 to d4.",
            "Move taken back: f6 to e5.",
            "Black to move.",
        ]
        assert "Black: f6 to e5." not in said
        log = table.app.state("en")["spoken"]
        assert [u["withdrawn"] for u in log if u["text"] == "Black: f6 to e5."] == [True]
    finally:
        table.close()


def test_a_piece_held_up_says_where_it_can_go_and_a_touch_says_nothing(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="pt-BR")
    try:
        table.new()
        table.lift("c3", hold=0.2)
        table.place("c3", hold=0.5)  # within the grace time: an adjustment, nothing said
        assert table.new() == []
        table.lift("c3", hold=0.5)  # held: its square and where it can go
        assert table.new() == ["cê3: bê4 ou dê4."]
        table.place("d4")
        assert table.new() == ["Brancas: cê3 para dê4."]
        table.move("f6", "e5")
        table.new()
        table.lift("d4", hold=0.5)  # a capture: its path
        assert table.new() == ["dê4: toma éfe6."]
        table.place("f6", hold=0.6)  # landed; the captured piece stays: said once the grace is over
        assert table.new() == ["Retire é5."]
        table.lift("e5")
        assert table.new() == ["Brancas: dê4 toma éfe6.", "Captura obrigatória para as pretas, com é7 ou gê7."]
    finally:
        table.close()


def test_in_a_tournament_a_piece_held_up_says_only_its_square(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="en", mode="tournament")
    try:
        table.new()
        table.lift("c3", hold=0.5)
        assert table.new() == ["c3."]
    finally:
        table.close()


def test_a_wrong_move_is_said_at_once_and_put_right(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="pt-PT")
    try:
        table.move("c3", "d4")
        table.move("f6", "e5")
        table.new()
        table.move("g3", "h4")  # a capture is compulsory
        table.wait(1.5)
        assert table.new() == ["Captura obrigatória, com dê4. Reponha em guê3. Retire de agá4."]
        table.move("h4", "g3")
        assert table.new() == ["Corrigido."]
    finally:
        table.close()


def test_a_wrong_move_made_worse_is_said_again_and_the_read_out_begins_with_it(tmp_path: Path) -> None:
    """Hands that put the piece down somewhere else again hear what is wrong as it stands now
    (what to take off has grown); hands on their way to putting it right hear nothing until it
    is right; the read-out begins with what is wrong."""
    table = Table(tmp_path, lang="en")
    try:
        table.move("c3", "d4")
        table.move("f6", "e5")
        table.new()
        table.lift("g3", hold=1.5)  # a capture is compulsory: said while the piece is held
        assert table.new() == ["A capture is compulsory, with d4. Put back on g3."]
        table.place("h4", hold=1.5)  # put down all the same
        assert table.new() == ["A capture is compulsory, with d4. Put back on g3. Take off h4."]
        table.lift("h4", hold=1.5)  # on its way back: nothing new to say
        assert table.new() == []
        table.read_out()
        (read,) = table.new()
        assert read.startswith("A capture is compulsory, with d4. Put back on g3. White to move.")
        table.place("g3")
        assert table.new() == ["Put right."]
        table.read_out()
        (read,) = table.new()
        assert read.startswith("White to move. White must capture, with d4.")
    finally:
        table.close()


def test_the_read_out_gesture_both_clock_buttons(tmp_path: Path) -> None:
    """Both clock buttons together: the read-out, never a press (neither switches the clock,
    nothing is journalled); the gesture again stops it; a single press is a press."""
    factory = MockFactory()
    now: list[Callable[[], float]] = []
    buttons = ClockButtons(20, 21, pin_factory=factory, clock=lambda: now[0]() if now else 0.0)
    voice = RecordingSpeech(seconds_per_char=0.02)
    table = Table(tmp_path, lang="en", voice=voice, buttons=buttons, clock="21", chord=0.15)
    now.append(table.clock)

    def at(t: float) -> None:
        table.clock.t = t

    try:
        table.move("c3", "d4")
        table.speaker.wait_idle(30.0)
        table.new()
        seq = table.app.session.seq
        at(table.clock.t + 1)
        factory.pin(21).drive_low()  # black's button...
        at(table.clock.t + 0.05)
        factory.pin(20).drive_low()  # ...and white's with it
        table.wait(0.3)
        factory.pin(21).drive_high()
        factory.pin(20).drive_high()
        table.wait(0.3)
        assert table.app.session.seq == seq  # nothing journalled: no press
        assert table.app.session.clock is not None and not table.app.session.clock.clock.started
        wait_until(lambda: voice.speaking is not None and voice.speaking.text.startswith("Black to move."))
        at(table.clock.t + 1)
        factory.pin(20).drive_low()
        at(table.clock.t + 0.02)
        factory.pin(21).drive_low()  # the gesture again, while it is being read: it stops
        table.wait(0.3)
        factory.pin(20).drive_high()
        factory.pin(21).drive_high()
        table.wait(0.3)

        # (the voice's thread notes the cut phrase when it stops, in real time, not the table's)
        def read_out() -> list[Said]:
            return [s for s in list(voice.said) if s.text.startswith("Black to move. Last move: White, c3 to d4.")]

        wait_until(lambda: read_out(), timeout=15.0, what="the read-out said, whole or cut")
        read = read_out()
        assert [s.whole for s in read] == [False]
        assert "White: 12 men on a1, c1, e1, g1, b2, d2, f2, h2, a3, e3, g3 and d4." in read[0].text
        factory.pin(21).drive_low()  # one press: black starts the clock... of the side to move
        table.wait(0.3)
        factory.pin(21).drive_high()
        assert table.app.session.seq == seq + 1 and table.app.session.clock.clock.started
    finally:
        table.close()
        buttons.close()


def test_low_time_and_the_flag_are_said(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="pt-BR", clock="2")
    try:
        table.app.action({"action": "clock", "side": "black"})  # starts white's clock
        table.new()
        table.wait(61, step=0.5)
        assert table.new() == ["As brancas têm 1 minuto."]
        table.wait(50, step=0.5)
        assert table.new() == ["As brancas têm 10 segundos."]
        table.wait(10, step=0.5)
        assert table.new() == ["Fim da partida: vitória das pretas. Acabou o tempo das brancas."]
    finally:
        table.close()


def test_a_resumed_game_says_where_it_stands(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="pt-BR")
    table.move("c3", "d4")
    table.move("f6", "e5")
    table.close()
    store = Store(tmp_path / "games.sqlite3")
    row = store.unfinished()
    assert row is not None
    session = GameSession.resume(store, row, window=0.05, now=table.clock.t)
    again = Table(tmp_path, lang="pt-BR", store=store, session=session)
    try:
        assert again.new() == [
            "Partida retomada, 2 lances jogados. Último lance: pretas, éfe6 para é5.",
            "Vez das brancas. Captura obrigatória para as brancas, com dê4.",
        ]
    finally:
        again.close()


def test_what_the_voice_says_is_chosen(tmp_path: Path) -> None:
    """``[speech] say`` without the moves: reports are said, moves are not; the page has both."""
    table = Table(tmp_path, lang="en", say=("reports",))
    try:
        table.move("c3", "d4")
        table.move("f6", "e5")
        table.move("g3", "h4")
        table.wait(1.5)
        assert table.said() == ["A capture is compulsory, with d4. Put back on g3. Take off h4."]
        page = [u["text"] for u in table.app.state("en")["spoken"]]
        assert page[2:5] == ["White: c3 to d4.", "Black: f6 to e5.", "White must capture, with d4."]
    finally:
        table.close()


def test_the_computers_move_and_a_hint_are_said(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="pt-BR")
    app = table.app
    try:
        app.start_computer(Color.BLACK, 1)
        table.move("c3", "d4")
        table.new()
        deadline = time.monotonic() + 60
        while app.session.referee.expected() is None:  # the engine thinks in its own process
            assert time.monotonic() < deadline, app.computer.error
            time.sleep(0.01)
            table.wait(0.02)
        pos = app.session.referee.position
        move = app.session.referee.expected()
        assert move is not None
        said = phrases.spoken(phrases.move_text("pt-BR", pos, move), "pt-BR")
        assert table.new() == [f"O computador joga {said}. Faça o lance dele no tabuleiro."]
        table.play(pos.routes(move)[0])
        table.wait(0.5)
        assert table.new()[0] == phrases.spoken(phrases.move_phrase("pt-BR", pos, move), "pt-BR")
        app.action({"action": "hint"})
        while app.computer.hint_move(app.session.referee) is None:
            assert time.monotonic() < deadline, app.computer.error
            time.sleep(0.01)
            table.wait(0.02)
        hint = app.computer.hint_move(app.session.referee)
        assert hint is not None
        now = app.session.referee.position
        assert table.new() == [f"Sugestão: {phrases.spoken(phrases.move_text('pt-BR', now, hint), 'pt-BR')}."]
    finally:
        table.close()
