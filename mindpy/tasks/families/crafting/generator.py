"""Crafting (techtree) tasks from minecraft-data's recipe trees.

Each task: one target item; the agents are given its ingredients `depth` levels below the target's own
ingredients (depth 0 = the ingredients themselves), dealt unit by unit across 1-5 agents so that none holds enough to
finish alone; sometimes one kind of log is left out and must be gathered in the forest (missing_items); a crafting
table is given to one agent when some craft needs the 3x3 grid; and in "partial plan" tasks some agents cannot use
!getCraftingPlan (blocked_actions, and listed in blocked_access_to_recipe), so the others must tell them the plan.

Targets are divided into train and test by item family (all colours and all wood types of an item go to the same
side), fixed by a hash of the family name, except that the cooking dishes follow the cooking split: no target
appears in both splits, whatever the seeds.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ....mcdata import minecraft_data
from ....recipes import COLOURS
from ...generators.common import agent_choices, article, rng_for, split_units, stable_fraction
from ...recipe_tree import RecipeTree

SPLIT_SALT = "mindpy/crafting-split/v1"
TEST_FRACTION = 0.15
MAX_DEPTH = 2          # the deepest breakdown a task asks for
MAX_UNITS = 48         # at most this many items handed out in one task
DEFAULT_AGENTS = (2, 3, 4, 5)
TIMEOUT = 300

# Base resources that a crafting task should not hinge on (boss drops, trial-chamber loot, ...).
EXOTIC = frozenset({
    "nether_star", "dragon_breath", "heavy_core", "breeze_rod", "trial_key", "ominous_trial_key", "echo_shard",
    "disc_fragment_5", "netherite_scrap", "netherite_ingot", "elytra", "shulker_shell", "totem_of_undying",
    "enchanted_golden_apple", "dragon_head", "recovery_compass", "nautilus_shell", "heart_of_the_sea",
    "armadillo_scute", "turtle_scute", "prismarine_shard", "prismarine_crystals", "phantom_membrane",
    "ghast_tear", "sniffer_egg", "goat_horn", "rabbit_foot", "ink_sac", "glow_ink_sac", "wither_skeleton_skull",
    "blaze_rod", "ender_pearl", "bedrock", "pitcher_plant", "torchflower", "wither_rose", "spore_blossom",
    "crying_obsidian", "resin_clump", "creaking_heart",
})
_PREFIXES = tuple(c + "_" for c in sorted(COLOURS, key=len, reverse=True)) + (
    "oak_", "spruce_", "birch_", "jungle_", "acacia_", "dark_oak_", "mangrove_", "cherry_", "pale_oak_", "bamboo_",
    "crimson_", "warped_", "waxed_", "exposed_", "weathered_", "oxidized_", "stripped_",
)
LOGS = ("oak_log", "birch_log", "spruce_log", "jungle_log", "acacia_log", "dark_oak_log")


def family_of(item: str) -> str:
    """'light_blue_bed' -> 'bed', 'dark_oak_stairs' -> 'stairs', 'waxed_exposed_cut_copper' -> 'cut_copper'."""
    name = item
    changed = True
    while changed:
        changed = False
        for prefix in _PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix):
                name = name[len(prefix):]
                changed = True
                break
    return name


@cache
def recipe_tree(version: str | None = None) -> RecipeTree:
    """The (cached) recipe tree of a game version."""
    return RecipeTree(minecraft_data(version) if version else minecraft_data())


def candidate_targets(tree: RecipeTree) -> list[str]:
    """Craftable items whose whole tree stays clear of exotic resources."""
    out = []
    for item in tree.craftable_items():
        if item in EXOTIC:
            continue
        full = tree.breakdown(item, 1, tree.max_depth(item) + 1)
        if any(name in EXOTIC for name in full.resources):
            continue
        out.append(item)
    return out


def split_of(item: str) -> str:
    """'train' or 'test' for a target item: the cooking dishes keep their cooking split (so crafting data never
    teaches a cooking test recipe); everything else goes by a hash of its family."""
    from ..cooking.generator import TEST_ITEMS, TRAIN_ITEMS

    if item in TEST_ITEMS:
        return "test"
    if item in TRAIN_ITEMS:
        return "train"
    return "test" if stable_fraction(SPLIT_SALT, family_of(item)) < TEST_FRACTION else "train"


@cache
def targets_by_split(version: str | None = None) -> dict[str, tuple[str, ...]]:
    """The candidate crafting targets, split into train and test."""
    tree = recipe_tree(version)
    out: dict[str, list[str]] = {"train": [], "test": []}
    for item in candidate_targets(tree):
        out[split_of(item)].append(item)
    return {k: tuple(v) for k, v in out.items()}


def _task(tree: RecipeTree, target: str, agents: int, depth: int, rng) -> tuple[str, dict[str, Any]] | None:
    plan = tree.breakdown(target, 1, depth)
    resources = dict(plan.resources)
    units = sum(resources.values())
    if units < agents or units > MAX_UNITS:
        return None
    missing: list[str] = []
    logs = [name for name in resources if name in LOGS]
    if logs and rng.random() < 0.25:
        log = rng.choice(logs)
        left = units - resources[log]
        if left >= agents:
            missing = [log]
            del resources[log]
    hidden: list[int] = []
    if agents >= 2 and rng.random() < 0.5:
        hidden = sorted(rng.sample(range(agents), rng.randint(1, agents - 1)))
    inventories = split_units(resources, agents, rng)
    if plan.needs_table:
        holder = rng.randrange(agents)
        table = {"crafting_table": inventories[holder].get("crafting_table", 0) + 1}  # it may be an ingredient too
        inventories[holder] = dict(sorted({**inventories[holder], **table}.items()))

    task_id = (f"multiagent_crafting_{target}_{'partial' if hidden else 'full'}_plan"
               f"{'_missing_items' if missing else ''}{'_requires_ctable' if plan.needs_table else ''}"
               f"__depth_{depth}__{agents}_agents")
    what = f"{article(target)} {target}"
    goal = (f"Collaborate with the other agents to craft {what}." if agents > 1 else f"Craft {what}.")
    if missing:
        goal += f" Nobody has the {', '.join(missing)} it takes: gather it nearby."
    task: dict[str, Any] = {
        "type": "techtree",
        "goal": goal,
    }
    if agents > 1:
        task["conversation"] = f"Let's work together to craft {what}."
    task.update({
        "agent_count": agents,
        "initial_inventory": {str(i): inv for i, inv in enumerate(inventories)},
        "target": target,
        "number_of_target": 1,
        "timeout": TIMEOUT,
        "blocked_actions": {str(i): (["!getCraftingPlan"] if i in hidden else []) for i in range(agents)},
        "missing_items": missing,
        "requires_ctable": plan.needs_table,
        "max_depth": max(tree.max_depth(target), 0),
        "depth": depth,
        "blocked_access_to_recipe": [str(i) for i in hidden],
    })
    return task_id, task


def generate(split: str, seed: int, count: int, *, agents: str | Sequence[int] | None = None,
             version: str | None = None) -> dict[str, dict[str, Any]]:
    """`count` crafting tasks (task id -> MINDcraft task dict) of the split's targets, fixed by `seed`."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    counts = agent_choices(agents, DEFAULT_AGENTS)
    tree = recipe_tree(version)
    pool = targets_by_split(version)[split]
    families: dict[str, list[str]] = {}
    for item in pool:
        families.setdefault(family_of(item), []).append(item)
    family_names = sorted(families)
    rng = rng_for("crafting", split, seed)
    tasks: dict[str, dict[str, Any]] = {}
    attempts = 0
    while len(tasks) < count:
        attempts += 1
        if attempts > 200 * count + 1000:
            raise ValueError(f"cannot make {count} distinct crafting tasks for the {split} split "
                             f"(made {len(tasks)}); ask for fewer")
        n = rng.choice(counts)
        target = rng.choice(families[rng.choice(family_names)])
        depth = rng.randint(0, min(MAX_DEPTH, max(tree.max_depth(target), 0)))
        made = _task(tree, target, n, depth, rng)
        if made is None or made[0] in tasks:
            continue
        tasks[made[0]] = made[1]
    return tasks
