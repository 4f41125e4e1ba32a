"""The embedded server's world, commands, animals, crops, food, doors and beds, through real bots."""

from __future__ import annotations

import time

import pytest

from conftest import isolate, wait_until
from mindpy.skills import Skills
from mindpy.world import queries


def block_at(bot, x, y, z):
    block = queries.block_at(bot, x, y, z)
    return (block["name"], block["properties"]) if block else (None, {})


def give(bot, items):
    for name, count in items.items():
        bot.chat(f"/give {bot.name} {name} {count}")
    wait_until(lambda: all(bot.inventory().get(n, 0) >= c for n, c in items.items()), message=str(items))


def test_superflat_shaped_like_vanilla(make_bot):
    bot = make_bot("surveyor")
    x, y, z = isolate(bot)
    assert y == -60 and abs(bot.position[1] + 60) < 0.01
    assert block_at(bot, x, -61, z)[0] == "grass_block"
    assert block_at(bot, x, -62, z)[0] == "dirt"
    assert block_at(bot, x, -63, z)[0] == "dirt"
    assert block_at(bot, x, -64, z)[0] == "bedrock"
    assert block_at(bot, x, -60, z)[0] == "air"


def test_setblock_with_states_fill_and_keep(make_bot):
    bot = make_bot("builder")
    x, y, z = isolate(bot)
    bot.chat(f"/setblock {x + 2} {y} {z} oak_stairs[facing=west,half=top]")
    bot.chat(f"/fill {x + 3} {y} {z + 2} {x + 5} {y + 2} {z + 4} stone hollow")
    wait_until(lambda: block_at(bot, x + 4, y + 2, z + 3)[0] == "stone", message="the fill")
    bot.chat(f"/fill {x + 3} {y} {z + 2} {x + 5} {y} {z + 4} oak_planks replace stone")
    bot.chat(f"/setblock {x + 2} {y} {z} dirt keep")
    wait_until(lambda: block_at(bot, x + 4, y, z + 3)[0] == "oak_planks", message="the filtered fill")
    name, props = block_at(bot, x + 2, y, z)
    assert name == "oak_stairs" and props["facing"] == "west" and props["half"] == "top"
    assert block_at(bot, x + 4, y + 1, z + 3)[0] == "air"          # hollow inside
    assert block_at(bot, x + 3, y + 1, z + 2)[0] == "stone"        # walls
    assert block_at(bot, x + 4, y, z + 3)[0] == "oak_planks"       # replace filtered to the stone floor


def test_fill_refuses_huge_regions_with_the_vanilla_message(make_bot):
    bot = make_bot("greedy")
    said = []
    bot.on("messagestr", lambda message, *rest: said.append(message))
    bot.chat("/fill 0 -60 0 100 0 100 stone")
    wait_until(lambda: any("Too many blocks" in m for m in said), message="the refusal")


def test_clear_removes_items(make_bot):
    bot = make_bot("cleaner")
    give(bot, {"dirt": 10, "apple": 2})
    bot.chat(f"/clear {bot.name} dirt 4")
    wait_until(lambda: bot.inventory().get("dirt") == 6, message="6 dirt left")
    bot.chat(f"/clear {bot.name}")
    assert wait_until(lambda: bot.inventory() == {}, message="an empty inventory")


@pytest.mark.parametrize("animal, loot", [
    ("cow", {"beef", "leather"}), ("sheep", {"mutton", "white_wool"}), ("pig", {"porkchop"}),
    ("chicken", {"chicken", "feather"}), ("rabbit", {"rabbit", "rabbit_hide"}), ("mooshroom", {"beef", "leather"}),
])
def test_animals_can_be_hunted_for_their_loot(make_bot, animal, loot):
    bot = make_bot("hunter")
    x, y, z = isolate(bot)
    give(bot, {"diamond_sword": 1})
    bot.chat(f"/summon {animal} {x + 3} {y} {z}")
    wait_until(lambda: any(e["name"] == animal for e in queries.entities(bot)), message=f"a {animal}")
    skills = Skills(bot)
    assert skills.attack(animal), skills.take_log()
    inventory = wait_until(lambda: (inv := bot.inventory()) and loot <= set(inv) and inv, timeout=10,
                           message=f"{loot} picked up")
    assert loot <= set(inventory)
    wait_until(lambda: not any(e["name"] == animal for e in queries.entities(bot)), message="the body to vanish")


def test_kill_selector_removes_animals_and_dropped_items(make_bot):
    bot = make_bot("cleaner")
    x, y, z = isolate(bot)
    bot.chat(f"/summon pig {x + 4} {y} {z}")
    bot.chat(f"/summon chicken {x + 4} {y} {z + 2}")
    wait_until(lambda: {"pig", "chicken"} <= {e["name"] for e in queries.entities(bot)}, message="animals")
    bot.chat("/kill @e[type=pig]")
    wait_until(lambda: "pig" not in {e["name"] for e in queries.entities(bot)}, message="no pig")
    assert "chicken" in {e["name"] for e in queries.entities(bot)}
    wait_until(lambda: any(e["name"] == "item" for e in queries.entities(bot)), message="the pig's drop")
    bot.chat("/kill @e[type=item]")
    assert wait_until(lambda: not any(e["name"] == "item" for e in queries.entities(bot)), message="no items")


