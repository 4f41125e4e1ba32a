"""Crafting plans from minecraft-data recipes: what a target item takes, down to base resources, against an
inventory.

    book = recipe_book("1.21.1")
    p = book.plan("wooden_pickaxe", 1, {"oak_log": 1})
    p.missing               # {"oak_log": 2}: 3 logs make the planks for the pickaxe, its sticks and a table
    p.steps                 # oak_planks (3 crafts), crafting_table, stick, wooden_pickaxe
    p.needs_crafting_table, p.base_resources, p.depth
    print(p.text())         # the !getCraftingPlan answer
    book.craftable({"oak_log": 2})   # what can be crafted right now

Base resources are items with no crafting recipe (logs, ores and ingots, crops, mob drops...). Choices:
- Cycles. A recipe that uses its own result is never used to plan, and neither is the "unpacking" side of a
  pair of recipes that make each other (iron_block -> 9 iron_ingot, hay_block -> 9 wheat, and recolouring, which
  minecraft-data lists as one ring of colours: coloured wool is a base resource, shorn from sheep),
  nor a recipe made from nuggets (9 iron_nugget -> iron_ingot): ingots, wheat... stay base resources. Such
  "reverse" recipes are still used when the inventory already holds all their ingredients (an iron block in
  the inventory can give the ingots), and `craftable` lists them. Longer cycles are cut while walking the tree.
- Among an item's recipes (minecraft-data lists one per wood type, stone type, colour...), those whose
  ingredients the inventory holds, or can be crafted from, come first; then plain ones (oak over other woods,
  cobblestone over blackstone, no bamboo, colours matching the result). The best few of each item are tried in
  the whole plan; the plan with the fewest missing items wins (an unusual one counts five times unless some is
  held), then the one with fewest kinds of them, using most of the inventory, the plainest.
- Each item is crafted in one step, with enough crafts for every use of it (1 log -> 4 planks serves both the
  sticks and the pickaxe); the steps are in an order that works. Items the inventory holds are used first.
- Recipes wider or taller than 2x2 (or with more than 4 ingredients) need a crafting table. When one is needed
  and neither the inventory holds one nor `table_available` says one is near, crafting one is added to the plan.
- The target itself is not taken from the inventory: the plan is for making `count` more.
Smelting is not planned (minecraft-data has no furnace recipes); missing items that come out of a furnace get a
hint ("smelt raw_iron").
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property, lru_cache
from types import MappingProxyType
from typing import Any

from . import DEFAULT_MINECRAFT_VERSION
from .mcdata import MinecraftData, minecraft_data

CRAFTING_TABLE = "crafting_table"

# Containers a recipe gives back (minecraft-data does not record them): cake leaves three empty buckets.
CONTAINER_RETURNS = {"milk_bucket": "bucket", "water_bucket": "bucket", "lava_bucket": "bucket",
                     "honey_bottle": "glass_bottle"}

# Where common furnace outputs come from: hints only, for missing base resources.
SMELTED_FROM = {
    "iron_ingot": "raw_iron", "gold_ingot": "raw_gold", "copper_ingot": "raw_copper", "glass": "sand",
    "stone": "cobblestone", "smooth_stone": "stone", "brick": "clay_ball", "charcoal": "oak_log",
    "cooked_beef": "beef", "cooked_porkchop": "porkchop", "cooked_chicken": "chicken", "cooked_mutton": "mutton",
    "cooked_rabbit": "rabbit", "cooked_cod": "cod", "cooked_salmon": "salmon", "baked_potato": "potato",
    "dried_kelp": "kelp", "green_dye": "cactus", "netherite_scrap": "ancient_debris", "terracotta": "clay",
    "smooth_sandstone": "sandstone", "nether_brick": "netherrack", "popped_chorus_fruit": "chorus_fruit",
    "lime_dye": "sea_pickle", "sponge": "wet_sponge", "cracked_stone_bricks": "stone_bricks",
}

_PLAIN_WOOD = "oak_"
_OTHER_MATERIALS = (
    "spruce_", "birch_", "jungle_", "acacia_", "dark_oak_", "mangrove_", "cherry_", "pale_oak_", "bamboo",
    "crimson_", "warped_", "blackstone", "polished_blackstone", "cobbled_deepslate", "deepslate",
    "polished_deepslate", "stripped_",
)
COLOURS = ("white", "orange", "magenta", "light_blue", "yellow", "lime", "pink", "gray", "light_gray", "cyan",
           "purple", "blue", "brown", "green", "red", "black")
_UNUSUAL = frozenset({"charcoal", "honey_bottle", "honey_block"})


def colour_of(name: str) -> str | None:
    """The dye colour an item name starts with ("light_gray" for light_gray_wool, not "gray"); None without one."""
    found = [c for c in COLOURS if name.startswith(c + "_")]
    return max(found, key=len) if found else None


def _unusual(ingredient: str, result: str) -> bool:
    """Whether an ingredient is a less usual choice for this result (a rarer wood or stone, another colour)."""
    if ingredient in _UNUSUAL:
        return True
    for suffix in ("_wood", "_hyphae"):  # bark blocks where the log does the same job
        if ingredient.endswith(suffix) and not result.endswith(suffix):
            return True
    for prefix in _OTHER_MATERIALS:
        if ingredient.startswith(prefix) and not result.startswith(prefix.rstrip("_")):
            return True
    colour = colour_of(ingredient)
    return bool(colour and colour != "white" and colour_of(result) != colour)


@dataclass(frozen=True)
class Recipe:
    """One crafting recipe: what it makes, how many, from which ingredients, and if a table is needed."""

    result: str
    count: int                                  # items one craft makes
    ingredients: tuple[tuple[str, int], ...]    # (item, number per craft), in the recipe's order
    needs_table: bool                           # larger than the 2x2 inventory grid
    index: int = 0                              # position among minecraft-data's recipes for the result

    @property
    def units(self) -> int:
        return sum(n for _, n in self.ingredients)

    def ingredient_names(self) -> list[str]:
        return [name for name, _ in self.ingredients]

    def ingredient_dict(self) -> dict[str, int]:
        return dict(self.ingredients)

    def returns(self) -> list[tuple[str, int]]:
        return [(CONTAINER_RETURNS[n], k) for n, k in self.ingredients if n in CONTAINER_RETURNS]


def parse_recipe(data: MinecraftData, item: str, index: int, entry: dict) -> Recipe | None:
    """One of minecraft-data's recipe entries for `item`; None when it names unknown items or none at all."""
    by_id = data.items_by_id
    if "inShape" in entry:
        shape = entry["inShape"]
        ids = [i for row in shape for i in row if i is not None]
        needs_table = len(shape) > 2 or any(len(row) > 2 for row in shape)
    elif "ingredients" in entry:
        ids = list(entry["ingredients"])
        needs_table = len(ids) > 4
    else:
        return None
    counts: Counter = Counter()
    for i in ids:
        if i not in by_id:
            return None
        counts[by_id[i]["name"]] += 1
    if not counts:
        return None
    count = int(entry.get("result", {}).get("count", 1)) or 1
    return Recipe(item, count, tuple(counts.items()), needs_table, index)


