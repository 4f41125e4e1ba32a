"""The generated normal world (mindpy/server/js/normal_world.js) on an embedded server of its own: the same chunk for
the same seed, a surface to stand on with stone, ores and trees around, dark caves, sand that falls, and a world
folder that keeps its changes across a restart."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_mindpy, unique_name, wait_until, world_js
from mindpy import DEFAULT_MINECRAFT_VERSION
from mindpy.bridge import create_bot
from mindpy.errors import ConfigError
from mindpy.nodejs import check_node_side, node_environment
from mindpy.server import EmbeddedServer
from mindpy.server.worlds import world_choice

SEED = 20261129
GENERATOR = REPO_ROOT / "mindpy" / "server" / "js" / "normal_world.js"
DIGEST_JS = Path(__file__).resolve().parent / "js" / "chunk_digest.js"
LOGS = ("oak_log", "birch_log", "spruce_log")


def digests(seed: int, places: list[str], version: str = DEFAULT_MINECRAFT_VERSION) -> dict[str, str]:
    """{"x,z": digest} of columns generated in a Node process of their own."""
    out = subprocess.run([str(check_node_side()), str(DIGEST_JS), str(GENERATOR), version, str(seed), *places],
                         env=node_environment(), capture_output=True, text=True, timeout=60, check=True).stdout
    return dict(line.split() for line in out.splitlines())


def test_a_seed_makes_the_same_chunks_every_time_and_another_seed_others():
    places = ["0,0", "5,-3", "-40,17"]
    first = digests(SEED, places)
    assert set(first) == set(places) and len(set(first.values())) == 3  # columns differ from each other
    assert digests(SEED, list(reversed(places))) == first  # nor does the order matter
    other = digests(SEED + 1, places)
    assert all(other[p] != first[p] for p in places)


def test_the_generator_finds_its_blocks_in_every_supported_version():
    # 1.18's short plant is "grass", 1.21's "short_grass": each version gets a world, not an error
    for version in ("1.18.2", "1.20.1", "1.21.3"):
        assert len(digests(SEED, ["1,1"], version)) == 1


def test_bad_world_options_are_one_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="unknown world 'hilly'"):
        EmbeddedServer(run_dir=tmp_path, world="hilly")
    with pytest.raises(ConfigError, match="non-zero 32-bit"):
        EmbeddedServer(run_dir=tmp_path, world="normal", seed=0)
    with pytest.raises(ConfigError, match="non-zero 32-bit"):
        EmbeddedServer(run_dir=tmp_path, world="normal", seed=2**40)


def test_world_options_name_a_generator_or_a_folder(tmp_path):
    assert world_choice("normal") == ("normal", None)
    assert world_choice("flat") == ("flat", None)
    assert world_choice(str(tmp_path)) == (None, str(tmp_path))  # the folder's record decides, else normal
    code, out = run_mindpy("run", "--task", "tasks.json", "--task-id", "t", "--world", "normal", cwd=tmp_path)
    assert code == 2 and "--world is for free play" in out, out
    code, out = run_mindpy("server", "--world", "normal", "--seed", "0", cwd=tmp_path)
    assert code != 0 and "non-zero 32-bit integer" in out and "Traceback" not in out, out


@pytest.fixture(scope="module")
def normal_server(tmp_path_factory):
    with EmbeddedServer(run_dir=tmp_path_factory.mktemp("normal"), world="normal", seed=SEED,
                        options={"viewDistance": 4}) as srv:
        yield srv


@pytest.fixture(scope="module")
def explorer(normal_server):
    bot = create_bot(unique_name("explorer"), normal_server.host, normal_server.port)
    wait_until(lambda: world_js().missingColumns(bot.js, 3) == 0, timeout=30, message="the columns around the spawn")
    yield bot
    bot.close()


def block(bot, x, y, z) -> dict:
    found = json.loads(world_js().blockJson(bot.js, x, y, z))
    assert found is not None, f"no block loaded at {x} {y} {z}"
    return found


def names_down(bot, x, y, z, depth) -> list[str]:
    return [block(bot, x, y - d, z)["name"] for d in range(depth)]


def test_a_bot_joins_on_the_surface_above_dirt_and_stone_and_deepslate(explorer):
    x, y, z = (int(v // 1) for v in explorer.position)
    assert y >= 62, f"spawned at y={y}, below the sea level"
    column = names_down(explorer, x, y - 1, z, 12)
    assert column[0] in ("grass_block", "sand", "gravel"), column  # the surface it stands on
    assert explorer.js.blockAt(explorer.js.entity.position).skyLight == 15  # open sky where it stands
    assert any(n in ("stone", "sandstone") for n in column[1:]), column  # soil over rock
    assert block(explorer, x, -64, z)["name"] == "bedrock"
    deep = names_down(explorer, x, -8, z, 40)  # y -8 .. -47: deepslate, and what caves and ores make of it
    assert deep.count("deepslate") > len(deep) // 2, deep
    assert all(n != "stone" for n in deep), deep
    assert explorer.js.blockAt(explorer.js.entity.position.offset(0, -30, 0)).skyLight == 0  # dark underground


def test_ores_logs_and_lava_are_within_reach(explorer):
    registry = explorer.js.registry

    def count(*names, distance=100, limit=200):
        ids = [registry.blocksByName[n].id for n in names]
        return explorer.js.findBlocks({"matching": ids, "maxDistance": distance, "count": limit}).length

    assert count("coal_ore", "deepslate_coal_ore") >= 10
    assert count("iron_ore", "deepslate_iron_ore") >= 5
    assert count("copper_ore", "deepslate_copper_ore") >= 5
    assert count(*LOGS, distance=64) >= 3
    assert count("diamond_ore", "deepslate_diamond_ore", distance=200) >= 1
    assert count("lava", distance=200) >= 1  # deep caves hold lava


def test_herds_of_animals_graze_on_the_generated_grass(explorer):
    monsters = {"zombie", "skeleton", "spider", "creeper", "arrow", "item"}  # caves are dark by day too

    def animals():
        return [e for e in json.loads(world_js().entitiesJson(explorer.js, 96))
                if e["name"] != "player" and e["name"] not in monsters]

    found = wait_until(lambda: len(animals()) >= 4 and animals(), timeout=10, message="herds around the spawn")
    assert {e["name"] for e in found} <= {"cow", "sheep", "pig", "chicken", "rabbit"}, found


def test_sand_falls_when_the_block_under_it_is_dug_or_it_is_placed_over_air(explorer):
    x, y, z = (int(v // 1) for v in explorer.position)
    bx = x + 1
    for dy, name in ((-1, "stone"), (0, "dirt"), (1, "sand"), (2, "air"), (3, "air")):
        explorer.command(f"/setblock {bx} {y + dy} {z} {name}")
    wait_until(lambda: block(explorer, bx, y + 1, z)["name"] == "sand", message="the sand on the dirt")
    world_js().digAt(explorer.js, bx, y, z, timeout=15)
    wait_until(lambda: block(explorer, bx, y, z)["name"] == "sand", message="the sand to fall onto the stone")
    assert block(explorer, bx, y + 1, z)["name"] == "air"
    explorer.command(f"/setblock {bx} {y + 3} {z} gravel")  # placed over air: drops onto the sand
    wait_until(lambda: block(explorer, bx, y + 1, z)["name"] == "gravel", message="the gravel to fall onto the sand")
    assert block(explorer, bx, y + 3, z)["name"] == "air"


def test_a_world_folder_keeps_its_world_and_a_change_across_a_restart(tmp_path):
    folder = tmp_path / "world"
    spot: list[int] = []

    def play(check, **world):
        with EmbeddedServer(run_dir=tmp_path / "run", world_folder=folder, options={"viewDistance": 2}, **world) as srv:
            assert (srv.world, srv.seed) == ("normal", SEED)
            bot = create_bot(unique_name("keeper"), srv.host, srv.port)
            try:
                check(bot)
            finally:
                bot.close()

    def name_at(bot, x, y, z):
        found = json.loads(world_js().blockJson(bot.js, x, y, z))
        return found and found["name"]

    def change(bot):
        x, y, z = (int(v // 1) for v in bot.position)
        spot.extend((x + 2, y + 3, z))
        bot.command("/setblock {} {} {} gold_block".format(*spot))
        wait_until(lambda: name_at(bot, *spot) == "gold_block", message="the gold block")

    def still_there(bot):
        wait_until(lambda: name_at(bot, *spot) == "gold_block", timeout=10, message="the gold block after a restart")

    play(change, world="normal", seed=SEED)
    assert json.loads((folder / "mindpy.json").read_text()) == {"world": "normal", "seed": SEED}
    assert list((folder / "region").glob("r.*.mca")), "no region file written"
    play(still_there)  # the folder's record says what to generate
    (folder / "mindpy.json").unlink()  # as a folder made by another flying-squid: its level.dat has the seed
    play(still_there)
    assert json.loads((folder / "mindpy.json").read_text()) == {"world": "normal", "seed": SEED}
    with pytest.raises(ConfigError, match="was made with world 'normal'"):
        EmbeddedServer(run_dir=tmp_path / "run", world_folder=folder, world="flat")
