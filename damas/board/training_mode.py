"""Training on the board (``damas.study.training``): a game replayed with each move lit, or one
side's moves guessed, or a tactic found — a casual game from the line's start, its moves judged
against the line, what to do lit (the line's move, or what to put back after a move off it) and
said. The board loop's side of it (``PlayApp.training_mode``)."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from board_hal.leds import Role as LedRole
from damas.board.page_state import training_text
from damas.board.requests import valid_tag
from damas.records.store import TRAINING
from damas.study.training import Training, shipped_games, shipped_tactics
from rules import Color, Move, Position
from rules.errors import shown
from wording import LANGUAGES

if TYPE_CHECKING:
    from damas.board.loop import PlayApp


class TrainingMode:
    """The training under way on the board (None: none)."""

    def __init__(self, app: PlayApp) -> None:
        self.app = app
        self.training: Training | None = None
        self._game = 0  # the game the training is played in
        self._told: tuple[Any, ...] | None = None  # what the training said last
        self._left: int | None = None  # the game in play when the training began (played on after it)

    @property
    def left(self) -> int | None:
        """The game the training under way left (played on when it stops; None: none)."""
        return self._left if self.training is not None else None

    def action(self, data: dict[str, Any]) -> None:
        """``start`` (``kind``: ``game`` or ``tactic`` from the shipped sets by ``index``, or
        ``study``: the open study's main line; ``mode`` replay or guess, ``side`` the side guessed)
        a new game from the line's start, ``show`` the move to find (given up: counted wrong, then
        lit), or ``stop``: back to the game in play when the training
        began, if it is still unfinished. A bad request changes nothing."""
        op = data.get("op")
        if op == "stop":
            self.training, left, self._left = None, self._left, None
            if left is not None and self.app.session.row.purpose == TRAINING:
                with contextlib.suppress(ValueError):  # (finished or gone meanwhile: the board stays as it is)
                    self.app.resume_game(left)
            if self.app.publisher is not None:  # the hall's assignment waiting for the training: now
                self.app.publisher.retry()
            self.app._mark()
            return
        if op == "show":  # the move to find, given up: lit, counted wrong
            if self.training is not None:
                self.training.show()
                self.follow()
            self.app._mark()
            return
        if op != "start":
            raise ValueError(f"unknown training op {shown(op)} (start, show or stop)")
        training = self._of(data)
        if self.app.session.row.purpose != TRAINING:  # (a training after a training: the game before the first)
            game = self.app.game_in_play()
            self._left = None if game is None or game.ended else game.row.id
        self._new_game_from(training.start, f"Training: {training.title}", training.white, training.black)
        self.training = training
        self._game = self.app.session.row.id
        self.app._mark()

    def _new_game_from(self, start: Position, event: str, white: str, black: str) -> None:
        """A casual session from ``start`` for the training, named by its event and the players of
        the game it comes from; recorded as a training, not a game (left out of the lists of
        games, the export, the resume)."""
        fen = None if start == Position.start(start.variant) else start.fen()
        tags = {"Event": event, "White": white, "Black": black}
        tags = {k: v[:200] if valid_tag(k, v[:200]) else "?" for k, v in tags.items()}
        self.app.new_game(fen, start.variant.name, "casual", tags, purpose=TRAINING, aside=self._left)

    def _of(self, data: dict[str, Any]) -> Training:
        kind, index, mode = data.get("kind"), data.get("index", 0), data.get("mode", "replay")
        variant = self.app.session.row.variant
        side = data.get("side")
        if side not in (None, "white", "black"):
            raise ValueError(f"side must be white or black, not {shown(side)}")
        color = None if side is None else Color(side)
        if mode not in ("replay", "guess"):
            raise ValueError(f"training mode must be replay or guess, not {shown(mode)}")
        study = self.app.analysis_mode.study
        if kind == "study":
            if study is None:
                raise ValueError("no study is open: open a game or a PDN to train on it")
            line = [n.move for n in study.main_line() if n.move is not None]
            tags = study.tags
            title = f"{tags.get('White', '?')} – {tags.get('Black', '?')}"
            return Training(
                title, study.root.position, line, mode, color, tags.get("White", "?"), tags.get("Black", "?")
            )
        sets: list[Any] = (
            shipped_games(variant) if kind == "game" else shipped_tactics(variant) if kind == "tactic" else []
        )
        if kind not in ("game", "tactic"):
            raise ValueError(f"unknown training kind {shown(kind)} (game, tactic or study)")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(sets):
            raise ValueError(f"no {kind} {shown(index)} in the {variant} set (0-{len(sets) - 1})")
        if kind == "game":
            pg = sets[index]
            title = f"{pg.tags.get('White', '?')} – {pg.tags.get('Black', '?')}, {pg.tags.get('Event', '?')}"
            white, black = pg.tags.get("White", "?"), pg.tags.get("Black", "?")
            return Training(title, pg.start_position, [m.move for m in pg.moves], mode, color, white, black)
        start, line = sets[index].moves(variant)
        return Training(f"{index + 1}/{len(sets)}", start, line, "tactic")

    def follow(self) -> None:
        """The moves made in the training's game, judged against its line (and said when that
        changes what the training tells)."""
        t = self.training
        if t is None:
            return
        app = self.app
        if self._game != app.session.row.id:
            self.training = None  # another game: the training is over
            return
        t.follow([m for _pos, m in app.session.referee.game.steps() if isinstance(m, Move)])
        told = (t.played, t.off, t.right, t.wrong, self.restored())
        if told != self._told:  # the voice (and the page's list of what was said) says what changed
            self._told = told
            app.speech.tell({lang: training_text(app, lang) for lang in LANGUAGES})

    def shown(self) -> tuple[Any, ...] | None:
        """What the page shows of the training (compared by the board loop)."""
        t = self.training
        return None if t is None else (t.played, t.off, t.right)

    def leds(self) -> dict[int, LedRole]:
        """The training's lights: the line's move to make, or, while a move off the line stands,
        what to put back (the position before it)."""
        self.follow()  # (the LEDs may be asked while a move is being recorded)
        t = self.training
        ref = self.app.session.referee
        if t is None or ref.report is not None:
            return {}
        sensed = frozenset(ref.occupied)
        if t.off is not None:
            before = t.positions()[t.off]
            if self.restored():
                # put back, while the referee waits for the next event to read it as taken back (a
                # board that senses presence only may also read it as a capture a silent sensor hid):
                # the line's move, until its piece is lifted (the referee lights the move under way)
                return suggested(before, t.line[t.off]) if sensed == before.occupied() else {}
            lit = {q: LedRole.MISSING for q in before.occupied() - sensed}
            lit.update({q: LedRole.EXTRA for q in sensed - before.occupied()})
            return lit
        move = t.lit()
        if move is None or sensed != ref.position.occupied() or not ref.position.is_legal(move):
            return {}
        return suggested(ref.position, move)

    def restored(self) -> bool:
        """A move off the training's line taken back on the board (the position before it there,
        or the line's move under way from it), the game not yet told: the line's move is shown."""
        t = self.training
        if t is None or t.off is None or t.off >= len(t.line):
            return False
        before = t.positions()[t.off].occupied()
        sensed = frozenset(self.app.session.referee.occupied)
        return sensed in (before, before - {t.line[t.off].from_square})


def suggested(pos: Position, move: Move) -> dict[int, LedRole]:
    """A suggested move as the LEDs show it: its piece, the landings on its way, where it ends."""
    path = pos.routes(move)[0].path
    lit = {q: LedRole.PATH for q in path[1:-1]}
    lit[path[-1]] = LedRole.SUGGEST_TO
    lit[path[0]] = LedRole.SUGGEST_FROM  # (a capture that ends where it began: its piece)
    return lit
