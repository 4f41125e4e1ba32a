"""Other people's task files are read task by task: a bad task never blocks the others, old item names are read
as today's, counts that disagree with the inventories or goals are settled, a missing type is inferred; each such
change is a warning naming the file, task and field. `mindpy tasks validate` lists them per file. The tasks here
are written for these tests in the shapes MINDcraft's files use."""

from __future__ import annotations

import json
import random

import pytest

from mindpy.tasks import TaskFileError, check_task, load_task, load_tasks, read_task_file, task_paths
from mindpy.tasks.schema import LEGACY_ITEM_NAMES, NameChecker

NAMES = NameChecker.for_version()

TORCHES = {"type": "techtree", "goal": "Make four torches together.", "agent_count": 2,
           "initial_inventory": {"0": {"coal": 1}, "1": {"stick": 1}}, "target": "torch", "number_of_target": 4,
           "timeout": 120}
SOUP = {"type": "cooking", "goal": {"0": "Cook the soup; your partner knows the recipe.", "1": "Help with the soup."},
        "conversation": "Shall we cook?", "agent_count": 2, "target": {"beetroot_soup": 1},
        "recipes": {"beetroot_soup": ["Step 1: Pick 6 beetroots.", "Step 2: Craft the soup with a bowl."]},
        "initial_inventory": {"0": {"bowl": 1}, "1": {}}, "timeout": 300}
IDLE = {"type": "debug", "goal": "Wait here.", "agent_count": 1}


def _file(tmp_path, tasks: dict, name: str = "tasks.json"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(tasks))
    return path


def _check(data: dict, task_id: str = "t"):
    return check_task(task_id, data, source="mine.json", names=NAMES)


# ----- a bad task never blocks another -----
def test_a_file_is_read_task_by_task(tmp_path):
    path = _file(tmp_path, {"torches": TORCHES, "idle": IDLE, "soup": SOUP,
                            "broken": {**TORCHES, "timeout": -1, "target": None}})
    report = read_task_file(path)
    assert list(report.tasks) == ["torches", "soup"]
    assert report.task_ids == ["torches", "idle", "soup", "broken"]
    assert report.problems == {
        "idle": [f"{path}: task 'idle': field 'type' must be one of techtree, cooking, construction, coblock, "
                 f"orders, defuse, got \"debug\""],
        "broken": [f"{path}: task 'broken': field 'target' is required for techtree tasks",
                   f"{path}: task 'broken': field 'timeout' must be a number of seconds > 0, got -1"]}
    assert report.warnings == {} and not report.ok
    assert report.summary() == f"{path}: 4 tasks, 2 valid, 2 invalid, 0 warnings"
    with pytest.raises(TaskFileError) as err:  # the strict loader still refuses, listing every problem
        load_tasks(path)
    assert err.value.problems == report.all_problems()


def test_load_task_checks_only_the_task_it_is_asked_for(tmp_path):
    path = _file(tmp_path, {"torches": TORCHES, "idle": IDLE, "unhashable": ["not", "a", "task"]})
    assert load_task(path, "torches").targets() == {"torch": 4}
    with pytest.raises(TaskFileError) as err:
        load_task(path, "idle")
    assert str(err.value) == f"{path}: task 'idle': field 'type' must be one of techtree, cooking, construction, " \
                             f"coblock, orders, defuse, got \"debug\""
    with pytest.raises(TaskFileError, match=r"no task 'torchs' \(did you mean 'torches'\?\); the file has 3 tasks"):
        load_task(path, "torchs")
    assert read_task_file(path, only=["torches"]).problems == {}


