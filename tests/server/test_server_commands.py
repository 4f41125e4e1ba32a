"""Operator commands of the embedded server with vanilla syntax and replies, chatted by real bots."""

from __future__ import annotations

import json
import time

from conftest import isolate, wait_until, world_js


def block(bot, x, y, z):
    """(name, properties) of the block as the bot sees it."""
    found = json.loads(world_js().blockJson(bot.js, x, y, z))
    return (found["name"], found["properties"]) if found else (None, {})


def reply(bot, command, pattern):
    """Chat `command` and return the server's first reply matching the regex `pattern`."""
    return world_js().commandReply(bot.js, command, pattern, 5000, timeout=8)


def names_in_sight(bot, radius=32):
    return [e["name"] for e in json.loads(world_js().entitiesJson(bot.js, radius))]


def test_setblock_sets_block_states_and_honours_keep_and_destroy(make_bot):
    bot = make_bot("mason")
    x, y, z = isolate(bot)
    assert reply(bot, f"/setblock {x + 2} {y} {z} oak_stairs[facing=west,half=top]", "Changed the block") == \
        f"Changed the block at {x + 2}, {y}, {z}"
    reply(bot, f"/setblock {x + 3} {y} {z} oak_door[half=upper,facing=east]", "Changed the block")
    reply(bot, "/setblock ~4 ~ ~ wheat[age=7]", "Changed the block")  # relative to the bot
    assert block(bot, x + 2, y, z) == ("oak_stairs", {**block(bot, x + 2, y, z)[1], "facing": "west", "half": "top"})
    name, props = block(bot, x + 3, y, z)
    assert name == "oak_door" and props["half"] == "upper" and props["facing"] == "east"
    assert props["open"] is False  # unnamed properties keep the default state, not the lowest state id
    assert block(bot, x + 4, y, z) == ("wheat", {"age": "7"})  # as mineflayer reports it

    assert reply(bot, f"/setblock {x + 2} {y} {z} stone keep", "Could not set|Changed") == "Could not set the block"
    assert block(bot, x + 2, y, z)[0] == "oak_stairs"
    reply(bot, f"/setblock {x + 2} {y} {z} air destroy", "Changed the block")
    wait_until(lambda: block(bot, x + 2, y, z)[0] == "air", message="the stairs destroyed")
    wait_until(lambda: "item" in names_in_sight(bot, 6), message="destroy to drop the stairs as an item")

    assert "Unknown block type" in reply(bot, f"/setblock {x} {y} {z} no_such_block", "Unknown block")
    assert "no property" in reply(bot, f"/setblock {x} {y} {z} wheat[colour=red]", "property")


