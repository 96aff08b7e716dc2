"""Start ``damas play``: configuration, records, resume, the board, the web server."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import datetime
import errno
import ipaddress
import logging
import os
import re
import signal
import socket
import sys
import threading
import time
import webbrowser
from typing import Any

from aiohttp import web

from board_hal.buttons import ClockButtons
from board_hal.config import ConfigError, load_config
from board_hal.factory import open_board
from board_hal.health import BoardHealth, HealthError
from board_hal.health import default_path as health_path
from board_hal.layout import cell_name
from board_hal.registry import Hardware
from board_hal.simulated import SimulatedBoard
from board_hal.speech import Speaker, SpeechBackend
from board_hal.squares import Sensing
from damas.board.loop import PlayApp, board_pieces, reconcile, set_up, sim_occupancy
from damas.board.requests import preset_name
from damas.board.sensor_memory import SensorMemory
from damas.board.studies import KEPT_CHECKS
from damas.computer.opponent import EngineSettings, settings_from_config
from damas.computer.player import computer_tag
from damas.errors import UserError
from damas.hall_link.publish import Publisher
from damas.records.recover import recover
from damas.records.session import DamagedGame, GameSession
from damas.records.store import ANALYSIS, DAMAGED, INTERRUPTED, GameRow, Store, StoreError, default_path
from damas.speech.announcer import Announcer
from damas.speech.settings import SpeechError, SpeechSettings
from damas.speech.settings import settings_from_config as speech_from_config
from damas.web.routes import SERVED, build_app, make_token
from hall.protocol import Broker, BrokerError
from referee.clock import ClockError, parse_control
from referee.vocabulary import DEFAULT_MODE, MODES, Mode, known
from rules import Color, DraughtsError, Position, find_variant
from rules.errors import shown
from wording import language

log = logging.getLogger(__name__)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a ``--host`` literally names, in any form the resolver accepts when binding
    (``127.1``, ``0x7f.0.0.1``, ``[::1]``, ``::ffff:127.0.0.1``); None for a name."""
    text = host.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        addr: ipaddress.IPv4Address | ipaddress.IPv6Address = ipaddress.ip_address(text)
    except ValueError:
        if not text or any(c.isspace() for c in text) or not text.isascii():
            return None
        try:  # the short and hexadecimal IPv4 forms that inet_aton (and so getaddrinfo) accepts
            addr = ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    return addr


def _loopback(host: str) -> bool:
    """Whether the server would listen only on this machine: ``localhost``, any address in
    127.0.0.0/8 (in any spelling) and ``::1``. Anything else needs the token."""
    if host.strip().rstrip(".").lower() == "localhost":
        return True
    addr = _address(host)
    return addr is not None and addr.is_loopback


def _ask_resume(row_id: int, moves: int) -> bool:
    try:
        answer = input(f"resume the unfinished game {row_id} ({moves} {'ply' if moves == 1 else 'plies'})? [Y/n] ")
    except EOFError:
        return True
    return not answer.strip().lower().startswith("n")


def _bind(host: str, port: int) -> list[socket.socket]:
    """Own the port (every address the host name stands for) before anything else happens."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise UserError(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}") from None
    socks: list[socket.socket] = []
    seen = set()
    try:
        for family, kind, proto, _name, addr in infos:
            if (family, addr) in seen:
                continue
            seen.add((family, addr))
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:  # a family this host does not have (as asyncio does: skip it)
                continue
            socks.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(addr)
            sock.listen(128)
            sock.setblocking(False)
    except OSError as exc:
        for sock in socks:
            sock.close()
        if exc.errno in (errno.EADDRINUSE, 48, 10048):
            raise UserError(f"port {port} on {host} is already in use (choose another with --port)") from None
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    if not socks:
        raise UserError(f"cannot listen on {host}:{port}: no usable address")
    return socks


def _clock_control(args: argparse.Namespace, config: Any) -> str | None:
    """The time control for a new game: ``--clock``, else the configuration's (None: no clock)."""
    cfg = config.clock
    given = getattr(args, "clock", None)
    text = given if given is not None else cfg.control
    if text is None:
        return None
    try:
        control = parse_control(text, cfg.controls)
    except ClockError as exc:
        raise UserError(f"--clock: {exc}" if given is not None else f"{config.source}: clock.control: {exc}") from None
    for name, other in cfg.controls.items():
        try:
            parse_control(other, cfg.controls)
        except ClockError as exc:
            raise UserError(f"{config.source}: clock.controls.{name}: {exc}") from None
    return None if control.none else control.text()


