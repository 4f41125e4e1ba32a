"""How to get an item in the cooking world, one command at a time.

The cooking world has crops (wheat, potatoes, carrots, beetroots, pumpkins), sugar cane, mushrooms, animals and a
fuelled furnace, smoker and crafting table. What it lacks (bowls, eggs, milk, gold, apples, cocoa beans, flowers)
only the agents' inventories hold: those items are "lacking" when not held, to be asked for. A bowl nobody on the
team holds (the task's inventories say so) is made instead, from the kitchen's plank walls (world_made): the walls
are the cooking world's own (mindpy.tasks.families.cooking.world.KITCHEN_WALL, which the solvability check reads
too) and the bowl's recipe is minecraft-data's (mindpy.recipes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from ..recipes import Recipe, recipe_book
from ..tasks.families.cooking import world as kitchen

# The direct ingredients of each dish and of the crafted things dishes need (crafted at the crafting table).
CRAFTED: dict[str, dict[str, int]] = {
    "bread": {"wheat": 3},
    "cake": {"milk_bucket": 3, "sugar": 2, "egg": 1, "wheat": 3},
    "cookie": {"wheat": 2, "cocoa_beans": 1},
    "golden_carrot": {"carrot": 1, "gold_nugget": 8},
    "golden_apple": {"apple": 1, "gold_ingot": 8},
    "pumpkin_pie": {"pumpkin": 1, "sugar": 1, "egg": 1},
    "mushroom_stew": {"brown_mushroom": 1, "red_mushroom": 1, "bowl": 1},
    "beetroot_soup": {"beetroot": 6, "bowl": 1},
    "suspicious_stew": {"brown_mushroom": 1, "red_mushroom": 1, "bowl": 1, "dandelion": 1},
    "rabbit_stew": {"cooked_rabbit": 1, "baked_potato": 1, "carrot": 1, "brown_mushroom": 1, "bowl": 1},
    "sugar": {"sugar_cane": 1},
}
CRAFT_YIELD = {"cookie": 8}  # items one craft makes, when more than one

# Cooked item -> the raw item that goes into the furnace.
SMELTED: dict[str, str] = {
    "baked_potato": "potato", "cooked_beef": "beef", "cooked_porkchop": "porkchop", "cooked_chicken": "chicken",
    "cooked_mutton": "mutton", "cooked_rabbit": "rabbit",
}
# Item -> the block to collect for it (crops are harvested when ripe).
HARVESTED: dict[str, str] = {
    "wheat": "wheat", "potato": "potatoes", "carrot": "carrots", "beetroot": "beetroots", "pumpkin": "pumpkin",
    "sugar_cane": "sugar_cane", "brown_mushroom": "brown_mushroom", "red_mushroom": "red_mushroom",
}
# Raw meat -> the animal that drops it.
HUNTED: dict[str, str] = {"beef": "cow", "porkchop": "pig", "chicken": "chicken", "mutton": "sheep",
                          "rabbit": "rabbit"}


@dataclass
class Move:
    """One command to run, with the sentence that goes with it."""

    command: str
    say: str
    item: str = ""   # what the command is meant to get, and how many: asked of partners when it keeps failing
    count: int = 0

    def text(self) -> str:
        return f"{self.say} {self.command}".strip()


def world_blocks() -> dict[str, str]:
    """Item -> the block to dig for it, of the kitchen's own blocks: its walls (the world module's KITCHEN_WALL, as
    the solvability check reads them from the world's commands)."""
    return {kitchen.KITCHEN_WALL: kitchen.KITCHEN_WALL}


def world_made() -> dict[str, dict[str, int]]:
    """What the kitchen makes when nobody holds it: item -> the direct ingredients of one craft. The items dishes
    need that nothing else here gives, made by a minecraft-data recipe of the kitchen's blocks alone (a bowl of
    three wall planks). Used only when the task's inventories show nobody holds the item (`world`)."""
    return {item: recipe.ingredient_dict() for item, recipe in _world_recipes(kitchen.KITCHEN_WALL).items()}


@cache
def _world_recipes(wall: str) -> dict[str, Recipe]:
    """Item -> the recipe (mindpy.recipes.Recipe) that makes it of the wall block alone (see world_made)."""
    parts = {part for recipe in CRAFTED.values() for part in recipe}
    others = set(CRAFTED) | set(SMELTED) | set(HARVESTED) | set(HUNTED) | {wall}
    book = recipe_book()
    out: dict[str, Recipe] = {}
    for item in sorted(parts - others):
        made = [r for r in book.forward_recipes(item) if set(r.ingredient_names()) <= {wall}]
        if made:
            out[item] = made[0]
    return out


