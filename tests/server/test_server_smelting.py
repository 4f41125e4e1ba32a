"""Furnaces, smokers and blast furnaces on the embedded server, played through mineflayer's bot.openFurnace.

The session's server smelts 20x faster than the game (smeltSpeed=20): 0.5 s per item in a furnace,
0.25 s in a smoker or blast furnace. One test starts a server at game speed to check the real pace.
"""

from __future__ import annotations

import json
import time

from conftest import REPO_ROOT, clock, isolate, item_id, wait_ticks, wait_until
from conftest import give_items as give
from conftest import place_beside as place
from mindpy.bridge import create_bot
from mindpy.mcdata import minecraft_data
from mindpy.server import EmbeddedServer

SMELTING = json.loads((REPO_ROOT / "mindpy" / "server" / "js" / "data" / "smelting.json").read_text())


def count(item) -> int:
    return item.count if item is not None else 0


def load(bot, block, fuel: tuple[str, int] | None, raw: tuple[str, int]) -> None:
    """Open a furnace-like block, put fuel and input in (mineflayer's putFuel / putInput), close it."""
    furnace = bot.js.openFurnace(block, timeout=10)
    if fuel:
        furnace.putFuel(item_id(bot, fuel[0]), None, fuel[1], timeout=10)
    furnace.putInput(item_id(bot, raw[0]), None, raw[1], timeout=10)
    furnace.close()


def slots(bot, block) -> tuple[tuple, tuple, tuple]:
    """(input, fuel, output) of a furnace-like block as (name, count) or None, read through its window."""
    furnace = bot.js.openFurnace(block, timeout=10)
    try:
        return tuple((i.name, i.count) if i is not None else None
                     for i in (furnace.inputItem(), furnace.fuelItem(), furnace.outputItem()))
    finally:
        furnace.close()


STATION_RECIPES = [
    ("furnace", "beef", "cooked_beef"),
    ("furnace", "sand", "glass"),
    ("furnace", "oak_log", "charcoal"),
    ("furnace", "clay_ball", "brick"),
    ("furnace", "cobblestone", "stone"),
    ("smoker", "potato", "baked_potato"),
    ("smoker", "chicken", "cooked_chicken"),
    ("blast_furnace", "raw_iron", "iron_ingot"),
    ("blast_furnace", "gold_ore", "gold_ingot"),
]


def test_stations_smelt_with_put_input_put_fuel_take_output(make_bot):
    """Every station of STATION_RECIPES, side by side, all cooking at once."""
    bot = make_bot("cook")
    isolate(bot)
    blocks = [place(bot, station, dx=2, dz=k - 4) for k, (station, _, _) in enumerate(STATION_RECIPES)]
    give(bot, {**{raw: 3 for _, raw, _ in STATION_RECIPES}, "coal": len(STATION_RECIPES)})
    for block, (_, raw, _) in zip(blocks, STATION_RECIPES):
        load(bot, block, ("coal", 1), (raw, 3))
    assert bot.inventory() == {}
    wait_ticks(32, "three items smelt: 30 ticks in a furnace at 20x, half that in the others")
    for block, (station, _raw, cooked) in zip(blocks, STATION_RECIPES):
        furnace = bot.js.openFurnace(block, timeout=10)
        wait_until(lambda: count(furnace.outputItem()) == 3, timeout=3, message=f"3 {cooked} from the {station}")
        assert furnace.inputItem() is None and furnace.fuelItem() is None
        furnace.takeOutput(timeout=10)
        furnace.close()
    expected = {}
    for _, _, cooked in STATION_RECIPES:
        expected[cooked] = expected.get(cooked, 0) + 3
    assert wait_until(lambda: bot.inventory() == expected, message=f"{expected} and nothing else")


