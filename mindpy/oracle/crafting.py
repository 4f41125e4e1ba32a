"""Crafting tasks: the crafter's next step from its inventory, and which items a helper hands over.

Recipes with a slot that takes any of several items: minecraft-data lists most of them once per variant (a
pickaxe from each kind of planks), and the recipe planner picks the variant the inventory holds. Dyeing is the
exception: the game dyes any wool (carpet, bed) but the result's own colour, while minecraft-data 1.21 lists one
stand-in (blue_wool from blue_dye and black_wool; black_wool from black_dye and blue_wool), which makes coloured
wool look like a base resource. So the crafter counts what it holds of the other colours as the stand-in before
planning, never plans with a recipe that uses the target itself, asks for "wool of any colour but blue", and
helpers hand over every colour.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from ..recipes import COLOURS, CRAFTING_TABLE, CraftingPlan, RecipeBook, colour_split, dye_slots, recipe_book
from .cooking import Move
from .dialogue import item_list

# Base items the crafter may collect in the world when the goal says nobody holds them.
_COLLECT_AS = {"oak_log": "oak_log"}
_MAX_DEPTH = 3  # ingredients worked towards in place of a target the planner cannot plan, nested


def _book(version: str | None) -> RecipeBook:
    return recipe_book(version) if version else recipe_book()


@lru_cache(maxsize=256)
def relevant_items(target: str, version: str | None = None) -> frozenset[str]:
    """Every item that can go into crafting `target` (any recipe, any depth, any colour a dyeing recipe takes),
    and a crafting table."""
    book = _book(version)
    seen: set[str] = set()
    queue = [target]
    while queue:
        item = queue.pop()
        for recipe in book.recipes(item):
            for name in recipe.ingredient_names():
                if name not in seen and name != target:
                    seen.add(name)
                    queue.append(name)
        for members in dye_slots(item, version).values():
            seen |= members - {target}  # substitutes only: what they are made of is not needed
    return frozenset(seen | {CRAFTING_TABLE})


def _wanted_slots(target: str, plan: CraftingPlan, version: str | None) -> dict[str, frozenset[str]]:
    """The dyeing stand-ins worth filling: those of the target's own recipes, and the missing ones of the
    items the plan crafts, each with its substitutes."""
    slots = dict(dye_slots(target, version))
    for step in plan.steps:
        for stand_in, members in dye_slots(step.item, version).items():
            if stand_in in plan.missing:
                slots.setdefault(stand_in, members)
    return slots


def _fill(held: dict[str, int], slots: Mapping[str, frozenset[str]], target: str) -> bool:
    """Count held substitutes as their stand-ins; True when something moved."""
    moved = False
    for stand_in, members in slots.items():
        for member in sorted(members - {target, stand_in}):
            if held.get(member, 0) > 0:
                held[stand_in] = held.get(stand_in, 0) + held.pop(member)
                moved = True
    return moved


def _target_lack(book: RecipeBook, target: str, need: int, held: Mapping[str, int]) -> dict[str, int]:
    """What the target's own recipe still needs, when the planner finds no way (its only recipe counts as a
    recolouring): the recipe that lacks least, never one that uses the target itself."""
    best: dict[str, int] | None = None
    for recipe in book.recipes(target):
        if target in recipe.ingredient_names():
            continue
        crafts = -(-need // recipe.count)
        lack = {n: k * crafts - held.get(n, 0) for n, k in recipe.ingredients if held.get(n, 0) < k * crafts}
        if best is None or sum(lack.values()) < sum(best.values()):
            best = lack
    return best if best is not None else {target: need}


def _shortfall(plan: CraftingPlan) -> tuple[bool, int]:
    """How far a plan is from done (lower is better); not craftable at all counts one more."""
    return not plan.complete, sum(plan.missing.values()) + (0 if plan.craftable else 1)


def plan_with_stand_ins(target: str, need: int, inv: Mapping[str, int], version: str | None = None
                        ) -> tuple[CraftingPlan, dict[str, int]]:
    """(the best plan, the inventory it counts on): the plain plan, or one that counts the held substitutes as
    the stand-ins of the dyeing recipes it wants (see _wanted_slots), whichever lacks less."""
    book = _book(version)
    plain = book.plan(target, need, inv)
    if plain.complete:
        return plain, dict(inv)
    held = dict(inv)
    if not _fill(held, _wanted_slots(target, plain, version), target):
        return plain, dict(inv)
    trial = book.plan(target, need, held)
    return (trial, held) if _shortfall(trial) < _shortfall(plain) else (plain, dict(inv))


def _towards_own_recipe(target: str, need: int, held: dict[str, int], collectable: list[str],
                        version: str | None, depth: int) -> tuple[Move | None, dict[str, int]]:
    """The planner finds no way to the target: its recipes count as recolourings, used only once every
    ingredient is held. Work towards the ingredients of the recipe that lacks least instead: craft the ones
    that can be crafted, ask for the rest."""
    slots = dye_slots(target, version)
    _fill(held, slots, target)  # a held substitute is not lacking
    lack = _target_lack(_book(version), target, need, held)
    out: dict[str, int] = {}
    for item, n in lack.items():
        if item in slots or depth >= _MAX_DEPTH:
            out[item] = n
            continue
        move, missing = crafter_step(item, held.get(item, 0) + n, held, collectable, version, depth + 1)
        if move is not None:
            return move, {}
        for name, k in missing.items():
            out[name] = out.get(name, 0) + k
    return None, out


def crafter_step(target: str, count: int, inv: Mapping[str, int], collectable: list[str],
                 version: str | None = None, depth: int = 0) -> tuple[Move | None, dict[str, int]]:
    """(the next command, what is missing that only others have). (None, {}) when `count` targets are held.
    `depth` counts the ingredients worked towards in place of a target the planner cannot plan."""
    need = count - inv.get(target, 0)
    if need <= 0:
        return None, {}
    plan, held = plan_with_stand_ins(target, need, inv, version)
    if plan.complete:
        step = plan.steps[0]
        return Move(f'!craftRecipe("{step.item}", {step.crafts})', f"Crafting {step.produces} {step.item}."), {}
    if not plan.craftable or target in plan.missing:
        return _towards_own_recipe(target, need, held, collectable, version, depth)
    for item, n in plan.missing.items():
        if item in collectable:
            return Move(f'!collectBlocks("{_COLLECT_AS.get(item, item)}", {n})',
                        f"Nobody has {item}, so I'm collecting {n}.", item, n), {}
    return None, dict(plan.missing)


def lack_text(target: str, count: int, inv: Mapping[str, int], lack: Mapping[str, int],
              version: str | None = None) -> str:
    """The lacking items as prose; the stand-in of a dyeing recipe the plan uses as what it stands for, "1 wool
    of any colour but blue" (colour words, not item names: a partner reads no item it should give)."""
    plan, _ = plan_with_stand_ins(target, max(1, count - inv.get(target, 0)), inv, version)
    slots = _wanted_slots(target, plan, version)
    named: dict[str, int] = {}
    for item, n in lack.items():
        name, split = item, colour_split(item)
        if item in slots and split is not None:
            kind, takes = split[1], slots[item] | {item}
            excluded = [c for c in COLOURS if f"{c}_{kind}" not in takes]
            name = f"{kind} of any colour" + (f" but {' or '.join(excluded)}" if excluded else "")
        named[name] = named.get(name, 0) + n
    return item_list(named)
