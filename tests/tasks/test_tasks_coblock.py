"""CoBlock tasks (type coblock): the committed test split keeps each type's promise when read back from the file,
the private goals together are the structure G, the task format is validated task by task, solvability, `tasks
show`, and which coblock tasks can be played (playing them: test_coblock_play.py and test_tasks_world.py)."""

from __future__ import annotations

import copy
import json
import re
from collections import Counter

import pytest

from mindpy.cli import main
from mindpy.tasks import Task, check_task, load_tasks
from mindpy.tasks.blueprint import block_base_name
from mindpy.tasks.checkers import checker_for
from mindpy.tasks.families.coblock import generator as cb
from mindpy.tasks.families.coblock.fields import CoblockFields
from mindpy.tasks.family import family_named
from mindpy.tasks.schema import NameChecker, unplayable_reason
from mindpy.tasks.solvable import unsolvable_reason
from mindpy.tasks.splits import committed, generate, generated_families
from mindpy.tasks.world import WorldSetupError, plan_setup

COBLOCK_FILE = committed("coblock")


@pytest.fixture(scope="module")
def raw_split() -> dict:
    return json.loads(COBLOCK_FILE.read_text())


@pytest.fixture(scope="module")
def split() -> dict[str, Task]:
    return load_tasks(COBLOCK_FILE)


def site_goals(task: Task) -> tuple[dict, dict]:
    """The two private goals as the generator's structures: site coordinates, ground layer y = 0."""
    ox, oy, oz = cb.ORIGIN
    goals = tuple({(x - ox, y - oy, z - oz): block for x, y, z, block in task.fields.private_goals[str(i)]} for i in (0, 1))
    return goals[0], goals[1]


def parts(task: Task) -> tuple[dict, dict, dict, dict]:
    """(goal_a, goal_b, inventory_a, inventory_b), as the generator's predicates take them."""
    goal_a, goal_b = site_goals(task)
    return goal_a, goal_b, task.inventory_for(0), task.inventory_for(1)


def blueprint_blocks(task: Task) -> dict[tuple[int, int, int], str]:
    return {(c.x, c.y, c.z): block_base_name(c.block) for c in task.blueprint.cells(include_air=False)}


def of_type(tasks: dict[str, Task], kind: str) -> list[Task]:
    return [t for t in tasks.values() if t.fields.coblock_type == kind]


# ----- the committed test split -----
def test_the_family_is_registered_with_its_sizes():
    assert "coblock" in generated_families() and COBLOCK_FILE.name == "coblock_test.json"
    assert family_named("coblock").split_sizes == {"train": 300, "test": 24}


def test_the_test_split_has_eight_tasks_of_each_type(split):
    assert len(split) == 24
    assert Counter(t.fields.coblock_type for t in split.values()) == {kind: 8 for kind in cb.TASK_TYPES}
    for task in split.values():
        assert task.type == "coblock" and task.agent_count == 2 and task.timeout == 600
        assert re.fullmatch(rf"coblock_{task.fields.coblock_type}_\d+", task.id)
        assert unplayable_reason(task) is None


def test_skill_dependent_tasks_lack_a_colour_their_own_goal_needs(split):
    for task in of_type(split, "skill_dependent"):
        goal_a, goal_b, inv_a, inv_b = parts(task)
        assert cb.is_skill_dependent(goal_a, goal_b, inv_a, inv_b), task.id
        assert not cb.is_goal_dependent(goal_a, goal_b, inv_a, inv_b), task.id  # each goal stands by itself
        # spelled out: some agent has none of a colour its own goal takes, and the partner holds enough of it
        lacking = [(i, colour) for i, (goal, own, partner) in enumerate(((goal_a, inv_a, inv_b), (goal_b, inv_b, inv_a)))
                   for colour, n in Counter(goal.values()).items() if own.get(colour, 0) == 0 and partner.get(colour, 0) >= n]
        assert lacking, task.id


def test_goal_dependent_tasks_have_a_block_only_the_partners_goal_holds_up(split):
    for task in of_type(split, "goal_dependent"):
        goal_a, goal_b, inv_a, inv_b = parts(task)
        assert cb.is_goal_dependent(goal_a, goal_b, inv_a, inv_b), task.id
        # spelled out: the whole structure can be built, one goal alone cannot (a block of it reaches the ground
        # only through the partner's blocks)
        assert cb.placement_order([*goal_a, *goal_b]) is not None, task.id
        assert cb.placement_order(goal_a) is None or cb.placement_order(goal_b) is None, task.id


def test_independent_tasks_are_independent(split):
    for task in of_type(split, "independent"):
        goal_a, goal_b, inv_a, inv_b = parts(task)
        assert cb.is_independent(goal_a, goal_b, inv_a, inv_b), task.id
        assert not cb.is_skill_dependent(goal_a, goal_b, inv_a, inv_b), task.id
        assert set(inv_a) == set(goal_a.values()) and set(inv_b) == set(goal_b.values()), task.id


