"""The oracle plans from what a task states in its fields (targets, counts, inventories, recipes), told through
ChatModel.set_task_context, and reads a goal's words only for what the fields leave out: goals reworded by hand
give the same plan. A goal it cannot read gets one line saying so, and no waiting loop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_oracle_unit import Scene, command

from mindpy.models.budget import Budget, BudgetedModel, BudgetLimits
from mindpy.models.registry import create_model
from mindpy.oracle import OracleModel, cooking
from mindpy.oracle.goals import goal_from_fields, parse_goal
from mindpy.oracle.player import Player
from mindpy.oracle.prompt import PromptView
from mindpy.tasks.families.cooking import world as kitchen
from mindpy.tasks.schema import Task
from mindpy.tasks.solvable import unsolvable_reason
from mindpy.tasks.world import plan_setup


def crafting_fields(target: str, count: int = 1, missing: list[str] | None = None, inventories=None) -> dict:
    return {"task_id": f"multiagent_crafting_{target}", "type": "techtree", "agent_count": 2, "target": target,
            "number_of_target": count, "missing_items": missing or [],
            "initial_inventory": inventories or {"0": {}, "1": {}}}


def cooking_fields(targets: dict[str, int], inventories=None) -> dict:
    return {"task_id": "multiagent_cooking_" + "_".join(targets), "type": "cooking", "agent_count": 2,
            "target": dict(targets), "recipes": {}, "initial_inventory": inventories or {"0": {}, "1": {}}}


# (fields, the goal as the task file had it, the same goal said another way), each way of saying it our own.
REWORDED = [
    # item names with spaces, counts as words
    (crafting_fields("wooden_pickaxe"), "Collaborate with the other agents to craft a wooden_pickaxe.",
     "Your squad has to put together one wooden pickaxe; share what you carry."),
    # passive voice, a count as a word, a plural
    (crafting_fields("stick", 4), "Collaborate with the other agents to craft 4 stick.",
     "Four sticks must be crafted by the team."),
    # imperative with spaces
    (crafting_fields("crafting_table"), "Collaborate with the other agents to craft a crafting_table.",
     "Build a crafting table, please."),
    # a team's job, "1x"
    (crafting_fields("stone_axe"), "Collaborate with the other agents to craft a stone_axe.",
     "The team's job is to finish holding 1x stone axe."),
    # a label line, and the "nobody has" note kept
    (crafting_fields("wooden_sword", missing=["oak_log"]),
     "Collaborate with the other agents to craft a wooden_sword. Nobody has the oak_log it takes: gather it nearby.",
     "Target: a wooden sword. None of you carries any oak log, so chop one nearby."),
    # a list with "plus", counts before
    (cooking_fields({"golden_carrot": 1, "cookie": 1}),
     "Collaborate with the other agents to make golden_carrot and cookie.",
     "By the end, the crew should end up holding 1x golden carrot plus 1x cookie."),
    # plural dishes, several in one sentence, commas
    (cooking_fields({"baked_potato": 1, "bread": 1, "cooked_beef": 1}),
     "Collaborate with the other agents to make baked_potato, bread and cooked_beef.",
     "Between you, prepare some baked potatoes, breads and cooked beef."),
    # passive with "are to be", "as well as"
    (cooking_fields({"mushroom_stew": 1, "beetroot_soup": 1}),
     "Collaborate with the other agents to make mushroom_stew and beetroot_soup.",
     "Mushroom stew as well as beetroot soup are to be made by all of you."),
    # a question, counts after the item
    (cooking_fields({"cake": 1, "pumpkin_pie": 1}),
     "Collaborate with the other agents to make cake and pumpkin_pie.",
     "Could you all bake cake x1 and pumpkin pie x1 for the feast?"),
    # "need", a single, a cooked meat named by its raw word
    (cooking_fields({"cooked_chicken": 1}), "Collaborate with the other agents to make cooked_chicken.",
     "We need a single cooked chicken; cook it together."),
    # "in charge of", several dishes with "&"
    (cooking_fields({"bread": 1, "golden_apple": 1}),
     "Collaborate with the other agents to make bread and golden_apple.",
     "You are both in charge of bread & golden apple."),
]


def _plan(goal) -> tuple:
    return goal.kind, goal.targets, sorted(goal.missing_items), goal.hells_kitchen, goal.partner_dish


@pytest.mark.parametrize("fields,original,reworded", REWORDED, ids=[r[2][:30] for r in REWORDED])
def test_a_reworded_goal_gives_the_plan_of_the_original(fields, original, reworded):
    told = _plan(goal_from_fields(fields, 0, reworded))
    assert told == _plan(goal_from_fields(fields, 0, original)) == _plan(parse_goal(original))
    assert _plan(parse_goal(reworded)) == told  # read from its words alone too (a goal without fields)


def test_the_fields_decide_over_the_words():
    """A crafting task whose target is food: the words say nothing of crafting, the fields do."""
    fields = crafting_fields("bread")
    assert parse_goal("Target: 1 bread.").kind == "cooking"
    assert _plan(goal_from_fields(fields, 0, "Target: 1 bread.")) == ("crafting", {"bread": 1}, [], False, None)
    # and fields name what a goal sentence cannot: a goal that names nothing at all
    assert goal_from_fields(fields, 1, "Do your best, everyone.").targets == {"bread": 1}


def test_the_player_plans_the_same_moves_from_a_reworded_goal():
    inventory = {"oak_planks": 3, "stick": 2, "crafting_table": 1}
    moves = []
    for goal_text in ("Collaborate with the other agents to craft a wooden_pickaxe.",
                      "Everybody: one wooden pickaxe is what we want out of this."):  # no verb the reader knows
        player = Player()
        player.set_task(crafting_fields("wooden_pickaxe"), 0)
        view = PromptView(kind="conversing", name="ann1", goal=goal_text, others=["ben2"], inventory=inventory)
        goal = player.goal(view)
        moves.append(player.plan(goal).work(view, goal)[0].command)
    assert moves == ['!craftRecipe("wooden_pickaxe", 1)'] * 2


HK_FIELDS = {"task_id": "multiagent_cooking_cooked_chicken_beetroot_soup_hells_kitchen", "type": "cooking",
             "agent_count": 2, "target": ["cooked_chicken", "beetroot_soup"], "recipes": {}, "timeout": 300,
             "goal": {"0": "Your plate is cooked chicken.", "1": "Your plate is beetroot soup."},
             "initial_inventory": {"0": {}, "1": {}}}


def test_hells_kitchen_targets_come_per_agent_from_the_target_list():
    for index, (mine, theirs) in enumerate((("cooked_chicken", "beetroot_soup"), ("beetroot_soup", "cooked_chicken"))):
        goal = goal_from_fields(HK_FIELDS, index, "Cook what you are told; trade recipes.")
        assert goal.hells_kitchen and goal.targets == {mine: 1} and goal.partner_dish == theirs
        assert goal.partner_index == 1 - index and goal.my_index == index


def test_a_bowl_nobody_holds_is_made_from_the_kitchen_s_planks():
    """Nobody holds a bowl and the world gives one (the kitchen's oak plank walls, as the solvability check counts
    them): the soup's cook digs three planks and crafts it, asking nobody. A bowl someone holds is asked for."""
    data = {k: v for k, v in HK_FIELDS.items() if k != "task_id"}
    assert unsolvable_reason(Task.from_dict(HK_FIELDS["task_id"], data)) is None
    player = Player()
    player.set_task(HK_FIELDS, 1)
    view = PromptView(kind="conversing", name="jill", goal="Your plate is beetroot soup.", others=["andy"],
                      inventory={"beetroot": 6})
    goal = player.goal(view)
    assert goal.world_made == ["bowl"]
    move, lack = player.plan(goal).work(view, goal)
    assert move is not None and move.command == '!collectBlocks("oak_planks", 3)' and not lack
    view.inventory = {"beetroot": 6, "oak_planks": 3}
    move, _ = player.plan(goal).work(view, goal)
    assert move is not None and move.command == '!craftRecipe("bowl", 1)'

    held = Player()
    held.set_task({**HK_FIELDS, "initial_inventory": {"0": {"bowl": 1}, "1": {}}}, 1)
    view.inventory = {"beetroot": 6}
    goal = held.goal(view)
    assert held.plan(goal).work(view, goal) == (None, {"bowl": 1})


