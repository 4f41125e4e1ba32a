"""`--server embedded` or `--server HOST:PORT`: which server the bots join."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ServerError

EMBEDDED = "embedded"


@dataclass(frozen=True)
class ServerAddress:
    """The host and port of a Minecraft server."""
    host: str
    port: int

    def __str__(self) -> str:
        return f"{self.host}:{self.port}"


def parse_server(text: str) -> ServerAddress | None:
    """None for "embedded" (start our own); otherwise the HOST:PORT of a real server (port 25565 if left out)."""
    text = text.strip()
    if text == EMBEDDED:
        return None
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, "25565"
    if not host:
        raise ServerError(f"Bad --server value {text!r}: expected 'embedded' or HOST:PORT, e.g. localhost:25565")
    try:
        number = int(port)
    except ValueError:
        raise ServerError(f"Bad port in --server {text!r}: {port!r} is not a number") from None
    if not 0 < number < 65536:
        raise ServerError(f"Bad port in --server {text!r}: {number} is outside 1-65535")
    return ServerAddress(host, number)
