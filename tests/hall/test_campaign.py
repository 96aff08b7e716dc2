"""Boards in their own processes play real games (the test data) through a real Mosquitto to
the hall while the broker is killed and restarted, the hall is killed and restarted, and one
board is cut off the network: at the end the hall's PDN of every game equals the board's own
export, move for move (issue 14: nothing lost, nothing duplicated)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from hall.broker import Mosquitto
from rules.pdn import load_pdn
from tests.conftest import shared_path, wait_until
from tests.hall.conftest import BoardProcess, HallProcess, Relay


def campaign(tmp_path: Path, mosquitto: Mosquitto, boards: int, cut: float, plies: int) -> dict[str, float]:
    pdn = shared_path("games", "brazilian", "lidraughts-brazilian.pdn")
    count = len(load_pdn(pdn))
    relay = Relay(mosquitto.port)
    hall = HallProcess(tmp_path / "hall.sqlite3", mosquitto.url).start()
    procs: list[BoardProcess] = []
    t0 = time.monotonic()
    figures: dict[str, float] = {}
    try:
        for i in range(boards):
            broker = relay.url if i == 0 else mosquitto.url  # board 1 goes through the relay
            clock = "21" if i % 2 else None  # every other game with a clock (its {[%clock]} comments)
            procs.append(BoardProcess(tmp_path, str(i + 1), broker, pdn, i % count, plies, gap=0.06, clock=clock))
        time.sleep(1.5)
        relay.cut()  # board 1 loses its network ...
        cut_at = time.monotonic()
        time.sleep(1.0)
        mosquitto.kill()  # ... the broker dies (its queued messages and retained states with it)
        time.sleep(1.0)
        mosquitto.start()
        time.sleep(1.0)
        hall.kill()  # ... the hall dies
        time.sleep(1.0)
        hall.start()
        time.sleep(max(0.0, cut - (time.monotonic() - cut_at)))
        relay.mend()  # board 1 is back after the cut
        wait_until(lambda: all(p.done() for p in procs), timeout=150, what="every board to finish its game")
        figures["played"] = time.monotonic() - t0

        def equal() -> bool:
            for p in procs:
                gid, pdn_text = p.export()
                try:
                    if hall.get(f"/games/{p.board}-{gid}.pdn") != pdn_text:
                        return False
                except OSError:
                    return False
            return True

        wait_until(equal, timeout=60, what="the hall's PDN of every game to equal the board's export")
        figures["caught up"] = time.monotonic() - t0
        for p in procs:  # (said again on failure: which board differs)
            gid, pdn_text = p.export()
            assert hall.get(f"/games/{p.board}-{gid}.pdn") == pdn_text, f"board {p.board}"
            assert pdn_text.count(". ") > 5  # a real game, many moves
            assert ("[%clock" in pdn_text) == (int(p.board) % 2 == 0)  # the clocked games have their times
        live = hall.get("/live.pdn")
        for p in procs:
            _gid, pdn_text = p.export()
            assert pdn_text.split("\n\n", 1)[1] in live  # the broadcast feed has every game's moves
        state = hall.get("/api/state")
        assert len(state["boards"]) == boards
        assert all(b["game"]["sync"] for b in state["boards"])
    finally:
        for p in procs:
            p.stop()
        hall.stop()
        relay.close()
    return figures


def test_boards_hall_and_broker_killed_and_a_board_cut_off_lose_nothing(tmp_path: Path, mosquitto: Mosquitto) -> None:
    campaign(tmp_path, mosquitto, boards=4, cut=4.0, plies=24)


@pytest.mark.slow
def test_sixteen_boards_with_a_thirty_second_cut(tmp_path: Path, mosquitto: Mosquitto) -> None:
    figures = campaign(tmp_path, mosquitto, boards=16, cut=30.0, plies=1000)
    print(f"16 boards: played in {figures['played']:.1f} s, the hall caught up at {figures['caught up']:.1f} s")