def test_animals_wander(make_bot):
    bot = make_bot("watcher")
    x, y, z = isolate(bot)
    bot.chat(f"/summon cow {x + 5} {y} {z + 5}")
    cow = lambda: next((e for e in queries.entities(bot, 32) if e["name"] == "cow"), None)
    start = wait_until(cow, message="a cow")["distance"]
    wait_until(lambda: abs(cow()["distance"] - start) > 0.3, timeout=20, message="the cow to move")


@pytest.mark.parametrize("crop, grown, young", [
    ("wheat", {"wheat", "wheat_seeds"}, {"wheat_seeds"}),
    ("beetroots", {"beetroot", "beetroot_seeds"}, {"beetroot_seeds"}),
    ("carrots", {"carrot"}, {"carrot"}),
    ("potatoes", {"potato"}, {"potato"}),
])
def test_crops_drop_by_age(make_bot, crop, grown, young):
    bot = make_bot("farmer")
    x, y, z = isolate(bot)
    ripe = 3 if crop == "beetroots" else 7
    bot.chat(f"/setblock {x + 2} {y} {z} {crop}[age={ripe}]")
    wait_until(lambda: block_at(bot, x + 2, y, z)[0] == crop, message=crop)
    bot.js.dig(bot.js.blockAt(bot.js.entity.position.floored().set(x + 2, y, z)), timeout=10)
    skills = Skills(bot)
    collect = lambda: skills.pickup_nearby_items(6) and False  # walk over the drops, then look again
    inventory = wait_until(lambda: collect() or (grown <= set(bot.inventory()) and bot.inventory()), timeout=10,
                           message=f"{grown}")
    if crop in ("carrots", "potatoes"):
        assert inventory[next(iter(grown))] >= 2
    bot.chat(f"/clear {bot.name}")
    wait_until(lambda: bot.inventory() == {}, message="empty")
    bot.chat(f"/setblock {x + 2} {y} {z} {crop}[age=1]")
    wait_until(lambda: block_at(bot, x + 2, y, z)[0] == crop, message=f"young {crop}")
    bot.js.dig(bot.js.blockAt(bot.js.entity.position.floored().set(x + 2, y, z)), timeout=10)
    inventory = wait_until(lambda: collect() or bot.inventory(), timeout=10, message="the young crop's drop")
    assert set(inventory) == young and sum(inventory.values()) == 1


@pytest.mark.parametrize("plant", ["sugar_cane", "pumpkin", "brown_mushroom", "red_mushroom"])
def test_plants_are_collectable(make_bot, plant):
    bot = make_bot("gardener")
    x, y, z = isolate(bot)
    bot.chat(f"/setblock {x + 2} {y} {z} {plant}")
    wait_until(lambda: block_at(bot, x + 2, y, z)[0] == plant, message=plant)
    skills = Skills(bot)
    assert skills.collect_blocks(plant, 1), skills.take_log()
    assert wait_until(lambda: bot.inventory().get(plant) == 1, message=f"1 {plant}")


def test_digging_stone_by_hand_drops_nothing_but_with_a_pickaxe_cobblestone(make_bot):
    bot = make_bot("quarry")
    x, y, z = isolate(bot)
    bot.chat(f"/setblock {x + 2} {y} {z} stone")
    bot.chat(f"/setblock {x + 2} {y + 1} {z} stone")
    wait_until(lambda: block_at(bot, x + 2, y + 1, z)[0] == "stone", message="stone")
    bot.js.dig(bot.js.blockAt(bot.js.entity.position.floored().set(x + 2, y + 1, z)), timeout=20)
    Skills(bot).pickup_nearby_items(6)
    assert bot.inventory() == {}
    give(bot, {"wooden_pickaxe": 1})
    skills = Skills(bot)
    assert skills.collect_blocks("stone", 1), skills.take_log()
    assert wait_until(lambda: bot.inventory().get("cobblestone") == 1, message="cobblestone")


def test_eating_restores_hunger(make_bot):
    bot = make_bot("eater")
    give(bot, {"bread": 2, "mushroom_stew": 1})
    bot.chat(f"/mindpy_hunger {bot.name} 6")
    wait_until(lambda: bot.js.food == 6, message="hunger 6")
    skills = Skills(bot)
    assert skills.consume("bread"), skills.take_log()
    wait_until(lambda: bot.js.food == 11, message="bread gives 5")
    assert skills.consume("mushroom_stew"), skills.take_log()
    wait_until(lambda: bot.js.food == 17, message="stew gives 6")
    assert wait_until(lambda: bot.inventory() == {"bread": 1, "bowl": 1}, message="the stew's bowl left")


def test_doors_and_beds_place_both_halves(make_bot):
    bot = make_bot("carpenter")
    x, y, z = isolate(bot)
    give(bot, {"oak_door": 1, "red_bed": 1})
    skills = Skills(bot)
    assert skills.place_block("oak_door", x + 3, y, z), skills.take_log()
    assert skills.place_block("red_bed", x + 3, y, z + 3), skills.take_log()
    wait_until(lambda: block_at(bot, x + 3, y + 1, z)[0] == "oak_door", message="the upper door half")
    assert block_at(bot, x + 3, y, z)[1]["half"] == "lower" and block_at(bot, x + 3, y + 1, z)[1]["half"] == "upper"
    foot = block_at(bot, x + 3, y, z + 3)
    assert foot[0] == "red_bed" and foot[1]["part"] == "foot"
    heads = [block_at(bot, x + 3 + dx, y, z + 3 + dz) for dx, dz in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    assert any(name == "red_bed" and props["part"] == "head" for name, props in heads)
