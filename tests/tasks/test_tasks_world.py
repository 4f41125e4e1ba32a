"""Task world set-up on the embedded server, with real bots: inventories, positions, the forest, the cooking world's
stations and animals, the emptied construction site, the emptied CoBlock site with the agents south of it; and a
MINDcraft-format task file written by hand."""

from __future__ import annotations

import json

import pytest

from conftest import REPO_ROOT, isolate, wait_until
from mindpy.tasks import load_tasks
from mindpy.tasks.families.coblock.site import box_cells, site_box, structure_cells
from mindpy.tasks.families.cooking.world import COOKING_ANIMALS
from mindpy.tasks.world import (
    WorldSetupError,
    issue_via_bot,
    issue_via_server,
    plan_setup,
    set_up_task,
    wait_for_setup,
)
from mindpy.world.bulk import block_map, entity_counts
from mindpy.world.queries import block_at

TASKS = REPO_ROOT / "tasks"


def first_task(file_name: str, agent_count: int = 2):
    return next(t for t in load_tasks(TASKS / file_name).values() if t.agent_count == agent_count)


def block_name(bot, pos) -> str | None:
    block = block_at(bot, *pos)
    return block and block["name"]


def assert_agents_set_up(task, bots):
    """Inventories exactly as the task says; everyone within 5 blocks (x and z) of agent 0."""
    x0, _, z0 = bots[0].position
    for i, bot in enumerate(bots):
        assert bot.inventory() == {k: v for k, v in task.inventory_for(i).items() if v}, bot.name
        x, _, z = bot.position
        assert abs(x - x0) <= 5.5 and abs(z - z0) <= 5.5, f"{bot.name} is too far from agent 0"


def animals_near(bot, origin) -> dict[str, int]:
    return entity_counts(bot, COOKING_ANIMALS, origin[0], origin[2], radius=40)


def test_a_crafting_task_gets_its_inventories_places_and_forest(server, make_bot):
    task = first_task("crafting_test.json")
    bots = [make_bot("craft"), make_bot("craft")]
    origin = isolate(bots[0])
    bots[1].command(f"/give {bots[1].name} dirt 5")  # left over from an earlier episode: must be cleared
    wait_until(lambda: bots[1].inventory().get("dirt"), message="the leftover dirt")

    setup = set_up_task(task, bots, issue_via_server(server), origin=origin, seed=3)

    assert_agents_set_up(task, bots)
    assert bots[0].position[0] == pytest.approx(origin[0] + 0.5)
    logs = [pos for pos, name in setup.expected_blocks.items() if name == "oak_log"]
    assert len(logs) >= 4
    for x, y, z in logs:
        assert [block_name(bots[0], (x, y + dy, z)) for dy in range(5)] == ["oak_log"] * 5
        assert block_name(bots[0], (x + 1, y + 3, z)) == "oak_leaves"
    assert setup.goals[bots[0].name] == task.goal_for(0)
    assert setup.opening_message == (bots[0].name, task.conversation)
    assert setup.timeout == task.timeout


def test_a_cooking_task_gets_a_farm_a_kitchen_with_fuelled_stations_and_animals(server, make_bot):
    task = first_task("cooking_test.json")
    bots = [make_bot("cook"), make_bot("cook")]
    origin = isolate(bots[0])
    replies: list[str] = []
    bots[0].on("messagestr", lambda text, *rest: replies.append(text))
    try:
        setup = set_up_task(task, bots, issue_via_server(server), origin=origin, seed=1)
        assert_agents_set_up(task, bots)

        x, y, z = setup.stations["bed"]
        assert block_at(bots[0], x, y, z) == {"name": "red_bed", "properties": {
            "facing": "south", "occupied": False, "part": "foot"}}
        assert block_at(bots[0], x, y, z + 1)["properties"]["part"] == "head"
        assert block_name(bots[0], setup.stations["crafting_table"]) == "crafting_table"
        for station in ("furnace", "smoker"):
            sx, sy, sz = setup.stations[station]
            assert block_name(bots[0], (sx, sy, sz)) == station
            bots[0].command(f"/data get block {sx} {sy} {sz}")
            wait_until(lambda: any(f"{sx}, {sy}, {sz} has" in r and 'id:"minecraft:coal",count:64' in r
                                   for r in replies), message=f"the {station} fuelled with coal")

        crops = {name: pos for pos, name in setup.expected_blocks.items()
                 if name in ("wheat", "beetroots", "potatoes", "carrots")}
        assert set(crops) == {"wheat", "beetroots", "potatoes", "carrots"}
        for name, pos in crops.items():
            block = block_at(bots[0], *pos)
            ripe = 3 if name == "beetroots" else 7
            assert int(block["properties"]["age"]) == ripe, name
            assert block_name(bots[0], (pos[0], pos[1] - 1, pos[2])) == "farmland"
        for name in ("pumpkin", "sugar_cane", "brown_mushroom", "red_mushroom"):
            assert name in setup.expected_blocks.values()

        wanted = {kind: sum(1 for k, _ in setup.animals if k == kind) for kind in COOKING_ANIMALS}
        assert all(n >= 1 for n in wanted.values())
        assert animals_near(bots[0], origin) == wanted
    finally:
        for kind in COOKING_ANIMALS:
            bots[0].command(f"/kill @e[type={kind}]")