def test_stations_smelt_only_their_kind(make_bot):
    """As in vanilla, anything goes into the input slot, but a smoker cooks only food, a blast furnace only
    ores, and nothing cooks dirt: the item stays raw and the fuel is not lit."""
    bot = make_bot("picky")
    isolate(bot)
    wrong = [("smoker", "raw_iron"), ("blast_furnace", "beef"), ("furnace", "dirt")]
    blocks = [place(bot, station, dz=k) for k, (station, _) in enumerate(wrong)]
    give(bot, {**{item: 2 for _, item in wrong}, "coal": 3})
    for block, (_, item) in zip(blocks, wrong):
        load(bot, block, ("coal", 1), (item, 2))
    wait_ticks(20, "four times what one item takes in the smoker and blast furnace")
    for block, (station, _item) in zip(blocks, wrong):
        furnace = bot.js.openFurnace(block, timeout=10)
        assert furnace.outputItem() is None, station
        assert count(furnace.inputItem()) == 2 and count(furnace.fuelItem()) == 1, station
        furnace.takeInput(timeout=10)
        furnace.takeFuel(timeout=10)
        furnace.close()
    assert wait_until(lambda: bot.inventory() == {"raw_iron": 2, "beef": 2, "dirt": 2, "coal": 3},
                      message="everything back")


FUELS = [  # fuel, how many, stone smelted from 10 cobblestone
    ("coal", 1, 8),         # 1600 ticks
    ("oak_planks", 2, 3),   # 2 x 300 ticks
    ("stick", 2, 1),        # 2 x 100 ticks
    ("lava_bucket", 1, 10), # 20000 ticks: more than the 10 items given
]


def test_fuel_burns_for_its_time(make_bot):
    bot = make_bot("stoker")
    isolate(bot)
    blocks = [place(bot, "furnace", dz=k) for k in range(len(FUELS))]
    give(bot, {"cobblestone": 10 * len(FUELS), **{fuel: n for fuel, n, _ in FUELS}})
    for block, (fuel, n, _) in zip(blocks, FUELS):
        load(bot, block, (fuel, n), ("cobblestone", 10))
    wait_ticks(110, "10 items take 100 ticks; every fire is out by then")
    for block, (fuel, _n, smelted) in zip(blocks, FUELS):
        # spent fuel shows no fire; a lava bucket burns on with nothing left to smelt, as in vanilla
        lit = bot.js.blockAt(block.position).getProperties().lit
        assert lit is (fuel == "lava_bucket"), f"{fuel}: lit={lit}"
        raw, left, out = slots(bot, block)
        assert count_of(out) == smelted and count_of(raw) == 10 - smelted, (fuel, raw, out)
        # a lava bucket leaves its bucket behind, as in vanilla
        assert left == (("bucket", 1) if fuel == "lava_bucket" else None), (fuel, left)


def count_of(entry) -> int:
    return entry[1] if entry else 0


def test_progress_shows_through_window_properties_and_smoker_is_twice_as_fast(make_bot):
    bot = make_bot("timer")
    isolate(bot)
    timings = {}
    for dz, station in ((0, "furnace"), (2, "smoker")):
        block = place(bot, station, dz=dz)
        give(bot, {"mutton": 4, "coal": 1})
        furnace = bot.js.openFurnace(block, timeout=10)
        furnace.putFuel(item_id(bot, "coal"), None, 1, timeout=10)
        started = clock.now()  # game seconds: a loaded machine ticks slower
        furnace.putInput(item_id(bot, "mutton"), None, 4, timeout=10)
        progress, lit = set(), set()
        while count(furnace.outputItem()) < 4 and clock.now() - started < 10:
            if furnace.progress is not None:
                progress.add(round(furnace.progress, 2))
            lit.add(bot.js.blockAt(block.position).getProperties().lit)
            time.sleep(0.02)
        assert True in lit, f"the {station} never looked lit"
        timings[station] = clock.now() - started
        assert count(furnace.outputItem()) == 4
        assert any(0 < p < 1 for p in progress), f"no progress in between seen: {progress}"
        assert furnace.totalProgress == (200 if station == "furnace" else 100)
        assert 0 < furnace.fuel <= 1 and furnace.totalFuel == (1600 if station == "furnace" else 800)
        furnace.takeOutput(timeout=10)
        furnace.close()
    # 4 items at 200 / 100 ticks each, 20 times faster than the game: 2.0 and 1.0 game seconds (the clock reads
    # the tick count every 5 ticks)
    assert 1.6 < timings["furnace"] < 3.5, timings
    assert 0.7 < timings["smoker"] < 2.0, timings
    assert timings["furnace"] > 1.5 * timings["smoker"], timings


