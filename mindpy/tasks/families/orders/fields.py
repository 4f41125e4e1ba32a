"""The orders family's own task fields: the order stream of a level (MindAgent's CuisineWorld), typed.

    fields = task.fields            # OrdersFields: level, alpha, episode_steps, dishes, tau_int, tau_lft, seed
    OrderStream.from_fields(fields.as_dict())
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ....userfiles import quote as show
from ...schema import int_in, is_int, is_number, range_problem
from .book import DISHES

# Our variations of the paper's play, off by default: episode switches (`mindpy run --task`, `mindpy eval`
# flags), recorded in result.json's `orders_rules` (mindpy.tasks.families.orders.play.OrdersOptions).
OPTIONS = ("orders_wall_clock", "orders_max_open", "orders_two_cook_demo")
FIELDS = ("level", "alpha", "episode_steps", "dishes", "tau_int", "tau_lft", "seed")
MAX_EPISODE_STEPS = 100_000


@dataclass(frozen=True)
class OrdersFields:
    """An orders task's stream: the level's dishes, the interval between orders (steps), each dish's lifetime
    (steps), the episode's length (steps) and the stream's seed; `alpha` is the paper's workload setting the
    interval and lifetimes were made from."""

    level: str
    alpha: float
    episode_steps: int
    dishes: tuple[str, ...]
    tau_int: int
    tau_lft: dict[str, int]
    seed: int

    def as_dict(self) -> dict[str, Any]:
        """The fields as a task file writes them."""
        return {"level": self.level, "alpha": self.alpha, "episode_steps": self.episode_steps,
                "dishes": list(self.dishes), "tau_int": self.tau_int, "tau_lft": dict(self.tau_lft),
                "seed": self.seed}


def parse_fields(p: Any) -> OrdersFields | None:
    """The fields of one task's dictionary (`p` is the schema's parser: `p.data`, `p.notes`), or None when one is
    wrong (each problem noted)."""
    data: Mapping[str, Any] = p.data
    notes = p.notes
    before = len(notes.problems)
    for key in FIELDS:
        if key not in data:
            notes.add(key, "is required for orders tasks")
    if "level" in data and not (isinstance(data["level"], str) and data["level"]):
        notes.add("level", f"must be a level name such as 'l03_bakery', got {show(data['level'])}")
    alpha = data.get("alpha", 1)
    if not is_number(alpha) or not 0 < alpha < float("inf"):
        notes.add("alpha", f"must be a number > 0, got {show(alpha)}")
    for key, high in (("episode_steps", MAX_EPISODE_STEPS), ("tau_int", MAX_EPISODE_STEPS)):
        if key in data and not int_in(data[key], 1, high):
            notes.add(key, range_problem(data[key], 1, high))
    if "seed" in data and not is_int(data["seed"]):
        notes.add("seed", f"must be an integer, got {show(data['seed'])}")
    dishes = data.get("dishes", [])
    dishes_ok = isinstance(dishes, list) and bool(dishes) and all(isinstance(d, str) for d in dishes)
    if "dishes" in data and not dishes_ok:
        notes.add("dishes", f"must be a non-empty list of dish names, got {show(dishes)}")
    if not dishes_ok:
        dishes = []
    elif len(set(dishes)) < len(dishes):
        twice = sorted({d for d in dishes if dishes.count(d) > 1})
        notes.add("dishes", f"names a dish twice: {', '.join(twice)}")
    unknown = [d for d in dishes if d not in DISHES]
    if unknown:
        notes.add("dishes", f"has dishes the cooking world has no recipe for: {', '.join(unknown)} (known: "
                            f"{', '.join(DISHES)})")
    lifetimes = data.get("tau_lft", {})
    if not isinstance(lifetimes, Mapping) or not all(int_in(v, 1, MAX_EPISODE_STEPS) for v in lifetimes.values()):
        notes.add("tau_lft", f"must map each dish to its lifetime, an integer from 1 to {MAX_EPISODE_STEPS} "
                             f"steps, got {show(lifetimes)}")
    elif "tau_lft" in data and dishes and set(lifetimes) != set(dishes):  # (bad dishes: said above)
        notes.add("tau_lft", f"must have a lifetime for each dish and no other: has {sorted(lifetimes)}, "
                             f"dishes are {sorted(dishes)}")
    if len(notes.problems) > before:
        return None
    return OrdersFields(str(data["level"]), float(alpha) if not is_int(alpha) else alpha, int(data["episode_steps"]),
                        tuple(dishes), int(data["tau_int"]), dict(lifetimes), int(data["seed"]))
