"""The construction site of a CoBlock task: where its structure G stands, and the box around it that set-up clears,
the checker reads and `!placeBlock` keeps agents inside.

    box = site_box(task)          # (min_x, min_y, min_z, max_x, max_y, max_z), both ends included
    cells = structure_cells(task) # {(x, y, z): "red_wool", ...}: G
    in_site(task, x, y, z)        # inside the box?

The box is the blueprint's bounding box (every level's whole placement grid, air included), widened by
SITE_MARGIN blocks on each horizontal side and SITE_MARGIN above the top level; its bottom is the structure's
lowest layer (y = -60 in generated tasks, standing on the superflat ground at y = -61), so the ground itself is
never part of the site. A task without a blueprint (one built in code) uses its private goals' bounding box.

Functions take any object with `blueprint` and coblock `fields` (a Task), so commands can pass their context's task.
"""

from __future__ import annotations

from typing import Any

from ...blueprint import block_base_name
from .fields import private_goals_of

SITE_MARGIN = 2  # blocks of free room around the structure (each horizontal side, and above)

Cell = tuple[int, int, int]
Box = tuple[int, int, int, int, int, int]


class NoStructureError(ValueError):
    """The task has no blueprint and no private goals: there is no structure, hence no site."""


def structure_cells(task: Any) -> dict[Cell, str]:
    """G: every block of the structure, from the private goals united (they partition the blueprint's non-air
    cells; a validated task guarantees it). Without private goals, the blueprint's non-air cells."""
    goals = private_goals_of(task)
    cells = {(int(x), int(y), int(z)): block_base_name(str(block))
             for goal in goals.values() for x, y, z, block in goal}
    blueprint = getattr(task, "blueprint", None)
    if not cells and blueprint is not None:
        cells = {(c.x, c.y, c.z): block_base_name(c.block) for c in blueprint.cells(include_air=False)}
    return cells


def site_box(task: Any) -> Box:
    """(min_x, min_y, min_z, max_x, max_y, max_z) of the site, both ends included. Raises NoStructureError."""
    blueprint = getattr(task, "blueprint", None)
    if blueprint is not None and blueprint.levels:
        (x0, y0, z0), (x1, y1, z1) = blueprint.bounds()
    else:
        cells = structure_cells(task)
        if not cells:
            raise NoStructureError(f"Task '{getattr(task, 'id', '?')}' has no structure: a coblock task needs a "
                                   f"blueprint or private goals")
        xs, ys, zs = zip(*cells, strict=True)
        x0, y0, z0, x1, y1, z1 = min(xs), min(ys), min(zs), max(xs), max(ys), max(zs)
    m = SITE_MARGIN
    return x0 - m, y0, z0 - m, x1 + m, y1 + m, z1 + m


def in_site(task: Any, x: int, y: int, z: int) -> bool:
    """Whether the cell (x, y, z) lies inside the task's site box."""
    x0, y0, z0, x1, y1, z1 = site_box(task)
    return x0 <= x <= x1 and y0 <= y <= y1 and z0 <= z <= z1


def box_cells(box: Box) -> list[Cell]:
    """Every cell of a box, layer by layer (bottom up), row by row."""
    x0, y0, z0, x1, y1, z1 = box
    return [(x, y, z) for y in range(y0, y1 + 1) for z in range(z0, z1 + 1) for x in range(x0, x1 + 1)]


def box_text(box: Box) -> str:
    """'x 98..111, y -60..-53, z -102..-89': the bounds, as agents read them."""
    x0, y0, z0, x1, y1, z1 = box
    return f"x {x0}..{x1}, y {y0}..{y1}, z {z0}..{z1}"
