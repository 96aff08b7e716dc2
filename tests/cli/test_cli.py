"""The ``damas`` command as a user runs it (a real subprocess)."""

from __future__ import annotations

from tests.conftest import damas, shared_path


def test_perft_last_line_is_the_count() -> None:
    r = damas("perft", "--variant", "portuguese", "--depth", "5")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "7361"
    r = damas("perft", "--variant", "international", "--fen", "W:W6,7,8,9,10:B41,42,43,44,45", "--depth", "3")
    assert r.stdout.splitlines()[-1] == "795"


def test_moves_full_paths_in_square_numbers() -> None:
    r = damas("moves", "--variant", "international", "--fen", "W:WK4:B13,20,32,37")
    assert r.returncode == 0
    assert sorted(r.stdout.split()) == ["4x27x38x15", "4x31x42x15"]
    r = damas("moves", "--variant", "brazilian", "--fen", "W:Wd4:Bc3")
    assert r.stdout.split() == ["18x25"]
    r = damas("moves", "--variant", "brazilian", "--fen", "W:W21-32:B1-12")
    assert sorted(r.stdout.split()) == sorted(["21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"])


def test_moves_from_stdin_one_line_per_position() -> None:
    r = damas("moves", "--variant", "portuguese", stdin="W:W14:B18,K19\n\nnot a fen\nW:W14:B10\n")
    lines = r.stdout.split("\n")
    assert lines[0] == "14x23"
    assert lines[1] == ""
    assert lines[2].startswith("error: invalid fen: 'not a fen'")
    assert sorted(lines[3].split()) == ["14-18", "14-19"]
    assert r.returncode != 0


def test_user_errors_are_one_line() -> None:
    for args in (
        ("perft", "--variant", "chess", "--depth", "2"),
        ("perft", "--variant", "brazilian", "--fen", "W:W99:B1", "--depth", "2"),
        ("moves", "--variant", "international", "--fen", "Z"),
    ):
        r = damas(*args)
        assert r.returncode == 2
        assert r.stderr.startswith("damas: error: ") and r.stderr.count("\n") == 1, r.stderr
        assert "Traceback" not in r.stderr


def test_pdn_check_counts_found_whole_partial_lost_on_damaged_exports() -> None:
    """Issue 10 §1: the old reader dropped the rest of each file at its first unreadable spot (2 of
    these 17 games, 161 of their moves); now one broken spot costs at most one game."""
    names = ("export-result-dash.pdn", "export-localised-tags.pdn", "export-cut-off.pdn")
    paths = [str(shared_path("pdn-syntax", n)) for n in names]
    r = damas("pdn", "check", *paths)
    dash, local, cut = paths
    assert r.stdout.splitlines() == [
        f"{dash}: 6 games found: 6 whole, 0 partial, 0 lost; 555 moves loaded",
        f"{local}: 4 games found: 4 whole, 0 partial, 0 lost; 498 moves loaded",
        f"{cut}: 7 games found: 5 whole, 1 partial, 1 lost; 476 moves loaded",
        f"  {cut}:34: game 3 (Samb,N. - Clerc,R.): tag 'Event' without its '[': read as a tag [the game loads]",
        f"  {cut}:87: game 5 (Boezjinski,E. - Schwarzman,A.): unexpected text '± 31. 48-42 12-18'; "
        "the game is cut here [partial: 60 moves loaded]",
        f"  {cut}:102: game 6 (Ndjofang,J. - Erdenebileg,D.): unexpected text '<br/>1. 32-28 19-23 '; "
        "the game is cut here [lost]",
        "total: 3 files, 17 games found: 15 whole, 1 partial, 1 lost; 1529 moves loaded",
    ]
    assert r.returncode == 1 and not r.stderr
    r = damas("pdn", "check", dash, local)
    assert r.returncode == 0 and r.stdout.splitlines()[-1].startswith("total: 2 files, 10 games found: 10 whole")


def test_pdn_check_reports_per_file(tmp_path: object) -> None:
    from pathlib import Path

    bad = Path(str(tmp_path)) / "bad.pdn"
    bad.write_text('[White "a"]\n1. 32-28 19-23\n2. 28-22 *\n\n1. 33-28 *\n')
    good = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")
    r = damas("pdn", "check", str(good), str(bad), str(Path(str(tmp_path)) / "missing.pdn"))
    out = r.stdout.splitlines()
    assert out[0] == f"{good}: 13 games found: 13 whole, 0 partial, 0 lost; 486 moves loaded"
    assert out[1] == f"{bad}: 2 games found: 1 whole, 1 partial, 0 lost; 3 moves loaded"
    assert out[2].startswith(f"  {bad}:3: game 1 (a - ?): move 2. '28-22': illegal move")
    assert out[2].endswith("[partial: 2 moves loaded]")
    assert "cannot read" in out[3]
    assert out[4] == "total: 3 files (1 unreadable), 15 games found: 14 whole, 1 partial, 0 lost; 489 moves loaded"
    assert r.returncode == 1
