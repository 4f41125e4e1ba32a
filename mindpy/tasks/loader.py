"""Reading and writing task files: MINDcraft's JSON unchanged, and the same schema in YAML.
Files are read within the bounds of mindpy.userfiles (size, nesting, YAML aliases), and task by task: a bad task
never blocks the others.

    report = read_task_file("tasks/x.json")    # never raises for a bad file: report.tasks (the valid ones),
                                               # report.problems / report.warnings by task id, report.summary()
    tasks = load_tasks("tasks/crafting_test.json")          # {task id: Task}; TaskFileError if any task is bad
    task = load_task("tasks/example_tasks.json", "some_id")  # checks that task only
    paths = task_paths("tasks/")                             # a file, a folder (recursively) or a glob
    text = dumps_tasks(tasks)                                # stable bytes: same tasks -> same text
"""

from __future__ import annotations

import glob
import json
import logging
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from ..errors import UserFileError
from ..userfiles import JSON_SUFFIXES, TASK_FILE_MAX_BYTES, YAML_SUFFIXES, file_format, one_line, read_user_file
from .schema import NameChecker, Task, TaskFileError, TaskFileReport, check_tasks

TASK_FILE_SUFFIXES = JSON_SUFFIXES + YAML_SUFFIXES
log = logging.getLogger("mindpy.tasks")


def _read(path: Path) -> Any:
    try:
        return read_user_file(path, "task file", max_bytes=TASK_FILE_MAX_BYTES, default_format="json")
    except UserFileError as exc:
        raise TaskFileError([str(exc)]) from None


def read_task_file(path: str | Path, *, check_names: bool = True, version: str | None = None,
                   only: Collection[str] | None = None) -> TaskFileReport:
    """Check every task of a JSON or YAML task file (or only the ids in `only`), each on its own. Never raises for
    what the file holds: a file that cannot be read comes back with `file_problems`. `check_names=False` skips
    the minecraft-data item and block checks, and with them the renaming of old names (for files written for
    other Minecraft versions)."""
    path = Path(path)
    try:
        data = _read(path)
    except TaskFileError as exc:
        return TaskFileReport(str(path), file_problems=exc.problems)
    names = NameChecker.for_version(version) if check_names else None
    return check_tasks(data, source=str(path), names=names, only=only, consume=True)


def load_tasks(path: str | Path, *, check_names: bool = True, version: str | None = None) -> dict[str, Task]:
    """Every task of a JSON or YAML task file, validated; TaskFileError listing every problem when the file or any
    task is bad (`read_task_file` keeps the good ones)."""
    report = read_task_file(path, check_names=check_names, version=version)
    report.raise_for_problems()
    for line in report.messages():
        log.info("%s", line)
    return report.tasks


def load_task(path: str | Path, task_id: str, **kwargs: Any) -> Task:
    """One task of a task file, checked alone (the file's other tasks may be bad); TaskFileError with its problems,
    or with a close match when the id is not there."""
    return read_task_file(path, only=[task_id], **kwargs).task(task_id)


def task_paths(pattern: str | Path) -> list[Path]:
    """The task files a command-line argument names: a file, a folder (its .json, .yaml and .yml files, in
    sub-folders too) or a glob (`tasks/**/*.json`), each file once. TaskFileError when it names nothing."""
    text = str(pattern)
    if glob.has_magic(text):
        found = [Path(p) for p in sorted(glob.glob(text, recursive=True))]
        nothing = f"{one_line(text, 200)}: no task files match"
    else:
        path = Path(text)
        if not path.exists():
            raise TaskFileError([f"{path}: no such task file or folder"])
        if not path.is_dir():
            return [path]
        found = [path]
        nothing = f"{path}: the folder has no task files"
    # a glob such as tasks/** names a folder and its sub-folders too: their files are listed once
    paths = dict.fromkeys(f for p in found for f in (_folder_task_files(p) if p.is_dir() else [p]) if _is_task_file(f))
    if not paths:
        raise TaskFileError([f"{nothing} (.json, .yaml or .yml)"])
    return list(paths)


def _is_task_file(path: Path) -> bool:
    return path.is_file() and path.suffix.lower() in TASK_FILE_SUFFIXES


def _folder_task_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if _is_task_file(p))


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
