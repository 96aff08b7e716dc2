"""The analysis mode: a study (a game opened on the page to try moves in: ``damas.study.tree``)
and, on the board the referee knows, its position set up and played from.

On the board (``board`` on): the game in play is kept aside as it stands — never fed, its
clock paused — and an analysis session takes the board: a casual session from the study's
position, without a clock, that the games list does not show. Its referee guides the set-up
(the LEDs light the squares to fill and to empty; it says when the board matches), then judges
the moves made from there as in any game (legality, required captures lit). Every move made is
followed in the study (the line already there, or a new variation); a takeback on the board
(the position before put back) goes back one ply, and so does the page's ‹ (any position the
page goes to: a new analysis session from it, its set-up lit).

Leaving (``board`` off, or the study closed) returns to the game kept aside, untouched: until
the board holds the game's position again, what the hands do is not the game's (nothing is fed
or journalled in it) and the LEDs light what to put back (``returning``).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from board_hal.leds import Role as LedRole
from damas.board.requests import valid_tag
from damas.records.session import GameSession, export_game
from damas.records.store import ANALYSIS, CLOSED, StoreError
from damas.study.tree import Node, Study, StudyError
from referee import Action, ClockAction
from referee.vocabulary import ReportKind
from rules import DraughtsError, Game, Move, Position, find_variant
from rules.errors import shown
from rules.pdn import read_pdn
from wording.page import RECORDS_ERROR, PageError

if TYPE_CHECKING:
    from damas.board.loop import PlayApp

log = logging.getLogger(__name__)


NOWHERE = -1  # the node of a study the board's session started from, once that study is gone


@dataclass
class OnBoard:
    """The study's moves made on the board: the node its session's line started from, the session
    (one for the study's analysis on the board: another of its positions is a ``position`` line
    in its journal), and the study it analyses."""

    node: int
    session: GameSession
    study: Study | None = None


class AnalysisMode:
    """The study open on the page, and the analysis on the board (``PlayApp.analysis_mode``)."""

    def __init__(self, app: PlayApp) -> None:
        self.app = app
        self.study: Study | None = None
        self.version = 0  # changes whenever the study does (the view compares it)
        self.study_id: int | None = None  # its row in the records (None: not written yet)
        self._saved = 0  # the version written last (the records keep every study)
        self.board: OnBoard | None = None  # the study on the board (None: its moves are tried on the page)
        self.held: GameSession | None = None  # the game in play, kept aside while the board analyses
        self.returning = False  # back in the game: its position is being put back on the board
        self._game: tuple[int, Game] | None = None  # the study's position as a game, by version

    # -- what the page asks ---------------------------------------------------------------------
    def action(self, data: dict[str, Any]) -> None:
        """``open`` (a recorded game, or the one in play, at a ply), ``pdn`` (a pasted PDN's first
        game), ``play`` (a move from a position of the study), ``goto``, ``delete``, ``promote``,
        ``board`` (``on``: the analysis on the board), ``close``, ``remove`` (a kept study, not the
        one open, deleted from the records with its copy). A bad request is a ``ValueError``
        of one line and changes nothing."""
        app = self.app
        op = data.get("op")
        game = self.held or app.session
        if op != "close" and game.referee.mode == "tournament" and not game.ended:
            raise PageError("no-study")  # moving pieces on another board is help in a tournament game
        try:
            if op == "open" and data.get("study") is not None:
                self.study, self.study_id = self._stored_study(data.get("study")), data.get("study")
                self._another_study()
            elif op == "open":
                self.study = self._study_of(data.get("game"), data.get("ply"))
                self.study_id = None  # a new study: a row of its own
                self._another_study()
            elif op == "pdn":
                self.study = study_of_pdn(data.get("pdn"), game.row.variant)
                self.study_id = None
                self._another_study()
            elif op == "close":
                self.leave()
                if self.study_id is not None:
                    self._write(lambda: self.app.kept.close(self.study_id or 0))
                self.study, self.study_id = None, None
            elif op == "remove":
                self._remove(data.get("study"))
            elif self.study is None:
                raise StudyError("no study is open (open a game or a PDN first)")
            elif op == "play":
                self.study.play(data.get("node"), data.get("move"))
            elif op == "goto":
                self.study.goto(data.get("node"))
            elif op == "delete":
                self.study.delete(data.get("node"))
            elif op == "promote":
                self.study.promote(data.get("node"))
            elif op == "board":
                self._board(data.get("on"))
            else:
                raise StudyError(
                    f"unknown study op {shown(op)} (open, pdn, play, goto, delete, promote, board, close, remove)"
                )
            if self.board is not None and self.study is not None and self.study.current is not self.at(grow=False):
                self.anchor(self.study.current)  # the page went elsewhere: the board is set up there
        except StudyError as exc:
            raise ValueError(str(exc)) from None
        self.version += 1
        app._follow_live()
        app._mark()
        self.keep(raising=True)  # written before the page is answered: a power cut keeps it

    def _another_study(self) -> None:
        """Another study opened while the board analyses: the board is set up at its position (an
        analysis of its own: another session)."""
        if self.board is not None:
            self.board = OnBoard(NOWHERE, self.board.session)

    def _remove(self, study_id: Any) -> None:
        if not isinstance(study_id, int) or isinstance(study_id, bool):
            raise StudyError(f"study must be a study's id, not {shown(study_id)}")
        if study_id == self.study_id and self.study is not None:
            raise StudyError(f"study {study_id} is open: close it first")
        try:
            self.app.kept.remove(study_id)
        except StoreError as exc:  # (none such, or the records cannot be written: nothing changed)
            raise StudyError(str(exc)) from None

    def _board(self, on: Any) -> None:
        if not isinstance(on, bool):
            raise StudyError(f"board needs on: true or false, not {shown(on)}")
        assert self.study is not None
        if on:
            self.anchor(self.study.current)
        else:
            self.leave()

    # -- the analysis on the board ----------------------------------------------------------------
    def anchor(self, node: Node) -> None:
        """The board analyses from ``node`` (the LEDs guide the set-up): in the study's analysis
        session, a line from its position (a ``position`` action in its journal), or, on entering
        or for another study, a new analysis session from it; the game in play, on entering, is
        kept aside and its clock paused."""
        app = self.app
        assert self.study is not None
        if node.position.variant.name != app.session.row.variant:
            raise StudyError(f"the study is {node.position.variant.title}: the board plays {app.session.row.variant}")
        app._refuse_while_paused()
        board = self.board
        if board is not None and board.study is self.study and app.session is board.session:
            app._enter(Action(app.clock(), "position", fen=node.position.fen()))
            self.returning = False
            self.board = OnBoard(node.id, board.session, self.study)
            return
        if self.held is None:
            game = app.session
            keeper = game.clock
            if keeper is not None and keeper.clock.ticking and not game.ended:
                app._enter(ClockAction(app.clock(), "clock-pause", None, "arbiter"))  # (journalled in the game)
        tags = self.study.tags
        white, black = tags.get("White", "?"), tags.get("Black", "?")
        try:
            session = self._session(node.position, f"Analysis: {white} – {black}", white, black)
        except StoreError as exc:
            raise ValueError(RECORDS_ERROR["en"].format(reason=exc)) from None
        if self.held is None:
            self.held = app.session
        else:
            self._close(app.session)
        self.returning = False
        app._switch_to(session)
        self.board = OnBoard(node.id, session, self.study)

    def _session(self, start: Position, event: str, white: str, black: str) -> GameSession:
        """An analysis session from ``start``: casual, no clock, the board as it stands (its
        referee lights the set-up; the simulated board is set up by hand, or by ``fix``)."""
        app = self.app
        tags = {"Event": event, "White": white, "Black": black}
        tags = {k: v[:200] if valid_tag(k, v[:200]) else "?" for k, v in tags.items()}
        squares = app.io.occupied()[0]
        return app.start_session(
            start.variant.name, start_of(start), "casual", squares, tags, purpose=ANALYSIS, study=self.study_id
        )

    def leave(self) -> None:
        """Back to the game kept aside, as it was: the board is put back to its position first."""
        if self.board is None:
            return
        self.app._refuse_while_paused()
        game = self.held
        assert game is not None
        self._close(self.board.session)
        self.board, self.held = None, None
        self.app._switch_to(game)
        self.returning = True
        self.check_return()

    def drop(self) -> None:
        """Before another game starts or resumes: the analysis ends, the game kept aside is the
        game in play again (the new game then treats it as it treats any game in play)."""
        self.returning = False
        if self.board is None:
            return
        game = self.held
        assert game is not None
        self._close(self.board.session)
        self.board, self.held = None, None
        self.app._switch_to(game)

    def _close(self, session: GameSession) -> None:
        """The analysis on the board left: its session closed, kept whole (``damas games --all``)."""
        with contextlib.suppress(StoreError):  # (left open, it is closed as interrupted by the next start)
            self.app.store.abandon(session.row.id, CLOSED)

    def check_return(self) -> None:
        """The game's position is back on the board: the game goes on from there."""
        if self.returning and self.app.io.occupied()[0] == self.app.session.raw:
            self.returning = False
            self.app._mark()

    def return_leds(self) -> dict[int, LedRole]:
        """While the game's position is put back: the squares to fill and those to empty."""
        sensed = set(self.app.io.occupied()[0])
        want = self.app.session.raw
        lit = {q: LedRole.MISSING for q in want - sensed}
        lit.update({q: LedRole.EXTRA for q in sensed - want})
        return lit

    def at(self, *, grow: bool = True) -> Node | None:
        """The study's node the board's position is (its start, and the moves made since: each
        added to the study where it is not there yet, with ``grow``; else None when one is not,
        a move deleted on the page, say)."""
        if self.study is None or self.board is None or self.board.node not in self.study.nodes:
            return None
        node: Node | None = self.study.nodes[self.board.node]
        for _pos, m in self.board.session.referee.game.steps():
            if isinstance(m, Move) and node is not None:
                node = self.study.extend(node, m) if grow else next((c for c in node.children if c.move == m), None)
        return node

    def follow(self) -> None:
        """The moves made on the board, followed in the study (a move taken back: its position
        again; the move stays in the study)."""
        self.check_return()
        if self.study is None or self.board is None:
            return
        if self.app.session is not self.board.session:
            self.drop()  # (another game took the board)
            return
        try:
            node = self.at()
        except StudyError:  # the study is full: the board plays on, the study stays as it is
            return
        if node is None:
            return
        if node is not self.study.current:
            self.study.current = node
            self.version += 1
        # a line's end (no more moves: the referee takes nothing back after it): its last move put
        # back on the board goes back one ply all the same (from there, a new session)
        ref = self.board.session.referee
        parent = node.parent
        if ref.ended and parent is not None and frozenset(ref.occupied) == parent.position.occupied():
            self.study.current = parent
            self.anchor(parent)
            self.version += 1

    def state(self) -> dict[str, Any] | None:
        """What the page shows of the analysis on the board (None: off)."""
        app = self.app
        if self.returning:
            lit = self.return_leds()
            return {
                "on": False,
                "returning": True,
                "game": app.session.row.id,
                "fill": sorted(q for q, r in lit.items() if r is LedRole.MISSING),
                "empty": sorted(q for q, r in lit.items() if r is LedRole.EXTRA),
            }
        if self.board is None:
            return None
        ref = self.board.session.referee
        setting_up = ref.report is not None and ref.report.kind is ReportKind.SETUP
        lit = {i.square: i.role for i in ref.led_intents()} if setting_up else {}
        return {
            "on": True,
            "returning": False,
            "game": None if self.held is None else self.held.row.id,
            # the game kept aside has moves and no result (a new game would leave it unfinished)
            "game_goes_on": self.held is not None and not self.held.ended and bool(self.held.referee.game.steps()),
            "node": self.board.node,
            # the referee's set-up: the board does not hold the study's position yet
            "set_up": not setting_up and frozenset(ref.occupied) == ref.position.occupied(),
            "fill": sorted(q for q, r in lit.items() if r is LedRole.MISSING),
            "empty": sorted(q for q, r in lit.items() if r is LedRole.EXTRA),
        }

    # -- studies kept in the records: written after each change, read at start -------------------
    def load(self) -> None:
        """The study the page had open when the program stopped, open again (of the board's variant)."""
        found = self.app.kept.load(self.app.session.row.variant)
        if found is not None:
            self.study, self.study_id = found

    def _stored_study(self, study_id: Any) -> Study:
        """A study the records keep, by its id (of the board's variant)."""
        return self.app.kept.reopen(study_id, (self.held or self.app.session).row.variant)

    def keep(self, *, raising: bool = False) -> None:
        """Write the open study when it changed since it was last written (``damas.board.studies``):
        before the page is answered (``raising``: a failure is the request's error), or when the
        board's moves changed it (a failure is logged, once per change)."""
        study = self.study
        if study is None or self._saved == self.version:
            return
        self._saved = self.version

        def save() -> None:
            self.study_id = self.app.kept.save(self.study_id, study)

        self._write(save, raising=raising)

    @staticmethod
    def _write(write: Callable[[], None], *, raising: bool = True) -> None:
        try:
            write()
        except StoreError as exc:
            if raising:
                raise ValueError(RECORDS_ERROR["en"].format(reason=exc)) from None
            log.warning("the study could not be written: %s", exc)

    # -- the study's position -------------------------------------------------------------------
    def game(self) -> Game:
        """The study's position shown, as a game (its moves from the study's start)."""
        assert self.study is not None
        if self._game is not None and self._game[0] == self.version:
            return self._game[1]  # (the live analysis asks every turn of the loop)
        game = Game(self.study.variant, self.study.root.position)
        for node in self.study.current.path():
            assert node.move is not None
            game.push(node.move, after_end=True)
        self._game = (self.version, game)
        return game

    def pdn(self) -> str:
        if self.study is None:
            raise LookupError("no study is open")
        return self.study.pdn()

    def _study_of(self, game_id: Any, ply: Any) -> Study:
        """A recorded game (default: the one in play) as a study, shown after ``ply`` moves."""
        app = self.app
        game = self.held or app.session
        if game_id is None or game_id == game.row.id:
            study = Study.from_game(game.referee.game, game.tags())
        else:
            if not isinstance(game_id, int) or isinstance(game_id, bool):
                raise StudyError(f"game must be a game's id, not {shown(game_id)}")
            try:
                pg = export_game(app.store, game_id)
            except StoreError as exc:
                raise StudyError(str(exc)) from None
            study = Study.from_pdn(pg)
            if pg.variant.name != game.row.variant:
                raise StudyError(f"game {game_id} is {pg.variant.title}: the board plays the game in play's variant")
        study.source = game.row.id if game_id is None else game_id
        line = study.main_line()
        if ply is not None:
            if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= len(line):
                raise StudyError(f"ply must be 0-{len(line)}, not {shown(ply)}")
            study.current = line[ply - 1] if ply else study.root
        return study


