"""Task generators and splits: deterministic bytes for a seed, the committed test splits reproduced, train-split
hashes, no overlap between splits, and the properties each family promises (solvable, nobody can finish alone,
recipes hidden where they should be, complexity levels visible in the blueprints)."""

from __future__ import annotations

import hashlib
import re
from collections import Counter

import pytest

from mindpy.tasks import dumps_tasks, load_tasks
from mindpy.tasks.families.construction import generator as construction
from mindpy.tasks.families.cooking import generator as cooking
from mindpy.tasks.families.crafting import generator as crafting
from mindpy.tasks.family import family_named
from mindpy.tasks.splits import (
    EXAMPLES,
    blueprint_fingerprints,
    committed,
    example_tasks,
    generate,
    generated_families,
    sha256_of,
    split_size,
    target_items,
)

# the module's fixtures generate every train split: one worker makes them once, not each worker its own copy
pytestmark = pytest.mark.xdist_group("generators")

# sha256 of `mindpy tasks generate FAMILY --split train` (default seed and size). A change here means the train
# data changed: regenerate anything built from it.
TRAIN_SHA256 = {
    "crafting": "210f7a445aae063af2e30844cad1a886f8c8918045c3514d38e22c497c34d293",
    "cooking": "33e4cf085ff46200625cf55bfccd118d8d843b76ec90947b901a044589cc5f29",
    "construction": "e8e6b3bb6cdca1926a75e1faf5f4729f93804da0fc9757ae585e4ce274ee696a",
    "coblock": "bd14a06e9fa3bff7c37db623667eb82defc19cb738081c3896ff3e912b4772cd",
    "orders": "9034a15e886a5535707560b8709c7e7961b48add109613bcc0c334b1ad0ba9ac",
    "defuse": "f1960c4a9084d98dcf40e8d821c103401046ceffbc53905e6a558e452740ab30",
}


@pytest.fixture(scope="module")
def train_splits():
    return {family: generate(family, "train") for family in generated_families()}


@pytest.fixture(scope="module")
def test_splits():
    return {family: load_tasks(committed(family)) for family in generated_families()}


# ----- determinism -----
@pytest.mark.parametrize("family", generated_families())
def test_same_seed_same_bytes_other_seed_other_tasks(family):
    one = dumps_tasks(generate(family, "train", seed=7, count=25))
    two = dumps_tasks(generate(family, "train", seed=7, count=25))
    other = dumps_tasks(generate(family, "train", seed=8, count=25))
    assert one == two
    assert one != other


@pytest.mark.parametrize("family", generated_families())
def test_committed_test_split_is_what_the_generator_makes(family):
    assert committed(family).read_text() == dumps_tasks(generate(family, "test"))


@pytest.mark.parametrize("family", generated_families())
def test_train_split_hash(family, train_splits):
    text = dumps_tasks(train_splits[family])
    assert hashlib.sha256(text.encode()).hexdigest() == TRAIN_SHA256[family]


def test_sha256_of_matches_the_cli_output(tmp_path):
    from mindpy.cli import main

    out = tmp_path / "cooking_small.json"
    assert main(["tasks", "generate", "cooking", "--split", "train", "--seed", "3", "--count", "12",
                 "--out", str(out)]) == 0
    assert hashlib.sha256(out.read_bytes()).hexdigest() == sha256_of("cooking", "train", seed=3, count=12)
    assert len(load_tasks(out)) == 12


def test_cli_generate_errors_and_yaml(tmp_path, capsys):
    from mindpy.cli import main

    assert main(["tasks", "generate", "crafting", "--agents", "0-7", "--count", "3"]) == 2
    assert "agent counts must be between 1 and 5" in capsys.readouterr().err
    out = tmp_path / "c.yaml"
    assert main(["tasks", "generate", "construction", "--count", "2", "--out", str(out)]) == 0
    tasks = load_tasks(out)
    assert list(tasks) == list(generate("construction", "test", count=2))


