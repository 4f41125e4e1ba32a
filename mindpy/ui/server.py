"""The dashboard's web server: uvicorn serving mindpy.ui.app on a thread of its own, next to whatever the process
runs (agents, an episode, an evaluation).

    dashboard = Dashboard(DashboardState(...), host="127.0.0.1", port=8765).start()
    print(dashboard.url)        # with a token when bound to another address than 127.0.0.1
    dashboard.stop()

It answers only requests addressed to its own address (and the names in `allowed_hosts`, such as the name of a
reverse proxy or an SSH tunnel's local port: "NAME" or "NAME:PORT"), from its own page (mindpy.ui.guard).
"""

from __future__ import annotations

import errno
import logging
import secrets
import socket
import threading
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..errors import MindpyError
from .guard import SiteRules, parse_allowed

if TYPE_CHECKING:
    from .app import DashboardState

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
START_TIMEOUT_S = 15.0


class DashboardError(MindpyError):
    """The dashboard could not start (port in use, address not available)."""


def needs_token(host: str) -> bool:
    """Whether a dashboard bound to `host` asks for a token: anything but this machine's loopback address."""
    return host not in LOCAL_HOSTS


class Dashboard:
    """The web server of one dashboard (see the module's docstring)."""

    def __init__(self, state: DashboardState, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
                 token: str | None = None, allowed_hosts: Iterable[str] = ()):
        self.state = state
        self.host = host
        self.token = token if token is not None else (secrets.token_urlsafe(16) if needs_token(host) else None)
        self.allowed_hosts = list(allowed_hosts)
        parse_allowed(self.allowed_hosts)  # a ConfigError before the port is taken
        self._socket = _bind(host, port)
        self.port = self._socket.getsockname()[1]
        self.site = SiteRules.for_address(host, self.port, self.allowed_hosts)
        self._server: Any = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        shown = f"[{self.host}]" if ":" in self.host else self.host
        if self.host in ("0.0.0.0", "::"):
            shown = socket.gethostname()
        return f"http://{shown}:{self.port}/" + (f"?token={self.token}" if self.token else "")

    def start(self) -> Dashboard:
        import uvicorn

        from .app import create_app  # the web libraries load only when a dashboard starts

        app = create_app(self.state, self.site, self.token)
        config = uvicorn.Config(app, log_level="warning", ws="websockets-sansio", lifespan="off", access_log=False)
        self._server = server = uvicorn.Server(config)
        self.state.feed.start()
        self._thread = threading.Thread(target=server.run, kwargs={"sockets": [self._socket]},
                                        name="dashboard-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise DashboardError(f"the dashboard on {self.host}:{self.port} did not start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.state.feed.close()
        if self.state.viewers is not None:
            self.state.viewers.close()
        for remote in self.state.feed.remotes:  # a 3D view open in a worker process
            remote.close_views()
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._socket.close()

    def __enter__(self) -> Dashboard:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on (host, port); DashboardError (one line) when the port is taken or the address is not
    this machine's."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise DashboardError(f"port: a whole number from 0 to 65535 (0: any free port), not {port!r}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(64)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise DashboardError(f"port {port} on {host} is in use (another dashboard?): choose another with "
                                 f"--ui-port PORT (0: any free port)") from None
        raise DashboardError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock
