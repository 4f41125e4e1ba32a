"""Cooking tasks: make a meal of one to three dishes in the cooking world.

The cooking world (crops, sugar cane, mushrooms, animals, a crafting table and fuelled furnace and smoker) has
most ingredients; what it lacks (milk, eggs, gold, apples, bowls, cocoa beans, flowers) is dealt unit by unit
across the agents' inventories. Dishes are divided between train and test as in seed 004, section 14.2.

Variants:
- plain: every agent sees every recipe in its goal; with 2+ agents the world-lacking ingredients come to at least
  two items, dealt to different agents, so nobody can cook the whole meal alone;
- blocked access: some agents do not see the recipes (blocked_access_to_recipe) and must be told them;
- Hell's Kitchen (2-5 agents, one dish each): agent i must make target[i] but holds only the recipe of the next
  agent's dish, so recipes have to be exchanged. The task id ends in "hells_kitchen" and the target is a list in
  agent order, as MINDcraft expects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...generators.common import agent_choices, join_words, rng_for, split_units

TIMEOUT = 300
DEFAULT_AGENTS = (2, 3, 4, 5)


@dataclass(frozen=True)
class Dish:
    """A dish a cooking task may ask for: how to make it and what the world must provide."""
    name: str
    steps: tuple[str, ...]
    given: dict[str, int] = field(default_factory=dict)  # what the cooking world lacks


def _cook_meat(animal: str, raw: str) -> tuple[str, ...]:
    return (f"Kill a {animal} and pick up the {raw} it drops.",
            f"Cook the {raw} in the furnace or the smoker; both are already fuelled.")


DISHES: dict[str, Dish] = {d.name: d for d in (
    # train (seed 004, 14.2)
    Dish("cooked_mutton", _cook_meat("sheep", "mutton")),
    Dish("cooked_porkchop", _cook_meat("pig", "porkchop")),
    Dish("cooked_chicken", _cook_meat("chicken", "chicken")),
    Dish("cooked_rabbit", _cook_meat("rabbit", "rabbit")),
    Dish("beetroot_soup", (
        "Harvest 6 beetroots from the farm.",
        "Get a bowl from your inventory or from another agent.",
        "At the crafting table, make beetroot soup from the 6 beetroots and the bowl.",
    ), {"bowl": 1}),
    Dish("mushroom_stew", (
        "Pick 1 brown mushroom and 1 red mushroom.",
        "Get a bowl from your inventory or from another agent.",
        "At the crafting table, make mushroom stew from the two mushrooms and the bowl.",
    ), {"bowl": 1}),
    Dish("suspicious_stew", (
        "Pick 1 brown mushroom and 1 red mushroom.",
        "Get a bowl and a dandelion from your inventory or from the other agents.",
        "At the crafting table, make suspicious stew from the two mushrooms, the dandelion and the bowl.",
    ), {"bowl": 1, "dandelion": 1}),
    Dish("cookie", (
        "Harvest 2 wheat.",
        "Get cocoa beans from your inventory or from another agent.",
        "At the crafting table, make cookies from the 2 wheat and 1 cocoa beans (one craft gives 8).",
    ), {"cocoa_beans": 1}),
    Dish("pumpkin_pie", (
        "Harvest a pumpkin and 1 sugar cane.",
        "Craft the sugar cane into sugar.",
        "Get an egg from your inventory or from another agent.",
        "At the crafting table, make the pie from the pumpkin, the sugar and the egg.",
    ), {"egg": 1}),
    Dish("golden_apple", (
        "Get 1 apple and 8 gold ingots from your inventory or from the other agents.",
        "At the crafting table, put the apple in the middle and the 8 gold ingots around it.",
    ), {"apple": 1, "gold_ingot": 8}),
    # test (seed 004, 14.2)
    Dish("cooked_beef", _cook_meat("cow", "beef")),
    Dish("baked_potato", (
        "Harvest a potato (the crop block is called 'potatoes').",
        "Bake it in the furnace or the smoker; both are already fuelled.",
    )),
    Dish("cake", (
        "Harvest 3 wheat and 2 sugar cane.",
        "Craft the sugar cane into 2 sugar.",
        "Get 3 milk buckets and 1 egg from your inventory or from the other agents.",
        "At the crafting table, make the cake from the 3 milk buckets, 2 sugar, the egg and the 3 wheat.",
    ), {"milk_bucket": 3, "egg": 1}),
    Dish("golden_carrot", (
        "Harvest a carrot (the crop block is called 'carrots').",
        "Get 8 gold nuggets from your inventory or from the other agents.",
        "At the crafting table, put the carrot in the middle and the 8 gold nuggets around it.",
    ), {"gold_nugget": 8}),
    Dish("rabbit_stew", (
        "Kill a rabbit, pick up the raw rabbit and cook it in the furnace or the smoker.",
        "Harvest a potato (the crop block is called 'potatoes') and bake it; harvest a carrot.",
        "Pick 1 brown mushroom.",
        "Get a bowl from your inventory or from another agent.",
        "At the crafting table, make rabbit stew from the cooked rabbit, baked potato, carrot, brown mushroom and "
        "bowl.",
    ), {"bowl": 1}),
    Dish("bread", (
        "Harvest 3 wheat.",
        "At the crafting table, make bread from the 3 wheat.",
    )),
)}

TRAIN_ITEMS = ("cooked_mutton", "cooked_porkchop", "cooked_chicken", "cooked_rabbit", "beetroot_soup",
               "mushroom_stew", "suspicious_stew", "cookie", "pumpkin_pie", "golden_apple")
TEST_ITEMS = ("cooked_beef", "baked_potato", "cake", "golden_carrot", "rabbit_stew", "bread")
ITEMS = {"train": TRAIN_ITEMS, "test": TEST_ITEMS}

# What the cooking world provides (for the world set-up to come): crops, plants, animals and stations.
WORLD = {
    "crops": ("wheat", "beetroots", "potatoes", "carrots", "pumpkin"),
    "plants": ("sugar_cane", "brown_mushroom", "red_mushroom"),
    "animals": ("chicken", "cow", "pig", "rabbit", "sheep"),
    "stations": ("crafting_table", "furnace", "smoker", "bed"),
}


def _recipe_text(dish: str) -> str:
    steps = DISHES[dish].steps
    return f"Recipe for {dish}:\n" + "\n".join(f"Step {i}: {s}" for i, s in enumerate(steps, 1))


def _difficulty(dishes: Sequence[str]) -> dict[str, Any]:
    steps = [len(DISHES[d].steps) for d in dishes]
    total = sum(steps)
    category = "easy" if total <= 4 else "medium" if total <= 8 else "hard"
    return {"total_recipe_steps": total, "max_steps_per_recipe": max(steps), "unique_target_items": len(dishes),
            "difficulty_category": category}


def _given(dishes: Sequence[str]) -> dict[str, int]:
    total: dict[str, int] = {}
    for dish in dishes:
        for item, n in DISHES[dish].given.items():
            total[item] = total.get(item, 0) + n
    return total


def _hand_in_note(agents: int) -> str:
    if agents == 1:
        return ""
    return " In the end, one agent should hold all of the dishes."


def _plain(dishes: Sequence[str], agents: int, blocked: Sequence[int], rng) -> tuple[str, dict[str, Any]]:
    meal = join_words(list(dishes))
    recipes = "\n".join(_recipe_text(d) for d in dishes)
    base = (f"Collaborate with the other agents to make {meal}." if agents > 1 else f"Make {meal}.") + \
        _hand_in_note(agents)
    if blocked:
        goal: Any = {str(i): (base + " You do not have the recipes: ask the other agents for them." if i in blocked
                              else base + "\n" + recipes) for i in range(agents)}
    else:
        goal = base + "\n" + recipes
    suffix = ("_blocked_access_" + "_".join(map(str, blocked))) if blocked else ""
    task_id = f"multiagent_cooking_{agents}_agents_{'_'.join(dishes)}{suffix}"
    task: dict[str, Any] = {"type": "cooking", "goal": goal}
    if agents > 1:
        task["conversation"] = f"Let's work together to make {meal}."
    task.update({
        "agent_count": agents,
        "initial_inventory": {str(i): inv for i, inv in enumerate(split_units(_given(dishes), agents, rng))},
        "target": {d: 1 for d in dishes},
        "timeout": TIMEOUT,
        "blocked_actions": {str(i): [] for i in range(agents)},
        "recipes": {d: list(DISHES[d].steps) for d in dishes},
        "blocked_access_to_recipe": [str(i) for i in blocked],
        "difficulty_metrics": _difficulty(dishes),
    })
    return task_id, task


def hells_kitchen_task(dishes: Sequence[str], rng) -> tuple[str, dict[str, Any]]:
    """(id, task) of a Hell's Kitchen task: agent i makes dishes[i] and holds the recipe of another's dish."""
    agents = len(dishes)
    goal = {}
    for i, mine in enumerate(dishes):
        j = (i + 1) % agents
        holder = (i - 1) % agents
        goal[str(i)] = (
            f"You must make {mine}, but you do not have its recipe: agent {holder} has it. You hold the recipe for "
            f"{dishes[j]}, which agent {j} must make. Exchange recipes with the others and keep your own dish.\n"
            + _recipe_text(dishes[j]))
    meal = join_words(list(dishes))
    task_id = f"multiagent_cooking_{agents}_agents_{'_'.join(dishes)}_hells_kitchen"
    task: dict[str, Any] = {
        "type": "cooking",
        "goal": goal,
        "conversation": (f"We need to make {meal}, one dish each, but each of us holds the recipe of someone "
                         f"else's dish. Let's exchange recipes and get cooking!"),
        "agent_count": agents,
        "initial_inventory": {str(i): inv for i, inv in enumerate(split_units(_given(dishes), agents, rng))},
        "target": list(dishes),
        "timeout": TIMEOUT,
        "blocked_actions": {str(i): [] for i in range(agents)},
        "recipes": {d: list(DISHES[d].steps) for d in dishes},
        "blocked_access_to_recipe": [],
        "difficulty_metrics": _difficulty(dishes),
    }
    return task_id, task


def generate(split: str, seed: int, count: int, *, agents: str | Sequence[int] | None = None,
             version: str | None = None) -> dict[str, dict[str, Any]]:
    """`count` cooking tasks (task id -> MINDcraft task dict) over the split's dishes, fixed by `seed`."""
    if split not in ITEMS:
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    counts = agent_choices(agents, DEFAULT_AGENTS)
    pool = ITEMS[split]
    rng = rng_for("cooking", split, seed)
    tasks: dict[str, dict[str, Any]] = {}
    attempts = 0
    while len(tasks) < count:
        attempts += 1
        if attempts > 200 * count + 1000:
            raise ValueError(f"cannot make {count} distinct cooking tasks for the {split} split "
                             f"(made {len(tasks)}); ask for fewer")
        n = rng.choice(counts)
        kind = rng.random()
        if kind < 0.25 and 2 <= n <= len(pool):
            dishes = rng.sample(pool, n)
            made = hells_kitchen_task(dishes, rng)
        else:
            size = rng.choice((1, 2, 2, 3))
            dishes = sorted(rng.sample(pool, size), key=pool.index)
            if n >= 2 and sum(_given(dishes).values()) < 2:
                continue  # nothing to share: one agent could cook it all alone
            blocked: list[int] = []
            if n >= 2 and kind < 0.5:
                blocked = sorted(rng.sample(range(n), rng.randint(1, n - 1)))
            made = _plain(dishes, n, blocked, rng)
        if made[0] in tasks:
            continue
        tasks[made[0]] = made[1]
    return tasks
