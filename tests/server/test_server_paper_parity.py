"""Where a mineflayer client can tell the embedded server from Paper: players leaving the list, sounds it can
read, and reach (attacks, digging and placing only within reach of the eyes)."""

from __future__ import annotations

import json

import pytest

from conftest import TESTS_DIR, give_items, isolate, teleport, wait_ticks, wait_until, world_js
from mindpy.bridge import js_module


def packet_js():
    """tests/server/js/packet_watch.js: what a bot's client could not read."""
    return js_module(TESTS_DIR / "server" / "js" / "packet_watch.js")


def packet_problems(bot) -> dict:
    return json.loads(packet_js().packetProblemsJson(bot.js))


def block_name(bot, x, y, z):
    found = json.loads(world_js().blockJson(bot.js, x, y, z))
    return found and found["name"]


def items_near(bot, x, z, radius=2.5):
    entities = json.loads(world_js().entitiesJson(bot.js, 16))
    return [e for e in entities if e["name"] == "item" and abs(e["x"] - x) < radius and abs(e["z"] - z) < radius]


# ---- players leaving ----------------------------------------------------------------------------------------------
def test_a_player_who_leaves_is_removed_from_the_others_player_list(make_bot):
    stayer, leaver = make_bot("stayer"), make_bot("goner")
    name = leaver.name
    wait_until(lambda: stayer.js.players[name] is not None, message=f"{stayer.name} to list {name}")
    left = []
    stayer.on("playerLeft", lambda player, *rest: left.append(player["username"]))
    leaver.close()
    wait_until(lambda: name in left, message=f"the playerLeft event for {name}")
    assert stayer.js.players[name] is None


# ---- sounds -------------------------------------------------------------------------------------------------------
def test_placing_blocks_plays_sounds_that_clients_can_read(make_bot):
    placer, listener = make_bot("placer"), make_bot("listener")
    x, y, z = isolate(placer)
    teleport(listener, x - 3, y, z)
    heard: dict[str, list] = {placer.name: [], listener.name: []}
    for bot in (placer, listener):
        packet_js().watchPackets(bot.js)
        bot.on("soundEffectHeard", lambda name, position, volume, pitch, who=bot.name:
               heard[who].append((name, position, volume, pitch)))
    placements = [("stone", x + 2, z - 2), ("stone", x + 2, z), ("stone", x + 2, z + 2),
                  ("oak_planks", x + 3, z - 1), ("oak_planks", x + 3, z + 1)]
    give_items(placer, {"stone": 3, "oak_planks": 2})
    for item, px, pz in placements:
        world_js().placeOnTop(placer.js, item, px, y - 1, pz, timeout=10)
        wait_until(lambda px=px, pz=pz, item=item: block_name(listener, px, y, pz) == item, message=f"{item} placed")

    def place_sounds(who):
        return [h for h in heard[who] if h[0].endswith(".place")]

    wait_until(lambda: len(place_sounds(listener.name)) == len(placements), timeout=5,
               message="a place sound per block")
    expected = {"stone": "block.stone.place", "oak_planks": "block.wood.place"}
    for (item, px, pz), (name, position, volume, pitch) in zip(placements, place_sounds(listener.name)):
        assert name == expected[item]
        assert abs(position["x"] - (px + 0.5)) < 0.2 and abs(position["y"] - (y + 0.5)) < 0.2, position
        assert abs(position["z"] - (pz + 0.5)) < 0.2, position
        assert volume == 1 and abs(pitch - 0.8) < 1e-6
    assert place_sounds(placer.name) == []  # the placer's own client plays it, as on vanilla
    for bot in (placer, listener):
        assert packet_problems(bot) == {"partial": [], "errors": []}, bot.name


# ---- reach --------------------------------------------------------------------------------------------------------
def test_attacks_beyond_reach_do_nothing(make_bot):
    bot = make_bot("longarm")
    x, y, z = isolate(bot)
    give_items(bot, {"diamond_sword": 1})
    world_js().hold(bot.js, "diamond_sword", timeout=5)
    bot.command(f"/summon cow {x + 6} {y} {z} {{NoAI:1b}}")  # its hitbox ~5.5 blocks from the eyes: beyond 4
    cow = wait_until(lambda: next((e for e in json.loads(world_js().entitiesJson(bot.js, 16)) if e["name"] == "cow"),
                                  None), message="the cow")
    hurt = []
    bot.on("entityHurt", lambda entity, *rest: hurt.append(entity["id"]))
    for _ in range(3):
        bot.js.attack(bot.js.entities[cow["id"]])
        wait_ticks(12, "past the cow's invulnerability after a hit")
    wait_ticks(10, "for a hit to be reported")
    assert hurt == [] and bot.js.entities[cow["id"]] is not None, "a hit from 6 blocks landed"

    teleport(bot, cow["x"] - 1.5, y, cow["z"])  # a block from its hitbox: hits land
    bot.js.attack(bot.js.entities[cow["id"]])
    wait_until(lambda: cow["id"] in hurt, message="a hit within reach to land")


def test_digging_beyond_reach_leaves_the_block(make_bot):
    bot = make_bot("fardigger")
    x, y, z = isolate(bot)
    # mineflayer shows the block as air once it has dug it; the server sends it back as it still is
    world_js().digAt(bot.js, x + 7, y - 1, z, timeout=15)  # about 6.7 blocks from the eyes: beyond 5.5
    wait_until(lambda: block_name(bot, x + 7, y - 1, z) == "grass_block", message="the block sent back")
    wait_ticks(20, "for a drop to appear")
    assert block_name(bot, x + 7, y - 1, z) == "grass_block" and items_near(bot, x + 7.5, z + 0.5) == []

    world_js().digAt(bot.js, x + 3, y - 1, z, timeout=15)  # within reach it breaks and drops
    wait_until(lambda: items_near(bot, x + 3.5, z + 0.5), message="the drop of a block dug within reach")
    assert block_name(bot, x + 3, y - 1, z) == "air"


def test_placing_beyond_reach_places_nothing(make_bot):
    bot = make_bot("farbuilder")
    x, y, z = isolate(bot)
    give_items(bot, {"stone": 2})
    with pytest.raises(Exception, match="did not answer"):  # vanilla only acknowledges: mineflayer times out
        world_js().placeOnTop(bot.js, "stone", x + 7, y - 1, z, timeout=15)  # 6.7 blocks from the eyes
    assert block_name(bot, x + 7, y, z) == "air" and bot.inventory() == {"stone": 2}

    world_js().placeOnTop(bot.js, "stone", x + 3, y - 1, z, timeout=10)
    wait_until(lambda: block_name(bot, x + 3, y, z) == "stone" and bot.inventory() == {"stone": 1},
               message="a block placed within reach")
