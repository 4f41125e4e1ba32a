"""Giving items between players on the embedded server: bot.toss and bot.tossStack throw an item entity
that a nearby player picks up after the pickup delay; both inventories stay in step with the server."""

from __future__ import annotations

import json
import time

from conftest import inventory_js, isolate, teleport, wait_until


def assert_in_sync(bot) -> None:
    js = inventory_js()
    server = json.loads(js.serverView(bot.js, timeout=10))
    client = json.loads(js.clientView(bot.js))
    assert client == server, f"{bot.name}: client {client} differs from server {server}"


def pair(make_bot, items: dict, distance: float = 2.5):
    giver, taker = make_bot("giver"), make_bot("taker")
    x, y, z = isolate(giver)
    teleport(taker, x + distance, y, z)
    for name, count in items.items():
        giver.command(f"/give {giver.name} {name} {count}")
    wait_until(lambda: all(giver.inventory().get(n) == c for n, c in items.items()), message=f"{items} given")
    giver.js.lookAt(taker.js.entity.position.offset(0, 1.6, 0), True, timeout=5)
    time.sleep(0.2)  # the look reaches the server with the next movement packet
    return giver, taker


def test_toss_gives_a_number_of_items_to_a_nearby_player(make_bot):
    giver, taker = pair(make_bot, {"bread": 5})
    collected = []
    taker.on("playerCollect", lambda collector, item: collected.append(time.monotonic()))
    tossed = time.monotonic()
    giver.js.toss(giver.js.registry.itemsByName["bread"].id, None, 3, timeout=10)
    wait_until(lambda: taker.inventory().get("bread") == 3, timeout=8, message="the taker to pick up 3 bread")
    assert giver.inventory() == {"bread": 2}
    # the collect event reaches Python on the bridge's event thread, which may come after the inventory update
    wait_until(lambda: collected, timeout=5, message="the collect event")
    assert collected[0] - tossed >= 0.45, "picked up before the pickup delay"
    assert_in_sync(giver)
    assert_in_sync(taker)


def test_toss_stack_gives_the_whole_stack(make_bot):
    giver, taker = pair(make_bot, {"cobblestone": 64, "oak_log": 10})
    stack = next(item for item in giver.js.inventory.items() if item.name == "cobblestone")
    giver.js.tossStack(stack, timeout=10)
    wait_until(lambda: taker.inventory().get("cobblestone") == 64, timeout=8, message="a whole stack of 64")
    assert giver.inventory() == {"oak_log": 10}
    assert taker.inventory() == {"cobblestone": 64}
    assert_in_sync(giver)
    assert_in_sync(taker)


def test_thrower_does_not_catch_its_own_toss_at_once(make_bot):
    bot = make_bot("juggler")
    isolate(bot)
    bot.command(f"/give {bot.name} apple 4")
    wait_until(lambda: bot.inventory().get("apple") == 4, message="apples")
    bot.js.look(0, -1.5, True, timeout=5)  # look down: the apples land at its feet
    time.sleep(0.2)
    bot.js.toss(bot.js.registry.itemsByName["apple"].id, None, 4, timeout=10)
    time.sleep(1.0)
    assert bot.inventory().get("apple", 0) == 0, "the thrower caught its own items at once"
    wait_until(lambda: bot.inventory().get("apple") == 4, timeout=6, message="the apples back after the delay")
    assert_in_sync(bot)
