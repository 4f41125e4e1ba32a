"""Commands that make things: crafting and smelting, and the plans and lists that go with them.

`!craftRecipe(item, num)` counts uses of the recipe (one use of 1 oak_log makes 4 oak_planks), and so does the
craftRecipe skill: the count is passed through unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..recipes import recipe_book
from ..world import queries as world
from .common import MOST_ITEMS, POSITIVE, action, perform, query
from .context import AgentContext
from .params import INT, ITEM, Param

TABLE_REACH = 4.5  # blocks: how close a crafting table must be to count as "nearby" when planning


def _inventory(ctx: AgentContext) -> dict[str, int]:
    return dict(world.inventory(ctx.bot)["items"])


def _table_nearby(ctx: AgentContext) -> bool:
    return any(b["name"] == "crafting_table" and b["distance"] <= TABLE_REACH
               for b in world.nearby_blocks(ctx.bot, 6))


def crafting_plan_text(version: str, inventory: Mapping[str, int], table_nearby: bool, target: str,
                       quantity: int) -> str:
    """The plan for `quantity` of `target` from an inventory, as the model reads it."""
    return recipe_book(version).plan(target, quantity, inventory, table_available=table_nearby).text()


def craftable_text(version: str, inventory: Mapping[str, int], table_nearby: bool) -> str:
    """What could be crafted from an inventory right now, as the model reads it."""
    return recipe_book(version).craftable_text(inventory, table_available=table_nearby)


COMMANDS = (
    query("craftable", "List what you could craft right now from your inventory.",
          run=lambda ctx: craftable_text(ctx.version, _inventory(ctx), _table_nearby(ctx))),
    query("getCraftingPlan", "Work out how to craft an item: the raw materials it comes from, what your inventory "
                             "is missing, and each crafting step in order with its counts.",
          Param("targetItem", ITEM, "The item you want to end up with.", example="wooden_pickaxe"),
          Param("quantity", INT, "How many of it you want.", POSITIVE, example=1),
          run=lambda ctx, target, quantity: crafting_plan_text(ctx.version, _inventory(ctx), _table_nearby(ctx),
                                                               target, quantity)),
    action("craftRecipe", "Craft an item, using a crafting table when the recipe needs one.",
           Param("recipe_name", ITEM, "The item to make.", example="oak_planks"),
           Param("num", INT, "How many times to use the recipe. This is not the number of items: one use can make "
                             "several (1 log gives 4 planks).", POSITIVE, cap=MOST_ITEMS, example=4),
           run=lambda ctx, item, times: perform(ctx, ctx.skills.craft_recipe(item, times))),
    action("smeltItem", "Smelt or cook items in a furnace (found nearby or placed from your inventory), with fuel "
                        "from your inventory.",
           Param("item_name", ITEM, "The item to put in, e.g. raw_iron or beef.", example="raw_iron"),
           Param("num", INT, "How many to smelt.", POSITIVE, cap=MOST_ITEMS, example=1),
           run=lambda ctx, item, num: perform(ctx, ctx.skills.smelt_item(item, num))),
    action("clearFurnace", "Take everything out of the nearest furnace.",
           run=lambda ctx: perform(ctx, ctx.skills.clear_furnace())),
)
