"""Commands that move items: to other players, into chests, onto the ground, into the hand or the mouth."""

from __future__ import annotations

from .common import ALL_OR_SOME, MOST_ITEMS, POSITIVE, action, perform, player
from .params import INT, ITEM, Param

COMMANDS = (
    action("givePlayer", "Walk to a player and hand over items.",
           player("Who gets the items."),
           Param("item_name", ITEM, "The item to give.", example="oak_planks"),
           Param("num", INT, "How many to give.", POSITIVE, cap=MOST_ITEMS, example=1),
           run=lambda ctx, name, item, num: perform(ctx, ctx.skills.give_to_player(name, item, num))),
    action("consume", "Eat or drink an item from your inventory.",
           Param("item_name", ITEM, "The food or drink.", example="bread"),
           run=lambda ctx, item: perform(ctx, ctx.skills.consume(item))),
    action("equip", "Hold a tool or weapon, or put on a piece of armour.",
           Param("item_name", ITEM, "The item to equip.", example="iron_pickaxe"),
           run=lambda ctx, item: perform(ctx, ctx.skills.equip(item))),
    action("putInChest", "Put items into the nearest chest.",
           Param("item_name", ITEM, "The item to store.", example="cobblestone"),
           Param("num", INT, "How many to store; -1 for all you have.", ALL_OR_SOME, cap=MOST_ITEMS, example=1),
           run=lambda ctx, item, num: perform(ctx, ctx.skills.put_in_chest(item, num))),
    action("takeFromChest", "Take items out of the nearest chest.",
           Param("item_name", ITEM, "The item to take.", example="cobblestone"),
           Param("num", INT, "How many to take; -1 for all there are.", ALL_OR_SOME, cap=MOST_ITEMS, example=1),
           run=lambda ctx, item, num: perform(ctx, ctx.skills.take_from_chest(item, num))),
    action("viewChest", "List what the nearest chest holds.",
           run=lambda ctx: perform(ctx, ctx.skills.view_chest())),
    action("discard", "Drop items from your inventory on the ground.",
           Param("item_name", ITEM, "The item to drop.", example="dirt"),
           Param("num", INT, "How many to drop; -1 for all you have.", ALL_OR_SOME, cap=MOST_ITEMS, example=1),
           run=lambda ctx, item, num: perform(ctx, ctx.skills.discard(item, num))),
)
