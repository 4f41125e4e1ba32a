"""unsolvable_reason: can a task be solved at all, from the team's items, the family's world (as world.py sets it
up) and the recipes? Pure Python: no server. The tasks here are written for these tests in MINDcraft's shapes."""

from __future__ import annotations

from typing import Any

import pytest

from mindpy.tasks import load_tasks
from mindpy.tasks.schema import Task
from mindpy.tasks.solvable import unsolvable_reason
from mindpy.tasks.splits import EXAMPLES, committed, generate, generated_families

NO_FOREST = ["!collectBlocks"]  # nothing dug: the techtree forest gives no logs


def team(inventories: list[dict[str, int]], agents: int | None = None, *, blocked: list[str] | None = None,
         timeout: int = 300) -> dict[str, Any]:
    """The fields every task has about its team: inventories by index, the agents, their blocked actions."""
    agents = len(inventories) if agents is None else agents
    return {
        "agent_count": agents,
        "initial_inventory": {str(i): inv for i, inv in enumerate(inventories)},
        "timeout": timeout,
        "blocked_actions": {str(i): list(blocked or []) for i in range(agents)},
    }


def crafting(inventories: list[dict[str, int]], target: str, count: int = 1, *, blocked: list[str] | None = None,
             **fields: Any) -> Task:
    """A techtree task as MINDcraft writes them: one target, inventories by agent index."""
    data = {
        "type": "techtree",
        "goal": f"Collaborate with the other agents to craft {target}.",
        "conversation": f"Let's work together to craft {target}.",
        **team(inventories, len(inventories) - fields.get("human_count", 0), blocked=blocked),
        "target": target,
        "number_of_target": count,
        "missing_items": [],
        "requires_ctable": False,
        **fields,
    }
    return Task.from_dict(f"multiagent_crafting_{target}", data)


def cooking(inventories: list[dict[str, int]], dishes: dict[str, int], *, timeout: int = 300) -> Task:
    """A cooking task: a meal of dishes held by one agent in the end."""
    data = {
        "type": "cooking",
        "goal": "Collaborate with the other agents to make the meal.",
        "conversation": "Let's work together to make the meal.",
        **team(inventories, timeout=timeout),
        "target": dishes,
        "recipes": {},
        "blocked_access_to_recipe": [],
    }
    return Task.from_dict("multiagent_cooking_meal", data)


def hells_kitchen(inventories: list[dict[str, int]], dishes: list[str]) -> Task:
    """Hell's Kitchen: one dish per agent (the target list is in agent order, the id says hells_kitchen)."""
    data = {
        "type": "cooking",
        "goal": {str(i): f"You must make {dish}." for i, dish in enumerate(dishes)},
        "conversation": "Let's exchange recipes and get cooking!",
        **team(inventories, len(dishes)),
        "target": dishes,
    }
    return Task.from_dict(f"multiagent_cooking_{'_'.join(dishes)}_hells_kitchen", data)


def construction(inventories: list[dict[str, int]], placements: list[list[list[str]]]) -> Task:
    """A construction task: levels stacked from (100, -60, 100), materials given in the inventories."""
    data = {
        "type": "construction",
        "goal": "Build the house of the blueprint together.",
        "conversation": "Let's build the house.",
        **team(inventories, timeout=600),
        "blueprint": {"materials": {}, "levels": [
            {"level": n, "coordinates": [100, -60 + n, 100], "placement": rows} for n, rows in enumerate(placements)]},
    }
    return Task.from_dict("construction_small_house", data)


# ----- crafting -----
def test_crafting_from_the_inventories_and_the_forest():
    assert unsolvable_reason(crafting([{"oak_log": 1}, {"oak_log": 1, "crafting_table": 1}], "wooden_pickaxe")) is None
    # the techtree world is a forest: wooden things need nothing held
    assert unsolvable_reason(crafting([{}, {}], "wooden_pickaxe")) is None
    # a missing log is gathered in the forest, which world.py grows of that wood
    task = crafting([{"birch_planks": 2}, {"stick": 1}], "birch_boat", missing_items=["birch_log"])
    assert unsolvable_reason(task) is None


