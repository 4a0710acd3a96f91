"""Requests from this machine's own pages only: a guard in front of the web app (pure ASGI).

A page on another site can make the browser send requests to ``127.0.0.1`` too. Two checks keep
them out:

* the ``Host`` header must name one of the server's own names (``127.0.0.1``, ``localhost``,
  ``[::1]`` and the ``--host`` given), which defeats DNS rebinding (an attacker's name resolved
  to this machine): else 400;
* a form post that carries an ``Origin`` header must come from the same origin as the page
  (scheme, host and port): else 403, and nothing is done. Browsers send ``Origin`` with every
  cross-site post, so another site cannot start games or make moves.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse

#: The names of this machine a local server answers to.
LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")


def host_name(host: str) -> str:
    """``host`` without its port (``[::1]:8000`` -> ``[::1]``), lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class LocalGuard:
    """The ASGI app ``app`` behind the two checks; ``hosts`` ``None``: any Host (a server for a network)."""

    def __init__(self, app: Any, hosts: Iterable[str] | None = LOCAL_NAMES) -> None:
        self.app = app
        self.hosts = None if hosts is None else {host_name(h) for h in hosts}

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = Headers(scope=scope)
            host = headers.get("host", "")
            if self.hosts is not None and host_name(host) not in self.hosts:
                answer = PlainTextResponse(f"400 unexpected Host header {host[:80]!r}", status_code=400)
                return await answer(scope, receive, send)
            origin = headers.get("origin")
            if scope["method"] not in ("GET", "HEAD") and origin is not None:
                parts = urlsplit(origin)
                if origin == "null" or parts.netloc.lower() != host.lower():
                    answer = PlainTextResponse("403 a form from another site is refused", status_code=403)
                    return await answer(scope, receive, send)
        await self.app(scope, receive, send)
