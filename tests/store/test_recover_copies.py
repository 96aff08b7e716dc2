"""``damas recover`` from journal copies that the power cut, an old damas or a user left
imperfect: what can be read is rebuilt, what cannot is named, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from damas.records.recover import lost_events
from damas.records.recover import recover as recover_into
from damas.records.store import Store, journals_dir
from tests.store.test_damage import build, export_all, games_of, run, tamper


def copied(tmp_path: Path) -> tuple[Path, Path]:
    """Three games' copies in ``src`` (taken from a built database, ``old.sqlite3``) and an empty target database."""
    db = tmp_path / "old.sqlite3"
    build(db)
    src = tmp_path / "src"
    shutil.copytree(journals_dir(db), src)
    return src, tmp_path / "new.sqlite3"


def recover(target: Path, src: Path) -> list[str]:
    code, out, err = run("recover", "--db", str(target), "--from", str(src))
    assert code == 0 and err == "", err
    return out.splitlines()


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def test_unreadable_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    src, target = copied(tmp_path)
    game1 = src / "1.jsonl"
    header, *events = lines_of(game1)
    # a retried write (the same event twice), a line that is not an object, an event-less
    # object, a torn last line (the power cut) and an event without its seq (an older damas)
    last = json.loads(events[-1])
    del last["seq"]
    garbled = [header, *events[:2], events[1], "[1, 2]", '{"note": "no time"}', *events[2:-1], json.dumps(last)]
    game1.write_text("\n".join([*garbled, '{"t": 1006.0, "squ']) + "\n", encoding="utf-8")
    out = recover(target, src)
    assert f"game 1: rebuilt with 7 events from {game1} (missing from the database) (3 unreadable lines skipped)" in out
    assert out[-1] == f"3 games rebuilt, 0 intact, 0 not recoverable (from 3 journal copies in {src})"
    # the game is whole: the same moves, tags and result as in the database it came from
    assert games_of(export_all(target))[0] == games_of(export_all(tmp_path / "old.sqlite3"))[0]


def test_copies_without_a_header_or_a_readable_file_are_named_and_skipped(tmp_path: Path) -> None:
    src, target = copied(tmp_path)
    # game 2's header line lost: its first line is an event
    (src / "2.jsonl").write_text("\n".join(lines_of(src / "2.jsonl")[1:]) + "\n", encoding="utf-8")
    # game 3's copy is not even readable (a directory where the file should be)
    (src / "3.jsonl").unlink()
    (src / "3.jsonl").mkdir()
    (src / "4.jsonl").write_text('{"format": 1, "varia', encoding="utf-8")  # cut short inside the header
    (src / "notes.jsonl").write_text("not a game\n", encoding="utf-8")  # not a game's name: not a copy at all
    out = recover(target, src)
    assert out == [
        f"game 1: rebuilt with 7 events from {src / '1.jsonl'} (missing from the database)",
        f"{src / '2.jsonl'}: not a journal copy (its header cannot be read): skipped",
        f"{src / '3.jsonl'}: not a journal copy (its header cannot be read): skipped",
        f"{src / '4.jsonl'}: not a journal copy (its header cannot be read): skipped",
        f"1 game rebuilt, 0 intact, 3 not recoverable (from 4 journal copies in {src})",
    ]


def test_a_copy_without_its_record_is_rebuilt_from_its_header(tmp_path: Path) -> None:
    src, target = copied(tmp_path)
    (src / "3.json").write_text(
        '{"id": 3, "variant": "brazil', encoding="utf-8"
    )  # the record torn: the log's header has the rest
    # records that are JSON but not this game's: another game's id, tags that are not a mapping
    two = json.loads((src / "2.json").read_text(encoding="utf-8"))
    (src / "2.json").write_text(json.dumps({**two, "id": 7}), encoding="utf-8")
    one = json.loads((src / "1.json").read_text(encoding="utf-8"))
    (src / "1.json").write_text(json.dumps({**one, "tags": "White=Ana"}), encoding="utf-8")
    header, *events = lines_of(src / "1.jsonl")
    h = json.loads(header)
    del h["game"]  # an id only in the file's name
    (src / "1.jsonl").write_text("\n".join([json.dumps(h), *events]) + "\n", encoding="utf-8")
    out = recover(target, src)
    assert out[-1].startswith("3 games rebuilt, 0 intact, 0 not recoverable"), out
    with Store(target) as store:
        three = store.game(3)
        assert three.variant == "brazilian" and three.mode == "tournament" and three.tags["Black"] == "Leo"
        assert len(store.moves(3)) == 4
        assert store.game(2).tags["White"] == "Eva" and len(store.moves(2)) == 1
        # game 1's record was unusable: its tags come from the log's header (without the later
        # correction the record held), the result from its replay (White resigned)
        one = store.game(1)
        assert one.tags["White"] == "Ana" and "Event" not in one.tags and len(store.moves(1)) == 3
        assert one.result == "0-1", one.result


