"""Action commands run from model-style text on real bots on the embedded server: parse the reply, run the bound
command (the skills do the work), check what changed in the world or in the inventories."""

from __future__ import annotations

import math
import re
import threading
import time

from conftest import give_more as give
from conftest import isolate, teleport, wait_until
from conftest import run_command as run
from conftest import run_ok as ok
from mindpy.commands import AgentContext
from mindpy.world import queries


def block(bot, x, y, z):
    found = queries.block_at(bot, x, y, z)
    return found["name"] if found else None


def setblock(bot, x, y, z, name):
    bot.command(f"/setblock {x} {y} {z} {name}")
    base = name.split("[", 1)[0]
    wait_until(lambda: block(bot, x, y, z) == base, message=f"{name} at {x} {y} {z}")


def distance(a, b):
    return math.dist(a, b)


def seen(bot, name, radius=32):
    return [e for e in queries.entities(bot, radius) if e["name"] == name]


def summon(bot, name, x, y, z, nbt=""):
    bot.command(f"/summon {name} {x} {y} {z} {nbt}".strip())
    return wait_until(lambda: seen(bot, name), message=f"a {name} in sight")[0]


def yaw_towards(frm, to):
    """Mineflayer's yaw for looking from `frm` towards `to` (0 = north, counter-clockwise)."""
    return math.atan2(-(to[0] - frm[0]), -(to[2] - frm[2]))


def same_angle(a, b, tolerance=0.15):
    return abs((a - b + math.pi) % (2 * math.pi) - math.pi) < tolerance


# ---- moving ----------------------------------------------------------------------------------------------
def test_coordinates_move_away_remembered_places_and_stay(layer, make_bot):
    bot = make_bot("walker")
    x, y, z = isolate(bot)
    ctx = AgentContext.for_bot(bot)
    assert "Saved location 'start'" in ok(layer, ctx, 'I will remember this spot. !rememberHere("start")')

    out = ok(layer, ctx, f"On my way! !goToCoordinates({x + 10}, {y}, {z + 6}, 1)")
    assert "reached" in out
    assert distance(bot.position, (x + 10.5, y, z + 6.5)) <= 1.8

    before = bot.position
    ok(layer, ctx, "!moveAway(6)")
    assert distance(bot.position, before) >= 5.5

    ok(layer, ctx, 'Going back. !goToRememberedPlace("start")')
    assert distance(bot.position, (x + 0.5, y, z + 0.5)) <= 1.8
    missing = run(layer, ctx, '!goToRememberedPlace("nowhere")')
    assert not missing.ok and "No place called 'nowhere'" in missing and "start" in missing

    here = bot.position
    started = time.monotonic()
    out = ok(layer, ctx, "Let me wait a second. !stay(1)")
    took = time.monotonic() - started
    assert 0.9 <= took < 3, took
    assert "Stayed for 1 seconds" in out
    assert distance(bot.position, here) < 0.1


def test_search_for_block_and_look_at_position(layer, make_bot):
    bot = make_bot("seeker")
    x, y, z = isolate(bot)
    setblock(bot, x + 12, y, z - 7, "crafting_table")
    ctx = AgentContext.for_bot(bot)
    out = ok(layer, ctx, '!searchForBlock("crafting_table", 32)')
    assert f"Found crafting_table at x: {x + 12}, y: {y}, z: {z - 7}" in out
    assert distance(bot.position, (x + 12.5, y, z - 6.5)) <= 3
    none = run(layer, ctx, '!searchForBlock("diamond_ore", 32)')
    assert not none.ok and "Could not find any diamond_ore" in none

    here = bot.position
    target = (here[0] + 10, here[1] + 1.62, here[2])  # due east, at eye height
    ok(layer, ctx, f"!lookAtPosition({target[0]}, {target[1]}, {target[2]})")
    assert same_angle(bot.js.entity.yaw, yaw_towards(here, target)), bot.js.entity.yaw
    target = (here[0], here[1] + 1.62, here[2] + 10)  # due south
    ok(layer, ctx, f"!lookAtPosition({target[0]}, {target[1]}, {target[2]})")
    assert same_angle(bot.js.entity.yaw, yaw_towards(here, target)), bot.js.entity.yaw


