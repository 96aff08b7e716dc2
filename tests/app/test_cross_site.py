"""Another site's page in the same browser must not play on the board: cross-site requests,
DNS rebinding and foreign WebSockets are refused, the board's own page still works."""

from __future__ import annotations

import base64
import http.client
import http.server
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from damas.records.store import Store
from damas.serve import _loopback
from tests.app.server import Server


def request(
    server: Server, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    """A raw request, headers exactly as given (http.client adds Host only when none is given)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        hdrs = dict(headers or {})
        conn.putrequest(method, path, skip_host="Host" in hdrs, skip_accept_encoding=True)
        for k, v in hdrs.items():
            conn.putheader(k, v)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        r = conn.getresponse()
        data = r.read().decode()
        try:
            return r.status, json.loads(data)
        except json.JSONDecodeError:
            return r.status, data
    finally:
        conn.close()


def ws_handshake(port: int, headers: dict[str, str]) -> str:
    """The status line the server answers a WebSocket handshake with."""
    key = base64.b64encode(os.urandom(16)).decode()
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            f"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\n{extra}\r\n".encode()
        )
        return sock.recv(4096).split(b"\r\n", 1)[0].decode()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path / "g.sqlite3").start()
    try:
        yield s
    finally:
        s.stop()


def untouched(server: Server) -> None:
    """Nothing reached the game: no event journalled, game 1 still on, no result."""
    state = server.get("/api/state")
    assert (state["game"], state["result"], state["reports"]) == (1, "*", [])
    store = Store(server.db)
    try:
        assert store.journal_length(1) == 0
        assert [g.id for g in store.games()] == [1]
    finally:
        store.close()


def test_a_no_cors_resignation_from_another_site_is_refused(server: Server) -> None:
    """fetch(url, {method: 'POST', mode: 'no-cors', body: JSON}) sends text/plain and the page's Origin."""
    body = json.dumps({"action": "resign", "side": "white"}).encode()
    plain = {"Content-Type": "text/plain;charset=UTF-8"}
    status, answer = request(server, "POST", "/api/action", body, {**plain, "Origin": "http://evil.example"})
    assert status == 403 and "another site" in answer["error"] and "evil.example" in answer["error"]
    # without an Origin (an old browser, a privacy extension): the content type alone refuses it
    status, answer = request(server, "POST", "/api/action", body, plain)
    assert status == 415
    assert answer["error"] == "expected Content-Type: application/json, not 'text/plain;charset=UTF-8'"
    # JSON from another site (a preflight the server never answers; sent anyway by a script)
    status, _ = request(
        server, "POST", "/api/action", body, {"Content-Type": "application/json", "Origin": "https://evil.example"}
    )
    assert status == 403
    status, _ = request(server, "POST", "/api/action", body, {"Content-Type": "application/json", "Origin": "null"})
    assert status == 403  # a sandboxed frame or a file:// page
    untouched(server)


def test_form_posts_are_refused(server: Server) -> None:
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    status, answer = request(server, "POST", "/api/action", b"action=new-game", form)
    assert status == 415 and "application/x-www-form-urlencoded" in answer["error"]
    # <form enctype="text/plain"> with a field named '{"action":"new-game","x":"' gives a JSON body
    status, _ = request(server, "POST", "/api/action", b'{"action":"new-game","x":"="}', {"Content-Type": "text/plain"})
    assert status == 415
    for path, data in (("/api/sim", b'{"op":"lift","square":22}'), ("/api/games/1/tags", b'{"result":"1-0"}')):
        status, _ = request(server, "POST", path, data, {"Content-Type": "multipart/form-data; boundary=x"})
        assert status == 415
        status, _ = request(server, "POST", path, data)  # no content type at all
        assert status == 415
    untouched(server)


def test_a_foreign_host_name_is_refused(server: Server) -> None:
    """DNS rebinding: evil.example resolves to 127.0.0.1; its page reads and plays "same-origin"."""
    evil = f"evil.example:{server.port}"
    status, answer = request(server, "GET", "/api/state", headers={"Host": evil})
    assert status == 403 and evil in answer["error"] and f"http://127.0.0.1:{server.port}/" in answer["error"]
    status, _ = request(server, "GET", "/", headers={"Host": evil})
    assert status == 403
    status, _ = request(server, "GET", "/live.pdn", headers={"Host": evil})
    assert status == 403
    body = json.dumps({"action": "resign", "side": "black"}).encode()
    js = {"Content-Type": "application/json"}
    for hdrs in ({"Host": evil}, {"Host": evil, "Origin": f"http://{evil}"}, {"Host": f"127.0.0.1:{server.port + 1}"}):
        status, _ = request(server, "POST", "/api/action", body, {**js, **hdrs})
        assert status == 403, hdrs
    assert ws_handshake(server.port, {"Host": evil}).startswith("HTTP/1.1 403")
    untouched(server)
    # the names of this machine's loopback address are served, with or without an Origin
    for name in ("127.0.0.1", "localhost", "[::1]"):
        status, state = request(server, "GET", "/api/state", headers={"Host": f"{name}:{server.port}"})
        assert status == 200 and state["game"] == 1, name
    own = {**js, "Host": f"localhost:{server.port}", "Origin": f"http://localhost:{server.port}"}
    status, answer = request(server, "POST", "/api/action", json.dumps({"action": "draw"}).encode(), own)
    assert status == 200 and answer["ok"]


def test_a_websocket_from_another_site_is_refused(server: Server) -> None:
    host = f"127.0.0.1:{server.port}"
    assert ws_handshake(server.port, {"Host": host, "Origin": "http://evil.example"}).startswith("HTTP/1.1 403")
    assert ws_handshake(server.port, {"Host": host, "Origin": f"http://127.0.0.1:{server.port + 1}"}).startswith(
        "HTTP/1.1 403"
    )
    # the board's own page, and clients that send no Origin (scripts, relays), may watch
    assert ws_handshake(server.port, {"Host": host, "Origin": f"http://{host}"}).startswith("HTTP/1.1 101")
    assert ws_handshake(server.port, {"Host": host}).startswith("HTTP/1.1 101")


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", True),
        ("127.1", True),
        ("127.0.0.2", True),
        ("0x7f.1", True),
        ("2130706433", True),
        ("::1", True),
        ("::ffff:127.0.0.1", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("127.0.0.1.nip.io", False),
        ("127.0.0.1 x", False),
    ],
)
def test_loopback_addresses(host: str, expected: bool) -> None:
    assert _loopback(host) is expected