def _speech_settings(args: argparse.Namespace, config: Any) -> SpeechSettings:
    """``[speech]`` with ``--speak``/``--no-speak`` over it (one line per problem)."""
    try:
        settings = speech_from_config(config.speech, config.source)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    speak = getattr(args, "speak", None)
    return settings if speak is None else dataclasses.replace(settings, enabled=speak)


def _open_voice(settings: SpeechSettings) -> SpeechBackend | None:
    """The board's voice when speech is on (a voice that cannot speak: one line, before anything starts)."""
    if not settings.enabled:
        return None
    try:
        return settings.open_backend()
    except SpeechError as exc:
        raise UserError(f"speech: {exc}") from None


def _open_buttons(config: Any) -> ClockButtons | None:
    pins = config.clock.buttons
    if pins is None:
        return None
    try:
        return ClockButtons(pins["white"], pins["black"], bounce=config.clock.bounce, clock=time.time)
    except Exception as exc:  # gpiozero: no pin factory, pin in use, not a Pi...
        raise UserError(f"{config.source}: clock.buttons: cannot open the GPIO pins: {exc}") from None


def _board_health(store: Store) -> BoardHealth | None:
    """What ``damas selftest`` found broken, beside the database (a damaged file: one line, ignored)."""
    path = health_path(store.path)
    try:
        health = BoardHealth.load(path)
    except HealthError as exc:
        log.warning("%s: ignored (run damas selftest again)", exc)
        return None
    if health is not None and (health.sensors or health.leds):
        found = [
            f"the {what} at {', '.join(map(cell_name, sorted(cells)))}"
            for what, cells in (("sensors", health.sensors), ("LEDs", health.leds))
            if cells
        ]
        log.info("the self-test of %s found %s broken (%s)", health.checked or "?", " and ".join(found), path)
    return health


def _finished_aside(store: Store, closed: list[int]) -> GameRow | None:
    """The latest game, when it is finished and an analysis session on the board that began after
    it was left in play (``closed`` at this start): the game that analysis kept aside."""
    try:
        latest = store.games(limit=1)
        if not latest or latest[0].state != "finished":
            return None
        return latest[0] if any(i > latest[0].id and store.game(i).purpose == ANALYSIS for i in closed) else None
    except StoreError:
        return None