def test_go_to_follow_look_at_and_give_to_a_player(layer, make_bot):
    leader, follower = make_bot("leader"), make_bot("follower")
    x, y, z = isolate(leader)
    teleport(follower, x + 10, y, z + 4)
    wait_until(lambda: leader.name in queries.stats(follower)["nearbyPlayers"], message="the leader in sight")
    ctx = AgentContext.for_bot(follower)

    out = ok(layer, ctx, f'Coming! !goToPlayer("{leader.name}", 2)')
    assert f"reached {leader.name}" in out
    assert distance(follower.position, leader.position) <= 3.2

    ok(layer, ctx, f'!lookAtPlayer("{leader.name}", "at")')
    assert same_angle(follower.js.entity.yaw, yaw_towards(follower.position, leader.position))
    leader.js.look(1.0, 0, True)
    wait_until(lambda: same_angle(follower.js.players[leader.name].entity.yaw, 1.0, 0.05), message="the leader's look")
    out = ok(layer, ctx, f'!lookAtPlayer("{leader.name}", "with")')
    assert "same direction" in out and same_angle(follower.js.entity.yaw, 1.0, 0.05)

    give(follower, "oak_planks", 5)
    out = ok(layer, ctx, f'Here you go. !givePlayer("{leader.name}", "oak_planks", 3)')
    assert f"{leader.name} received 3 oak_planks" in out
    wait_until(lambda: leader.inventory().get("oak_planks") == 3, message="the leader to have 3 planks")
    assert follower.inventory().get("oak_planks") == 2
    ok(layer, ctx, '!discard("oak_planks", 2)')  # thrown away from the leader, who does not pick them up
    time.sleep(2.5)
    assert leader.inventory().get("oak_planks") == 3

    outputs = []
    thread = threading.Thread(target=lambda: outputs.append(run(layer, ctx, f'!followPlayer("{leader.name}", 2)')))
    thread.start()
    try:
        time.sleep(1.0)
        assert thread.is_alive(), outputs  # follows until interrupted
        assert ok(layer, AgentContext.for_bot(leader), f"!goToCoordinates({x + 14}, {y}, {z - 8}, 0)")
        wait_until(lambda: distance(follower.position, leader.position) <= 3.5, timeout=10,
                   message="the follower to catch up with the leader")
        assert distance(follower.position, (x + 10, y, z + 4)) > 8
    finally:
        ctx.skills.interrupt()
        thread.join(10)
    assert not thread.is_alive()
    assert f"You are now following {leader.name}" in outputs[0] and not outputs[0].ok


def test_attack_player(layer, make_bot):
    attacker, victim = make_bot("fighter"), make_bot("victim")
    x, y, z = isolate(victim)
    teleport(attacker, x + 3, y, z)
    wait_until(lambda: victim.name in queries.stats(attacker)["nearbyPlayers"], message="the victim in sight")
    give(attacker, "diamond_sword", 1)
    died = []
    victim.on("death", lambda *args: died.append(True))
    out = ok(layer, AgentContext.for_bot(attacker), f'It is only a game! !attackPlayer("{victim.name}")')
    assert f"Defeated {victim.name}" in out
    wait_until(lambda: died, message="the victim to die")
    assert attacker.inventory().get("diamond_sword") == 1  # it fought with its sword


# ---- the inventory ---------------------------------------------------------------------------------------
def test_consume_equip_and_discard(layer, make_bot):
    bot = make_bot("eater")
    isolate(bot)
    ctx = AgentContext.for_bot(bot)
    give(bot, "bread", 2)
    bot.command(f"/mindpy_hunger {bot.name} 10")
    wait_until(lambda: bot.js.food == 10, message="hunger 10")
    out = ok(layer, ctx, 'I am hungry. !consume("bread")')
    assert "Consumed bread" in out
    wait_until(lambda: bot.js.food == 15, message="hunger 15 after bread")
    assert bot.inventory().get("bread") == 1
    assert not run(layer, ctx, '!consume("cooked_beef")').ok

    give(bot, "iron_sword", 1)
    give(bot, "iron_helmet", 1)
    ok(layer, ctx, '!equip("iron_sword")')
    assert queries.stats(bot)["heldItem"] == "iron_sword"
    ok(layer, ctx, '!equip("iron_helmet")')
    assert "WEARING: head: iron_helmet" in run(layer, ctx, "!inventory")
    assert "do not have any diamond_pickaxe" in run(layer, ctx, '!equip("diamond_pickaxe")')

    give(bot, "dirt", 10)
    out = ok(layer, ctx, 'Too much dirt. !discard("dirt", 4)')
    assert "Discarded 4 dirt" in out
    assert bot.inventory().get("dirt") == 6
    on_ground = lambda: sum(e["item"]["count"] for e in queries.entities(bot, 8)
                            if e["item"] and e["item"]["name"] == "dirt")
    wait_until(lambda: on_ground() == 4, message="the 4 dirt on the ground")


