"""Eating on the embedded server: bot.consume restores hunger and saturation per minecraft-data's foods."""

from __future__ import annotations

import json
import time

import pytest

from conftest import wait_ticks, wait_until, world_js
from mindpy.mcdata import minecraft_data

FOODS = minecraft_data().foods_by_name



def hungry_bot(make_bot, prefix, hunger, items):
    bot = make_bot(prefix)
    for name, count in items.items():
        bot.command(f"/give {bot.name} {name} {count}")
    wait_until(lambda: bot.inventory() == items, message=str(items))
    bot.command(f"/mindpy_hunger {bot.name} {hunger}")
    wait_until(lambda: bot.js.food == hunger and bot.js.foodSaturation == 0, message=f"hunger {hunger}")
    return bot


def eat(bot, item):
    """bot.consume the item; returns (food, saturation, seconds it took)."""
    start = time.monotonic()
    result = json.loads(world_js().eat(bot.js, item, timeout=10))
    return result["food"], result["saturation"], time.monotonic() - start


@pytest.mark.parametrize("food", ["bread", "cooked_beef", "apple", "baked_potato"])
def test_eating_restores_hunger_and_saturation(make_bot, food):
    bot = hungry_bot(make_bot, "eater", 6, {food: 3})
    points, saturation = FOODS[food]["foodPoints"], FOODS[food]["saturation"]
    hunger, sat, took = eat(bot, food)
    assert hunger == 6 + points
    assert sat == pytest.approx(min(saturation, hunger), abs=0.01)
    assert 1.5 <= took < 2.5, f"eating took {took:.2f} s (vanilla: 1.6 s)"
    wait_until(lambda: bot.inventory() == {food: 2}, message="one eaten")
    bot.command(f"/mindpy_hunger {bot.name} 18")
    wait_until(lambda: bot.js.food == 18, message="hunger 18")
    hunger, sat, _ = eat(bot, food)
    assert hunger == 20 and sat <= 20  # both stop at 20


def test_a_stew_leaves_its_bowl(make_bot):
    bot = hungry_bot(make_bot, "souper", 10, {"mushroom_stew": 1})
    hunger, _, _ = eat(bot, "mushroom_stew")
    assert hunger == 16
    wait_until(lambda: bot.inventory() == {"bowl": 1}, message="the empty bowl")


def test_a_full_player_can_eat_only_what_is_always_edible(make_bot):
    bot = hungry_bot(make_bot, "glutton", 20, {"golden_apple": 2, "bread": 1})
    with pytest.raises(Exception, match="Food is full"):  # mineflayer refuses, as the vanilla client does
        eat(bot, "bread")
    hunger, _, _ = eat(bot, "golden_apple")
    assert hunger == 20
    wait_until(lambda: bot.inventory() == {"golden_apple": 1, "bread": 1}, message="one golden apple eaten")


def test_the_server_refuses_to_feed_a_full_player(make_bot):
    """The client's check bypassed: the server itself must not finish eating when hunger is full."""
    bot = hungry_bot(make_bot, "cheater", 20, {"bread": 2})
    world_js().hold(bot.js, "bread", timeout=5)
    bot.js.activateItem()
    wait_ticks(44, "longer than eating takes (32 ticks)")
    bot.js.deactivateItem()
    assert bot.inventory() == {"bread": 2}
    assert bot.js.food == 20


def test_hunger_command_checks_its_arguments(make_bot):
    bot = make_bot("checker")
    reply = world_js().commandReply(bot.js, f"/mindpy_hunger {bot.name} 25", "Hunger|hunger", 5000, timeout=8)
    assert reply == "Hunger must be a whole number from 0 to 20"
    reply = world_js().commandReply(bot.js, "/mindpy_hunger nobody 5", "No player", 5000, timeout=8)
    assert reply == "No player named nobody"


def test_a_hurt_player_heals_and_gets_hungry_doing_it(make_bot):
    attacker = make_bot("brawler")
    victim = make_bot("patient")
    attacker.command(f"/give {attacker.name} diamond_sword 1")
    wait_until(lambda: attacker.inventory() == {"diamond_sword": 1}, message="a sword")
    world_js().hold(attacker.js, "diamond_sword", timeout=5)
    attacker.js.look(0, 0, True)
    victim.js.look(0, 0, True)
    attacker.command(f"/tp {victim.name} {attacker.name}")
    wait_until(lambda: abs(victim.position[0] - attacker.position[0]) < 0.01, message="the victim next to the attacker")
    result = json.loads(world_js().attackUntilDead(attacker.js, victim.js.entity.id, 1, 50, timeout=5))
    assert result["hits"] == 1
    hurt = wait_until(lambda: victim.js.health < 15 and victim.js.health, message="7 damage from the sword")
    wait_until(lambda: victim.js.health >= hurt + 1, timeout=5, message="healing (full food, saturation)")
    wait_until(lambda: victim.js.foodSaturation < 5, timeout=5, message="healing used up saturation")
    # then slowly (1 point / 4 s) at the cost of food, until food falls under 18 (vanilla: 7 damage do not all heal)
    wait_until(lambda: victim.js.food < 20, timeout=20, message="healing eating into food")
    assert victim.js.health >= hurt + 3


def test_a_starving_player_loses_health(make_bot):
    bot = hungry_bot(make_bot, "starving", 0, {"bread": 1})
    assert bot.js.health == 20
    wait_until(lambda: bot.js.health == 19, timeout=8, message="starving: one point every 4 s")
    hunger, _, _ = eat(bot, "bread")
    assert hunger == 5