def test_the_private_goals_partition_the_blueprint(split):
    for task in split.values():
        a, b = ([(x, y, z, block) for x, y, z, block in task.fields.private_goals[str(i)]] for i in (0, 1))
        assert a and b and not {p[:3] for p in a} & {p[:3] for p in b}, task.id
        assert {p[:3]: p[3] for p in a + b} == blueprint_blocks(task), task.id
        assert len(a) + len(b) == len(blueprint_blocks(task))
        # bottom up, on the ground at y = -60, inside the site away from the construction sites
        for goal in (a, b):
            assert [p[1] for p in goal] == sorted(p[1] for p in goal)
        assert min(p[1] for p in a + b) == -60 == task.blueprint.levels[0].coordinates[1]
        assert all(100 <= p[0] < 110 and -100 <= p[2] < -90 for p in a + b)
        # together the inventories hold the structure's colours, each agent 20 of a colour or all it takes
        takes = Counter(blueprint_blocks(task).values())
        assert set(task.inventory_for(0)) | set(task.inventory_for(1)) == set(takes)
        assert all(n == max(20, takes[c]) for i in (0, 1) for c, n in task.inventory_for(i).items())
        assert task.fields.complexity == round(cb.complexity(set(site_goals(task)[0]) | set(site_goals(task)[1])), 2)


def test_the_goal_texts_are_private(split):
    for task in split.values():
        for i in (0, 1):
            text, own, other = task.goal_for(i), task.fields.private_goals[str(i)], task.fields.private_goals[str(1 - i)]
            assert all(f"{block} at ({x}, {y}, {z})" in text for x, y, z, block in own), task.id
            assert not any(f"({x}, {y}, {z})" in text for x, y, z, _ in other), task.id
            assert f"exactly these {len(own)} blocks" in text
            held = [f"{n} {colour}" for colour, n in task.inventory_for(i).items()]
            assert all(h in text.rsplit("You hold", 1)[1] for h in held), task.id


def test_tasks_round_trip_to_the_same_dictionaries(split, raw_split):
    assert {tid: t.to_dict() for tid, t in split.items()} == raw_split
    assert all(list(split[tid].to_dict()) == list(raw_split[tid]) for tid in raw_split)  # key order too
    first = raw_split["coblock_independent_0"]
    assert list(first) == ["type", "coblock_type", "agent_count", "goal", "blueprint", "private_goals",
                           "initial_inventory", "complexity", "timeout"]


def test_the_three_types_of_a_number_share_one_structure(split):
    for k in range(8):
        prints = {split[f"coblock_{kind}_{k}"].blueprint.fingerprint() for kind in cb.TASK_TYPES}
        assert len(prints) == 1


def test_generation_is_deterministic_and_cycles_the_types():
    one = cb.generate("train", 5, 7)
    assert one == cb.generate("train", 5, 7)
    assert list(one) == ["coblock_independent_0", "coblock_skill_dependent_0", "coblock_goal_dependent_0",
                         "coblock_independent_1", "coblock_skill_dependent_1", "coblock_goal_dependent_1",
                         "coblock_independent_2"]
    assert list(cb.generate("train", 5, 9).items())[:7] == list(one.items())  # a longer split starts the same
    assert cb.generate("train", 6, 7) != one
    with pytest.raises(ValueError, match="for 2 agents"):
        cb.generate("test", 1, 3, agents="2-5")


def test_the_train_split_validates_and_is_solvable():
    tasks = generate("coblock", "train", count=30)  # the names are checked too
    assert len(tasks) == 30
    assert all(unsolvable_reason(t) is None for t in tasks.values())


# ----- validation, task by task -----
def _good(raw_split) -> dict:
    return copy.deepcopy(raw_split["coblock_goal_dependent_0"])


def _problems(data: dict) -> list[str]:
    check = check_task("t", data, source="f.json", names=NameChecker.for_version())
    assert (check.task is None) == bool(check.problems)
    return check.problems


def _move_first_block(data: dict, dx: int) -> dict:
    x, y, z, block = data["private_goals"]["0"][0]
    data["private_goals"]["0"][0] = [x + dx, y, z, block]
    return data


def _air_at(data: dict) -> tuple[int, int, int]:
    """A position of the site where the blueprint has air, on the ground layer."""
    level = data["blueprint"]["levels"][0]
    x0, y0, z0 = level["coordinates"]
    for r, row in enumerate(level["placement"]):
        for c, block in enumerate(row):
            if block == "air":
                return x0 + c, y0, z0 + r
    raise AssertionError("no air")


