"""The cooking family (MineCollab's): the team makes dishes in a world with a farm, animals and a kitchen; Hell's
Kitchen tasks give each agent its own dish. `FAMILY` is its Family object (mindpy.tasks.family)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from ..common import ItemsFamily, need_origin


class CookingFamily(ItemsFamily):
    """MineCollab cooking: dishes from the farm, animals and kitchen."""

    name = "cooking"
    summary = "cook dishes from the farm, the animals and the kitchen (MineCollab; Hell's Kitchen variant)"
    required_fields = ("target",)
    inferred = True
    inference_rank = 1
    split_sizes: ClassVar[dict[str, int]] = {"train": 350, "test": 54}
    oracle_entry = "mindpy.tasks.families.cooking.oracle:CookingPlan"
    probes_entry = "mindpy.tasks.families.cooking.probes:CookingQuestions"  # its probe questions (mindpy.probes)

    def examples(self) -> dict[str, dict[str, Any]]:
        import random

        from .generator import hells_kitchen_task

        _, task = hells_kitchen_task(["bread", "cooked_beef"], random.Random(0))
        return {"example_cooking_bread_cooked_beef_hells_kitchen": task}

    def recognises(self, data: Any) -> str | None:
        if "recipes" in data:
            return "it has recipes"
        if isinstance(data.get("target"), (list, Mapping)):
            return "its target lists several items, as cooking tasks do"
        return None

    def generate_raw(self, split: str, seed: int, count: int | None, agents: Any = None) -> dict[str, Any]:
        from .generator import generate

        return generate(split, seed, self.count(split, count), agents=agents)

    def plan_world(self, setup: Any, origin: Any, seed: int) -> None:
        from ...world import plan_agents_around
        from .world import plan_cooking_world

        origin = need_origin(setup, origin)
        plan_cooking_world(setup, origin)
        plan_agents_around(setup, origin, seed)

    def hells_kitchen(self, task: Any) -> bool:
        """MINDcraft marks Hell's Kitchen tasks by their id; the target list is then ordered by agent."""
        return "hells_kitchen" in task.id and isinstance(task.target, list)

    def kind_text(self, task: Any) -> str:
        return self.name + (" (Hell's Kitchen)" if task.is_hells_kitchen else "")


FAMILY = CookingFamily()
