"""Construction tasks: procedurally generated houses, named materials_{m}_rooms_{r}_window_{w}_carpet_{c}_variant_{v}.

Each of m, r, w, c is a complexity level from 0 to 2:
- m, materials: 1, 2 or 4 building materials (floors and roof take the first; room walls the others);
- r, rooms: one storey of 2 rooms; two storeys of 2 rooms; two storeys of 3 rooms. Storeys are joined by a
  staircase (four stairs along the back wall of one room, with an opening in the floor above);
- w, windows: none; one glass block in each outer wall of each room; wider glass-pane windows, side walls too;
- c, carpets: none; one colour per room; two colours per room (a border around a centre).
Every house has a front door and doors between neighbouring rooms (two cells high: one door item each).

Level 0 is the ground floor at y = -60 (on the superflat surface); a storey is a floor layer and three wall
layers; the roof is the last level. Materials go to the two agents kind by kind, so that each lacks what the other
holds. Timeout: 600 s plus 300 s per room level.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ...blueprint import Blueprint
from ...generators.common import rng_for, split_by_kind

ORIGIN = (150, -60, -170)
AGENTS = 2
BASE_TIMEOUT = 600
TIMEOUT_PER_ROOM_LEVEL = 300
PALETTE = ("stone", "oak_planks", "bricks", "terracotta", "quartz_block", "stone_bricks", "sandstone",
           "cobblestone", "spruce_planks", "white_concrete")
STAIRS = {
    "stone": "stone_stairs", "oak_planks": "oak_stairs", "bricks": "brick_stairs", "quartz_block": "quartz_stairs",
    "stone_bricks": "stone_brick_stairs", "sandstone": "sandstone_stairs", "cobblestone": "cobblestone_stairs",
    "spruce_planks": "spruce_stairs",
}
DOORS = ("oak_door", "dark_oak_door", "spruce_door", "birch_door")
CARPETS = ("white_carpet", "orange_carpet", "magenta_carpet", "light_blue_carpet", "yellow_carpet", "lime_carpet",
           "pink_carpet", "gray_carpet", "light_gray_carpet", "cyan_carpet", "purple_carpet", "blue_carpet",
           "brown_carpet", "green_carpet", "red_carpet", "black_carpet")
MATERIAL_COUNTS = (1, 2, 4)
LAYOUTS = ((1, 2), (2, 2), (2, 3))  # (storeys, rooms per storey) for r = 0, 1, 2
STOREY_HEIGHT = 4  # floor + 3 wall layers


def task_name(m: int, r: int, w: int, c: int, v: int) -> str:
    """The task id of a complexity combination and variant."""
    return f"materials_{m}_rooms_{r}_window_{w}_carpet_{c}_variant_{v}"


def timeout_for(r: int) -> int:
    """The task's time limit in seconds, longer for more rooms."""
    return BASE_TIMEOUT + TIMEOUT_PER_ROOM_LEVEL * r