def test_the_oracle_and_the_solvability_check_read_one_kitchen(monkeypatch):
    """The kitchen's walls are one fact of the cooking world (world.KITCHEN_WALL) and the bowl's recipe is
    minecraft-data's: with other walls the check still finds the bowl-less task solvable and the oracle digs those
    walls; one craft makes four bowls, as the recipe says."""
    assert cooking.world_blocks() == {"oak_planks": "oak_planks"}
    assert cooking.world_made() == {"bowl": {"oak_planks": 3}}
    assert cooking.needed("bowl", 2, {}, frozenset({"bowl"})) == {"bowl": 2, "oak_planks": 3}  # one craft: 4 bowls

    monkeypatch.setattr(kitchen, "KITCHEN_WALL", "spruce_planks")
    data = {k: v for k, v in HK_FIELDS.items() if k != "task_id"}
    task = Task.from_dict(HK_FIELDS["task_id"], data)
    assert any(c.endswith(" spruce_planks") for c in plan_setup(task, ["a", "b"], (0, -60, 0)).commands)
    assert unsolvable_reason(task) is None
    assert cooking.world_made() == {"bowl": {"spruce_planks": 3}}
    player = Player()
    player.set_task(HK_FIELDS, 1)
    view = PromptView(kind="conversing", name="jill", goal="Your plate is beetroot soup.", others=["andy"],
                      inventory={"beetroot": 6})
    goal = player.goal(view)
    move, lack = player.plan(goal).work(view, goal)
    assert move is not None and move.command == '!collectBlocks("spruce_planks", 3)' and not lack