def test_chest_commands(layer, make_bot):
    bot = make_bot("keeper")
    x, y, z = isolate(bot)
    setblock(bot, x + 2, y, z + 1, "chest")
    give(bot, "cobblestone", 10)
    ctx = AgentContext.for_bot(bot)
    assert "The chest is empty" in ok(layer, ctx, "!viewChest")
    out = ok(layer, ctx, 'Storing it. !putInChest("cobblestone", 6)')
    assert "Put 6 cobblestone in the chest" in out
    assert bot.inventory().get("cobblestone") == 4
    assert "- cobblestone: 6" in ok(layer, ctx, "!viewChest")
    out = ok(layer, ctx, '!takeFromChest("cobblestone", 2)')
    assert "Took 2 cobblestone" in out
    wait_until(lambda: bot.inventory().get("cobblestone") == 6, message="6 cobblestone back")
    assert "- cobblestone: 4" in ok(layer, ctx, "!viewChest")
    assert "has no diamond" in run(layer, ctx, '!takeFromChest("diamond", 1)')


# ---- blocks and crafting ---------------------------------------------------------------------------------
def test_collect_craft_with_and_without_a_table_and_place(layer, make_bot):
    bot = make_bot("crafter")
    x, y, z = isolate(bot)
    for i in range(3):
        bot.command(f"/setblock {x + 3 + 2 * i} {y} {z + 1} oak_log")
    wait_until(lambda: block(bot, x + 7, y, z + 1) == "oak_log", message="three logs")
    ctx = AgentContext.for_bot(bot)
    out = ok(layer, ctx, 'Getting wood. !collectBlocks("oak_log", 2)')
    wait_until(lambda: bot.inventory().get("oak_log") == 2, message="2 oak_log")
    assert [block(bot, x + 3 + 2 * i, y, z + 1) for i in range(3)].count("oak_log") == 1, out

    out = ok(layer, ctx, 'Sure! !craftRecipe("oak_planks", 2)')  # 2 uses of the recipe: 8 planks
    assert bot.inventory() == {"oak_planks": 8}, out
    ok(layer, ctx, '!craftRecipe("stick", 1)')
    assert bot.inventory() == {"oak_planks": 6, "stick": 4}

    no_table = run(layer, ctx, '!craftRecipe("wooden_pickaxe", 1)')
    assert not no_table.ok and "crafting table" in no_table
    setblock(bot, x - 3, y, z, "crafting_table")
    out = ok(layer, ctx, '!craftRecipe("wooden_pickaxe", 1)')
    assert "wooden_pickaxe" in out
    assert bot.inventory() == {"oak_planks": 3, "stick": 2, "wooden_pickaxe": 1}

    give(bot, "crafting_table", 1)
    out = ok(layer, ctx, '!placeHere("crafting_table")')
    assert "crafting_table" not in bot.inventory()
    tables = [b for b in queries.nearby_blocks(bot, 4) if b["name"] == "crafting_table"]
    assert tables and tables[0]["distance"] <= 2, (tables, out)


def test_smelt_and_clear_furnace(layer, make_bot):
    bot = make_bot("smelter")
    x, y, z = isolate(bot)
    give(bot, "raw_iron", 3)
    give(bot, "coal", 2)
    give(bot, "furnace", 1)
    ctx = AgentContext.for_bot(bot)
    out = ok(layer, ctx, 'Smelting now. !smeltItem("raw_iron", 3)')
    assert "Smelted 3 raw_iron into iron_ingot" in out
    assert bot.inventory().get("iron_ingot") == 3 and "raw_iron" not in bot.inventory()
    assert "furnace" not in bot.inventory()  # it placed its furnace

    # leave something in the furnace (no fuel: it stays there), then clear it; the coal of the smelt above burns
    # on for a while (a load-dependent time in wall-clock terms): wait for the fire to go out first
    give(bot, "raw_gold", 2)
    position = bot.js.findBlock({"matching": bot.js.registry.blocksByName.furnace.id, "maxDistance": 8}).position
    wait_until(lambda: not bot.js.blockAt(position).getProperties().lit, timeout=10, message="the fire to go out")
    furnace_block = bot.js.blockAt(position)
    furnace = bot.js.openFurnace(furnace_block, timeout=10)
    furnace.putInput(bot.js.registry.itemsByName.raw_gold.id, None, 2, timeout=10)
    furnace.close()
    wait_until(lambda: "raw_gold" not in bot.inventory(), message="the raw gold in the furnace")
    out = ok(layer, ctx, "!clearFurnace")
    assert "2 raw_gold" in out
    wait_until(lambda: bot.inventory().get("raw_gold") == 2, message="the raw gold back")
    assert "already empty" in ok(layer, ctx, "!clearFurnace")


