"""The hall's web server (aiohttp).

Watching is open:

* ``GET /`` the hall page: every board as a small live board (players, clocks, result), the
  arbiter's alerts, the round's pairings; ``GET /board/{id}`` one board's live view;
* ``GET /api/state?since=V`` the page's state as JSON; with ``since`` it waits (up to 25 s) until
  the state is newer than version V (the page's long poll); ``&delta=BOOT`` (the ``boot`` of the
  page's last state): only the boards and sections that changed since V (``delta``: V,
  ``board_ids``: every board in order; a board's ``moves`` null but for ``&moves=ID``, the board
  the page shows whole; a board whose clock only ran on is not sent again: its faces count down
  from when the page got it); gzip-compressed when the client accepts it;
* ``GET /live.pdn`` every game of the current round (what broadcast relays poll),
  ``GET /round/{n}.pdn`` a round's games, ``GET /games/{board}-{game}.pdn`` one game;
* ``GET /live/{i}.pdn`` table i's game of the current round (lidraughts broadcast's per-board
  source: ``<url><i>.pdn`` with the url ``/live/``);
* printable pages (A4): ``GET /pairings/{n}``, ``GET /standings``, ``GET /crosstable``,
  ``GET /games/{board}-{game}/sheet``, ``GET /pairings/{n}/sheets`` (a round's blank score sheets,
  before its games exist);
* exports: ``GET /tournament.trf`` (FIDE TRF-2026, ``hall.trf``), ``GET /standings.csv`` and
  ``.json``, ``GET /pairings/{n}.csv`` and ``.json``, ``GET /crosstable.csv`` and ``.json``;
* ``GET /api/lang`` the page's words: ``{"lang", "languages": [[code, name]...], "ui": {key: text}}``.

Pages and words are in Brazilian Portuguese, European Portuguese or English (``wording.hall``):
``?lang=`` (the page's selector), else ``damas hall --lang``, else the browser's Accept-Language.

Actions need the hall's token (header ``X-Hall-Token`` or ``?token=``; the page keeps the one
in its address), with a JSON body: ``POST /api/players`` ``{"name", "rating", "club"}`` or
``{"csv": "..."}``; ``POST /api/pair`` ``{"boards": ["1", "2", ...]}`` (optional: the board ids
for tables 1, 2, ...); ``POST /api/result`` ``{"round", "table", "result"}`` (2-0, 1-1, 0-2;
+/- -/+ -/- for a W.O.); ``POST /api/confirm`` and ``POST /api/swap`` ``{"round", "table"}``;
``POST /api/settings`` ``{"rounds", "tiebreak", "auto_confirm", "event", "boards", "language"}``;
``POST /api/player`` ``{"id", "name", "rating", "club", "withdrawn"}`` (any of them: a player
corrected; ``withdrawn`` the first round they sit out, true for the next, null: back in);
``POST /api/bye`` ``{"player", "round", "result"}`` (a bye asked for a round not yet paired: H
worth a draw, Z worth nothing, null taken back); ``POST /api/unpair`` ``{"round"}`` (the last
round's pairing taken back, before any of its games began, to pair it again);
``POST /api/resync`` ``{"board", "game"}`` (game optional: the board's recent games) asks a board
for its games again, its answer replacing the hall's copy; ``POST /api/dismiss`` ``{"board",
"kind"}`` (kind optional) clears the board's reported trouble.
A bad request is a 400 with ``{"error": "..."}``.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import hmac
import html
import io
import json
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import web

from hall.app import Hall
from hall.tournament import TournamentError, cell_text
from rules import find_variant
from rules.pdn import PdnGame, write_pdn
from wording import LANGUAGES, NATIVE, language, pick_language
from wording.hall import UI, text

STATIC = Path(__file__).with_name("static")
HALL = web.AppKey("hall", Hall)
CLOSING = web.AppKey("closing", asyncio.Event)  # set on shutdown: no long poll waits any more
WAIT = 25.0  # seconds a long poll waits for a change
PACE = 0.1  # seconds: under load, a new state at most this often (every page shares each one)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _error(status: int, text: str) -> web.Response:
    return web.json_response({"error": text}, status=status)


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.method == "POST":
        hall = request.app[HALL]
        given = request.headers.get("X-Hall-Token") or request.query.get("token") or ""
        if not hmac.compare_digest(given.encode(), hall.token.encode()):
            return _error(403, text(lang_of(request) if "lang" in request.query else "en", "err_token"))
        if request.content_type != "application/json":
            return _error(415, "send JSON (Content-Type: application/json)")
    try:
        return await handler(request)
    except TournamentError as exc:  # (in the page's language when it asked for one: ?lang=)
        return _error(400, exc.text(lang_of(request)) if "lang" in request.query else str(exc))
    except ValueError as exc:
        return _error(400, str(exc))
    except LookupError as exc:
        return _error(404, str(exc))


def build_app(hall: Hall) -> web.Application:
    app = web.Application(middlewares=[_guard], client_max_size=1 << 20)
    app[HALL] = hall
    app[CLOSING] = asyncio.Event()
    app.on_shutdown.append(_wake_polls)
    r = app.router
    r.add_get("/", _page)
    r.add_get("/board/{board}", _page)
    r.add_get("/api/state", _state)
    r.add_get("/api/lang", _lang)
    r.add_get("/live.pdn", _live)
    r.add_get(r"/live/{i:\d+}.pdn", _live_table)
    r.add_get("/tournament.trf", _trf)
    r.add_get("/standings.{ext:csv|json}", _standings_data)
    r.add_get("/crosstable.{ext:csv|json}", _crosstable_data)
    r.add_get("/crosstable", _crosstable_page)
    r.add_get(r"/pairings/{n:\d+}.{ext:csv|json}", _pairings_data)
    r.add_get(r"/pairings/{n:\d+}/sheets", _blank_sheets)
    r.add_get("/round/{n}.pdn", _round_pdn)
    r.add_get("/games/{key}.pdn", _game_pdn)
    r.add_get("/games/{key}/sheet", _sheet)
    r.add_get("/pairings/{n}", _pairings_page)
    r.add_get("/standings", _standings_page)
    r.add_post("/api/players", _players)
    r.add_post("/api/pair", _pair)
    r.add_post("/api/result", _result)
    r.add_post("/api/confirm", _confirm)
    r.add_post("/api/swap", _swap)
    r.add_post("/api/settings", _settings)
    r.add_post("/api/player", _player)
    r.add_post("/api/bye", _bye)
    r.add_post("/api/unpair", _unpair)
    r.add_post("/api/resync", _resync)
    r.add_post("/api/dismiss", _dismiss)
    r.add_static("/static/", STATIC)
    return app


async def _wake_polls(app: web.Application) -> None:
    """On shutdown (SIGTERM), answer the pages' long polls now: the server waits for every
    request in flight, and a poll would hold the hall's exit up to ``WAIT`` seconds."""
    app[CLOSING].set()
    app[HALL].bump()


