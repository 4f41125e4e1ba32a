"""Dish steps as bot commands: what a cook is told to do for each step of a dish of mindpy.tasks.families.orders.book.

    step_command(DISHES["bread"].steps[0])   # '!collectBlocks("wheat", 3)'
    dish_commands("baked_potato")            # ['!collectBlocks("potatoes", 1)', '!smeltItem("potato", 1)',
                                             #  '!putInChest("baked_potato", 1)']

Farm steps dig the crop's block, pasture steps attack the animal, furnace steps smelt the input, crafting steps
craft the output (as many crafts as the output count needs); a finished dish goes into the serving chest.
"""

from __future__ import annotations

from ..tasks.families.orders.book import DIG, DISHES, HAND_CRAFT, KILL, SMELT, TABLE_CRAFT, Step

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


# Steps a command that is no dish step takes: serving, giving, taking from a chest, walking to a teammate.
OTHER_COMMAND_STEPS = 1


def _args(command: str) -> list[str]:
    inside = command.split("(", 1)[1].rsplit(")", 1)[0] if "(" in command else ""
    return [a.strip().strip('"').strip("'") for a in inside.split(",") if a.strip()]


def _count_arg(args: list[str], index: int) -> int:
    try:
        return max(1, int(args[index]))
    except (IndexError, ValueError):
        return 1


def _table_craft(item: str) -> bool:
    """Whether the workload model crafts `item` at the table (a dish step's station; unknown items: the table)."""
    for dish in DISHES.values():
        for step in dish.steps:
            if step.output[0] == item and step.station in ("crafting_table", "none"):
                return step.station == "crafting_table"
    return True


def command_steps(command: str) -> int:
    """The game steps a command occupies its cook for, by the workload model of the dish steps (book.py): a
    block dug DIG per block, a kill KILL, an item smelted SMELT per item, a craft HAND_CRAFT or TABLE_CRAFT per
    craft; any other command (serving, giving...) OTHER_COMMAND_STEPS. A dish step's own command takes the
    step's busy time, so a dish's commands take its workload W.

        command_steps('!collectBlocks("wheat", 3)')   # 3
        command_steps('!smeltItem("beef", 1)')        # 3
    """
    key = " ".join(command.strip().split())
    if not key.startswith("!"):
        key = "!" + key
    if key in DISH_STEP_BUSY:
        return DISH_STEP_BUSY[key]
    name = command.strip().lstrip("!").split("(", 1)[0].strip()
    args = _args(command)
    if name == "collectBlocks":
        return DIG * _count_arg(args, 1)
    if name == "attack":
        return KILL
    if name == "smeltItem":
        return SMELT * _count_arg(args, 1)
    if name == "craftRecipe":
        item = args[0] if args else ""
        return (TABLE_CRAFT if _table_craft(item) else HAND_CRAFT) * _count_arg(args, 1)
    return OTHER_COMMAND_STEPS


# A dish step's command -> its busy time (the workload model's figure, whatever the command's count says).
DISH_STEP_BUSY = {step_command(step): step.busy for dish in DISHES.values() for step in dish.steps}