def test_a_taken_id_gives_the_copy_a_new_one(tmp_path: Path) -> None:
    src, target = copied(tmp_path)
    # the target already has games of its own under ids 1-3 (started at other times)
    build(target)
    for n in (1, 2):
        (src / f"{n}.jsonl").unlink()
        (src / f"{n}.json").unlink()
    record = json.loads((src / "3.json").read_text(encoding="utf-8"))
    record["started"] = 1.0
    (src / "3.json").write_text(json.dumps(record), encoding="utf-8")
    more = [
        json.dumps({"t": 3004.0, "square": 23, "event": "lift", "seq": 8}),
        json.dumps({"t": 3004.3, "square": 19, "event": "place", "seq": 9}),
    ]
    (src / "3.jsonl").write_text("\n".join([*lines_of(src / "3.jsonl"), *more]) + "\n", encoding="utf-8")
    out = recover(target, src)
    assert out[0] == (
        f"game 3: rebuilt as game 4 with 10 events from {src / '3.jsonl'} (game 3 in the database is another game)"
    ), out
    with Store(target) as store:
        assert len(store.moves(4)) == 5 and len(store.moves(3)) == 4 and store.game(4).tags["Black"] == "Leo"
        assert store.copy_path(4).exists()  # the target's own copy of the game it took in


def test_a_copy_that_does_not_replay_is_kept_as_damaged(tmp_path: Path) -> None:
    src, target = copied(tmp_path)
    header, *events = lines_of(src / "2.jsonl")
    # an event whose time goes back before the one before it: the log cannot be replayed
    back = json.dumps({"t": 5.0, "square": 9, "event": "lift", "seq": 2})
    (src / "2.jsonl").write_text("\n".join([header, *events, back]) + "\n", encoding="utf-8")
    out = recover(target, src)
    damaged = [line for line in out if line.endswith(": kept as damaged")]
    assert len(damaged) == 1 and "game 2" in damaged[0], out
    assert out[-1].startswith("2 games rebuilt, 0 intact, 1 not recoverable"), out


