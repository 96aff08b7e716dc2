"""The studies the records keep (issue 28): a study the page opens (a game, a pasted PDN) is
written whole after each change (the records' ``studies`` table: its tree, variations, NAGs,
comments and the position shown, in one transaction, before the page is answered), so a restart
or a power cut loses none; at start the one the page had open is open again, and every study
its copy does not hold as it is is read (a damaged one is named in one line and left as it is,
the others are read); one its copy holds was read as a study when both were written (reading
every move of 1,000 studies would cost the start seconds: ``benchmarks/studies.py``), and is
read when it is opened.

The analysis mode holds the study open (``AnalysisMode.study``) and its row
(``AnalysisMode.study_id``, ``damas.board.analysis_mode``); this is the part that reads and
writes them, and the page's list of the others.
"""

from __future__ import annotations

import logging
from typing import Any

from damas.computer.analysis import KeptAnalysis
from damas.records.kept import KeptChecks, copy_holds
from damas.records.session import export_game, lines_played
from damas.records.store import ANALYSIS, Store, StoreError, StudyRow
from damas.study.tree import Study, StudyError
from rules.errors import shown
from rules.pdn import PdnGame

log = logging.getLogger(__name__)


def _tree_problem(tree: Any, variant: str) -> str | None:
    """What makes a study copy's tree not a study of ``variant`` (``damas recover``)."""
    try:
        study = Study.from_json(tree)
    except (StudyError, RecursionError, TypeError, ValueError) as exc:
        return f"its tree is not a study ({shown(str(exc), 120)})"
    if study.variant.name != variant:
        return f"its tree is {study.variant.title}, not {shown(variant, 40)}"
    return None


#: the copies of the studies and analyses read as what they claim (``damas.records.kept``)
KEPT_CHECKS = KeptChecks(
    tree=_tree_problem, analysis=lambda game_id, data: KeptAnalysis.from_json(game_id, data) is not None
)


def session_pdn(store: Store, game_id: int, notes: list[str] | None = None) -> PdnGame:
    """A recorded game as PDN (``export_game``); an analysis session on the board: every line it
    played, as variations in its study's tree (the study's moves that lead to them, its main line
    first, with their comments), not only its last line. Without its study (deleted, damaged) or
    when none of its lines is in it: its last line, as before."""
    pg = export_game(store, game_id, notes)
    row = store.game(game_id)
    study_id = row.header.get("study")
    if row.purpose != ANALYSIS or not isinstance(study_id, int) or isinstance(study_id, bool):
        return pg
    try:
        study = KeptStudies._read(store.study(study_id))
    except (StoreError, StudyError):
        return pg
    if study.variant.name != row.variant:
        return pg
    tree = study.with_lines((start, moves) for start, moves in lines_played(store, game_id) if moves)
    if tree is None:
        return pg
    out = tree.pdn_game()
    out.tags = {k: v for k, v in pg.tags.items() if k not in ("Result", "Termination", "FEN", "SetUp")}
    out.result = "*"  # (its lines end where the players left them: no result for the session)
    return out


class KeptStudies:
    """The records' studies, as the board loop uses them."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.changed = 0  # a study written or closed: the page's list is read again
        self._listed: tuple[tuple[int, str, int], list[StudyRow]] | None = None

    def load(self, variant: str) -> tuple[Study, int] | None:
        """The studies read (see above: a damaged one named); the one open (if it is of ``variant``,
        the board's) and its id."""
        try:
            rows = self.store.studies()
        except StoreError as exc:
            log.warning("the studies cannot be read (%s): none is open", exc)
            return None
        found = None
        for row in rows:
            candidate = row.open and found is None and row.variant == variant
            if row.damage is None and not candidate and copy_holds(self.store, row.id, row.variant, row.tree):
                continue  # (see above: read when opened)
            try:
                study = self._read(row)
            except StudyError as exc:
                log.warning("study %d in %s is damaged (%s): left as it is, not opened", row.id, self.store.path, exc)
                continue
            if row.open and found is None and study.variant.name == variant:
                found = (study, row.id)
                log.info("study %d is open again (%d moves)", row.id, len(study.nodes) - 1)
        return found

    @staticmethod
    def _read(row: StudyRow) -> Study:
        if row.damage is not None:
            raise StudyError(row.damage)
        return Study.from_json(row.tree)

    def reopen(self, study_id: object, variant: str) -> Study:
        """A kept study by its id, to open again (of the board's ``variant``); a
        :class:`StudyError` of one line when there is none or it cannot be read."""
        if not isinstance(study_id, int) or isinstance(study_id, bool):
            raise StudyError(f"study must be a study's id, not {study_id!r:.40}")
        try:
            study = self._read(self.store.study(study_id))
        except StoreError as exc:
            raise StudyError(str(exc)) from None
        except StudyError as exc:
            raise StudyError(f"study {study_id} is damaged ({exc})") from None
        if study.variant.name != variant:
            raise StudyError(f"study {study_id} is {study.variant.title}: the board plays {variant}")
        return study

    def save(self, study_id: int | None, study: Study) -> int:
        """Write ``study`` whole, as the one open (a new row when ``study_id`` is None); its id.
        :class:`StoreError` when the records cannot take it (nothing is changed then)."""
        title = f"{study.tags.get('White', '?')} – {study.tags.get('Black', '?')}"
        new_id = self.store.save_study(
            study_id, study.variant.name, study.to_json(), title=title, moves=len(study.nodes) - 1
        )
        self.changed += 1
        return new_id

    def close(self, study_id: int) -> None:
        """The page closed it: kept, no longer open at the next start."""
        self.store.close_study(study_id)
        self.changed += 1

    def remove(self, study_id: int) -> None:
        """A kept study deleted (its row and its copy: nothing brings it back)."""
        self.store.delete_study(study_id)
        self.changed += 1

    def listed(self, variant: str, open_id: int | None, limit: int) -> list[StudyRow]:
        """The latest kept studies of ``variant`` but the open one (read again after a change)."""
        key = (self.changed, variant, open_id or 0)
        if self._listed is None or self._listed[0] != key:
            try:
                rows = self.store.study_list(variant, limit + 1)
            except StoreError:
                rows = []
            self._listed = (key, [r for r in rows if r.id != open_id][:limit])
        return self._listed[1]
