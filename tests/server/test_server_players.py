"""Players on the embedded server: seen by others as players, respawning, teleports that stick, and a
server that survives a failing plugin."""

from __future__ import annotations

import time

from conftest import isolate, teleport, unique_name, wait_until
from mindpy.server.probe import status


def test_other_players_are_players(make_bot):
    a = make_bot("seer")
    x, y, z = isolate(a)
    b = make_bot("seen")  # joins after a: each must learn the other's name and see its entity
    teleport(b, x + 4, y, z)
    wait_until(lambda: a.js.players[b.name] is not None and a.js.players[b.name].entity is not None,
               message="a to see b as a player entity")
    wait_until(lambda: b.js.players[a.name] is not None and b.js.players[a.name].entity is not None,
               message="b to see a as a player entity")
    assert a.js.players[b.name].entity.type == "player"
    assert a.js.players[b.name].entity.username == b.name
    assert b.js.players[a.name].entity.type == "player"


def test_respawn_after_death(make_bot):
    bot = make_bot("mortal")
    isolate(bot)
    died = []
    bot.on("death", lambda *args: died.append(True))
    bot.command(f"/kill {bot.name}")
    wait_until(lambda: died, timeout=5, message="death")
    wait_until(lambda: bot.js.health == 20, timeout=10, message="respawn with full health")
    assert bot.position[1] == -60
    bot.command(f"/give {bot.name} apple 2")  # the respawned player still plays
    assert wait_until(lambda: bot.inventory().get("apple") == 2, message="an item after respawning")


def test_teleport_right_after_login_is_not_undone(make_bot):
    bot = make_bot("jumper")
    bot.command(f"/tp {bot.name} 777 -60 777")  # no look first: the server must not send the bot back
    wait_until(lambda: abs(bot.position[0] - 777) < 1.5, timeout=5, message="the teleport")
    bot.js.look(1.0, 0.0, True)  # the first look packet after login used to teleport the player back
    time.sleep(1.5)
    assert abs(bot.position[0] - 777) < 1.5 and abs(bot.position[2] - 777) < 1.5


def test_server_keeps_running_when_a_plugin_throws(make_bot, server):
    bot = make_bot("breaker")
    bot.command("/mindpy_fail")
    wait_until(lambda: "deliberate plugin error" in server.log_path.read_text(), message="the error in the log")
    time.sleep(0.5)
    assert server.is_running()
    assert status(server.host, server.port)["version"]["name"] == "1.21.1"
    bot.command(f"/give {bot.name} apple 1")
    assert wait_until(lambda: bot.inventory().get("apple") == 1, message="the server still answering")


def test_death_drops_the_inventory_where_the_player_died(make_bot):
    victim, finder = make_bot("victim"), make_bot("finder")
    x, y, z = isolate(victim)
    teleport(finder, x + 6, y, z)
    victim.command(f"/give {victim.name} cobblestone 20")
    victim.command(f"/give {victim.name} iron_helmet 1")
    wait_until(lambda: victim.inventory() == {"cobblestone": 20, "iron_helmet": 1}, message="items to lose")
    victim.js.equip(victim.js.registry.itemsByName["iron_helmet"].id, "head", timeout=10)
    died = []
    victim.on("death", lambda *args: died.append(True))
    victim.command(f"/kill {victim.name}")
    wait_until(lambda: died, timeout=5, message="death")
    wait_until(lambda: victim.js.health == 20, timeout=10, message="the respawn")
    assert victim.inventory() == {} and victim.js.inventory.slots[5] is None
    finder.command(f"/tp {finder.name} {x + 0.5} {y} {z + 0.5}")
    wait_until(lambda: finder.inventory() == {"cobblestone": 20, "iron_helmet": 1}, timeout=8,
               message="the finder to pick up what the victim dropped")


def test_a_player_who_comes_back_finds_its_inventory_and_place(make_bot, server):
    from mindpy.bridge import create_bot

    bot = make_bot("leaver")
    x, y, z = isolate(bot)
    bot.command(f"/give {bot.name} bread 7")
    bot.command(f"/give {bot.name} iron_boots 1")
    wait_until(lambda: bot.inventory() == {"bread": 7, "iron_boots": 1}, message="items")
    bot.js.equip(bot.js.registry.itemsByName["iron_boots"].id, "feet", timeout=10)
    bot.js.clickWindow(next(i.slot for i in bot.js.inventory.items() if i.name == "bread"), 1, 0)
    bot.js.clickWindow(2, 0, 0)  # 4 bread left in the crafting grid: vanilla gives them back on leaving
    name = bot.name
    time.sleep(0.3)
    bot.close()
    time.sleep(0.5)
    again = create_bot(name, server.host, server.port)
    try:
        wait_until(lambda: again.inventory() == {"bread": 7}, message="the bread back")
        assert again.js.inventory.slots[8].name == "iron_boots"
        assert abs(again.position[0] - x - 0.5) < 1 and abs(again.position[2] - z - 0.5) < 1, again.position
    finally:
        again.close()


def test_others_see_what_a_player_holds_and_wears(make_bot):
    a, b = make_bot("watcher"), make_bot("wearer")
    x, y, z = isolate(a)
    teleport(b, x + 3, y, z)
    b.command(f"/give {b.name} stick 1")
    b.command(f"/give {b.name} iron_helmet 1")
    b.command(f"/give {b.name} bread 1")
    wait_until(lambda: b.inventory() == {"stick": 1, "iron_helmet": 1, "bread": 1}, message="items")
    wait_until(lambda: a.js.players[b.name].entity is not None, message="a to see b")
    seen = lambda: a.js.players[b.name].entity
    for name in ("bread", "stick", "bread"):  # switching the selected hotbar slot
        slot = next(item.slot for item in b.js.inventory.items() if item.name == name)
        b.js.setQuickBarSlot(slot - 36)
        wait_until(lambda: seen().heldItem is not None and seen().heldItem.name == name,
                   message=f"a to see b holding {name}")
    b.js.equip(b.js.registry.itemsByName["iron_helmet"].id, "head", timeout=10)  # equipment: 0 hand .. 5 head
    wait_until(lambda: seen().equipment[5] is not None and seen().equipment[5].name == "iron_helmet",
               message="a to see b's helmet")


def test_bots_that_join_together_all_see_each_other(server):
    """Joined at the same moment and teleported side by side, every bot knows every other as a player entity
    (flying-squid used to leave some pairs unknown to each other for good)."""
    from mindpy.bridge import create_bots
    from mindpy.bridge.runtime import call_js

    for trial in range(2):
        names = [unique_name(f"team{trial}") for _ in range(4)]
        bots = create_bots(names, server.host, server.port)
        try:
            for i, name in enumerate(names):
                server.command(f"tp {name} {-300 - 40 * trial + 2 * i} -60 300")

            def sees(bot, other):
                return bool(call_js(lambda: bool(bot.js.players[other] and bot.js.players[other].entity), "sees"))

            wait_until(lambda: all(sees(b, o) for b in bots for o in names if o != b.name), timeout=10,
                       message="every bot to see every other")
        finally:
            for bot in bots:
                bot.close()
