"""Crops and plants on the embedded server: set up with /setblock, dug with bot.dig, placed with bot.placeBlock."""

from __future__ import annotations

import json

import pytest

from conftest import isolate, wait_until, world_js


def block_name(bot, x, y, z):
    found = json.loads(world_js().blockJson(bot.js, x, y, z))
    return found and found["name"]


def setblock(bot, x, y, z, block):
    bot.command(f"/setblock {x} {y} {z} {block}")
    name = block.split("[")[0]
    wait_until(lambda: block_name(bot, x, y, z) == name, message=f"{block} at {x} {y} {z}")


def dig_and_collect(bot, x, y, z):
    """Dig the block with bot.dig, walk over what dropped; returns the inventory once it stops changing."""
    world_js().digAt(bot.js, x, y, z, timeout=15)
    assert block_name(bot, x, y, z) == "air"
    wait_until(lambda: any(e["name"] == "item" for e in json.loads(world_js().entitiesJson(bot.js, 8))), message="drops")
    assert world_js().collectDrops(bot.js, 8, 8000, timeout=12) == 0
    return bot.inventory()


def clear(bot):
    bot.command(f"/clear {bot.name}")
    wait_until(lambda: bot.inventory() == {}, message="an empty inventory")


# crop, its ripe age, what a ripe one drops (item: (min, max)), what a young one drops
CROPS = [
    ("wheat", 7, {"wheat": (1, 1), "wheat_seeds": (1, 4)}, {"wheat_seeds": 1}),
    ("beetroots", 3, {"beetroot": (1, 1), "beetroot_seeds": (1, 4)}, {"beetroot_seeds": 1}),
    ("carrots", 7, {"carrot": (2, 5)}, {"carrot": 1}),
    ("potatoes", 7, {"potato": (2, 5)}, {"potato": 1}),
]


@pytest.mark.parametrize("crop, ripe, grown, young", CROPS, ids=[c[0] for c in CROPS])
def test_crops_drop_by_their_age(make_bot, crop, ripe, grown, young):
    bot = make_bot("farmer")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 1} {y - 1} {z} farmland")
    setblock(bot, x + 1, y, z, f"{crop}[age={ripe}]")
    inventory = dig_and_collect(bot, x + 1, y, z)
    inventory.pop("poisonous_potato", None)  # a 2% extra of ripe potatoes
    assert set(inventory) == set(grown), inventory
    for item, (low, high) in grown.items():
        assert low <= inventory[item] <= high, inventory

    clear(bot)
    setblock(bot, x + 1, y, z, f"{crop}[age=1]")
    assert dig_and_collect(bot, x + 1, y, z) == young


@pytest.mark.parametrize("plant", ["sugar_cane", "pumpkin", "brown_mushroom", "red_mushroom"])
def test_plants_can_be_placed_and_collected(make_bot, plant):
    bot = make_bot("gardener")
    x, y, z = isolate(bot)
    bot.command(f"/give {bot.name} {plant} 1")
    wait_until(lambda: bot.inventory() == {plant: 1}, message=f"a {plant}")
    if plant == "sugar_cane":  # sugar cane grows next to water
        setblock(bot, x + 3, y - 1, z + 1, "water")
    world_js().placeOnTop(bot.js, plant, x + 2, y - 1, z, timeout=10)
    wait_until(lambda: block_name(bot, x + 2, y, z) == plant, message=f"the {plant} placed")
    assert bot.inventory() == {}
    assert dig_and_collect(bot, x + 2, y, z) == {plant: 1}


def test_a_sugar_cane_column_breaks_above_the_cut(make_bot):
    bot = make_bot("cutter")
    x, y, z = isolate(bot)
    for height in range(3):
        setblock(bot, x + 2, y + height, z, "sugar_cane")
    assert dig_and_collect(bot, x + 2, y, z) == {"sugar_cane": 3}
    assert block_name(bot, x + 2, y + 1, z) == "air" and block_name(bot, x + 2, y + 2, z) == "air"


