"""Chests and barrels on the embedded server, through mineflayer's bot.openContainer / openChest.

Set-up fills a container with the vanilla command `/data merge block X Y Z {Items:[...]}` (it replaces the
whole item list) and reads it with `/data get block X Y Z`; `/data get entity <player> Inventory` shows a player's
inventory in vanilla's words.
"""

from __future__ import annotations

import json
import time

from conftest import give_items as give
from conftest import inventory_js, isolate, item_id, teleport, wait_until, world_js
from conftest import place_beside as place


def contents(window) -> dict:
    return json.loads(inventory_js().containerCounts(window))


def assert_in_sync(bot) -> None:
    js = inventory_js()
    server = json.loads(js.serverView(bot.js, timeout=10))
    client = json.loads(js.clientView(bot.js))
    assert client == server, f"{bot.name}: client {client} differs from server {server}"


def test_chest_keeps_what_is_put_in(make_bot):
    bot = make_bot("hoarder")
    isolate(bot)
    block = place(bot, "chest")
    give(bot, {"oak_log": 10, "apple": 3})
    chest = bot.js.openContainer(block, timeout=10)
    assert contents(chest) == {}
    chest.deposit(item_id(bot, "oak_log"), None, 6, timeout=10)
    chest.deposit(item_id(bot, "apple"), None, 3, timeout=10)
    chest.close()
    wait_until(lambda: bot.inventory() == {"oak_log": 4}, message="items moved into the chest")
    chest = bot.js.openChest(block, timeout=10)  # still there after closing
    assert contents(chest) == {"oak_log": 6, "apple": 3}
    chest.withdraw(item_id(bot, "oak_log"), None, 2, timeout=10)
    chest.close()
    assert wait_until(lambda: bot.inventory() == {"oak_log": 6}, message="2 logs taken back")
    assert_in_sync(bot)


def test_another_player_finds_what_was_stored(make_bot):
    a, b = make_bot("storer"), make_bot("finder")
    x, y, z = isolate(a)
    teleport(b, x, y, z + 2)
    block = place(a, "barrel", dx=2, dz=1)
    give(a, {"bread": 7})
    barrel = a.js.openContainer(block, timeout=10)
    barrel.deposit(item_id(a, "bread"), None, 7, timeout=10)
    barrel.close()
    seen = b.js.openContainer(b.js.blockAt(block.position), timeout=10)
    assert contents(seen) == {"bread": 7}
    seen.withdraw(item_id(b, "bread"), None, 7, timeout=10)
    seen.close()
    wait_until(lambda: b.inventory() == {"bread": 7}, message="the bread with the second player")
    assert a.inventory() == {}
    assert_in_sync(a)
    assert_in_sync(b)


def test_two_players_looking_in_see_each_others_changes(make_bot):
    a, b = make_bot("looker"), make_bot("taker")
    x, y, z = isolate(a)
    teleport(b, x, y, z + 2)
    block = place(a, "chest", dx=2, dz=1)
    give(a, {"cobblestone": 20})
    mine = a.js.openContainer(block, timeout=10)
    theirs = b.js.openContainer(b.js.blockAt(block.position), timeout=10)
    mine.deposit(item_id(a, "cobblestone"), None, 20, timeout=10)
    wait_until(lambda: contents(theirs) == {"cobblestone": 20}, message="the other window to show the deposit")
    theirs.withdraw(item_id(b, "cobblestone"), None, 5, timeout=10)
    wait_until(lambda: contents(mine) == {"cobblestone": 15}, message="the first window to show the withdrawal")
    mine.close()
    theirs.close()
    wait_until(lambda: b.inventory() == {"cobblestone": 5}, message="5 cobblestone with the taker")
    assert_in_sync(a)
    assert_in_sync(b)


def test_shift_clicks_move_stacks_in_and_out(make_bot):
    bot = make_bot("shifter")
    isolate(bot)
    block = place(bot, "chest")
    give(bot, {"dirt": 64, "stick": 10})
    chest = bot.js.openContainer(block, timeout=10)
    dirt = next(item.slot for item in chest.items() if item.name == "dirt")
    bot.js.clickWindow(dirt, 0, 1, timeout=10)
    wait_until(lambda: contents(chest) == {"dirt": 64}, message="the dirt in the chest")
    bot.js.clickWindow(next(item.slot for item in chest.containerItems()), 0, 1, timeout=10)
    wait_until(lambda: contents(chest) == {}, message="the dirt back out")
    chest.close()
    wait_until(lambda: bot.inventory() == {"dirt": 64, "stick": 10}, message="everything back")
    assert_in_sync(bot)


def test_data_merge_block_fills_a_chest_and_data_get_shows_it(make_bot, server):
    bot = make_bot("setup")
    x, y, z = isolate(bot)
    block = place(bot, "chest")
    bot.command(f'/data merge block {x + 2} {y} {z} {{Items:[{{Slot:0b,id:"minecraft:bread",count:5}},'
             f'{{Slot:4b,id:"minecraft:egg",Count:2b}}]}}')
    replies = []
    bot.on("messagestr", lambda text, *rest: replies.append(text))
    time.sleep(0.3)
    bot.command(f"/data get block {x + 2} {y} {z}")
    wait_until(lambda: any("has the following block data" in r for r in replies), message="the /data get reply")
    reply = next(r for r in replies if "has the following block data" in r)
    assert 'id:"minecraft:bread",count:5' in reply and 'Slot:4b,id:"minecraft:egg",count:2' in reply
    chest = bot.js.openContainer(block, timeout=10)
    assert contents(chest) == {"bread": 5, "egg": 2}
    chest.withdraw(item_id(bot, "egg"), None, 2, timeout=10)
    chest.close()
    wait_until(lambda: bot.inventory() == {"egg": 2}, message="the eggs")
    # merging an Items list replaces the contents, as in vanilla
    bot.command(f'/data merge block {x + 2} {y} {z} {{Items:[{{Slot:26b,id:"minecraft:apple",count:1}}]}}')
    time.sleep(0.3)
    chest = bot.js.openContainer(block, timeout=10)
    assert contents(chest) == {"apple": 1}
    chest.close()



