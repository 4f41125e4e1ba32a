"""Inventory mechanics of the embedded server, played through real mineflayer bots."""

from __future__ import annotations

import json
import time

from conftest import isolate, teleport, wait_until
from mindpy.bridge import runtime
from mindpy.server.probe import status

HELPERS = """
module.exports = {
  slots: bot => JSON.stringify(bot.inventory.slots.map(s => s ? [s.name, s.count] : null)),
  // ask the server for the whole inventory (a click with an impossible state id) and wait for it
  resync: async bot => { await bot._syncWindow(bot.inventory); return true }
}
"""


def helpers(tmp_path_factory=None):
    import tempfile
    from pathlib import Path

    path = Path(tempfile.gettempdir()) / "mindpy_inventory_helpers.js"
    path.write_text(HELPERS)
    return runtime().require(path)


def give(bot, name, count):
    bot.chat(f"/give {bot.name} {name} {count}")


def test_give_adds_numbers_not_strings(make_bot):
    bot = make_bot("giver")
    give(bot, "dirt", 2)
    wait_until(lambda: bot.inventory().get("dirt") == 2, message="2 dirt")
    give(bot, "dirt", 5)
    wait_until(lambda: bot.inventory().get("dirt") == 7, message="7 dirt (5 onto 2)")
    give(bot, "dirt", 64)
    assert wait_until(lambda: bot.inventory().get("dirt") == 71, message="71 dirt over two stacks")


def test_client_and_server_agree_after_a_sequence_of_clicks(make_bot):
    bot = make_bot("clicker")
    js = helpers()
    give(bot, "oak_planks", 40)
    give(bot, "cobblestone", 10)
    give(bot, "stick", 3)
    wait_until(lambda: bot.inventory().get("stick") == 3, message="items")
    slot = lambda name: next(i for i, s in enumerate(json.loads(js.slots(bot.js))) if s and s[0] == name)
    b = bot.js
    b.clickWindow(slot("oak_planks"), 1, 0, timeout=10)   # right click: pick up half
    b.clickWindow(20, 0, 0, timeout=10)                     # put them in an empty slot
    b.clickWindow(slot("cobblestone"), 0, 0, timeout=10)   # pick up cobblestone
    b.clickWindow(21, 1, 0, timeout=10)                     # place one
    b.clickWindow(22, 1, 0, timeout=10)                     # and one more
    b.clickWindow(slot("stick"), 0, 0, timeout=10)         # swap with the sticks
    b.clickWindow(23, 0, 0, timeout=10)                     # put the sticks... (cursor held cobblestone)
    b.clickWindow(24, 0, 0, timeout=10)
    b.clickWindow(30, 0, 2, timeout=10)                     # number key 0: swap slot 30 with hotbar 0
    b.clickWindow(20, 0, 1, timeout=10)                     # shift-click planks to the hotbar
    b.moveSlotItem(21, 25, timeout=10)
    time.sleep(0.5)
    before = js.slots(b)
    js.resync(b, timeout=10)
    assert js.slots(b) == before, "the client's inventory differs from the server's"
    assert bot.inventory() == {"oak_planks": 40, "cobblestone": 10, "stick": 3}


def test_toss_gives_items_to_a_nearby_player(make_bot):
    giver, taker = make_bot("tosser"), make_bot("catcher")
    x, y, z = isolate(giver)
    teleport(taker, x + 3, y, z)
    give(giver, "bread", 5)
    wait_until(lambda: giver.inventory().get("bread") == 5, message="bread")
    giver.js.lookAt(taker.js.entity.position.offset(0, 1, 0), True, timeout=5)
    giver.js.toss(giver.js.registry.itemsByName["bread"].id, None, 3, timeout=10)
    wait_until(lambda: taker.inventory().get("bread") == 3, timeout=8, message="the catcher to pick up 3 bread")
    assert giver.inventory() == {"bread": 2}
    js = helpers()
    for bot in (giver, taker):  # both in sync with the server
        before = js.slots(bot.js)
        js.resync(bot.js, timeout=10)
        assert js.slots(bot.js) == before


def test_whole_stacks_are_picked_up(make_bot):
    giver, taker = make_bot("stacker"), make_bot("picker")
    x, y, z = isolate(giver)
    teleport(taker, x + 3, y, z)
    give(giver, "cobblestone", 64)
    wait_until(lambda: giver.inventory().get("cobblestone") == 64, message="cobblestone")
    giver.js.lookAt(taker.js.entity.position.offset(0, 1, 0), True, timeout=5)
    giver.js.tossStack(giver.js.inventory.items()[0], timeout=10)
    assert wait_until(lambda: taker.inventory().get("cobblestone") == 64, timeout=8, message="a whole stack")


def test_other_players_are_players(make_bot):
    a, b = make_bot("seer"), make_bot("seen")
    x, y, z = isolate(a)
    teleport(b, x + 4, y, z)
    wait_until(lambda: a.js.players[b.name] is not None and a.js.players[b.name].entity is not None,
               message="a to see b as a player entity")
    assert a.js.players[b.name].entity.type == "player"
    assert b.js.players[a.name].entity is not None


def test_respawn_after_death(make_bot):
    bot = make_bot("mortal")
    isolate(bot)
    died = []
    bot.on("death", lambda *args: died.append(True))
    bot.chat(f"/kill {bot.name}")
    wait_until(lambda: died, timeout=5, message="death")
    wait_until(lambda: bot.js.health == 20, timeout=10, message="respawn with full health")
    assert bot.position[1] == -60


def test_teleport_right_after_login_is_not_undone(make_bot):
    bot = make_bot("jumper")
    bot.chat(f"/tp {bot.name} 777 -60 777")  # no look first: the server must not send the bot back
    wait_until(lambda: abs(bot.position[0] - 777) < 1.5, timeout=5, message="the teleport")
    time.sleep(2.0)
    assert abs(bot.position[0] - 777) < 1.5 and abs(bot.position[2] - 777) < 1.5


def test_server_keeps_running_when_a_plugin_throws(make_bot, server):
    bot = make_bot("breaker")
    bot.chat("/mindpy_fail")
    time.sleep(1.0)
    assert server.is_running()
    assert status(server.host, server.port)["version"]["name"] == "1.21.1"
    assert "deliberate plugin error" in server.log_path.read_text()
    give(bot, "apple", 1)
    assert wait_until(lambda: bot.inventory().get("apple") == 1, message="the server still answering")
