"""Orders tasks: every dish can be made in the cooking world, the generator is deterministic and its splits are
what the committed file and hashes say, the tasks' fields follow the levels, and the CLI reads the test split."""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from pathlib import Path

import pytest

from mindpy.mcdata import minecraft_data, smelting_table
from mindpy.recipes import recipe_book
from mindpy.tasks import dumps_tasks, load_tasks
from mindpy.tasks.families.orders.book import (
    ALPHAS,
    DISHES,
    FARM_YIELDS,
    LEVELS,
    PASTURE_YIELDS,
    OrderStream,
    given_for,
)
from mindpy.tasks.families.orders.generator import AGENT_COUNTS, EPISODE_STEPS
from mindpy.tasks.families.orders.generator import generate as generate_raw
from mindpy.tasks.schema import Task, check_task, unplayable_reason
from mindpy.tasks.solvable import unsolvable_reason
from mindpy.tasks.splits import committed, generate, sha256_of, split_size

# sha256 of `mindpy tasks generate orders --split train` (default seed and size); a change means the data changed.
TRAIN_SHA256 = "9034a15e886a5535707560b8709c7e7961b48add109613bcc0c334b1ad0ba9ac"
TEST_SHA256 = "387fee0e2d26ec276066966d9ccae6022b874a23179cd622d9c863b5247b67df"
INVENTORY_SLOTS = 36


@pytest.fixture(scope="module")
def test_split():
    return load_tasks(committed("orders"))


def _cooking_task(inventory: dict[str, int], target: dict[str, int], blocked: list[str] | None = None) -> Task:
    return Task.from_dict("probe", {"type": "cooking", "goal": "probe", "agent_count": 1,
                                    "initial_inventory": {"0": inventory}, "target": target,
                                    "blocked_actions": {"0": blocked or []}})


# ----- every dish can be made in the cooking world -----
@pytest.mark.parametrize("dish", sorted(DISHES))
def test_each_step_uses_what_earlier_steps_made_or_the_inventory_holds(dish):
    have = Counter(DISHES[dish].given)
    for step in DISHES[dish].steps:
        for item, n in step.inputs:
            assert have[item] >= n, f"{dish}: {step.text()} lacks {item}"
            have[item] -= n
        have[step.output[0]] += step.output[1]
    assert have[dish] >= 1


