"""Orders tasks (MindAgent's CuisineWorld in the cooking world): a team of 2-4 cooks, commanded by a dispatcher,
serves a stream of dish orders before they expire.

    tasks = generate("test", seed=2, count=180)     # every level x agent count (2, 3, 4) x alpha, in that order
    task = tasks["orders_l03_bakery_2_agents_alpha_1.5"]
    task["tau_int"], task["tau_lft"]                 # 5, {"bread": 14, "cookie": 12}
    OrderStream.from_fields(task)                    # the episode's orders (mindpy.tasks.families.orders.book)

A task fixes the level, α and team size, and the seed of its order stream. Its inventories hold what the world
lacks (bowls, eggs, milk, gold...) for every order the stream schedules, dealt unit by unit across the cooks; the
rest is grown, dug and killed in the cooking world. `recipes` lists each dish's steps with their stations and
busy times; the goals tell each cook the rules of the stream. The timeout allows SECONDS_PER_STEP for each of
the episode's EPISODE_STEPS dispatcher steps.

Splits: the test split is the whole grid (12 levels x 3 team sizes x 5 α = 180 tasks) with the test seed; the
train split goes round the same grid with other stream seeds, its ids ending in the round number (`_r0`, `_r1`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ...generators.common import agent_choices, join_words, rng_for, split_units
from .book import ALPHAS, DISHES, LEVELS, Level, OrderStream, given_for

EPISODE_STEPS = 100
SECONDS_PER_STEP = 10
AGENT_COUNTS = (2, 3, 4)


def task_id(level: Level, agents: int, alpha: float, round_: int | None = None) -> str:
    """'orders_l03_bakery_2_agents_alpha_1.5', with '_r0', '_r1'... in the train split."""
    suffix = "" if round_ is None else f"_r{round_}"
    return f"orders_{level.key}_{agents}_agents_alpha_{alpha:g}{suffix}"


def _goal(level: Level, agents: int, index: int, tau_int: int, lifetimes: dict[str, int],
          lacking: Sequence[str]) -> str:
    every = "at every step" if tau_int == 1 else f"every {tau_int} steps"
    deadlines = ", ".join(f"{dish} {steps}" for dish, steps in lifetimes.items())
    held = f" The cooks hold what the world lacks ({', '.join(lacking)}): hand it over where needed." if lacking else ""
    return (f"You are cook {index} of {agents}; a dispatcher commands the cooks at each step. Orders for "
            f"{join_words(list(level.dishes))} arrive {every} and fail unless "
            f"served within their lifetime in steps ({deadlines}). Serve an order by putting its dish in the "
            f"serving chest; serve as many as you can in {EPISODE_STEPS} steps, following the recipes.{held}")


def make_task(level: Level, agents: int, alpha: float, seed: int) -> dict[str, Any]:
    """One orders task dict; its inventories are dealt by a Random fixed by `seed`."""
    stream = OrderStream.for_level(level, alpha, EPISODE_STEPS, seed)
    supplies = given_for(stream.arrivals())
    inventories = split_units(supplies, agents, rng_for("orders", "inventory", seed))
    lifetimes = dict(stream.lifetimes)
    return {
        "type": "orders",
        "goal": {str(i): _goal(level, agents, i, stream.tau_int, lifetimes, list(supplies)) for i in range(agents)},
        "agent_count": agents,
        "initial_inventory": {str(i): inv for i, inv in enumerate(inventories)},
        "timeout": EPISODE_STEPS * SECONDS_PER_STEP,
        "recipes": {dish: DISHES[dish].recipe() for dish in level.dishes},
        "difficulty_metrics": {"difficulty_category": level.tier, "max_workload": level.workload,
                               "stations": len(level.stations)},
        "level": level.key,
        "alpha": alpha,
        "episode_steps": EPISODE_STEPS,
        "dishes": list(level.dishes),
        "tau_int": stream.tau_int,
        "tau_lft": lifetimes,
        "seed": seed,
    }


def _grid(counts: Sequence[int]) -> Iterator[tuple[Level, int, float]]:
    for level in sorted(LEVELS.values(), key=lambda lv: lv.number):
        for agents in counts:
            for alpha in ALPHAS:
                yield level, agents, alpha


def generate(split: str, seed: int, count: int, *, agents: str | Sequence[int] | None = None
             ) -> dict[str, dict[str, Any]]:
    """`count` orders tasks (task id -> task dict) going through the grid of levels x team sizes x α in order,
    each with a stream seed drawn from `seed`; the test split names tasks by their grid cell, the train split adds
    the round."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    counts = agent_choices(agents, AGENT_COUNTS)
    if not set(counts) <= set(AGENT_COUNTS):
        raise ValueError(f"orders tasks are for 2, 3 or 4 agents, got {list(counts)}")
    grid = list(_grid(counts))
    if split == "test" and count > len(grid):
        raise ValueError(f"the orders test split has one task per grid cell: at most {len(grid)}, asked for {count}")
    rng = rng_for("orders", split, seed)
    tasks: dict[str, dict[str, Any]] = {}
    for n in range(count):
        level, team, alpha = grid[n % len(grid)]
        round_ = None if split == "test" else n // len(grid)
        tasks[task_id(level, team, alpha, round_)] = make_task(level, team, alpha, rng.randrange(2**31))
    return tasks
