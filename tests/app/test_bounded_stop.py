"""Issue 33.4 and 33.6: nobody on the network can hold the program up. SIGTERM stops
``damas play`` within 5 s with any number of pages that stopped reading (one such page used
to keep it running past systemd's 90 s, until SIGKILL); connections held beyond the
open-file limit never take the descriptors the records need."""

from __future__ import annotations

import contextlib
import http.client
import json
import resource
import select
import socket
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from damas.records.store import Store
from damas.serve import FILES_KEPT
from tests.app.server import Server
from tests.app.test_viewers import NAMES, idle_viewer
from tests.conftest import wait_until


def pipelined(port: int, requests: int = 400) -> socket.socket:
    """A client that sends many requests at once and reads no answer (the server's writes stall)."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.sendall(f"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode() * requests)
    return sock


@contextlib.contextmanager
def held(sockets: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def test_sigterm_stops_within_5_s_with_any_number_of_stalled_pages(tmp_path: Path) -> None:
    server = Server(tmp_path / "g.sqlite3", *NAMES).start()
    with held([]) as stalled:
        try:
            stalled += [idle_viewer(server.port) for _ in range(25)]  # pages that never read (27 KB a state)
            stalled += [pipelined(server.port) for _ in range(3)]
            for i in range(12):  # states pile up in every page's connection
                server.post("/api/sim", {"op": "lift" if i % 2 == 0 else "place", "square": 22})
        finally:
            out = server.stop(timeout=5.0)  # SIGTERM at once, before any page is cut for being slow
    assert "damas: stopped" in out


def _api(conn: http.client.HTTPConnection, op: str, square: int) -> dict[str, object]:
    conn.request("POST", "/api/sim", json.dumps({"op": op, "square": square}), {"Content-Type": "application/json"})
    response = conn.getresponse()
    body: dict[str, object] = json.loads(response.read())
    assert response.status == 200, body
    return body


def test_connections_held_beyond_the_file_limit_never_pause_the_records(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1300:
        if hard != resource.RLIM_INFINITY and hard < 1300:
            pytest.fail(f"this test holds 1,100 connections: it needs an open-file limit of 1,300 (hard {hard})")
        resource.setrlimit(resource.RLIMIT_NOFILE, (1300, hard))
    db = tmp_path / "g.sqlite3"
    server = Server(db, open_files=1024).start()  # a system whose hard limit is the usual 1,024
    api = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)  # a page's connection, kept alive
    try:
        _api(api, "lift", 22)
        with held([]) as idle:
            for _ in range(1100):  # requests never finished (slow loris): each holds a descriptor
                sock = socket.create_connection(("127.0.0.1", server.port))
                sock.sendall(b"GET / HTTP/1.1\r\n")
                idle.append(sock)
            for op, square in (("place", 18), ("lift", 9), ("place", 13)):
                answer = _api(api, op, square)

            def state() -> dict[str, object]:
                api.request("GET", "/api/state")
                return json.loads(api.getresponse().read())  # type: ignore[no-any-return]

            wait_until(lambda: len(state()["moves"]) == 2, 10, "the two moves shown")  # type: ignore[arg-type]
            now = state()
            assert now["write_error"] is None, now["write_error"]
            assert [m["pdn"] for m in now["moves"]] == ["c3-d4", "b6-a5"]  # type: ignore[attr-defined]
            assert answer["journal"] == 4
            with Store(db) as store:
                assert store.journal_length(1) == 4
            # the flood over, the server holds no more descriptors than the cap (the records keep
            # theirs); connections are taken one by one up to it, and the next one is told so and
            # closed at once, not held
            assert server.proc is not None
            fds = Path(f"/proc/{server.proc.pid}/fd")

            def settled() -> int:
                """The server's open descriptors once unchanged for 0.2 s (refused connections of
                the flood may still be closing when it is first asked)."""
                last = [len(list(fds.iterdir())), time.monotonic()]

                def still() -> bool:
                    now = len(list(fds.iterdir()))
                    if now != last[0]:
                        last[:] = [now, time.monotonic()]
                    return time.monotonic() - last[1] >= 0.2

                wait_until(still, 30, "the server's descriptors settled")
                return int(last[0])

            def refused(sock: socket.socket) -> bool:
                poll = select.poll()  # (select.select takes no descriptor above 1,023)
                poll.register(sock, select.POLLIN)
                return bool(poll.poll(0))

            def taken(sock: socket.socket, before: int) -> bool:
                return refused(sock) or len(list(fds.iterdir())) > before

            cap = 1024 - FILES_KEPT
            held_now = settled()
            assert held_now <= cap, f"{held_now} descriptors open, more than the cap {cap}"
            for _ in range(cap - held_now + 1):
                sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
                sock.sendall(b"GET / HTTP/1.1\r\n")
                idle.append(sock)
                wait_until(partial(taken, sock, held_now), 10, "the connection held or refused")
                if refused(sock):
                    break
                held_now = settled()
            assert refused(sock), f"a connection held with {held_now} descriptors open (the cap is {cap})"
            assert sock.recv(100).startswith(b"HTTP/1.1 503")
            # (the program's count of its descriptors includes the one accepted and the listing's own)
            assert cap - 3 <= held_now <= cap, held_now
    finally:
        api.close()
        server.stop()
