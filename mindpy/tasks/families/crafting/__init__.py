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
    required_fields = ("target",)
    inferred = True
    inference_rank = 2  # the last asked: it reads any task the others do not
    split_sizes: ClassVar[dict[str, int]] = {"train": 1200, "test": 100}
    oracle_entry = "mindpy.tasks.families.crafting.oracle:CraftingPlan"
    probes_entry = "mindpy.tasks.families.crafting.probes:CraftingQuestions"  # its probe questions (mindpy.probes)

    def examples(self) -> dict[str, dict[str, Any]]:
        return {"example_crafting_wooden_pickaxe": {
            "type": "techtree",
            "goal": "Collaborate with the other agent to craft a wooden_pickaxe.",
            "conversation": "Let's work together to craft a wooden_pickaxe.",
            "agent_count": 2,
            # 2 logs make 8 planks; the pickaxe takes 3 planks and 2 sticks (2 more planks): 5 planks,
            # so neither agent's single log is enough.
            "initial_inventory": {"0": {"oak_log": 1}, "1": {"crafting_table": 1, "oak_log": 1}},
            "target": "wooden_pickaxe",
            "number_of_target": 1,
            "timeout": 300,
            "blocked_actions": {"0": [], "1": []},
            "missing_items": [],
            "requires_ctable": True,
            "max_depth": 2,
            "depth": 2,
        }}

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
