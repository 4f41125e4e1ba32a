"""Block skills with real bots: collect, break, place, dig down, go to the surface."""

from __future__ import annotations

import time

from conftest import give_more as give
from conftest import isolate, wait_until
from mindpy.skills import Skills


def block_name(bot, x, y, z):
    block = bot.js.blockAt(bot.js.entity.position.floored().set(x, y, z))
    return block.name if block is not None else None


def test_collect_blocks_digs_and_picks_up(make_bot):
    bot = make_bot("lumber")
    x, y, z = isolate(bot)
    for i in range(3):
        bot.command(f"/setblock {x + 3 + 2 * i} {y} {z + 1} oak_log")
    time.sleep(0.5)
    skills = Skills(bot)
    assert skills.collect_blocks("oak_log", 3), skills.take_log()
    assert wait_until(lambda: bot.inventory().get("oak_log", 0) == 3, timeout=5, message="3 oak_log")
    assert all(block_name(bot, x + 3 + 2 * i, y, z + 1) == "air" for i in range(3))


def test_collected_crops_are_in_the_inventory_when_the_skill_says_so(make_bot):
    """Wheat drops wheat and seeds: the skill reports once every drop is picked up, not at the first (a cook's craft
    right after "Collected 3 wheat" found no wheat)."""
    bot = make_bot("farmer")
    x, y, z = isolate(bot)
    for i in range(3):
        bot.command(f"/setblock {x + 3 + 2 * i} {y - 1} {z + 1} farmland")
        bot.command(f"/setblock {x + 3 + 2 * i} {y} {z + 1} wheat[age=7]")
    wait_until(lambda: block_name(bot, x + 7, y, z + 1) == "wheat", timeout=5, message="the wheat planted")
    skills = Skills(bot)
    assert skills.collect_blocks("wheat", 3), skills.take_log()
    assert bot.inventory().get("wheat", 0) == 3, (bot.inventory(), skills.take_log())  # no waiting: already there


def test_collect_blocks_says_when_nothing_is_there(make_bot):
    bot = make_bot("lumber")
    isolate(bot)
    skills = Skills(bot)
    assert not skills.collect_blocks("diamond_ore", 1)
    assert "No diamond_ore nearby" in skills.take_log()


def test_collect_refuses_without_the_right_tool(make_bot):
    bot = make_bot("miner")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 2} {y} {z} stone")
    time.sleep(0.5)
    skills = Skills(bot)
    assert not skills.collect_blocks("stone", 1)
    assert "right tool" in skills.take_log()
    assert block_name(bot, x + 2, y, z) == "stone"


def test_break_block_at(make_bot):
    bot = make_bot("breaker")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 2} {y} {z + 2} dirt")
    time.sleep(0.5)
    skills = Skills(bot)
    assert skills.break_block_at(x + 2, y, z + 2), skills.take_log()
    assert wait_until(lambda: block_name(bot, x + 2, y, z + 2) == "air", message="the dirt to be gone")


def test_place_block_and_place_here(make_bot):
    bot = make_bot("builder")
    x, y, z = isolate(bot)
    give(bot, "cobblestone", 5)
    skills = Skills(bot)
    assert skills.place_block("cobblestone", x + 3, y, z + 3), skills.take_log()
    assert wait_until(lambda: block_name(bot, x + 3, y, z + 3) == "cobblestone", message="placed cobblestone")
    assert skills.place_here("cobblestone"), skills.take_log()
    assert wait_until(lambda: bot.inventory().get("cobblestone") == 3, message="two blocks used")
    assert not skills.place_block("diamond_block", x + 4, y, z)
    assert "do not have any diamond_block" in skills.take_log()


