"""Damaged databases: never a traceback, always a one-line report, never a crash loop, and
the journal copies beside the database rebuild what the file lost (``damas recover``)."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import random
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from board_hal.config import load_config
from board_hal.debounce import Transition
from damas.cli import UserError, build_parser, main
from damas.log import configure
from damas.records.session import GameSession, export_game
from damas.records.store import Store, StoreError, journals_dir
from damas.serve import _open_game
from referee import Action
from rules import Color, Position
from tests.app.server import Server
from tests.conftest import damas

# game 1: two moves, White resigns, tags and result corrected afterwards; game 2: abandoned
# for a new game; game 3: in play (four moves)
GAME1 = [(22, 18), (9, 13), (21, 17)]
GAME3 = [(24, 20), (9, 14), (22, 17), (5, 9)]


def play(session: GameSession, moves: list[tuple[int, int]], t: float) -> float:
    for a, b in moves:
        session.feed(Transition(t, a, False))
        session.feed(Transition(t + 0.3, b, True))
        t += 1.0
    session.tick(t + 2)
    return t + 2


def build(db: Path) -> None:
    start = Position.start("brazilian").occupied()
    with Store(db) as store:
        s = GameSession.start(store, "brazilian", None, "casual", start, {"White": "Ana", "Black": "Rui"})
        t = play(s, GAME1, 1000.0)
        s.feed(Action(t, "resign", Color.WHITE))
        store.correct(1, {"Event": "Club night"}, "1/2-1/2")
        s2 = GameSession.start(store, "brazilian", None, "casual", start, {"White": "Eva"})
        play(s2, GAME1[:1], 2000.0)
        store.abandon(2)
        s3 = GameSession.start(store, "brazilian", None, "tournament", start, {"Black": "Leo"})
        play(s3, GAME3, 3000.0)


def tamper(db: Path, *statements: str) -> None:
    """Change the database behind the store's back, as another program or a damaged disk would."""
    with sqlite3.connect(db) as con:  # commits; closing is ours
        for sql in statements:
            con.execute(sql)
    con.close()


