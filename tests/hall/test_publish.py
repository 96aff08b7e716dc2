"""The board's side (damas.hall_link.publish) against a real Mosquitto: what a board publishes rebuilds,
in the hall, exactly the board's own export — through a takeback, a broker that is down for part
of the game, and a board restarted mid-game (its outbox continues the sequence numbers)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from board_hal.debounce import Transition
from damas.hall_link.publish import Publisher
from damas.records.session import GameSession, export_game
from damas.records.store import Store
from hall.broker import Mosquitto
from hall.games import HallGame
from hall.protocol import Broker, new_client
from referee import Action
from rules import Position
from tests.conftest import wait_until


class Listener:
    """What the hall would receive (every message of board 5, and its status)."""

    def __init__(self, port: int) -> None:
        self.msgs: list[dict[str, object]] = []
        self.status: list[dict[str, object]] = []
        self.ready = threading.Event()
        self.c = new_client(Broker("127.0.0.1", port), "test-listener")
        self.c.on_connect = lambda c, *_a: c.subscribe("damas/board/5/#", 1)
        self.c.on_subscribe = lambda *_a: self.ready.set()
        self.c.on_message = self._got
        self.c.connect("127.0.0.1", port)
        self.c.loop_start()
        assert self.ready.wait(5)

    def _got(self, _c: object, _u: object, m: object) -> None:
        data = json.loads(m.payload)  # type: ignore[attr-defined]
        (self.status if m.topic.endswith("/status") else self.msgs).append(data)  # type: ignore[attr-defined]

    def hall_game(self, game: int) -> HallGame:
        g = HallGame("5", game)
        for m in list(self.msgs):
            if m["game"] == game:
                g.add(m)
        return g

    def close(self) -> None:
        self.c.disconnect()
        self.c.loop_stop()


def _move(s: GameSession, a: int, b: int, t: float, captured: tuple[int, ...] = ()) -> float:
    s.feed(Transition(t, a, False))
    s.feed(Transition(t + 0.3, b, True))
    for i, c in enumerate(captured):
        s.feed(Transition(t + 0.5 + 0.2 * i, c, False))
    s.tick(t + 1.5)
    return t + 1.5


def _any(s: GameSession, t: float) -> float:
    """The first legal move of the side to move, by hand."""
    m = next(iter(s.referee.position.legal_moves))
    return _move(s, m.from_square, m.to_square, t, tuple(m.captured))


def test_what_a_board_publishes_rebuilds_its_export_through_takeback_outage_and_restart(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    listener = Listener(mosquitto.port)
    db = tmp_path / "board.sqlite3"
    store = Store(db)
    broker = Broker.parse(mosquitto.url)
    try:
        s = GameSession.start(
            store, "brazilian", None, "casual", Position.start("brazilian").occupied(), {"White": "A"}
        )
        pub = Publisher(store, "5", broker)
        pub.start()
        assert pub.connected.wait(5)
        version = 0

        def poll() -> None:
            nonlocal version
            version += 1
            pub.poll(s, version)

        t = _move(s, 22, 18, 1000.0)
        poll()
        t = _move(s, 9, 13, t)
        poll()
        # a takeback (casual): Black's piece goes back, the move is withdrawn
        t = _move(s, 13, 9, t)
        poll()
        assert len(s.referee.game.move_stack) == 1
        wait_until(lambda: any(m["type"] == "undo" for m in listener.msgs), what="the withdrawal")
        mosquitto.kill()  # the broker goes down: the board plays on
        t = _any(s, t)
        poll()
        t = _any(s, t)
        poll()
        sent_while_down = len(listener.msgs)
        listener.ready.clear()
        mosquitto.start()
        # the listener subscribes again as it reconnects: what the board sends before the broker
        # has that subscription is not the listener's (CI, loaded, once missed the whole game)
        wait_until(listener.ready.is_set, timeout=15, what="the listener to reconnect and subscribe")
        wait_until(lambda: pub.connected.is_set(), timeout=15, what="the board to reconnect")
        poll()  # the loop's next turn: the whole game again
        g = s.row.id
        wait_until(lambda: listener.hall_game(g).plies == 3, timeout=10, what="the game to catch up")
        assert len(listener.msgs) > sent_while_down
        assert listener.hall_game(g).pdn() == export_game(store, g).pdn()
        pub.close()
        store.close()

        # the board restarts (its process died): the game resumes, the outbox goes on numbering
        store = Store(db)
        s = GameSession.resume(store, store.game(g), now=t)
        pub = Publisher(store, "5", broker)
        pub.start()
        assert pub.connected.wait(5)
        t = _any(s, t)
        poll()
        s.feed(Action(t + 1, "draw"))
        poll()
        wait_until(lambda: listener.hall_game(g).result != "*", timeout=10, what="the result")
        hg = listener.hall_game(g)
        assert hg.pdn() == export_game(store, g).pdn()
        seqs = [m["seq"] for m in listener.msgs if m["game"] == g]
        by_seq: dict[object, str] = {}
        for m in listener.msgs:  # a seq sent twice (a resend) is the same message both times
            if m["game"] == g:
                text = json.dumps(m, sort_keys=True)
                assert by_seq.setdefault(m["seq"], text) == text
        assert sorted(set(seqs)) == list(range(max(seqs) + 1))  # no gap, nothing numbered twice
        wait_until(
            lambda: bool(listener.status) and listener.status[-1].get("games") == {str(g): max(seqs)},
            what="the board's status naming the game's last seq",
        )
        assert listener.status[-1]["online"] is True
        pub.close()
        wait_until(lambda: listener.status[-1]["online"] is False, what="the board's offline status")
    finally:
        store.close()
        listener.close()
