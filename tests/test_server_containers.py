"""Furnaces, smokers, blast furnaces and chests on the embedded server, through mineflayer's own API."""

from __future__ import annotations

import time

import pytest

from conftest import isolate, wait_until
from mindpy.skills import Skills


def setup_block(bot, name):
    x, y, z = isolate(bot)
    bot.chat(f"/setblock {x + 2} {y} {z} {name}")
    wait_until(lambda: bot.js.blockAt(bot.js.entity.position.offset(2, 0, 0)).name == name, message=name)
    return bot.js.blockAt(bot.js.entity.position.offset(2, 0, 0)), (x + 2, y, z)


def give(bot, items):
    for name, count in items.items():
        bot.chat(f"/give {bot.name} {name} {count}")
    wait_until(lambda: all(bot.inventory().get(n, 0) >= c for n, c in items.items()), message=str(items))


def item_id(bot, name):
    return bot.js.registry.itemsByName[name].id


@pytest.mark.parametrize("station, raw, cooked", [
    ("furnace", "beef", "cooked_beef"),
    ("furnace", "sand", "glass"),
    ("smoker", "potato", "baked_potato"),
    ("blast_furnace", "raw_iron", "iron_ingot"),
])
def test_station_smelts_with_put_input_put_fuel_take_output(make_bot, station, raw, cooked):
    bot = make_bot("cook")
    block, _ = setup_block(bot, station)
    give(bot, {raw: 2, "coal": 1})
    furnace = bot.js.openFurnace(block, timeout=10)
    furnace.putFuel(item_id(bot, "coal"), None, 1, timeout=10)
    furnace.putInput(item_id(bot, raw), None, 2, timeout=10)
    wait_until(lambda: furnace.outputItem() is not None and furnace.outputItem().count == 2, timeout=15,
               message=f"2 {cooked} in the output slot")
    assert furnace.progress is not None
    furnace.takeOutput(timeout=10)
    furnace.close()
    assert wait_until(lambda: bot.inventory().get(cooked) == 2, message=f"2 {cooked}")
    assert bot.inventory().get(raw, 0) == 0


@pytest.mark.parametrize("station, wrong", [("smoker", "raw_iron"), ("blast_furnace", "beef")])
def test_smoker_takes_only_food_and_blast_furnace_only_ores(make_bot, station, wrong):
    bot = make_bot("picky")
    block, _ = setup_block(bot, station)
    give(bot, {wrong: 1})
    furnace = bot.js.openFurnace(block, timeout=10)
    try:
        furnace.putInput(item_id(bot, wrong), None, 1, timeout=10)
    except Exception:
        pass  # mineflayer may notice the refusal itself
    time.sleep(0.5)
    furnace.close()
    assert wait_until(lambda: bot.inventory().get(wrong) == 1, message=f"{wrong} back in the inventory")


def test_one_coal_smelts_eight_items(make_bot):
    bot = make_bot("fuel")
    block, _ = setup_block(bot, "furnace")
    give(bot, {"cobblestone": 10, "coal": 1})
    furnace = bot.js.openFurnace(block, timeout=10)
    furnace.putFuel(item_id(bot, "coal"), None, 1, timeout=10)
    furnace.putInput(item_id(bot, "cobblestone"), None, 10, timeout=10)
    wait_until(lambda: furnace.outputItem() is not None and furnace.outputItem().count == 8, timeout=30,
               message="8 stone")
    time.sleep(1.5)  # with the coal burnt out, nothing more is smelted
    assert furnace.outputItem().count == 8 and furnace.inputItem().count == 2
    furnace.close()


def test_smelt_skill_places_a_furnace_and_adds_fuel(make_bot):
    bot = make_bot("chef")
    isolate(bot)
    give(bot, {"chicken": 2, "furnace": 1, "oak_planks": 2})
    skills = Skills(bot)
    assert skills.smelt_item("chicken", 2), skills.take_log()
    assert wait_until(lambda: bot.inventory().get("cooked_chicken") == 2, message="2 cooked chicken")


def test_chest_keeps_what_is_put_in(make_bot):
    bot = make_bot("hoarder")
    block, (x, y, z) = setup_block(bot, "chest")
    give(bot, {"oak_log": 10, "apple": 3})
    chest = bot.js.openContainer(block, timeout=10)
    chest.deposit(item_id(bot, "oak_log"), None, 6, timeout=10)
    chest.deposit(item_id(bot, "apple"), None, 3, timeout=10)
    chest.close()
    wait_until(lambda: bot.inventory() == {"oak_log": 4}, message="items moved into the chest")
    chest = bot.js.openContainer(block, timeout=10)  # contents kept after closing
    counts = {}
    for item in chest.containerItems():
        counts[item.name] = counts.get(item.name, 0) + item.count
    assert counts == {"oak_log": 6, "apple": 3}
    chest.withdraw(item_id(bot, "oak_log"), None, 2, timeout=10)
    chest.close()
    assert wait_until(lambda: bot.inventory() == {"oak_log": 6}, message="2 logs taken back")


def test_data_merge_fills_a_chest_and_fuels_a_furnace(make_bot):
    bot = make_bot("setup")
    chest, (x, y, z) = setup_block(bot, "chest")
    bot.chat(f'/data merge block {x} {y} {z} {{Items:[{{Slot:0b,id:"minecraft:bread",count:5}},{{Slot:4b,id:"minecraft:egg",Count:2b}}]}}')
    time.sleep(0.5)
    skills = Skills(bot)
    assert skills.view_chest()
    text = skills.take_log()
    assert "bread: 5" in text and "egg: 2" in text
    bot.chat(f"/setblock {x} {y} {z + 2} smoker")
    bot.chat(f'/data merge block {x} {y} {z + 2} {{Items:[{{Slot:1b,id:"minecraft:coal",count:4}}]}}')
    time.sleep(0.5)
    smoker = bot.js.openFurnace(bot.js.blockAt(bot.js.entity.position.offset(2, 0, 2)), timeout=10)
    assert smoker.fuelItem().name == "coal" and smoker.fuelItem().count == 4
    smoker.close()
