"""The scripted player's plan for crafting goals (mindpy.oracle.plan): the lead crafts; the others give it every
item that can go into the target."""

from __future__ import annotations

from ....oracle import crafting
from ....oracle.cooking import Move
from ....oracle.goals import TaskGoal
from ....oracle.plan import ItemsPlan
from ....oracle.prompt import PromptView


class CraftingPlan(ItemsPlan):
    """Crafting: the lead crafts the target from the team's items."""

    verb = "craft the"

    def made_of(self, target: str) -> set[str]:
        return set(crafting.relevant_items(target, self.player.version))

    def work(self, view: PromptView, goal: TaskGoal) -> tuple[Move | None, dict[str, int]]:
        if view.name != self.player.lead(view):
            return None, {}
        move: Move | None = None
        lack: dict[str, int] = {}
        for target, n in goal.targets.items():
            move, lack = crafting.crafter_step(target, n, view.inventory, goal.missing_items, self.player.version)
            if move is not None and move.command in self.mem.stuck:
                lack = {move.item: move.count}
                move = None
            if move or lack:
                break
        return move, lack

    def request_text(self, view: PromptView, goal: TaskGoal, lack: dict[str, int]) -> str:
        target, count = next(iter(goal.targets.items()))
        needed = crafting.lack_text(target, count, view.inventory, lack, self.player.version)
        return (f"I still need {needed} (or what it makes) for the {goal.target_text or 'task'}. "
                f"Please give me everything you have for it.")