def test_the_forest_is_finite():
    reason = unsolvable_reason(crafting([{}, {}], "chest", 20))  # 160 planks: 40 logs, more than the trees have
    assert reason is not None and reason.startswith("needs ") and "more oak_log" in reason


def test_golden_apple_with_nuggets_is_short_of_ingots():
    task = crafting([{"gold_nugget": 5, "apple": 1}, {"gold_nugget": 3, "crafting_table": 1}], "golden_apple")
    assert unsolvable_reason(task) == ("needs 8 more gold_ingot (the team holds 8 gold_nugget, which cannot make "
                                       "gold_ingot here)")
    # enough nuggets do make the ingots
    task = crafting([{"gold_nugget": 40, "apple": 1}, {"gold_nugget": 32, "crafting_table": 1}], "golden_apple")
    assert unsolvable_reason(task) is None


def test_cake_one_milk_bucket_and_one_sugar_short():
    task = crafting([{"wheat": 2, "sugar": 1, "egg": 1}, {"wheat": 1, "milk_bucket": 2, "crafting_table": 1}], "cake")
    assert unsolvable_reason(task) == "needs 1 more milk_bucket and 1 more sugar"
    task = crafting([{"wheat": 2, "sugar": 2, "egg": 1}, {"wheat": 1, "milk_bucket": 3, "crafting_table": 1}], "cake")
    assert unsolvable_reason(task) is None


def test_planks_of_any_wood_mixed():
    # sticks from birch planks, a crafting table from two woods: minecraft-data lists one recipe per wood
    assert unsolvable_reason(crafting([{"birch_planks": 2}], "stick", 4, blocked=NO_FOREST)) is None
    task = crafting([{"oak_planks": 2}, {"spruce_planks": 2}], "crafting_table", blocked=NO_FOREST)
    assert unsolvable_reason(task) is None
    task = crafting([{"oak_planks": 4, "crafting_table": 1}, {"jungle_planks": 3}], "chest", blocked=NO_FOREST)
    assert unsolvable_reason(task) == "needs 1 more oak_planks (or any other planks)"


def test_planks_from_any_form_of_their_log():
    # minecraft-data lists birch_planks from birch_log only; stripped logs and wood make them too
    task = crafting([{"stripped_birch_log": 1}, {"birch_wood": 1}], "birch_planks", 8, blocked=NO_FOREST)
    assert unsolvable_reason(task) is None
    reason = unsolvable_reason(crafting([{"stripped_birch_log": 1}], "birch_planks", 5, blocked=NO_FOREST))
    assert reason == "needs 1 more stripped_birch_log (or another birch log or wood)"


def test_dyeing_wool_of_any_colour():
    # minecraft-data lists red wool from black wool only; any other colour dyes too
    assert unsolvable_reason(crafting([{"white_wool": 1}, {"red_dye": 1}], "red_wool")) is None
    assert unsolvable_reason(crafting([{"blue_wool": 2}, {"yellow_dye": 2}], "yellow_carpet", 3)) is None
    assert unsolvable_reason(crafting([{"red_dye": 1}], "red_wool")) == "needs 1 more white_wool (or any other wool)"
    # a chain of dyes: bone meal -> white dye, lapis -> blue dye, 2 red + blue + white -> 4 magenta
    task = crafting([{"red_dye": 2, "lapis_lazuli": 1}, {"white_wool": 1, "bone_meal": 1}], "magenta_wool")
    assert unsolvable_reason(task) is None


def test_dyeing_black_from_any_colour():
    # minecraft-data lists black wool (carpet, bed) from the blue one, not the black one as for the other colours
    assert unsolvable_reason(crafting([{"white_wool": 1}, {"black_dye": 1}], "black_wool", blocked=NO_FOREST)) is None
    assert unsolvable_reason(crafting([{"red_bed": 1, "black_dye": 1}], "black_bed", blocked=NO_FOREST)) is None