@pytest.mark.parametrize("breakage, field, words", [
    (lambda d: d.update(coblock_type="cooperative"), "coblock_type",
     "must be one of independent, skill_dependent, goal_dependent, got \"cooperative\""),
    (lambda d: d.pop("coblock_type"), "coblock_type", "must be one of independent, skill_dependent, goal_dependent"),
    (lambda d: d.pop("blueprint"), "blueprint", "is required for coblock tasks"),
    (lambda d: d.pop("private_goals"), "private_goals", "is required for coblock tasks"),
    (lambda d: d["private_goals"].pop("1"), "private_goals", "has no goal for player 1"),
    (lambda d: d["private_goals"].update({"2": []}), "private_goals", "has key \"2\": keys must be agent indices 0..1"),
    (lambda d: d["private_goals"]["0"].append([1, 2, "red_wool"]), "private_goals.0[",
     "must be [x, y, z, block] (three integers and a block name)"),
    (lambda d: d["private_goals"]["0"].__setitem__(0, [*d["private_goals"]["0"][0][:3], "red_wol"]), "private_goals.0[0]",
     "has unknown block 'red_wol' (did you mean 'red_wool'?)"),
    (lambda d: d["private_goals"]["0"].__setitem__(0, [100, -70, -100, "red_wool"]), "private_goals.0[0]",
     "must lie inside the world"),
    (lambda d: d["private_goals"]["1"].append(list(d["private_goals"]["0"][0])), "private_goals.1[",
     "that private_goals.0 already has: the goals must not overlap"),
    (lambda d: d["private_goals"]["0"].pop(), "private_goals", "leaves out 1 block of the blueprint"),
    (lambda d: d.update(complexity="high"), "complexity", "must be a number >= 0"),
    (lambda d: d.update(agent_count=3), "agent_count", "must add up to 2 players in coblock tasks"),
])
def test_each_broken_field_is_a_problem_of_its_task(raw_split, breakage, field, words):
    data = _good(raw_split)
    assert _problems(data) == []
    breakage(data)
    problems = _problems(data)
    assert any(p.startswith(f"f.json: task 't': field '{field}") and words in p for p in problems), problems


def test_a_goal_block_where_the_blueprint_has_another_block_or_air(raw_split):
    data = _good(raw_split)
    x, y, z = _air_at(data)
    moved = data["private_goals"]["0"][0]
    data["private_goals"]["0"][0] = [x, y, z, moved[3]]
    problems = _problems(data)
    assert f"f.json: task 't': field 'private_goals.0[0]' has {moved[3]} at ({x}, {y}, {z}) but the blueprint has " \
           f"air there: the private goals together must be the blueprint's blocks" in problems
    assert any("field 'private_goals' leaves out 1 block of the blueprint (the first: " in p for p in problems)
    data = _good(raw_split)
    x, y, z, block = data["private_goals"]["1"][0]
    other = "red_wool" if block != "red_wool" else "blue_wool"
    data["private_goals"]["1"][0] = [x, y, z, other]
    assert _problems(data) == [f"f.json: task 't': field 'private_goals.1[0]' has {other} at ({x}, {y}, {z}) but the "
                               f"blueprint has {block} there: the private goals together must be the blueprint's blocks"]


def test_validate_reports_each_broken_task_and_exits_non_zero(raw_split, tmp_path, capsys):
    tasks = {"good": _good(raw_split), "off_blueprint": _move_first_block(_good(raw_split), 40),
             "odd_type": {**_good(raw_split), "coblock_type": "telepathic"}}
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(tasks))
    assert main(["tasks", "validate", str(path)]) == 1
    out = capsys.readouterr()
    errors = out.err.splitlines()
    assert any(line.startswith(f"{path}: task 'off_blueprint': field 'private_goals.0[0]' has ")
               and "but the blueprint has air there" in line for line in errors), errors
    assert any(line.startswith(f"{path}: task 'off_blueprint': field 'private_goals' leaves out 1 block")
               for line in errors), errors
    assert (f"{path}: task 'odd_type': field 'coblock_type' must be one of independent, skill_dependent, "
            f"goal_dependent, got \"telepathic\"") in errors
    assert not any("task 'good'" in line for line in errors)
    assert f"{path}: 3 tasks, 1 valid, 2 invalid, 0 warnings" in out.out


def test_committed_file_validates(capsys):
    assert main(["tasks", "validate", str(COBLOCK_FILE)]) == 0
    assert f"{COBLOCK_FILE}: 24 tasks, 24 valid, 0 invalid, 0 warnings" in capsys.readouterr().out