def test_fill_plain_replace_hollow_keep_and_the_volume_limit(make_bot):
    bot = make_bot("filler")
    x, y, z = isolate(bot)
    assert reply(bot, f"/fill {x + 2} {y} {z + 2} {x + 4} {y + 2} {z + 4} stone hollow", "filled") == \
        "Successfully filled 26 block(s)"
    assert block(bot, x + 3, y + 1, z + 3)[0] == "air"        # hollow inside
    assert block(bot, x + 2, y + 1, z + 2)[0] == "stone"      # walls
    assert block(bot, x + 3, y + 2, z + 3)[0] == "stone"      # roof
    # replace with a filter: only the stone of the bottom layer becomes planks
    reply(bot, f"/setblock {x + 3} {y} {z + 3} dirt", "Changed")
    assert reply(bot, f"/fill {x + 2} {y} {z + 2} {x + 4} {y} {z + 4} oak_planks replace stone", "filled") == \
        "Successfully filled 8 block(s)"
    assert block(bot, x + 2, y, z + 2)[0] == "oak_planks" and block(bot, x + 3, y, z + 3)[0] == "dirt"
    # keep fills only air
    reply(bot, f"/fill {x + 2} {y + 1} {z + 2} {x + 4} {y + 1} {z + 4} glass keep", "filled")
    assert block(bot, x + 3, y + 1, z + 3)[0] == "glass" and block(bot, x + 2, y + 1, z + 2)[0] == "stone"
    # plain fill replaces everything, e.g. clearing the structure
    reply(bot, f"/fill {x + 2} {y} {z + 2} {x + 4} {y + 2} {z + 4} air", "filled")
    assert all(block(bot, x + dx, y + dy, z + dz)[0] == "air"
               for dx in range(2, 5) for dy in range(3) for dz in range(2, 5))

    # the largest fill allowed is quick (one packet per chunk section) and the client sees all of it
    started = time.monotonic()
    assert reply(bot, f"/fill {x + 2} {y} {z + 10} {x + 33} {y + 31} {z + 41} glass", "filled") == \
        "Successfully filled 32768 block(s)"
    assert time.monotonic() - started < 5
    wait_until(lambda: block(bot, x + 33, y + 31, z + 41)[0] == "glass", message="the far corner")
    assert block(bot, x + 2, y, z + 10)[0] == "glass" and block(bot, x + 17, y + 16, z + 25)[0] == "glass"
    reply(bot, f"/fill {x + 2} {y} {z + 10} {x + 33} {y + 31} {z + 41} air", "filled")
    wait_until(lambda: block(bot, x + 17, y + 16, z + 25)[0] == "air", message="the glass cleared")

    assert reply(bot, f"/fill {x} 400 {z} {x} 401 {z} stone", "out of") == "That position is out of this world!"
    refusal = reply(bot, f"/fill {x} {y} {z} {x + 100} {y + 10} {z + 100} stone", "Too many blocks")
    assert refusal == "Too many blocks in the specified area (maximum 32768, specified 112211)"
    assert block(bot, x + 10, y + 5, z + 10)[0] == "air"


def test_clear_takes_items_by_name_count_and_all(make_bot):
    bot = make_bot("cleaner")
    other = make_bot("victim")
    for who in (bot, other):
        bot.command(f"/give {who.name} dirt 10")
        bot.command(f"/give {who.name} apple 3")
    wait_until(lambda: bot.inventory() == {"dirt": 10, "apple": 3} and other.inventory() == {"dirt": 10, "apple": 3},
               message="both inventories filled")
    assert reply(bot, f"/clear {bot.name} dirt 4", "Removed") == f"Removed 4 item(s) from player {bot.name}"
    wait_until(lambda: bot.inventory() == {"dirt": 6, "apple": 3}, message="6 dirt left")
    reply(bot, f"/clear {other.name} apple", "Removed")
    wait_until(lambda: other.inventory() == {"dirt": 10}, message="no apples left on the other bot")
    reply(bot, "/clear", "Removed")  # no target: the player who runs it
    wait_until(lambda: bot.inventory() == {}, message="an empty inventory")
    assert other.inventory() == {"dirt": 10}
    assert reply(bot, f"/clear {bot.name}", "No items") == f"No items were found on player {bot.name}"


def test_tp_to_coordinates_relative_and_to_players(make_bot):
    bot = make_bot("traveler")
    other = make_bot("beacon")
    x, y, z = isolate(bot)
    assert reply(bot, f"/tp {x + 10} {y} {z + 5}", "Teleported") == \
        f"Teleported {bot.name} to {x + 10}.500000, {y}.000000, {z + 5}.500000"  # vanilla prints %f
    wait_until(lambda: abs(bot.position[0] - (x + 10.5)) < 0.01 and abs(bot.position[2] - (z + 5.5)) < 0.01,
               message="the bot at the coordinates")
    reply(bot, "/tp ~-3 ~ ~2", "Teleported")
    wait_until(lambda: abs(bot.position[0] - (x + 7.5)) < 0.01 and abs(bot.position[2] - (z + 7.5)) < 0.01,
               message="the relative teleport")
    assert reply(bot, f"/tp {other.name} {bot.name}", "Teleported") == f"Teleported {other.name} to {bot.name}"
    wait_until(lambda: abs(other.position[0] - (x + 7.5)) < 0.01 and abs(other.position[2] - (z + 7.5)) < 0.01,
               message="the other bot brought to this one")
    reply(bot, f"/tp {other.name} {x} {y} {z + 20}", "Teleported")
    wait_until(lambda: abs(other.position[2] - (z + 20.5)) < 0.01, message="the other bot sent to coordinates")
    reply(bot, f"/tp {other.name}", "Teleported")  # one argument: go to that player
    wait_until(lambda: abs(bot.position[2] - (z + 20.5)) < 0.01, message="the bot at the other bot")
    assert "No player was found" in reply(bot, "/tp nobody_here 0 -60 0", "No player")


