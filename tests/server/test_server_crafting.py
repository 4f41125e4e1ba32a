"""Crafting on the embedded server through mineflayer's own bot.recipesFor / bot.craft and window clicks:
the 2x2 grid of the player inventory and the crafting table window."""

from __future__ import annotations

import json
import time

import pytest

from conftest import inventory_js, isolate, unique_name, wait_until
from mindpy.bridge import create_bot

WOOL_COLOURS = ("white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan",
                "purple", "blue", "brown", "green", "red", "black")

# target: (ingredients given, crafts, inventory afterwards: the result and any leftovers)
RECIPES = {
    "oak_planks": ({"oak_log": 2}, 2, {"oak_planks": 8}),
    "stick": ({"oak_planks": 2}, 1, {"stick": 4}),
    "crafting_table": ({"oak_planks": 4}, 1, {"crafting_table": 1}),
    "wooden_pickaxe": ({"oak_planks": 3, "stick": 2}, 1, {"wooden_pickaxe": 1}),
    "stone_pickaxe": ({"cobblestone": 3, "stick": 2}, 1, {"stone_pickaxe": 1}),
    "furnace": ({"cobblestone": 8}, 1, {"furnace": 1}),
    "bread": ({"wheat": 6}, 2, {"bread": 2}),
    "cake": ({"milk_bucket": 3, "sugar": 2, "egg": 1, "wheat": 3}, 1, {"cake": 1, "bucket": 3}),
    "golden_apple": ({"gold_ingot": 8, "apple": 1}, 1, {"golden_apple": 1}),
    "golden_carrot": ({"gold_nugget": 8, "carrot": 1}, 1, {"golden_carrot": 1}),
    "book": ({"paper": 3, "leather": 1}, 1, {"book": 1}),
    "bookshelf": ({"oak_planks": 6, "book": 3}, 1, {"bookshelf": 1}),
    "bowl": ({"oak_planks": 3}, 1, {"bowl": 4}),
    "beetroot_soup": ({"beetroot": 6, "bowl": 1}, 1, {"beetroot_soup": 1}),
    "mushroom_stew": ({"brown_mushroom": 1, "red_mushroom": 1, "bowl": 1}, 1, {"mushroom_stew": 1}),
    # not in minecraft-data: a special recipe of the game (mindpy/data/special_recipes.json), any small flower
    "suspicious_stew": ({"brown_mushroom": 1, "red_mushroom": 1, "bowl": 1, "poppy": 1}, 1, {"suspicious_stew": 1}),
    "rabbit_stew": ({"baked_potato": 1, "cooked_rabbit": 1, "bowl": 1, "carrot": 1, "brown_mushroom": 1}, 1,
                    {"rabbit_stew": 1}),
    "cookie": ({"wheat": 2, "cocoa_beans": 1}, 1, {"cookie": 8}),
    "pumpkin_pie": ({"pumpkin": 1, "sugar": 1, "egg": 1}, 1, {"pumpkin_pie": 1}),
    "compass": ({"iron_ingot": 4, "redstone": 1}, 1, {"compass": 1}),
    "fishing_rod": ({"stick": 3, "string": 2}, 1, {"fishing_rod": 1}),
    "carrot_on_a_stick": ({"fishing_rod": 1, "carrot": 1}, 1, {"carrot_on_a_stick": 1}),
}


@pytest.fixture(scope="module")
def crafter(server):
    """One bot beside a crafting table for the recipe tests (its inventory is cleared before each)."""
    bot = create_bot(unique_name("crafter"), server.host, server.port)
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 2} {y} {z} crafting_table")
    table = wait_until(lambda: (b := bot.js.blockAt(bot.js.entity.position.offset(2, 0, 0))) and
                       b.name == "crafting_table" and b, message="the crafting table")
    yield bot, table
    bot.close()


def clear_and_give(bot, items: dict) -> None:
    bot.command(f"/clear {bot.name}")
    wait_until(lambda: bot.inventory() == {}, message="an empty inventory")
    for name, count in items.items():
        bot.command(f"/give {bot.name} {name} {count}")
    wait_until(lambda: bot.inventory() == items, message=f"{items} given")


def item_id(bot, name: str) -> int:
    return bot.js.registry.itemsByName[name].id


