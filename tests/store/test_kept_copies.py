"""The copies of the kept studies and analyses beside the database (issue 28): written with each
change, gone with a deleted study, and what ``damas recover`` takes back from them — a study the
database holds older (a lost ``-wal``) or damaged; a copy the database's row lacks written again."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from damas.board.studies import KEPT_CHECKS
from damas.records.recover import recover
from damas.records.store import STUDIES_DIR, Store
from damas.study.tree import Study, StudyError
from rules import Position


def a_study(*moves: str) -> Study:
    study = Study(Position.start("brazilian").variant, Position.start("brazilian"))
    node = study.root
    for m in moves:
        node = study.extend(node, node.position.parse_pdn(m))
    return study


def test_a_study_older_or_damaged_in_the_database_is_taken_from_its_copy(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        first = store.save_study(None, "brazilian", a_study("c3-d4").to_json(), title="A – B", moves=1)
        old_tree = store.study_record(first)
        assert old_tree is not None
        store.save_study(first, "brazilian", a_study("c3-d4", "f6-g5").to_json(), title="A – B", moves=2)
        second = store.save_study(None, "brazilian", a_study("e3-f4").to_json(), title="C – D", moves=1)
        copy = json.loads(store.kept_path(STUDIES_DIR, first).read_text())
        assert copy["moves"] == 2 and copy["open"] is False  # (closed by the second one opened)
        assert json.loads(store.kept_path(STUDIES_DIR, second).read_text())["open"] is True
    con = sqlite3.connect(db)
    try:  # the database as it was before the last change of the first (a lost -wal), the second damaged
        con.execute(
            "UPDATE studies SET tree=?, moves=1, updated=? WHERE id=?",
            (json.dumps(old_tree["tree"]), old_tree["updated"], first),
        )
        con.execute("UPDATE studies SET tree='{' WHERE id=?", (second,))
        con.commit()
    finally:
        con.close()
    with Store(db) as store:
        lines = recover(store, checks=KEPT_CHECKS)
        assert any(
            line.startswith(f"study {first}: rebuilt from") and "older in the database" in line for line in lines
        )
        assert any(line.startswith(f"study {second}: rebuilt from") and "damaged" in line for line in lines)
        assert [r.moves for r in store.studies() if r.id == first] == [2]
        assert all(r.damage is None for r in store.studies())
        store.delete_study(first)  # deleted: its copy goes with it, and nothing brings it back
        assert not store.kept_path(STUDIES_DIR, first).exists()
        lines = recover(store, checks=KEPT_CHECKS)
        assert [r.id for r in store.studies()] == [second] and not any(line.startswith("study") for line in lines), (
            lines
        )


def test_the_copies_a_database_lacks_are_written_again(tmp_path: Path) -> None:
    """A database from before the copies: each kept study gets its copy at the next recovery (as
    every start of ``damas play`` runs it)."""
    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        sid = store.save_study(None, "brazilian", a_study("c3-d4").to_json(), title="A – B", moves=1)
        path = store.kept_path(STUDIES_DIR, sid)
        path.unlink()
        lines = recover(store, lost_only=True, checks=KEPT_CHECKS)
        assert lines[0] == f"study {sid}: its copy was missing: written again from the database"
        assert json.loads(path.read_text())["tree"] == store.study(sid).tree
        assert lines[-1].startswith("0 games rebuilt, 0 intact, 1 copy completed")


def test_the_start_reads_as_studies_only_the_open_one_and_those_their_copies_do_not_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading every move of every study at each start cost 1.5-2.9 s for 1,000 studies on the
    development machine (benchmarks/studies.py): a study its copy holds as it is was read as a study
    when both were written, and is read when opened; the open one, one without its copy and one
    that differs from it are read (a damaged one named), and each opens as before."""
    from damas.board.studies import KeptStudies

    db = tmp_path / "g.sqlite3"
    with Store(db) as store:
        kept = KeptStudies(store)
        ids = [kept.save(None, a_study(m)) for m in ("c3-d4", "e3-f4", "g3-h4", "a3-b4")]
        store.kept_path(STUDIES_DIR, ids[0]).unlink()  # no copy
        other = a_study("c3-b4", "f6-g5").to_json()
        con = sqlite3.connect(db)
        try:  # the second's row differs from its copy (damaged: a move that is no move)
            bad = json.loads(json.dumps(other))
            bad["moves"][1]["move"] = "f6-g9"
            con.execute("UPDATE studies SET tree=? WHERE id=?", (json.dumps(bad), ids[1]))
            con.commit()
        finally:
            con.close()
        read: list[object] = []
        real = Study.from_json.__func__  # type: ignore[attr-defined]

        def counted(cls: type[Study], data: object) -> Study:
            read.append(data)
            return real(cls, data)  # type: ignore[no-any-return]

        monkeypatch.setattr(Study, "from_json", classmethod(counted))
        found = kept.load("brazilian")
        assert found is not None and found[1] == ids[3]  # the last saved is the open one
        assert len(read) == 3  # the open one, the one without a copy, the damaged one — not the third
        assert kept.reopen(ids[2], "brazilian").main_line()[0].text == "g3-h4"
        with pytest.raises(StudyError, match="damaged"):
            kept.reopen(ids[1], "brazilian")