def test_summon_and_kill_with_selectors(make_bot):
    bot = make_bot("reaper")
    victim = make_bot("mortal")
    x, y, z = isolate(bot)
    assert reply(bot, f"/summon pig {x + 4} {y} {z}", "Summoned") == "Summoned new Pig"
    reply(bot, "/summon cow ~4 ~ ~3", "Summoned")
    reply(bot, f"/summon cow {x - 4} {y} {z}", "Summoned")
    wait_until(lambda: sorted(n for n in names_in_sight(bot) if n != "player") == ["cow", "cow", "pig"],
               message="two cows and a pig")
    # the distance keeps the count to this test's area: earlier tests on the shared server may leave cows elsewhere
    assert reply(bot, "/kill @e[type=cow,distance=..16]", "Killed") == "Killed 2 entities"
    wait_until(lambda: "cow" not in names_in_sight(bot), message="no cow")
    assert "pig" in names_in_sight(bot)
    wait_until(lambda: "item" in names_in_sight(bot), message="the cows' loot on the ground")
    reply(bot, "/kill @e[type=item]", "Killed")
    wait_until(lambda: "item" not in names_in_sight(bot), message="no dropped items")
    assert "pig" in names_in_sight(bot)

    deaths = []
    victim.on("death", lambda *args: deaths.append(victim.name))  # mineflayer respawns right after
    assert reply(bot, f"/kill {victim.name}", "Killed") == f"Killed {victim.name}"
    wait_until(lambda: deaths, message="the player killed")
    assert reply(bot, "/kill @e[type=zombie]", "No entity") == "No entity was found"


def test_gamemode_time_and_weather(make_bot):
    bot = make_bot("weatherman")
    assert reply(bot, "/gamemode creative", "game mode") == "Set own game mode to Creative Mode"
    wait_until(lambda: bot.js.game.gameMode == "creative", message="creative mode")
    reply(bot, f"/gamemode survival {bot.name}", "game mode")
    wait_until(lambda: bot.js.game.gameMode == "survival", message="survival mode")

    assert reply(bot, "/time set 6000", "Set the time") == "Set the time to 6000"
    wait_until(lambda: 6000 <= bot.js.time.timeOfDay < 6100, message="noon")
    assert reply(bot, "/time set night", "Set the time") == "Set the time to 13000"
    wait_until(lambda: 13000 <= bot.js.time.timeOfDay < 13100, message="night")

    assert reply(bot, "/weather rain", "weather") == "Set the weather to rain"
    wait_until(lambda: bot.js.isRaining, message="rain")
    assert reply(bot, "/weather clear", "weather") == "Set the weather to clear"
    wait_until(lambda: not bot.js.isRaining, message="clear skies")


