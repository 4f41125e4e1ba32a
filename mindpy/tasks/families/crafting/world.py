"""The crafting (techtree) world: a small forest east of the agents, of the wood the task lacks or targets."""

from __future__ import annotations

from ...schema import Task
from ...world import SPREAD, Position, TaskSetup, fill, plan_clear_ground

WOODS = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "cherry")
TREE_SPOTS = ((8, -4), (12, -1), (8, 3), (14, 4), (11, -7), (15, -4))  # (dx, dz) from origin


def forest_wood(task: Task) -> str:
    """The wood of an item the task lacks or targets (birch_log -> birch), oak when nothing says otherwise."""
    for name in list(task.missing_items) + list(task.targets()):
        for wood in WOODS:  # "dark_oak_log" does not start with "oak_", so the order does not matter
            if name.startswith(wood + "_"):
                return wood
    return "oak"


def plan_forest(setup: TaskSetup, origin: Position, wood: str) -> None:
    """A clearing with six trees of `wood` east of agent 0's spot `origin`."""
    plan_clear_ground(setup, origin, west=SPREAD + 1, north=10, east=17, south=7, height=8)
    x0, y0, z0 = origin
    log, leaves = f"{wood}_log", f"{wood}_leaves[persistent=true]"
    for dx, dz in TREE_SPOTS:
        x, z = x0 + dx, z0 + dz
        # leaves first, then the trunk through them: a 5x5 crown two high, a 3x3 layer and a top
        setup.commands.append(fill((x - 2, y0 + 3, z - 2), (x + 2, y0 + 4, z + 2), leaves))
        setup.commands.append(fill((x - 1, y0 + 5, z - 1), (x + 1, y0 + 5, z + 1), leaves))
        setup.commands.append(fill((x, y0, z), (x, y0 + 4, z), log))
        setup.expected_blocks[(x, y0, z)] = log
        setup.expected_blocks[(x, y0 + 5, z)] = f"{wood}_leaves"