def test_mindpy_run_names_each_problem_of_the_chosen_task_on_its_own_line(tmp_path, capsys):
    from mindpy.cli import main

    path = _file(tmp_path, {"torches": TORCHES, "bad": {**TORCHES, "timeout": 0, "agent_count": "two"}})
    assert main(["run", "--task", str(path), "--task-id", "bad", "--run-dir", str(tmp_path / "run")]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [f"mindpy: error: {path}: task 'bad': field 'agent_count' must be an integer >= 1, got \"two\"",
                     f"{path}: task 'bad': field 'timeout' must be a number of seconds > 0, got 0"]
    assert not (tmp_path / "run").exists()


def test_a_file_that_is_not_a_task_file_is_one_problem(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"torches": ')
    report = read_task_file(broken)
    assert report.task_ids == [] and len(report.file_problems) == 1 and not report.ok
    assert report.file_problems[0].startswith(f"{broken}: not valid JSON")
    assert report.summary() == f"{broken}: 0 tasks, 0 valid, 0 invalid, 0 warnings (the file could not be read)"
    listed = _file(tmp_path, ["torches"], "list.json")
    assert "a task file must map task ids to tasks" in read_task_file(listed).file_problems[0]


# ----- old names -----
def test_old_item_names_are_read_as_todays_with_a_warning_naming_task_field_and_both_names():
    data = {"type": "cooking", "goal": "Cook.", "agent_count": 2, "target": {"raw_beef": 1, "cooked_beef": 1},
            "number_of_target": {"raw_beef": 1}, "missing_items": ["log"],
            "recipes": {"raw_beef": ["Step 1: Find a cow."]},
            "initial_inventory": {"0": {"rose_red": 1, "red_dye": 2, "wooden_planks": 3}, "1": {"wool": 1}}}
    check = _check(data, "supper")
    task = check.task
    assert check.problems == [] and task is not None
    assert task.inventory_for(0) == {"red_dye": 3, "oak_planks": 3}  # both spellings of one item add up
    assert task.inventory_for(1) == {"white_wool": 1}
    assert task.targets() == {"beef": 1, "cooked_beef": 1} and task.number_of_target == {"beef": 1}
    assert task.missing_items == ["oak_log"] and list(task.recipes) == ["beef"]
    prefix = "mine.json: task 'supper': warning: field "
    assert check.warnings == [
        prefix + "'initial_inventory.0' has the old item name 'rose_red': read as 'red_dye'",
        prefix + "'initial_inventory.0' has the old item name 'wooden_planks': read as 'oak_planks'",
        prefix + "'initial_inventory.1' has the old item name 'wool': read as 'white_wool'",
        prefix + "'target' has the old item name 'raw_beef': read as 'beef'",
        prefix + "'number_of_target' has the old item name 'raw_beef': read as 'beef'",
        prefix + "'missing_items' has the old item name 'log': read as 'oak_log'",
        prefix + "'recipes' has the old item name 'raw_beef': read as 'beef'",
    ]


def test_counts_of_an_old_and_a_new_name_must_add_up_to_at_most_a_full_inventory():
    data = {"type": "cooking", "goal": "Cook.", "agent_count": 1, "target": {"raw_beef": 2000, "beef": 1000},
            "number_of_target": {"raw_beef": 1, "beef": 2},
            "initial_inventory": {"0": {"rose_red": 2000, "red_dye": 2000, "wool": 1}}}
    check = _check(data, "much")
    assert check.task is None and check.problems == [
        "mine.json: task 'much': field 'initial_inventory.0.red_dye' adds up to 4000 under its old and new names; "
        "at most 2304",
        "mine.json: task 'much': field 'target.beef' adds up to 3000 under its old and new names; at most 2304"]
    assert _check({**data, "target": {"raw_beef": 2, "beef": 1}, "initial_inventory": {}}).task.targets() == \
        {"beef": 3}


def test_old_names_in_targets_lists_and_blueprints():
    single = _check({"type": "techtree", "goal": "g", "agent_count": 1, "target": "wooden_slab"})
    assert single.task.targets() == {"oak_slab": 1} and len(single.warnings) == 1
    listed = _check({"type": "cooking", "goal": "g", "agent_count": 2, "target": ["raw_mutton", "bread"]})
    assert listed.task.target == ["mutton", "bread"]
    level = {"level": 0, "coordinates": [0, -60, 0],
             "placement": [["planks", "wooden_slab[type=top]", "air"], ["planks", "stone", "planks"]]}
    house = _check({"type": "construction", "goal": "Build it.", "agent_count": 1,
                    "blueprint": {"materials": {"planks": 3, "wooden_slab": 1, "stone": 1},
                                  "levels": [level, {**level, "level": 1, "coordinates": [0, -59, 0]}]}}, "hut")
    assert house.problems == []
    blueprint = house.task.blueprint
    assert blueprint.materials == {"oak_planks": 3, "oak_slab": 1, "stone": 1}
    assert [list(row) for row in blueprint.levels[1].placement] == [["oak_planks", "oak_slab[type=top]", "air"],
                                                                    ["oak_planks", "stone", "oak_planks"]]
    assert house.warnings == [  # once per field and name, however many cells use it
        "mine.json: task 'hut': warning: field 'blueprint.materials' has the old item name 'planks': read as "
        "'oak_planks'",
        "mine.json: task 'hut': warning: field 'blueprint.materials' has the old item name 'wooden_slab': read as "
        "'oak_slab'",
        "mine.json: task 'hut': warning: field 'blueprint.levels' has the old block name 'planks': read as "
        "'oak_planks'",
        "mine.json: task 'hut': warning: field 'blueprint.levels' has the old block name 'wooden_slab[type=top]': "
        "read as 'oak_slab[type=top]'",
    ]


def test_without_the_name_check_names_are_kept_as_written():
    check = check_task("t", {"type": "techtree", "goal": "g", "agent_count": 1, "target": "red_dye",
                             "initial_inventory": {"0": {"rose_red": 1}}}, names=None)
    assert check.task.inventory_for(0) == {"rose_red": 1} and check.warnings == []


@pytest.mark.parametrize("old, new", sorted(LEGACY_ITEM_NAMES.items()))
def test_every_old_name_has_a_modern_name_in_the_default_version(old, new):
    assert old not in NAMES.items and old not in NAMES.blocks, f"'{old}' is still a name"
    assert new in NAMES.items or new in NAMES.blocks, f"'{new}' is not a {NAMES!r} name"
    assert NAMES.modern_item(old) == (new if new in NAMES.items else None)
    assert NAMES.modern_block(old) == (new if new in NAMES.blocks else None)


# ----- counts, goals, blocked actions -----
def test_inventories_for_more_agents_than_agent_count_raise_it():
    check = _check({**TORCHES, "agent_count": 1}, "torches")
    assert check.problems == [] and check.task.agent_count == 2
    assert check.task.inventory_for(1) == {"stick": 1}
    assert check.warnings == ["mine.json: task 'torches': warning: field 'agent_count' is 1 but 'initial_inventory' "
                              "has an entry for index 1: read as 2 agents"]
    assert check.task.to_dict()["agent_count"] == 2


def test_goals_for_more_agents_raise_the_count_and_humans_count_as_players():
    goals = {"0": "Cook.", "1": "Fetch.", "2": "Carry."}
    check = _check({**SOUP, "goal": goals})
    assert check.task.agent_count == 3 and check.task.goal_for(2) == "Carry."
    assert "field 'agent_count' is 2 but 'goal' has an entry for index 2: read as 3 agents" in check.warnings[0]
    with_human = _check({**TORCHES, "agent_count": 1, "human_count": 1, "usernames": ["sam"]})
    assert with_human.warnings == [] and with_human.task.agent_count == 1  # inventory 1 is the human's


def test_a_goal_mapping_without_some_agents_gives_them_an_empty_goal():
    check = _check({**SOUP, "agent_count": 4}, "soup")
    assert check.problems == [] and check.task.agent_count == 4
    assert check.task.goal_for(0).startswith("Cook") and check.task.goal_for(2) == check.task.goal_for(3) == ""
    assert check.warnings == ["mine.json: task 'soup': warning: field 'goal' has no goal for agents 2, 3: each gets "
                              "an empty goal, as in MINDcraft"]
    one = _check({**SOUP, "agent_count": 3})
    assert one.warnings[0].endswith("field 'goal' has no goal for agent 2: it gets an empty goal, as in MINDcraft")


def test_blocked_actions_of_agents_the_task_lacks_are_ignored():
    data = {**TORCHES, "agent_count": 1, "initial_inventory": {"0": {"coal": 1, "stick": 1}},
            "blocked_actions": {"0": ["!craftRecipe"], "1": [], "3": ["!givePlayer"]}}
    check = _check(data, "torch")
    assert check.problems == [] and check.task.agent_count == 1
    assert check.task.blocked_actions == {"0": ["!craftRecipe"]}
    assert check.warnings == [
        "mine.json: task 'torch': warning: field 'blocked_actions' has key \"1\" but the task has 1 agent: ignored",
        "mine.json: task 'torch': warning: field 'blocked_actions' has key \"3\" but the task has 1 agent: ignored"]


def test_agent_index_problems_name_no_range_while_the_agent_count_is_bad():
    check = _check({**TORCHES, "agent_count": "two", "initial_inventory": {"seven": {}}})
    assert check.problems == ["mine.json: task 't': field 'agent_count' must be an integer >= 1, got \"two\"",
                              "mine.json: task 't': field 'initial_inventory' has key \"seven\": keys must be agent "
                              "indices (0, 1, ...)"]


# ----- types -----
@pytest.mark.parametrize("data, expected, why", [
    ({"goal": "Build.", "blueprint": {"levels": [{"level": 0, "coordinates": [0, -60, 0], "placement": [["stone"]]}]}},
     "construction", "it has a blueprint"),
    ({"goal": "Cook.", "agent_count": 2, "target": {"bread": 1}, "recipes": {"bread": ["Step 1: Bake."]}},
     "cooking", "it has recipes"),
    ({"goal": "Cook.", "agent_count": 2, "target": ["bread", "cookie"]}, "cooking", "its target lists several items"),
    ({"goal": "Cook.", "agent_count": 2, "target": {"bread": 1}, "task_type": "cooking"}, "cooking",
     "its 'task_type' field"),
    ({"goal": "Craft a ladder.", "agent_count": 1, "target": "ladder"}, "techtree", "one target item"),
])
def test_a_missing_type_is_inferred_with_a_warning(data, expected, why):
    check = _check(data, "untyped")
    assert check.problems == [] and check.task.type == expected
    assert len(check.warnings) == 1 and why in check.warnings[0]
    assert check.warnings[0].startswith(f"mine.json: task 'untyped': warning: field 'type' is missing: read as "
                                        f"{expected} (")


# ----- robustness -----
ODD_VALUES = [None, 0, -1, 10**30, 1.5, float("nan"), True, "", "x" * 500, [], [None], [[]], {}, {"0": None},
              {"999999": {}}, {"-1": []}, {"0": {"stick": "many"}}, {"": 1}, {"0": [1]}]


def test_no_value_in_any_field_makes_checking_raise():
    rng = random.Random(7)
    fields = ["type", "goal", "agent_count", "human_count", "usernames", "initial_inventory", "target",
              "number_of_target", "timeout", "blocked_actions", "missing_items", "requires_ctable", "depth", "recipes",
              "blocked_access_to_recipe", "difficulty_metrics", "blueprint", "conversation"]
    for base in (TORCHES, SOUP):
        for fld in fields:
            for value in ODD_VALUES:
                data = {**base, fld: value}
                if rng.random() < 0.5:  # and a second odd field now and then
                    data[rng.choice(fields)] = rng.choice(ODD_VALUES)
                check = check_task("t", data, source="odd.json", names=NAMES)
                assert (check.task is None) == bool(check.problems)
                for line in check.problems + check.warnings:
                    assert "\n" not in line and len(line) < 400, line
                    assert "could not be read (" not in line, line  # every shape has its own message


# ----- the validate command and task paths -----
def test_validate_lists_problems_and_warnings_with_a_summary_per_file(tmp_path, capsys):
    from mindpy.cli import main

    good = _file(tmp_path, {"torches": TORCHES}, "a/good.json")
    mixed = _file(tmp_path, {"torches": {**TORCHES, "agent_count": 1}, "idle": IDLE}, "a/b/mixed.json")
    broken = tmp_path / "a" / "broken.yaml"
    broken.write_text("torches: [unclosed\n")
    assert main(["tasks", "validate", str(tmp_path / "a")]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [
        f"{mixed}: 2 tasks, 1 valid, 1 invalid, 1 warning",
        f"{broken}: 0 tasks, 0 valid, 0 invalid, 0 warnings (the file could not be read)",
        f"{good}: 1 task, 1 valid, 0 invalid, 0 warnings",
        "total: 3 files (1 not read), 3 tasks, 2 valid, 1 invalid, 1 warning, 0 unsolvable"]
    err = captured.err.splitlines()
    assert f"{mixed}: task 'torches': warning: field 'agent_count' is 1 but 'initial_inventory' has an entry for " \
           f"index 1: read as 2 agents" in err
    assert f"{mixed}: task 'idle': field 'type' must be one of techtree, cooking, construction, coblock, orders, " \
           f"defuse, got \"debug\"" in err
    assert any(line.startswith(f"{broken}: not valid YAML") for line in err)

    assert main(["tasks", "validate", str(good), str(tmp_path / "missing.json")]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"{tmp_path / 'missing.json'}: no such task file or folder\n"
    assert main(["tasks", "validate", str(good)]) == 0


def test_task_paths_take_files_folders_and_globs(tmp_path):
    first = _file(tmp_path, {"torches": TORCHES}, "x/first.json")
    second = _file(tmp_path, {"soup": SOUP}, "x/deeper/second.yml")
    (tmp_path / "x" / "notes.txt").write_text("not a task file")
    assert task_paths(first) == [first]
    assert task_paths(tmp_path / "x") == [second, first]  # sorted by path: "deeper/..." before "first.json"
    assert task_paths(str(tmp_path / "x" / "**" / "*.json")) == [first]
    assert task_paths(str(tmp_path / "*")) == [second, first]
    assert task_paths(str(tmp_path / "x" / "**")) == [second, first]  # x and x/deeper both match: each file once
    for missing in (tmp_path / "nope.json", str(tmp_path / "nothing*.json")):
        with pytest.raises(TaskFileError, match="no such task file or folder|no task files match"):
            task_paths(missing)
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskFileError, match="the folder has no task files"):
        task_paths(tmp_path / "empty")


def test_validate_names_a_valid_task_that_cannot_be_solved(tmp_path, capsys):
    from mindpy.cli import main

    nuggets = {"type": "techtree", "goal": "Craft a golden_apple.", "agent_count": 2, "target": "golden_apple",
               "initial_inventory": {"0": {"gold_nugget": 8}, "1": {"apple": 1}}}
    path = _file(tmp_path, {"nuggets": nuggets, "torches": TORCHES}, "short.json")
    assert main(["tasks", "validate", str(path)]) == 0  # valid, only not solvable: not an error of the file
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [f"{path}: 2 tasks, 2 valid, 0 invalid, 0 warnings, 1 unsolvable"]
    assert captured.err.splitlines() == [f"{path}: task 'nuggets': unsolvable: needs 8 more gold_ingot (the team "
                                         f"holds 8 gold_nugget, which cannot make gold_ingot here)"]
