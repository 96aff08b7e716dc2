"""The local web page: the live board (and the simulated board's controls), served by aiohttp.

Routes:

* ``GET /`` the page; ``GET /ws`` a WebSocket pushing the state after every change (the newest
  only: a page that stops taking them is disconnected, see ``damas.web.viewers``);
* ``GET /api/state`` the same state as JSON (``?lang=pt``);
* ``GET /api/read-out`` the position (men and kings of each side by square), the last move and
  both clocks read out in ``?lang=``: ``{"text": ..., "say": ...}`` (``say``: as a voice reads
  it; the page's read-out key; the board's own voice reads it on the read-out gesture);
  ``?part=last`` (the turn and the last move), ``clocks`` or ``position`` (the turn and the
  pieces) reads one of them only (the page's L, C and P keys);
* ``POST /api/sim`` ``{"op": "lift"|"place", "square": n}`` or ``{"op": ..., "cell": "b1"}``
  — the simulated board's hands; a place may name the piece put down, ``"piece": "w"|"b"|"W"|"B"``
  (a white or black man or king: what a board that senses colour and crowns then reads);
  ``{"op": "fix"}``: the hands do what the LEDs ask (a piece on each square lit missing, none on
  each lit extra: a set-up, the analysis mode's position, a game's position put back);
* ``POST /api/action`` ``{"action": "resign"|"draw"|"result"|"new-game"|"hint"|"analyze", ...}``
  (``new-game`` takes ``variant``, ``fen``, ``mode``, ``tags`` and ``clock``, a time control; the
  players' tags carry over to the new game; against the computer also ``opponent: "engine"``,
  ``side`` (the side the computer plays) and ``level`` 1-10. ``hint``: the engine's move for the
  player to move, lit in the ``hint`` role (casual games unless ``[engine] hints`` says otherwise).
  ``analyze``: the game in play analysed off the board loop; the state's ``analysis`` and the
  moves' ``mark`` show it; ``live`` ``{"on": true|false}``: the live analysis (the state's
  ``live``: the bar, the number, the depth and the engine's line), in casual games and finished
  ones); ``study`` with ``op``: ``open`` (``game``, ``ply``: a recorded game, default the one in
  play, its evaluation graph the state's ``study.graph`` when it was analysed; or ``study``: a
  kept study by its id, the state's ``study.id`` and ``studies``), ``pdn`` (``pdn``: a pasted
  PDN's first game, or a FEN alone), ``play`` (``node``, ``move``: a move tried from that
  position, kept as a variation), ``goto``/``delete``/``promote`` (``node``), ``board`` (``on``:
  the analysis mode on the board, ``damas.board.analysis_mode``; the state's ``board_analysis``:
  ``on``, ``set_up``, the squares to ``fill`` and to ``empty``, or ``returning`` to ``game``),
  ``close`` (the state's ``study``; every study is kept in the records, written before the
  answer, and the one open comes back open after a restart); ``training`` with ``op``
  ``start`` (``kind``: ``game`` or ``tactic``
  of the shipped sets by ``index``, or ``study``; ``mode`` replay or guess, ``side``), ``show``
  (the move to find, given up) or ``stop`` (back to the game left for it; the state's
  ``training``); the game clock's ``{"action": "clock", "side": "white"|"black"}`` (a press
  of that side's button), ``clock-pause``, ``clock-resume``, ``clock-adjust`` with ``white`` /
  ``black`` (seconds, or ``m:ss`` text); ``confirm`` with ``move`` (square numbers, one of the
  ``moves`` a ``sensor-confirm`` report offers: the state's ``active.confirm``) or ``square`` (the
  sensor under it is broken: a set-up a stuck sensor keeps from completing); ``sensor-repaired``
  with ``square``: a sensor the state's ``remembered`` lists (broken, kept for the next games:
  ``damas.board.sensor_memory``) was repaired, and is read again at once, the game in play too;
* ``POST /api/games/{id}/tags`` ``{"tags": {...}, "result": "1-0"}`` — correct a record
  (tag names are PDN symbols starting with a capital letter, values text without control
  characters, ``""`` removes a tag; results 1-0, 0-1, 1/2-1/2, 2-0, 0-2, 1-1 or ``*``);
* ``GET /live.pdn`` the current and recent games (multi-game PDN, as broadcast relays poll);
  ``GET /games/{id}.pdn`` one game; ``GET /study.pdn`` the study open on the page, its
  variations in parentheses.

A bad request is a 400 with ``{"error": "..."}`` naming the problem (a body above 64 KiB
is a 413); a game id is ASCII digits, anything else is not found.

Watching is open; when the server listens beyond the loopback interface, every request
that changes a game needs the token printed at start-up (header ``X-Damas-Token`` or
``?token=``).

Every request is checked before its handler (another site's page in the same browser must
not play on the board):

* every ``POST`` needs ``Content-Type: application/json`` (else 415): a page elsewhere can
  send only plain-text or form bodies without asking first;
* a ``POST`` or the ``/ws`` handshake carrying an ``Origin`` must come from this server's own
  page: the Origin's host and port are those of the ``Host`` header (else 403);
* on a loopback address (no token), the ``Host`` header must name the address served —
  ``localhost``, ``127.0.0.1``, ``[::1]``, the address the connection came to or the
  ``--host`` given, with the port listened on (else 403: a foreign name is DNS rebinding).
  Beyond the loopback interface any name may reach the board (a tablet may use the Pi's IP
  or its ``.local`` name); the token guards the changes.

Refusals are JSON ``{"error": "..."}`` with the status named.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import re
import secrets
import urllib.parse
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from damas.web.viewers import Viewers
from wording import language, pick_language
from wording.page import PageError

if TYPE_CHECKING:
    from damas.board.loop import PlayApp

STATIC = Path(__file__).with_name("static")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# the names the server was started on (``--host`` as given, and its canonical address)
SERVED = web.AppKey("served", frozenset[str])
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _host_port(netloc: str, default_port: int) -> tuple[str, int] | None:
    """``name:port`` (or ``[v6]:port``, or no port) as a lower-case name and a port; None if it is not one."""
    if not netloc or any(c in netloc for c in "/?#@\\ \t"):
        return None
    try:
        split = urllib.parse.urlsplit("//" + netloc)
        port = split.port
    except ValueError:
        return None
    name = (split.hostname or "").rstrip(".")
    return (name, port or default_port) if name else None


def _origin(value: str) -> tuple[str, int] | None:
    """An ``Origin`` header as (name, port); None for ``null`` or anything that is not http(s)."""
    try:
        split = urllib.parse.urlsplit(value)
    except ValueError:
        return None
    if split.scheme not in ("http", "https") or split.path or split.query:
        return None
    return _host_port(split.netloc, 443 if split.scheme == "https" else 80)


def _canonical(name: str) -> str:
    try:
        return str(ipaddress.ip_address(name))
    except ValueError:
        return name


def check_request(request: web.Request, served: frozenset[str], token_mode: bool) -> tuple[int, str] | None:
    """Why this request is refused (status, message), or None (see the module's docstring)."""
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    local_port = int(sockname[1]) if isinstance(sockname, tuple) and len(sockname) >= 2 else 80
    given_host = request.headers.get("Host", "")
    host = _host_port(given_host, 80)
    if not token_mode:
        names = set(LOOPBACK_NAMES) | {_canonical(n) for n in served}
        local = _canonical(str(sockname[0])) if isinstance(sockname, tuple) and sockname else "127.0.0.1"
        names.add(local)
        if host is None or _canonical(host[0]) not in names or host[1] != local_port:
            shown = f"[{local}]" if ":" in local else local
            return 403, (
                f"refused: the Host header {given_host!r} does not name this board's address "
                f"(open http://{shown}:{local_port}/)"
            )
    state_changing = request.method not in SAFE_METHODS
    if state_changing or request.path == "/ws":
        origin = request.headers.get("Origin")
        if origin is not None:
            seen = _origin(origin)
            if seen is None or host is None or (_canonical(seen[0]), seen[1]) != (_canonical(host[0]), host[1]):
                return 403, f"refused: a request from another site's page (Origin {origin!r}) may not use this board"
    if state_changing and request.content_type != "application/json":
        given = request.headers.get("Content-Type", "none")
        return 415, f"expected Content-Type: application/json, not {given!r}"
    return None


MAX_BODY = 64 * 1024  # bytes of a request body: the page's requests are a few hundred
RESPONSE_TIMEOUT = 30.0  # seconds a client has to take an answer (a page or a PDN): then it is cut
_GAME_ID = re.compile(r"[0-9]{1,18}")  # ASCII digits only: int() also takes ' 1', '+1' and '١'


def _json_error(message: str) -> web.HTTPException:
    return web.HTTPBadRequest(text=json.dumps({"error": message}), content_type="application/json")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _game_id(request: web.Request) -> int:
    """The ``{game_id}`` of the path; anything but 1-18 ASCII digits is not found."""
    text = request.match_info["game_id"]
    if not _GAME_ID.fullmatch(text):
        raise web.HTTPNotFound()
    return int(text)


def make_token() -> str:
    return secrets.token_urlsafe(9)


def build_app(play: PlayApp) -> web.Application:
    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        refused = check_request(request, request.app.get(SERVED, frozenset()), bool(play.token))
        if refused is not None:
            return web.json_response({"error": refused[1]}, status=refused[0])
        response = await handler(request)
        if not isinstance(response, web.Response) or response.prepared:
            return response  # (a page, a PDN, an answer: not a file, which aiohttp writes itself, nor a WebSocket)
        # the answer written here, within a time: a client that stops reading is cut, never waited on
        try:
            async with asyncio.timeout(RESPONSE_TIMEOUT):
                await response.prepare(request)
                await response.write_eof()
        except TimeoutError:
            if request.transport is not None:
                request.transport.abort()
        return response

    app = web.Application(middlewares=[guard])
    viewers = Viewers()  # the pages watching: the board loop pushes each state to them
    play.watchers.append(viewers.push)
    routes = web.RouteTableDef()

    def guarded(handler: Handler) -> Handler:
        async def check(request: web.Request) -> web.StreamResponse:
            if play.token:
                given = request.headers.get("X-Damas-Token") or request.query.get("token")
                # (compared as bytes: compare_digest refuses text that is not ASCII, with a 500)
                if not given or not secrets.compare_digest(given.encode("utf-8", "replace"), play.token.encode()):
                    lang = lang_of(request) if "lang" in request.query else "en"
                    return web.json_response({"error": PageError("token").text(lang)}, status=403)
            return await handler(request)

        return check

    def lang_of(request: web.Request) -> str:
        """The page's choice (``?lang=``), else ``--lang``/``[app] language``, else the browser's."""
        asked = language(request.query.get("lang"))
        return pick_language(asked or play.language, request.headers.get("Accept-Language"))

    def refusal(request: web.Request, exc: ValueError) -> web.StreamResponse:
        """A 400 naming the problem: in the page's language when it asked for one (``?lang=``)."""
        text = str(exc)
        if isinstance(exc, PageError) and "lang" in request.query:
            text = exc.text(lang_of(request))
        return web.json_response({"error": text}, status=400)

    @routes.get("/")
    async def index(_request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @routes.get("/favicon.ico")
    async def favicon(_request: web.Request) -> web.StreamResponse:
        return web.FileResponse(STATIC / "favicon.svg", headers={"Content-Type": "image/svg+xml"})

    @routes.get("/static/{name}")
    async def static(request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        path = STATIC / name
        if "/" in name or not path.is_file():
            raise web.HTTPNotFound()
        return web.FileResponse(path, headers={"Cache-Control": "no-cache"})

    @routes.get("/api/state")
    async def state(request: web.Request) -> web.StreamResponse:
        return web.json_response(play.state(lang_of(request)))

    @routes.get("/api/read-out")
    async def read_out(request: web.Request) -> web.StreamResponse:
        try:
            said = play.read_out(lang_of(request), request.query.get("part", "all")[:40])
        except ValueError as exc:  # a part the read-out does not have
            raise _json_error(str(exc)) from None
        return web.json_response(said)

    @routes.get("/ws")
    async def ws(request: web.Request) -> web.StreamResponse:
        sock = web.WebSocketResponse(heartbeat=20)
        await sock.prepare(request)
        lang = lang_of(request)
        viewer = viewers.add(request, sock, lang)
        try:
            viewer.push(json.dumps(play.state(lang)))
            async for msg in sock:
                if msg.type == WSMsgType.ERROR:
                    break
        finally:
            viewers.remove(sock)
        return sock

    async def body(request: web.Request) -> dict[str, Any]:
        raw = await request.read()  # aiohttp refuses more than its client_max_size (1 MiB) with a 413
        if len(raw) > MAX_BODY:
            raise web.HTTPRequestEntityTooLarge(
                MAX_BODY,
                len(raw),
                text=json.dumps({"error": f"the request body is larger than {MAX_BODY // 1024} KiB"}),
                content_type="application/json",
            )
        try:
            data = json.loads(raw.decode("utf-8"), parse_constant=_no_constant)
        except (ValueError, RecursionError):  # bad JSON or UTF-8, NaN, a huge number, too deep
            raise _json_error("expected a JSON body") from None
        if not isinstance(data, dict):
            raise _json_error("expected a JSON object")
        return data

    @routes.post("/api/sim")
    @guarded
    async def sim(request: web.Request) -> web.StreamResponse:
        data = await body(request)
        try:
            play.sim_event(str(data.get("op")), data.get("square"), data.get("cell"), data.get("piece"))
        except ValueError as exc:
            return web.json_response({"error": str(exc)}, status=400)
        await play.flush()
        return web.json_response({"ok": True, "journal": play.session.seq})

    @routes.post("/api/action")
    @guarded
    async def action(request: web.Request) -> web.StreamResponse:
        data = await body(request)
        try:
            play.action(data)
        except ValueError as exc:
            return refusal(request, exc)
        await play.flush()
        return web.json_response({"ok": True, "game": play.session.row.id})

    @routes.post("/api/games/{game_id}/tags")
    @guarded
    async def tags(request: web.Request) -> web.StreamResponse:
        data = await body(request)
        try:
            play.correct(_game_id(request), data.get("tags"), data.get("result"))
        except ValueError as exc:
            return web.json_response({"error": str(exc)}, status=400)
        await play.flush()
        return web.json_response({"ok": True})

    @routes.get("/live.pdn")
    async def live(_request: web.Request) -> web.StreamResponse:
        return web.Response(text=play.live_pdn(), content_type="application/x-chess-pdn", charset="utf-8")

    @routes.get("/study.pdn")
    async def study_pdn(_request: web.Request) -> web.StreamResponse:
        try:
            text = play.analysis_mode.pdn()
        except LookupError:
            raise web.HTTPNotFound() from None
        return web.Response(
            text=text,
            content_type="application/x-chess-pdn",
            charset="utf-8",
            headers={"Content-Disposition": 'attachment; filename="damas-study.pdn"'},
        )

    @routes.get("/games/{game_id}.pdn")
    async def game_pdn(request: web.Request) -> web.StreamResponse:
        try:
            text = play.game_pdn(_game_id(request))
        except (ValueError, LookupError):
            raise web.HTTPNotFound() from None
        return web.Response(
            text=text,
            content_type="application/x-chess-pdn",
            charset="utf-8",
            headers={"Content-Disposition": f'attachment; filename="damas-{request.match_info["game_id"]}.pdn"'},
        )

    app.add_routes(routes)

    async def on_startup(_app: web.Application) -> None:
        play.loop_task = asyncio.create_task(play.run_loop())

    async def on_shutdown(_app: web.Application) -> None:
        await viewers.close_all()  # an open page must not hold up the stop (systemd, Ctrl-C)

    async def on_cleanup(_app: web.Application) -> None:
        if play.loop_task is not None:
            play.loop_task.cancel()

    app.on_startup.append(on_startup)
    app.on_shutdown.append(on_shutdown)
    app.on_cleanup.append(on_cleanup)
    return app
