"""Task files: MINDcraft's JSON loads unchanged and round-trips, YAML with the same schema, accessors, and clear
errors naming the file, task id and field. How other people's files are read task by task, with warnings, is in
test_tasks_per_task.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT
from mindpy.tasks import Task, TaskFileError, dumps_tasks, load_task, load_tasks, parse_tasks
from mindpy.tasks.schema import NameChecker

REPO = REPO_ROOT
SHIPPED = sorted((REPO / "tasks").glob("*.json")) + sorted((REPO / "tasks").glob("*.y*ml"))

# Written by hand in MINDcraft's format: a techtree task, a Hell's Kitchen cooking task, a construction task.
MINDCRAFT_FILE = {
    "multiagent_crafting_pink_wool_full_plan__depth_0": {
        "goal": "Collaborate with other agents to craft an pink_wool",
        "conversation": "Let's work together to craft an pink_wool.",
        "initial_inventory": {"0": {"pink_dye": 1}, "1": {"black_wool": 1}},
        "agent_count": 2,
        "target": "pink_wool",
        "number_of_target": 1,
        "type": "techtree",
        "max_depth": 1,
        "depth": 0,
        "timeout": 300,
        "blocked_actions": {"0": [], "1": ["!getCraftingPlan"]},
        "missing_items": [],
        "requires_ctable": False,
    },
    "multiagent_cooking_golden_apple_bread_hells_kitchen": {
        "conversation": "We need to make golden_apple and bread together. Let's exchange recipes!",
        "agent_count": 2,
        "target": ["golden_apple", "bread"],
        "type": "cooking",
        "timeout": 300,
        "recipes": {
            "golden_apple": ["Step 1: Get 1 apple and 8 gold ingots.", "Step 2: Craft the golden apple."],
            "bread": ["Step 1: Collect 3 wheat.", "Step 2: Craft bread."],
        },
        "blocked_access_to_recipe": [],
        "goal": {
            "0": "You need to make golden_apple, but you don't have the recipe for it, your partner has it!",
            "1": "You need to make bread, but you don't have the recipe for it, your partner has it!",
        },
        "task_type": "cooking",
        "difficulty_metrics": {"total_recipe_steps": 4, "max_steps_per_recipe": 2, "unique_target_items": 2,
                               "overall_difficulty_score": 4, "difficulty_category": "medium"},
        "difficulty": "medium",
        "initial_inventory": {"0": {"gold_ingot": 4, "apple": 1}, "1": {"gold_ingot": 4}},
    },
    "church": {
        "type": "construction",
        "goal": "Make a structure with the blueprint below",
        "conversation": "Let's share materials and make a structure with the blueprint",
        "agent_count": 1,
        "human_count": 1,
        "usernames": ["alice"],
        "timeout": 600,
        "blueprint": {
            "materials": {"oak_planks": 3, "oak_door": 1},
            "levels": [
                {"level": 0, "coordinates": [-18, -60, 29], "placement": [["oak_planks", "oak_planks"],
                                                                          ["oak_planks", "air"]]},
                {"level": 1, "coordinates": [-18, -59, 29], "placement": [["oak_door", "air"], ["air", "air"]]},
                {"level": 2, "coordinates": [-18, -58, 29], "placement": [["oak_door", "air"], ["air", "air"]]},
            ],
        },
        "initial_inventory": {"0": {"oak_planks": 3}, "1": {"oak_door": 1}},
    },
}


@pytest.fixture
def mindcraft_path(tmp_path) -> Path:
    path = tmp_path / "mindcraft_tasks.json"
    path.write_text(json.dumps(MINDCRAFT_FILE, indent=4))
    return path


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_task_file_validates(path):
    tasks = load_tasks(path)
    assert tasks, f"{path} has no tasks"
    for task in tasks.values():
        assert task.type in ("techtree", "cooking", "construction", "coblock", "orders", "defuse")


def test_shipped_files_include_the_test_splits_and_examples():
    names = {p.name for p in SHIPPED}
    assert {"crafting_test.json", "cooking_test.json", "construction_test.json", "example_tasks.json"} <= names


def test_mindcraft_file_loads_with_typed_accessors(mindcraft_path):
    tasks = load_tasks(mindcraft_path)
    assert list(tasks) == list(MINDCRAFT_FILE)

    craft = tasks["multiagent_crafting_pink_wool_full_plan__depth_0"]
    assert craft.type == "techtree" and craft.agent_count == 2
    assert craft.goal_for(0) == craft.goal_for(1) == "Collaborate with other agents to craft an pink_wool"
    assert craft.targets() == {"pink_wool": 1}
    assert craft.inventory_for(0) == {"pink_dye": 1} and craft.inventory_for(1) == {"black_wool": 1}
    assert craft.blocked_actions_for(0) == [] and craft.blocked_actions_for(1) == ["!getCraftingPlan"]
    assert craft.requires_crafting_table is False and craft.depth == 0 and craft.max_depth == 1
    assert craft.timeout == 300 and not craft.is_hells_kitchen

    cook = tasks["multiagent_cooking_golden_apple_bread_hells_kitchen"]
    assert cook.is_hells_kitchen
    assert cook.targets() == {"golden_apple": 1, "bread": 1}
    assert cook.targets_for(0) == {"golden_apple": 1} and cook.targets_for(1) == {"bread": 1}
    assert "bread" in cook.goal_for(1) and cook.goal_for(0) != cook.goal_for(1)
    assert cook.recipes["bread"] == ["Step 1: Collect 3 wheat.", "Step 2: Craft bread."]
    assert cook.difficulty_metrics["difficulty_category"] == "medium"
    assert cook.extra == {"task_type": "cooking", "difficulty": "medium"}
    assert cook.blocked_actions_for(0) == []  # absent: nothing blocked

    church = tasks["church"]
    assert church.agent_count == 1 and church.human_count == 1 and church.usernames == ["alice"]
    assert church.timeout == 600 and church.targets() == {}
    assert church.inventory_for(1) == {"oak_door": 1}
    assert len(church.blueprint.levels) == 3 and church.blueprint.size == (2, 3, 2)
    assert church.blueprint.required_items() == {"oak_door": 1, "oak_planks": 3}


def test_mindcraft_file_round_trips_unchanged(mindcraft_path, tmp_path):
    tasks = load_tasks(mindcraft_path)
    assert {tid: t.to_dict() for tid, t in tasks.items()} == MINDCRAFT_FILE
    for tid, task in tasks.items():  # key order too, so diffs against the original stay empty
        assert list(task.to_dict()) == list(MINDCRAFT_FILE[tid])
    again = tmp_path / "again.json"
    again.write_text(dumps_tasks(tasks))
    assert json.loads(again.read_text()) == MINDCRAFT_FILE
    assert load_tasks(again) == tasks


def test_yaml_with_the_same_schema_loads_the_same_tasks(mindcraft_path, tmp_path):
    text = yaml.safe_dump(MINDCRAFT_FILE, sort_keys=False)
    # YAML writers and people leave agent keys unquoted: 0: instead of "0":
    text = text.replace("'0':", "0:").replace("'1':", "1:")
    assert "\n    0:" in text
    path = tmp_path / "tasks.yaml"
    path.write_text(text)
    from_yaml = load_tasks(path)
    from_json = load_tasks(mindcraft_path)
    for tid in MINDCRAFT_FILE:
        assert from_yaml[tid].to_dict() == from_json[tid].to_dict()
        assert from_yaml[tid].inventory_for(1) == from_json[tid].inventory_for(1)
    assert dumps_tasks(from_yaml, "yaml") and yaml.safe_load(dumps_tasks(from_yaml, "yaml")) == MINDCRAFT_FILE


def test_target_shapes_and_counts():
    def task(**fields) -> Task:
        base = {"type": "techtree", "goal": "g", "agent_count": 1, "target": "stick"}
        return Task.from_dict("t", {**base, **fields})

    assert task().targets() == {"stick": 1}
    assert task(number_of_target=4).targets() == {"stick": 4}
    assert task(target=["stick", "torch"], number_of_target=2).targets() == {"stick": 2, "torch": 2}
    assert task(target=["stick", "torch"], number_of_target={"torch": 3}).targets() == {"stick": 1, "torch": 3}
    assert task(target={"stick": 5, "torch": 1}).targets() == {"stick": 5, "torch": 1}
    assert task(requires_crafting_table=True).to_dict()["requires_crafting_table"] is True
    assert "requires_ctable" not in task(requires_crafting_table=True).to_dict()


def test_single_agent_flat_inventory_and_inferred_agent_count():
    data = {"type": "techtree", "goal": "Build a stone pickaxe", "target": "stone_pickaxe",
            "initial_inventory": {"wooden_pickaxe": 1}}
    task = Task.from_dict("multiagent_techtree_1_stone_pickaxe", data)
    assert task.agent_count == 1 and task.inventory_for(0) == {"wooden_pickaxe": 1}
    assert task.inventory_for(1) == {}
    assert task.to_dict() == data


def test_shared_blocked_actions_list_applies_to_every_agent():
    task = Task.from_dict("t", {"type": "cooking", "goal": "g", "agent_count": 3, "target": {"bread": 1},
                                "blocked_actions": ["!collectBlocks"], "blocked_access_to_recipe": ["2"]})
    assert [task.blocked_actions_for(i) for i in range(3)] == [["!collectBlocks"]] * 3
    assert task.has_recipe_access(0) and not task.has_recipe_access(2)


def _problems(data: dict, source: str = "tasks/x.json") -> list[str]:
    with pytest.raises(TaskFileError) as err:
        parse_tasks(data, source=source, names=NameChecker.for_version())
    return err.value.problems


def test_bad_agent_count_names_file_task_and_field():
    data = copy.deepcopy(MINDCRAFT_FILE)
    data["multiagent_crafting_pink_wool_full_plan__depth_0"]["agent_count"] = "two"
    assert _problems(data) == [
        "tasks/x.json: task 'multiagent_crafting_pink_wool_full_plan__depth_0': field 'agent_count' must be an "
        "integer >= 1, got \"two\""]


def test_unknown_items_are_errors_with_did_you_mean():
    data = copy.deepcopy(MINDCRAFT_FILE)
    task = data["multiagent_crafting_pink_wool_full_plan__depth_0"]
    task["initial_inventory"]["1"]["oak_plank"] = 2
    task["initial_inventory"]["0"]["pinkdye"] = 1
    task["target"] = "pink_wol"
    problems = _problems(data)
    prefix = "tasks/x.json: task 'multiagent_crafting_pink_wool_full_plan__depth_0': field "
    assert prefix + "'initial_inventory.1' has unknown item 'oak_plank' (did you mean 'oak_planks'?)" in problems
    assert prefix + "'initial_inventory.0' has unknown item 'pinkdye' (did you mean 'pink_dye'?)" in problems
    assert prefix + "'target' has unknown item 'pink_wol' (did you mean 'pink_wool'?)" in problems
    assert len(problems) == 3
    # without the name check the same file loads
    assert parse_tasks(data, names=None)


def test_every_problem_of_every_task_is_reported_at_once():
    data = copy.deepcopy(MINDCRAFT_FILE)
    data["multiagent_cooking_golden_apple_bread_hells_kitchen"]["goal"] = {"0": "only agent 0", "1": 7}
    data["multiagent_cooking_golden_apple_bread_hells_kitchen"]["timeout"] = -5
    data["church"]["type"] = "building"
    data["church"]["blueprint"]["levels"][1]["coordinates"] = [0, 0]
    problems = _problems(data)
    assert ("tasks/x.json: task 'multiagent_cooking_golden_apple_bread_hells_kitchen': field 'goal.1' must be a "
            "string, got 7") in problems
    assert ("tasks/x.json: task 'multiagent_cooking_golden_apple_bread_hells_kitchen': field 'timeout' must be a "
            "number of seconds > 0, got -5") in problems
    assert ("tasks/x.json: task 'church': field 'type' must be one of techtree, cooking, construction, coblock, "
            "orders, defuse, got \"building\"") in problems
    assert any(p.startswith("tasks/x.json: task 'church': field 'blueprint.levels[1].coordinates' must be three")
               for p in problems)
    assert len(problems) == 4


@pytest.mark.parametrize("change, field, words", [
    ({"type": "debug"}, "type", "must be one of techtree, cooking, construction, coblock"),
    ({"goal": None}, "goal", "is required"),
    ({"goal": 5}, "goal", "must be a string or a mapping"),
    ({"initial_inventory": {"0": {"pink_dye": -1}}}, "initial_inventory.0.pink_dye", "must be an integer >= 0"),
    ({"initial_inventory": {"seven": {"pink_dye": 1}}}, "initial_inventory", "keys must be agent indices 0..1"),
    ({"blocked_actions": {"first": []}}, "blocked_actions", "keys must be agent indices 0..1"),
    ({"blocked_actions": {"0": ["getCraftingPlan"]}}, "blocked_actions.0", "command names start with '!'"),
    ({"requires_ctable": "yes"}, "requires_ctable", "must be true or false"),
    ({"depth": -1}, "depth", "must be an integer >= 0"),
    ({"number_of_target": 0}, "number_of_target", "must be an integer >= 1"),
    ({"target": None}, "target", "is required for techtree tasks"),
    ({"target": []}, "target", "must be a non-empty list"),
    ({"missing_items": "oak_log"}, "missing_items", "must be a list of item names"),
    ({"recipes": {"pink_wool": "craft it"}}, "recipes.pink_wool", "must be a list of step strings"),
    ({"blocked_access_to_recipe": ["9"]}, "blocked_access_to_recipe", "entries must be agent indices"),
    ({"usernames": "bob"}, "usernames", "must be a list of player names"),
])
def test_each_field_is_checked(change, field, words):
    data = copy.deepcopy(MINDCRAFT_FILE["multiagent_crafting_pink_wool_full_plan__depth_0"])
    for key, value in change.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    problems = _problems({"the_task": data})
    assert any(p.startswith(f"tasks/x.json: task 'the_task': field '{field}' ") and words in p for p in problems), \
        problems


def test_construction_needs_a_blueprint():
    problems = _problems({"house": {"type": "construction", "goal": "build", "agent_count": 2}})
    assert problems == ["tasks/x.json: task 'house': field 'blueprint' is required for construction tasks"]


def test_file_level_errors(tmp_path):
    bad_json = tmp_path / "broken.json"
    bad_json.write_text('{"a": {"type": "techtree",}}')
    with pytest.raises(TaskFileError, match=r"broken\.json: not valid JSON at line 1"):
        load_tasks(bad_json)
    bad_yaml = tmp_path / "broken.yaml"
    bad_yaml.write_text("a: [1, 2\nb: 3\n")
    with pytest.raises(TaskFileError, match=r"broken\.yaml: not valid YAML at line"):
        load_tasks(bad_yaml)
    not_mapping = tmp_path / "list.json"
    not_mapping.write_text("[1, 2]")
    with pytest.raises(TaskFileError, match=r"list\.json: a task file must map task ids to tasks"):
        load_tasks(not_mapping)
    with pytest.raises(TaskFileError, match="no such task file"):
        load_tasks(tmp_path / "nope.json")


def test_load_task_by_id(mindcraft_path):
    assert load_task(mindcraft_path, "church").type == "construction"
    with pytest.raises(TaskFileError, match="no task 'chruch' \\(did you mean 'church'\\?\\)"):
        load_task(mindcraft_path, "chruch")


def test_cli_show_and_validate(mindcraft_path, capsys):
    from mindpy.cli import main

    assert main(["tasks", "show", str(mindcraft_path)]) == 0
    out = capsys.readouterr().out
    assert "3 tasks (1 construction, 1 cooking, 1 techtree)" in out and "church" in out

    assert main(["tasks", "show", str(mindcraft_path), "multiagent_cooking_golden_apple_bread_hells_kitchen"]) == 0
    out = capsys.readouterr().out
    assert "cooking (Hell's Kitchen); 2 agents; timeout 300 s" in out
    assert "agent 1:" in out and "must make: bread x1" in out and "inventory: gold_ingot x4, apple x1" in out

    assert main(["tasks", "show", str(mindcraft_path), "church"]) == 0
    out = capsys.readouterr().out
    assert "1 agent + 1 human" in out and "blueprint: 3 levels (y -60 to -58), 2 x 2 blocks" in out
    assert "human players: alice" in out

    assert main(["tasks", "show", str(mindcraft_path), "nope"]) == 2
    assert "no task 'nope'" in capsys.readouterr().err

    assert main(["tasks", "validate", str(mindcraft_path)]) == 0
    assert capsys.readouterr().out == f"{mindcraft_path}: 3 tasks, 3 valid, 0 invalid, 0 warnings\n"
    broken = mindcraft_path.with_name("bad.json")
    broken.write_text(json.dumps({"t": {"type": "techtree", "goal": "g", "agent_count": 0, "target": "stick"}}))
    assert main(["tasks", "validate", str(broken)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"{broken}: task 't': field 'agent_count' must be an integer >= 1, got 0\n"
    assert captured.out == f"{broken}: 1 task, 0 valid, 1 invalid, 0 warnings\n"
