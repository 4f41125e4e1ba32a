"""Bindings for the commands whose answers need no skill, only data the caller can hand over: the crafting
queries (from an inventory) and the blueprint queries (from the task's blueprint and a block lookup).

    bind_crafting(registry, inventory=lambda agent: agent_inventory_counts(agent),
                  table_nearby=lambda agent: agent_sees_a_crafting_table(agent))
    bind_blueprints(registry, blueprint=lambda agent: agent.task.blueprint if agent.task else None,
                    get_block=lambda agent: lambda x, y, z: world_block_name(agent, x, y, z))

`inventory(agent)` returns {item name: count}; `blueprint(agent)` returns a Blueprint or None. Until a task with a
blueprint is loaded the blueprint queries answer that there is none.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ..recipes import recipe_book
from .registry import CommandRegistry

NO_BLUEPRINT = "No blueprint is loaded: there is no building to check or to describe in this task."


def bind_crafting(registry: CommandRegistry, inventory: Callable[[Any], Mapping[str, int]],
                  table_nearby: Callable[[Any], bool] | None = None) -> None:
    """Bind !getCraftingPlan and !craftable."""
    book = recipe_book(registry.version)

    def table(agent: Any) -> bool:
        return bool(table_nearby(agent)) if table_nearby else False

    def get_crafting_plan(agent: Any, target_item: str, quantity: int) -> str:
        return book.plan(target_item, quantity, inventory(agent), table_available=table(agent)).text()

    def craftable(agent: Any) -> str:
        return book.craftable_text(inventory(agent), table_available=table(agent))

    registry.bind("getCraftingPlan", get_crafting_plan)
    registry.bind("craftable", craftable)


def bind_blueprints(registry: CommandRegistry, blueprint: Callable[[Any], Any],
                    get_block: Callable[[Any], Callable[[int, int, int], str]]) -> None:
    """Bind !checkBlueprintLevel, !checkBlueprint, !getBlueprint and !getBlueprintLevel."""

    def with_blueprint(answer: Callable[..., str]) -> Callable[..., str]:
        def run(agent: Any, *args: Any) -> str:
            found = blueprint(agent)
            return NO_BLUEPRINT if found is None else answer(agent, found, *args)
        return run

    registry.bind("checkBlueprintLevel",
                  with_blueprint(lambda agent, bp, level: bp.check_level_text(level, get_block(agent))))
    registry.bind("checkBlueprint", with_blueprint(lambda agent, bp: bp.check_text(get_block(agent))))
    registry.bind("getBlueprint", with_blueprint(lambda agent, bp: bp.describe_text()))
    registry.bind("getBlueprintLevel", with_blueprint(lambda agent, bp, level: bp.level_text(level)))
