"""The hall: what every board sent (through the broker), the tournament, and the alerts.

paho-mqtt's network thread only hands each message to the asyncio loop; everything else runs
there. The hall subscribes with a persistent session (QoS 1), so a hall that was down gets what
the broker kept for it; what the broker lost (it restarted) the hall asks the boards for: a gap
in a game's sequence numbers, or a board's status naming more of a game than the hall has.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from hall.games import HallGame
from hall.protocol import PREFIX, Broker, assign_topic, control_topic, new_client
from hall.store import HallStore
from hall.tournament import (
    READINGS,
    Pairing,
    Player,
    TournamentError,
    normalise_result,
    pair_round,
    read_players_csv,
    standings,
)
from rules import Color, DraughtsError, Position, find_variant, parse_result
from rules.pdn import write_pdn
from wording import language
from wording.hall import UI, text

log = logging.getLogger(__name__)

ASK_AGAIN = 2.0  # seconds before the hall asks a board again for what it still misses
#: the referee's reports that end an alert (the board matches the game again)
CLEARS = (None, "setup-ok", "restored", "reconstructed")
#: the clock's own reports: its alerts come from the clocks' state (paused, a flag), not from these
CLOCK_STATE = ("clock-paused", "clock-resumed", "clock-adjusted", "flag-fall")


class Hall:
    def __init__(
        self,
        store: HallStore,
        broker: Broker | None,
        *,
        token: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.broker = broker
        self.token = token or store.get("token") or secrets.token_urlsafe(12)
        store.set("token", self.token)
        self.clock = clock
        self.games: dict[tuple[str, int], HallGame] = {}
        self.boards: dict[str, dict[str, Any]] = {}
        self.seen: dict[str, float] = {}
        self.asked: dict[tuple[str, int], tuple[int, float]] = {}  # what was asked for, and when
        self.version = 0
        self.changed = asyncio.Event()
        self.connected = False
        self.client: mqtt.Client | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._cache: tuple[int, str] | None = None
        self.built = 0.0  # when the page's state was last built (time.monotonic)
        self._load()

    def _load(self) -> None:
        """The games as they stand (their snapshots); a database from before the snapshots, or a
        snapshot that cannot be read, is rebuilt from the messages once."""
        if self.store.get("snapshots") == "1":
            broken = []
            for board, game, state in self.store.games():
                try:
                    self.games[(board, game)] = HallGame.from_json(board, game, state)
                except (KeyError, TypeError, ValueError, DraughtsError) as exc:
                    log.warning("board %s game %s: its snapshot cannot be read (%s): rebuilt", board, game, exc)
                    broken.append((board, game))
            for board, game in broken:
                g = self.games[(board, game)] = HallGame(board, game)
                for _b, _g, _seq, msg in self.store.messages(board, game):
                    g.add(msg)
            self.store.save_games([(b, n, self.games[(b, n)].to_json()) for b, n in broken])
        else:
            for board, game, _seq, msg in self.store.messages():
                self._game(board, game).add(msg)
            self.store.save_games([(b, n, g.to_json()) for (b, n), g in self.games.items()])
            self.store.set("snapshots", "1")
        for board, (status, seen) in self.store.statuses().items():
            self.boards[board] = status
            self.seen[board] = seen

    def _game(self, board: str, game: int) -> HallGame:
        g = self.games.get((board, game))
        if g is None:
            g = self.games[(board, game)] = HallGame(board, game)
        return g

    def bump(self) -> None:
        self.version += 1
        self.changed.set()
        self.changed = asyncio.Event()

    # -- settings -----------------------------------------------------------------------------------
    @property
    def planned(self) -> int:
        return int(self.store.get("rounds", "7") or 7)

    @property
    def reading(self) -> str:
        return self.store.get("tiebreak", "literal") or "literal"

    @property
    def auto_confirm(self) -> bool:
        return self.store.get("auto_confirm", "0") == "1"

    @property
    def event(self) -> str:
        return self.store.get("event", "") or ""

    @property
    def language(self) -> str | None:
        """The hall's language (``damas hall --lang``), else None: each browser's own."""
        return self.store.get("language") or None

    def settings(self, data: dict[str, Any]) -> None:
        if "rounds" in data:
            n = data["rounds"]
            if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 99:
                raise TournamentError.of("err_rounds", value=str(n)[:20])
            self.store.set("rounds", str(n))
        if "tiebreak" in data:
            if data["tiebreak"] not in READINGS:
                raise TournamentError(f"tiebreak must be literal or progressive, not {str(data['tiebreak'])[:20]!r}")
            self.store.set("tiebreak", data["tiebreak"])
        if "auto_confirm" in data:
            self.store.set("auto_confirm", "1" if data["auto_confirm"] else "0")
        if "event" in data:
            self.store.set("event", str(data["event"])[:200])
        if "language" in data:
            lang = language(str(data["language"] or "")) if data["language"] else ""
            if lang is None:
                raise TournamentError(f"language must be pt-BR, pt-PT or en, not {str(data['language'])[:20]!r}")
            self.store.set("language", lang)
        self.bump()

    # -- the broker ---------------------------------------------------------------------------------
    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        if self.broker is None:
            return
        self.client = new_client(self.broker, "damas-hall", clean=False)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()

    def stop(self) -> None:
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        if reason.is_failure:
            log.warning("the broker %s refused the hall: %s", self.broker.url() if self.broker else "", reason)
            return
        client.subscribe([(f"{PREFIX}/board/+/game", 1), (f"{PREFIX}/board/+/status", 1)])
        self._call(self._connected, True)

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _f: Any, reason: Any, _p: Any) -> None:
        self._call(self._connected, False)

    def _on_message(self, _c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        self._call(self.receive, msg.topic, bytes(msg.payload))

    def _call(self, fn: Callable[..., None], *args: Any) -> None:
        if self.loop is not None and not self.loop.is_closed():
            self.loop.call_soon_threadsafe(fn, *args)

    def _connected(self, up: bool) -> None:
        if up != self.connected:
            log.info("%s the broker %s", "connected to" if up else "lost", self.broker.url() if self.broker else "")
        self.connected = up
        if up:
            self.asked.clear()
            self._publish_assignments()
        self.bump()

    def publish(self, topic: str, data: dict[str, Any], *, retain: bool = False) -> None:
        if self.client is not None and self.connected:
            self.client.publish(topic, json.dumps(data), qos=1, retain=retain)

    # -- what the boards send -------------------------------------------------------------------
    def receive(self, topic: str, payload: bytes) -> None:
        parts = topic.split("/")
        if len(parts) != 4 or parts[0] != PREFIX or parts[1] != "board":
            return
        board = parts[2]
        try:
            data = json.loads(payload)
        except ValueError:
            log.warning("board %s sent a message that is not JSON on %s", board, topic)
            return
        if not isinstance(data, dict):
            return
        if parts[3] == "status":
            self._status(board, data)
        elif parts[3] == "game":
            self._message(board, data)

    def _status(self, board: str, data: dict[str, Any]) -> None:
        now = self.clock()
        self.boards[board] = data
        self.seen[board] = now
        self.store.set_status(board, data, now)
        games = data.get("games")
        if isinstance(games, dict):
            for g, last in games.items():
                try:
                    game, last_seq = int(g), int(last)
                except (TypeError, ValueError):
                    continue
                if self._game(board, game).next_seq <= last_seq:
                    self._ask(board, game, force=True)
        self.bump()

    def _message(self, board: str, msg: dict[str, Any]) -> None:
        game, seq = msg.get("game"), msg.get("seq")
        if not isinstance(game, int) or not isinstance(seq, int) or msg.get("board") != board:
            log.warning("board %s sent a message without its board, game and seq", board)
            return
        g = self._game(board, game)
        if seq < g.next_seq or seq in g.pending:
            return  # a duplicate (a resend, or the broker's redelivery)
        if g.add(msg) and msg.get("type") in ("start", "move", "undo", "clock"):
            g.seen_at = self.clock()
        self.store.add_message(board, game, seq, json.dumps(msg, separators=(",", ":")), g.to_json())
        self.seen[board] = self.clock()
        if g.gap:
            self._ask(board, game)
        if g.result != "*":
            self._result_from_board(g)
        self.bump()

    def _ask(self, board: str, game: int, *, force: bool = False) -> None:
        g = self._game(board, game)
        now = self.clock()
        prev = self.asked.get((board, game))
        if not force and prev is not None and prev[0] == g.next_seq and now - prev[1] < ASK_AGAIN:
            return
        self.asked[(board, game)] = (g.next_seq, now)
        self.publish(control_topic(board), {"resend": game, "from": g.next_seq})

    def check_gaps(self) -> None:
        """Ask again for what is still missing (a resend can be lost too)."""
        for (board, game), g in self.games.items():
            if g.gap:
                self._ask(board, game)

    # -- games and feeds ----------------------------------------------------------------------
    def current_game(self, board: str) -> HallGame | None:
        status = self.boards.get(board, {})
        game = status.get("game")
        if isinstance(game, int) and (board, game) in self.games:
            return self.games[(board, game)]
        mine = [g for (b, _n), g in self.games.items() if b == board]
        return max(mine, key=lambda g: g.game) if mine else None

    def board_ids(self) -> list[str]:
        ids = set(self.boards) | {b for b, _g in self.games} | {p.board for p in self.store.pairings() if p.board}
        return sorted(ids, key=lambda b: (len(b), b))

    def game_for(self, p: Pairing) -> HallGame | None:
        """The game played for a pairing: the latest on its board with its round's tag."""
        if p.board is None:
            return None
        mine = [
            g for (b, _n), g in self.games.items() if b == p.board and g.tags.get("Round") == str(p.round) and g.variant
        ]
        return max(mine, key=lambda g: g.game) if mine else None

    def find(self, key: str) -> HallGame:
        board, _, game = key.rpartition("-")
        try:
            return self.games[(board, int(game))]
        except (KeyError, ValueError):
            raise LookupError(f"no game {key[:40]!r} (games are named BOARD-GAME, e.g. 7-12)") from None

    def current_round(self) -> int:
        rounds = [p.round for p in self.store.pairings()]
        return max(rounds) if rounds else 0

    def round_games(self, round_no: int) -> list[HallGame]:
        out = []
        for p in self.store.pairings():
            if p.round == round_no:
                g = self.game_for(p)
                if g is not None:
                    out.append(g)
        return out

    def live_pdn(self) -> str:
        """All games of the current round (what broadcast relays poll); without a tournament,
        every board's current game."""
        r = self.current_round()
        if r:
            games = self.round_games(r)
        else:
            games = [g for b in self.board_ids() if (g := self.current_game(b)) is not None and g.variant]
        return write_pdn([g.pdn_game() for g in games])

    # -- alerts -------------------------------------------------------------------------------------
    def alerts(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        now = self.clock()
        for board in self.board_ids():
            status = self.boards.get(board)
            if status is not None and status.get("online") is False:
                out.append({"board": board, "kind": "offline", "message": text("en", "alert_offline", board=board)})
            g = self.current_game(board)
            if g is None:
                continue
            games = status.get("games") if status is not None else None
            last = games.get(str(g.game)) if isinstance(games, dict) else None
            behind = isinstance(last, int) and last >= g.next_seq  # the board has sent more than the hall has
            if g.gap or g.error or behind:
                why = g.error or f"waiting for message {g.next_seq}"
                out.append(
                    {"board": board, "kind": "out-of-sync", "message": f"board {board} is out of sync: {why}",
                     "error": g.error, "seq": g.next_seq}
                )  # fmt: skip
            reports = [r for r in g.reports if r.get("kind") not in CLOCK_STATE]
            if g.result == "*" and reports:
                last = reports[-1]
                if last.get("kind") not in CLEARS:
                    out.append(
                        {
                            "board": board,
                            "kind": str(last.get("kind")),
                            "message": f"board {board}: {last.get('message')}",
                            "report": last.get("message"),
                            "texts": last.get("texts"),  # the board's words for it in each language
                        }
                    )
            out += self._clock_alerts(board, g, now)
        return out

    def _clock_alerts(self, board: str, g: HallGame, now: float) -> list[dict[str, Any]]:
        """A flag fallen (said by the board, or the hall's count reached 0 first), on the board's
        current game until the next one starts; the clocks paused while the game is on."""
        f = g.faces(now) if g.variant else None
        if f is None:
            return []
        out: list[dict[str, Any]] = []
        flag = f["flag"]
        if flag is None and g.termination == "time-forfeit":
            flag = "black" if g.result in ("1-0", "2-0") else "white"
        if flag is None and f["ticking"] and f[str(f["running"])] <= 0:
            flag = f["running"]
        if flag in ("white", "black"):
            message = text("en", f"alert_flag_{flag}", board=board)
            out.append({"board": board, "kind": "flag", "side": flag, "message": message})
        elif f["paused"] and g.result == "*":
            by = f.get("paused_by")
            if f"by_{by}" in UI["en"]:
                message = text("en", "alert_paused_by", board=board, by=text("en", f"by_{by}"))
            else:
                by, message = None, text("en", "alert_paused", board=board)
            out.append({"board": board, "kind": "clock-paused", "by": by, "message": message})
        return out

    # -- the tournament -----------------------------------------------------------------------------
    def add_players(self, players: list[Player]) -> list[Player]:
        return [self.store.add_player(p.name, p.rating, p.club) for p in players]

    def import_csv(self, text: str) -> list[Player]:
        added = self.add_players(read_players_csv(text))
        self.bump()
        return added

    def pair_next(self, boards: list[str] | None = None) -> list[Pairing]:
        players = self.store.players()
        pairings = self.store.pairings()
        r = self.current_round() + 1
        new = pair_round(players, pairings, r, self.planned)
        board_list = boards or self.store_boards()
        for i, p in enumerate(x for x in new if x.black is not None):
            p.board = board_list[i] if i < len(board_list) else str(p.table)
        for p in new:
            if p.black is None:
                p.result, p.confirmed = None, True  # the bye scores by itself
            self.store.save_pairing(p)
        self._publish_assignments()
        self.bump()
        return new

    def store_boards(self) -> list[str]:
        text = self.store.get("boards")
        return [b for b in (text or "").split(",") if b]

    def _publish_assignments(self) -> None:
        r = self.current_round()
        if not r:
            return
        names = {p.id: p.name for p in self.store.players()}
        for p in self.store.pairings():
            if p.round == r and p.board and p.black is not None:
                self.publish(
                    assign_topic(p.board),
                    {
                        "round": r,
                        "table": p.table,
                        "white": names.get(p.white, "?"),
                        "black": names.get(p.black, "?"),
                        "event": self.event,
                    },
                    retain=True,
                )

    def _find_pairing(self, round_no: int, table: int) -> Pairing:
        for p in self.store.pairings():
            if p.round == round_no and p.table == table:
                return p
        raise TournamentError.of("err_no_table", round=round_no, table=table)

    def set_result(self, round_no: int, table: int, result: str, *, confirm: bool = True) -> Pairing:
        p = self._find_pairing(round_no, table)
        if p.black is None:
            raise TournamentError.of("err_bye_result", round=round_no, table=table)
        p.result, p.confirmed = normalise_result(result), confirm
        self.store.save_pairing(p)
        self.bump()
        return p

    def confirm(self, round_no: int, table: int) -> Pairing:
        p = self._find_pairing(round_no, table)
        if p.result is None:
            raise TournamentError.of("err_nothing_to_confirm", round=round_no, table=table)
        p.confirmed = True
        self.store.save_pairing(p)
        self.bump()
        return p

    def swap_colours(self, round_no: int, table: int) -> Pairing:
        """Art. 11: the players agree on colours (else the draw decides): the arbiter swaps them."""
        p = self._find_pairing(round_no, table)
        if p.black is None or p.result is not None:
            raise TournamentError.of("err_swap_late", round=round_no, table=table)
        p.white, p.black = p.black, p.white
        self.store.save_pairing(p)
        self._publish_assignments()
        self.bump()
        return p

    def _result_from_board(self, g: HallGame) -> None:
        """A finished game's result goes to its pairing: confirmed by the arbiter, or at once."""
        for p in self.store.pairings():
            if p.board == g.board and str(p.round) == g.tags.get("Round") and p.black is not None:
                if p.confirmed:
                    return
                winner = parse_result(g.result)
                if not (winner is None or isinstance(winner, Color)):
                    return
                names = {pl.id: pl.name for pl in self.store.players()}
                swapped = g.tags.get("White") == names.get(p.black) and g.tags.get("Black") == names.get(p.white)
                res = "1-1" if winner is None else "2-0" if (winner is Color.WHITE) != swapped else "0-2"
                p.result, p.confirmed = res, self.auto_confirm
                self.store.save_pairing(p)
                return

    def table(self) -> list[dict[str, Any]]:
        rows = standings(self.store.players(), self.store.pairings(), self.planned, self.reading)
        return [
            {"rank": s.rank, "id": s.player.id, "name": s.player.name, "rating": s.player.rating,
             "club": s.player.club, "points": s.points, "tiebreak": s.tiebreak, "games": s.games}
            for s in rows
        ]  # fmt: skip

    # -- the page's state ---------------------------------------------------------------------------
    def board_state(self, board: str) -> dict[str, Any]:
        g = self.current_game(board)
        status = self.boards.get(board, {})
        out: dict[str, Any] = {"board": board, "online": bool(status.get("online")), "game": None}
        if g is not None and g.variant:
            pos = g.position()
            geo = pos.geometry
            out["game"] = {
                "id": g.key,
                "variant": g.variant,
                "title": find_variant(g.variant).title,
                "size": geo.size,
                "pieces": {str(q): p.symbol for q, p in pos.pieces().items()},
                "white": g.tags.get("White", "?"),
                "black": g.tags.get("Black", "?"),
                "round": g.tags.get("Round", ""),
                "plies": g.plies,
                "last": g.last_move(),
                "moves": [t for k, _w, _c, t in g.steps if k == "move"],
                "turn": pos.turn.value,
                "clock": g.faces(self.clock()),
                "result": g.result,
                "sync": not (g.gap or g.error),
            }
        return out

    def state_json(self) -> str:
        """The page's state as JSON, built once per version (every page waiting gets the same)."""
        if self._cache is None or self._cache[0] != self.version:
            self._cache = (self.version, json.dumps(self.state(), separators=(",", ":")))
            self.built = time.monotonic()
        return self._cache[1]

    def state(self) -> dict[str, Any]:
        r = self.current_round()
        names = {p.id: p.name for p in self.store.players()}
        pairings = [
            {"round": p.round, "table": p.table, "white": names.get(p.white, "?"),
             "black": None if p.black is None else names.get(p.black, "?"), "board": p.board,
             "result": p.result, "confirmed": p.confirmed, "game": (g.key if (g := self.game_for(p)) else None)}
            for p in self.store.pairings() if p.round == r
        ]  # fmt: skip
        boards = [self.board_state(b) for b in self.board_ids()]
        geometry = {}
        for b in boards:
            v = b["game"] and b["game"]["variant"]
            if v and v not in geometry:
                geo = Position.start(v).geometry
                geometry[v] = {str(q): list(geo.coord(q)) for q in geo.squares()}
        return {
            "version": self.version,
            "event": self.event,
            "geometry": geometry,
            "connected": self.connected,
            "round": r,
            "rounds": self.planned,
            "tiebreak": self.reading,
            "auto_confirm": self.auto_confirm,
            "boards": boards,
            "alerts": self.alerts(),
            "pairings": pairings,
        }
