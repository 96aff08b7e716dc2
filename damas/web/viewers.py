"""The pages watching the live board: each WebSocket gets the newest state, never a queue.

The board loop and the HTTP handlers only *hand* a state to each viewer (``push``): that is a
slot per viewer holding the latest state, replaced when a newer one comes before the old one
went out (a slow page skips states, it never sees an old one). One sender task per viewer
writes its slot to its socket. A viewer that does not take a state within ``SEND_TIMEOUT``
seconds, or whose connection holds more than ``MAX_BUFFERED`` unsent bytes, is disconnected:
watching is open to anyone, and nobody who stops reading may hold up the board. The kernel's
send buffer of each viewer's socket is bounded too (``SEND_BUFFER``; the default grows to
4 MB), so that a page that stopped reading is found within a few dozen states and 200 pages
cannot pin hundreds of megabytes of a Raspberry Pi's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Callable, Iterator

from aiohttp import WSCloseCode, web

log = logging.getLogger(__name__)

SEND_TIMEOUT = 5.0  # seconds a viewer may take to accept one state
MAX_BUFFERED = 1 << 20  # bytes waiting in a viewer's connection
SEND_BUFFER = 128 << 10  # bytes of kernel send buffer per viewer (Linux doubles it)
CLOSE_TIMEOUT = 1.0  # seconds a viewer gets to answer the closing handshake when the server stops


class Viewer:
    """One page: its language, the state waiting for it, the task that sends it."""

    def __init__(self, sock: web.WebSocketResponse, lang: str, transport: asyncio.Transport | None, peer: str) -> None:
        self.sock = sock
        self.lang = lang
        self.transport = transport
        self.peer = peer
        self.pending: str | None = None
        self._wake = asyncio.Event()
        self.task = asyncio.create_task(self._send_loop())

    def push(self, text: str) -> None:
        """Replace the state waiting for this viewer; returns at once."""
        self.pending = text
        self._wake.set()

    async def _send_loop(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            text, self.pending = self.pending, None
            if text is None:
                continue
            if self.transport is not None and self.transport.get_write_buffer_size() > MAX_BUFFERED:
                self.drop(f"more than {MAX_BUFFERED >> 10} KiB unread")
                return
            try:
                async with asyncio.timeout(SEND_TIMEOUT):  # (not wait_for: no task per state)
                    await self.sock.send_str(text)
            except TimeoutError:
                self.drop(f"did not take a state within {SEND_TIMEOUT:g} s")
                return
            except (ConnectionError, RuntimeError):  # the page went away: its handler removes it
                return

    def drop(self, why: str) -> None:
        """Cut a viewer that fell behind (abort: its unread bytes are discarded, not flushed)."""
        log.warning("disconnected the viewer at %s: %s", self.peer, why)
        if self.transport is not None:
            self.transport.abort()

    async def close(self, code: int, message: bytes) -> None:
        """The closing handshake, within ``CLOSE_TIMEOUT``; a page that has not taken what it
        was sent (its close frame would wait behind it) or does not answer is cut at once.
        Never raises: the stop must go on whatever one page does."""
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task  # (its write, cancelled, cancels the write waiter it shares with the close)
        if self.transport is not None and self.transport.get_write_buffer_size() > 0:
            self.transport.abort()
            return
        closed = False
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await self.sock.close(code=code, message=message)
            closed = True
        except (TimeoutError, ConnectionError, RuntimeError):
            pass
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # this stop itself is cancelled
        finally:
            if not closed and self.transport is not None:  # a page that does not answer: its bytes are dropped
                self.transport.abort()


class Viewers:
    """Every page watching, by socket."""

    def __init__(self) -> None:
        self._all: dict[web.WebSocketResponse, Viewer] = {}

    def add(self, request: web.Request, sock: web.WebSocketResponse, lang: str) -> Viewer:
        transport = request.transport
        peer = request.remote or "?"
        raw = transport.get_extra_info("socket") if transport is not None else None
        if raw is not None:
            with contextlib.suppress(OSError):
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        viewer = Viewer(sock, lang, transport if isinstance(transport, asyncio.Transport) else None, peer)
        self._all[sock] = viewer
        return viewer

    def remove(self, sock: web.WebSocketResponse) -> None:
        viewer = self._all.pop(sock, None)
        if viewer is not None:
            viewer.task.cancel()

    def __iter__(self) -> Iterator[Viewer]:
        return iter(list(self._all.values()))

    def push(self, text_for: Callable[[str], str]) -> None:
        """Hand every viewer the state in its language (``text_for(lang)``); never waits."""
        for viewer in self:
            viewer.push(text_for(viewer.lang))

    async def close_all(self) -> None:
        """The server is stopping: every page is told so (GOING_AWAY), none may hold it up."""
        viewers = list(self._all.values())
        self._all.clear()
        with contextlib.suppress(Exception):
            await asyncio.gather(
                *(v.close(WSCloseCode.GOING_AWAY, b"damas is stopping") for v in viewers), return_exceptions=True
            )
