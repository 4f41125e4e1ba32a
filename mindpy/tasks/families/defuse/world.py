"""A defuse task's rooms and bombs in the world, built with operator commands; the pure game stays the truth and
the world mirrors it.

    world = DefuseWorld(layout, ["andy", "jill", "bob"])
    setup = world.plan()                       # a TaskSetup: commands and the blocks and places to expect
    apply_and_wait(setup, bots, issue)                        # mindpy.tasks.world
    for line in world.bomb_lines(2, ("blue",)): issue(line)     # bomb 2 shows its next colour: blue
    world.bomb_blocks(2, ())                   # {cell: "air", ...}: what a defused bomb's cells hold
    for line in world.move_lines(0, 3): issue(line)             # andy is moved into room 3

What is built (mindpy.tasks.families.defuse.layout draws the plan): the plan's area emptied over a smooth stone
floor; each room's box as stone brick walls WALL_HEIGHT high, open above; a door (1 wide, 2 high) in the shared
wall of two rooms joined by a hallway; each bomb a TNT block with a wool block on top in the colour of its next phase (a
marker for whoever watches; the agents are told only what the game tells them). A defused bomb's blocks are
removed. Every agent holds its cutters as dyes (red_dye, green_dye, blue_dye) and stands in its start room.

Moving is a teleport to the agent's own spot inside the room (the first row inside the north wall, one cell per
agent): rooms are a few steps across, and a walking bot could dig through a wall on its way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...schema import Task
from ...world import TaskSetup
from .layout import Box, Cell, Layout

WALL = "stone_bricks"
FLOOR = "smooth_stone"
BOMB = "tnt"
WOOL = {"red": "red_wool", "green": "green_wool", "blue": "blue_wool"}
DYE = {"red": "red_dye", "green": "green_dye", "blue": "blue_dye"}
MARGIN = 2   # blocks emptied around the plan, so that leftovers of an earlier build do not stand at its edges


@dataclass
class DefuseWorld:
    """The commands that build a layout and mirror the game's changes; pure: talks to no server."""

    layout: Layout
    agent_names: Sequence[str]
    task: Task | None = None

    def __post_init__(self) -> None:
        if len(self.agent_names) != self.layout.agent_count:
            raise ValueError(f"the layout has {self.layout.agent_count} agents but {len(self.agent_names)} names "
                             f"were given: give one bot name per agent")

    # ----- where things are -----
    def area(self) -> Box:
        """The box holding every room (walls included)."""
        boxes = [room.box for room in self.layout.rooms]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), min(b[2] for b in boxes),
                max(b[3] for b in boxes), max(b[4] for b in boxes), max(b[5] for b in boxes))

    def spot(self, agent: int, room: int) -> Cell:
        """Where `agent` stands in `room`: the first row inside the north wall, one cell per agent from the west."""
        x0, y0, z0, x1, _, _ = self.layout.room(room).box
        return min(x0 + 1 + agent, x1 - 1), y0, z0 + 1

    def marker_cell(self, bomb: int) -> Cell:
        """The wool block on top of a bomb."""
        x, y, z = self.layout.bomb(bomb).cell
        return x, y + 1, z

    # ----- building -----
    def plan(self) -> TaskSetup:
        """The whole build and the agents' placing, with the blocks, inventories and places to check."""
        setup = TaskSetup(self.task or _bare_task(self.layout), list(self.agent_names))
        x0, y0, z0, x1, y1, z1 = self.area()
        setup.commands.append(_fill((x0 - MARGIN, y0, z0 - MARGIN), (x1 + MARGIN, y1 + 2, z1 + MARGIN), "air"))
        setup.commands.append(_fill((x0 - MARGIN, y0 - 1, z0 - MARGIN), (x1 + MARGIN, y0 - 1, z1 + MARGIN), FLOOR))
        for room in self.layout.rooms:
            rx0, ry0, rz0, rx1, ry1, rz1 = room.box
            setup.commands.append(_fill((rx0, ry0, rz0), (rx1, ry1, rz1), WALL))
            setup.commands.append(_fill((rx0 + 1, ry0, rz0 + 1), (rx1 - 1, ry1, rz1 - 1), "air"))
            setup.expected_blocks[(rx0, ry1, rz0)] = WALL
        for door in self.layout.doors:
            x, y, z = door.cell
            setup.commands.append(_fill((x, y, z), (x, y + 1, z), "air"))
            setup.expected_blocks[(x, y + 1, z)] = "air"
        for bomb in self.layout.bombs:
            setup.commands += self.bomb_lines(bomb.id, bomb.sequence)
            setup.expected_blocks.update(self.bomb_blocks(bomb.id, bomb.sequence))
        for agent, name in enumerate(self.agent_names):
            self._place(setup, agent, name)
        return setup

    def _place(self, setup: TaskSetup, agent: int, name: str) -> None:
        items = {DYE[colour]: 1 for colour in self.layout.cutters[agent]}
        setup.commands += [f"gamemode survival {name}", f"clear {name}"]
        setup.commands += [f"give {name} {item} {count}" for item, count in items.items()]
        setup.commands += self.move_lines(agent, self.layout.start_rooms[agent])
        x, y, z = self.spot(agent, self.layout.start_rooms[agent])
        setup.positions[name] = (x + 0.5, float(y), z + 0.5)
        setup.inventories[name] = items

    # ----- mirroring the game -----
    def bomb_blocks(self, bomb: int, remaining: Sequence[str]) -> dict[Cell, str]:
        """A bomb's cells with `remaining` colours to cut: TNT under wool of the next colour; none left: air."""
        cell, marker = self.layout.bomb(bomb).cell, self.marker_cell(bomb)
        if not remaining:
            return {marker: "air", cell: "air"}
        return {cell: BOMB, marker: WOOL[remaining[0]]}

    def bomb_lines(self, bomb: int, remaining: Sequence[str]) -> list[str]:
        """The commands that show a bomb with `remaining` colours to cut (`bomb_blocks`)."""
        return [_setblock(cell, block) for cell, block in self.bomb_blocks(bomb, remaining).items()]

    def move_lines(self, agent: int, room: int) -> list[str]:
        """The agent teleported to its spot in `room`."""
        x, y, z = self.spot(agent, room)
        return [f"tp {self.agent_names[agent]} {x} {y} {z}"]  # whole x/z: the server centres them on the block


def _fill(a: Cell, b: Cell, block: str) -> str:
    return f"fill {a[0]} {a[1]} {a[2]} {b[0]} {b[1]} {b[2]} {block}"


def _setblock(cell: Cell, block: str) -> str:
    return f"setblock {cell[0]} {cell[1]} {cell[2]} {block}"


def _bare_task(layout: Layout) -> Task:
    """A task to name in a set-up built from a layout alone (tests, tools)."""
    return Task(id="defuse", type="defuse", goal="", agent_count=layout.agent_count)


__all__ = ["BOMB", "DYE", "DefuseWorld", "WALL", "WOOL"]