def test_a_burst_of_set_up_commands_like_a_cooking_task(make_bot):
    """MINDcraft's cooking set-up chats hundreds of commands in a row (fields, a house, animals)."""
    bot = make_bot("setter")
    x, y, z = isolate(bot)
    started = time.monotonic()
    bot.command("/fill ~ ~-1 ~ ~20 ~-3 ~20 grass_block")
    bot.command("/fill ~ ~ ~ ~20 ~10 ~20 air")
    for i in range(6):
        for j in range(6):
            bot.command(f"/setblock {x + 2 + i} {y - 1} {z + 2 + j} farmland")
            bot.command(f"/setblock {x + 2 + i} {y} {z + 2 + j} wheat[age=7]")
    for i in range(11):  # a wall of a house, block by block
        for h in range(5):
            bot.command(f"/setblock {x + 10 + i} {y + h} {z + 12} stone_bricks")
    bot.command(f"/setblock {x + 12} {y} {z + 14} stone_brick_stairs[facing=west]")
    for animal in ("chicken", "cow", "llama", "mooshroom", "pig", "rabbit", "sheep"):
        bot.command(f"/summon {animal} {x + 5} {y} {z + 15}")
    bot.command("/kill @e[type=llama,distance=..200]")
    last = lambda: block(bot, x + 12, y, z + 14)
    wait_until(lambda: last()[0] == "stone_brick_stairs", timeout=20, message="the last block of the set-up")
    assert time.monotonic() - started < 10
    assert block(bot, x + 7, y, z + 7) == ("wheat", {"age": "7"}) and block(bot, x + 7, y - 1, z + 7)[0] == "farmland"
    assert all(block(bot, x + 10 + i, y + h, z + 12)[0] == "stone_bricks" for i in range(11) for h in range(5))
    assert last()[1]["facing"] == "west"
    wait_until(lambda: {"chicken", "cow", "mooshroom", "pig", "rabbit", "sheep"} <= set(names_in_sight(bot)),
               message="the animals")
    wait_until(lambda: "llama" not in names_in_sight(bot), message="the llama killed")


def test_commands_from_the_server_console(make_bot, server):
    bot = make_bot("observer")
    x, y, z = isolate(bot)
    server.command(f"setblock {x + 2} {y} {z} oak_log[axis=x]")
    server.command(f"fill {x + 3} {y} {z} {x + 4} {y + 1} {z} cobblestone")
    server.command(f"summon sheep {x} {y} {z + 4}")
    server.command(f"tp {bot.name} {x} {y} {z + 1}")
    server.command("time set noon")
    server.command("weather thunder")
    wait_until(lambda: block(bot, x + 4, y + 1, z)[0] == "cobblestone", message="the console's fill")
    assert block(bot, x + 2, y, z) == ("oak_log", {"axis": "x"})
    wait_until(lambda: "sheep" in names_in_sight(bot), message="the console's sheep")
    wait_until(lambda: abs(bot.position[2] - (z + 1.5)) < 0.01, message="the console's teleport")
    wait_until(lambda: 6000 <= bot.js.time.timeOfDay < 6100 and bot.js.thunderState > 0, message="noon, thunder")
    server.command("kill @e[type=sheep]")
    server.command("weather clear")
    wait_until(lambda: "sheep" not in names_in_sight(bot) and not bot.js.isRaining, message="no sheep, no rain")


def test_expected_loot_rolls_give_every_dig_the_same_drops_and_random_is_restored(make_bot):
    """Orders episodes are set up with `/mindpy_loot expected`, so that two plays hand out the same items: ripe
    carrots (vanilla: 2-5) then always give 4 (3.5, halves up)."""
    from mindpy.skills.api import Skills

    bot = make_bot("looter")
    x, y, z = isolate(bot)
    skills = Skills(bot)
    assert "Unknown loot rule 'lucky'" in reply(bot, "/mindpy_loot lucky", "loot rule|rolled")
    assert reply(bot, "/mindpy_loot", "rolled").startswith("Drops are rolled: ")  # an orders set-up may have set it
    try:
        assert reply(bot, "/mindpy_loot expected", "rolled") == "Drops are now rolled: expected"
        gained = []
        for _ in range(4):
            bot.command(f"/setblock {x + 2} {y - 1} {z} farmland")
            bot.command(f"/setblock {x + 2} {y} {z} carrots[age=7]")
            wait_until(lambda: block(bot, x + 2, y, z)[0] == "carrots", message="ripe carrots")
            before = bot.inventory().get("carrot", 0)
            assert skills.collect_blocks("carrots", 1), skills.take_log()  # waits until nothing is left there
            gained.append(bot.inventory().get("carrot", 0) - before)
        assert gained == [4, 4, 4, 4]
    finally:
        assert reply(bot, "/mindpy_loot random", "rolled") == "Drops are now rolled: random"
    assert reply(bot, "/mindpy_loot", "rolled") == "Drops are rolled: random"
