"""The crafting-recipe tree the task generators need: one canonical recipe per item, recipe depth, and what a
target breaks down into a given number of levels down.

The recipes are mindpy.recipes' (`parse_recipes`), their ingredients sorted by name. The choice below is its own and
frozen in behaviour: the generated train/test splits are checked by hash, so it must not change when the general
recipe planner (mindpy/recipes.py) evolves.

Choosing among minecraft-data's recipes for an item (it lists one per wood type, stone type, ...):
- a recipe is left out if it uses the item itself, or an ingredient that is itself made from the item (a block of
  iron <-> ingots, nuggets <-> ingots): such items are base resources, not crafted;
- among the rest, the one with the fewest "odd" ingredients wins: another wood than oak, bamboo, nether woods,
  blackstone or deepslate variants, and colours the result itself does not carry; ties go to the earliest listed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

from ..mcdata import MinecraftData
from ..recipes import Recipe, colour_of, parse_recipes

_ODD_PREFIXES = (
    "spruce_", "birch_", "jungle_", "acacia_", "dark_oak_", "mangrove_", "cherry_", "pale_oak_", "bamboo",
    "crimson_", "warped_", "blackstone", "polished_blackstone", "cobbled_deepslate", "deepslate", "polished_deepslate",
    "stripped_",
)
_ODD_ITEMS = frozenset({"honey_bottle", "honey_block", "charcoal"})


def _odd(ingredient: str, result: str) -> bool:
    if ingredient in _ODD_ITEMS:
        return True
    for suffix in ("_wood", "_hyphae"):  # bark blocks where the log does the same job
        if ingredient.endswith(suffix) and not result.endswith(suffix):
            return True
    for prefix in _ODD_PREFIXES:
        if ingredient.startswith(prefix) and not result.startswith(prefix.rstrip("_")):
            return True
    colour = colour_of(ingredient)
    if colour and colour != "white" and colour_of(result) != colour:
        return True
    return False


@dataclass(frozen=True)
class Breakdown:
    """What `count` of `target` takes when the inventory holds items `depth` levels below the target's own
    ingredients."""

    target: str
    count: int
    depth: int
    resources: dict[str, int]      # what the agents are given, between them
    crafts: tuple[tuple[str, int], ...]  # (item, number of crafts), deepest first, target last
    needs_table: bool


class RecipeTree:
    """One canonical recipe per item (see the module doc), with recipe depths and breakdowns."""

    def __init__(self, data: MinecraftData):
        self.data = data

    @cached_property
    def _all(self) -> dict[str, list[Recipe]]:
        # sorted ingredients: the cycle cut in _canonical walks them in this order
        return {item: [replace(r, ingredients=tuple(sorted(r.ingredients))) for r in recipes]
                for item, recipes in parse_recipes(self.data).items()}

    @cached_property
    def _canonical(self) -> dict[str, Recipe]:
        made_from: dict[str, set[str]] = {item: {n for r in rs for n, _ in r.ingredients}
                                          for item, rs in self._all.items()}
        chosen: dict[str, Recipe] = {}
        for item, recipes in self._all.items():
            usable = [r for r in recipes
                      if all(n != item and item not in made_from.get(n, ()) for n, _ in r.ingredients)]
            if not usable:
                continue
            scored = [(sum(_odd(n, item) for n, _ in r.ingredients), i, r) for i, r in enumerate(usable)]
            chosen[item] = min(scored)[2]
        # Break longer cycles: drop the recipe of the item where a walk first comes back to itself.
        state: dict[str, int] = {}

        def walk(item: str) -> None:
            state[item] = 1
            recipe = chosen.get(item)
            if recipe is not None:
                for name, _ in recipe.ingredients:
                    if state.get(name) == 1:
                        chosen.pop(item, None)
                        break
                    if name not in state:
                        walk(name)
            state[item] = 2

        for item in sorted(chosen):
            if item not in state:
                walk(item)
        return chosen

    def recipe(self, item: str) -> Recipe | None:
        """The canonical recipe, or None for a base resource."""
        return self._canonical.get(item)

    def is_base(self, item: str) -> bool:
        return item not in self._canonical

    def craftable_items(self) -> list[str]:
        return sorted(self._canonical)

    @cached_property
    def _depths(self) -> dict[str, int]:
        depths: dict[str, int] = {}

        def depth(item: str) -> int:
            if item in depths:
                return depths[item]
            recipe = self._canonical.get(item)
            if recipe is None:
                value = -1
            else:
                value = 1 + max(depth(n) for n, _ in recipe.ingredients)
            depths[item] = value
            return value

        for item in sorted(self._canonical):
            depth(item)
        return depths

    def max_depth(self, item: str) -> int:
        """0 when every ingredient is a base resource; one more per level of crafted ingredients; -1 for a base
        resource itself."""
        return self._depths.get(item, -1)

    def breakdown(self, target: str, count: int = 1, depth: int = 0) -> Breakdown:
        """The ingredients of `count` x `target`, with crafted ingredients broken down `depth` more levels."""
        recipe = self._canonical[target]
        crafts_needed = math.ceil(count / recipe.count)
        crafts: list[tuple[str, int]] = [(target, crafts_needed)]
        needs_table = recipe.needs_table
        level: dict[str, int] = {}
        for name, n in recipe.ingredients:
            level[name] = level.get(name, 0) + n * crafts_needed
        for _ in range(depth):
            nxt: dict[str, int] = {}
            changed = False
            for name in sorted(level):
                need = level[name]
                sub = self._canonical.get(name)
                if sub is None:
                    nxt[name] = nxt.get(name, 0) + need
                    continue
                changed = True
                k = math.ceil(need / sub.count)
                crafts.append((name, k))
                needs_table = needs_table or sub.needs_table
                for ing, n in sub.ingredients:
                    nxt[ing] = nxt.get(ing, 0) + n * k
            level = nxt
            if not changed:
                break
        merged: dict[str, int] = {}
        for name, k in reversed(crafts):
            merged[name] = merged.get(name, 0) + k
        return Breakdown(target, count, depth, dict(sorted(level.items())), tuple(merged.items()), needs_table)
