"""Which Minecraft versions mindpy plays, and what `--mc-version VERSION|auto` (or the `minecraft_version` setting)
resolves to.

    resolve_version("auto", None)                        # the embedded server: the default version
    resolve_version("auto", ServerAddress("paper", 25565))   # that server's version, from its status ping
    resolve_version("1.12.2", None)                      # UnsupportedVersion, one line listing the supported ones

The embedded server serves the versions of mindpy/server/js/data/versions.json (server.js says why others are left
out). Against a real server the bots speak every version the installed mineflayer lists from 1.18 on: mindpy's
worlds, tasks and item names assume 1.18's heights and names (the tasks stand at y=-60).
"""

from __future__ import annotations

import json
import re
import subprocess
from functools import cache
from pathlib import Path

from .. import DEFAULT_MINECRAFT_VERSION
from ..errors import SetupError, UnsupportedVersion
from .address import ServerAddress

AUTO = "auto"
EMBEDDED_VERSIONS_FILE = Path(__file__).resolve().parent / "js" / "data" / "versions.json"
OLDEST_VERSION = (1, 18)  # the first with the world heights mindpy's worlds and tasks use


def version_key(version: str) -> tuple[int, ...]:
    """"1.20.4" -> (1, 20, 4), for comparing versions."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def embedded_versions() -> list[str]:
    """The versions the embedded server serves, oldest first."""
    return list(_embedded_versions())


@cache
def _embedded_versions() -> tuple[str, ...]:
    return tuple(json.loads(EMBEDDED_VERSIONS_FILE.read_text(encoding="utf-8"))["embedded"])


def bot_versions() -> list[str]:
    """The versions mindpy's bots speak on a real server: the installed mineflayer's, from 1.18 on, oldest first."""
    return [v for v in _mineflayer_versions() if version_key(v)[:2] >= OLDEST_VERSION]


@cache
def _mineflayer_versions() -> tuple[str, ...]:
    from ..nodejs import check_node_side, node_environment

    node = check_node_side()
    script = "console.log(JSON.stringify(require('mineflayer/lib/version').testedVersions))"
    try:
        out = subprocess.run([str(node), "-e", script], capture_output=True, text=True, timeout=60,
                             env=node_environment())
        return tuple(json.loads(out.stdout))
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        raise SetupError(f"cannot read mineflayer's versions with {node}: {exc}") from None


def supported_versions(embedded: bool) -> list[str]:
    """The versions a run may use: the embedded server's, or (a real server) the bots'."""
    return embedded_versions() if embedded else bot_versions()


def check_version(version: str, embedded: bool) -> str:
    """`version`, or UnsupportedVersion (one line, listing the supported versions) when the run cannot use it."""
    supported = supported_versions(embedded)
    if version in supported:
        return version
    where = "the embedded server" if embedded else "mindpy's bots"
    raise UnsupportedVersion(f"Minecraft version {version!r} is not supported by {where}. Supported: "
                             f"{', '.join(supported)} (or {AUTO})")


def resolve_version(requested: str, address: ServerAddress | None) -> str:
    """The version to play: `requested` when supported; `auto` is the default version with the embedded server
    (`address` None) and the version a real server reports in its status ping. UnsupportedVersion (one line) for a
    version mindpy cannot use; ServerError when `auto` finds no server answering at `address`."""
    requested = requested.strip()
    if requested == AUTO:
        return DEFAULT_MINECRAFT_VERSION if address is None else server_version(address)
    return check_version(requested, embedded=address is None)


def server_version(address: ServerAddress) -> str:
    """The version of the server at `address`, from its status ping, as mindpy's bots name it: the version the
    reply names (Paper says "Paper 1.21.1", vanilla "1.21.1"), else the newest one of the protocol number it
    reports (1.20 and 1.20.1 are one protocol)."""
    from .probe import status

    reply = status(address.host, address.port).get("version", {})
    name, protocol = str(reply.get("name", "?")), reply.get("protocol")
    supported = bot_versions()
    named = [v for v in re.findall(r"\d+\.\d+(?:\.\d+)?", name) if v in supported]
    if named:
        return named[-1]
    same_protocol = [v for v in supported if protocol is not None and protocol_of(v) == protocol]
    if same_protocol:
        return max(same_protocol, key=version_key)
    raise UnsupportedVersion(f"the server at {address} runs Minecraft {name} (protocol {protocol}), which mindpy's "
                             f"bots do not support. Supported: {', '.join(supported)}")


def protocol_of(version: str) -> int | None:
    """The protocol number of a release, from minecraft-data (None if it does not know the version)."""
    return _protocols().get(version)


@cache
def _protocols() -> dict[str, int]:
    from ..mcdata import protocol_versions

    protocols: dict[str, int] = {}
    for entry in protocol_versions():  # newest first: a version named twice keeps its release's number
        if entry.get("usesNetty", True):
            protocols.setdefault(entry["minecraftVersion"], int(entry["version"]))
    return protocols


def add_version_option(parser) -> None:
    """`--mc-version VERSION|auto` on a command that starts bots (it sets the `minecraft_version` setting)."""
    parser.add_argument("--mc-version", dest="mc_version", default=None, metavar="VERSION|auto",
                        help=f"Minecraft version of the server and bots (default: the minecraft_version setting, "
                             f"{DEFAULT_MINECRAFT_VERSION}); 'auto' asks a HOST:PORT server for its version (with "
                             f"the embedded server: the default); `mindpy doctor` lists the supported ones")
