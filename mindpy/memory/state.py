"""Per-bot state in `bots/<name>/`, written so that a crash never leaves a half-written file.

Every write goes to a temporary file in the same folder (`.<name>.<pid>.<random>.tmp`), is flushed to disk
(fsync), then replaces the old file with `os.replace`, which is atomic: readers see the old file or the new one,
never a mix. A process killed mid-write leaves its temporary file behind; the next process to write the same file
(or to open the bot's state) removes the temporary files of writers that are no longer running. A state file that
something else damaged is moved aside (`state.json.damaged-<time>`) with a warning, and the bot starts afresh.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

STATE_FILE = "state.json"
ARCHIVE_FILE = "history_archive.jsonl"
_swept: set[Path] = set()  # files whose orphaned temporary files this process has removed
_SURROGATE = re.compile("[\ud800-\udfff]")


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write the file through a temporary file and a rename, so readers never see it half-written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path not in _swept:
        remove_orphaned_temp_files(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
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


def remove_orphaned_temp_files(path: str | Path) -> int:
    """Remove the temporary files that writers of `path` left when they were killed mid-write (those of running
    processes stay: they may be writing right now); returns how many were removed."""
    path = Path(path)
    _swept.add(path)
    removed = 0
    for tmp in path.parent.glob(f".{path.name}.*.tmp"):
        if _writer_is_running(tmp.name[len(path.name) + 2:]):
            continue
        try:
            tmp.unlink()
            removed += 1
        except OSError:
            pass  # gone already, or not ours to remove
    if removed:
        log.info("%s: removed %d temporary files left by interrupted writes", path, removed)
    return removed


def _writer_is_running(rest: str) -> bool:
    """Is the process that made a temporary file (named `<pid>.<random>.tmp` after the target) still running?"""
    pid_text = rest.split(".", 1)[0]
    if not pid_text.isdigit() or "." not in rest[len(pid_text) + 1:]:
        return False  # no process id in the name: made before names carried one, so long finished
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, ValueError):
        return True  # another user's process (or not a process id at all): leave the file alone
    return True


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
    atomic_write_text(path, json_text(data, indent=1))


def json_text(data: Any, **options: Any) -> str:
    """JSON that UTF-8 can always encode: non-ASCII text is kept as it is, but lone surrogates (a model's JSON
    reply may hold "\\ud800") are written as \\uXXXX escapes, which read back as the same text."""
    text = json.dumps(data, ensure_ascii=False, **options)
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)  # only inside strings: nothing else has them


def read_json(path: str | Path) -> Any | None:
    """The file's content, or None when there is no file yet. ValueError if it is not UTF-8 JSON."""
    try:
        return json.loads(Path(path).read_bytes())
    except FileNotFoundError:
        return None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply") from None


def set_aside(path: Path, why: str) -> Path:
    """Rename a damaged file to `<name>.damaged-<time>` next to it (kept for a look, never read again) and warn;
    returns the new path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while backup.exists():
        n += 1
        backup = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, backup)
    log.warning("%s %s; moved it to %s and started afresh", path, why, backup.name)
    return backup


class BotState:
    """One bot's folder: `state.json` (memory, turns, self-prompt, task start, last sender) and an archive
    of summarized turns (`history_archive.jsonl`, append-only; a torn last line is skipped when read)."""

    def __init__(self, name: str, root: str | Path = "bots"):
        """Opening a bot's folder removes the temporary files that killed writers left in it."""
        self.name = name
        self.dir = Path(root) / name
        self.path = self.dir / STATE_FILE
        self.archive_path = self.dir / ARCHIVE_FILE
        self._lock = threading.Lock()
        remove_orphaned_temp_files(self.path)

    def load(self) -> dict[str, Any]:
        """The saved state, or {} when the bot has none yet. A damaged file (only possible if something else
        wrote it) is moved aside with a warning, and the bot starts afresh."""
        try:
            data = read_json(self.path)
        except ValueError as exc:  # not UTF-8, not JSON, or nested too deeply
            set_aside(self.path, f"is not a valid state file ({type(exc).__name__})")
            return {}
        if data is None:
            return {}
        if not isinstance(data, dict):
            set_aside(self.path, "does not hold a JSON object")
            return {}
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
        """Append one record as a line of the archive, flushed to disk."""
        self.dir.mkdir(parents=True, exist_ok=True)
        line = json_text({"time": time.time(), **record}).encode("utf-8") + b"\n"
        with self._lock, self.archive_path.open("a+b") as f:
            if _ends_torn(f):
                line = b"\n" + line  # end the line a killed writer tore, or this record would join it
            f.write(line)
            f.flush()
            os.fsync(f.fileno())

    def read_archive(self) -> list[dict[str, Any]]:
        """The archived records, oldest first; lines that do not read as a JSON object are skipped."""
        try:
            lines = self.archive_path.read_bytes().splitlines()
        except FileNotFoundError:
            return []
        out = []
        damaged = 0
        for i, line in enumerate(lines):
            record = _archive_record(line)
            if record is not None:
                out.append(record)
            elif line.strip() and i < len(lines) - 1:  # a crash while appending tears only the last line
                damaged += 1
        if damaged:
            log.warning("%s: skipped %d damaged lines", self.archive_path, damaged)
        return out


def _ends_torn(f: Any) -> bool:
    """Does the open file end in the middle of a line?"""
    size = f.seek(0, os.SEEK_END)
    if size == 0:
        return False
    f.seek(size - 1)
    return f.read(1) != b"\n"


def _archive_record(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None