@pytest.mark.parametrize("dish", sorted(DISHES))
def test_each_step_is_a_real_recipe_at_its_station(dish):
    book = recipe_book()
    smelting = smelting_table()["recipes"]
    for step in DISHES[dish].steps:
        item, count = step.output
        if step.station in ("farm", "pasture"):
            assert not step.inputs and item in (FARM_YIELDS if step.station == "farm" else PASTURE_YIELDS)
        elif step.station == "furnace":
            ((raw, n),) = step.inputs
            assert n == count and smelting[raw]["output"] == item and smelting[raw]["kind"] == "food"
        else:
            matches = [r for r in book.recipes(item) if count % r.count == 0
                       and {k: v * (count // r.count) for k, v in r.ingredient_dict().items()} == dict(step.inputs)]
            assert matches, f"{dish}: no recipe makes {step.text()}"
            assert step.station == ("crafting_table" if matches[0].needs_table else "none"), step.text()


@pytest.mark.parametrize("dish", sorted(DISHES))
def test_the_cooking_world_and_the_given_items_make_each_dish(dish):
    assert unsolvable_reason(_cooking_task(DISHES[dish].given, {dish: 1})) is None


def test_what_the_farm_and_pasture_give_is_in_the_cooking_world_without_crafting():
    no_making = ["!craftRecipe", "!smeltItem"]
    for item in FARM_YIELDS + PASTURE_YIELDS:
        assert unsolvable_reason(_cooking_task({}, {item: 1}, no_making)) is None, item
    assert unsolvable_reason(_cooking_task({}, {"egg": 30}, no_making)) is not None  # the probe can say no


def test_given_items_are_ones_the_world_lacks():
    lacking = {item for dish in DISHES.values() for item in dish.given}
    assert lacking <= {"bowl", "egg", "milk_bucket", "cocoa_beans", "dandelion", "gold_ingot", "gold_nugget", "apple"}
    for dish in ("cake", "pumpkin_pie", "cookie", "golden_apple", "golden_carrot", "suspicious_stew"):
        assert unsolvable_reason(_cooking_task({}, {dish: 1})) is not None, dish


# ----- the generator -----
def test_same_seed_same_bytes_and_another_seed_other_streams():
    one = dumps_tasks(generate("orders", "train", seed=7, count=40))
    assert one == dumps_tasks(generate("orders", "train", seed=7, count=40))
    other = generate("orders", "train", seed=8, count=40)
    assert one != dumps_tasks(other)
    assert list(json.loads(one)) == list(other)  # the same grid cells, with other stream seeds


def test_committed_test_split_and_hashes():
    text = dumps_tasks(generate("orders", "test"))
    assert committed("orders").read_text() == text
    assert hashlib.sha256(text.encode()).hexdigest() == TEST_SHA256
    assert sha256_of("orders", "train") == TRAIN_SHA256


def test_the_test_split_is_the_whole_grid_once(test_split):
    assert len(test_split) == split_size("orders", "test") == len(LEVELS) * len(AGENT_COUNTS) * len(ALPHAS)
    cells = Counter((t.fields.level, t.agent_count, t.fields.alpha) for t in test_split.values())
    assert set(cells.values()) == {1}
    assert {level for level, _, _ in cells} == {lv.key for lv in LEVELS.values()}
    train = generate_raw("train", 1, split_size("orders", "train"))
    assert not set(train) & set(test_split)
    assert not {t["seed"] for t in train.values()} & {t.fields.seed for t in test_split.values()}


def test_task_fields_follow_the_level_and_alpha(test_split):
    levels = {lv.key: lv for lv in LEVELS.values()}
    for task in test_split.values():
        fields = task.fields.as_dict()
        level, alpha = levels[fields["level"]], fields["alpha"]
        assert task.type == "orders" and task.agent_count in AGENT_COUNTS
        assert fields["dishes"] == list(level.dishes)
        assert fields["tau_int"] == level.tau_int(alpha)
        assert fields["tau_lft"] == level.lifetimes(alpha)
        assert fields["episode_steps"] == EPISODE_STEPS
        assert set(task.recipes) == set(level.dishes)
        assert all(task.goal_for(i) for i in range(task.agent_count))
        assert f"cook {task.agent_count - 1} of {task.agent_count}" in task.goal_for(task.agent_count - 1)


def test_inventories_hold_what_every_scheduled_order_lacks_and_fit(test_split):
    stack = {name: item["stackSize"] for name, item in minecraft_data().items_by_name.items()}
    for task in test_split.values():
        pooled: Counter[str] = Counter()
        for i in range(task.agent_count):
            inventory = task.inventory_for(i)
            pooled.update(inventory)
            slots = sum(math.ceil(n / stack[item]) for item, n in inventory.items())
            assert slots <= INVENTORY_SLOTS, f"{task.id}: agent {i} needs {slots} slots"
        assert dict(pooled) == given_for(OrderStream.from_fields(task.fields.as_dict()).arrivals())


def test_agent_counts_and_sizes_are_checked():
    assert {t["agent_count"] for t in generate_raw("test", 2, 15, agents="3").values()} == {3}
    with pytest.raises(ValueError, match="2, 3 or 4 agents"):
        generate_raw("test", 2, 5, agents="5")
    with pytest.raises(ValueError, match="at most 180"):
        generate_raw("test", 2, 181)


# ----- the schema and the CLI -----
def test_orders_tasks_are_valid_and_playable(test_split):
    task = next(iter(test_split.values()))
    assert unplayable_reason(task) is None  # the dispatcher runner plays them (mindpy.tasks.families.orders.play)
    assert Task.from_dict(task.id, task.to_dict()).to_dict() == task.to_dict()


@pytest.mark.parametrize("change, field, words", [
    ({"tau_lft": None}, "tau_lft", "is required for orders tasks"),
    ({"dishes": ["bread", "pizza"]}, "dishes", "no recipe for: pizza"),
    ({"tau_lft": {"bread": 4}}, "tau_lft", "a lifetime for each dish"),
    ({"tau_int": 0}, "tau_int", "integer >= 1"),
    ({"alpha": "fast"}, "alpha", "number > 0"),
    # malformed shapes are one-line problems too, never a crash
    ({"alpha": True}, "alpha", "number > 0"),
    ({"dishes": "bread"}, "dishes", "non-empty list of dish names"),
    ({"dishes": [{"bread": 1}]}, "dishes", "non-empty list of dish names"),
    ({"tau_lft": [6, 5]}, "tau_lft", "must map each dish"),
    ({"tau_lft": {"bread": "6", "cookie": 5}}, "tau_lft", "must map each dish"),
    ({"tau_int": 10**30}, "tau_int", "integer from 1 to"),
    ({"episode_steps": None}, "episode_steps", "is required for orders tasks"),
    ({"seed": 1.5}, "seed", "must be an integer"),
    ({"level": 3}, "level", "must be a level name"),
    ({"dishes": ["bread", "bread"], "tau_lft": {"bread": 5}}, "dishes", "names a dish twice: bread"),
])
def test_bad_orders_fields_are_problems_naming_the_field(test_split, change, field, words):
    data = next(iter(t for t in test_split.values() if t.fields.level == "l03_bakery")).to_dict()
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    check = check_task("bad", data)
    assert check.task is None
    assert any(f"field '{field}'" in p and words in p for p in check.problems), check.problems


def test_cli_validate_and_show_the_test_split(capsys):
    from mindpy.cli import main

    path = str(committed("orders"))
    assert main(["tasks", "validate", path]) == 0
    out, err = capsys.readouterr()
    assert "180 tasks, 180 valid, 0 invalid, 0 warnings" in out and not err
    assert main(["tasks", "show", path, "orders_l11_banquet_4_agents_alpha_3"]) == 0
    out, _ = capsys.readouterr()
    assert "type: orders; 4 agents" in out and "agent 3:" in out and "difficulty: advanced" in out


def test_a_bad_dish_list_is_said_once_not_again_as_a_lifetime_problem(test_split):
    data = next(iter(test_split.values())).to_dict()
    data["dishes"] = "bread"
    problems = check_task("bad", data).problems
    assert [p for p in problems if "field 'dishes'" in p] and not [p for p in problems if "field 'tau_lft'" in p]


def test_a_person_cooking_beside_the_cooks_is_listed_as_a_human_not_as_an_agent():
    from mindpy.tasks.describe import describe_file, describe_task

    tasks = load_tasks("tasks/orders_test.json")
    raw = json.loads(Path("tasks/orders_test.json").read_text())["orders_l00_golden_apple_2_agents_alpha_3"]
    raw.update(human_count=1, usernames=["Steve"])
    raw["initial_inventory"]["2"] = {"apple": 8}
    task = Task.from_dict("with_steve", raw)
    listing = describe_file({"with_steve": task})
    assert "2 agents + 1 human" in listing and "2+1 human" in listing.splitlines()[0]
    assert "2 agents + 1 human" in describe_task(task)
    assert "2 agents  " in describe_file({"plain": tasks["orders_l00_golden_apple_2_agents_alpha_3"]})