def test_a_toss_into_a_crowd_reaches_the_receiver_not_a_bystander(layer, make_bot):
    bystander, receiver, giver = make_bot("bystander"), make_bot("receiver"), make_bot("giver")
    x, y, z = isolate(receiver)
    teleport(bystander, x - 0.7, y, z + 0.5)  # close behind the receiver, as agents crowd round a station
    teleport(giver, x + 4.5, y, z + 0.5)
    wait_until(lambda: receiver.name in queries.stats(giver)["nearbyPlayers"], message="the receiver in sight")
    give(giver, "bowl", 1)
    for _ in range(3):
        out = ok(layer, AgentContext.for_bot(giver), f'!givePlayer("{receiver.name}", "bowl", 1)')
        assert f"{receiver.name} received 1 bowl" in out, out
        assert "bowl" not in bystander.inventory()
        receiver.command(f"/clear {receiver.name}")
        give(giver, "bowl", 1)


def fill_inventory(bot) -> None:
    """Every slot of `bot`'s inventory a full stack of stone: it picks nothing up."""
    for _ in range(36):
        bot.command(f"/give {bot.name} stone 64")
    wait_until(lambda: bot.inventory().get("stone", 0) == 36 * 64, timeout=20, message="a full inventory")


def test_a_toss_nobody_catches_is_taken_back_by_the_giver(layer, make_bot):
    """The receiver's inventory is full, so neither toss is picked up: the giver ends with its items back and says
    so (the output said they lay on the ground, and a toss that did stay there, its receiver gone, was left: a
    Hell's Kitchen team lost the gold nuggets its golden carrot needed that way; now the giver fetches it)."""
    receiver, giver = make_bot("full"), make_bot("giver")
    x, y, z = isolate(receiver)
    teleport(giver, x + 3.5, y, z + 0.5)
    wait_until(lambda: receiver.name in queries.stats(giver)["nearbyPlayers"], message="the receiver in sight")
    fill_inventory(receiver)
    give(giver, "gold_nugget", 3)
    out = run(layer, AgentContext.for_bot(giver), f'!givePlayer("{receiver.name}", "gold_nugget", 2)')
    assert "did not pick them up" in out and "I have them back" in out, out
    assert giver.inventory().get("gold_nugget") == 3 and "gold_nugget" not in receiver.inventory()


def test_someone_else_s_toss_caught_nearby_is_not_taken_for_the_giver_s_own(layer, make_bot):
    """While the giver watches its toss, a bystander picks up the same kind of item that a third player tossed.
    The giver's toss lands with nobody (the receiver's inventory is full) and rolls back to it: it must say it has
    the items back, not that the bystander caught them (then it would not fetch them: a five-agent team lost a
    brick that way when everyone handed theirs to one crafter at once)."""
    receiver, giver, dropper, bystander = make_bot("full"), make_bot("giver"), make_bot("dropper"), make_bot("by")
    x, y, z = isolate(receiver)
    teleport(giver, x + 3.5, y, z + 0.5)
    teleport(dropper, x + 3.5, y, z + 6.5)
    teleport(bystander, x + 3.5, y, z + 9.0)
    wait_until(lambda: receiver.name in queries.stats(giver)["nearbyPlayers"], message="the receiver in sight")
    fill_inventory(receiver)
    give(giver, "gold_nugget", 3)
    give(dropper, "gold_nugget", 1)
    dropper.js.lookAt(bystander.js.entity.position.offset(0, 1.6, 0), True, timeout=5)
    outputs: list[str] = []
    giving = threading.Thread(target=lambda: outputs.append(
        run(layer, AgentContext.for_bot(giver), f'!givePlayer("{receiver.name}", "gold_nugget", 2)')))
    giving.start()
    wait_until(lambda: giver.inventory().get("gold_nugget", 0) < 3, timeout=30, message="the giver's toss")
    dropper.js.toss(dropper.js.registry.itemsByName["gold_nugget"].id, None, 1, timeout=10)
    wait_until(lambda: bystander.inventory().get("gold_nugget") == 1, timeout=8, message="the bystander's catch")
    giving.join(timeout=60)
    out = outputs[0]
    assert "did not pick them up" in out and bystander.name not in out and "I have them back" in out, out
    assert giver.inventory().get("gold_nugget") == 3


