"""Minecraft servers: the embedded flying-squid server, and addresses of real ones."""

from .address import ServerAddress, parse_server
from .embedded import EmbeddedServer

__all__ = ["EmbeddedServer", "ServerAddress", "parse_server"]