async def _page(_request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "hall.html", headers={"Cache-Control": "no-cache"})


async def _state(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    since = request.query.get("since")
    if since is not None and since.isdigit() and int(since) >= hall.version and not request.app[CLOSING].is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(hall.changed.wait(), WAIT)
        wait = hall.built + PACE - time.monotonic()
        if wait > 0:  # many changes a second: gather them into one state
            await asyncio.sleep(wait)
    gz = "gzip" in request.headers.get("Accept-Encoding", "")
    version = int(since) if since and since.isdigit() else None
    body = hall.state_answer(version, request.query.get("delta"), gzip=gz, moves=request.query.get("moves"))
    headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding"}
    if gz:
        headers["Content-Encoding"] = "gzip"
    return web.Response(body=body, content_type="application/json", headers=headers)


def lang_of(request: web.Request) -> str:
    """The page's choice (``?lang=``), else the hall's (``--lang``), else the browser's."""
    asked = language(request.query.get("lang"))
    return pick_language(asked or request.app[HALL].language, request.headers.get("Accept-Language"))


async def _lang(request: web.Request) -> web.Response:
    lang = lang_of(request)
    return web.json_response(
        {"lang": lang, "languages": [[c, NATIVE[c]] for c in LANGUAGES], "ui": UI[lang]},
        headers={"Cache-Control": "no-cache"},
    )


def _pdn(text: str) -> web.Response:
    return web.Response(text=text, content_type="application/x-chess-pdn", headers={"Cache-Control": "no-cache"})


async def _live(request: web.Request) -> web.Response:
    return _pdn(request.app[HALL].live_pdn())


async def _round_pdn(request: web.Request) -> web.Response:
    n = request.match_info["n"]
    if not n.isdigit():
        raise LookupError(f"no round {n[:20]!r}")
    return _pdn(write_pdn([g.pdn_game() for g in request.app[HALL].round_games(int(n))]))


async def _game_pdn(request: web.Request) -> web.Response:
    return _pdn(request.app[HALL].find(request.match_info["key"]).pdn())


async def _live_table(request: web.Request) -> web.Response:
    """Table i's game of the current round (before it starts: its tags, no move yet)."""
    hall = request.app[HALL]
    i, r = int(request.match_info["i"]), hall.current_round()
    p = next((p for p in hall.store.pairings() if p.round == r and p.table == i and p.black is not None), None)
    if p is None:
        raise LookupError(f"round {r} has no game at table {i}")
    g = hall.game_for(p)
    if g is not None:
        return _pdn(g.pdn())
    names = {pl.id: pl.name for pl in hall.store.players()}
    tags = {"Event": hall.event or "?", "Round": str(r), "White": names.get(p.white, "?"),
            "Black": names.get(p.black or 0, "?"), "Result": "*"}  # fmt: skip
    return _pdn(PdnGame(find_variant("brazilian"), tags).pdn())


def _download(text: str, name: str, content_type: str) -> web.Response:
    return web.Response(
        text=text,
        content_type=content_type,
        headers={"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-cache"},
    )


def _csv(rows: list[list[Any]], name: str) -> web.Response:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return _download(buf.getvalue(), name, "text/csv")


def _jsonfile(data: Any, name: str) -> web.Response:
    return _download(json.dumps(data, ensure_ascii=False, indent=1), name, "application/json")


async def _trf(request: web.Request) -> web.Response:
    return _download(request.app[HALL].trf(), "tournament.trf", "text/plain")


async def _standings_data(request: web.Request) -> web.Response:
    rows = request.app[HALL].table()
    if request.match_info["ext"] == "json":
        return _jsonfile(rows, "standings.json")
    keys = ["rank", "id", "name", "club", "rating", "games", "points", "tiebreak", "withdrawn"]
    return _csv([keys, *[[r[k] if r[k] is not None else "" for k in keys] for r in rows]], "standings.csv")


async def _crosstable_data(request: web.Request) -> web.Response:
    rows = request.app[HALL].crosstable()
    if request.match_info["ext"] == "json":
        return _jsonfile(rows, "crosstable.json")
    last = len(rows[0]["rounds"]) if rows else 0
    head = ["line", "rank", "name", "club", "rating", *[f"R{r}" for r in range(1, last + 1)], "points", "tiebreak"]
    body = [[x["line"], x["rank"], x["name"], x["club"], x["rating"], *[cell_text(c) for c in x["rounds"]],
             x["points"], x["tiebreak"]] for x in rows]  # fmt: skip
    return _csv([head, *body], "crosstable.csv")


def _round_rows(request: web.Request) -> tuple[int, list[dict[str, Any]]]:
    hall = request.app[HALL]
    r = int(request.match_info["n"])
    rows = hall.pairings_of(r)
    if not rows:
        raise LookupError(f"round {r} is not paired")
    return r, rows


async def _pairings_data(request: web.Request) -> web.Response:
    r, rows = _round_rows(request)
    if request.match_info["ext"] == "json":
        return _jsonfile(rows, f"pairings-{r}.json")
    keys = ["round", "table", "board", "white", "black", "result", "confirmed"]
    return _csv([keys, *[[x[k] if x[k] is not None else "" for k in keys] for x in rows]], f"pairings-{r}.csv")


async def _json(request: web.Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise ValueError("the body is not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("the body must be a JSON object")
    return data


def _int(data: dict[str, Any], key: str) -> int:
    v = data.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise ValueError(f"{key} must be a number, not {str(v)[:20]!r}")
    return v


async def _players(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    data = await _json(request)
    if "csv" in data:
        added = hall.import_csv(str(data["csv"]))
    else:
        name = str(data.get("name") or "").strip()
        if not name:
            raise TournamentError.of("err_player_name")
        rating = data.get("rating") or 0
        if not isinstance(rating, int):
            raise TournamentError.of("err_player_rating", value=str(rating)[:20])
        added = [hall.store.add_player(name[:100], rating, str(data.get("club") or "")[:100])]
        hall.bump()
    return web.json_response({"added": [{"id": p.id, "name": p.name} for p in added]})


async def _pair(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    data = await _json(request)
    boards = data.get("boards")
    if boards is not None and not (isinstance(boards, list) and all(isinstance(b, str | int) for b in boards)):
        raise ValueError("boards must be a list of board ids")
    new = await hall.pair_next_async([str(b) for b in boards] if boards else None)
    return web.json_response({"round": new[0].round if new else 0, "tables": len(new)})


async def _result(request: web.Request) -> web.Response:
    data = await _json(request)
    p = request.app[HALL].set_result(_int(data, "round"), _int(data, "table"), str(data.get("result") or ""))
    return web.json_response({"round": p.round, "table": p.table, "result": p.result})


async def _confirm(request: web.Request) -> web.Response:
    data = await _json(request)
    p = request.app[HALL].confirm(_int(data, "round"), _int(data, "table"))
    return web.json_response({"round": p.round, "table": p.table, "result": p.result})


async def _swap(request: web.Request) -> web.Response:
    data = await _json(request)
    p = request.app[HALL].swap_colours(_int(data, "round"), _int(data, "table"))
    return web.json_response({"round": p.round, "table": p.table, "white": p.white, "black": p.black})


async def _settings(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    data = await _json(request)
    if "boards" in data:
        boards = data.pop("boards")
        if not isinstance(boards, list):
            raise ValueError("boards must be a list of board ids")
        hall.store.set("boards", ",".join(str(b) for b in boards))
    hall.settings(data)
    return web.json_response({"ok": True})


async def _player(request: web.Request) -> web.Response:
    data = await _json(request)
    pl = request.app[HALL].edit_player(_int(data, "id"), {k: v for k, v in data.items() if k != "id"})
    return web.json_response({"id": pl.id, "name": pl.name, "rating": pl.rating, "club": pl.club,
                              "withdrawn": pl.withdrawn})  # fmt: skip


async def _bye(request: web.Request) -> web.Response:
    data = await _json(request)
    result = data.get("result")
    request.app[HALL].request_bye(_int(data, "player"), _int(data, "round"), None if result is None else str(result))
    return web.json_response({"ok": True})


async def _unpair(request: web.Request) -> web.Response:
    data = await _json(request)
    request.app[HALL].unpair(_int(data, "round"))
    return web.json_response({"ok": True})


async def _resync(request: web.Request) -> web.Response:
    """The arbiter asks a board for its games again: what it sends replaces the hall's copy."""
    hall = request.app[HALL]
    data = await _json(request)
    board = str(data.get("board") or "")
    if board not in hall.board_ids():
        raise LookupError(f"no board {board[:40]!r}")
    game = _int(data, "game") if data.get("game") is not None else None
    return web.json_response({"board": board, "games": hall.resync(board, game)})


async def _dismiss(request: web.Request) -> web.Response:
    """The arbiter has seen a board's reported trouble (``kind``: one kind, else all of them)."""
    data = await _json(request)
    kind = data.get("kind")
    gone = request.app[HALL].dismiss(str(data.get("board") or ""), None if kind is None else str(kind))
    return web.json_response({"dismissed": gone})


# -- printable pages ------------------------------------------------------------------------------
def _html(lang: str, title: str, body: str) -> web.Response:
    t = UI[lang]
    page = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title>"
        '<link rel="stylesheet" href="/static/print.css"></head><body>'
        f'<p class="noprint"><a href="/?lang={lang}">{_esc(t["back"])}</a> · '
        f'<a href="javascript:print()">{_esc(t["print"])}</a></p>'
        f"{body}</body></html>"
    )
    return web.Response(text=page, content_type="text/html", headers={"Content-Language": lang})


def _esc(v: object) -> str:
    return html.escape(str(v))


async def _pairings_page(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    n = request.match_info["n"]
    if not n.isdigit():
        raise LookupError(f"no round {n[:20]!r}")
    r = int(n)
    lang = lang_of(request)
    t = UI[lang]
    names = {p.id: p.name for p in hall.store.players()}
    rows = []
    for p in hall.store.pairings():
        if p.round != r:
            continue
        if p.black is None:
            black, result = (t[f"bye_requested_{p.result}"], "") if p.requested else (t["bye_point"], "")
        else:
            black = names.get(p.black, "?")
            result = "" if p.result is None else p.result + ("" if p.confirmed else " " + t["to_confirm"])
        rows.append(
            f"<tr><td>{p.table}</td><td>{_esc(p.board or '')}</td><td>{_esc(names.get(p.white, '?'))}</td>"
            f"<td>{_esc(black)}</td><td>{_esc(result)}</td></tr>"
        )
    if not rows:
        raise LookupError(f"round {r} is not paired")
    title = text(lang, "pairings_title", event=hall.event or t["tournament"], round=r, rounds=hall.planned)
    head = "".join(f"<th>{_esc(t[k])}</th>" for k in ("table", "board_col", "white", "black", "result"))
    note = t[f"colours_note_{hall.colours}"]
    body = (
        f"<h1>{_esc(title)}</h1><table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
        f'<p class="note">{_esc(note)}</p><p class="noprint"><a href="/pairings/{r}/sheets?lang={lang}">'
        f"{_esc(t['sheets_link'])}</a> · "
        f'<a href="/pairings/{r}.csv">CSV</a> · <a href="/pairings/{r}.json">JSON</a></p>'
    )
    return _html(lang, title, body)


async def _crosstable_page(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    lang = lang_of(request)
    t = UI[lang]
    rows = hall.crosstable()
    last = len(rows[0]["rounds"]) if rows else 0
    head = "".join(f"<th>{_esc(x)}</th>" for x in ["#", t["player"], t["rating_col"],
                   *[f"R{r}" for r in range(1, last + 1)], t["points"], t["dip"]])  # fmt: skip
    body_rows = "".join(
        f"<tr><td>{x['line']}</td><td>{_esc(x['name'])}{' (' + _esc(t['withdrawn']) + ')' if x['withdrawn'] else ''}"
        f"</td><td>{x['rating'] or ''}</td>{''.join(f'<td>{_esc(cell_text(c))}</td>' for c in x['rounds'])}"
        f"<td>{x['points']}</td><td>{x['tiebreak']}</td></tr>"
        for x in rows
    )
    title = text(lang, "crosstable_title", event=hall.event or t["tournament"], round=hall.current_round(),
                 rounds=hall.planned)  # fmt: skip
    body = (
        f"<h1>{_esc(title)}</h1><table><thead><tr>{head}</tr></thead><tbody>{body_rows}</tbody></table>"
        '<p class="noprint"><a href="/crosstable.csv">CSV</a> · <a href="/crosstable.json">JSON</a> · '
        '<a href="/tournament.trf">TRF</a></p>'
    )
    return _html(lang, title, body)


async def _blank_sheets(request: web.Request) -> web.Response:
    """A round's score sheets, one a page, before its games exist: names, table, board, empty lines."""
    hall = request.app[HALL]
    r = int(request.match_info["n"])
    lang = lang_of(request)
    names = {pl.id: pl.name for pl in hall.store.players()}
    pages = []
    for p in hall.store.pairings():
        if p.round == r and p.black is not None:
            white, black = names.get(p.white, "?"), names.get(p.black, "?")
            line = text(lang, "sheet_line", event=hall.event, round=r, board=p.board or p.table, date="")
            pages.append(_sheet_body(lang, white, black, line, [""] * 100, ""))
    if not pages:
        raise LookupError(f"round {r} has no game")
    title = text(lang, "pairings_title", event=hall.event or UI[lang]["tournament"], round=r, rounds=hall.planned)
    return _html(lang, title, "".join(pages))


async def _standings_page(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    lang = lang_of(request)
    t = UI[lang]
    reading = t["literal"] if hall.reading == "literal" else t["progressive"]
    rows = "".join(
        f"<tr><td>{s['rank']}</td><td>{_esc(s['name'])}</td><td>{_esc(s['club'])}</td><td>{s['rating'] or ''}</td>"
        f"<td>{s['games']}</td><td>{s['points']}</td><td>{s['tiebreak']}</td></tr>"
        for s in hall.table()
    )
    title = text(
        lang, "standings_title", event=hall.event or t["tournament"], round=hall.current_round(), rounds=hall.planned
    )
    cols = ("rank", "player", "club_col", "rating_col", "rounds_col", "points", "dip")
    head = "".join(f"<th>{_esc(t[k])}</th>" for k in cols)
    note = text(lang, "standings_note", reading=reading, half=hall.planned // 2)
    body = (
        f"<h1>{_esc(title)}</h1><table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        f'<p class="note">{_esc(note)}</p>'
    )
    return _html(lang, title, body)


async def _sheet(request: web.Request) -> web.Response:
    hall = request.app[HALL]
    g = hall.find(request.match_info["key"])
    moves = [t for k, _w, _c, t in g.steps if k == "move"]
    white_first = g.start is None or g.start.turn.value == "white"
    if not white_first:
        moves = ["…", *moves]
    tags = g.tags
    lang = lang_of(request)
    title = text(lang, "sheet_title", white=tags.get("White", "?"), black=tags.get("Black", "?"))
    line = text(lang, "sheet_line", event=tags.get("Event", hall.event), round=tags.get("Round", "?"), board=g.board,
                date=tags.get("Date", ""))  # fmt: skip
    return _html(lang, title, _sheet_body(lang, tags.get("White", "?"), tags.get("Black", "?"), line, moves, g.result))


def _sheet_body(lang: str, white: str, black: str, line: str, moves: list[str], result: str) -> str:
    """One score sheet: the players, the event's line, two moves a row, the result, signatures."""
    t = UI[lang]
    rows = "".join(
        f"<tr><td>{i // 2 + 1}</td><td>{_esc(moves[i])}</td>"
        f"<td>{_esc(moves[i + 1]) if i + 1 < len(moves) else ''}</td></tr>"
        for i in range(0, len(moves), 2)
    )
    title = text(lang, "sheet_title", white=white, black=black)
    return (
        f'<section class="page"><h1>{_esc(title)}</h1><p>{_esc(line)}</p>'
        f'<table class="sheet"><thead><tr><th>#</th><th>{_esc(t["white"])}</th><th>{_esc(t["black"])}</th></tr>'
        f"</thead><tbody>{rows}</tbody></table>"
        f"<p>{_esc(t['result_is'])} <b>{_esc(result)}</b></p>"
        f'<p class="signatures"><span>{_esc(t["sign_white"])}</span><span>{_esc(t["sign_black"])}</span>'
        f"<span>{_esc(t['sign_arbiter'])}</span></p></section>"
    )