def test_shift_click_sends_food_to_the_input_and_coal_to_the_fuel_slot(make_bot):
    bot = make_bot("shifter")
    isolate(bot)
    block = place(bot, "smoker")
    give(bot, {"porkchop": 5, "coal": 2})
    furnace = bot.js.openFurnace(block, timeout=10)
    for name in ("porkchop", "coal"):
        slot = next(item.slot for item in furnace.items() if item.name == name)
        bot.js.clickWindow(slot, 0, 1, timeout=10)
    assert furnace.inputItem().name == "porkchop" and furnace.fuelItem().name == "coal"
    wait_until(lambda: count(furnace.outputItem()) >= 1, timeout=5, message="cooking to start")
    assert count(furnace.fuelItem()) == 1  # one coal burning, one left
    furnace.close()


def test_data_merge_block_fuels_a_furnace_at_set_up(make_bot):
    bot = make_bot("setup")
    x, y, z = isolate(bot)
    block = place(bot, "smoker")
    bot.command(f'/data merge block {x + 2} {y} {z} {{Items:[{{Slot:1b,id:"minecraft:coal",count:4}}]}}')
    time.sleep(0.3)
    give(bot, {"cod": 2})
    smoker = bot.js.openFurnace(block, timeout=10)
    assert smoker.fuelItem().name == "coal" and smoker.fuelItem().count == 4
    smoker.putInput(item_id(bot, "cod"), None, 2, timeout=10)
    wait_until(lambda: count(smoker.outputItem()) == 2, timeout=5, message="2 cooked cod")
    assert smoker.fuelItem().count == 3
    smoker.close()


def test_game_speed_without_the_option(tmp_path):
    """At game speed (no smeltSpeed) a furnace needs 10 s per item: after 2 s it is about 20% done."""
    with EmbeddedServer(run_dir=tmp_path) as slow:
        bot = create_bot("slowcook", slow.host, slow.port)
        try:
            bot.js.look(0, 0, True)
            block = place(bot, "furnace")
            give(bot, {"beef": 1, "coal": 1})
            furnace = bot.js.openFurnace(block, timeout=10)
            furnace.putFuel(item_id(bot, "coal"), None, 1, timeout=10)
            # elapsed game time, from this server's tick count: a loaded machine ticks slower than 20 a second
            started = wait_until(slow.ticks, message="the second server's tick report")
            furnace.putInput(item_id(bot, "beef"), None, 1, timeout=10)
            wait_until(lambda: slow.ticks() - started >= 40, message="2 game seconds on the second server")
            wait_until(lambda: furnace.progress is not None, message="a progress property")
            elapsed = (slow.ticks() - started) / 20
            assert abs(furnace.progress - elapsed / 10) < 0.06, (furnace.progress, elapsed)
            assert furnace.outputItem() is None
            furnace.close()
        finally:
            bot.close()


def test_smelting_table_covers_foods_ores_and_logs():
    data = minecraft_data()
    items = data.items_by_name
    recipes = SMELTING["recipes"]
    for raw, recipe in recipes.items():
        assert raw in items and recipe["output"] in items, f"{raw} -> {recipe['output']} is not a 1.21.1 item"
    # every raw food with a cooked form, every ore and raw metal, every log
    for raw in [n for n in data.foods_by_name if f"cooked_{n}" in items] + ["potato", "kelp"]:
        assert recipes[raw]["kind"] == "food", raw
    for raw in [n for n in items if n.endswith("_ore") or n.startswith("raw_") and not n.endswith("_block")]:
        assert recipes[raw]["kind"] == "ore", raw
    for log in [n for n in items if n.endswith("_log") and n not in ("crimson_log", "warped_log")]:
        assert recipes[log]["output"] == "charcoal", log
    expected = {"sand": "glass", "clay": "terracotta", "clay_ball": "brick", "cobblestone": "stone", "netherrack": "nether_brick"}
    assert {raw: recipes[raw]["output"] for raw in expected} == expected
    fuels = SMELTING["fuels"]
    assert (fuels["coal"], fuels["lava_bucket"], fuels["oak_planks"], fuels["stick"]) == (1600, 20000, 300, 100)
    assert "crimson_planks" not in fuels and "stone_slab" not in fuels  # nether wood and stone do not burn