def run(*args: str) -> tuple[int, str, str]:
    """``damas`` in this process: a traceback would escape as an exception."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def one_line(err: str) -> None:
    assert err.count("\n") <= 1 and "Traceback" not in err, err


def export_all(db: Path) -> str:
    code, out, err = run("export", "--all", "--db", str(db))
    assert code == 0 and err == "", err
    return out


def games_of(pdn: str) -> list[str]:
    return re.split(r"\n(?=\[Event )", pdn.strip())


def open_for_play(db: Path) -> tuple[list[str], int]:
    """What ``damas play`` does with the records before it serves: the output, and the game it plays."""
    args = build_parser().parse_args(["play", "--db", str(db), "--no-browser"])
    out = io.StringIO()
    handler = configure(0, out)  # as damas's main does: the diagnostics as the lines it prints
    try:
        with Store(db, exclusive=True, quarantine=True) as store:
            board, session, _sim, _aside = _open_game(args, load_config(None), store, "brazilian", "casual")
            board.close()
            game = session.row.id
    finally:
        logging.getLogger().removeHandler(handler)
    return out.getvalue().splitlines(), game


# -- one bad row ----------------------------------------------------------------------------------
BAD_ROWS = {
    "journal row not JSON": 'UPDATE journal SET event=\'{"t": 3001.0, "squ\' WHERE game_id=3 AND seq=2',
    "time going backwards": 'UPDATE journal SET event=\'{"t": 5.0, "square": 10, "event": "lift"}\' '
    "WHERE game_id=3 AND seq=2",
    "tags not JSON": "UPDATE games SET tags='{\"Black\": ' WHERE id=3",
    "header not JSON": "UPDATE games SET header='[1, 2' WHERE id=3",
}


@pytest.mark.parametrize("kind", list(BAD_ROWS))
def test_one_bad_row(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    before = export_all(db)
    con = sqlite3.connect(db)
    con.execute(BAD_ROWS[kind])
    con.commit()
    con.close()
    # the commands that read: no traceback, one line about game 3, the other games whole
    code, out, err = run("games", "--db", str(db))
    one_line(err)
    assert out.count("\n") == 4
    code, out, err = run("export", "--all", "--db", str(db))
    one_line(err)
    assert code == 1 and "game 3" in err
    assert games_of(out)[:2] == games_of(before)[:2]  # games 1 and 2 as before
    # damas play rebuilds the game from its journal copy, resumes it and says so
    twin = tmp_path / "twin" / "g.sqlite3"
    twin.parent.mkdir()
    shutil.copy(db, twin)
    shutil.copytree(journals_dir(db), journals_dir(twin))
    lines, game = open_for_play(twin)
    assert game == 3 and any("recover: game 3: rebuilt with 8 events" in ln for ln in lines), lines
    with Store(twin) as store:
        assert len(store.moves(3)) == 4
        assert store.game(3).tags["Black"] == "Leo"
    # without the copy, play keeps the damaged game aside and starts a new one, and says so; again: no crash loop
    copy = journals_dir(db) / "3.jsonl"
    saved = copy.read_bytes()
    copy.unlink()
    lines, game = open_for_play(db)
    assert game == 4
    assert any("game 3" in ln and "damaged" in ln and "started game 4" in ln for ln in lines), lines
    lines, game = open_for_play(db)
    assert game == 4 and not any("damaged" in ln for ln in lines), lines
    code, out, err = run("games", "--db", str(db))
    assert out.splitlines()[2].split()[0] == "3" and " damaged" in out.splitlines()[2]
    # the copy comes back (from a backup): damas recover puts the game back
    copy.write_bytes(saved)
    code, out, err = run("recover", "--db", str(db))
    assert code == 0 and "game 3: rebuilt with 8 events" in out, out
    with Store(db) as store:
        row = store.game(3)
        assert row.state == "in play" and row.tags["Black"] == "Leo" and row.moves == 4
        assert row.damage == []


# -- random damage to the file's pages ---------------------------------------------------------------------
def damage(db: Path, rng: random.Random) -> str:
    data = bytearray(db.read_bytes())
    page = 4096
    pages = len(data) // page
    n = rng.randrange(pages)
    if rng.random() < 0.5:
        data[n * page : (n + 1) * page] = rng.randbytes(page)
        what = f"page {n + 1} of {pages} overwritten"
    else:
        at = n * page + rng.randrange(page - 64)
        length = rng.randrange(1, 64)
        data[at : at + length] = rng.randbytes(length)
        what = f"{length} bytes of page {n + 1} of {pages}"
    db.write_bytes(bytes(data))
    return what


def campaign(tmp_path: Path, seeds: range) -> None:
    pristine = tmp_path / "pristine.sqlite3"
    build(pristine)
    expected = export_all(pristine)
    for seed in seeds:
        rng = random.Random(seed)
        work = tmp_path / f"s{seed}"
        work.mkdir()
        db = work / "g.sqlite3"
        shutil.copy(pristine, db)
        shutil.copytree(journals_dir(pristine), journals_dir(db))
        what = damage(db, rng)
        for command in (("games",), ("export", "--all"), ("export", "2"), ("replay", "--game", "3")):
            try:
                _code, _out, err = run(*command, "--db", str(db))
            except Exception as exc:  # a traceback is the failure being looked for
                raise AssertionError(f"seed {seed} ({what}): damas {' '.join(command)} raised {exc!r}") from exc
            assert err.count("\n") <= 1, f"seed {seed} ({what}) {command}: {err}"
        try:
            _lines, _game = open_for_play(db)
        except StoreError as exc:  # a one-line refusal (a file SQLite cannot tell is damaged) is allowed
            assert "\n" not in str(exc)
        except UserError as exc:
            assert "\n" not in str(exc)
        # whatever the damage, the copies rebuild every game in a new database, identical
        fresh = work / "fresh.sqlite3"
        code, _out, err = run("recover", "--db", str(fresh), "--from", str(db))
        assert code == 0, err
        assert export_all(fresh) == expected, f"seed {seed} ({what})"


def test_page_damage_never_gives_a_traceback(tmp_path: Path) -> None:
    campaign(tmp_path, range(12))


@pytest.mark.slow
def test_page_damage_campaign(tmp_path: Path) -> None:
    campaign(tmp_path, range(12, 162))


# -- the -wal file deleted or cut short ------------------------------------------------------------------
@pytest.mark.parametrize("wal", ["deleted", "truncated"])
def test_a_lost_wal_is_detected_and_recovered(tmp_path: Path, wal: str) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    expected = export_all(db)
    # the last game goes on while the program is killed: its moves are in the -wal file only
    live = tmp_path / "live.sqlite3"
    shutil.copy(db, live)
    shutil.copytree(journals_dir(db), journals_dir(live))
    store = Store(live)
    try:
        s = GameSession.resume(store, store.game(3), now=3100.0)
        play(s, [(23, 19)], 3101.0)
        moves = store.moves(3)
        assert len(moves) == 5
        crash = tmp_path / "crash"
        crash.mkdir()
        shutil.copy(live, crash / "g.sqlite3")  # what a power cut leaves...
        shutil.copytree(journals_dir(live), journals_dir(crash / "g.sqlite3"))
        wal_bytes = Path(str(live) + "-wal").read_bytes()
        assert len(wal_bytes) > 0
        if wal == "truncated":  # ...with the -wal file cut short (or gone)
            Path(str(crash / "g.sqlite3") + "-wal").write_bytes(wal_bytes[: len(wal_bytes) // 3])
        want = GameSession.resume(store, store.game(3), now=3200.0).pdn_game().pdn()
    finally:
        store.close()
    target = crash / "g.sqlite3"
    with Store(target) as check:
        assert check.journal_length(3) < 10  # the database alone lost events
    code, out, err = run("games", "--db", str(target))
    assert "game 3" in err and "damas recover" in err and err.count("\n") == 1, err
    code, out, err = run("recover", "--db", str(target))
    assert code == 0 and "game 3: rebuilt with 10 events" in out, out
    with Store(target) as check:
        assert check.moves(3) == moves
        assert export_game(check, 3).pdn() == want
    assert games_of(export_all(target))[:2] == games_of(expected)[:2]


def test_play_restores_a_lost_wal_by_itself(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    server = Server(db).start()
    try:
        for a, b in GAME3[:3]:
            server.move(a, b)
        server.wait_for(lambda s: len(s["moves"]) == 3)
        crash = tmp_path / "crash"
        crash.mkdir()
        shutil.copy(db, crash / "g.sqlite3")  # the power cut, and the -wal file lost
        shutil.copytree(journals_dir(db), journals_dir(crash / "g.sqlite3"))
    finally:
        server.kill()
    after = Server(crash / "g.sqlite3").start()
    try:
        state = after.get("/api/state")
        assert state["game"] == 1 and len(state["moves"]) == 3
    finally:
        out = after.stop()
    assert "recover: game 1: rebuilt with 6 events" in out, out


# -- the recover round trip ------------------------------------------------------------------------------
def test_recover_round_trip(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    build(db)
    expected = export_all(db)
    listing = run("games", "--db", str(db))[1]
    new = tmp_path / "new.sqlite3"
    r = damas("recover", "--db", str(new), "--from", str(journals_dir(db)))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].startswith("3 games rebuilt, 0 intact, 0 not recoverable")
    assert export_all(new) == expected
    assert run("games", "--db", str(new))[1] == listing
    # again: nothing to do; and the new database has its own copies
    again = damas("recover", "--db", str(new))
    assert again.stdout.splitlines() == [
        f"0 games rebuilt, 3 intact, 0 not recoverable (from 3 journal copies in {journals_dir(new)})"
    ]
    copy = json.loads(journals_dir(new).joinpath("3.jsonl").read_text().splitlines()[0])
    assert copy["game"] == 3 and copy["tags"]["Black"] == "Leo" and copy["variant"] == "brazilian"
    # a locked database is not recovered into
    with Store(new, exclusive=True):
        r = damas("recover", "--db", str(new))
    assert r.returncode == 2 and "in use by another damas" in r.stderr


def test_the_copy_is_a_public_event_log(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    r = damas("replay", str(journals_dir(db) / "1.jsonl"), "--json")
    assert r.returncode == 0, r.stderr
    made = [json.loads(line)["move"] for line in r.stdout.splitlines() if '"move"' in line]
    with Store(db) as store:
        assert made == [pdn for _ply, pdn in store.moves(1)]


def test_play_moves_a_damaged_file_aside_and_rebuilds_it(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    expected = export_all(db)
    data = bytearray(db.read_bytes())
    data[4096 : 2 * 4096] = random.Random(1).randbytes(4096)  # a whole page of garbage
    db.write_bytes(bytes(data))
    lines, game = open_for_play(db)
    assert lines[0].startswith(f"damas: {db} was damaged (") and "it was moved to" in lines[0], lines
    aside = Path(lines[0].rsplit("moved to ", 1)[1])
    assert aside.read_bytes() == bytes(data)  # kept as it was
    assert any("3 games rebuilt" in ln for ln in lines), lines
    assert game == 3  # the game in play, resumed
    assert export_all(db) == expected


def test_a_game_from_before_the_copies_gets_one_whole(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    shutil.rmtree(journals_dir(db))  # as a database written by an older damas
    with Store(db) as store:
        s = GameSession.resume(store, store.game(3), now=3100.0)
        play(s, [(23, 19)], 3101.0)
        n = store.journal_length(3)
    lines = (journals_dir(db) / "3.jsonl").read_text().splitlines()
    assert len(lines) == 1 + n == 1 + 10
    assert json.loads(lines[0])["tags"] == {"Date": json.loads(lines[0])["tags"]["Date"], "Black": "Leo"}
    fresh = tmp_path / "fresh.sqlite3"
    assert run("recover", "--db", str(fresh), "--from", str(db))[0] == 0
    with Store(fresh) as store:
        assert len(store.moves(3)) == 5


def test_recover_needs_copies(tmp_path: Path) -> None:
    r = damas("recover", "--db", str(tmp_path / "x.sqlite3"), "--from", str(tmp_path / "nothing"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no journal copies" in r.stderr