# ----- sizes and overlap -----
def test_split_sizes_are_the_papers(train_splits, test_splits):
    assert {f: dict(family_named(f).split_sizes) for f in generated_families()} == {"cooking": {"train": 350, "test": 54}, "crafting": {"train": 1200, "test": 100},
                     "construction": {"train": 2000, "test": 30}, "coblock": {"train": 300, "test": 24},
                     "orders": {"train": 360, "test": 180}, "defuse": {"train": 300, "test": 30}}
    for family in generated_families():
        assert len(train_splits[family]) == split_size(family, "train")
        assert len(test_splits[family]) == split_size(family, "test")


def test_cooking_items_follow_the_paper_division(train_splits, test_splits):
    assert set(cooking.TRAIN_ITEMS) == {"cooked_mutton", "cooked_porkchop", "cooked_chicken", "cooked_rabbit",
                                        "beetroot_soup", "mushroom_stew", "suspicious_stew", "cookie",
                                        "pumpkin_pie", "golden_apple"}
    assert set(cooking.TEST_ITEMS) == {"cooked_beef", "baked_potato", "cake", "golden_carrot", "rabbit_stew",
                                       "bread"}
    train, test = target_items(train_splits["cooking"]), target_items(test_splits["cooking"])
    assert train == set(cooking.TRAIN_ITEMS) and test == set(cooking.TEST_ITEMS)
    assert not train & test


def test_crafting_targets_never_in_both_splits(train_splits, test_splits):
    pools = crafting.targets_by_split()
    assert not set(pools["train"]) & set(pools["test"])
    assert not {crafting.family_of(i) for i in pools["train"]} & {crafting.family_of(i) for i in pools["test"]}
    train, test = target_items(train_splits["crafting"]), target_items(test_splits["crafting"])
    assert train <= set(pools["train"]) and test <= set(pools["test"])
    assert not train & test
    assert len(test) >= 30 and len(train) >= 200  # many different items, not a few repeated
    # cooking test dishes are not taught by crafting train data
    assert not train & set(cooking.TEST_ITEMS)


def test_construction_blueprints_never_in_both_splits(train_splits, test_splits):
    train = blueprint_fingerprints(train_splits["construction"])
    test = blueprint_fingerprints(test_splits["construction"])
    assert len(train) == 2000 and len(test) == 30  # no blueprint repeated inside a split either
    assert not train & test