def test_the_task_context_reaches_the_oracle_through_a_wrapper():
    oracle = create_model("oracle")
    wrapped = Budget(BudgetLimits()).wrap(oracle)
    assert isinstance(wrapped, BudgetedModel)
    wrapped.set_task_context(crafting_fields("stick", 4), "ann1", 0)
    assert isinstance(oracle, OracleModel) and oracle.player.fields["target"] == "stick"
    assert oracle.player.agent_index == 0
    scene = Scene("ann1", "Make us something nice.", ["ben2"], {"oak_planks": 2}).self_prompt()
    assert command(scene.ask(oracle)) == ("craftRecipe", ["stick", 1])


def test_a_goal_it_cannot_read_is_said_once_and_nothing_waits():
    model = OracleModel()
    scene = Scene("ann1", "Do something impressive with your friends today.", ["ben2"], {"stick": 1}).self_prompt()
    first = scene.ask(model)
    assert "couldn't work out what our goal asks" in first and "Do something impressive" in first
    assert "!" not in first.replace("impressive with your friends today.", "")  # one chat line, no command
    later = [scene.self_prompt().ask(model) for _ in range(4)]
    assert not any("!stay" in r or "make the ," in r or "couldn't" in r for r in later), later
    scene.hear("ben2", "Hi ann1! What are we making?")
    answer = scene.ask(model)
    assert "make the ," not in answer and "!stay" not in answer


# ----- one real episode --------------------------------------------------------------------------------------
MINDPY = Path(sys.executable).with_name("mindpy")


@pytest.mark.slow
def test_a_reworded_hells_kitchen_task_with_no_bowl_succeeds(tmp_path):
    """Hell's Kitchen in our own words, the goals naming no dish as a file would: agent 1's beetroot soup takes a
    bowl nobody holds; it makes one from the kitchen's planks."""
    task_id = "multiagent_cooking_cooked_chicken_beetroot_soup_hells_kitchen"
    chicken = ["Kill a chicken and pick up the raw chicken.", "Cook it in the furnace or the smoker."]
    soup = ["Harvest 6 beetroots.", "Get a bowl.", "At the crafting table, make beetroot soup."]
    task = {**{k: v for k, v in HK_FIELDS.items() if k != "task_id"},
            "conversation": "One dish each, and each of us knows the other's recipe: let's swap them.",
            "recipes": {"cooked_chicken": chicken, "beetroot_soup": soup},
            "blocked_actions": {"0": [], "1": []},
            "goal": {"0": "Your own plate is the poultry one; your partner has its steps. You know theirs:\n"
                          "Recipe for beetroot_soup:\n" + "\n".join(f"Step {i}: {s}" for i, s in enumerate(soup, 1)),
                     "1": "Your own plate is the soup; your partner has its steps. You know theirs:\n"
                          "Recipe for cooked_chicken:\n"
                          + "\n".join(f"Step {i}: {s}" for i, s in enumerate(chicken, 1))}}
    path = tmp_path / "task.json"
    path.write_text(json.dumps({task_id: task}, indent=1))
    run_dir = tmp_path / "run"
    proc = subprocess.run([str(MINDPY), "run", "--task", str(path), "--task-id", task_id, "--run-dir", str(run_dir)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "OPENAI_API_KEY": ""})
    console = (run_dir / "console.log").read_text() if (run_dir / "console.log").exists() else ""
    assert proc.returncode == 0 and proc.stdout.strip().splitlines()[-1] == "score: 1.0", \
        proc.stdout[-1500:] + proc.stderr[-1500:] + console[-3000:]
    assert "!collectBlocks('oak_planks', 3)" in console and "Successfully crafted bowl" in console, console[-3000:]
    calls = [json.loads(line) for p in (run_dir / "calls").glob("*.jsonl") for line in p.open()]
    replies = " ".join(c["reply"] for c in calls)
    assert "bowl" not in " ".join(r for r in replies.split("!startConversation") if "give" in r.lower())
    assert "make the ," not in replies
