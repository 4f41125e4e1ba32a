"""The cooking world: around agent 0 a grass floor, ripe crops, sugar cane, mushrooms, an enclosure with a crafting
table, a furnace and a smoker fuelled with coal and a bed, and animals (the orders family cooks in it too)."""

from __future__ import annotations

from collections.abc import Callable

from ...world import SPREAD, Position, TaskSetup, fill, plan_clear_ground, setblock

COOKING_ANIMALS = ("chicken", "cow", "pig", "rabbit", "sheep")
ANIMALS_PER_KIND = 2
FURNACE_FUEL = '{Items:[{Slot:1b,id:"minecraft:coal",count:64}]}'  # slot 1 is a furnace's fuel slot
# The kitchen's walls, dug by hand for what the world lacks: mindpy.tasks.solvable reads them from the set-up's
# commands (a team that holds no bowl can still make one of them), and the oracle (mindpy.oracle.cooking) makes
# what nobody holds of them, by minecraft-data's recipes: both read this one block.
KITCHEN_WALL = "oak_planks"

CROP_ROWS = (("wheat", "wheat[age=7]"), ("beetroots", "beetroots[age=3]"), ("potatoes", "potatoes[age=7]"),
             ("carrots", "carrots[age=7]"))


def plan_cooking_world(setup: TaskSetup, origin: Position) -> None:
    """The farm, the kitchen and the animals around agent 0's spot `origin`."""
    x0, y, z0 = origin
    plan_clear_ground(setup, origin, west=SPREAD + 1, north=12, east=24, south=12, height=5)
    at = lambda dx, dz, dy=0: (x0 + dx, y + dy, z0 + dz)  # noqa: E731  (a position relative to agent 0)

    # crops: ripe, on farmland (farmland with a crop on it does not dry out), two rows of 6 per kind, so that
    # two dishes needing the same crop (cake and bread: 3 wheat each) still leave some for a lost drop
    for row, (name, state) in enumerate(CROP_ROWS):
        dz = -11 + 2 * row
        setup.commands.append(fill(at(7, dz, -1), at(12, dz + 1, -1), "farmland[moisture=7]"))
        setup.commands.append(fill(at(7, dz), at(12, dz + 1), state))
        setup.expected_blocks[at(7, dz)] = name
        setup.expected_blocks[at(12, dz + 1)] = name
    setup.commands.append(fill(at(7, -2), at(10, -2), "pumpkin"))
    setup.expected_blocks[at(7, -2)] = "pumpkin"

    # sugar cane two high along a water line (vanilla breaks cane that has no water next to its soil)
    setup.commands.append(fill(at(15, -6, -1), at(19, -6, -1), "water"))
    setup.commands.append(fill(at(15, -5), at(19, -5, 1), "sugar_cane"))
    setup.expected_blocks[at(15, -5)] = "sugar_cane"

    # mushrooms on podzol, where they survive in daylight
    setup.commands.append(fill(at(15, -2, -1), at(19, -2, -1), "podzol"))
    setup.commands.append(fill(at(15, -2), at(16, -2), "brown_mushroom"))
    setup.commands.append(fill(at(17, -2), at(19, -2), "red_mushroom"))
    setup.expected_blocks[at(15, -2)] = "brown_mushroom"
    setup.expected_blocks[at(17, -2)] = "red_mushroom"

    plan_kitchen(setup, at)
    plan_animals(setup, at)


def plan_kitchen(setup: TaskSetup, at: Callable[..., Position]) -> None:
    """An enclosure (walls two high, open towards the agents) with the cooking stations and a bed."""
    for a, b in (((7, 3), (13, 3)), ((7, 9), (13, 9)), ((7, 3), (7, 9)), ((13, 3), (13, 9))):
        setup.commands.append(fill(at(*a), at(b[0], b[1], 1), KITCHEN_WALL))
    setup.commands.append(fill(at(7, 6), at(7, 6, 1), "air"))  # the doorway, on the agents' side
    stations = {
        "crafting_table": (at(9, 4), "crafting_table"),
        "furnace": (at(10, 4), "furnace[facing=south]"),
        "smoker": (at(11, 4), "smoker[facing=south]"),
    }
    for name, (pos, block) in stations.items():
        setblock(setup, pos, block)
        setup.stations[name] = pos
    for name in ("furnace", "smoker"):
        x, y, z = setup.stations[name]
        setup.commands.append(f"data merge block {x} {y} {z} {FURNACE_FUEL}")
    foot, head = at(11, 7), at(11, 8)  # facing=south: the head is the half at +z
    setblock(setup, foot, "red_bed[part=foot,facing=south]")
    setblock(setup, head, "red_bed[part=head,facing=south]")
    setup.stations["bed"] = foot


def plan_animals(setup: TaskSetup, at: Callable[..., Position]) -> None:
    """Animals in the open field east of the kitchen (they wander, but stay near where they were summoned)."""
    for k, kind in enumerate(COOKING_ANIMALS):
        for n in range(ANIMALS_PER_KIND):
            pos = at(17 + 2 * n, 2 + 2 * k)
            setup.commands.append(f"summon {kind} {pos[0]} {pos[1]} {pos[2]}")
            setup.animals.append((kind, pos))