def test_a_task_without_a_type_is_still_read_as_before(raw_split):
    """Type inference is unchanged: a blueprint makes it construction, and the coblock fields stay as extras."""
    data = _good(raw_split)
    del data["type"]
    check = check_task("t", data, source="f.json")
    assert check.task is not None and check.task.type == "construction"
    assert check.warnings == ["f.json: task 't': warning: field 'type' is missing: read as construction (it has a "
                              "blueprint)"]
    assert check.task.fields is None  # a construction task has no fields of its own
    assert set(check.task.extra) == {"coblock_type", "private_goals", "complexity"}
    assert check.task.to_dict() == {**data, "type": "construction"}  # the type read is written out, as before
    assert check_task("t", {**data, "task_type": "coblock"}).task.type == "construction"


def test_coblock_fields_of_other_tasks_are_kept_as_they_are(raw_split):
    data = {"type": "techtree", "goal": "Craft a stick.", "agent_count": 1, "target": "stick",
            "initial_inventory": {"0": {"oak_planks": 2}}, "complexity": "anything", "coblock_type": 7}
    task = check_task("t", data).task
    assert task is not None and task.extra == {"complexity": "anything", "coblock_type": 7}
    assert task.fields is None and task.to_dict() == data


# ----- solvable -----
def test_committed_tasks_are_solvable_and_short_inventories_are_not(split, raw_split):
    assert all(unsolvable_reason(t) is None for t in split.values())
    data = _good(raw_split)
    takes = Counter(blueprint_blocks(Task.from_dict("t", data)).values())
    colour = sorted(takes)[0]
    for inventory in data["initial_inventory"].values():  # one block of `colour` short, between them
        inventory.pop(colour, None)
    data["initial_inventory"]["0"][colour] = takes[colour] - 1
    task = Task.from_dict("t", data)
    assert unsolvable_reason(task) == f"needs 1 more {colour}"
    data["initial_inventory"] = {"0": {}, "1": {}}
    wanted = Counter(blueprint_blocks(Task.from_dict("t", data)).values())
    reason = unsolvable_reason(Task.from_dict("t", data))
    assert reason.startswith("needs ") and all(f"{n} more {c}" in reason for c, n in wanted.items())


def test_a_partner_can_make_up_for_a_short_inventory(raw_split):
    data = _good(raw_split)
    inv_a, inv_b = data["initial_inventory"]["0"], data["initial_inventory"]["1"]
    colour = sorted(inv_a)[0]
    inv_b[colour] = inv_b.get(colour, 0) + inv_a.pop(colour)  # all of it with the partner: still solvable
    assert unsolvable_reason(Task.from_dict("t", data)) is None


# ----- show -----
def test_show_gives_type_complexity_goal_sizes_and_inventories(split, capsys):
    task = split["coblock_skill_dependent_1"]
    assert main(["tasks", "show", str(COBLOCK_FILE), task.id]) == 0
    text = capsys.readouterr().out
    sizes = [len(task.fields.private_goals[str(i)]) for i in (0, 1)]
    assert (f"coblock: skill_dependent; complexity {task.fields.complexity:g}; private goals of {sizes[0]} + {sizes[1]} = "
            f"{sum(sizes)} blocks\n") in text
    for i in (0, 1):
        items = ", ".join(f"{name} x{n}" for name, n in task.inventory_for(i).items())
        assert f"  agent {i}:\n    inventory: {items}\n    private goal: {sizes[i]} blocks (" in text
    assert main(["tasks", "show", str(COBLOCK_FILE)]) == 0
    listing = capsys.readouterr().out
    assert "24 tasks (24 coblock)" in listing
    assert re.search(r"coblock_goal_dependent_7 +coblock +2 agents +goal_dependent; complexity [\d.]+; private goals",
                     listing)


# ----- playable -----
def test_world_and_checker_take_the_committed_tasks(split):
    from mindpy.tasks.families.coblock.checker import CoblockChecker
    from mindpy.tasks.families.coblock.site import structure_cells

    for task in split.values():
        setup = plan_setup(task, ["andy", "jill"], (0, -60, 0))
        assert all(setup.expected_blocks[cell] == "air" for cell in structure_cells(task)), task.id
        assert set(setup.inventories) == {"andy", "jill"} and isinstance(checker_for(task), CoblockChecker)


def test_a_coblock_task_without_a_structure_is_refused_with_one_line(tmp_path):
    from mindpy.errors import ConfigError
    from mindpy.harness.episode import run_episode

    task = Task(id="empty", type="coblock", agent_count=2, goal="Build.", fields=CoblockFields("independent"))
    reason = "a coblock task needs its structure (a blueprint or private goals): there is nothing to build"
    assert unplayable_reason(task) == reason
    with pytest.raises(ConfigError, match=re.escape(f"task 'empty': {reason}")):
        run_episode(task, tmp_path / "run")
    assert not (tmp_path / "run").exists()
    with pytest.raises(WorldSetupError, match="there is nothing to build"):
        plan_setup(task, ["andy", "jill"], (0, -60, 0))
    with pytest.raises(ValueError, match="there is nothing to build"):
        checker_for(task)