def assert_in_sync(bot) -> None:
    js = inventory_js()
    server = json.loads(js.serverView(bot.js, timeout=10))
    client = json.loads(js.clientView(bot.js))
    assert client == server, f"client {client} differs from server {server}"


@pytest.mark.parametrize("target", sorted(RECIPES))
def test_bot_craft_makes(crafter, target):
    bot, table = crafter
    ingredients, crafts, expected = RECIPES[target]
    clear_and_give(bot, ingredients)
    recipes = bot.js.recipesFor(item_id(bot, target), None, 1, table)
    assert recipes.length > 0, f"mineflayer finds no recipe for {target} with {ingredients}"
    bot.js.craft(recipes[0], crafts, table, timeout=30)
    assert wait_until(lambda: bot.inventory() == expected, message=f"{expected} after crafting"), bot.inventory()
    assert_in_sync(bot)


def test_craft_in_the_2x2_grid_without_a_table(make_bot):
    bot = make_bot("handcraft")
    bot.command(f"/give {bot.name} oak_log 5")
    wait_until(lambda: bot.inventory() == {"oak_log": 5}, message="logs")
    recipe = bot.js.recipesFor(item_id(bot, "oak_planks"), None, 1, None)[0]
    bot.js.craft(recipe, 5, None, timeout=30)
    assert wait_until(lambda: bot.inventory() == {"oak_planks": 20}, message="20 planks")
    recipe = bot.js.recipesFor(item_id(bot, "crafting_table"), None, 1, None)[0]
    bot.js.craft(recipe, 2, None, timeout=30)
    assert wait_until(lambda: bot.inventory() == {"oak_planks": 12, "crafting_table": 2}, message="2 tables")
    assert_in_sync(bot)


def test_a_table_recipe_needs_the_table(make_bot):
    bot = make_bot("notable")
    bot.command(f"/give {bot.name} cobblestone 8")
    wait_until(lambda: bot.inventory() == {"cobblestone": 8}, message="cobblestone")
    # 8 cobblestone in a ring does not fit the 2x2 grid: mineflayer offers no recipe without a table
    assert bot.js.recipesFor(item_id(bot, "furnace"), None, 1, None).length == 0
    # clicking the stones into the 2x2 grid by hand gives no result either
    slot = next(item.slot for item in bot.js.inventory.items() if item.name == "cobblestone")
    bot.js.clickWindow(slot, 0, 0)
    for grid_slot in (1, 2, 3, 4):
        bot.js.clickWindow(grid_slot, 1, 0)
    time.sleep(0.3)
    assert bot.js.inventory.slots[0] is None
    bot.js.clickWindow(slot, 0, 0)  # put the rest back
    assert_in_sync(bot)


def test_shift_click_on_the_result_crafts_as_many_as_fit(make_bot):
    bot = make_bot("shifter")
    bot.command(f"/give {bot.name} oak_log 3")
    wait_until(lambda: bot.inventory() == {"oak_log": 3}, message="logs")
    log_slot = next(item.slot for item in bot.js.inventory.items() if item.name == "oak_log")
    bot.js.clickWindow(log_slot, 0, 0)   # pick up the logs
    bot.js.clickWindow(1, 0, 0)          # all three into one grid slot
    wait_until(lambda: bot.js.inventory.slots[0] is not None, message="a result in the result slot")
    assert bot.js.inventory.slots[0].name == "oak_planks" and bot.js.inventory.slots[0].count == 4
    bot.js.clickWindow(0, 0, 1)          # shift-click the result: three crafts
    assert wait_until(lambda: bot.inventory() == {"oak_planks": 12}, message="12 planks")
    assert bot.js.inventory.slots[1] is None and bot.js.inventory.slots[0] is None
    assert_in_sync(bot)


def put(bot, source_name: str, slots: list[int]) -> None:
    """Pick up a stack of `source_name` and right-click one item into each slot, then put the rest back."""
    window = bot.js.currentWindow or bot.js.inventory
    source = next(item.slot for item in window.items() if item.name == source_name)
    bot.js.clickWindow(source, 0, 0)
    for slot in slots:
        bot.js.clickWindow(slot, 1, 0)
    bot.js.clickWindow(source, 0, 0)


