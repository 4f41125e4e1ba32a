"""Commands that take blocks from the world or put them in it."""

from __future__ import annotations

from .common import MOST_BLOCKS_AWAY, MOST_ITEMS, POSITIVE, action, perform
from .params import BLOCK, INT, Param

COMMANDS = (
    action("collectBlocks", "Mine the nearest blocks of a kind and pick up what they drop.",
           Param("type", BLOCK, "The kind of block to mine.", example="oak_log"),
           Param("num", INT, "How many blocks to mine.", POSITIVE, cap=MOST_ITEMS, example=1),
           run=lambda ctx, block, num: perform(ctx, ctx.skills.collect_blocks(block, num))),
    action("placeHere", "Place one block where you stand. For single blocks such as a torch or a crafting table, "
                        "not for building.",
           Param("type", BLOCK, "The block to place.", example="crafting_table"),
           run=lambda ctx, block: perform(ctx, ctx.skills.place_here(block))),
    action("digDown", "Dig straight down, stopping before lava, water or a long fall.",
           Param("distance", INT, "How many blocks to dig down.", POSITIVE, cap=MOST_BLOCKS_AWAY, example=5),
           run=lambda ctx, distance: perform(ctx, ctx.skills.dig_down(distance))),
)
