"""The player inventory on the embedded server: clicks, /give, dropping, always in step with the server.

Every check compares the bot's own inventory with the server's view of it (`/mindpy_inv`), read after the
bot's last packet, so a difference cannot hide behind timing.
"""

from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from conftest import inventory_js, isolate, teleport, wait_until


def views(bot) -> tuple[dict, dict]:
    """(client view, server view); the server's is asked first, so its reply comes after every update it sent."""
    js = inventory_js()
    server = json.loads(js.serverView(bot.js, timeout=10))
    client = json.loads(js.clientView(bot.js))
    return client, server


def assert_in_sync(bot) -> dict:
    client, server = views(bot)
    differ = [(i, c, s) for i, (c, s) in enumerate(zip(client["slots"], server["slots"])) if c != s]
    assert not differ and client["cursor"] == server["cursor"], f"client and server differ (slot, client, server): {differ}"
    return server


def totals(view: dict) -> Counter:
    """Item counts over every slot and the cursor."""
    counts = Counter()
    for entry in view["slots"] + [view["cursor"]]:
        if entry:
            counts[entry[0]] += entry[1]
    return counts


def give(bot, items: dict) -> None:
    for name, count in items.items():
        bot.command(f"/give {bot.name} {name} {count}")
    wait_until(lambda: all(bot.inventory().get(n, 0) >= c for n, c in items.items()), message=f"{items} given")


def slot_of(bot, name: str) -> int:
    return json.loads(inventory_js().slotsOf(bot.js, name))[0]


def test_give_adds_numbers_not_strings(make_bot):
    bot = make_bot("giver")
    bot.command(f"/give {bot.name} dirt 2")
    wait_until(lambda: bot.inventory().get("dirt") == 2, message="2 dirt")
    bot.command(f"/give {bot.name} dirt 5")
    wait_until(lambda: bot.inventory().get("dirt") == 7, message="7 dirt (5 onto 2)")
    bot.command(f"/give {bot.name} dirt 64")
    wait_until(lambda: bot.inventory().get("dirt") == 71, message="71 dirt over two stacks")
    server = assert_in_sync(bot)
    assert sorted(entry[1] for entry in server["slots"] if entry) == [7, 64]


# Items with no 2x2 recipe among them, so random clicks on the crafting grid craft nothing and every item
# must still be somewhere afterwards.
CLICK_ITEMS = {"dirt": 94, "cobblestone": 10, "stick": 3, "bread": 5, "iron_helmet": 1, "iron_boots": 1, "shield": 1}


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_random_clicks_leave_client_and_server_equal(make_bot, seed):
    bot = make_bot("clicker")
    give(bot, CLICK_ITEMS)
    clicks = json.loads(inventory_js().randomClicks(bot.js, seed, 60, timeout=60))
    assert len(clicks) >= 60
    server = assert_in_sync(bot)
    assert totals(server) == Counter(CLICK_ITEMS), f"items appeared or vanished after clicks {clicks}"


def test_clicks_moves_and_equipping_stay_in_sync(make_bot):
    bot = make_bot("mover")
    give(bot, {"oak_planks": 40, "cobblestone": 10, "stick": 3, "iron_helmet": 1})
    b = bot.js
    b.clickWindow(slot_of(bot, "oak_planks"), 1, 0)   # right click: pick up half
    b.clickWindow(20, 0, 0)                            # put them into an empty slot
    b.clickWindow(slot_of(bot, "cobblestone"), 0, 0)   # pick up the cobblestone
    b.clickWindow(21, 1, 0)                            # place one
    b.clickWindow(22, 1, 0)                            # and another
    b.clickWindow(slot_of(bot, "stick"), 0, 0)         # swap the rest for the sticks
    b.clickWindow(23, 0, 0)                            # put the sticks down
    b.clickWindow(30, 0, 2)                            # number key 1: swap slot 30 with hotbar slot 0
    b.clickWindow(20, 0, 1)                            # shift-click the planks to the hotbar
    b.moveSlotItem(21, 25, timeout=10)
    b.equip(b.registry.itemsByName["iron_helmet"].id, "head", timeout=10)
    b.equip(b.registry.itemsByName["stick"].id, "hand", timeout=10)
    server = assert_in_sync(bot)
    assert server["slots"][5] == ["iron_helmet", 1]
    assert totals(server) == Counter({"oak_planks": 40, "cobblestone": 10, "stick": 3, "iron_helmet": 1})
    b.unequip("head", timeout=10)
    server = assert_in_sync(bot)
    assert server["slots"][5] is None and totals(server)["iron_helmet"] == 1


def test_shift_click_puts_armour_on(make_bot):
    bot = make_bot("wearer")
    give(bot, {"iron_boots": 1, "shield": 1})
    bot.js.clickWindow(slot_of(bot, "iron_boots"), 0, 1)
    bot.js.clickWindow(slot_of(bot, "shield"), 0, 1)
    server = assert_in_sync(bot)
    assert server["slots"][8] == ["iron_boots", 1]   # feet
    assert server["slots"][45] == ["shield", 1]      # off hand


def test_closing_the_inventory_returns_the_crafting_grid(make_bot):
    bot = make_bot("closer")
    give(bot, {"dirt": 5})
    bot.js.clickWindow(slot_of(bot, "dirt"), 0, 0)
    bot.js.clickWindow(1, 1, 0)   # one dirt into the 2x2 grid
    bot.js.clickWindow(4, 0, 0)   # the other four too
    server = assert_in_sync(bot)
    assert server["slots"][1] == ["dirt", 1] and server["slots"][4] == ["dirt", 4]
    bot.js.closeWindow(bot.js.inventory)
    wait_until(lambda: bot.inventory().get("dirt") == 5, message="the grid emptied into the inventory")
    server = assert_in_sync(bot)
    assert server["slots"][1:5] == [None] * 4


def test_q_drops_the_held_item_with_its_count(make_bot):
    dropper, catcher = make_bot("dropper"), make_bot("catcher")
    x, y, z = isolate(dropper)
    teleport(catcher, x + 2, y, z)
    give(dropper, {"dirt": 10})
    dropper.js.setQuickBarSlot(slot_of(dropper, "dirt") - 36)
    dropper.js.lookAt(catcher.js.entity.position.offset(0, 1.6, 0), True, timeout=5)
    time.sleep(0.2)  # the look reaches the server with the next movement packet
    inventory_js().dropHeld(dropper.js, False)   # Q: one item
    wait_until(lambda: dropper.inventory().get("dirt") == 9, message="one dirt dropped")
    inventory_js().dropHeld(dropper.js, True)    # Ctrl+Q: the rest of the stack
    wait_until(lambda: catcher.inventory().get("dirt") == 10, timeout=8, message="the catcher to pick up all 10 dirt")
    assert dropper.inventory() == {}
    assert_in_sync(dropper)
    assert_in_sync(catcher)
