"""MineCollab tasks: the task schema and files, blueprints, generators and train/test splits (pure Python).

    from mindpy.tasks import load_tasks
    tasks = load_tasks("tasks/example_tasks.json")
    task = tasks["..."]; task.goal_for(0), task.targets(), task.inventory_for(1), task.blueprint

World set-up and live checkers build on these (they need a server); this package never talks to one.
"""

from .blueprint import Blueprint, BlueprintError, BlueprintLevel, Cell, CellCheck, Comparison
from .loader import dumps_tasks, load_task, load_tasks, write_tasks
from .schema import TASK_TYPES, NameChecker, Task, TaskFileError, parse_tasks

__all__ = [
    "TASK_TYPES", "Blueprint", "BlueprintError", "BlueprintLevel", "Cell", "CellCheck", "Comparison", "NameChecker",
    "Task", "TaskFileError", "dumps_tasks", "load_task", "load_tasks", "parse_tasks", "write_tasks",
]
