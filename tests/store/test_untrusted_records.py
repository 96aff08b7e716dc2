"""Issue 33.2: every record file is read as untrusted input. One bad game never stops a start
(a restart loop under systemd) nor the recovery of the others; a record that names another
variant or a position of another board is named and left out; the database whose header is
damaged is recoverable in place, as its error says; no time, result or tag from the records
can crash a command or reach the page as markup."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from damas.records.store import Store, journals_dir
from tests.app.server import Server
from tests.store.test_damage import build, export_all, games_of, open_for_play, run, tamper

TEN = "W:W31-50:B1-20"  # an International (10x10) start: not a position of an 8x8 game


def lose(db: Path, *games: int) -> None:
    """The database loses those games (rows, journal, moves): only their copies hold them."""
    ids = ", ".join(map(str, games))
    tamper(
        db,
        f"DELETE FROM journal WHERE game_id IN ({ids})",
        f"DELETE FROM moves WHERE game_id IN ({ids})",
        f"DELETE FROM reports WHERE game_id IN ({ids})",
        f"DELETE FROM games WHERE id IN ({ids})",
    )


def edit_record(db: Path, game: int, **fields: object) -> None:
    path = journals_dir(db) / f"{game}.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    record.update(fields)
    path.write_text(json.dumps(record), encoding="utf-8")


def test_a_record_with_a_position_of_another_board_never_stops_a_start(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    lose(db, 1, 2)
    edit_record(db, 1, fen=TEN)
    lines, game = open_for_play(db)  # was: "damas: error: invalid fen" at every start
    assert game == 3, lines
    one = [line for line in lines if "game 1:" in line]
    assert len(one) == 1 and "fen 'W:W31-50:B1-20' is not a position of the game's variant" in one[0], lines
    with Store(db) as store:
        assert len(store.moves(1)) == 3 and store.game(1).fen is None
        assert len(store.moves(2)) == 1  # the game after it is rebuilt too


def test_recover_goes_on_past_a_game_that_cannot_be_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    src = tmp_path / "src"
    shutil.copytree(journals_dir(db), src)
    # game 1's record names a 10x10 position (was: recover stopped there, no game after it rebuilt)
    record = json.loads((src / "1.json").read_text(encoding="utf-8"))
    (src / "1.json").write_text(json.dumps({**record, "fen": TEN}), encoding="utf-8")
    # game 2's log header does too: that game cannot be replayed, and is kept as damaged
    head, *events = (src / "2.jsonl").read_text(encoding="utf-8").splitlines()
    (src / "2.jsonl").write_text("\n".join([json.dumps({**json.loads(head), "fen": TEN}), *events]) + "\n")
    code, out, err = run("recover", "--db", str(tmp_path / "new.sqlite3"), "--from", str(src))
    assert code == 0 and err == "", err
    lines = out.splitlines()
    assert lines[0].startswith("game 1: rebuilt with 7 events") and "is not a position of the game's" in lines[0]
    assert lines[1].startswith("game 2: its header is damaged") and lines[1].endswith("kept as damaged"), lines
    assert lines[-1].startswith("2 games rebuilt, 0 intact, 1 not recoverable"), lines
    code, out, err = run("export", "--all", "--db", str(tmp_path / "new.sqlite3"))
    assert code == 1 and err.startswith("damas: warning: game 2: its header is damaged"), err
    new, old = games_of(out), games_of(export_all(db))
    assert new[2] == old[2] and new[0].split("\n\n")[1] == old[0].split("\n\n")[1]  # games 3 and 1 whole


def test_a_record_whose_variant_was_changed_is_named_and_the_game_rebuilt_whole(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    before = export_all(db)
    lose(db, 1)
    edit_record(db, 1, variant="international")  # was: rebuilt with 0 moves, and no word of it
    lines, _game = open_for_play(db)
    one = [line for line in lines if "game 1:" in line]
    assert len(one) == 1 and "variant 'international' is not the game's (its log says 'brazilian')" in one[0]
    assert export_all(db) == before


def test_a_database_whose_header_is_zeroed_is_recovered_in_place(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    before = export_all(db)
    data = bytearray(db.read_bytes())
    data[:100] = bytes(100)
    db.write_bytes(bytes(data))
    # a command that reads says what to do; what it says works (was: the same error again)
    code, _out, err = run("games", "--db", str(db))
    assert code == 2 and err.count("\n") == 1 and f"`damas recover --db {db}`" in err, err
    code, out, err = run("recover", "--db", str(db))
    assert code == 0 and err == "", err
    assert out.splitlines()[0].startswith(f"{db} was damaged (") and "moved to" in out.splitlines()[0], out
    assert out.splitlines()[-1].startswith("3 games rebuilt, 0 intact, 0 not recoverable"), out
    assert export_all(db) == before


def test_play_starts_on_a_database_whose_header_is_zeroed(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    before = export_all(db)
    data = bytearray(db.read_bytes())
    data[:100] = bytes(100)
    db.write_bytes(bytes(data))
    lines, game = open_for_play(db)  # was: it never started
    assert lines[0].startswith(f"damas: {db} was damaged (") and game == 3, lines
    assert export_all(db) == before


def test_a_start_time_beyond_any_calendar_is_shown_as_unknown(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    lose(db, 1)
    edit_record(db, 1, started=1e300, ended=-5)
    lines, _game = open_for_play(db)
    one = [line for line in lines if "game 1:" in line]
    assert "started 1e+300 is not a time; ended -5 is not a time" in one[0], one
    tamper(db, "UPDATE games SET started=1e300 WHERE id=2", "UPDATE games SET started=-1e300 WHERE id=3")
    code, out, err = run("games", "--db", str(db))  # was: a traceback
    assert code == 0 and err == "", err
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert rows["2"].split()[1] == "?" and rows["3"].split()[1] == "?", out


def test_a_result_that_is_markup_is_read_as_unknown_and_never_reaches_the_page(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    markup = '<img src=x onerror="document.title=1">'
    tamper(db, f"UPDATE games SET result='{markup}', result_locked=1, termination='<b>x</b>' WHERE id=3")
    _code, out, _err = run("games", "--db", str(db))
    three = next(line for line in out.splitlines() if line.split()[0] == "3")
    assert "in play" in three and "its result '<img src=x" in three and "is not a result" in three, out
    server = Server(db).start("--resume")
    try:
        state = server.get("/api/state")
    finally:
        server.stop()
    assert state["game"] == 3 and len(state["moves"]) == 4  # the game goes on
    assert state["result"] == "*" and "<" not in json.dumps(state)
    # a record (<id>.json) with markup for its result: left out when the game is rebuilt from it
    lose(db, 1)
    edit_record(db, 1, result=markup, result_locked=True)
    lines, _game = open_for_play(db)
    assert any("game 1:" in line and "result '<img src=x" in line and "is not a result" in line for line in lines)
    with Store(db) as store:
        assert store.game(1).result == "0-1"  # the replay's: White resigned
