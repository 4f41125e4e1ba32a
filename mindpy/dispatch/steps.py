"""Dish steps as bot commands: what a cook is told to do for each step of a dish of mindpy.tasks.families.orders.book.

    step_command(DISHES["bread"].steps[0])   # '!collectBlocks("wheat", 3)'
    dish_commands("baked_potato")            # ['!collectBlocks("potatoes", 1)', '!smeltItem("potato", 1)',
                                             #  '!putInChest("baked_potato", 1)']

Farm steps dig the crop's block, pasture steps attack the animal, furnace steps smelt the input, crafting steps
craft the output (as many crafts as the output count needs); a finished dish goes into the serving chest.
"""

from __future__ import annotations

from ..tasks.families.orders.book import DISHES, Step

# Farm items whose crop block has another name.
CROP_BLOCKS = {"potato": "potatoes", "carrot": "carrots", "beetroot": "beetroots"}
# The animal a pasture step kills for its raw meat.
MEAT_ANIMALS = {"beef": "cow", "porkchop": "pig", "chicken": "chicken", "mutton": "sheep", "rabbit": "rabbit"}
# Items a single craft makes more than one of.
CRAFT_YIELDS = {"cookie": 8}


def step_command(step: Step) -> str:
    """The command that performs one dish step, e.g. '!collectBlocks("wheat", 3)' or '!smeltItem("beef", 1)'."""
    item, count = step.output
    if step.station == "farm":
        return f'!collectBlocks("{CROP_BLOCKS.get(item, item)}", {count})'
    if step.station == "pasture":
        if item not in MEAT_ANIMALS:
            raise ValueError(f"no animal gives {item!r}; pasture steps make one of {', '.join(MEAT_ANIMALS)}")
        return f'!attack("{MEAT_ANIMALS[item]}")'
    if step.station == "furnace":
        raw, n = step.inputs[0]
        return f'!smeltItem("{raw}", {n})'
    crafts = -(-count // CRAFT_YIELDS.get(item, 1))
    return f'!craftRecipe("{item}", {crafts})'


def serve_command(dish: str) -> str:
    """Putting a finished dish in the serving chest (the chest next to the cook)."""
    return f'!putInChest("{dish}", 1)'


def dish_commands(dish: str) -> list[str]:
    """Every command that makes and serves one dish, in order."""
    if dish not in DISHES:
        raise ValueError(f"unknown dish {dish!r}; dishes: {', '.join(DISHES)}")
    return [step_command(s) for s in DISHES[dish].steps] + [serve_command(dish)]
