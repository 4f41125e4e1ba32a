"""Hostile mobs on the embedded server (plugins 45_hostile_mobs.js and 46_mob_attacks.js), with real bots.

The module's own server has hostile mobs on (at most one per player, zombies only for natural spawns, spawning fast
and close, 24-26 blocks away, so a spawn and its walk to the bot take seconds); the session's server has them off,
as task worlds do.
"""

from __future__ import annotations

import json
import time

import pytest

from agent_helpers import start_agent
from conftest import (
    TESTS_DIR,
    bot_factory,
    give_items,
    isolate,
    teleport,
    wait_ticks,
    wait_until,
    world_js,
)
from mindpy.bridge import js_module
from mindpy.errors import ServerError
from mindpy.server import EmbeddedServer

MOB_OPTIONS = {"hostileMobs": True, "mobSpawnRate": 10, "mobSpawnDistance": [24, 26], "hostileMobKinds": ["zombie"],
               "mobCap": 1, "viewDistance": 4}


@pytest.fixture(scope="module")
def mob_server(tmp_path_factory):
    with EmbeddedServer(run_dir=tmp_path_factory.mktemp("mobs"), options=MOB_OPTIONS) as srv:
        yield srv


@pytest.fixture
def mob_bots(mob_server):
    """Factory of bots on the module's server (conftest's make_bot there); closed after the test."""
    yield from bot_factory(mob_server)


def mob_js():
    return js_module(TESTS_DIR / "js" / "mob_helpers.js")


def mobs(bot, name: str) -> list[dict]:
    return json.loads(mob_js().mobs(bot.js, name))


def drops_near(bot, radius: float = 6) -> list[str]:
    return json.loads(mob_js().dropsNear(bot.js, radius))


def track_health(bot) -> list[float]:
    """Every health the bot is told, lowest reachable as min(); starts with the current one."""
    seen = [bot.js.health]
    bot.on("health", lambda *args: seen.append(bot.js.health))
    return seen


def test_a_zombie_spawns_at_night_walks_to_a_bot_hurts_it_and_self_defense_kills_it(mob_bots, tmp_path):
    # self_defense comes on once the zombie has hit: a bot that fights first knocks the zombie back out of reach
    modes = {"idle_staring": False, "elbow_room": False, "hunting": False, "self_defense": False}
    agent, _ = start_agent(mob_bots, tmp_path, [], prefix="guard", modes=modes)
    try:
        bot = agent.bot
        bot.command("/time set 1000")  # no spawns on the way to an area of its own
        isolate(bot)
        give_items(bot, {"stone_sword": 1})
        healths = track_health(bot)
        assert not mobs(bot, "zombie")
        bot.command("/time set 14000")
        zombie = wait_until(lambda: mobs(bot, "zombie"), timeout=10, message="a zombie to spawn at night")[0]
        assert 20 <= zombie["distance"] <= 32, zombie  # 24-26 blocks from the bot's feet, seen from its position
        assert zombie["kind"] == "Hostile mobs"
        wait_until(lambda: min(healths) < 20, timeout=25,
                   message=lambda: f"the zombie to hurt the bot (zombies: {mobs(bot, 'zombie')}, health {healths[-1]})")
        assert any(m["id"] == zombie["id"] for m in mobs(bot, "zombie")), "the zombie that spawned hit the bot"
        agent.modes.set_on("self_defense", True)
        wait_until(lambda: not any(m["id"] == zombie["id"] for m in mobs(bot, "zombie")), timeout=15,
                   message=lambda: f"self_defense to kill the zombie ({agent.modes.behavior_log!r})")
        assert "self_defense: Fighting a zombie!" in agent.modes.behavior_log
        assert bot.js.health > 0
    finally:
        agent.bot.command("/time set 1000")
        agent.close()


def test_by_day_zombies_spawn_only_in_the_dark_underground(mob_bots):
    """A cave under the flat world's grass: its sky light is 0, so it is dark at noon."""
    bot = mob_bots("caver")
    bot.command("/time set 6000")
    x, y, z = isolate(bot)
    bot.command(f"/fill {x - 30} {y - 3} {z - 30} {x + 30} {y - 2} {z + 30} air")  # 2 high, on the bedrock
    zombie = wait_until(lambda: mobs(bot, "zombie"), timeout=10, message="a zombie to spawn in the cave")[0]
    assert zombie["y"] == y - 3, zombie  # in the cave, none on the sunny surface
    bot.command("/kill @e[type=zombie,distance=..40]")


