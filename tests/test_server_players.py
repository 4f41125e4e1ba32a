"""Players on the embedded server: seen by others as players, respawning, teleports that stick, and a
server that survives a failing plugin."""

from __future__ import annotations

import time

from conftest import isolate, teleport, wait_until
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
    bot.chat(f"/kill {bot.name}")
    wait_until(lambda: died, timeout=5, message="death")
    wait_until(lambda: bot.js.health == 20, timeout=10, message="respawn with full health")
    assert bot.position[1] == -60
    bot.chat(f"/give {bot.name} apple 2")  # the respawned player still plays
    assert wait_until(lambda: bot.inventory().get("apple") == 2, message="an item after respawning")


def test_teleport_right_after_login_is_not_undone(make_bot):
    bot = make_bot("jumper")
    bot.chat(f"/tp {bot.name} 777 -60 777")  # no look first: the server must not send the bot back
    wait_until(lambda: abs(bot.position[0] - 777) < 1.5, timeout=5, message="the teleport")
    bot.js.look(1.0, 0.0, True)  # the first look packet after login used to teleport the player back
    time.sleep(1.5)
    assert abs(bot.position[0] - 777) < 1.5 and abs(bot.position[2] - 777) < 1.5


def test_server_keeps_running_when_a_plugin_throws(make_bot, server):
    bot = make_bot("breaker")
    bot.chat("/mindpy_fail")
    wait_until(lambda: "deliberate plugin error" in server.log_path.read_text(), message="the error in the log")
    time.sleep(0.5)
    assert server.is_running()
    assert status(server.host, server.port)["version"]["name"] == "1.21.1"
    bot.chat(f"/give {bot.name} apple 1")
    assert wait_until(lambda: bot.inventory().get("apple") == 1, message="the server still answering")
