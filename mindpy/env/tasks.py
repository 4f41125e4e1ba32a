"""Which task an environment plays: a task file and a task id (by default the first task of the family's committed
test split, tasks/<family>_test.json), and whether the environments can serve it at all."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError
from ..tasks.family import Family, family_named, family_of
from ..tasks.loader import load_task, read_task_file
from ..tasks.schema import Task
from ..tasks.splits import committed
from ..userfiles import one_line


def refuse_unserved(task: Task) -> Family:
    """The task's family, or ConfigError in one line when the environments cannot serve the task: a family that
    plays its own way (orders, defuse) or a task with human players."""
    family = family_of(task)
    if family.play_entry:
        raise ConfigError(f"mindpy.env's goal environments cannot serve {family.name} tasks: they play their own "
                          f"way ({family.play_entry}); use mindpy/{family.name}-v0")
    refuse_humans(task)
    return family


def refuse_humans(task: Task) -> None:
    """ConfigError in one line for a task with human players: nobody would play their slots."""
    if task.usernames or task.human_count:
        raise ConfigError(f"mindpy.env cannot serve task '{one_line(task.id, 80)}': it has human players "
                          f"({', '.join(task.usernames) or task.human_count})")


def choose_task(family: str | None = None, task_file: str | Path | None = None,
                task_id: str | None = None) -> Task:
    """The task to play toward its goal: `task_id` of `task_file` (default: the committed test split of
    `family`); without `task_id`, the file's first task (of `family`, when it is given). ConfigError when none
    fits or the environments of the goal families cannot serve it."""
    task = find_task(family, task_file, task_id)
    refuse_unserved(task)
    return task


def choose_own_task(family: str, task_file: str | Path | None = None, task_id: str | None = None) -> Task:
    """A task of a family that plays its own way (orders, defuse), chosen as `choose_task` does; ConfigError for
    a task of another family or with human players."""
    task = find_task(family, task_file, task_id)
    refuse_humans(task)
    return task


def find_task(family: str | None = None, task_file: str | Path | None = None, task_id: str | None = None) -> Task:
    """`task_id` of `task_file` (default: the committed test split of `family`), else the file's first task of
    `family`; ConfigError when none fits."""
    if task_file is None:
        if family is None:
            raise ConfigError("give a task family or a task file")
        task_file = committed(family)
    path = Path(task_file)
    if task_id is not None:
        task = load_task(path, task_id)
    else:
        report = read_task_file(path)
        report.raise_for_problems()
        wanted = family_named(family).name if family else None
        first = next((t for t in report.tasks.values() if wanted is None or family_of(t).name == wanted), None)
        if first is None:
            raise ConfigError(f"{path}: no {wanted or ''} task in the file")
        task = first
    if family is not None and family_of(task).name != family_named(family).name:
        raise ConfigError(f"{path}: task '{one_line(task.id, 80)}' is a {family_of(task).name} task, not "
                          f"{family_named(family).name}")
    return task
