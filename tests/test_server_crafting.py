"""Crafting on the embedded server through mineflayer's own bot.craft (via the craft skill and directly)."""

from __future__ import annotations

import time

import pytest

from conftest import isolate, wait_until
from mindpy.skills import Skills

# target: (ingredients to give, how many to craft, expected count of the target afterwards, leftovers expected)
RECIPES = {
    "oak_planks": ({"oak_log": 1}, 4, 4, {}),
    "stick": ({"oak_planks": 2}, 4, 4, {}),
    "crafting_table": ({"oak_planks": 4}, 1, 1, {}),
    "wooden_pickaxe": ({"oak_planks": 3, "stick": 2}, 1, 1, {}),
    "stone_pickaxe": ({"cobblestone": 3, "stick": 2}, 1, 1, {}),
    "furnace": ({"cobblestone": 8}, 1, 1, {}),
    "bread": ({"wheat": 3}, 1, 1, {}),
    "cake": ({"milk_bucket": 3, "sugar": 2, "egg": 1, "wheat": 3}, 1, 1, {"bucket": 3}),
    "golden_apple": ({"gold_ingot": 8, "apple": 1}, 1, 1, {}),
    "golden_carrot": ({"gold_nugget": 8, "carrot": 1}, 1, 1, {}),
    "book": ({"paper": 3, "leather": 1}, 1, 1, {}),
    "bookshelf": ({"oak_planks": 6, "book": 3}, 1, 1, {}),
    "bowl": ({"oak_planks": 3}, 4, 4, {}),
    "beetroot_soup": ({"beetroot": 6, "bowl": 1}, 1, 1, {}),
    "mushroom_stew": ({"brown_mushroom": 1, "red_mushroom": 1, "bowl": 1}, 1, 1, {}),
    "rabbit_stew": ({"baked_potato": 1, "cooked_rabbit": 1, "bowl": 1, "carrot": 1, "brown_mushroom": 1}, 1, 1, {}),
    "cookie": ({"wheat": 2, "cocoa_beans": 1}, 8, 8, {}),
    "pumpkin_pie": ({"pumpkin": 1, "sugar": 1, "egg": 1}, 1, 1, {}),
    "compass": ({"iron_ingot": 4, "redstone": 1}, 1, 1, {}),
    "fishing_rod": ({"stick": 3, "string": 2}, 1, 1, {}),
    "carrot_on_a_stick": ({"fishing_rod": 1, "carrot": 1}, 1, 1, {}),
}


def give(bot, items: dict) -> None:
    for name, count in items.items():
        bot.chat(f"/give {bot.name} {name} {count}")
    wait_until(lambda: all(bot.inventory().get(n, 0) >= c for n, c in items.items()), timeout=5,
               message=f"{items} in the inventory")


@pytest.mark.parametrize("target", sorted(RECIPES))
def test_bot_crafts(make_bot, target):
    ingredients, num, expected, leftovers = RECIPES[target]
    bot = make_bot("crafter")
    isolate(bot)
    give(bot, {**ingredients, "crafting_table": 1})
    skills = Skills(bot)
    assert skills.craft_recipe(target, num), skills.take_log()
    inventory = wait_until(lambda: (inv := bot.inventory()).get(target, 0) >= expected and inv, timeout=5,
                           message=f"{expected} {target}")
    assert inventory.get(target) == expected + (1 if target == "crafting_table" else 0)
    for name in ingredients:
        if name != target:
            assert inventory.get(name, 0) == 0, f"{name} was not used up: {inventory}"
    for name, count in leftovers.items():
        assert inventory.get(name) == count


def test_craft_without_ingredients_says_what_is_missing(make_bot):
    bot = make_bot("crafter")
    isolate(bot)
    give(bot, {"oak_planks": 1})
    skills = Skills(bot)
    assert not skills.craft_recipe("stick", 4)
    assert "2 oak_planks" in skills.take_log()
    assert bot.inventory() == {"oak_planks": 1}


def test_mineflayer_craft_in_the_2x2_grid_and_shift_click_crafts_all(make_bot):
    bot = make_bot("crafter")
    isolate(bot)
    give(bot, {"oak_log": 5})
    planks = bot.js.registry.itemsByName["oak_planks"].id
    recipe = bot.js.recipesFor(planks, None, 1, None)[0]
    bot.js.craft(recipe, 5, None, timeout=30)  # five crafts, one click each
    assert wait_until(lambda: bot.inventory() == {"oak_planks": 20}, timeout=5, message="20 planks")
    # shift-click on the result slot crafts as many as the grid allows
    give(bot, {"oak_log": 3})
    log_slot = next(i for i in range(9, 45) if bot.js.inventory.slots[i] and bot.js.inventory.slots[i].name == "oak_log")
    bot.js.clickWindow(log_slot, 0, 0, timeout=10)   # pick up the logs
    bot.js.clickWindow(1, 0, 0, timeout=10)          # put them in the grid
    bot.js.clickWindow(0, 0, 1, timeout=10)          # shift-click the result
    assert wait_until(lambda: bot.inventory() == {"oak_planks": 32}, timeout=5, message="32 planks")


def test_crafting_table_window_opens_and_crafts(make_bot):
    bot = make_bot("tabler")
    x, y, z = isolate(bot)
    bot.chat(f"/setblock {x + 2} {y} {z} crafting_table")
    give(bot, {"cobblestone": 3, "stick": 2})
    time.sleep(0.3)
    table = bot.js.blockAt(bot.js.entity.position.offset(2, 0, 0))
    assert table.name == "crafting_table"
    pickaxe = bot.js.registry.itemsByName["stone_pickaxe"].id
    recipe = bot.js.recipesFor(pickaxe, None, 1, table)[0]
    bot.js.craft(recipe, 1, table, timeout=30)
    assert wait_until(lambda: bot.inventory() == {"stone_pickaxe": 1}, timeout=5, message="a stone pickaxe")
