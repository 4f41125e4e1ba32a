"""Minecraft versions: at every version the embedded server lists, a bot of that version joins a server of that
version, gets items by /give, crafts in its inventory and at a crafting table, digs a block and sees an animal teleported (one server and one bot per version).
`--mc-version auto` takes a running server's own version, and an unsupported version is refused in one line before
anything starts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT, unique_name, wait_until, world_js
from mindpy import DEFAULT_MINECRAFT_VERSION
from mindpy.bridge import create_bot
from mindpy.errors import UnsupportedVersion
from mindpy.server import EmbeddedServer, ServerAddress
from mindpy.server.versions import bot_versions, embedded_versions, resolve_version
from mindpy.skills import Skills

MINDPY = Path(sys.executable).with_name("mindpy")
# a version other than the default, for `auto` to find
OTHER_VERSION = "1.20.4" if "1.20.4" in embedded_versions() else embedded_versions()[0]


def block_name(bot, x: int, y: int, z: int) -> str | None:
    block = bot.js.blockAt(bot.js.entity.position.floored().set(x, y, z))
    return block.name if block is not None else None


def pig_x(bot) -> float | None:
    """Where the bot sees the nearest pig (x), or None."""
    pigs = [e for e in json.loads(world_js().entitiesJson(bot.js, 32)) if e["name"] == "pig"]
    return pigs[0]["x"] if pigs else None


def drop_at_rest(bot):
    """A predicate: whether the dropped item the bot sees stood still since the last call."""
    last: list = [None]

    def resting() -> bool:
        drops = [e for e in json.loads(world_js().entitiesJson(bot.js, 16)) if e["name"] == "item"]
        where = (round(drops[0]["x"], 2), round(drops[0]["y"], 2), round(drops[0]["z"], 2)) if drops else None
        still, last[0] = where is not None and where == last[0], where
        return still
    return resting


@pytest.mark.parametrize("version", embedded_versions())
def test_a_bot_gives_crafts_and_digs_at_every_embedded_version(tmp_path, version):
    with EmbeddedServer(version=version, run_dir=tmp_path, options={"viewDistance": 2}) as server:
        bot = create_bot(unique_name("v"), server.host, server.port, version=version)
        try:
            bot.js.look(0, 0, True)  # the server finishes its login on the first look
            x, y, z = (int(v // 1) for v in bot.position)
            wait_until(lambda: block_name(bot, x, -64, z) is not None, message="the ground under the bot to load")
            # the world's heights: vanilla's superflat, grass at y=-61 under the player's feet
            assert (y, block_name(bot, x, y - 1, z), block_name(bot, x, -64, z)) == (-60, "grass_block", "bedrock")

            bot.command(f"/give {bot.name} oak_log 1")
            bot.command(f"/give {bot.name} stick 2")
            bot.command(f"/setblock {x - 1} {y} {z} crafting_table")  # within reach: crafting needs no walk
            wait_until(lambda: bot.inventory() == {"oak_log": 1, "stick": 2}
                       and block_name(bot, x - 1, y, z) == "crafting_table",
                       message=lambda: f"the given items and the table, not {bot.inventory()}")

            skills = Skills(bot)
            assert skills.craft_recipe("oak_planks", 1), skills.take_log()  # the 2x2 grid of the inventory
            assert skills.craft_recipe("wooden_pickaxe", 1), skills.take_log()  # at the table
            wait_until(lambda: bot.inventory() == {"wooden_pickaxe": 1, "oak_planks": 1},  # 4 planks less 3
                       message=lambda: f"the pickaxe crafted from the planks, not {bot.inventory()}")

            x, y, z = (int(v // 1) for v in bot.position)  # wherever crafting left the bot
            # quick to dig and none in the ground; far enough that its drop stays on the ground to be looked at
            bot.command(f"/setblock {x + 4} {y} {z} sand")
            wait_until(lambda: block_name(bot, x + 4, y, z) == "sand", message="the sand block")
            assert skills.break_block_at(x + 4, y, z), skills.take_log()
            assert block_name(bot, x + 4, y, z) == "air"
            wait_until(lambda: json.loads(world_js().droppedItemsJson(bot.js)) == ["sand x1"],  # "?" before 1.20.2
                       message=lambda: f"the drop seen as sand, not {world_js().droppedItemsJson(bot.js)}")
            wait_until(drop_at_rest(bot), interval=0.1, message="the drop to land")  # a flying one is missed
            assert skills.pickup_nearby_items(), skills.take_log()
            wait_until(lambda: bot.inventory().get("sand") == 1, message=lambda: f"the sand, not {bot.inventory()}")

            # an entity in sight that moves more than 7 blocks at once is sent as a teleport, whose packet 1.21.2
            # reshaped: the bot sees the pig arrive, and stays on the server
            x, y, z = (int(v // 1) for v in bot.position)
            bot.command(f"/summon pig {x + 2} {y} {z + 2} {{NoAI:1b}}")
            wait_until(lambda: pig_x(bot) is not None, message="the pig")
            bot.command(f"/tp @e[type=pig] {x + 12} {y} {z + 2}")
            wait_until(lambda: (pig_x(bot) or 0) > x + 11, message=lambda: f"the pig at x={x + 12}, not {pig_x(bot)}")
            assert bot.connected
        finally:
            bot.close()


@pytest.fixture(scope="module")
def other_version_server(tmp_path_factory):
    """A server of a version other than the default, for `auto` to find."""
    with EmbeddedServer(version=OTHER_VERSION, run_dir=tmp_path_factory.mktemp("other-version")) as server:
        yield server


def test_auto_takes_the_version_of_a_running_server(other_version_server):
    address = ServerAddress(other_version_server.host, other_version_server.port)
    assert OTHER_VERSION != DEFAULT_MINECRAFT_VERSION
    assert resolve_version("auto", address) == OTHER_VERSION
    assert resolve_version("auto", None) == DEFAULT_MINECRAFT_VERSION  # the embedded server: the default
    # what a Paper server says: its name and the protocol of 1.20 and 1.20.1, whose release mindpy speaks
    assert resolve_version("1.20.1", address) == "1.20.1" and "1.20" not in bot_versions()


@pytest.mark.slow
def test_run_with_mc_version_auto_joins_a_server_of_another_version(tmp_path, other_version_server):
    script = tmp_path / "replies.yaml"
    script.write_text(yaml.safe_dump({"default": "Okay."}))
    profile = tmp_path / "autobot.yaml"
    profile.write_text(yaml.safe_dump({"name": "autobot", "model": f"replay:{script}", "embedding": "none"}))
    env = {**os.environ, "MINDPY_BOTS_DIR": str(tmp_path / "bots"), "MINDPY_CACHE_DIR": str(tmp_path / "cache")}
    address = f"{other_version_server.host}:{other_version_server.port}"
    proc = subprocess.Popen([str(MINDPY), "run", "--profile", str(profile), "--server", address,
                             "--mc-version", "auto", "--run-dir", str(tmp_path / "run")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # ends when the process does: a bot that cannot join ends the run
            if "joined" in line:
                break
        assert line.startswith(f"autobot joined {address} (Minecraft {OTHER_VERSION})"), line
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)


@pytest.mark.parametrize("command", [
    ["run", "--profile", "{profile}", "--run-dir", "{out}"],
    ["run", "--task", "tasks/example_tasks.json", "--task-id", "example_crafting_wooden_pickaxe", "--run-dir", "{out}"],
    ["eval", "tasks/example_tasks.json", "--out", "{out}"],
    ["demo", "--run-dir", "{out}"],
    ["dashboard", "--server", "embedded", "--agents-dir", "{out}"],
    ["server", "--port", "0", "--run-dir", "{out}"],
], ids=lambda command: " ".join(command[:2]))
def test_an_unsupported_version_is_one_line_before_anything_starts(tmp_path, command):
    out, profile = tmp_path / "out", tmp_path / "andy.yaml"
    (tmp_path / "replies.yaml").write_text(yaml.safe_dump({"default": "Okay."}))
    profile.write_text(yaml.safe_dump({"name": "andy", "model": f"replay:{tmp_path / 'replies.yaml'}",
                                       "embedding": "none"}))
    args = [{"{out}": str(out), "{profile}": str(profile)}.get(arg, arg) for arg in command]
    done = subprocess.run([str(MINDPY), *args, "--mc-version", "1.12.2"], capture_output=True, text=True,
                          timeout=120, cwd=REPO_ROOT)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done
    assert "'1.12.2' is not supported" in lines[0] and f"Supported: {', '.join(embedded_versions())}" in lines[0]
    assert not list(out.rglob("server*")), sorted(out.rglob("*"))  # no server started


def test_a_version_mindpy_cannot_play_is_refused_with_the_list():
    with pytest.raises(UnsupportedVersion, match=r"'1\.21\.5' is not supported by the embedded server\. Supported: "):
        resolve_version("1.21.5", None)  # a version the bots speak, which the embedded server does not serve
    assert resolve_version("1.21.5", ServerAddress("paper.example", 25565)) == "1.21.5"  # a real server's
    with pytest.raises(UnsupportedVersion, match=r"not supported by mindpy's bots\. Supported: 1\.18\.2, "):
        resolve_version("1.16.5", ServerAddress("paper.example", 25565))  # before 1.18's world heights
