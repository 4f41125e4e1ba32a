"""Commands that act on creatures, players and usable blocks: fighting, sleeping, using, trading."""

from __future__ import annotations

from .common import MOST_ITEMS, NON_NEGATIVE, POSITIVE, action, perform, player
from .params import BLOCK, ENTITY, INT, ITEM_OR_HAND, STRING, Param


def _villager() -> Param:
    return Param("id", INT, "The villager's entity id (from !entities).", NON_NEGATIVE, example=12)


COMMANDS = (
    action("attack", "Attack and kill the nearest creature of a kind.",
           Param("type", ENTITY, "The kind of creature.", example="zombie"),
           run=lambda ctx, entity: perform(ctx, ctx.skills.attack(entity))),
    action("attackPlayer", "Fight a player until they die or get away. It is only a game.",
           player("The player to attack."),
           run=lambda ctx, name: perform(ctx, ctx.skills.attack_player(name))),
    action("goToBed", "Go to the nearest bed and sleep in it.",
           run=lambda ctx: perform(ctx, ctx.skills.go_to_bed())),
    action("activate", "Use the nearest block of a kind: open a door, press a button, pull a lever...",
           Param("type", BLOCK, "The kind of block to use.", example="lever"),
           run=lambda ctx, block: perform(ctx, ctx.skills.activate(block))),
    action("useOn", "Use an item (or your empty hand) on the nearest block or creature of a kind, e.g. shears on a "
                    "sheep or a bucket on water.",
           Param("tool_name", ITEM_OR_HAND, 'The item to use, or "hand".', example="bucket"),
           Param("target", STRING, "The kind of block or creature to use it on.", example="water"),
           run=lambda ctx, tool, target: perform(ctx, ctx.skills.use_on(tool, target))),
    action("showVillagerTrades", "List what a villager trades.",
           _villager(),
           run=lambda ctx, villager: perform(ctx, ctx.skills.show_villager_trades(villager))),
    action("tradeWithVillager", "Trade with a villager.",
           _villager(),
           Param("index", INT, "Which trade, as numbered by !showVillagerTrades (from 1).", POSITIVE, example=1),
           Param("count", INT, "How many times to make the trade.", POSITIVE, cap=MOST_ITEMS, example=1),
           run=lambda ctx, villager, index, count: perform(ctx, ctx.skills.trade_with_villager(villager, index,
                                                                                               count))),
)