def test_a_zombie_burns_to_death_under_the_day_sky_while_a_creeper_does_not(mob_bots):
    bot = mob_bots("sun")
    bot.command("/time set 1000")
    bot.command("/gamemode creative")  # nobody for them to chase
    x, y, z = isolate(bot)
    bot.command(f"/summon zombie {x + 5} {y} {z} {{Health:3f}}")
    bot.command(f"/summon creeper {x - 5} {y} {z} {{Health:3f}}")
    wait_until(lambda: mobs(bot, "zombie") and mobs(bot, "creeper"), timeout=5, message="the two mobs")
    wait_until(lambda: any(m["onFire"] for m in mobs(bot, "zombie")), timeout=5, message="the zombie to catch fire")
    wait_until(lambda: not mobs(bot, "zombie"), timeout=8, message="the burning zombie to die")
    creeper = mobs(bot, "creeper")
    assert len(creeper) == 1 and not creeper[0]["onFire"], creeper


def test_zombies_step_up_a_block_to_reach_a_bot_but_do_not_walk_off_a_cliff(mob_bots):
    bot = mob_bots("climb")
    bot.command("/time set 1000")
    x, y, z = isolate(bot)
    bot.command(f"/fill {x - 1} {y} {z - 1} {x + 1} {y} {z + 1} stone")  # the bot stands on a 3x3 step
    teleport(bot, x + 0.5, y + 1, z + 0.5)
    bot.command(f"/fill {x + 6} {y} {z - 1} {x + 8} {y + 4} {z + 1} stone")  # a tower 5 blocks high, east
    healths = track_health(bot)
    bot.command(f"/summon zombie {x - 5} {y} {z}")
    bot.command(f"/summon zombie {x + 7} {y + 5} {z}")
    wait_until(lambda: len(mobs(bot, "zombie")) == 2, timeout=5, message="the two zombies")
    wait_until(lambda: min(healths) < 20, timeout=8,
               message=lambda: f"the zombie on the ground to climb the step and hit ({mobs(bot, 'zombie')})")
    on_tower = [m for m in mobs(bot, "zombie") if m["y"] > y + 1]
    assert len(on_tower) == 1 and on_tower[0]["y"] >= y + 5 - 0.01, mobs(bot, "zombie")
    bot.command("/kill @e[type=zombie,distance=..20]")


def test_a_creeper_explodes_beside_a_bot_hurting_it_and_breaking_blocks(mob_bots):
    bot = mob_bots("boom")
    bot.command("/time set 1000")
    x, y, z = isolate(bot)
    healths = track_health(bot)
    ground = bot.js.blockAt(bot.js.entity.position.offset(2, -1, 0))
    assert ground.name == "grass_block"
    bot.command(f"/summon creeper {x + 2.5} {y} {z + 0.5}")
    wait_until(lambda: mobs(bot, "creeper"), timeout=5, message="the creeper")
    wait_until(lambda: not mobs(bot, "creeper"), timeout=6, message="the creeper to explode")
    wait_until(lambda: min(healths) < 20, timeout=3, message="the explosion to hurt the bot")
    assert min(healths) <= 15, healths  # vanilla: 13 on easy at 2 blocks
    crater = wait_until(lambda: (bot.js.blockAt(ground.position) or {}).name == "air", timeout=3,
                        message="the ground under the creeper to be blown away")
    assert crater
    assert not drops_near(bot, 8).count("gunpowder"), "a creeper that explodes drops no loot"