def test_a_construction_site_is_emptied_and_the_builders_stand_at_level_0(server, make_bot):
    task = first_task("construction_test.json")
    bots = [make_bot("build"), make_bot("build")]
    level0 = task.blueprint.levels[0]
    x0, y0, z0 = level0.coordinates
    bots[0].command(f"/tp {bots[0].name} {x0 - 2} {y0} {z0 - 2}")
    bots[0].command(f"/setblock {x0 + 1} {y0} {z0 + 1} stone")  # an earlier episode's block on the site
    wait_until(lambda: block_name(bots[0], (x0 + 1, y0, z0 + 1)) == "stone", timeout=15, message="the old stone")

    setup = set_up_task(task, bots, issue_via_bot(bots[0]), seed=2)  # an operator bot's chat, as on Paper

    assert_agents_set_up(task, bots)
    assert block_name(bots[0], (x0 + 1, y0, z0 + 1)) == "air"
    cells = task.blueprint.cells()
    assert all(block_name(bots[0], (c.x, c.y, c.z)) == "air" for c in cells[::7])
    bx, by, bz = bots[0].position
    assert (bx, by, bz) == pytest.approx((x0 - 1.5, y0, z0 - 1.5))
    assert setup.expected_blocks  # the check read the site back


def test_a_coblock_site_is_emptied_and_each_agent_holds_its_own_colours(server, make_bot):
    task = load_tasks(TASKS / "coblock_test.json")["coblock_skill_dependent_2"]
    x0, y0, z0, x1, y1, z1 = site_box(task)
    assert (x0, y0, z0, x1, z1) == (98, -60, -102, 111, -89)  # the 10x10 grid at (100, -60, -100), 2 blocks more
    assert y1 == max(y for _, y, _ in structure_cells(task)) + 2
    bots = [make_bot("coblock"), make_bot("coblock")]
    gx, gy, gz = next(iter(structure_cells(task)))
    bots[0].command(f"/tp {bots[0].name} {x0 + 3} {y0} {z1 + 2}")
    leftovers = {(gx, gy, gz): "stone", (x1, y1, z0): "red_wool", (x0, y0, z1): "blue_wool"}  # G cell, corners
    for (x, y, z), name in leftovers.items():
        bots[0].command(f"/setblock {x} {y} {z} {name}")
    bots[0].command(f"/setblock {x0 + 5} {y0 - 1} {z1 + 2} air")  # a hole where an agent will stand
    wait_until(lambda: all(block_name(bots[0], pos) == name for pos, name in leftovers.items()), timeout=15,
               message="the leftovers of an earlier episode")
    bots[1].command(f"/give {bots[1].name} red_wool 3")  # a colour it must not keep
    wait_until(lambda: bots[1].inventory().get("red_wool"), message="the leftover wool")

    setup = set_up_task(task, bots, issue_via_server(server), origin=(0, -60, 0), seed=4)  # origin is not used

    assert setup.site == (x0, y0, z0, x1, y1, z1)
    seen = block_map(bots[0], box_cells(setup.site))
    assert set(seen.values()) == {"air"}, {pos: name for pos, name in seen.items() if name != "air"}
    for i, bot in enumerate(bots):
        assert bot.inventory() == task.inventory_for(i), bot.name  # read back from the bot
        x, y, z = bot.position
        assert z == pytest.approx(z1 + 2.5) and y == pytest.approx(y0) and x0 < x < x1 + 1, bot.name
        assert block_name(bot, (int(x // 1), y0 - 1, int(z // 1))) == "grass_block"
    assert abs(bots[0].position[0] - bots[1].position[0]) >= 2
    assert setup.goals == {bot.name: task.goal_for(i) for i, bot in enumerate(bots)}
    assert all(line.endswith(" 180 0") for line in setup.commands if line.startswith("tp "))  # facing north


def test_a_set_up_that_cannot_take_effect_fails_with_the_reason(server, make_bot):
    task = first_task("crafting_test.json")
    bots = [make_bot("fail"), make_bot("fail")]
    origin = isolate(bots[0])
    setup = plan_setup(task, [b.name for b in bots], origin)  # planned but never sent
    with pytest.raises(WorldSetupError, match="expected"):
        wait_for_setup(setup, bots, timeout=1)


MINDCRAFT_TASKS = {
    "multiagent_techtree_1_stone_pickaxe": {
        "conversation": "Let's collaborate to build a stone pickaxe",
        "agent_count": 2,
        "goal": "Build a stone pickaxe",
        "initial_inventory": {"0": {"wooden_pickaxe": 1}, "1": {"wooden_axe": 1}},
        "target": "stone_pickaxe",
        "number_of_target": 1,
        "type": "techtree",
        "max_depth": 3,
        "depth": 0,
        "timeout": 300,
        "blocked_actions": {"0": [], "1": []},
        "missing_items": [],
        "requires_ctable": True,
    },
    "multiagent_cooking_2_1_cooked_chicken_1_golden_carrot_hells_kitchen": {
        "conversation": "We need to make cooked_chicken and golden_carrot together. You are supposed to make "
                        "golden_carrot and I am supposed to make cooked_chicken, but I only have access to your "
                        "recipe and you only have access to mine!",
        "agent_count": 2,
        "target": ["cooked_chicken", "golden_carrot"],
        "type": "cooking",
        "timeout": 300,
        "recipes": {"cooked_chicken": ["Step 1: Kill a chicken and pick up the raw chicken.",
                                       "Step 2: Cook the raw chicken in a furnace."],
                    "golden_carrot": ["Step 1: Get 1 carrot.", "Step 2: Craft it with 8 gold nuggets."]},
        "blocked_access_to_recipe": [],
        "goal": {"0": "You need to make cooked_chicken.", "1": "You need to make golden_carrot."},
        "initial_inventory": {"0": {"gold_nugget": 8}, "1": {"coal": 4}},
    },
    "materials_0_rooms_0_window_0_carpet_0_variant_0": {
        "type": "construction",
        "goal": "Make a structure with the blueprint below",
        "conversation": "Let's share materials and make a structure with the blueprint",
        "agent_count": 2,
        "blueprint": {"materials": {"stone": 6},
                      "levels": [{"level": 0, "coordinates": [-3000, -60, 3000],
                                  "placement": [["stone", "stone", "stone"], ["stone", "air", "stone"]]}]},
        "initial_inventory": {"0": {"stone": 3}, "1": {"stone": 3}},
        "timeout": 500,
    },
}


def test_a_mindcraft_format_task_file_loads_and_sets_up(server, make_bot, tmp_path):
    path = tmp_path / "mindcraft_tasks.json"
    path.write_text(json.dumps(MINDCRAFT_TASKS, indent=2))
    tasks = load_tasks(path)
    hells = tasks["multiagent_cooking_2_1_cooked_chicken_1_golden_carrot_hells_kitchen"]
    assert hells.is_hells_kitchen and hells.targets_for(1) == {"golden_carrot": 1}

    bots = [make_bot("mc"), make_bot("mc")]
    issue = issue_via_server(server)
    origin = isolate(bots[0])
    for task_id in ("multiagent_techtree_1_stone_pickaxe", "materials_0_rooms_0_window_0_carpet_0_variant_0"):
        task = tasks[task_id]
        set_up_task(task, bots, issue, origin=origin, seed=5)
        assert_agents_set_up(task, bots)
    assert bots[0].position == pytest.approx((-3001.5, -60, 2998.5))
    try:
        setup = set_up_task(hells, bots, issue, origin=origin, seed=5)
        assert_agents_set_up(hells, bots)
        assert setup.goals == {bots[0].name: "You need to make cooked_chicken.",
                               bots[1].name: "You need to make golden_carrot."}
    finally:
        for kind in COOKING_ANIMALS:
            bots[0].command(f"/kill @e[type={kind}]")


def test_fill_over_a_container_forgets_its_items(server, make_bot):
    """Set-ups clear areas with /fill; a chest (or furnace) filled over must not come back with its old items."""
    bot = make_bot("fill")
    x, y, z = isolate(bot)
    replies: list[str] = []
    bot.on("messagestr", lambda text, *rest: replies.append(text))
    bot.command(f"/setblock {x + 2} {y} {z} chest")
    bot.command(f'/data merge block {x + 2} {y} {z} {{Items:[{{Slot:0b,id:"minecraft:apple",count:5}}]}}')
    bot.command(f"/fill {x + 1} {y} {z - 1} {x + 3} {y + 1} {z + 1} air")
    bot.command(f"/setblock {x + 2} {y} {z} chest")
    bot.command(f"/data get block {x + 2} {y} {z}")
    wait_until(lambda: any("has the following block data" in r for r in replies), message="the /data get reply")
    reply = next(r for r in replies if "has the following block data" in r)
    assert reply.endswith("{Items:[]}"), reply
    bot.command("/kill @e[type=item]")
