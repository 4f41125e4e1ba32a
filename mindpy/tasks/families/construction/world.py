"""The construction site: every blueprint cell (and one block around) emptied; agent 0 stands by level 0."""

from __future__ import annotations

from ...schema import Task
from ...world import Position, TaskSetup


def construction_start(task: Task) -> Position:
    """Where agent 0 stands: two blocks outside the corner of level 0 (not on a cell it must fill)."""
    x, y, z = task.blueprint.levels[0].coordinates  # type: ignore[union-attr]
    return x - 2, y, z - 2


def plan_construction_site(setup: TaskSetup) -> None:
    """Every blueprint cell (and one block around) set to air; the floor below level 0 is left as it is."""
    blueprint = setup.task.blueprint
    setup.commands += [line.lstrip("/") for line in blueprint.clear_commands(margin=1)]  # type: ignore[union-attr]
    for cell in blueprint.cells():  # type: ignore[union-attr]
        setup.expected_blocks[(cell.x, cell.y, cell.z)] = "air"
