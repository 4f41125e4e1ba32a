"""Per-bot state in `bots/<name>/`, written so that a crash never leaves a half-written file.

Every write goes to a temporary file in the same folder, is flushed to disk (fsync), then replaces the old
file with `os.replace`, which is atomic: readers see the old file or the new one, never a mix.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

STATE_FILE = "state.json"
ARCHIVE_FILE = "history_archive.jsonl"


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write the file through a temporary file and a rename, so readers never see it half-written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (a power cut could otherwise lose it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_json(path: str | Path, data: Any) -> None:
    """Write data as indented JSON, atomically."""
    atomic_write_text(path, json.dumps(data, indent=1, ensure_ascii=False))


def read_json(path: str | Path) -> Any | None:
    """The file's content, or None when there is no file yet."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


class BotState:
    """One bot's folder: `state.json` (memory, turns, self-prompt, task start, last sender) and an archive
    of summarized turns (`history_archive.jsonl`, append-only; a torn last line is skipped when read)."""

    def __init__(self, name: str, root: str | Path = "bots"):
        self.name = name
        self.dir = Path(root) / name
        self.path = self.dir / STATE_FILE
        self.archive_path = self.dir / ARCHIVE_FILE
        self._lock = threading.Lock()

    def load(self) -> dict[str, Any]:
        """The saved state, or {} when the bot has none yet."""
        try:
            data = read_json(self.path)
        except json.JSONDecodeError as exc:  # only possible if something else wrote the file
            raise ValueError(f"{self.path}: the state file is not valid JSON ({exc})") from None
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise ValueError(f"{self.path}: the state file must hold a JSON object")
        return data

    def save(self, **fields: Any) -> dict[str, Any]:
        """Merge `fields` into the saved state and write it atomically; returns the new state."""
        with self._lock:
            state = self.load()
            state.update(fields)
            state["name"] = self.name
            state["saved_at"] = time.time()
            atomic_write_json(self.path, state)
            return state

    def append_archive(self, record: dict[str, Any]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"time": time.time(), **record}, ensure_ascii=False)
        with self._lock, self.archive_path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())

    def read_archive(self) -> list[dict[str, Any]]:
        try:
            lines = self.archive_path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a crash while appending leaves at most one torn line
        return out
