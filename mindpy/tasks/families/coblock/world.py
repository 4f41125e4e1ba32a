"""The CoBlock site: the site box (mindpy.tasks.families.coblock.site) and the strip south of it emptied over a
restored floor, and the agents standing side by side COBLOCK_GAP blocks south of the box, facing it (north)."""

from __future__ import annotations

from ...world import Position, TaskSetup, fill_chunked
from .site import site_box, structure_cells

COBLOCK_GAP = 2     # coblock agents stand this many blocks south of the site box
FACING_NORTH = 180  # yaw, in degrees, of a player looking towards -z


def plan_coblock_site(setup: TaskSetup, count: int) -> list[Position]:
    """Empty the site box and the strip where the agents stand (over a restored floor, so leftovers of an earlier
    episode go and nothing is missing underfoot); returns the agents' spots: COBLOCK_GAP blocks south of the box,
    spread evenly along x."""
    x0, y0, z0, x1, y1, z1 = setup.site = site_box(setup.task)
    south = z1 + COBLOCK_GAP
    setup.commands += fill_chunked((x0, y0, z0), (x1, y1, south + 1), "air")
    setup.commands += fill_chunked((x0, y0 - 1, z0), (x1, y0 - 1, south + 1), "grass_block")
    for cell in structure_cells(setup.task):
        setup.expected_blocks[cell] = "air"
    for corner in ((x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)):
        setup.expected_blocks[corner] = "air"
    spots = [(x0 + round((i + 1) * (x1 - x0) / (count + 1)), y0, south) for i in range(count)]
    for x, y, z in spots:
        setup.expected_blocks[(x, y - 1, z)] = "grass_block"
    return spots