def test_a_plant_on_a_dug_block_drops_too(make_bot):
    bot = make_bot("digger")
    x, y, z = isolate(bot)
    setblock(bot, x + 2, y, z, "dirt")
    setblock(bot, x + 2, y + 1, z, "red_mushroom")
    assert dig_and_collect(bot, x + 2, y, z) == {"dirt": 1, "red_mushroom": 1}
    assert block_name(bot, x + 2, y + 1, z) == "air"


def test_pickaxe_blocks_drop_nothing_by_hand(make_bot):
    bot = make_bot("quarry")
    x, y, z = isolate(bot)
    setblock(bot, x + 2, y, z, "netherrack")  # like stone, but quick to dig by hand
    world_js().digAt(bot.js, x + 2, y, z, timeout=20)
    assert block_name(bot, x + 2, y, z) == "air"
    assert world_js().collectDrops(bot.js, 8, 1500, timeout=5) == 0 and bot.inventory() == {}
    bot.command(f"/give {bot.name} wooden_pickaxe 1")
    wait_until(lambda: bot.inventory() == {"wooden_pickaxe": 1}, message="a pickaxe")
    world_js().hold(bot.js, "wooden_pickaxe", timeout=5)
    setblock(bot, x + 2, y, z, "stone")
    assert dig_and_collect(bot, x + 2, y, z) == {"wooden_pickaxe": 1, "cobblestone": 1}


def block_age(bot, x, y, z):
    found = json.loads(world_js().blockJson(bot.js, x, y, z))
    return found and int(found["properties"].get("age", -1))


def test_tilling_planting_and_bone_meal(make_bot):
    bot = make_bot("planter")
    x, y, z = isolate(bot)
    for item, count in {"wooden_hoe": 1, "wheat_seeds": 2, "bone_meal": 3}.items():
        bot.command(f"/give {bot.name} {item} {count}")
    wait_until(lambda: len(bot.inventory()) == 3, message="the tools")
    world_js().useOnBlock(bot.js, "wheat_seeds", x + 3, y - 1, z, timeout=5)  # seeds do not grow on grass
    world_js().useOnBlock(bot.js, "wooden_hoe", x + 2, y - 1, z, timeout=5)
    wait_until(lambda: block_name(bot, x + 2, y - 1, z) == "farmland", message="farmland")
    assert block_name(bot, x + 3, y, z) == "air" and bot.inventory()["wheat_seeds"] == 2

    world_js().placeOnTop(bot.js, "wheat_seeds", x + 2, y - 1, z, timeout=10)
    wait_until(lambda: block_name(bot, x + 2, y, z) == "wheat", message="wheat planted")
    assert block_age(bot, x + 2, y, z) == 0
    wait_until(lambda: bot.inventory().get("wheat_seeds") == 1, message="one seed used")

    world_js().useOnBlock(bot.js, "bone_meal", x + 2, y, z, timeout=5)
    wait_until(lambda: block_age(bot, x + 2, y, z) >= 2, message="the wheat grown by bone meal")
    wait_until(lambda: bot.inventory().get("bone_meal") == 2, message="one bone meal used")


def test_crops_grow_by_themselves(tmp_path):
    from mindpy.bridge import create_bot
    from mindpy.server import EmbeddedServer

    with EmbeddedServer(run_dir=tmp_path, options={"cropGrowthSpeed": 60}) as server:  # a stage a second
        bot = create_bot("waiter", server.host, server.port)
        try:
            x, y, z = isolate(bot)
            setblock(bot, x + 2, y - 1, z, "farmland")
            setblock(bot, x + 2, y, z, "carrots[age=0]")
            setblock(bot, x + 3, y, z, "carrots[age=0]")  # not on farmland: does not grow
            wait_until(lambda: block_age(bot, x + 2, y, z) == 7, timeout=20, message="ripe carrots")
            assert block_age(bot, x + 3, y, z) == 0
        finally:
            bot.close()