def _craft_yield(item: str) -> int:
    """Items one craft makes (a bowl's recipe makes four)."""
    world = _world_recipes(kitchen.KITCHEN_WALL)
    return CRAFT_YIELD.get(item) or (world[item].count if item in world else 1)


def _recipe(item: str, world: frozenset[str] = frozenset()) -> dict[str, int] | None:
    """The direct ingredients of a crafted item: its dish recipe, or the world's when `world` names it."""
    if item in CRAFTED:
        return CRAFTED[item]
    return world_made().get(item) if item in world else None


def obtainable(item: str, world: frozenset[str] = frozenset()) -> bool:
    """Can it be made from what the world offers (given nothing)? `world`: the items of world_made nobody holds,
    which the kitchen makes."""
    if item in HARVESTED or item in HUNTED or item in world_blocks():
        return True
    if item in SMELTED:
        return obtainable(SMELTED[item], world)
    recipe = _recipe(item, world)
    if recipe is not None:
        return all(obtainable(i, world) for i in recipe)
    return False


def ingredients(item: str) -> set[str]:
    """Every item that goes into `item`, at any depth."""
    out: set[str] = set()
    for part in list(CRAFTED.get(item, {})) + ([SMELTED[item]] if item in SMELTED else []):
        out.add(part)
        out |= ingredients(part)
    return out


def _inputs(item: str, need: int, world: frozenset[str] = frozenset()) -> dict[str, int]:
    """What making `need` more x `item` takes directly: the raw item to smelt, or the ingredients of enough
    crafts (nothing for items the world offers)."""
    if item in SMELTED:
        return {SMELTED[item]: need}
    recipe = _recipe(item, world)
    if recipe is not None:
        crafts = -(-need // _craft_yield(item))
        return {part: n * crafts for part, n in recipe.items()}
    return {}


def lacking(item: str, count: int, inv: Mapping[str, int], world: frozenset[str] = frozenset()) -> dict[str, int]:
    """The items the world does not offer that making `count` x `item` still takes, beyond the inventory."""
    have = inv.get(item, 0)
    need = count - have
    if need <= 0:
        return {}
    if item in SMELTED:
        return lacking(SMELTED[item], need, {}, world)
    if _recipe(item, world) is not None:
        out: dict[str, int] = {}
        for part, n in _inputs(item, need, world).items():
            for name, k in lacking(part, n, inv, world).items():
                out[name] = out.get(name, 0) + k
        return out
    if obtainable(item, world):
        return {}
    return {item: need}


def needed(item: str, count: int, inv: Mapping[str, int], world: frozenset[str] = frozenset()) -> dict[str, int]:
    """How many of each item (at any depth) making `count` x `item` uses, given what the inventory already
    holds: what an agent must keep rather than give away."""
    out = {item: count}
    need = count - inv.get(item, 0)
    if need <= 0:
        return out
    for part, n in _inputs(item, need, world).items():
        for name, k in needed(part, n, inv, world).items():
            out[name] = out.get(name, 0) + k
    return out


def next_move(item: str, count: int, inv: Mapping[str, int], world: frozenset[str] = frozenset()) -> Move | None:
    """The next command towards holding `count` x `item`, or None when it is held or only lacking items are in
    the way."""
    need = count - inv.get(item, 0)
    if need <= 0:
        return None
    if item in SMELTED:
        raw = SMELTED[item]
        if inv.get(raw, 0) > 0:
            n = min(need, inv[raw])
            return Move(f'!smeltItem("{raw}", {n})', f"Cooking {n} {raw} into {item}.", item, n)
        return next_move(raw, need, inv, world)
    blocks = world_blocks()
    if item in blocks:
        block = blocks[item]
        return Move(f'!collectBlocks("{block}", {need})', f"Taking {need} {item} from the kitchen wall.",
                    item, need)
    if item in HARVESTED:
        block = HARVESTED[item]
        return Move(f'!collectBlocks("{block}", {need})', f"Getting {item} from the {block}.", item, need)
    if item in HUNTED:
        animal = HUNTED[item]
        return Move(f'!attack("{animal}")', f"Hunting a {animal} for {item}.", item, need)
    recipe = _recipe(item, world)
    if recipe is not None:
        crafts = -(-need // _craft_yield(item))
        ready = True
        for part, n in recipe.items():
            if inv.get(part, 0) < n * crafts:
                ready = False
                move = next_move(part, n * crafts, inv, world)
                if move is not None:
                    return move
        if ready:
            return Move(f'!craftRecipe("{item}", {crafts})', f"Crafting {item}.", item, need)
    return None
