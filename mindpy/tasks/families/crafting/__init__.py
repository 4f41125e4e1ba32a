"""The crafting family (MineCollab's; MINDcraft's files call it `techtree`): the team crafts a target item from what
its members hold, near a small forest. `FAMILY` is its Family object (mindpy.tasks.family)."""

from __future__ import annotations

from typing import Any, ClassVar

from ..common import ItemsFamily, need_origin


class CraftingFamily(ItemsFamily):
    """MineCollab crafting: a target item from the team's items."""

    name = "crafting"
    type_name = "techtree"
    aliases = ("techtree",)
    summary = "craft a target item together from what each agent holds (MineCollab)"
    inferred = True
    inference_rank = 2  # the last asked: it reads any task the others do not
    split_sizes: ClassVar[dict[str, int]] = {"train": 1200, "test": 100}
    oracle_entry = "mindpy.tasks.families.crafting.oracle:CraftingPlan"
    probes_entry = "mindpy.tasks.families.crafting.probes:CraftingQuestions"  # its probe questions (mindpy.probes)

    def recognises(self, data: Any) -> str | None:
        return "it has no blueprint, no recipes and one target item"

    def generate_raw(self, split: str, seed: int, count: int | None, agents: Any = None) -> dict[str, Any]:
        from .generator import generate

        return generate(split, seed, self.count(split, count), agents=agents)

    def plan_world(self, setup: Any, origin: Any, seed: int) -> None:
        from ...world import plan_agents_around
        from .world import forest_wood, plan_forest

        origin = need_origin(setup, origin)
        plan_forest(setup, origin, forest_wood(setup.task))
        plan_agents_around(setup, origin, seed)


FAMILY = CraftingFamily()