def parse_recipes(data: MinecraftData) -> dict[str, list[Recipe]]:
    """Every item's crafting recipes, in minecraft-data's order (items without a usable one left out). The task
    generators build on this too: a change to what it returns changes the hashed task splits."""
    out: dict[str, list[Recipe]] = {}
    for item in sorted(data.recipes):
        parsed = [r for r in (parse_recipe(data, item, i, e) for i, e in enumerate(data.recipes_for(item))) if r]
        if parsed:
            out[item] = parsed
    return out


@dataclass(frozen=True)
class Step:
    """One step of a plan: a recipe and how many times to craft it."""

    recipe: Recipe
    crafts: int                                 # how many times the recipe is used (the !craftRecipe num)

    @property
    def item(self) -> str:
        return self.recipe.result

    @property
    def produces(self) -> int:
        return self.crafts * self.recipe.count

    @property
    def inputs(self) -> dict[str, int]:
        return {name: n * self.crafts for name, n in self.recipe.ingredients}

    def text(self) -> str:
        parts = " + ".join(f"{n} {name}" for name, n in self.inputs.items())
        line = f"Craft {parts} -> {self.produces} {self.item}"
        if self.crafts > 1:
            line += f" (the recipe used {self.crafts} times)"
        return line


@dataclass
class CraftingPlan:
    """How to craft a target from an inventory: the steps in order, what is missing and what is left."""

    target: str
    count: int
    steps: list[Step] = field(default_factory=list)
    missing: dict[str, int] = field(default_factory=dict)         # base resources to get first
    from_inventory: dict[str, int] = field(default_factory=dict)  # what the plan takes from the inventory
    base_resources: dict[str, int] = field(default_factory=dict)  # base resources consumed (held or missing)
    leftover: dict[str, int] = field(default_factory=dict)        # made beyond what is needed, containers back
    needs_crafting_table: bool = False
    depth: int = 0          # longest chain of crafts from base resources to the target (planks 1, stick 2...)
    craftable: bool = True  # False when the target has no crafting recipe
    hints: dict[str, str] = field(default_factory=dict)           # other ways to get a missing item

    @property
    def complete(self) -> bool:
        """Everything needed is in the inventory."""
        return self.craftable and not self.missing

    def text(self) -> str:
        """The plan as the model reads it (the answer to !getCraftingPlan)."""
        if not self.craftable:
            hint = ""
            if self.target in SMELTED_FROM:
                hint = f" It comes out of a furnace: smelt {SMELTED_FROM[self.target]}."
            return (f"{self.target} has no crafting recipe: it is a base resource. Get it by mining, farming, "
                    f"smelting, trading or from mobs.{hint}")
        lines: list[str] = []
        if self.missing:
            lines.append("You are missing the following items:")
            for name, n in self.missing.items():
                hints = []
                if name in SMELTED_FROM:
                    hints.append(f"smelt {SMELTED_FROM[name]}")
                if name in self.hints:
                    hints.append(self.hints[name])
                lines.append(f"- {n} {name}" + (f" ({'; '.join(hints)})" if hints else ""))
            lines.append("")
            lines.append("Once you have these items, here's your crafting plan:")
        else:
            lines.append(f"You have everything needed for {self.count} {self.target}. Here's your crafting plan:")
        lines.append("")
        lines.extend(step.text() for step in self.steps)
        table_steps = [s.item for s in self.steps if s.recipe.needs_table]
        if table_steps:
            lines.append("")
            lines.append(f"A crafting table is needed for: {', '.join(table_steps)}.")
        if self.leftover:
            lines.append("Left over afterwards: " + ", ".join(f"{n} {name}" for name, n in self.leftover.items()) + ".")
        return "\n".join(lines)