def test_coal_or_charcoal_and_any_logs():
    task = crafting([{"stick": 3, "charcoal": 1, "birch_log": 2}, {"stripped_spruce_log": 1, "crafting_table": 1}],
                    "campfire", blocked=NO_FOREST)
    assert unsolvable_reason(task) is None


def test_smelting_needs_a_furnace_and_fuel():
    assert unsolvable_reason(crafting([{"raw_iron": 1, "coal": 1}, {"furnace": 1}], "iron_ingot")) is None
    assert unsolvable_reason(crafting([{"raw_iron": 1, "coal": 1}], "iron_ingot")) == "needs 1 more furnace"
    # no fuel held: the forest's logs burn, unless nothing may be dug
    assert unsolvable_reason(crafting([{"raw_iron": 2, "furnace": 1}], "iron_ingot", 2)) is None
    reason = unsolvable_reason(crafting([{"raw_iron": 2, "furnace": 1}], "iron_ingot", 2, blocked=NO_FOREST))
    assert reason == "needs fuel for 2 more smelted items"


def test_no_cobblestone_in_the_superflat_world():
    reason = unsolvable_reason(crafting([{"wooden_pickaxe": 1}, {"stick": 2}], "stone_pickaxe"))
    assert reason == "needs 3 more cobblestone (or blackstone or cobbled_deepslate)"


def test_crafting_blocked_for_every_agent():
    inventories = [{"oak_planks": 3, "crafting_table": 1}, {"stick": 2}]
    reason = unsolvable_reason(crafting(inventories, "wooden_pickaxe", blocked=["!craftRecipe"]))
    assert reason == "needs 1 more wooden_pickaxe (every agent has !craftRecipe blocked)"
    one_blocked = crafting(inventories, "wooden_pickaxe", blocked_actions={"0": ["!craftRecipe"], "1": []})
    assert unsolvable_reason(one_blocked) is None


def test_human_players_count():
    # the human player (index 1) holds the second log and may craft although the agent may not
    task = crafting([{"oak_log": 1}, {"oak_log": 1, "crafting_table": 1}], "wooden_pickaxe",
                    blocked=["!craftRecipe", "!collectBlocks"], human_count=1)
    assert task.agent_count == 1
    assert unsolvable_reason(task) is None


def test_unknown_target():
    reason = unsolvable_reason(crafting([{}], "wooden_planks"))
    assert reason == "wooden_planks is not an item in Minecraft 1.21.1"


# ----- cooking -----
def test_cake_in_the_cooking_world():
    assert unsolvable_reason(cooking([{"milk_bucket": 2}, {"milk_bucket": 1, "egg": 1}], {"cake": 1})) is None
    assert unsolvable_reason(cooking([{"milk_bucket": 2}, {"egg": 1}], {"cake": 1})) == "needs 1 more milk_bucket"
    # a bucket is filled at the cows
    assert unsolvable_reason(cooking([{"milk_bucket": 2, "bucket": 1}, {"egg": 1}], {"cake": 1})) is None


def test_a_cake_gives_its_buckets_back():
    # three buckets, filled at the cows, make both cakes: crafting the first gives them back empty
    held = {"bucket": 3, "egg": 2, "sugar": 4, "wheat": 6}
    assert unsolvable_reason(cooking([held, {}], {"cake": 2})) is None
    assert unsolvable_reason(cooking([{**held, "bucket": 2}, {}], {"cake": 2})) == "needs 1 more bucket"


def test_meal_from_the_farm_and_animals():
    task = cooking([{"bowl": 1}, {}], {"rabbit_stew": 1, "cooked_beef": 1, "bread": 1, "baked_potato": 1})
    assert unsolvable_reason(task) is None
    assert unsolvable_reason(cooking([{"gold_nugget": 4}, {"gold_nugget": 4}], {"golden_carrot": 1})) is None
    assert unsolvable_reason(cooking([{"gold_nugget": 7}, {}], {"golden_carrot": 1})) == "needs 1 more gold_nugget"
    assert unsolvable_reason(cooking([{"gold_ingot": 8}, {}], {"golden_apple": 1})) == "needs 1 more apple"