def test_place_here_walled_in_digs_a_cell_beside_the_bot(make_bot):
    """Down a 1x1 shaft no cell beside the bot is free: it clears one (not the chest) and places the table there."""
    bot = make_bot("miner")
    x, y, z = isolate(bot)
    bot.command(f"/fill {x - 1} {y} {z - 1} {x + 1} {y + 1} {z + 1} stone")
    bot.command(f"/setblock {x + 1} {y} {z} chest")
    bot.command(f"/fill {x} {y} {z} {x} {y + 1} {z} air")
    wait_until(lambda: block_name(bot, x, y + 1, z) == "air" and block_name(bot, x + 1, y, z) == "chest",
               message="the shaft")
    give(bot, "crafting_table", 1)
    give(bot, "stone_pickaxe", 1)
    skills = Skills(bot)
    assert skills.place_here("crafting_table"), skills.take_log()
    beside = [block_name(bot, x + dx, y, z + dz) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    assert beside.count("crafting_table") == 1 and beside[0] == "chest", beside
    assert "Dug out stone" in skills.take_log()


def test_cheat_placement_restricted_to_the_inventory(make_bot):
    """Cheat mode places with /setblock; a task's restrict_to_inventory allows only blocks the bot holds."""
    bot = make_bot("cheater")
    x, y, z = isolate(bot)
    give(bot, "oak_planks", 1)
    skills = Skills(bot)
    skills.runner.set_cheat(True)
    assert skills.place_block("stone_bricks", x + 2, y, z), skills.take_log()  # cheat mode: anything
    assert wait_until(lambda: block_name(bot, x + 2, y, z) == "stone_bricks", message="stone bricks set")
    skills.runner.restrict_to_inventory(True)
    assert not skills.place_block("stone_bricks", x + 3, y, z)
    assert "restricted to your current inventory" in skills.take_log()
    assert skills.place_block("oak_planks", x + 3, y, z), skills.take_log()
    assert wait_until(lambda: block_name(bot, x + 3, y, z) == "oak_planks", message="the held plank set")


def test_dig_down_then_go_to_surface(make_bot):
    bot = make_bot("digger")
    x, y, z = isolate(bot)
    bot.command(f"/give {bot.name} wooden_shovel 1")
    wait_until(lambda: bot.inventory().get("wooden_shovel") == 1, message="shovel")
    skills = Skills(bot)
    assert skills.dig_down(2), skills.take_log()
    assert bot.position[1] <= y - 2 + 0.1
    assert skills.go_to_surface() or True  # flat world: the hole is open to the sky
    assert skills.go_to_position(x + 5, y, z, 1), skills.take_log()
    assert abs(bot.position[1] - y) < 0.1


def test_place_block_climbs_to_reach_a_high_cell_without_breaking_anything(make_bot):
    """The top of a 6-block tower is out of reach from the ground (eyes to the block: 4.9 > 4.5): the bot climbs
    the steps beside it to place there, and breaks none of the protected blocks on its way (a CoBlock site)."""
    from mindpy.world import bulk

    bot = make_bot("climber")
    x, y, z = isolate(bot)
    bot.command("clear")
    tower = [(x + 4, y + i, z) for i in range(6)]
    steps = [(x + 2, y, z), (x + 3, y, z), (x + 3, y + 1, z)]  # a stair up to two blocks high, beside the tower
    for bx, by, bz in tower + steps:
        bot.command(f"setblock {bx} {by} {bz} red_wool")
    wait_until(lambda: set(bulk.block_names(bot, tower + steps)) == {"red_wool"}, timeout=10, message="the tower")
    give(bot, "blue_wool", 1)
    skills = Skills(bot)
    skills.runner.protect_blocks(["red_wool", "blue_wool"])
    assert skills.place_block("blue_wool", x + 4, y + 6, z), skills.take_log()
    assert bulk.block_names(bot, [(x + 4, y + 6, z)]) == ["blue_wool"]
    assert set(bulk.block_names(bot, tower + steps)) == {"red_wool"}


def test_place_block_out_of_reach_on_foot_climbs_dirt_stacked_on_the_ground_not_on_a_built_floor(make_bot):
    """Nothing walkable reaches the top of a 7-block column: the bot stacks dirt on the grass beside it and places
    from there. The built floor on one side is nearer, but a pillar there would be one more block to remove. The
    next block, on the ground, has it come down its pillar first (digging the dirt back)."""
    from mindpy.world import bulk

    bot = make_bot("pillar")
    x, y, z = isolate(bot)
    column = [(x + 5, y + i, z) for i in range(7)]
    floor = [(x + 4, y, z + dz) for dz in (-1, 0, 1)] + [(x + 6, y, z + dz) for dz in (-1, 0, 1)]
    for bx, by, bz in column + floor:
        bot.command(f"setblock {bx} {by} {bz} stone_bricks")
    wait_until(lambda: set(bulk.block_names(bot, column + floor)) == {"stone_bricks"}, timeout=10, message="the site")
    give(bot, "dirt", 12)
    give(bot, "oak_planks", 2)
    skills = Skills(bot)
    top = (x + 5, y + 7, z)
    assert skills.place_block("oak_planks", *top), skills.take_log()
    assert bulk.block_names(bot, [top]) == ["oak_planks"]
    above_floor = [(bx, by + k, bz) for bx, by, bz in floor for k in range(1, 7)]
    assert "dirt" not in bulk.block_names(bot, above_floor)  # no pillar on the built floor
    assert bot.inventory().get("dirt", 0) < 12 and bot.position[1] > y + 3  # it stands on its pillar
    skills.take_log()
    assert skills.place_block("oak_planks", x + 2, y, z + 3), skills.take_log()
    assert bot.position[1] < y + 1 and bot.inventory().get("dirt", 0) >= 10  # down again, with the dirt back
