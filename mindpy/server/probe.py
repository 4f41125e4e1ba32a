"""Ask a Minecraft server for its status (the server-list ping), in plain Python.

Works with any Java-edition server (Paper, vanilla, the embedded one) and needs no bot.
"""

from __future__ import annotations

import json
import socket
import struct

from ..errors import ServerError


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= 0xFFFFFFFF
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _read_varint(sock: socket.socket) -> int:
    result = 0
    for shift in range(0, 35, 7):
        byte = sock.recv(1)
        if not byte:
            raise ServerError("connection closed while reading the status reply")
        result |= (byte[0] & 0x7F) << shift
        if not byte[0] & 0x80:
            return result
    raise ServerError("malformed status reply (varint too long)")


def _packet(packet_id: int, payload: bytes) -> bytes:
    body = _varint(packet_id) + payload
    return _varint(len(body)) + body


def status(host: str, port: int, timeout: float = 5.0) -> dict:
    """The server's status JSON (version, players, description). Raises ServerError naming host:port."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            host_bytes = host.encode()
            handshake = _varint(-1) + _varint(len(host_bytes)) + host_bytes + struct.pack(">H", port) + _varint(1)
            sock.sendall(_packet(0x00, handshake) + _packet(0x00, b""))
            _read_varint(sock)  # packet length
            _read_varint(sock)  # packet id
            length = _read_varint(sock)
            data = b""
            while len(data) < length:
                chunk = sock.recv(length - len(data))
                if not chunk:
                    raise ServerError(f"{host}:{port} closed the connection mid-reply")
                data += chunk
            return json.loads(data.decode("utf-8"))
    except OSError as exc:
        raise ServerError(f"No Minecraft server answers at {host}:{port}: {exc}") from None


def ping(host: str, port: int, timeout: float = 5.0) -> str:
    """One line describing the server at host:port."""
    info = status(host, port, timeout)
    version = info.get("version", {}).get("name", "?")
    players = info.get("players", {})
    return f"Minecraft {version}, {players.get('online', '?')}/{players.get('max', '?')} players"
