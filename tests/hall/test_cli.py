"""The hall's command-line surface: ``damas play --broker/--board-id``, ``[hall]`` in the board's
configuration and ``damas hall``: a bad setting is one line naming it (exit status 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import damas, one_line_error


def test_play_refuses_a_bad_broker_url_or_board_id_in_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "g.sqlite3")
    r = damas("play", "--no-browser", "--db", db, "--broker", "http://hall:1883", "--board-id", "7")
    one_line_error(r, "bad broker URL", "http://hall:1883", "mqtt://")
    r = damas("play", "--no-browser", "--db", db, "--broker", "mqtt://hall:1883", "--board-id", "7/#")
    one_line_error(r, "bad board id", "7/#")
    r = damas("play", "--no-browser", "--db", db, "--broker", "mqtt://hall:1883")
    one_line_error(r, "needs this board's id", "--board-id")
    r = damas("play", "--no-browser", "--db", db, "--board-id", "7")
    one_line_error(r, "--board-id needs a broker")
    assert not Path(db).exists()  # refused before anything was written


def test_the_hall_section_of_the_configuration_is_checked(tmp_path: Path) -> None:
    cfg = tmp_path / "board.toml"
    cfg.write_text('[hall]\nbroker = "mqtt://hall:1883"\nboard = 7\n')
    r = damas("play", "--no-browser", "--db", str(tmp_path / "g.sqlite3"), "--config", str(cfg))
    one_line_error(r, "unknown setting hall.board", "board_id")
    cfg.write_text('[hall]\nbroker = "mqtt://hall:1883"\nboard_id = 7\npassword = 5\n')
    r = damas("play", "--no-browser", "--db", str(tmp_path / "g.sqlite3"), "--config", str(cfg))
    one_line_error(r, "hall.password must be text")


def test_hall_help_and_a_bad_broker(tmp_path: Path) -> None:
    r = damas("hall", "-h")
    assert r.returncode == 0 and "--broker" in r.stdout and "example:" in r.stdout
    r = damas("hall", "--db", str(tmp_path / "h.sqlite3"), "--broker", "mqtt://", "--port", "8999")
    one_line_error(r, "bad broker URL", "no host")
    r = damas("hall", "--db", str(tmp_path / "h.sqlite3"), "--players", str(tmp_path / "none.csv"))
    one_line_error(r, "cannot read", "none.csv")


def test_without_mosquitto_the_hall_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hall.broker
    from hall.serve import HallError, Options, run

    monkeypatch.setattr(hall.broker, "mosquitto_path", lambda: None)
    with pytest.raises(HallError) as err:
        run(Options(db=str(tmp_path / "h.sqlite3")))
    assert str(err.value) == hall.broker.INSTALL
    assert "apt-get install mosquitto" in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "h.sqlite3").exists()