def test_a_table_placed_for_crafting_is_taken_back(layer, make_bot):
    bot = make_bot("tabler")
    isolate(bot)
    give(bot, "crafting_table", 1)
    give(bot, "iron_ingot", 10)
    give(bot, "chest", 1)
    ctx = AgentContext.for_bot(bot)
    out = ok(layer, ctx, '!craftRecipe("hopper", 1)')
    assert "Placed crafting_table" in out and "crafted hopper" in out
    wait_until(lambda: bot.inventory().get("crafting_table") == 1, message="the table back in the inventory")
    assert not [b for b in queries.nearby_blocks(bot, 6) if b["name"] == "crafting_table"]
    ok(layer, ctx, '!craftRecipe("minecart", 1)')  # the next recipe that needs a table places it again
    assert bot.inventory() == {"hopper": 1, "minecart": 1, "crafting_table": 1}


def test_smelting_uses_a_free_station_when_the_nearest_furnace_is_busy(layer, make_bot):
    bot = make_bot("cook")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x + 1} {y} {z} furnace")
    bot.command(f"/setblock {x + 3} {y} {z + 2} smoker")
    wait_until(lambda: block(bot, x + 3, y, z + 2) == "smoker", message="the smoker")
    give(bot, "raw_gold", 1)
    give(bot, "beef", 1)
    give(bot, "coal", 2)
    busy = bot.js.openFurnace(bot.js.blockAt(bot.js.entity.position.offset(1, 0, 0)), timeout=10)
    busy.putInput(bot.js.registry.itemsByName.raw_gold.id, None, 1, timeout=10)  # no fuel: it stays there
    busy.close()
    wait_until(lambda: "raw_gold" not in bot.inventory(), message="the raw gold in the furnace")
    out = ok(layer, AgentContext.for_bot(bot), '!smeltItem("beef", 1)')
    assert "Smelted 1 beef into cooked_beef" in out
    assert bot.inventory().get("cooked_beef") == 1


def test_dig_down_and_go_to_surface(layer, make_bot):
    bot = make_bot("digger")
    x, y, z = isolate(bot)
    give(bot, "wooden_shovel", 1)
    ctx = AgentContext.for_bot(bot)
    out = ok(layer, ctx, "!digDown(2)")
    assert "Dug down 2 blocks" in out
    assert abs(bot.position[1] - (y - 2)) < 0.1
    assert block(bot, x, y - 1, z) == "air" and block(bot, x, y - 2, z) == "air"

    # under a roof: the surface is on top of it. Steps lead up there, and the dirt dug is cleared: with it the
    # pathfinder may choose to dig through the roof and pillar up instead, which takes it some 30 s.
    ok(layer, ctx, f"!goToCoordinates({x + 6}, {y}, {z}, 0)")
    bot.command(f"/clear {bot.name} dirt")
    wait_until(lambda: "dirt" not in bot.inventory(), message="the dirt cleared")
    bot.command(f"/fill {x + 5} {y + 2} {z - 1} {x + 7} {y + 2} {z + 1} stone")
    bot.command(f"/fill {x + 8} {y} {z} {x + 8} {y + 1} {z} stone")
    bot.command(f"/setblock {x + 9} {y} {z} stone")
    wait_until(lambda: block(bot, x + 9, y, z) == "stone" and block(bot, x + 7, y + 2, z + 1) == "stone",
               message="the roof and its steps")
    out = ok(layer, ctx, "!goToSurface")
    assert f"surface at y={y + 3}" in out
    assert abs(bot.position[1] - (y + 3)) < 0.1