def test_table_result_follows_the_grid_with_mirrored_and_shapeless_recipes(crafter):
    bot, table = crafter
    clear_and_give(bot, {"oak_planks": 6, "stick": 4, "brown_mushroom": 1, "red_mushroom": 1, "bowl": 1})
    window = bot.js.openBlock(table, timeout=10)
    try:
        result = lambda: (window.slots[0].name, window.slots[0].count) if window.slots[0] else None
        # grid slots 1-9, row by row. An axe:  P P .     and its mirror:  . P P
        #                                      P S .                      . S P
        #                                      . S .                      . S .
        put(bot, "oak_planks", [1, 2, 4])
        assert result() is None  # planks alone make nothing here
        put(bot, "stick", [5, 8])
        wait_until(lambda: result() == ("wooden_axe", 1), message="a wooden axe in the result slot")
        bot.js.clickWindow(0, 0, 0)   # take it: one of each ingredient used
        wait_until(lambda: all(window.slots[i] is None for i in range(1, 10)), message="the grid used up")
        bot.js.clickWindow(next(i for i in range(10, 46) if window.slots[i] is None), 0, 0)
        put(bot, "oak_planks", [2, 3, 6])
        put(bot, "stick", [5, 8])
        wait_until(lambda: result() == ("wooden_axe", 1), message="the mirrored axe")
        bot.js.clickWindow(0, 0, 1)   # shift-click it into the inventory
        wait_until(lambda: all(window.slots[i] is None for i in range(0, 10)), message="the grid used up again")
        # shapeless: mushroom stew from ingredients in any cells
        put(bot, "red_mushroom", [9])
        put(bot, "bowl", [1])
        assert result() is None or result()[0] != "mushroom_stew"
        put(bot, "brown_mushroom", [5])
        wait_until(lambda: result() == ("mushroom_stew", 1), message="mushroom stew from scattered ingredients")
        bot.js.clickWindow(5, 0, 0)   # take the brown mushroom out again: the result goes away
        wait_until(lambda: result() is None, message="the result to disappear")
        bot.js.clickWindow(7, 0, 0)   # and put it into another cell
        wait_until(lambda: result() == ("mushroom_stew", 1), message="the stew again")
        bot.js.clickWindow(0, 0, 1)
    finally:
        bot.js.closeWindow(window)
    assert wait_until(lambda: bot.inventory() == {"wooden_axe": 2, "mushroom_stew": 1}, message="two axes and a stew")
    assert_in_sync(bot)


def test_breaking_the_table_closes_it_and_gives_the_grid_back(make_bot):
    bot = make_bot("tablebreak")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 2} {y} {z} crafting_table")
    table = wait_until(lambda: (b := bot.js.blockAt(bot.js.entity.position.offset(2, 0, 0))) and
                       b.name == "crafting_table" and b, message="the crafting table")
    bot.command(f"/give {bot.name} oak_planks 5")
    wait_until(lambda: bot.inventory() == {"oak_planks": 5}, message="planks")
    window = bot.js.openBlock(table, timeout=10)
    put(bot, "oak_planks", [1, 5, 9])
    wait_until(lambda: all(window.slots[i] is not None for i in (1, 5, 9)), message="3 planks in the grid")
    bot.command(f"/setblock {x + 2} {y} {z} air")
    wait_until(lambda: bot.js.currentWindow is None, timeout=5, message="the server to close the window")
    assert wait_until(lambda: bot.inventory() == {"oak_planks": 5}, message="the planks back from the grid")
    assert_in_sync(bot)


def test_dyeing_takes_each_other_colour_once_however_many_bots_join(crafter, make_bot):
    """Bots of one version share minecraft-data's recipe table: the dyeing variants were added again for every
    bot that joined, until the table was so large that the bots' Node process froze."""
    for bot in (crafter[0], make_bot("dyer"), make_bot("dyer")):
        registry = bot.js.registry
        ingredients = [registry.items[i].name
                       for recipe in registry.recipes[item_id(bot, "blue_wool")] for i in recipe.ingredients]
        used = sorted(name for name in ingredients if name.endswith("_wool"))
        assert used == sorted(f"{c}_wool" for c in WOOL_COLOURS if c != "blue"), used
