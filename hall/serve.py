"""Run the hall: its database, the broker (a private Mosquitto when none is given), the
subscriber and the web server, until SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web

from hall.app import Hall, stop_pairer
from hall.broker import Mosquitto, MosquittoError
from hall.protocol import Broker, BrokerError
from hall.store import HallStore, HallStoreError
from hall.tournament import TournamentError, read_players_csv
from hall.web import build_app

log = logging.getLogger(__name__)


class HallError(Exception):
    """A user error starting the hall (one line)."""


@dataclass
class Options:
    db: str
    broker: str | None = None
    username: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    host: str = "127.0.0.1"
    port: int = 8090
    token: str | None = None
    players: str | None = None
    rounds: int | None = None
    event: str | None = None
    boards: str | None = None
    tiebreak: str | None = None
    auto_confirm: bool | None = None
    language: str | None = None


def run(opts: Options) -> int:
    broker_proc: Mosquitto | None = None
    players = None
    if opts.players:  # (a file that cannot be read stops everything before it starts)
        try:
            players = read_players_csv(Path(opts.players).read_text(encoding="utf-8-sig"))
        except OSError as exc:
            raise HallError(f"cannot read {opts.players}: {exc.strerror or exc}") from None
        except TournamentError as exc:
            raise HallError(f"{opts.players}: {exc}") from None
    try:
        if opts.broker:
            broker = Broker.parse(opts.broker, username=opts.username, password=opts.password, tls_ca=opts.tls_ca)
        else:
            broker_proc = _private_broker(Path(opts.db + ".mosquitto"))
            broker = Broker.parse(broker_proc.url)
    except (BrokerError, MosquittoError) as exc:
        raise HallError(str(exc)) from None
    try:
        try:
            store = HallStore(opts.db)
        except HallStoreError as exc:
            raise HallError(str(exc)) from None
        try:
            hall = Hall(store, broker, token=opts.token)
            settings: dict[str, object] = {}
            if opts.rounds is not None:
                settings["rounds"] = opts.rounds
            if opts.event is not None:
                settings["event"] = opts.event
            if opts.tiebreak is not None:
                settings["tiebreak"] = opts.tiebreak
            if opts.auto_confirm is not None:
                settings["auto_confirm"] = opts.auto_confirm
            if opts.language is not None:
                settings["language"] = opts.language
            if opts.boards:
                store.set("boards", ",".join(b.strip() for b in opts.boards.split(",") if b.strip()))
            if players is not None:
                if store.players():
                    log.warning("the hall has players already: %s not imported", opts.players)
                else:
                    hall.add_players(players)
            hall.settings(settings)
        except TournamentError as exc:
            store.close()
            raise HallError(str(exc)) from None
        try:
            asyncio.run(_serve(hall, opts))
        except OSError as exc:
            raise HallError(f"cannot listen on {opts.host}:{opts.port}: {exc.strerror or exc}") from None
        finally:
            hall.stop()
            stop_pairer()
            store.close()
    finally:
        if broker_proc is not None:
            broker_proc.close()
    return 0


def _private_broker(workdir: Path) -> Mosquitto:
    """Mosquitto on 127.0.0.1:1883, else on a free port."""
    try:
        return Mosquitto(workdir, port=1883).start(timeout=5)
    except MosquittoError as exc:
        if "not installed" in str(exc):
            raise
    return Mosquitto(workdir).start()


async def _serve(hall: Hall, opts: Options) -> None:
    hall.start(asyncio.get_running_loop())
    app = build_app(hall)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, opts.host, opts.port)
    await site.start()
    assert hall.broker is not None
    log.info("the hall on http://%s:%d/ (broker %s)", opts.host, opts.port, hall.broker.url())
    log.warning("the arbiter's page: http://%s:%d/?token=%s", opts.host, opts.port, hall.token)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    async def gaps() -> None:
        while True:
            await asyncio.sleep(1.0)
            hall.check_gaps()

    task = asyncio.create_task(gaps())
    try:
        await stop.wait()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await runner.cleanup()
        log.info("stopped")