def house(m: int, r: int, w: int, c: int, rng, origin: tuple[int, int, int] = ORIGIN) -> Blueprint:
    """One house blueprint of the given complexity levels."""
    for name, value in (("materials", m), ("rooms", r), ("window", w), ("carpet", c)):
        if value not in (0, 1, 2):
            raise ValueError(f"{name} level must be 0, 1 or 2, got {value}")
    storeys, rooms = LAYOUTS[r]
    materials = rng.sample(PALETTE, MATERIAL_COUNTS[m])
    base = materials[0]
    wall_materials = materials[1:] or [base]
    door = rng.choice(DOORS)
    depth = rng.randint(3, 5)                      # interior cells along Z
    stair_room = rng.randrange(rooms)
    widths = [5 if (storeys > 1 and i == stair_room) else rng.randint(3, 5) for i in range(rooms)]
    # x of each room's left wall; rooms share walls
    lefts = []
    x = 0
    for width in widths:
        lefts.append(x)
        x += width + 1
    size_x, size_z = x + 1, depth + 2
    levels = storeys * STOREY_HEIGHT + 1
    grid = [[["air"] * size_x for _ in range(size_z)] for _ in range(levels)]

    def fill(layer: int, block: str) -> None:
        for row in grid[layer]:
            row[:] = [block] * size_x

    room_wall = [rng.choice(wall_materials) for _ in range(rooms)]
    for s in range(storeys):
        y0 = s * STOREY_HEIGHT
        fill(y0, base)
        for layer in range(y0 + 1, y0 + STOREY_HEIGHT):
            for i in range(rooms):
                left, right = lefts[i], lefts[i] + widths[i] + 1
                mat = room_wall[i]
                for zz in range(size_z):
                    for xx in (left, right):
                        if grid[layer][zz][xx] == "air":
                            grid[layer][zz][xx] = mat
                for xx in range(left, right + 1):
                    for zz in (0, size_z - 1):
                        if grid[layer][zz][xx] == "air":
                            grid[layer][zz][xx] = mat
    fill(levels - 1, base)  # roof

    def door_at(layer0: int, zz: int, xx: int) -> None:
        grid[layer0 + 1][zz][xx] = door
        grid[layer0 + 2][zz][xx] = door

    protected: set[tuple[int, int, int]] = set()  # (layer, z, x) that windows must not take
    # front door into the first room of the ground floor
    front_x = lefts[0] + rng.randint(1, widths[0])
    door_at(0, 0, front_x)
    protected |= {(1, 0, front_x), (2, 0, front_x)}
    # doors between neighbouring rooms, on every storey
    for s in range(storeys):
        y0 = s * STOREY_HEIGHT
        for i in range(1, rooms):
            zz = rng.randint(1, depth)
            door_at(y0, zz, lefts[i])

    # stairs to each upper storey, along the back row of the stair room
    no_carpet: set[tuple[int, int, int]] = set()
    if storeys > 1:
        stairs = STAIRS.get(base, "oak_stairs")
        back = depth  # interior rows are 1..depth
        sx = lefts[stair_room] + 1
        for s in range(storeys - 1):
            y0 = s * STOREY_HEIGHT
            for k in range(4):
                grid[y0 + 1 + k][back][sx + k] = stairs
            up = y0 + STOREY_HEIGHT
            grid[up][back][sx + 1] = "air"   # headroom through the floor above
            grid[up][back][sx + 2] = "air"
            for k in range(5):
                no_carpet.add((y0 + 1, back, sx + k))
                no_carpet.add((up + 1, back, sx + k))

    # windows at eye level (the second wall layer) in outer walls
    if w:
        glass = "glass" if w == 1 else "glass_pane"
        for s in range(storeys):
            layer = s * STOREY_HEIGHT + 2
            for i in range(rooms):
                left, width = lefts[i], widths[i]
                for zz in (0, size_z - 1):
                    span = 1 if w == 1 else min(3, width - 2 if width > 3 else 1)
                    start = left + 1 + (width - span) // 2
                    for xx in range(start, start + span):
                        if (layer, zz, xx) not in protected:
                            grid[layer][zz][xx] = glass
                            if w == 2 and (layer + 1, zz, xx) not in protected:
                                grid[layer + 1][zz][xx] = glass
            if w == 2:  # side walls of the end rooms
                for xx in (0, size_x - 1):
                    mid = 1 + (depth - 1) // 2
                    grid[layer][mid][xx] = glass

    # carpets on each room's floor (the first wall layer, inside)
    if c:
        for s in range(storeys):
            layer = s * STOREY_HEIGHT + 1
            for i in range(rooms):
                colours = rng.sample(CARPETS, 2)
                for zz in range(1, depth + 1):
                    for xx in range(lefts[i] + 1, lefts[i] + widths[i] + 1):
                        if (layer, zz, xx) in no_carpet or grid[layer][zz][xx] != "air":
                            continue
                        edge = zz in (1, depth) or xx in (lefts[i] + 1, lefts[i] + widths[i])
                        grid[layer][zz][xx] = colours[0] if (c == 1 or edge) else colours[1]

    x0, y0, z0 = origin
    return Blueprint.parse({
        "materials": {},
        "levels": [{"level": i, "coordinates": [x0, y0 + i, z0], "placement": grid[i]} for i in range(levels)],
    }, []).with_materials()  # type: ignore[union-attr]


def house_task(blueprint: Blueprint, r: int) -> dict[str, Any]:
    """The task of a house blueprint with `r` rooms: each agent holds the materials of its kinds of block."""
    kinds = split_by_kind(blueprint.required_items(), AGENTS)
    inventories = {str(i): dict(sorted({**inv, "diamond_pickaxe": 1}.items())) for i, inv in enumerate(kinds)}
    return {
        "type": "construction",
        "goal": ("Build the house of the blueprint together with the other agent, lowest level first. "
                 "You each hold only some of the materials."),
        "conversation": "Let's share materials and build the house of the blueprint.",
        "agent_count": AGENTS,
        "initial_inventory": inventories,
        "timeout": timeout_for(r),
        "blocked_actions": {str(i): [] for i in range(AGENTS)},
        "blueprint": blueprint.to_dict(),
    }


def combos() -> list[tuple[int, int, int, int]]:
    """All 81 (materials, rooms, window, carpet) complexity combinations."""
    return [(m, r, w, c) for m in range(3) for r in range(3) for w in range(3) for c in range(3)]


def generate(split: str, seed: int, count: int, *, exclude: Iterable[str] = (),
             agents: Any = None, version: str | None = None) -> dict[str, dict[str, Any]]:
    """`count` construction tasks. The test split picks distinct (m, r, w, c) combinations; the train split goes
    through all 81 combinations once per variant. Blueprints are never repeated, nor taken from `exclude`
    (fingerprints, e.g. of the test split when making the train split)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if agents not in (None, 2, "2", (2,), [2]):
        raise ValueError("construction tasks are for 2 agents")
    rng = rng_for("construction", split, seed)
    all_combos = combos()
    if split == "test":
        order = rng.sample(all_combos, len(all_combos))
    else:
        order = all_combos
    seen = set(exclude)
    tasks: dict[str, dict[str, Any]] = {}
    i = 0
    while len(tasks) < count:
        m, r, w, c = order[i % len(order)]
        v = i // len(order)
        i += 1
        for _attempt in range(50):
            blueprint = house(m, r, w, c, rng)
            fp = blueprint.fingerprint()
            if fp not in seen:
                break
        else:
            raise ValueError(f"could not make a new blueprint for {task_name(m, r, w, c, v)}")
        seen.add(fp)
        tasks[task_name(m, r, w, c, v)] = house_task(blueprint, r)
    return tasks
