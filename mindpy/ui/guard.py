"""Which site the dashboard answers: the Host of every request and websocket must be the dashboard's own address or a
name the user allowed, and a request that carries an Origin (a browser's page sent it) must come from such a page.

A page of another site can make the user's browser send requests to 127.0.0.1 (a form, a fetch, a websocket, or its
own name made to resolve to 127.0.0.1: DNS rebinding). Such a request names that site in its Host (rebinding) or in
its Origin (the rest), so both are checked before anything else; the token rules (mindpy.ui.app) come after.

    rules = SiteRules.for_address("127.0.0.1", 8765, allowed=["dash.example"])
    app = SiteGuard(app, rules)     # 403 and a one-line body for anything else
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ..errors import ConfigError

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")
DEFAULT_PORTS = {"http": 80, "https": 443}
# a DNS name or an IP address as a Host header carries it: letters, digits, dots, dashes, underscores (some
# machines' names have them; IPv6: in brackets)
NAME = re.compile(r"[a-z0-9_]([a-z0-9_.-]{0,251}[a-z0-9_])?")
HOST = re.compile(r"(?P<name>\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(:(?P<port>[0-9]{1,5}))?")


@dataclass(frozen=True)
class SiteRules:
    """The names (and ports) a request may be addressed to. `names`: the dashboard's own names, at `port` only;
    `allowed`: name -> the one port allowed (None: any port), as the user configured them."""

    port: int
    names: frozenset[str]
    allowed: dict[str, int | None] = field(default_factory=dict)

    @classmethod
    def for_address(cls, host: str, port: int, allowed: Iterable[str] = ()) -> SiteRules:
        """The rules of a dashboard bound to (host, port), with the extra names `allowed` ("NAME" or "NAME:PORT")."""
        return cls(port, frozenset(own_names(host)), parse_allowed(allowed))

    def host_allowed(self, host: str, local_address: str | None = None) -> bool:
        """Whether a Host header names this dashboard. `local_address`: the IP address the connection came in on
        (an IP address cannot be rebound to another site, so the one the client reached is always its own)."""
        parsed = parse_host(host, "http")
        return parsed is not None and self._allows(*parsed, local_address)

    def origin_allowed(self, origin: str, local_address: str | None = None) -> bool:
        """Whether an Origin header is the page of this dashboard (http or https, a name it answers)."""
        parsed = parse_origin(origin)
        return parsed is not None and self._allows(*parsed, local_address)

    def _allows(self, name: str, port: int, local_address: str | None) -> bool:
        if name in self.allowed:
            return self.allowed[name] in (None, port)
        own = name in self.names or (local_address is not None and name == reached_address(local_address))
        return own and port == self.port


def own_names(host: str) -> set[str]:
    """The names a dashboard bound to `host` is reached by: the loopback names when bound on loopback, those and
    this machine's names when bound on every address, else the address it was given."""
    host = host.strip().lower()
    if host in LOOPBACK_NAMES:
        return set(LOOPBACK_NAMES)
    if host in WILDCARD_ADDRESSES:
        # the name the printed address shows (other names of the machine: --allowed-host)
        return {canonical(n) for n in (*LOOPBACK_NAMES, socket.gethostname()) if n}
    return {canonical(host)}


def parse_allowed(values: Iterable[str]) -> dict[str, int | None]:
    """"NAME" or "NAME:PORT" (an IPv6 address in brackets) -> {name: port or None}; ConfigError for anything else."""
    allowed: dict[str, int | None] = {}
    for value in values:
        text = str(value).strip().lower()
        match = HOST.fullmatch(text)
        name = canonical(match.group("name")) if match else ""
        port = int(match.group("port")) if match and match.group("port") else None
        if not match or not valid_name(name) or (port is not None and not 0 < port < 65536):
            raise ConfigError(f"allowed host {value!r} is no host name: give NAME or NAME:PORT "
                              f"(dash.example, dash.example:8443, [::1]:8765)")
        allowed[name] = port
    return allowed


def parse_host(value: str, scheme: str) -> tuple[str, int] | None:
    """(name, port) of a Host header value ("localhost:8765", "[::1]:8765", "dash.example"), or None if it is
    none; the port defaults to the scheme's."""
    match = HOST.fullmatch(value.strip().lower())
    if match is None:
        return None
    name = canonical(match.group("name"))
    port = int(match.group("port")) if match.group("port") else DEFAULT_PORTS[scheme]
    if not valid_name(name) or not 0 < port < 65536:
        return None
    return name, port


def parse_origin(value: str) -> tuple[str, int] | None:
    """(name, port) of an Origin header: "http(s)://host[:port]" and nothing else (no path, no user, one origin)."""
    try:
        parts = urlsplit(value.strip())
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or parts.path or parts.query or parts.fragment or "@" in parts.netloc:
        return None
    return parse_host(parts.netloc, parts.scheme)


def canonical(name: str) -> str:
    """A name as compared: lower case, an IP address in its shortest form and without brackets."""
    name = name.strip().lower()
    bare = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        return name


def reached_address(local_address: str) -> str:
    """The address a client reached, as its Host names it: an IPv4 client of a socket bound to "::" reaches
    ::ffff:a.b.c.d, which it calls a.b.c.d."""
    try:
        address = ipaddress.ip_address(local_address)
    except ValueError:
        return canonical(local_address)
    return str(getattr(address, "ipv4_mapped", None) or address)


def valid_name(name: str) -> bool:
    """Whether `name` (canonical) is an IP address or a DNS name."""
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        return NAME.fullmatch(name) is not None and ".." not in name


# ---- the ASGI middleware ---------------------------------------------------------------------------------------
class SiteGuard:
    """ASGI middleware: refuses (403, a one-line body; a websocket: refused before it opens) every request whose
    Host is not the dashboard's, and every one whose Origin is not its page's."""

    def __init__(self, app: Any, rules: SiteRules):
        self.app = app
        self.rules = rules

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = self.refusal(scope)
        if why is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            await send_refusal(send, why)
        else:
            await refuse_websocket(receive, send)

    def refusal(self, scope: dict) -> str | None:
        """Why this request is not answered, or None."""
        hosts = [v for k, v in scope.get("headers", []) if k == b"host"]
        origins = [v for k, v in scope.get("headers", []) if k == b"origin"]
        server = scope.get("server")
        local = server[0] if server else None
        if len(hosts) != 1 or not self.rules.host_allowed(hosts[0].decode("latin-1"), local):
            return "this request is not addressed to this dashboard: its Host is not this dashboard's address " \
                   "(add a name with --allowed-host NAME)"
        if len(origins) > 1 or (origins and not self.rules.origin_allowed(origins[0].decode("latin-1"), local)):
            return "this request comes from a page that is not this dashboard's page (its Origin)"
        return None


async def send_refusal(send: Any, why: str) -> None:
    """Answer an HTTP request with a 403 and `why` in one line."""
    body = (why + "\n").encode()
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def refuse_websocket(receive: Any, send: Any) -> None:
    """Refuse the websocket's handshake: closed before it is accepted, the server answers a 403 and nothing else
    (a browser shows a page no reason anyway; the server's log has none either)."""
    message = await receive()
    if message["type"] == "websocket.connect":
        await send({"type": "websocket.close", "code": 1008})
