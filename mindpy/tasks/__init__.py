"""Tasks: the task schema and files, the task families (family.py: one registered Family per kind of task; each
family's package in families/), blueprints, generators and train/test splits.

    from mindpy.tasks import load_tasks, read_task_file, family_of
    tasks = load_tasks("tasks/example_tasks.json")
    task = tasks["..."]; task.goal_for(0), task.targets(), task.inventory_for(1), task.blueprint, task.fields
    report = read_task_file("other/tasks.json")    # task by task: report.tasks, report.problems, report.warnings
    family_of(task).checker(task)                  # what a family knows: mindpy.tasks.family

World set-up (world.py), live checkers (checkers.py) and episode result files (results.py) talk to a server
through the agents' bots or an `issue(command)` callable; the rest is pure Python.
"""

from .blueprint import Blueprint, BlueprintError, BlueprintLevel, Cell, CellCheck, Comparison
from .checkers import (
    CheckResult,
    ConstructionChecker,
    HellsKitchenChecker,
    ItemChecker,
    TaskMonitor,
    checker_for,
    end_line,
)
from .family import Family, families, family_named, family_of, register
from .loader import dumps_tasks, load_task, load_tasks, read_task_file, task_paths, write_tasks
from .results import EpisodeRecorder, load_result
from .schema import (
    NameChecker,
    Task,
    TaskCheck,
    TaskFileError,
    TaskFileReport,
    check_task,
    check_tasks,
    parse_tasks,
    unplayable_reason,
)
from .world import (
    TaskSetup,
    WorldSetupError,
    apply_setup,
    issue_via_bot,
    issue_via_server,
    plan_setup,
    set_up_task,
    wait_for_setup,
)

__all__ = [
    "Family", "families", "family_named", "family_of", "register",
    "Blueprint", "BlueprintError", "BlueprintLevel", "Cell", "CellCheck", "Comparison", "NameChecker",
    "Task", "TaskCheck", "TaskFileError", "TaskFileReport", "check_task", "check_tasks", "dumps_tasks", "load_task",
    "load_tasks", "parse_tasks", "read_task_file", "task_paths", "unplayable_reason", "write_tasks",
    "CheckResult", "ConstructionChecker", "HellsKitchenChecker", "ItemChecker", "TaskMonitor", "checker_for",
    "end_line",
    "EpisodeRecorder", "load_result",
    "TaskSetup", "WorldSetupError", "apply_setup", "issue_via_bot", "issue_via_server", "plan_setup", "set_up_task",
    "wait_for_setup",
]