def test_killed_zombie_and_skeleton_drop_their_loot(mob_bots):
    bot = mob_bots("hunter")
    bot.command("/time set 1000")
    x, y, z = isolate(bot)
    for dx in (2, -2):  # a roof each: under the day sky a mob of 1 health would burn to death before the bot hits it
        bot.command(f"/setblock {x + dx} {y + 3} {z} stone")
    roofed = lambda: all((json.loads(world_js().blockJson(bot.js, x + dx, y + 3, z)) or {}).get("name") == "stone"  # noqa: E731
                         for dx in (2, -2))
    wait_until(roofed, message="the roofs")
    bot.command(f"/summon zombie {x + 2} {y} {z} {{NoAI:1b,Health:1f}}")
    bot.command(f"/summon skeleton {x - 2} {y} {z} {{NoAI:1b,Health:1f}}")
    wait_until(lambda: mobs(bot, "zombie") and mobs(bot, "skeleton"), timeout=5, message="the two mobs")
    for name in ("zombie", "skeleton"):
        assert mob_js().hitNearest(bot.js, name)
        wait_until(lambda: not mobs(bot, name), timeout=5, message=f"the {name} to die")
    # a drop landing by the bot is picked up: the loot is what lies around and what the bot holds
    loot = lambda: set(drops_near(bot, 8)) | set(bot.inventory())  # noqa: E731
    drops = wait_until(lambda: {"rotten_flesh", "bone", "arrow"} <= loot() and loot(), timeout=5,
                       message=lambda: f"the loot (lying around or picked up: {sorted(loot())})")
    assert "gunpowder" not in drops


def test_a_skeleton_shoots_arrows_that_hurt_a_bot(mob_bots):
    bot = mob_bots("target")
    bot.command("/time set 1000")
    x, y, z = isolate(bot)
    healths = track_health(bot)
    bot.command(f"/summon skeleton {x + 10} {y} {z}")
    wait_until(lambda: mobs(bot, "arrow"), timeout=6, message="an arrow in flight")
    wait_until(lambda: min(healths) < 20, timeout=6, message="an arrow to hit the bot")
    bot.command("/kill @e[type=skeleton]")


def test_a_spider_leaves_a_bot_alone_by_day_until_the_bot_hits_it(mob_bots):
    bot = mob_bots("arachno")
    bot.command("/time set 6000")
    x, y, z = isolate(bot)
    healths = track_health(bot)
    bot.command(f"/summon spider {x + 3.5} {y} {z + 0.5}")
    wait_until(lambda: mobs(bot, "spider"), timeout=5, message="the spider")
    time.sleep(1.5)  # a hostile spider would be on the bot by now (3 blocks at 3 blocks a second)
    assert min(healths) == 20 and mobs(bot, "spider")[0]["distance"] > 2, mobs(bot, "spider")
    assert mob_js().hitNearest(bot.js, "spider")
    wait_until(lambda: min(healths) < 20, timeout=5, message="the provoked spider to bite back")
    bot.command("/kill @e[type=spider,distance=..20]")


def test_peaceful_removes_hostile_mobs(mob_bots):
    bot = mob_bots("calm")
    bot.command("/time set 1000")
    x, y, z = isolate(bot)
    bot.command(f"/summon spider {x + 4} {y} {z} {{NoAI:1b}}")
    wait_until(lambda: mobs(bot, "spider"), timeout=5, message="the spider")
    bot.command("/difficulty peaceful")
    try:
        wait_until(lambda: not mobs(bot, "spider"), timeout=5, message="peaceful to remove the spider")
    finally:
        bot.command("/difficulty easy")


@pytest.mark.parametrize("options, message", [
    ({"hostileMobKinds": ["zombie", "ghast"]}, "hostileMobKinds: unknown kind \"ghast\" (known: zombie, skeleton"),
    ({"mobSpawnDistance": [30, 10]}, "mobSpawnDistance must be [min, max] blocks"),
], ids=["unknown-kind", "distances-reversed"])
def test_wrong_mob_options_stop_the_start_with_one_line(tmp_path, options, message):
    with pytest.raises(ServerError) as caught:
        EmbeddedServer(run_dir=tmp_path, options=options).start()
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_night_brings_no_hostile_mobs_where_the_option_is_off(make_bot):
    """The session's server is a task world: hostile mobs are off by default, yet /summon makes one."""
    bot = make_bot("night")
    x, y, z = isolate(bot)
    bot.command("/time set 14000")
    try:
        wait_ticks(100, "night to go on")
        assert not any(mobs(bot, kind) for kind in ("zombie", "skeleton", "spider", "creeper"))
        bot.command(f"/summon zombie {x + 3} {y} {z} {{NoAI:1b}}")
        wait_until(lambda: mobs(bot, "zombie"), timeout=5, message="a summoned zombie")
        bot.command("/kill @e[type=zombie]")
    finally:
        bot.command("/time set 1000")
