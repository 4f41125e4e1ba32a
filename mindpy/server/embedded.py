"""The embedded server: flying-squid and mindpy's plugins in a Node process of their own.

A separate process, so a crash of the server does not take the bots' bridge down, nor the reverse.
It listens on 127.0.0.1, offline mode, where every player is an operator, in a superflat world (`world="flat"`,
the tasks' world) or a generated one (`world="normal"`, for free play; `seed` picks which).

    with EmbeddedServer(run_dir="runs/demo") as server:
        print(server.host, server.port)

A `world_folder` keeps the world: chunks are saved in it and read back on the next start. The folder records its
generator and seed in mindpy.json the first time; later starts use them for the chunks it lacks (a folder without
that record, e.g. made elsewhere, gets the normal generator).
"""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import time
from pathlib import Path
from typing import BinaryIO

from .. import DEFAULT_MINECRAFT_VERSION
from ..errors import ConfigError, ServerError, UnsupportedVersion
from ..nodejs import check_node_side, node_environment
from .address import ServerAddress
from .versions import check_version

HERE = Path(__file__).resolve().parent
SERVER_SCRIPT = HERE / "js" / "server.js"
PLUGIN_DIR = HERE / "plugins"
# how long a server keeping its world in a folder may take to write its last changes before it exits (server.js
# gives up after 10 s)
SAVE_WAIT_S = 12.0
WORLDS = ("flat", "normal")
WORLD_RECORD = "mindpy.json"  # in a world folder: {"world": generator, "seed": seed}