def study_of_pdn(text: Any, variant: str) -> Study:
    """The first game of a pasted or loaded PDN as a study (of the board's variant: its squares),
    or a position given as a FEN alone (``W:W21-32:B1-12``: a study from it)."""
    if not isinstance(text, str) or not text.strip():
        raise StudyError("paste or load a PDN first")
    if FEN_ALONE.fullmatch(text.strip()):
        try:
            start = Position.from_fen(text, variant)
        except DraughtsError as exc:
            raise StudyError(str(exc)) from None
        return Study(start.variant, start)
    try:
        games = read_pdn(text, "the PDN")
    except DraughtsError as exc:
        raise StudyError(str(exc)) from None
    if not games:
        raise StudyError("the PDN has no game")
    pg = games[0]
    if pg.error is not None:
        raise StudyError(str(pg.error))
    if pg.variant.name != variant:
        raise StudyError(f"the PDN is a game of {pg.variant.title}: the board plays {find_variant(variant).title}")
    return Study.from_pdn(pg)


#: a FEN without a PDN around it: the side to move, a colon, the pieces (``"`` and ``.`` allowed)
FEN_ALONE = re.compile(r'"?\s*[WBwb]\s*:[^\[\]{}()]*"?\.?')


def start_of(pos: Position) -> str | None:
    """A position as a new session's FEN (None: the variant's start)."""
    return None if pos == Position.start(pos.variant) else pos.fen()
