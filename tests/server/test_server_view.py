"""What the embedded server sends a joining bot: the chunk columns of its view distance ((2 * view)^2 of them), a
smaller view for everyone while a crowd is online, columns a change has touched sent as they are, not from the
packet shared by untouched columns, and only the joining player's tab-list entry to the players already in."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import isolate, teleport, unique_name, wait_until, world_js
from mindpy import DEFAULT_MINECRAFT_VERSION
from mindpy.bridge import create_bot, create_bots, js_module
from mindpy.server import EmbeddedServer

TAB_LIST_WATCH_JS = Path(__file__).resolve().parent / "js" / "tab_list_watch.js"
STILL_CLIENT_JS = Path(__file__).resolve().parent / "js" / "still_client.js"


def columns(bot) -> int:
    return int(bot.js.world.getColumns().length)


def test_view_distance_option_sets_the_columns_a_bot_gets(tmp_path):
    with EmbeddedServer(run_dir=tmp_path, options={"viewDistance": 3}) as server:
        bot = create_bot(unique_name("near"), server.host, server.port)
        try:
            assert bot.js.game.serverViewDistance == 3
            wait_until(lambda: columns(bot) == 36, timeout=10, message="6x6 columns")
            assert bot.js.blockAt(bot.js.entity.position.offset(0, -1, 0)).name == "grass_block"
        finally:
            bot.close()


def test_a_crowd_gets_a_smaller_view_and_loses_it_when_it_thins_out(tmp_path):
    options = {"viewDistance": 4, "crowdPlayers": 1, "crowdViewDistance": 2}
    with EmbeddedServer(run_dir=tmp_path, options=options) as server:
        first = create_bot(unique_name("first"), server.host, server.port)
        try:
            assert first.js.game.serverViewDistance == 4
            wait_until(lambda: columns(first) == 64, timeout=10, message="8x8 columns for one player")
            second = create_bot(unique_name("second"), server.host, server.port)  # two players: a crowd here
            assert second.js.game.serverViewDistance == 2
            wait_until(lambda: columns(second) == 16, timeout=10, message="4x4 columns for the joining player")
            wait_until(lambda: first.js.game.serverViewDistance == 2 and columns(first) <= 25, timeout=10,
                       message="the first player's view to shrink")
            second.close()
            wait_until(lambda: first.js.game.serverViewDistance == 4 and columns(first) == 64, timeout=10,
                       message="the view to grow back")
        finally:
            first.close()


def test_bots_joining_as_the_crowd_forms_learn_the_smaller_view_and_get_all_of_it(tmp_path):
    """The view shrinks while some of these bots are between their login packet and their spawn: each must still
    hear of it (else it waits for columns that never come, 10 s per bot, and believes in a view it lacks)."""
    options = {"viewDistance": 4, "crowdPlayers": 4, "crowdViewDistance": 2}
    with EmbeddedServer(run_dir=tmp_path, options=options) as server:
        bots = create_bots([unique_name("crowd") for _ in range(16)], server.host, server.port)
        try:
            assert [bot.js.game.serverViewDistance for bot in bots] == [2] * 16
            # create_bots returns once each bot's view is loaded: every column within one of its own is there
            assert [int(world_js().missingColumns(bot.js, 1)) for bot in bots] == [0] * 16
        finally:
            for bot in bots:
                bot.close()


def test_a_client_that_never_moves_still_gets_its_whole_view(tmp_path):
    """flying-squid sent the rest of a player's view only after a 'flying' or 'look' packet that came after the
    spawn; mineflayer sends 'flying' once, when it lands, sometimes before that, and a client standing still sends
    neither: such a player kept its first 6x6 columns for good (a crowd join lost them 1 time in 2). A server of its
    own, without the crowd rule: the view must be 4 whoever else is online."""
    still = js_module(STILL_CLIENT_JS)
    with EmbeddedServer(run_dir=tmp_path, options={"viewDistance": 4, "crowdViewDistance": 0}) as server:
        still.joinStill(server.host, server.port, unique_name("still"), DEFAULT_MINECRAFT_VERSION)
        try:
            wait_until(lambda: json.loads(still.stillState())["spawned"], timeout=20,
                       message="the still client to spawn")
            # flying-squid sends (2 * view distance)^2 columns, the first 6x6 before the spawn
            wait_until(lambda: json.loads(still.stillState())["columns"] == 64, timeout=20,
                       message=lambda: f"the whole view: {still.stillState()}")
        finally:
            still.leaveStill()


def test_a_changed_column_reaches_a_bot_that_arrives_later(make_bot):
    builder = make_bot("builder")
    x, y, z = isolate(builder)
    builder.command(f"/setblock {x + 3} {y} {z} stone")
    wait_until(lambda: builder.js.blockAt(builder.js.entity.position.offset(3, 0, 0)).name == "stone",
               message="the stone")
    visitor = make_bot("visitor")  # spawns far away; the builder keeps the column loaded on the server
    teleport(visitor, x, y, z + 1)
    assert visitor.js.blockAt(visitor.js.entity.position.offset(3, 0, -1)).name == "stone"
    far = visitor.js.entity.position.offset(40, -1, 40)  # an untouched column, sent from the shared packet
    assert wait_until(lambda: visitor.js.blockAt(far), timeout=10, message="a column 40 blocks away").name == \
        "grass_block"


def test_a_join_sends_the_others_only_the_joining_players_tab_entry(make_bot):
    watcher = make_bot("watcher")
    watch = js_module(TAB_LIST_WATCH_JS)
    watch.watchTabList(watcher.js)
    newcomer = make_bot("newcomer")
    wait_until(lambda: watcher.js.players[newcomer.name] is not None, message="the newcomer in the tab list")
    sizes = json.loads(watch.tabEntriesJson(watcher.js))
    assert sizes and max(sizes) == 1, sizes  # flying-squid sent every online player's entry to each of them
