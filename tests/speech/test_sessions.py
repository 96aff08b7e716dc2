"""What the board says entering a session that is not a game and leaving it (issue 28): an
analysis on the board and a training (a tactic) each have their own phrase, keyed on the
session's purpose, in every language; leaving either says the player is back in the game (and
its last move). The real announcer on the simulated board, its voice and the page's log."""

from __future__ import annotations

from pathlib import Path

from damas.speech import phrases
from damas.speech.phrases import LANGS
from damas.study.training import shipped_tactics
from tests.speech.table import Table


def page_log(table: Table, lang: str, since: int) -> list[str]:
    """What the page's live region says in ``lang``, from the ``since``-th utterance."""
    return [str(u["text"]) for u in table.app.speech.recent(lang, 200)][since:]


def logged(table: Table) -> int:
    return len(table.app.speech.recent("en", 200))


def test_an_analysis_and_a_training_say_what_they_are_and_leaving_says_back_to_the_game(tmp_path: Path) -> None:
    table = Table(tmp_path, lang="en")
    try:
        table.move("c3", "d4")
        table.wait(0.5)
        game = table.app.session.row.id
        table.new()
        # an analysis on the board from the game's position
        mark = logged(table)
        table.app.action({"action": "study", "op": "open", "ply": 1})
        table.app.action({"action": "study", "op": "board", "on": True})
        table.wait(0.2)
        assert table.app.session.row.purpose == "analysis"
        said = table.new()
        assert said[0] == "Analysis on the board, Brazilian draughts.", said
        assert not any("New game" in s for s in said)
        for lang in LANGS:
            variant = phrases.say(lang, "variant_brazilian")
            assert page_log(table, lang, mark)[0] == phrases.say(lang, "session_analysis", variant=variant)
        assert page_log(table, "pt-BR", mark)[0] == "Análise no tabuleiro, damas brasileiras."
        # back: the game, its last move
        mark = logged(table)
        table.app.action({"action": "study", "op": "board", "on": False})
        table.wait(0.2)
        assert table.app.session.row.id == game
        assert table.new()[0] == "Back to the game. Last move: White, c3 to d4."
        assert page_log(table, "pt-BR", mark)[0] == "De volta à partida. Último lance: brancas, c3 para d4."
        assert page_log(table, "pt-PT", mark)[0].startswith("De volta à partida.")
        # a tactic: a training session
        mark = logged(table)
        table.app.action({"action": "training", "op": "start", "kind": "tactic", "index": 0})
        table.wait(0.2)
        assert table.app.session.row.purpose == "training"
        said = table.new()
        assert said[0] == "Training on the board, Brazilian draughts.", said
        assert said[2] == "Find the shot." and not any("New game" in s for s in said)
        assert page_log(table, "pt-BR", mark)[0] == "Treino no tabuleiro, damas brasileiras."
        assert page_log(table, "pt-PT", mark)[0] == "Treino no tabuleiro, damas brasileiras."
        # the key move: said as a move, then the verdict and the reply to make
        start, line = shipped_tactics("brazilian")[0].moves("brazilian")
        table.sim.set_squares(start.occupied())
        table.wait(0.2)
        table.new()
        table.play(start.routes(line[0])[0])
        reply = start.apply(line[0]).pdn(line[1])
        assert table.new() == [
            f"White: {start.pdn(line[0]).replace('-', ' to ')}.",
            f"Right: 1. {start.pdn(line[0])}. Play 1... {reply}.",
        ]
        # the next tactic: no second announcement of the training
        table.app.action({"action": "training", "op": "start", "kind": "tactic", "index": 1})
        table.wait(0.2)
        assert not any("Training on the board" in s for s in table.new())
        # stopping the training: back to the game left for it, as it was
        mark = logged(table)
        table.app.action({"action": "training", "op": "stop"})
        table.wait(0.2)
        assert table.app.session.row.id == game and table.app.session.row.purpose is None
        assert table.new()[0] == "Back to the game. Last move: White, c3 to d4."
        assert page_log(table, "pt-PT", mark)[0].startswith("De volta à partida. Último lance: brancas,")
    finally:
        table.close()
