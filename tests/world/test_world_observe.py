"""The modes' per-tick observation with real bots: torches and hot blocks nearby are read from the chunk sections'
block-state ids, and must say what mineflayer's findBlock says (the cells within the radius, in loaded chunks)."""

from __future__ import annotations

import math

import pytest

from conftest import isolate, wait_until
from mindpy.world.observe import observe

TORCH_RADIUS = 6
HOT_RADIUS = 2

# (block, offset from the bot's feet). The bot stands at x = 4 or 12 and z = 4 within its chunk, so offsets of 6 on
# x and -6 on z reach into the next chunk column; (4, 3, 4) and (2, 1, 1) lie just outside their radius.
TORCH_SPOTS = [(6, 0, 0), (-6, 0, 0), (0, 0, -6), (0, 5, 3), (4, 3, 4), (5, 1, 5)]
HOT_SPOTS = [("magma_block", (1, -1, 1)), ("magma_block", (2, -1, 0)), ("campfire", (2, 0, 0)),
             ("campfire", (2, 1, 1)), ("magma_block", (0, -2, 2))]


def set_block(bot, spot, name):
    """/setblock at an offset from the bot, and wait until the bot's world shows it."""
    x, y, z = (math.floor(v) for v in bot.position)
    dx, dy, dz = spot
    bot.command(f"/setblock {x + dx} {y + dy} {z + dz} {name}")
    wait_until(lambda: (bot.js.blockAt(bot.js.entity.position.offset(dx, dy, dz)) or {}).name == name,
               message=f"{name} at offset {spot}")


def found_by_find_block(bot, names, radius) -> bool:
    """The old way of asking: mineflayer's findBlock over the same radius."""
    ids = [bot.js.registry.blocksByName[n].id for n in names]
    return bot.js.findBlock({"matching": ids, "maxDistance": radius}) is not None


def within(spot, radius) -> bool:
    return sum(d * d for d in spot) <= radius * radius


@pytest.fixture
def watcher(make_bot):
    bot = make_bot("watcher")
    isolate(bot)
    bot.command("/time set day")
    assert not observe(bot)["torchNearby"] and not observe(bot)["hotNearby"]
    return bot


def test_torches_within_six_blocks_are_seen_as_find_block_sees_them(watcher):
    for spot in TORCH_SPOTS:
        set_block(watcher, spot, "torch")
        expected = within(spot, TORCH_RADIUS)
        assert found_by_find_block(watcher, ["torch", "wall_torch"], TORCH_RADIUS) == expected, spot
        assert observe(watcher)["torchNearby"] == expected, spot
        # gone again: the section's palette may still list the torch, only its cells tell
        set_block(watcher, spot, "air")
        assert observe(watcher)["torchNearby"] is False, spot


def test_hot_blocks_within_two_blocks_are_seen_as_find_block_sees_them(watcher):
    for name, spot in HOT_SPOTS:
        ground = "grass_block" if spot[1] == -1 else "dirt" if spot[1] < -1 else "air"
        set_block(watcher, spot, name)
        expected = within(spot, HOT_RADIUS)
        assert found_by_find_block(watcher, ["lava", "fire", "soul_fire", "magma_block", "campfire"],
                                   HOT_RADIUS) == expected, (name, spot)
        assert observe(watcher)["hotNearby"] == expected, (name, spot)
        set_block(watcher, spot, ground)
        assert observe(watcher)["hotNearby"] is False, (name, spot)


def test_the_nearest_player_is_reported_with_its_distance(make_bot, watcher):
    other = make_bot("neighbour")
    x, y, z = (math.floor(v) for v in watcher.position)
    other.command(f"/tp {other.name} {x + 3.5} {y} {z + 0.5}")
    seen = wait_until(lambda: (p := observe(watcher)["player"]) and p["username"] == other.name and p,
                      message="the neighbour in the observation")
    assert seen["distance"] == pytest.approx(3.0, abs=0.2)
    assert observe(watcher)["lookTarget"]["username"] == other.name
