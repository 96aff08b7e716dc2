"""Issue 33.3: one lock per database file. The lock is taken on the file itself (its inode), so
``--db`` through a symbolic link or a hard link cannot start a second program on a database in
use (both resumed the same game and accepted different moves); a damaged database moved aside
hands the lock to the new file before the new file takes its name."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from damas.records.store import Store, StoreLocked, journals_dir
from tests.app.server import Server, free_port
from tests.conftest import damas, one_line_error
from tests.store.test_damage import build


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_a_second_play_through_a_link_is_refused(tmp_path: Path, link: str) -> None:
    db = tmp_path / "g.sqlite3"
    other = tmp_path / "other" / "games.sqlite3"
    other.parent.mkdir()
    server = Server(db).start()
    try:
        if link == "symbolic":
            other.symlink_to(db)
        else:
            os.link(db, other)
        r = damas("play", "--no-browser", "--port", str(free_port()), "--db", str(other), "--resume")
        one_line_error(r, f"{other} is in use by another damas (process {server.proc.pid})")  # type: ignore[union-attr]
        assert server.get("/api/state")["game"] == 1
    finally:
        server.stop()
    assert not journals_dir(other).exists()  # nothing was written under the other name


def test_a_symbolic_links_copies_are_its_targets(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    link = tmp_path / "link.sqlite3"
    link.symlink_to(db)
    with Store(link, exclusive=True) as store:
        assert store.journals == journals_dir(db)
        assert len(store.games()) == 3


def test_the_file_put_in_place_of_a_damaged_one_is_locked_before_it_has_the_name(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    data = bytearray(db.read_bytes())
    data[4096:8192] = random.Random(3).randbytes(4096)
    db.write_bytes(bytes(data))
    with Store(db, exclusive=True, quarantine=True) as store:
        assert store.quarantined is not None
        with pytest.raises(StoreLocked):
            Store(db, exclusive=True)
        assert not list(tmp_path.glob("*.new-*"))
    with Store(db, exclusive=True):
        pass  # free once the first let go