def _open_game(
    args: argparse.Namespace,
    config: Any,
    store: Store,
    variant: str,
    mode: Mode,
    clock: str | None = None,
    memory: SensorMemory | None = None,
) -> tuple[Any, GameSession, SimulatedBoard | None, bool]:
    """The records (repaired from the journal copies when needed), the board, the game to play
    (the unfinished one resumed, or a new one), and whether an analysis on the board had kept
    that game aside when the program stopped (the board then holds the analysis' position)."""
    app_cfg = config.app
    if store.quarantined is not None:
        aside, why = store.quarantined
        log.warning("%s was damaged (%s); it was moved to %s", store.path, why, aside)
    for line in recover(store, lost_only=store.quarantined is None, checks=KEPT_CHECKS):
        log.info("recover: %s", line)

    # a training or an analysis on the board left in play is not a game to resume: it is closed
    # (kept whole, marked interrupted) and the board starts a new game unless a game is left in
    # play; the study the page had open comes back with the page (damas.board.loop), and a game
    # the session had left unfinished can be resumed from the page's list
    closed = store.close_sessions()
    for session_id in closed:
        log.info("game %d was a session on the board, not a game: kept, not resumed", session_id)
    # an unfinished game: resume it (after checking the board) or close it
    notes: list[str] = []
    row = store.unfinished()
    # the analysis on the board in play when the program stopped began after the game: it kept
    # the game aside (damas.board.analysis_mode), and the board holds the analysis' position
    kept = row is not None and any(i > row.id and store.game(i).purpose == ANALYSIS for i in closed)
    finished = None if row is not None or not closed else _finished_aside(store, closed)
    if finished is not None:  # a finished game the analysis kept aside: shown again, its position put back
        log.info("game %d (finished) was kept aside for an analysis on the board: it is shown again", finished.id)
        kept = True
    elif row is not None:
        choice = args.resume if args.resume is not None else app_cfg.get("resume")
        if choice is None:
            choice = _ask_resume(row.id, row.moves) if sys.stdin.isatty() else True
        if choice:
            variant = row.variant
        else:
            store.abandon(row.id, INTERRUPTED)
            row = None
    # a board behind a link that is not plugged in yet is waited for (shown as not connected)
    io = open_board(config, variant, hardware=Hardware(clock=time.time, wait_for_device=True))
    io.start()  # the scanning thread or the serial reader: the first reading comes before anything else
    sim = io.sensors if isinstance(io.sensors, SimulatedBoard) else None
    try:
        session = None
        row = row or finished
        if row is not None:
            try:
                session = GameSession.resume(store, row, window=config.debounce)
            except (DamagedGame, DraughtsError, ValueError, TypeError, KeyError) as exc:
                # records the referee cannot take: never a crash loop, that game is kept aside, play goes on
                store.abandon(row.id, DAMAGED)
                why = str(exc) if isinstance(exc, DamagedGame) else f"game {row.id}: {type(exc).__name__}: {exc}"
                notes.append(f"{why[:300]}: game {row.id} is marked damaged and not resumed")
            else:
                if sim is not None:
                    sim_occupancy(session, sim)
                elif not kept:  # (else nothing the board shows is a move of the game: it is put back)
                    reconcile(session, io, time.time())
                log.info("resumed game %d (%d plies)", row.id, row.moves)
        if session is None:
            if sim is not None and (args.fen or sim.senses > Sensing.PRESENCE):
                set_up(sim, Position.from_fen(args.fen, variant) if args.fen else Position.start(variant))
            squares, _cells = io.occupied()
            senses, pieces = board_pieces(io)
            tags = {"Date": datetime.date.today().strftime("%Y.%m.%d")}
            for key, value in (("Event", args.event), ("White", args.white), ("Black", args.black)):
                if value:
                    tags[key] = value
            session = GameSession.start(
                store,
                variant,
                args.fen,
                mode,
                squares,
                tags,
                window=config.debounce,
                clock=clock,
                clock_auto=config.clock.auto,
                clock_name=preset_name(getattr(args, "clock", None) or config.clock.control, config.clock.controls),
                senses=senses,
                pieces=pieces,
                broken=set() if memory is None else memory.broken(io.layout)[0],
            )
            for note in notes:
                log.warning("%s; started game %d", note, session.row.id)
    except BaseException:
        io.close()
        raise
    return io, session, sim, kept and sim is None and session.row.id == getattr(row, "id", None)


BOARD_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _hall_settings(args: argparse.Namespace, config: Any) -> tuple[Broker, str] | None:
    """Where to publish the games (``--broker``/``--board-id``, else ``[hall]``), or None."""
    cfg = config.hall
    url = getattr(args, "broker", None) or cfg.get("broker")
    board = getattr(args, "board_id", None) or cfg.get("board_id")
    if not url:
        if board is not None:
            raise UserError("--board-id needs a broker (--broker mqtt://host:1883, or broker in [hall])")
        return None
    if board is None:
        raise UserError("publishing to the hall needs this board's id (--board-id 7, or board_id in [hall])")
    board = str(board)
    if not BOARD_ID.fullmatch(board):
        raise UserError(f"bad board id {board[:40]!r} (1 to 32 letters, digits, - or _)")
    try:
        broker = Broker.parse(
            url,
            username=cfg.get("username") or board,
            password=cfg.get("password") or os.environ.get("DAMAS_MQTT_PASSWORD"),
            tls_ca=cfg.get("tls_ca"),
        )
    except BrokerError as exc:
        raise UserError(str(exc)) from None
    return broker, board


def _mode(args: argparse.Namespace, config: Any) -> Mode:
    """The mode of a new game: ``--mode``, else ``[app] mode``, else casual. A mode the
    configuration misspells is refused even under ``--mode`` (one line naming the file)."""
    configured = config.app.get("mode")
    mode = known(configured, MODES)
    if configured is not None and mode is None:
        raise ConfigError(f"{config.source}: app.mode must be {' or '.join(MODES)}, not {shown(configured)}")
    return known(args.mode, MODES) or mode or DEFAULT_MODE


