"""The embedded server's world: a superflat world shaped like vanilla's, and trees placed by set-up commands."""

from __future__ import annotations

import json

from conftest import isolate, wait_for_chunks, wait_ticks, wait_until, world_js


def block_name(bot, x, y, z):
    found = json.loads(world_js().blockJson(bot.js, x, y, z))
    return found and found["name"]


def column(bot, x, z):
    return [block_name(bot, x, y, z) for y in (-60, -61, -62, -63, -64)]


def test_players_spawn_standing_on_a_vanilla_shaped_superflat_world(make_bot):
    bot = make_bot("newcomer")
    wait_for_chunks(bot)
    x, y, z = bot.position
    assert y == -60, "players stand on the grass at y=-60"
    wait_until(lambda: bot.js.entity.onGround, message="the bot on the ground")
    assert column(bot, int(x // 1), int(z // 1)) == ["air", "grass_block", "dirt", "dirt", "bedrock"]
    assert (bot.js.game.minY, bot.js.game.height) == (-64, 384)  # the overworld's height since 1.18
    # the same everywhere, e.g. far from spawn
    x, y, z = isolate(bot)
    assert column(bot, x, z) == ["air", "grass_block", "dirt", "dirt", "bedrock"]
    # chunks further out arrive a moment after the ones the bot stands in
    far = wait_until(lambda: None not in (c := column(bot, x - 37, z + 29)) and c, timeout=15,
                     message="the chunk 37 blocks away to load")
    assert far == ["air", "grass_block", "dirt", "dirt", "bedrock"]


def test_a_tree_set_up_by_commands_can_be_chopped_for_logs(make_bot):
    bot = make_bot("lumberjack")
    x, y, z = isolate(bot)
    tx, tz = x + 2, z
    bot.command(f"/fill {tx - 2} {y + 3} {tz - 2} {tx + 2} {y + 4} {tz + 2} oak_leaves")
    bot.command(f"/fill {tx - 1} {y + 5} {tz - 1} {tx + 1} {y + 5} {tz + 1} oak_leaves")
    bot.command(f"/fill {tx} {y} {tz} {tx} {y + 4} {tz} oak_log")
    wait_until(lambda: block_name(bot, tx, y + 4, tz) == "oak_log", message="the trunk")
    assert block_name(bot, tx + 2, y + 3, tz + 2) == "oak_leaves"
    assert json.loads(world_js().blockJson(bot.js, tx, y, tz))["properties"]["axis"] == "y"  # the default, upright

    world_js().digAt(bot.js, tx, y, tz, timeout=15)  # by hand, about 3 s
    world_js().digAt(bot.js, tx, y + 1, tz, timeout=15)
    wait_until(lambda: any(e["name"] == "item" for e in json.loads(world_js().entitiesJson(bot.js, 8))), message="drops")
    assert world_js().collectDrops(bot.js, 8, 8000, timeout=12) == 0
    assert wait_until(lambda: bot.inventory() == {"oak_log": 2} and bot.inventory(), message="two logs") == {"oak_log": 2}
    assert block_name(bot, tx, y + 2, tz) == "oak_log"  # the rest of the trunk stays, as in vanilla


def block_state(bot, x, y, z):
    found = json.loads(world_js().blockJson(bot.js, x, y, z))
    return (found["name"], found["properties"]) if found else (None, {})


def test_doors_place_both_halves_open_and_break_as_one(make_bot):
    bot = make_bot("carpenter")
    x, y, z = isolate(bot)
    bot.command(f"/give {bot.name} oak_door 1")
    wait_until(lambda: bot.inventory() == {"oak_door": 1}, message="a door")
    world_js().placeOnTop(bot.js, "oak_door", x + 2, y - 1, z, timeout=10)
    wait_until(lambda: block_state(bot, x + 2, y + 1, z)[0] == "oak_door", message="the upper half")
    lower, upper = block_state(bot, x + 2, y, z), block_state(bot, x + 2, y + 1, z)
    assert lower[0] == "oak_door" and lower[1]["half"] == "lower" and upper[1]["half"] == "upper"
    assert lower[1]["facing"] == upper[1]["facing"] == "east"  # the way the bot faced when placing it
    assert lower[1]["open"] is False and bot.inventory() == {}

    bot.js.activateBlock(bot.js.blockAt(bot.js.entity.position.offset(2, 0, 0)), timeout=5)
    wait_until(lambda: block_state(bot, x + 2, y + 1, z)[1].get("open") is True, message="the door open")
    assert block_state(bot, x + 2, y, z)[1]["open"] is True

    world_js().digAt(bot.js, x + 2, y + 1, z, timeout=15)  # the upper half takes the lower one with it
    wait_until(lambda: block_state(bot, x + 2, y, z)[0] == "air", message="both halves gone")
    # the drop is an entity of its own, which can reach the bot a moment after the block change
    wait_until(lambda: any(e["name"] == "item" for e in json.loads(world_js().entitiesJson(bot.js, 8))), message="the door dropped")
    assert world_js().collectDrops(bot.js, 8, 8000, timeout=12) == 0
    assert wait_until(lambda: bot.inventory() == {"oak_door": 1}, message="one door back")


def test_beds_place_foot_and_head(make_bot):
    bot = make_bot("bedmaker")
    x, y, z = isolate(bot)
    bot.command(f"/give {bot.name} red_bed 1")
    wait_until(lambda: bot.inventory() == {"red_bed": 1}, message="a bed")
    world_js().placeOnTop(bot.js, "red_bed", x, y - 1, z + 2, timeout=10)
    wait_until(lambda: block_state(bot, x, y, z + 3)[0] == "red_bed", message="the head")
    foot, head = block_state(bot, x, y, z + 2), block_state(bot, x, y, z + 3)
    assert foot[1]["part"] == "foot" and head[1]["part"] == "head"
    assert foot[1]["facing"] == head[1]["facing"] == "south"  # head away from the bot, as in vanilla
    assert bot.inventory() == {}


def test_sleeping_in_a_bed_skips_the_night(make_bot):
    bot = make_bot("sleeper")
    x, y, z = isolate(bot)
    bot.command(f"/setblock {x} {y} {z + 2} red_bed[facing=south,part=foot]")
    bot.command(f"/setblock {x} {y} {z + 3} red_bed[facing=south,part=head]")
    wait_until(lambda: block_state(bot, x, y, z + 3)[0] == "red_bed", message="the bed")
    bed = bot.js.blockAt(bot.js.entity.position.offset(0, 0, 2))
    said = []
    bot.on("messagestr", lambda text, *rest: said.append(text))
    bot.command("/time set 1000")
    bot.js.activateBlock(bed, timeout=5)  # by day: the server says no (mineflayer's bot.sleep would refuse itself)
    wait_until(lambda: "You can sleep only at night or during thunderstorms" in said, message="the refusal")

    bot.command("/time set 13000")
    wait_until(lambda: bot.js.time.timeOfDay >= 13000, message="night")
    bot.js.sleep(bed, timeout=10)
    assert bot.js.isSleeping
    wait_until(lambda: block_state(bot, x, y, z + 2)[1].get("occupied") is True, message="the bed occupied")
    bot.js.wake(timeout=5)
    wait_until(lambda: not bot.js.isSleeping, message="awake after leaving the bed")
    wait_until(lambda: block_state(bot, x, y, z + 3)[1].get("occupied") is False, message="the bed free")

    woke = []
    bot.on("wake", lambda *args: woke.append(True))
    bot.js.sleep(bed, timeout=10)
    wait_until(lambda: woke, timeout=10, message="morning (everyone on the server asleep for 5 s)")
    assert bot.js.time.timeOfDay < 1000 and not bot.js.isSleeping


def test_a_time_set_is_never_undone_by_the_day_cycle_and_the_world_age_counts_ticks(make_bot, server):
    # the day cycle steps the clock every 20 ticks; a /time set landing in that tick was undone by the step's
    # stale value (1 time in 20), which kept nights from ending: set the time often enough to hit that tick
    bot = make_bot("clock")
    for i in range(40):
        target = 1000 if i % 2 else 13000
        bot.command(f"/time set {target}")
        wait_until(lambda: target <= bot.js.time.timeOfDay <= target + 100, message=f"time {target}")
        wait_ticks(3, "past the tick of the set")
        assert target <= bot.js.time.timeOfDay <= target + 100, (i, target, bot.js.time.timeOfDay)
    ticks = server.ticks()
    wait_until(lambda: abs(bot.js.time.age - server.ticks()) <= 25, message="the world age to follow the ticks")
    assert bot.js.time.age >= ticks - 25
