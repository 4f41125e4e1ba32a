"""The construction family (MineCollab's): the team builds a blueprint, level by level, from the materials its
members hold. `FAMILY` is its Family object (mindpy.tasks.family)."""

from __future__ import annotations

from typing import Any, ClassVar

from ..common import ItemsFamily


class ConstructionFamily(ItemsFamily):
    """MineCollab construction: a blueprint built from the team's materials."""

    name = "construction"
    summary = "build a blueprint from the materials each agent holds (MineCollab)"
    required_fields = ("blueprint",)
    inferred = True
    inference_rank = 0  # a blueprint says construction whatever else the task holds
    builds = True
    partial_scores = True  # matches / (matches + mismatches) over the blueprint
    split_sizes: ClassVar[dict[str, int]] = {"train": 2000, "test": 30}
    oracle_entry = "mindpy.tasks.families.construction.oracle:ConstructionPlan"
    probes_entry = "mindpy.tasks.families.construction.probes:ConstructionQuestions"  # its probe questions

    def examples(self) -> dict[str, dict[str, Any]]:
        import random

        from .generator import house, house_task

        blueprint = house(0, 0, 1, 1, random.Random(0))
        return {"example_construction_materials_0_rooms_0_window_1_carpet_1": house_task(blueprint, 0)}

    def recognises(self, data: Any) -> str | None:
        return "it has a blueprint" if "blueprint" in data else None

    def unplayable_reason(self, task: Any) -> str | None:
        return None if task.blueprint is not None else "a construction task needs a blueprint"

    def generate_raw(self, split: str, seed: int, count: int | None, agents: Any = None) -> dict[str, Any]:
        from ...splits import fingerprints_of_test_split
        from .generator import generate

        # no house of the test split in training
        exclude = fingerprints_of_test_split(self.name) if split == "train" else ()
        return generate(split, seed, self.count(split, count), agents=agents, exclude=exclude)

    def unsolvable_reason(self, task: Any, version: str) -> str | None:
        from ...solvable import blueprint_clash

        return blueprint_clash(task) or super().unsolvable_reason(task, version)

    def wanted_items(self, task: Any, version: str) -> tuple[dict[str, int], list[str]]:
        from ...solvable import blueprint_items

        return blueprint_items(task, version)

    def plan_world(self, setup: Any, origin: Any, seed: int) -> None:
        from ...world import plan_agents_around
        from .world import construction_start, plan_construction_site

        plan_construction_site(setup)
        plan_agents_around(setup, construction_start(setup.task), seed)

    def checker(self, task: Any, human_inventories: Any = None) -> Any:
        from ...checkers import ConstructionChecker

        return ConstructionChecker(task.blueprint)

    def configure_agent(self, task: Any, agent: Any) -> None:
        """The blueprint's blocks are ones the agent's paths never dig through (it breaks them only when told). As
        in the paper, agents build without cheats (blocks placed from the inventory by hand); the cheat mode
        (blocks set with /setblock) is on only with `--cheat` or a profile's own `cheat` mode."""
        from ...blueprint import block_base_name

        names = {block_base_name(cell.block) for cell in task.blueprint.cells(include_air=False)}
        agent.skills.runner.protect_blocks(sorted(names))


FAMILY = ConstructionFamily()
