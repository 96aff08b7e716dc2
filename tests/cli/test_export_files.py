"""``damas export`` as a user runs it to a file (in-process, quick): how many games went where,
a file it cannot write, an empty database, a damaged game exported as far as it reads; and
``damas`` alone."""

from __future__ import annotations

from pathlib import Path

from damas.records.store import Store
from tests.store.test_damage import build, run, tamper


def test_export_to_a_file_says_how_many_games_went_where(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    out = tmp_path / "all.pdn"
    assert run("export", "--all", "--db", str(db), "-o", str(out)) == (0, f"3 games written to {out}\n", "")
    text = out.read_text(encoding="utf-8")
    assert text.count("[Result ") == 3 and '[White "Ana"]' in text and '[Black "Leo"]' in text
    one = tmp_path / "one.pdn"
    assert run("export", "1", "--db", str(db), "-o", str(one)) == (0, f"1 game written to {one}\n", "")
    assert one.read_text(encoding="utf-8").count("[Result ") == 1
    missing = tmp_path / "no" / "x.pdn"
    assert run("export", "--db", str(db), "-o", str(missing)) == (
        2,
        "",
        f"damas: error: cannot write {missing}: No such file or directory\n",
    )


def test_export_of_an_empty_database_says_so(tmp_path: Path) -> None:
    db = tmp_path / "e.sqlite3"
    Store(db).close()
    assert run("export", "--db", str(db)) == (2, "", f"damas: error: no games in {db}\n")


def test_export_all_gives_what_a_damaged_game_still_has_and_says_which(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(db, "UPDATE journal SET event='{' WHERE game_id=3 AND seq=4")
    code, out, err = run("export", "--all", "--db", str(db))
    assert code == 1 and out.count("[Result ") == 3
    assert err.startswith("damas: warning: game 3: journal event 4 is damaged (") and err.count("\n") == 1
    assert ": exported what could be read; `damas recover --db " in err


def test_damas_alone_shows_its_commands() -> None:
    code, out, err = run()
    assert code == 2 and err == ""
    assert out.startswith("usage: damas ") and "    play         play on the board" in out