def test_lost_events_name_each_game_the_database_lacks(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    copies = journals_dir(db)
    with Store(db) as store:
        assert lost_events(store) == []
    # game 3's copy holds two events more than its database rows; game 4 exists only as a copy
    header, *events = lines_of(copies / "3.jsonl")
    more = [
        json.dumps({"t": 3004.0 + i, "square": 23, "event": "lift" if i == 0 else "place", "seq": 8 + i})
        for i in range(2)
    ]
    (copies / "3.jsonl").write_text("\n".join([header, *events, *more]) + "\n", encoding="utf-8")
    h = json.loads(lines_of(copies / "2.jsonl")[0])
    h["game"] = 4
    (copies / "4.jsonl").write_text("\n".join([json.dumps(h), *lines_of(copies / "2.jsonl")[1:]]) + "\n", "utf-8")
    (copies / "5.jsonl").mkdir()  # unreadable: nothing to say about it
    with Store(db) as store:
        assert lost_events(store) == [
            f"game 3: events 8–9 missing or damaged in the database; its copy {copies / '3.jsonl'} holds them",
            f"game 4 is missing from the database but its journal copy {copies / '4.jsonl'} holds it",
        ]
    # game 1's last journal row lost and another no longer JSON: the copy holds what the database lost
    tamper(
        db,
        "DELETE FROM journal WHERE game_id=1 AND seq=6",
        """UPDATE journal SET event='{"t": 1001.0, "squ' WHERE game_id=1 AND seq=2""",
    )
    with Store(db) as store:
        assert lost_events(store) == [
            f"game 1: events 2, 6 missing or damaged in the database; its copy {copies / '1.jsonl'} holds them",
            f"game 3: events 8–9 missing or damaged in the database; its copy {copies / '3.jsonl'} holds them",
            f"game 4 is missing from the database but its journal copy {copies / '4.jsonl'} holds it",
        ]


def test_start_up_rebuilds_only_a_finished_game_the_database_lost_events_of(tmp_path: Path) -> None:
    db = tmp_path / "g.sqlite3"
    build(db)
    with Store(db) as store:
        assert recover_into(store, lost_only=True) == []  # nothing lost: nothing said
    # finished game 1's copy holds one event more than the database (its write to the database lost)
    copy = journals_dir(db) / "1.jsonl"
    extra = json.dumps({"t": 1009.0, "square": 13, "event": "lift", "seq": 7})
    copy.write_text(copy.read_text(encoding="utf-8") + extra + "\n", encoding="utf-8")
    with Store(db) as store:
        assert recover_into(store, lost_only=True) == [
            f"game 1: rebuilt with 8 events from {copy} (the database held events 0–6; event 7 taken from the copy)",
            f"1 game rebuilt, 2 intact, 0 not recoverable (from 3 journal copies in {journals_dir(db)})",
        ]
        assert store.journal_length(1) == 8


def test_a_record_with_fields_of_the_wrong_kind_is_rebuilt_without_them(tmp_path: Path) -> None:
    # a hand-edited <id>.json: a start that is not a time, a mode and a variant that do not exist
    # (these made damas recover stop with a traceback, the copies after it not rebuilt)
    src, target = copied(tmp_path)
    record = json.loads((src / "2.json").read_text(encoding="utf-8"))
    record.update(started="yesterday", mode="blitz", variant="chess", fen=5)
    (src / "2.json").write_text(json.dumps(record), encoding="utf-8")
    out = recover(target, src)
    assert out[1] == (
        f"game 2: rebuilt with 2 events from {src / '2.jsonl'} (missing from the database) ({src / '2.json'}: "
        "variant 'chess' is not a variant; mode 'blitz' is not a mode (casual or tournament); "
        "started 'yesterday' is not a time; fen 5 is not text: left out)"
    ), out
    assert out[-1] == f"3 games rebuilt, 0 intact, 0 not recoverable (from 3 journal copies in {src})"
    with Store(target) as store:  # the rest of the record is kept; what was left out comes from the log
        two = store.game(2)
        assert (two.variant, two.mode, two.fen, two.tags["White"]) == ("brazilian", "casual", None, "Eva")
        assert len(store.moves(2)) == 1 and two.started > 0


def test_a_copy_whose_log_names_an_unknown_mode_is_kept_as_damaged(tmp_path: Path) -> None:
    src, target = copied(tmp_path)
    header, *events = lines_of(src / "2.jsonl")
    (src / "2.jsonl").write_text("\n".join([json.dumps({**json.loads(header), "mode": "blitz"}), *events]) + "\n")
    record = json.loads((src / "2.json").read_text(encoding="utf-8"))
    (src / "2.json").write_text(json.dumps({**record, "mode": "blitz"}), encoding="utf-8")
    out = recover(target, src)
    assert out[1] == "game 2: its header is damaged (unknown mode 'blitz' (casual or tournament)): kept as damaged"
    assert out[-1] == f"2 games rebuilt, 0 intact, 1 not recoverable (from 3 journal copies in {src})"
    with Store(target) as store:  # nothing lost: the events are in the database, the game marked damaged
        assert store.game(2).state == "damaged" and store.journal_length(2) == 2


def test_a_row_with_an_unknown_mode_is_damage_named_in_one_line(tmp_path: Path) -> None:
    # a row another program (or a hand) wrote with a mode the referee does not have
    db = tmp_path / "g.sqlite3"
    build(db)
    tamper(db, "UPDATE games SET mode='blitz' WHERE id=1")
    code, out, err = run("export", "1", "--db", str(db))
    assert code == 1 and len(err.splitlines()) == 1, err  # 1: exported, with damage named
    assert "game 1: its mode 'blitz' is unknown (casual or tournament)" in err, err
    assert "1. c3-d4 b6-a5 2. a3-b4" in out  # the game is still exported (in the default casual mode)
    code, out, _err = run("games", "--db", str(db))
    assert code == 0 and "damaged" in out.splitlines()[-1]