def serve(args: argparse.Namespace) -> int:
    config = load_config(args.config)
    app_cfg = config.app
    variant = find_variant(args.variant or config.variant or app_cfg.get("variant") or "brazilian").name
    mode = _mode(args, config)
    host = args.host or app_cfg.get("host") or "127.0.0.1"
    port = args.port if args.port is not None else int(app_cfg.get("port") or 8080)  # (both 1-65535: checked)
    if args.fen:
        Position.from_fen(args.fen, variant)  # a bad FEN: one line, before anything starts
    clock = _clock_control(args, config)  # a bad time control too
    engine = _engine_settings(args, config)
    hall = _hall_settings(args, config)
    speech = _speech_settings(args, config)
    voice = _open_voice(speech)
    # the port first: a program that cannot serve touches no records
    socks = _bind(host, port)
    try:
        store = Store(args.db or app_cfg.get("database") or default_path(), exclusive=True, quarantine=True)
    except BaseException:
        for sock in socks:
            sock.close()
        raise
    buttons = None
    try:
        buttons = _open_buttons(config)
        memory = SensorMemory.open(store.path, _board_health(store))
        io, session, sim, aside = _open_game(args, config, store, variant, mode, clock, memory)
    except BaseException:
        if buttons is not None:
            buttons.close()
        for sock in socks:
            sock.close()
        store.close()
        raise
    token = None if _loopback(host) else make_token()
    lang = args.lang or app_cfg.get("language")
    said = speech.language_for(language(lang), session.row.variant)
    announcer = Announcer(language=said, speaker=None if voice is None else Speaker(voice), say=speech.say)
    if voice is not None:
        log.info("the board speaks %s (%s)", said, voice.name)
    play = PlayApp(
        store,
        io,
        session,
        token=token,
        language=lang,
        window=config.debounce,
        buttons=buttons,
        low_time=config.clock.low_time,
        clock_presets=config.clock.controls,
        looks=config.looks,
        engine=engine,
        speech=announcer,
        chord=speech.chord if speech.enabled else 0.0,
        memory=memory,
    )
    play.trust_forgotten()  # (a resumed game: the sensors damas selftest found sound since are read again)
    if aside:  # the game's position is put back on the board first, the LEDs guiding
        play.analysis_mode.returning = True
        log.info("game %d was kept aside for an analysis on the board: put its position back", session.row.id)
    opponent = getattr(args, "opponent", None) or engine.opponent
    if opponent == "engine" and session.seq == 0:  # a new game (a resumed one knows its players)
        _start_computer(play, engine)
    if hall is not None:
        broker, board_id = hall
        play.publisher = Publisher(store, board_id, broker, assign=play.assign)
        play.publisher.start()
        log.info("board %s publishes its games to the hall's broker %s", board_id, broker.url())
    app = build_app(play)
    shown = "localhost" if host in ("0.0.0.0", "::") else f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/" + (f"?token={token}" if token else "")
    try:
        asyncio.run(_run(app, host, socks, url, play, open_browser=sim is not None and not args.no_browser))
    finally:
        play.close()
        if play.publisher is not None:
            play.publisher.close()
        io.close()
        if buttons is not None:
            buttons.close()
        store.close()
        for sock in socks:
            sock.close()
    return 0


def _engine_settings(args: argparse.Namespace, config: Any) -> EngineSettings:
    """``[engine]`` with ``--opponent``, ``--level`` and ``--side`` over it (one line per problem)."""
    try:
        settings = settings_from_config(config.engine, config.source)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    changes: dict[str, Any] = {}
    if getattr(args, "level", None) is not None:
        if not 1 <= args.level <= 10:
            raise UserError(f"--level must be 1-10, not {args.level}")
        changes["level"] = args.level
    if getattr(args, "side", None) is not None:
        changes["side"] = Color(args.side)
    if getattr(args, "move_time", None) is not None:
        if not 0.05 <= args.move_time <= 600:
            raise UserError(f"--move-time must be 0.05-600 seconds, not {args.move_time:g}")
        changes["move_time"] = args.move_time
    return dataclasses.replace(settings, **changes)


