"""Reading and writing task files: MINDcraft's JSON unchanged, and the same schema in YAML.
Files are read within the bounds of mindpy.userfiles (size, nesting, YAML aliases).

    tasks = load_tasks("tasks/crafting_test.json")          # {task id: Task}, every problem reported at once
    task = load_task("tasks/example_tasks.json", "some_id")
    text = dumps_tasks(tasks)                                # stable bytes: same tasks -> same text
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import UserFileError
from ..userfiles import TASK_FILE_MAX_BYTES, file_format, read_user_file
from .schema import NameChecker, Task, TaskFileError, parse_tasks


def _read(path: Path) -> Any:
    try:
        return read_user_file(path, "task file", max_bytes=TASK_FILE_MAX_BYTES, default_format="json")
    except UserFileError as exc:
        raise TaskFileError([str(exc)]) from None


def load_tasks(path: str | Path, *, check_names: bool = True, version: str | None = None) -> dict[str, Task]:
    """Every task of a JSON or YAML task file, validated. `check_names=False` skips the minecraft-data item and
    block checks (for files written for other Minecraft versions)."""
    path = Path(path)
    names = NameChecker.for_version(version) if check_names else None
    return parse_tasks(_read(path), source=str(path), names=names)


def load_task(path: str | Path, task_id: str, **kwargs: Any) -> Task:
    """One task of a task file; TaskFileError (with a close match) when the id is not there."""
    tasks = load_tasks(path, **kwargs)
    if task_id not in tasks:
        import difflib

        close = difflib.get_close_matches(task_id, list(tasks), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise TaskFileError([f"{path}: no task '{task_id}'{hint}; the file has {len(tasks)} tasks"])
    return tasks[task_id]


# ----- writing -----
def _encode(value: Any, indent: int) -> str:
    """JSON with two-space indents where lists of plain values (inventory rows, blueprint rows) stay on one line."""
    pad = "  " * indent
    inner = "  " * (indent + 1)
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(str(k))}: {_encode(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        if all(not isinstance(v, (Mapping, list, tuple)) for v in value):
            return "[" + ", ".join(json.dumps(v) for v in value) + "]"
        return "[\n" + ",\n".join(inner + _encode(v, indent + 1) for v in value) + "\n" + pad + "]"
    return json.dumps(value)


def tasks_to_mapping(tasks: Mapping[str, Task] | list[Task]) -> dict[str, Any]:
    """{task id: task as a dict}, the content of a task file."""
    items = tasks.values() if isinstance(tasks, Mapping) else tasks
    return {task.id: task.to_dict() for task in items}


def dumps_tasks(tasks: Mapping[str, Task] | list[Task], fmt: str = "json") -> str:
    """The text of a task file (MINDcraft's field spellings). Deterministic for the same tasks."""
    mapping = tasks_to_mapping(tasks)
    if fmt == "yaml":
        import yaml

        return yaml.safe_dump(mapping, sort_keys=False, allow_unicode=True, width=120)
    return _encode(mapping, 0) + "\n"


def write_tasks(tasks: Mapping[str, Task] | list[Task], path: str | Path) -> Path:
    """Write a task file, YAML or JSON by the file's suffix; returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps_tasks(tasks, file_format(path, "json")), encoding="utf-8")
    return path
