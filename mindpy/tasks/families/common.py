"""What mindpy's families of things to make or build share: MineCollab's rules for items held at the end (the
team's items and the world's supplies make them; the best agent's inventory scores; Hell's Kitchen's dishes each in
its own agent's hands) and agents standing around agent 0's spot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..checkers import Checker, HellsKitchenChecker, HumanInventories, ItemChecker
from ..family import Family
from ..world import Position, TaskSetup, WorldSetupError, plan_agents_around

if TYPE_CHECKING:
    from ..schema import Task


# What the MINDcraft paper's bots are told on joining a MineCollab task's world (its section 10.1.1)
MINECOLLAB_JOINING_MESSAGE = ("Immediately start a conversation with other agents and collaborate together to "
                              "complete the task. Share resources and skill sets.")


class ItemsFamily(Family):
    """A family whose task wants items at the end (made, or placed by a builder): MineCollab's three."""

    joining_message = MINECOLLAB_JOINING_MESSAGE

    def unsolvable_reason(self, task: Task, version: str) -> str | None:
        """What the team's items and the world cannot make of the wanted items (mindpy.tasks.solvable)."""
        from ..solvable import items_unsolvable_reason

        return items_unsolvable_reason(task, version, self.wanted_items(task, version))

    def wanted_items(self, task: Task, version: str) -> tuple[dict[str, int], list[str]]:
        """The items the task needs at the end, and blocks no item places (builders)."""
        return task.targets(), []

    def plan_world(self, setup: TaskSetup, origin: Position | None, seed: int) -> None:
        """Stand the agents around `origin` (agent 0 on it)."""
        plan_agents_around(setup, need_origin(setup, origin), seed)

    def checker(self, task: Task, human_inventories: HumanInventories | None = None) -> Checker:
        """The items held (the human players' too); Hell's Kitchen: each dish in its own agent's hands."""
        if task.is_hells_kitchen:
            return HellsKitchenChecker(task)
        return ItemChecker(task, human_inventories)

    def what(self, task: Task) -> str:
        """The targets, or the blueprint's size."""
        from ..describe import blueprint_summary, items_text

        if task.blueprint is not None:
            return blueprint_summary(task)
        return "targets " + items_text(task.targets())


def need_origin(setup: TaskSetup, origin: Position | None) -> Position:
    """`origin`, or WorldSetupError: the family's world is laid out around agent 0's spot."""
    if origin is None:
        raise WorldSetupError(f"Task '{setup.task.id}': the set-up needs agent 0's position (origin)")
    return origin


__all__ = ["ItemsFamily", "need_origin"]