def test_the_farm_is_finite():
    assert unsolvable_reason(cooking([{}, {}], {"bread": 4})) is None
    assert unsolvable_reason(cooking([{}, {}], {"bread": 5})) == "needs 3 more wheat"


def test_eggs_come_with_time():
    assert unsolvable_reason(cooking([{}, {}], {"pumpkin_pie": 1})) == "needs 1 more egg"
    assert unsolvable_reason(cooking([{}, {}], {"pumpkin_pie": 1}, timeout=600)) is None


def test_hells_kitchen_needs_both_dishes():
    assert unsolvable_reason(hells_kitchen([{"milk_bucket": 3}, {"egg": 1}], ["cake", "bread"])) is None
    task = hells_kitchen([{"milk_bucket": 3}, {"egg": 1}], ["cake", "cookie"])
    assert unsolvable_reason(task) == "needs 1 more cocoa_beans"
    task = hells_kitchen([{"milk_bucket": 3, "gold_ingot": 8}, {}], ["cake", "golden_apple"])
    assert unsolvable_reason(task) == "needs 1 more egg and 1 more apple"


# ----- construction -----
HOUSE = [[["stone_bricks", "stone_bricks"], ["stone_bricks", "stone_bricks"]],
         [["oak_planks", "air"], ["air", "oak_door"]],
         [["oak_planks", "air"], ["air", "oak_door"]]]


def test_construction_materials_from_the_inventories():
    assert unsolvable_reason(construction([{"stone_bricks": 4}, {"oak_planks": 2, "oak_door": 1}], HOUSE)) is None
    reason = unsolvable_reason(construction([{"stone_bricks": 2}, {"oak_planks": 2, "oak_door": 1}], HOUSE))
    assert reason == "needs 2 more stone_bricks"
    # crafted from what is held: a log makes the planks
    assert unsolvable_reason(construction([{"stone_bricks": 4}, {"oak_log": 1, "oak_door": 1}], HOUSE)) is None


def test_construction_dirt_from_the_ground_but_no_grass():
    assert unsolvable_reason(construction([{}, {}], [[["dirt", "dirt"]]])) is None
    assert unsolvable_reason(construction([{}, {}], [[["grass_block"]]])) == "needs 1 more grass_block"


def test_construction_levels_that_claim_one_place_for_different_blocks():
    """As in a hand-written MINDcraft blueprint whose ten levels all start at the same y: never complete."""
    task = construction([{"stone": 3, "oak_planks": 1}], [[["stone", "stone"]], [["oak_planks", "stone"]]])
    flat = Task.from_dict(task.id, {**task.to_dict(), "blueprint": {**task.blueprint.to_dict(), "levels": [
        {**level.to_dict(), "coordinates": [100, -60, 100]} for level in task.blueprint.levels]}})
    assert unsolvable_reason(task) is None
    assert unsolvable_reason(flat) == ("the blueprint's levels want different blocks at 1 position (at 100, -60, "
                                       "100 level 0 wants stone, level 1 oak_planks): it can never be complete")


# ----- the project's splits -----
@pytest.mark.parametrize("path", [*(committed(f) for f in generated_families()), EXAMPLES], ids=lambda p: p.name)
def test_committed_task_files_are_solvable(path):
    unsolvable = {task_id: reason for task_id, task in load_tasks(path).items()
                  if (reason := unsolvable_reason(task)) is not None}
    assert not unsolvable


@pytest.mark.slow  # the train splits are large (3,550 tasks): about half a minute
@pytest.mark.parametrize("family", generated_families())
def test_generated_train_splits_are_solvable(family):
    unsolvable = {task_id: reason for task_id, task in generate(family, "train").items()
                  if (reason := unsolvable_reason(task)) is not None}
    assert not unsolvable