def test_host_127_1_is_loopback_and_its_names_are_served(tmp_path: Path) -> None:
    """``--host 127.1`` used to be taken for a network address; it is 127.0.0.1."""
    server = Server(tmp_path / "g.sqlite3", "--host", "127.1").start()
    try:
        assert not server.get("/api/state")["token_required"]
        for name in ("127.1", "127.0.0.1", "localhost"):  # as typed; as a browser shows it
            status, _ = request(server, "GET", "/api/state", headers={"Host": f"{name}:{server.port}"})
            assert status == 200, name
        status, _ = request(server, "GET", "/api/state", headers={"Host": f"evil.example:{server.port}"})
        assert status == 403
        assert server.post("/api/sim", {"op": "lift", "square": 22})["ok"]  # no token needed
    finally:
        out = server.stop()
    assert f"http://127.1:{server.port}/" in out and "token" not in out


def test_the_token_mode_checks_origin_and_content_type(tmp_path: Path) -> None:
    """Beyond the loopback interface any name reaches the board (a tablet uses the Pi's IP or
    its .local name) and the token guards the changes; another site's page is refused anyway."""
    server = Server(tmp_path / "g.sqlite3", "--host", "0.0.0.0").start()
    try:
        assert server.proc is not None and server.proc.stdout is not None
        token = server.proc.stdout.readline().split("need the token ")[1].split()[0]
        host = f"raspberrypi.local:{server.port}"
        status, _ = request(server, "GET", "/api/state", headers={"Host": host})
        assert status == 200
        body = json.dumps({"action": "draw"}).encode()
        ok = {"Host": host, "Content-Type": "application/json", "X-Damas-Token": token}
        status, _ = request(server, "POST", "/api/action", body, {**ok, "Origin": "http://evil.example"})
        assert status == 403
        status, _ = request(server, "POST", "/api/action", body, {**ok, "Content-Type": "text/plain"})
        assert status == 415
        status, answer = request(server, "POST", "/api/action", body, {**ok, "Origin": f"http://{host}"})
        assert status == 200 and answer["ok"]
    finally:
        server.stop()


EVIL_PAGE = "<!doctype html><title>cute kittens</title><iframe name=sink></iframe>"


def test_another_sites_page_in_chromium_cannot_play(page: Any, tmp_path: Path) -> None:
    """The attacks as a browser makes them: a page served from another origin (a different port)
    resigns with a no-cors fetch, starts a new game with a text/plain form whose body is JSON,
    and opens the live WebSocket."""
    server = Server(tmp_path / "g.sqlite3").start()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            data = EVIL_PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: Any) -> None:
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
        target = server.url
        outcome = page.evaluate(
            """async (target) => {
                const out = {};
                try {
                    await fetch(target + "/api/action", {method: "POST", mode: "no-cors",
                        body: JSON.stringify({action: "resign", side: "white"})});
                    out.fetch = "sent";
                } catch (e) { out.fetch = String(e); }
                const form = document.createElement("form");
                form.method = "POST"; form.action = target + "/api/action";
                form.enctype = "text/plain"; form.target = "sink";
                const field = document.createElement("input");
                field.name = '{"action":"new-game","x":"'; field.value = '"}';
                form.appendChild(field); document.body.appendChild(form);
                const loaded = new Promise((ok) => document.querySelector("iframe").onload = ok);
                form.submit();
                await loaded;
                out.ws = await new Promise((ok) => {
                    const ws = new WebSocket(target.replace("http", "ws") + "/ws");
                    ws.onmessage = () => ok("got the state");
                    ws.onerror = () => ok("refused");
                    setTimeout(() => ok("timeout"), 5000);
                });
                return out;
            }""",
            target,
        )
        assert outcome == {"fetch": "sent", "ws": "refused"}
        time.sleep(0.3)  # the board loop has had its turn
        untouched(server)
    finally:
        evil.shutdown()
        evil.server_close()
        server.stop()
