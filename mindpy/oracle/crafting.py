"""Crafting tasks: the crafter's next step from its inventory, and which items a helper hands over."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from ..recipes import CRAFTING_TABLE, recipe_book
from .cooking import Move

# Base items the crafter may collect in the world when the goal says nobody holds them.
_COLLECT_AS = {"oak_log": "oak_log"}


@lru_cache(maxsize=256)
def relevant_items(target: str, version: str | None = None) -> frozenset[str]:
    """Every item that can go into crafting `target` (any recipe, any depth), and a crafting table."""
    book = recipe_book(version) if version else recipe_book()
    seen: set[str] = set()
    queue = [target]
    while queue:
        item = queue.pop()
        for recipe in book.recipes(item):
            for name in recipe.ingredient_names():
                if name not in seen and name != target:
                    seen.add(name)
                    queue.append(name)
    return frozenset(seen | {CRAFTING_TABLE})


def crafter_step(target: str, count: int, inv: Mapping[str, int], collectable: list[str],
                 version: str | None = None) -> tuple[Move | None, dict[str, int]]:
    """(the next command, what is missing that only others have). (None, {}) when `count` targets are held."""
    need = count - inv.get(target, 0)
    if need <= 0:
        return None, {}
    book = recipe_book(version) if version else recipe_book()
    plan = book.plan(target, need, dict(inv), table_available=False)
    if not plan.craftable:
        return None, {target: need}
    if plan.complete:
        step = plan.steps[0]
        return Move(f'!craftRecipe("{step.item}", {step.crafts})', f"Crafting {step.produces} {step.item}."), {}
    for item, n in plan.missing.items():
        if item in collectable:
            return Move(f'!collectBlocks("{_COLLECT_AS.get(item, item)}", {n})',
                        f"Nobody has {item}, so I'm collecting {n}.", item, n), {}
    return None, dict(plan.missing)