def test_coblock_structures_never_in_both_splits(train_splits, test_splits):
    train = blueprint_fingerprints(train_splits["coblock"])
    test = blueprint_fingerprints(test_splits["coblock"])
    assert len(train) == 100 and len(test) == 8  # one structure per three tasks, none repeated inside a split
    assert not train & test
    for tasks in (train_splits["coblock"], test_splits["coblock"]):
        kinds = Counter(task.fields.coblock_type for task in tasks.values())
        assert kinds == {kind: len(tasks) // 3 for kind in ("independent", "skill_dependent", "goal_dependent")}


# ----- crafting -----
def _craftable_from(task, tree) -> bool:
    """Can the agents, pooling their inventories (plus the missing items, gathered), craft the target?"""
    pool = Counter()
    for i in range(task.agent_count):
        pool.update(task.inventory_for(i))
    unlimited = set(task.missing_items)

    def obtain(item: str, n: int, depth: int = 0) -> bool:
        if item in unlimited:
            return True
        have = min(pool[item], n)
        pool[item] -= have
        n -= have
        if n == 0:
            return True
        recipe = tree.recipe(item)
        if recipe is None or depth > 10:
            return False
        crafts = -(-n // recipe.count)
        for name, k in recipe.ingredients:
            if not obtain(name, k * crafts, depth + 1):
                return False
        pool[item] += crafts * recipe.count - n
        return True

    return all(obtain(item, n) for item, n in task.targets().items())


def _nobody_alone(task, needed: dict[str, int]) -> bool:
    """With exactly `needed` handed out, every agent lacks something another holds."""
    return all(any(task.inventory_for(i).get(item, 0) < n for item, n in needed.items())
               for i in range(task.agent_count))


def test_crafting_tasks_are_solvable_together_but_not_alone(train_splits, test_splits):
    tree = crafting.recipe_tree()
    for tasks in (train_splits["crafting"], test_splits["crafting"]):
        for task in tasks.values():
            assert task.type == "techtree" and 2 <= task.agent_count <= 5
            assert _craftable_from(task, tree), task.id
            breakdown = tree.breakdown(task.target, 1, task.depth)
            given = {k: v for k, v in breakdown.resources.items() if k not in task.missing_items}
            pooled = Counter()
            for i in range(task.agent_count):
                pooled.update(task.inventory_for(i))
            if task.requires_crafting_table:  # the table to craft on, besides any table in the recipe
                pooled["crafting_table"] -= 1
            assert +pooled == given, task.id
            assert _nobody_alone(task, given), task.id
            assert 0 <= task.depth <= task.max_depth
            for item in task.missing_items:
                assert all(item not in task.inventory_for(i) for i in range(task.agent_count))
            if "crafting_table" not in given:
                holders = [i for i in range(task.agent_count) if "crafting_table" in task.inventory_for(i)]
                assert len(holders) == (1 if task.requires_crafting_table else 0), task.id
            hidden = [i for i in range(task.agent_count) if "!getCraftingPlan" in task.blocked_actions_for(i)]
            assert [str(i) for i in hidden] == task.blocked_access_to_recipe
            assert len(hidden) < task.agent_count
            assert ("partial_plan" in task.id) == bool(hidden)
            assert f"__depth_{task.depth}__{task.agent_count}_agents" in task.id


def test_crafting_variety(train_splits):
    tasks = list(train_splits["crafting"].values())
    assert {t.agent_count for t in tasks} == {2, 3, 4, 5}
    assert {t.depth for t in tasks} == {0, 1, 2}
    assert any(t.missing_items for t in tasks) and any(t.blocked_access_to_recipe for t in tasks)
    assert any(t.requires_crafting_table for t in tasks) and any(not t.requires_crafting_table for t in tasks)


def test_crafting_from_one_to_five_agents():
    tasks = generate("crafting", "train", seed=5, count=60, agents="1-5")
    counts = {t.agent_count for t in tasks.values()}
    assert counts == {1, 2, 3, 4, 5}
    for task in tasks.values():
        if task.agent_count == 1:
            assert not task.blocked_access_to_recipe and task.conversation is None


def test_recipe_tree_choices():
    tree = crafting.recipe_tree()
    assert tree.recipe("stick").ingredient_dict() == {"oak_planks": 2}
    assert tree.recipe("wooden_pickaxe").ingredient_dict() == {"oak_planks": 3, "stick": 2}
    assert tree.recipe("wooden_pickaxe").needs_table and not tree.recipe("stick").needs_table
    assert tree.is_base("iron_ingot") and tree.is_base("oak_log")  # block <-> ingot cycles are not crafting
    assert tree.max_depth("oak_planks") == 0 and tree.max_depth("wooden_pickaxe") == 2
    assert tree.breakdown("wooden_pickaxe", 1, 2).resources == {"oak_log": 2}
    assert tree.breakdown("wooden_pickaxe", 1, 1).resources == {"oak_log": 1, "oak_planks": 2}


# ----- cooking -----
def test_cooking_tasks(train_splits, test_splits):
    for split, tasks in (("train", train_splits["cooking"]), ("test", test_splits["cooking"])):
        kinds = Counter()
        for task in tasks.values():
            assert task.type == "cooking" and 1 <= task.agent_count <= 5
            dishes = list(task.targets())
            assert set(dishes) <= set(cooking.ITEMS[split])
            assert set(task.recipes) == set(dishes)
            pooled = Counter()
            for i in range(task.agent_count):
                pooled.update(task.inventory_for(i))
            lacking = Counter()
            for dish in dishes:
                lacking.update(cooking.DISHES[dish].given)
            assert pooled == lacking, task.id  # exactly what the cooking world lacks
            if task.is_hells_kitchen:
                kinds["hells_kitchen"] += 1
                assert task.id.endswith("hells_kitchen") and isinstance(task.target, list)
                assert len(task.target) == task.agent_count >= 2
                for i, mine in enumerate(task.target):
                    goal = task.goal_for(i)
                    held = task.target[(i + 1) % task.agent_count]
                    assert f"You must make {mine}" in goal
                    assert f"Recipe for {held}:" in goal and f"Recipe for {mine}:" not in goal
                    assert task.targets_for(i) == {mine: 1}
            else:
                assert isinstance(task.target, dict)
                if task.agent_count >= 2:
                    assert _nobody_alone(task, dict(lacking)), task.id
                for i in range(task.agent_count):
                    sees = all(f"Recipe for {d}:" in task.goal_for(i) for d in dishes)
                    assert sees == task.has_recipe_access(i), task.id
                kinds["blocked" if task.blocked_access_to_recipe else "plain"] += 1
        assert kinds["hells_kitchen"] and kinds["blocked"] and kinds["plain"], (split, kinds)


# ----- construction -----
NAME = re.compile(r"^materials_([0-2])_rooms_([0-2])_window_([0-2])_carpet_([0-2])_variant_(\d+)$")


def test_construction_tasks(train_splits, test_splits):
    for tasks in (train_splits["construction"], test_splits["construction"]):
        for task in tasks.values():
            m, r, w, c, v = map(int, NAME.match(task.id).groups())
            bp = task.blueprint
            assert task.agent_count == 2 and task.timeout == 600 + 300 * r
            assert bp.levels[0].coordinates[1] == -60
            assert [lvl.coordinates[1] for lvl in bp.levels] == list(range(-60, -60 + len(bp.levels)))
            blocks = set(bp.block_counts())
            assert (len(bp.levels) > 5) == (r >= 1)
            assert any(b.endswith("_stairs") for b in blocks) == (r >= 1)
            assert bool(blocks & {"glass", "glass_pane"}) == (w >= 1)
            assert any(b.endswith("_carpet") for b in blocks) == (c >= 1)
            assert any(b.endswith("_door") for b in blocks)
            structural = {b for b in blocks if not b.endswith(("_door", "_stairs", "_carpet", "glass", "glass_pane"))}
            assert len(structural) <= (1, 2, 4)[m] and (m == 0) == (len(structural) == 1)
            # materials: exactly what building takes, split so that neither agent can build alone
            assert bp.materials == bp.required_items()
            pooled = Counter()
            for i in range(2):
                pooled.update({k: n for k, n in task.inventory_for(i).items() if k != "diamond_pickaxe"})
            assert dict(pooled) == bp.materials
            assert _nobody_alone(task, bp.materials)


def test_construction_test_split_spreads_over_the_complexity_levels(test_splits):
    combos = [tuple(map(int, NAME.match(tid).groups()[:4])) for tid in test_splits["construction"]]
    assert len(set(combos)) == 30
    for axis in range(4):
        assert {combo[axis] for combo in combos} == {0, 1, 2}


def test_construction_train_split_covers_every_combination(train_splits):
    combos = {tuple(map(int, NAME.match(tid).groups()[:4])) for tid in train_splits["construction"]}
    assert combos == set(construction.combos())


def test_house_refuses_levels_out_of_range():
    import random

    with pytest.raises(ValueError, match="rooms level must be 0, 1 or 2"):
        construction.house(0, 3, 0, 0, random.Random(1))


# ----- examples -----
def test_example_file_is_current_and_small():
    tasks = load_tasks(EXAMPLES)
    assert EXAMPLES.read_text() == dumps_tasks(example_tasks())
    assert sorted(t.type for t in tasks.values()) == ["construction", "cooking", "techtree"]
    craft = next(t for t in tasks.values() if t.type == "techtree")
    assert craft.agent_count == 2 and craft.targets() == {"wooden_pickaxe": 1}
    assert _craftable_from(craft, crafting.recipe_tree())
    assert _nobody_alone(craft, {"oak_log": 2})