def check_seed(seed: object) -> int:
    """A world seed: a non-zero 32-bit integer (flying-squid takes 0 for "pick one at random")."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed == 0 or not -2**31 <= seed < 2**31:
        raise ConfigError(f"the world seed must be a non-zero 32-bit integer, got {seed!r}")
    return seed


def world_record(folder: Path) -> dict:
    """What a world folder says of its generator and seed ({} when it says nothing)."""
    path = folder / WORLD_RECORD
    if not path.exists():
        return {}
    try:
        record = json.loads(path.read_text())
        if not isinstance(record, dict) or record.get("world") not in WORLDS:
            raise ValueError("no 'world' of " + " or ".join(WORLDS))
        check_seed(record.get("seed"))
        return record
    except (ValueError, ConfigError) as exc:
        raise ConfigError(f"{path}: not a world record ({exc})") from None


class EmbeddedServer:
    """Start with `start()` (or a `with` block); `stop()` ends the process and waits for it."""

    def __init__(
        self,
        port: int = 0,
        version: str = DEFAULT_MINECRAFT_VERSION,
        run_dir: str | os.PathLike | None = None,
        host: str = "127.0.0.1",
        start_timeout: float = 30.0,
        world_folder: str | os.PathLike | None = None,
        options: dict | None = None,
        world: str | None = None,
        seed: int | None = None,
    ):
        self.requested_port = port
        self.version = version
        self.host = host
        self.start_timeout = start_timeout
        self.run_dir = (Path(run_dir) if run_dir else Path("runs") / time.strftime("server-%Y%m%d-%H%M%S")).resolve()
        self.world_folder = Path(world_folder).resolve() if world_folder else None
        self.world, self.seed = self._choose_world(world, seed)
        self.options = dict(options or {})
        self.port: int | None = None
        self._tick_path: Path | None = None
        self.process: subprocess.Popen[bytes] | None = None
        self._log_file: BinaryIO | None = None

    def _choose_world(self, world: str | None, seed: int | None) -> tuple[str, int]:
        """The generator and seed: as asked, else as the world folder records, else flat (normal for a folder)."""
        if world is not None and world not in WORLDS:
            raise ConfigError(f"unknown world {world!r}: expected {' or '.join(WORLDS)}")
        if seed is not None:
            check_seed(seed)
        record = world_record(self.world_folder) if self.world_folder else {}
        for key, asked in (("world", world), ("seed", seed)):
            if record and asked is not None and asked != record[key]:
                raise ConfigError(f"the world in {self.world_folder} was made with {key} {record[key]!r}, "
                                  f"not {asked!r} (use another folder for another world)")
        chosen = world or record.get("world") or ("normal" if self.world_folder else "flat")
        return chosen, seed or record.get("seed") or random.randrange(1, 2**31)

    def _record_world(self) -> None:
        """Write the folder's mindpy.json on its first start (with the seed the server reports: a folder made
        elsewhere keeps its level.dat's), so later starts generate the same world."""
        if self.world_folder is None:
            return
        self.world_folder.mkdir(parents=True, exist_ok=True)
        path = self.world_folder / WORLD_RECORD
        if not path.exists():
            path.write_text(json.dumps({"world": self.world, "seed": self.seed}) + "\n")

    @property
    def log_path(self) -> Path:
        return self.run_dir / "server.log"

    def ticks(self) -> int | None:
        """How many ticks the server has run (20 a second when it keeps up), as of a quarter of a game second
        ago; None before the first report. The game's own clock: it slows down when the machine is loaded."""
        if self._tick_path is None:
            return None
        try:
            return int(self._tick_path.read_text())
        except (OSError, ValueError):
            return None

    @property
    def address(self) -> ServerAddress:
        if self.port is None:
            raise ServerError("The embedded server is not running")
        return ServerAddress(self.host, self.port)

    def start(self) -> EmbeddedServer:
        if self.process is not None:
            return self
        check_version(self.version, embedded=True)  # one line listing the versions, before Node starts
        node = check_node_side()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        stem = self.run_dir / f"server-{os.getpid()}-{id(self):x}"
        config_path = stem.with_suffix(".json")
        ready_path, error_path = stem.with_suffix(".ready"), stem.with_suffix(".error")
        for stale in (ready_path, error_path):
            stale.unlink(missing_ok=True)
        config = {
            "host": self.host,
            "port": self.requested_port,
            "version": self.version,
            "pluginDir": str(PLUGIN_DIR),
            "worldFolder": str(self.world_folder) if self.world_folder else None,
            "world": self.world,
            "seed": self.seed,
            "pluginOptions": self.options,
            "tickFile": str(stem.with_suffix(".ticks")),
            **{k: v for k, v in self.options.items()
               if k in ("gameMode", "difficulty", "viewDistance", "maxPlayers", "maxEntities", "crowdPlayers",
                        "crowdViewDistance", "columnCache", "fullTabListToOthers", "validateChannelProtocol")},
        }
        config_path.write_text(json.dumps(config, indent=2))
        self._tick_path = stem.with_suffix(".ticks")
        self._log_file = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [str(node), str(SERVER_SCRIPT), str(config_path)],
            stdin=subprocess.PIPE,  # closing it (or our death) stops the server
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            env=node_environment(),
            cwd=str(self.run_dir),
        )
        try:
            self._wait_until_ready(ready_path, error_path)
        except BaseException:
            self.stop()
            raise
        self._record_world()
        return self

    def _wait_until_ready(self, ready_path: Path, error_path: Path) -> None:
        process = self.process
        assert process is not None, "start() sets the process before waiting for it"
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if ready_path.exists():
                info = json.loads(ready_path.read_text())
                self.port = int(info["port"])
                self.seed = int(info.get("seed") or self.seed)  # a world folder's level.dat may hold another
                if self._accepts_connections():
                    return
            if error_path.exists():
                message = error_path.read_text().strip()
                if "not supported" in message:
                    raise UnsupportedVersion(message)
                raise ServerError(f"Embedded server failed to start: {message} (log: {self.log_path})")
            if process.poll() is not None:
                raise ServerError(
                    f"Embedded server exited with code {process.returncode} before it was ready. "
                    f"Last log lines:\n{self.log_tail()}"
                )
            time.sleep(0.02)
        raise ServerError(f"Embedded server not ready after {self.start_timeout:.0f} s. "
                          f"Last log lines:\n{self.log_tail()}")

    def _accepts_connections(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=1.0):
                return True
        except OSError:
            return False

    def command(self, line: str) -> None:
        """Run a server console command (no leading slash), e.g. `give alice dirt 5`. No reply is returned."""
        if not self.is_running():
            raise ServerError("The embedded server is not running")
        process = self.process
        assert process is not None and process.stdin is not None, "a running server has a stdin pipe"
        process.stdin.write(line.strip().encode() + b"\n")
        process.stdin.flush()

    def is_running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the server: close its stdin (it exits by itself), then terminate, then kill."""
        process, self.process = self.process, None
        if process is not None:
            try:
                if process.stdin is not None:
                    process.stdin.close()
            except OSError:
                pass
            try:  # a kept world is written before the server exits: seconds on a loaded machine
                process.wait(timeout=max(timeout / 2, SAVE_WAIT_S if self.world_folder else 0))
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(timeout=timeout / 2)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def __enter__(self) -> EmbeddedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def __del__(self):
        try:
            self.stop(timeout=1.0)
        except Exception:
            pass