def test_data_get_entity_inventory_lists_slots_as_vanilla_does(make_bot):
    """Vanilla (1.20.5+) numbers the Inventory slots hotbar 0-8, main 9-35, feet..head 100-103, offhand -106."""
    bot = make_bot("pockets")
    isolate(bot)

    def inventory_reply(target):
        return world_js().commandReply(bot.js, f"/data get entity {target} Inventory",
                                       "has the following entity data|No entity", 5000, timeout=8)

    assert inventory_reply(bot.name) == f"{bot.name} has the following entity data: []"
    give(bot, {"bread": 3, "oak_log": 1, "iron_boots": 1, "iron_helmet": 1, "shield": 1})
    log = next(item.slot for item in bot.js.inventory.items() if item.name == "oak_log")
    bot.js.moveSlotItem(log, 9, timeout=10)  # window slot 9: the first main-inventory slot
    bot.js.equip(item_id(bot, "iron_boots"), "feet", timeout=10)
    bot.js.equip(item_id(bot, "iron_helmet"), "head", timeout=10)
    bot.js.equip(item_id(bot, "shield"), "off-hand", timeout=10)
    wait_until(lambda: bot.js.inventory.slots[45] and bot.js.inventory.slots[9], message="the items moved")
    assert inventory_reply(bot.name) == (
        f"{bot.name} has the following entity data: ["
        '{count: 3, Slot: 0b, id: "minecraft:bread"}, {count: 1, Slot: 9b, id: "minecraft:oak_log"}, '
        '{count: 1, Slot: 100b, id: "minecraft:iron_boots"}, {count: 1, Slot: 103b, id: "minecraft:iron_helmet"}, '
        '{count: 1, Slot: -106b, id: "minecraft:shield"}]')
    assert inventory_reply("@s").startswith(f"{bot.name} has the following entity data: [{{count: 3, Slot: 0b")
    assert inventory_reply("nobody_here") == "No entity was found"

def test_breaking_a_chest_spills_its_items_and_a_new_one_is_empty(make_bot):
    bot = make_bot("breaker")
    x, y, z = isolate(bot)
    block = place(bot, "chest", dx=1)
    give(bot, {"emerald": 9, "diamond_axe": 1})
    chest = bot.js.openContainer(block, timeout=10)
    chest.deposit(item_id(bot, "emerald"), None, 9, timeout=10)
    chest.close()
    bot.js.equip(item_id(bot, "diamond_axe"), "hand", timeout=10)
    bot.js.dig(bot.js.blockAt(block.position), True, timeout=15)
    assert bot.js.blockAt(block.position).name == "air"
    bot.command(f"/tp {bot.name} {x + 1.5} {y} {z + 0.5}")  # stand where the chest was, among its items
    wait_until(lambda: bot.inventory().get("emerald") == 9, timeout=8, message="the emeralds picked up from the ground")
    bot.command(f"/tp {bot.name} {x + 0.5} {y} {z + 0.5}")
    wait_until(lambda: abs(bot.position[0] - x - 0.5) < 0.2, message="the bot back beside the spot")
    block = place(bot, "chest", dx=1)
    chest = bot.js.openContainer(block, timeout=10)
    assert contents(chest) == {}
    chest.close()


def test_walking_away_closes_the_chest(make_bot):
    bot = make_bot("wanderer")
    x, y, z = isolate(bot)
    block = place(bot, "chest")
    chest = bot.js.openContainer(block, timeout=10)
    assert bot.js.currentWindow is not None
    bot.command(f"/tp {bot.name} {x + 20} {y} {z}")
    wait_until(lambda: bot.js.currentWindow is None, timeout=5, message="the server to close the window")
    del chest


def test_set_up_commands_sent_back_to_back_run_in_order(make_bot):
    """A set-up script does not wait between /setblock and /data merge: the server runs them in order."""
    bot = make_bot("scripter")
    x, y, z = isolate(bot)
    for k in range(6):
        bot.command(f"/setblock {x + 2} {y} {z + k - 3} barrel")
        bot.command(f'/data merge block {x + 2} {y} {z + k - 3} {{Items:[{{Slot:{k}b,id:"minecraft:apple",count:{k + 1}}}]}}')
    for k in range(6):
        block = wait_until(lambda: (b := bot.js.blockAt(bot.js.entity.position.offset(2, 0, k - 3))) and
                           b.name == "barrel" and b, message="a barrel")
        barrel = bot.js.openContainer(block, timeout=10)
        assert contents(barrel) == {"apple": k + 1}, k
        barrel.close()


def test_an_ender_chest_holds_each_players_own_items(make_bot):
    a, b = make_bot("ender"), make_bot("other")
    x, y, z = isolate(a)
    teleport(b, x, y, z + 2)
    here = place(a, "ender_chest", dx=2, dz=0)
    there = place(a, "ender_chest", dx=2, dz=2)
    give(a, {"diamond": 3})
    chest = a.js.openContainer(here, timeout=10)
    chest.deposit(item_id(a, "diamond"), None, 3, timeout=10)
    chest.close()
    chest = a.js.openContainer(there, timeout=10)  # every ender chest shows the same items to a
    assert contents(chest) == {"diamond": 3}
    chest.close()
    theirs = b.js.openContainer(b.js.blockAt(here.position), timeout=10)  # and b has its own
    assert contents(theirs) == {}
    theirs.close()