def _start_computer(play: PlayApp, settings: EngineSettings) -> None:
    """The computer plays the configured side of the new game; its name goes in that side's tag."""
    tag = settings.side.value.capitalize()
    name = computer_tag(play.computer.name, settings.level, settings.move_time)
    play.store.correct(play.session.row.id, {tag: name}, None)
    play.start_computer(settings.side, settings.level)
    log.info("the computer (%s) plays %s at level %d", play.computer.name, settings.side.value, settings.level)


SHUTDOWN_TIMEOUT = 1.0  # seconds the connections still busy get when the server stops
STOP_WITHIN = 4.0  # seconds after SIGTERM (or Ctrl-C) by which the program has exited, whatever holds it


async def _run(
    app: web.Application, host: str, socks: list[socket.socket], url: str, play: PlayApp, *, open_browser: bool
) -> None:
    addr = _address(host)
    # the names a page may use for this server (the Host check of damas.web.routes); the address too:
    # a browser shows http://127.1:8080/ as 127.0.0.1:8080
    app[SERVED] = frozenset({host.strip().strip("[]").rstrip(".").lower()} | ({str(addr)} if addr else set()))
    # SIGTERM and Ctrl-C stop the server cleanly from before it says where it serves: a
    # supervisor may stop it the moment it announced itself
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    # a connection still busy when the server stops (a client that stopped reading its answers)
    # is cut after SHUTDOWN_TIMEOUT: the stop is bounded whatever the clients do
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=SHUTDOWN_TIMEOUT)
    await runner.setup()
    cap = _connection_cap()
    for sock in socks:  # bound before the records were opened (_bind)
        await _CappedSite(runner, sock, cap).start()
    board = "the simulated board" if play.sim is not None else "the board"
    log.info("%s, game %d, on %s: %s", play.session.referee.variant.title, play.session.row.id, board, url)
    if play.token:
        log.warning("actions that change a game need the token %s", play.token)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        await stop.wait()
        _stop_within(STOP_WITHIN)
    finally:
        await runner.cleanup()
        log.info("stopped")


def _stop_within(seconds: float) -> None:
    """The last guard of a bounded stop: whatever still holds the program ``seconds`` after it
    was asked to stop (an engine, a broker, a board that does not answer), it exits then. Every
    acknowledged event is durable already: this costs nothing a power cut would not."""

    def now() -> None:
        log.warning("did not stop within %g s: exiting now", seconds)
        logging.shutdown()
        os._exit(0)

    timer = threading.Timer(seconds, now)
    timer.daemon = True
    timer.start()


class _Refused(asyncio.Protocol):
    """A connection beyond the cap: told so, and closed at once (its descriptor freed)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        transport.write(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        transport.close()


class _CappedSite(web.SockSite):
    """A listening socket whose connections beyond ``cap`` are refused, so that held
    connections never take the file descriptors the records, the board and the engine need."""

    def __init__(self, runner: web.AppRunner, sock: socket.socket, cap: int) -> None:
        super().__init__(runner, sock)
        self._cap = cap

    async def start(self) -> None:
        server = self._runner.server
        assert server is not None
        await web.BaseSite.start(self)  # (registered with its runner, as SockSite.start does; then its own server)
        cap = self._cap

        def protocol() -> asyncio.BaseProtocol:
            # server.connections counts a connection only once its protocol was told it is made,
            # turns of the loop after it was accepted: in a flood, hundreds are accepted before
            # they are counted. The descriptors themselves are counted (a few µs a connection for
            # a few pages, ~1 ms near a thousand).
            held = len(server.connections)
            return _Refused() if held >= cap or _open_files(held) >= cap else server()

        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(protocol, sock=self._sock, backlog=self._backlog)


# file descriptors kept from the connections: for the records, the board, the engine, the broker
# (64), and for the connections accepted in two turns of the loop (a backlog, 128, each) before
# those beyond the cap are closed
FILES_KEPT = 64 + 2 * 128


def _open_files(fallback: int) -> int:
    """How many file descriptors the program holds (Linux's /proc; elsewhere ``fallback``)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return fallback


def _connection_cap() -> int:
    """How many connections the server holds at most: the open-file limit (its soft limit
    raised to the hard one first: a Pi's usual 1,024 is soon reached) less what the rest of
    the program needs."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            want = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
            if want > soft:
                resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
                soft = want
    except (ImportError, OSError, ValueError):
        return 1024 - FILES_KEPT
    return max(16, soft - FILES_KEPT)