# ---- creatures -------------------------------------------------------------------------------------------
def test_search_for_entity_and_attack(layer, make_bot):
    bot = make_bot("hunter")
    x, y, z = isolate(bot)
    ctx = AgentContext.for_bot(bot)
    try:
        summon(bot, "cow", x + 12, y, z + 3, "{NoAI:1b}")
        out = ok(layer, ctx, '!searchForEntity("cow", 32)')
        assert "Found cow" in out
        cow = seen(bot, "cow")[0]
        assert cow["distance"] <= 3.5

        give(bot, "iron_sword", 1)
        chicken = summon(bot, "chicken", x + 4, y, z - 3)
        out = ok(layer, ctx, 'Dinner! !attack("chicken")')
        assert "Killed the chicken" in out
        wait_until(lambda: not any(e["id"] == chicken["id"] for e in seen(bot, "chicken")), message="the chicken gone")
        wait_until(lambda: bot.inventory().get("chicken"), message="the raw chicken picked up")
        assert not run(layer, ctx, '!attack("zombie")').ok
    finally:
        bot.command("/kill @e[type=cow,distance=..40]")
        bot.command("/kill @e[type=chicken,distance=..40]")


def test_use_on_blocks_and_creatures(layer, make_bot):
    bot = make_bot("farmer")
    x, y, z = isolate(bot)
    ctx = AgentContext.for_bot(bot)
    give(bot, "wooden_hoe", 1)
    out = ok(layer, ctx, '!useOn("wooden_hoe", "grass_block")')
    m = re.search(r"at x: (-?\d+), y: (-?\d+), z: (-?\d+)", out)
    assert m, out
    wait_until(lambda: block(bot, *map(int, m.groups())) == "farmland", message="farmland")

    try:
        summon(bot, "cow", x + 4, y, z, "{NoAI:1b}")
        give(bot, "bucket", 1)
        out = ok(layer, ctx, 'I will milk it. !useOn("bucket", "cow")')
        wait_until(lambda: bot.inventory().get("milk_bucket") == 1, message="a milk bucket")
    finally:
        bot.command("/kill @e[type=cow,distance=..40]")

    setblock(bot, x - 2, y, z + 2, "oak_door[half=lower,facing=east]")
    setblock(bot, x - 2, y + 1, z + 2, "oak_door[half=upper,facing=east]")
    ok(layer, ctx, '!useOn("hand", "oak_door")')
    wait_until(lambda: queries.block_at(bot, x - 2, y, z + 2)["properties"]["open"] is True, message="the door open")


def test_activate_door_and_lever(layer, make_bot):
    bot = make_bot("opener")
    x, y, z = isolate(bot)
    setblock(bot, x + 3, y, z, "oak_door[half=lower,facing=west]")
    setblock(bot, x + 3, y + 1, z, "oak_door[half=upper,facing=west]")
    ctx = AgentContext.for_bot(bot)
    assert queries.block_at(bot, x + 3, y, z)["properties"]["open"] is False
    out = ok(layer, ctx, "Let me open it. !activate(\"oak_door\")")
    assert "Activated the oak_door" in out
    wait_until(lambda: queries.block_at(bot, x + 3, y, z)["properties"]["open"] is True, message="the door open")
    ok(layer, ctx, '!activate("oak_door")')
    wait_until(lambda: queries.block_at(bot, x + 3, y, z)["properties"]["open"] is False, message="the door shut")

    setblock(bot, x - 2, y, z - 2, "lever[face=floor,facing=north]")
    ok(layer, ctx, '!activate("lever")')
    wait_until(lambda: queries.block_at(bot, x - 2, y, z - 2)["properties"]["powered"] is True,
               message="the lever on")
    assert "no stone_button nearby" in run(layer, ctx, '!activate("stone_button")')


def test_go_to_bed_sleeps_through_the_night(layer, make_bot):
    bot = make_bot("sleeper")
    x, y, z = isolate(bot)
    setblock(bot, x + 3, y, z + 2, "red_bed[facing=south,part=foot]")
    setblock(bot, x + 3, y, z + 3, "red_bed[facing=south,part=head]")
    bot.command("/time set 13000")
    wait_until(lambda: bot.js.time.timeOfDay >= 13000, message="night")
    try:
        out = ok(layer, AgentContext.for_bot(bot), "Time to sleep. !goToBed")
        assert "You are in bed" in out and "You woke up" in out
        wait_until(lambda: bot.js.time.timeOfDay < 2000, timeout=20, message="morning")  # slower under load
    finally:
        bot.command("/time set day")


def test_villager_commands_name_the_missing_villager(layer, make_bot):
    bot = make_bot("trader")
    isolate(bot)
    ctx = AgentContext.for_bot(bot)
    out = run(layer, ctx, "Let me see. !showVillagerTrades(4242)")
    assert not out.ok and "There is no villager with id 4242 nearby" in out
    out = run(layer, ctx, "!tradeWithVillager(4242, 1, 2)")
    assert not out.ok and "There is no villager with id 4242 nearby" in out
