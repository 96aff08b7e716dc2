"""The hall's command-line surface: ``damas play --broker/--board-id``, ``[hall]`` in the board's
configuration and ``damas hall``: a bad setting is one line naming it (exit status 2)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from hall.broker import Mosquitto
from hall.store import HallStore
from tests.conftest import damas, one_line_error
from tests.hall.conftest import HallProcess


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


def test_a_broker_url_without_a_scheme_is_mqtt_and_a_bad_port_is_named() -> None:
    from hall.protocol import Broker, BrokerError

    b = Broker.parse("hall.local:1884", username="arbiter")
    assert (b.host, b.port, b.tls, b.username, b.url()) == (
        "hall.local",
        1884,
        False,
        "arbiter",
        "mqtt://hall.local:1884",
    )
    assert Broker.parse("mqtts://u:p%40ss@hall").url() == "mqtts://hall:8883"
    assert Broker.parse("mqtts://u:p%40ss@hall").password == "p@ss"
    with pytest.raises(BrokerError, match=r"bad broker URL 'mqtt://hall:99999' \(Port out of range"):
        Broker.parse("mqtt://hall:99999")


def test_a_players_file_with_a_bad_line_is_named_before_anything_starts(tmp_path: Path) -> None:
    csv = tmp_path / "players.csv"
    csv.write_text("name,rating\nAna,1500\nBia,strong\n")
    r = damas("hall", "--db", str(tmp_path / "h.sqlite3"), "--players", str(csv))
    one_line_error(r, "players.csv", "line 3", "'strong'")
    assert not (tmp_path / "h.sqlite3").exists()


def test_hall_refuses_bad_settings_an_unusable_database_and_a_taken_port_in_one_line(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    db = str(tmp_path / "h.sqlite3")
    r = damas("hall", "--db", db, "--broker", mosquitto.url, "--rounds", "0")
    one_line_error(r, "0")
    r = damas("hall", "--db", str(tmp_path), "--broker", mosquitto.url)  # a directory, not a database
    one_line_error(r, str(tmp_path))
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        r = damas("hall", "--db", db, "--broker", mosquitto.url, "--port", port)
        one_line_error(r, "cannot listen on 127.0.0.1:" + port)


def test_the_hall_keeps_its_command_line_settings_and_imports_players_once(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    csv = tmp_path / "players.csv"
    csv.write_text("nome,rating,clube\nAna,1800,Recife\nBia,1700,Olinda\n")
    db = tmp_path / "h.sqlite3"
    flags = ["--players", str(csv), "--rounds", "5", "--event", "Open", "--boards", " 7, 8,,", "--tiebreak"]
    flags += ["progressive", "--auto-confirm", "--lang", "en"]
    for _time in range(2):  # started twice with the same file: the players are not doubled
        hall = HallProcess(db, mosquitto.url, *flags).start()
        try:
            assert hall.get("/api/lang")["lang"] == "en"  # --lang, whatever the browser asks
        finally:
            hall.stop()
    store = HallStore(db)
    try:
        assert [(p.name, p.rating, p.club) for p in store.players()] == [
            ("Ana", 1800, "Recife"),
            ("Bia", 1700, "Olinda"),
        ]
        kept = {k: store.get(k) for k in ("rounds", "event", "boards", "tiebreak", "auto_confirm", "language")}
        assert kept == {
            "rounds": "5",
            "event": "Open",
            "boards": "7,8",
            "tiebreak": "progressive",
            "auto_confirm": "1",
            "language": "en",
        }
    finally:
        store.close()
