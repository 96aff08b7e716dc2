"""A board's identity through a real broker (issue 29): a status naming a new database, and a
game "from another database", sent by someone other than the board move none of its games —
the hall asks the board (its control topic, which under the production ACL only the board's own
login reads) and the board's answer keeps them, with one alert — while a board that really has a
fresh database (a new SD card: its games numbered from 1 again) has its games so far set aside
as ``<board>.sd1`` and its new ones come in beside them. On the quick start's anonymous broker
(the forger has no login at all) and on Debian's Mosquitto with the shipped configuration (the
forger has board 1's own password: what it sends is what board 1 could)."""

from __future__ import annotations

import json
import urllib.error
from collections.abc import Callable
from pathlib import Path

import pytest

from hall.broker import Mosquitto
from hall.protocol import Broker, new_client
from tests.conftest import shared_path, wait_until
from tests.hall import test_production_broker
from tests.hall.conftest import BoardProcess, HallProcess
from tests.hall.test_production_broker import Client, Debian

production = test_production_broker.production  # (its fixture: Debian's Mosquitto, our configuration)

PDN = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")


def _forged(game: int) -> list[tuple[str, dict[str, object]]]:
    """What a forger sends on board 1's topics: a status naming a database of its own, and a start
    of board 1's game as if from that database."""
    status = {"board": "1", "online": True, "game": game, "games": {str(game): 0}, "db": "forgedcard0",
              "boot": "mallory0"}  # fmt: skip
    start = {"board": "1", "game": game, "seq": 0, "uid": f"forgedcard0-{game}", "type": "start",
             "variant": "brazilian", "tags": {"White": "Mallory"}, "intro": []}  # fmt: skip
    return [("damas/board/1/status", status), ("damas/board/1/game", start)]


def _missing(hall: HallProcess, path: str) -> bool:
    try:
        hall.get(path)
    except urllib.error.HTTPError as exc:
        return exc.code == 404
    return False


def _forged_then_a_new_card(
    tmp_path: Path,
    hall: HallProcess,
    board_url: str,
    forge: Callable[[list[tuple[str, dict[str, object]]]], None],
    tls_ca: Path | None = None,
    also: tuple[str, ...] = (),
) -> None:
    cards = [tmp_path / "card1", tmp_path / "card2"]
    for card in cards:
        card.mkdir()
    board = BoardProcess(cards[0], "1", board_url, PDN, 0, 10, gap=0.05, tls_ca=tls_ca)
    try:
        wait_until(board.done, timeout=60, what="board 1's game")
        gid, text = board.export()
        wait_until(lambda: hall.get_text(f"/games/1-{gid}.pdn") == text, timeout=30, what="the game in the hall")
        forge(_forged(gid))

        def alerts() -> dict[str, dict[str, object]]:
            return {str(a["kind"]): a for a in hall.get("/api/state")["alerts"] if a["board"] == "1"}

        wait_until(lambda: "identity" in alerts(), timeout=60, what="the board's answer to the hall's question")
        # The alert comes with the first message of the board's answer; the hall takes the game
        # from it, so the rest of the answer is still on its way (CI once read "1. c3-b4 *").
        wait_until(lambda: hall.get_text(f"/games/1-{gid}.pdn") == text, timeout=30, what="the board's game, whole")
        assert _missing(hall, f"/games/1.sd1-{gid}.pdn")  # nothing set aside
        assert "forgedcard0" in str(alerts()["identity"]["message"])
    finally:
        board.stop()
    board = BoardProcess(cards[1], "1", board_url, PDN, 1, 8, gap=0.05, tls_ca=tls_ca)  # a fresh SD card
    try:
        wait_until(board.done, timeout=60, what="board 1's game on its new card")
        gid2, text2 = board.export()
        assert gid2 == gid  # (numbered from 1 again: the same number as the old card's game)
        wait_until(lambda: hall.get_text(f"/games/1-{gid2}.pdn") == text2, timeout=60, what="the new card's game")
        assert hall.get_text(f"/games/1.sd1-{gid}.pdn") == text  # the old card's, set aside whole
        state = hall.get("/api/state")
        assert [b["board"] for b in state["boards"]] == ["1"]
        kinds = [a["kind"] for a in state["alerts"] if a["board"] == "1"]
        assert sorted(kinds) == sorted(["identity", "new-database", *also]), kinds  # each once; no conflict
        assert hall.log is not None and "Traceback" not in hall.log.read_text()
    finally:
        board.stop()


def test_a_forged_database_moves_nothing_on_the_anonymous_broker(tmp_path: Path, mosquitto: Mosquitto) -> None:
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url, log=tmp_path / "hall.log").start()
    forger = new_client(Broker("127.0.0.1", mosquitto.port), "forger")
    forger.connect("127.0.0.1", mosquitto.port)
    forger.loop_start()

    def forge(sends: list[tuple[str, dict[str, object]]]) -> None:
        for topic, body in sends:
            forger.publish(topic, json.dumps(body), qos=1, retain=topic.endswith("status")).wait_for_publish(5)

    try:
        _forged_then_a_new_card(tmp_path, hall, mosquitto.url, forge)
    finally:
        forger.disconnect()
        forger.loop_stop()
        hall.stop()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # (paho's TLS sockets)
def test_a_forged_database_moves_nothing_on_the_production_broker(
    production: tuple[Debian, Path, dict[str, str]], tmp_path: Path
) -> None:
    broker, etc, logins = production
    ca = etc / "certs" / "damas-ca.crt"
    hall = HallProcess(tmp_path / "hall.sqlite3", f"mqtt://hall@127.0.0.1:{broker.plain}",
                       f"--password={logins['hall']}", log=tmp_path / "hall.log").start()  # fmt: skip

    def forge(sends: list[tuple[str, dict[str, object]]]) -> None:
        """Board 1's own password (the broker puts the real board off while the forger is on)."""
        forger = Client(broker.tls, "1", logins["1"], ca=ca)
        try:
            wait_until(forger.up.is_set, timeout=10, what="the forger to log in as board 1")
            for topic, body in sends:
                forger.c.publish(topic, json.dumps(body), qos=1, retain=topic.endswith("status")).wait_for_publish(5)
        finally:
            forger.close()

    try:
        url = f"mqtts://1:{logins['1']}@localhost:{broker.tls}"
        # (the forger's run and the board's took turns on one login: that is an alert of its own)
        _forged_then_a_new_card(tmp_path, hall, url, forge, ca, also=("duplicate-id",))
    finally:
        hall.stop()