@dataclass(frozen=True)
class Craftable:
    """An item the inventory can craft now, with how many crafts and items that allows."""

    item: str
    times: int      # how many times the best recipe can be used now
    count: int      # items that makes

    def __str__(self) -> str:
        return f"{self.item} (up to {self.count})"


def _inventory(inventory: Mapping[str, int] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for name, n in (inventory or {}).items():
        name = str(name)
        if name.startswith("minecraft:"):
            name = name[len("minecraft:"):]
        if isinstance(n, (int, float)) and n > 0:
            out[name] = out.get(name, 0) + int(n)
    return out


class RecipeBook:
    """The crafting recipes of one Minecraft version, and plans made from them."""

    TRIES_PER_ITEM = 4  # recipes evaluated in full for an item with several
    PASSES = 3          # rounds of trying them
    PAIR_TRIES = 150    # plans tried changing two items at once, when something is missing

    def __init__(self, data: MinecraftData):
        self.data = data
        self._source_sets: dict[str, frozenset[str]] = {}  # memo of _sources

    # ---- recipes -----------------------------------------------------------------------------------------
    @cached_property
    def _recipes(self) -> dict[str, list[Recipe]]:
        return parse_recipes(self.data)

    def recipes(self, item: str) -> list[Recipe]:
        """Every recipe for an item, reverse ones included."""
        return list(self._recipes.get(item, []))

    def one_craft_from(self, inv: Mapping[str, int]) -> list[str]:
        """The items one craft makes from `inv` alone (a recipe whose every ingredient it holds, a crafting table
        at hand), sorted."""
        return sorted(item for item, recipes in self._recipes.items()
                      if any(all(inv.get(name, 0) >= n for name, n in r.ingredient_dict().items()) for r in recipes))

    @cached_property
    def _reverse(self) -> frozenset[Recipe]:
        """Recipes used to plan only when the inventory holds all their ingredients (see the module doc)."""
        makers: dict[str, list[Recipe]] = self._recipes
        reverse: set[Recipe] = set()
        for item, recipes in makers.items():
            for r in recipes:
                names = r.ingredient_names()
                if item in names:
                    reverse.add(r)
                    continue
                for ing in names:
                    back = [b for b in makers.get(ing, []) if item in b.ingredient_names()]
                    if not back:
                        continue
                    if any(n.endswith("_nugget") for n in names):
                        reverse.add(r)
                        break
                    ratio = r.count / r.units
                    if any(ratio > b.count / b.units for b in back):
                        reverse.add(r)  # the unpacking side: iron_block -> 9 iron_ingot
                        break
                    if any(ratio == b.count / b.units for b in back):
                        reverse.add(r)  # recolouring (minecraft-data keeps one dyeing recipe per colour,
                        break           # from another colour, in a ring): coloured wool etc. are base

        return frozenset(reverse)

    def forward_recipes(self, item: str) -> list[Recipe]:
        """The recipes used to plan from scratch (reverse ones left out)."""
        return [r for r in self._recipes.get(item, []) if r not in self._reverse]

    def is_base(self, item: str) -> bool:
        """No recipe to plan with: a base resource."""
        return not self.forward_recipes(item)

    def _sources(self, item: str) -> frozenset[str]:
        """Every item that can end up, through forward recipes, in crafting `item`."""
        known = self._source_sets.get(item)
        if known is not None:
            return known
        seen: set[str] = set()
        queue = deque([item])
        while queue:
            current = queue.popleft()
            for r in self.forward_recipes(current):
                for name in r.ingredient_names():
                    if name not in seen and name != item:
                        seen.add(name)
                        queue.append(name)
        known = self._source_sets[item] = frozenset(seen)
        return known

    # ---- choosing recipes -------------------------------------------------------------------------------
    def _candidates(self, item: str, stack: frozenset[str], inv: Mapping[str, int]) -> list[Recipe | None]:
        """The recipes worth trying for `item`, best guess first; None (get it as a base resource) is among them
        when the only recipes are reverse ones."""
        options: list[tuple[tuple, Recipe]] = []
        held = set(inv)
        for r in self._recipes.get(item, []):
            names = r.ingredient_names()
            if item in names or any(n in stack for n in names):
                continue
            is_reverse = r in self._reverse
            if is_reverse and not all(inv.get(n, 0) >= k for n, k in r.ingredients):
                continue
            unreachable = sum(1 for n in names if n not in held and not (self._sources(n) & held))
            plainness = sum(_unusual(n, item) for n in names)
            # roughly how much of the ingredients the inventory holds, directly or as things they are made from
            coverage = sum(inv.get(n, 0) + sum(inv.get(src, 0) for src in self._sources(n) & held) for n in names)
            options.append(((unreachable, plainness, -coverage, is_reverse, r.index), r))
        options.sort(key=lambda pair: pair[0])
        out: list[Recipe | None] = [r for _, r in options]
        if out and self.is_base(item):
            out.append(None)
        return out

    def _tree(self, roots: list[str], inv: Mapping[str, int], override: Mapping[str, Recipe | None]
              ) -> tuple[dict[str, Recipe | None], dict[str, list[Recipe | None]]]:
        """The recipe chosen for every item below the roots (None for base resources), and the alternatives."""
        chosen: dict[str, Recipe | None] = {}
        options: dict[str, list[Recipe | None]] = {}

        def visit(item: str, stack: frozenset[str]) -> None:
            if item in chosen:
                return
            candidates = self._candidates(item, stack, inv)
            options[item] = candidates
            pick = override[item] if item in override else (candidates[0] if candidates else None)
            if pick is not None and any(n in stack or n == item for n in pick.ingredient_names()):
                pick = candidates[0] if candidates else None
            chosen[item] = pick
            if pick is not None:
                inner = stack | {item}
                for name in pick.ingredient_names():
                    visit(name, inner)

        for root in roots:
            visit(root, frozenset())
        return chosen, options

    @staticmethod
    def _order(roots: list[str], chosen: dict[str, Recipe | None]) -> list[str]:
        """Items with ingredients before what they make; a cycle through shared items is cut (made base)."""
        def visit(item: str, state: dict[str, int], order: list[str]) -> str | None:
            """Depth-first from `item`; returns the item to cut when a cycle is met, else None."""
            cut: str | None = None
            state[item] = 1
            recipe = chosen.get(item)
            for name in (recipe.ingredient_names() if recipe else ()):
                if cut:
                    return cut
                if state.get(name) == 1:
                    return item
                if name not in state:
                    cut = visit(name, state, order)
            state[item] = 2
            order.append(item)
            return cut

        while True:
            order: list[str] = []
            state: dict[str, int] = {}
            cut: str | None = None
            for root in roots:
                if root not in state and not cut:
                    cut = visit(root, state, order)
            if cut is None:
                return order
            chosen[cut] = None

    def _evaluate(self, target: str, count: int, inv: dict[str, int], table_available: bool,
                  override: Mapping[str, Recipe | None]) -> tuple[CraftingPlan, dict[str, list[Recipe | None]], bool]:
        roots = [target]
        plan, options, invalid = self._demand(roots, target, count, inv, override)
        tables_left = inv.get(CRAFTING_TABLE, 0) - plan.from_inventory.get(CRAFTING_TABLE, 0)  # crafter uses one
        if plan.needs_crafting_table and not table_available and target != CRAFTING_TABLE and tables_left <= 0:
            plan, options, invalid = self._demand([CRAFTING_TABLE, target], target, count, inv, override)
            plan.needs_crafting_table = True
            made = [s.item for s in plan.steps]
            first_big = next((i for i, s in enumerate(plan.steps) if s.recipe.needs_table), len(made))
            if CRAFTING_TABLE in made and made.index(CRAFTING_TABLE) > first_big:
                invalid = True  # the table would be made from something that needs a table
        return plan, options, invalid

    def _demand(self, roots: list[str], target: str, count: int, inv: dict[str, int],
                override: Mapping[str, Recipe | None]) -> tuple[CraftingPlan, dict[str, list[Recipe | None]], bool]:
        chosen, options = self._tree(roots, inv, override)
        order = self._order(roots, chosen)
        demand: Counter = Counter({target: count})
        for root in roots:
            if root != target:
                demand[root] += 1
        available = dict(inv)
        plan = CraftingPlan(target, count)
        steps: dict[str, Step] = {}
        used: Counter = Counter()
        missing: Counter = Counter()
        base: Counter = Counter()
        leftover: Counter = Counter()
        invalid = False
        for item in reversed(order):  # what is made before its ingredients: all its uses are known
            need = demand[item]
            if need <= 0:
                continue
            recipe = chosen.get(item)
            if item != target:
                take = min(available.get(item, 0), need)
                if take:
                    available[item] -= take
                    used[item] += take
                    need -= take
            if recipe is None:
                base[item] += demand[item]
                if need:
                    missing[item] += need
                continue
            if need == 0:
                continue
            crafts = math.ceil(need / recipe.count)
            steps[item] = Step(recipe, crafts)
            if crafts * recipe.count > need:
                leftover[item] += crafts * recipe.count - need
            if recipe in self._reverse and any(inv.get(n, 0) < k * crafts for n, k in recipe.ingredients):
                invalid = True  # a reverse recipe may only use what is already held
            for name, n in recipe.ingredients:
                demand[name] += n * crafts
            for container, n in recipe.returns():
                leftover[container] += n * crafts
        plan.steps = [steps[item] for item in order if item in steps]
        position = {item: i for i, item in enumerate(order)}
        plan.missing = dict(sorted(missing.items(), key=lambda kv: position.get(kv[0], 0)))
        for name in plan.missing:
            sources = [r for r in self._recipes.get(name, [])
                       if r in self._reverse and name not in r.ingredient_names()]
            if sources:
                r = max(sources, key=lambda r: (r.count / r.units, -r.index))  # unpacking a block first
                made = " + ".join(f"{k} {n}" for n, k in r.ingredients)
                plan.hints[name] = f"or craft {r.count} from {made}"
        plan.from_inventory = dict(used)
        plan.base_resources = dict(base)
        plan.leftover = dict(leftover)
        plan.needs_crafting_table = any(s.recipe.needs_table for s in plan.steps)
        plan.craftable = chosen.get(target) is not None
        depths: dict[str, int] = {}
        for item in order:
            recipe = chosen.get(item)
            depths[item] = 0 if recipe is None else 1 + max(depths.get(n, 0) for n in recipe.ingredient_names())
        plan.depth = depths.get(target, 0)
        return plan, options, invalid

    # ---- the public calls ------------------------------------------------------------------------------
    def plan(self, target: str, count: int = 1, inventory: Mapping[str, int] | None = None, *,
             table_available: bool = False) -> CraftingPlan:
        """How to craft `count` x `target` from `inventory` (item name -> count). `table_available`: a crafting
        table is at hand in the world, so none needs to be crafted."""
        if target not in self.data.items_by_name:
            raise ValueError(f"unknown item {target!r}")
        if count < 1:
            raise ValueError(f"count must be at least 1, got {count}")
        inv = _inventory(inventory)
        override: dict[str, Recipe | None] = {}
        best, options, invalid = self._evaluate(target, count, inv, table_available, override)
        best_score = self._score(best, invalid, inv)
        # try the next best recipes of each item with alternatives, keeping a change when it leaves less missing
        state: list[Any] = [best, best_score, override, options]
        self._descend(target, count, inv, table_available, state)
        for _ in range(self.PASSES):
            # two changes at once: e.g. the table from oak while the tools use the birch held
            if not (state[0].missing and inv and self._pairs(target, count, inv, table_available, state)):
                break
            self._descend(target, count, inv, table_available, state)
        return state[0]

    def _try(self, target: str, count: int, inv: dict[str, int], table_available: bool, state: list,
             trial: dict) -> bool:
        plan, options, invalid = self._evaluate(target, count, inv, table_available, trial)
        score = self._score(plan, invalid, inv)
        if score < state[1]:
            state[:] = [plan, score, trial, options]
            return True
        return False

    def _descend(self, target: str, count: int, inv: dict[str, int], table_available: bool, state: list) -> None:
        """Change one item's recipe at a time while that improves the plan."""
        for _ in range(self.PASSES):
            improved = False
            tried: set[str] = set()
            queue = [item for item, c in state[3].items() if len(c) > 1]
            while queue:
                item = queue.pop(0)
                if item in tried:
                    continue
                tried.add(item)
                candidates = state[3].get(item, [])
                for candidate in candidates[: self.TRIES_PER_ITEM]:
                    current = state[2].get(item, candidates[0] if candidates else None)
                    if candidate == current:
                        continue
                    if self._try(target, count, inv, table_available, state, {**state[2], item: candidate}):
                        improved = True
                        queue.extend(i for i, c in state[3].items() if len(c) > 1 and i not in tried)
            if not improved:
                return

    def _pairs(self, target: str, count: int, inv: dict[str, int], table_available: bool, state: list) -> bool:
        """Change two items' recipes at once (a bounded number of tries); True if that improved the plan."""
        items = [item for item, c in state[3].items() if len(c) > 1]
        budget = self.PAIR_TRIES
        for a in range(len(items)):
            for b in range(a + 1, len(items)):
                first, second = items[a], items[b]
                for ca in state[3].get(first, [])[: self.TRIES_PER_ITEM]:
                    for cb in state[3].get(second, [])[: self.TRIES_PER_ITEM]:
                        if budget <= 0:
                            return False
                        budget -= 1
                        if self._try(target, count, inv, table_available, state,
                                     {**state[2], first: ca, second: cb}):
                            return True
        return False

    @staticmethod
    def _score(plan: CraftingPlan, invalid: bool, inv: Mapping[str, int]) -> tuple:
        """Lower is better: valid; fewer missing items, an unusual one (bamboo, honey, a rarer wood...) counting
        five times unless the inventory holds some; fewer kinds of them; more use of the inventory; plainer
        recipes; fewer steps."""
        cost = sum(n * (5 if name not in inv and _unusual(name, plan.target) else 1)
                   for name, n in plan.missing.items())
        plainness = sum(_unusual(n, s.item) for s in plan.steps for n in s.recipe.ingredient_names())
        return (invalid, cost, len(plan.missing), -sum(plan.from_inventory.values()), plainness, len(plan.steps))

    def raw_materials(self, target: str, count: int = 1) -> dict[str, int]:
        """The base resources `count` x `target` takes from an empty inventory (crafting table not counted)."""
        return dict(self.plan(target, count, {}, table_available=True).missing)

    def depth(self, target: str) -> int:
        """Longest chain of crafts from base resources to `target` (0 for a base resource)."""
        return self.plan(target, 1, {}, table_available=True).depth

    def craftable(self, inventory: Mapping[str, int] | None, *, table_available: bool = False) -> list[Craftable]:
        """What can be crafted right now with one recipe from `inventory`, sorted by name. Recipes needing a
        crafting table count only when one is in the inventory or `table_available`."""
        inv = _inventory(inventory)
        table = table_available or inv.get(CRAFTING_TABLE, 0) > 0
        out: list[Craftable] = []
        for item, recipes in self._recipes.items():
            best = 0
            best_count = 0
            for r in recipes:
                if r.needs_table and not table:
                    continue
                times = min(inv.get(name, 0) // n for name, n in r.ingredients)
                if times * r.count > best_count:
                    best, best_count = times, times * r.count
            if best > 0:
                out.append(Craftable(item, best, best_count))
        return out

    def craftable_text(self, inventory: Mapping[str, int] | None, *, table_available: bool = False) -> str:
        items = self.craftable(inventory, table_available=table_available)
        if not items:
            return "You cannot craft anything with your inventory."
        return "CRAFTABLE_ITEMS\n" + "\n".join(f"- {c}" for c in items)


@cache
def recipe_book(version: str = DEFAULT_MINECRAFT_VERSION) -> RecipeBook:
    """The RecipeBook of a Minecraft version, shared process-wide (built once per version)."""
    return RecipeBook(minecraft_data(version))


def plan(target: str, count: int = 1, inventory: Mapping[str, int] | None = None, *, table_available: bool = False,
         version: str = DEFAULT_MINECRAFT_VERSION) -> CraftingPlan:
    """`recipe_book(version).plan(...)`."""
    return recipe_book(version).plan(target, count, inventory, table_available=table_available)


def craftable(inventory: Mapping[str, int] | None, *, table_available: bool = False,
              version: str = DEFAULT_MINECRAFT_VERSION) -> list[Craftable]:
    """`recipe_book(version).craftable(...)`."""
    return recipe_book(version).craftable(inventory, table_available=table_available)


def crafting_plan_text(target: str, count: int, inventory: Mapping[str, int] | None, *,
                       table_available: bool = False, version: str = DEFAULT_MINECRAFT_VERSION) -> str:
    """The !getCraftingPlan answer."""
    return plan(target, count, inventory, table_available=table_available, version=version).text()


def colour_split(name: str) -> tuple[str, str] | None:
    """("light_gray", "wool") for light_gray_wool; None for an item without a colour."""
    colour = colour_of(name)
    return (colour, name[len(colour) + 1:]) if colour else None


@lru_cache(maxsize=1024)
def dye_slots(result: str, version: str | None = None) -> Mapping[str, frozenset[str]]:
    """The stand-in ingredients of `result`'s dyeing recipes -> every item that may take their place: the
    same thing in any colour but the result's own. Read-only (it is cached)."""
    made = colour_split(result)
    if made is None or made[1] == "dye":  # a dye is mixed, not dyed
        return MappingProxyType({})
    colour, kind = made
    book = recipe_book(version) if version else recipe_book()
    known = book.data.items_by_name
    slots: dict[str, frozenset[str]] = {}
    for recipe in book.recipes(result):
        names = recipe.ingredient_names()
        if f"{colour}_dye" not in names:  # dyeing: the result's own dye on another colour
            continue
        for name in names:
            split = colour_split(name)
            if split and split[1] == kind and split[0] != colour:
                slots[name] = frozenset(f"{c}_{kind}" for c in COLOURS if c != colour and f"{c}_{kind}" in known)
    return MappingProxyType(slots)


__all__ = ["COLOURS", "CRAFTING_TABLE", "Craftable", "CraftingPlan", "Recipe", "RecipeBook", "Step", "colour_of",
           "colour_split", "craftable", "crafting_plan_text", "dye_slots", "parse_recipe", "parse_recipes", "plan",
           "recipe_book"]
