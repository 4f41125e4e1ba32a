"""The map of a defuse task: five walled rooms joined by doors, five colour-coded bombs and the agents' cutters.

    layout = generate_layout(seed=7, agents=3)
    layout.hub, layout.neighbours(layout.hub)       # the room joined to every other room, and its neighbours
    layout.bombs[0].sequence                        # ("red", "blue"): the cutters it takes, in order
    layout.cutters[0]                               # ("red", "green"): what agent 0 (Alpha) holds
    Layout.from_dict(layout.to_dict()) == layout    # True: task files carry the layout as a dict

After "Theory of Mind for Multi-Agent Collaboration via Large Language Models" (Li et al., 2023), section 3.1 and
appendix A: five rooms (n = 5), one of them a hub joined to all the others, plus one or two hallways between
other rooms; five bombs, two with one phase, two with two and one with three (9 phases, 90 points), one bomb a
room (the paper's action space, n + m + 1, has one "Inspect Bomb" and one "Apply X Tool" per colour, naming no
bomb, so a room holds one); phases in three colours (m = 3). Start rooms, room numbering, hallways, which bomb
goes to which room and the sequences are drawn from the seed, as the paper randomises them per trial.

Physical plan (room boxes include their walls, 3 blocks high on the superflat ground, y = -60..-58): the hub is a
hall 17 x 5 inside, with three rooms 5 x 5 inside along its north wall and one along its south wall. Neighbouring
rooms share a wall; a hallway of the graph is a door, a gap 1 wide and 2 high in the middle of the shared wall.
Two north rooms side by side may be joined (the spoke-to-spoke hallways), so every graph drawn here can be built.
The plan sits at ORIGIN, 30 blocks south of the construction sites (150, -60, -170).

Cutters (two colours each, as in the paper's appendix A.1):
- 3 agents: Alpha red+green, Bravo green+blue, Charlie blue+red, the pairs dealt to agents by the seed; every
  colour is held by exactly two agents.
- 2 agents: red+green and green+blue (dealt by the seed): green is held by both, red and blue by one each.
- 4 agents: the three pairs above and the first of them again: two colours are held by three agents, one by two.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...generators.common import rng_for

COLOURS = ("red", "green", "blue")
AGENT_NAMES = ("Alpha", "Bravo", "Charlie", "Delta")
MIN_AGENTS, MAX_AGENTS = 2, 4
ROOM_COUNT = 5
PHASE_COUNTS = (1, 1, 2, 2, 3)     # the paper's five bombs: 9 phases
POINTS_PER_PHASE = 10
MAX_BOMBS_PER_ROOM = 1          # see the module doc; the game still plays files with more
ORIGIN = (150, -60, -140)          # north-west corner of the plan
WALL_HEIGHT = 3
CUTTER_PAIRS = (("red", "green"), ("green", "blue"), ("blue", "red"))

Box = tuple[int, int, int, int, int, int]
Cell = tuple[int, int, int]

# Slots of the plan, (x0, z0, x1, z1) of the walls relative to ORIGIN; "hub" is joined to all the others.
_SLOTS: dict[str, tuple[int, int, int, int]] = {
    "hub": (0, 6, 18, 12),
    "north_west": (0, 0, 6, 6),
    "north": (6, 0, 12, 6),
    "north_east": (12, 0, 18, 6),
    "south": (6, 12, 12, 18),
}
_SPOKES = ("north_west", "north", "north_east", "south")
_SPOKE_HALLWAYS = (("north_west", "north"), ("north", "north_east"))  # pairs that share a wall


@dataclass(frozen=True)
class Room:
    """A room: its number in the game and its box in the world (walls included, both ends included)."""

    id: int
    box: Box


@dataclass(frozen=True)
class Door:
    """A hallway between two rooms: the lower cell of a 1 x 2 gap in their shared wall."""

    rooms: tuple[int, int]
    cell: Cell


@dataclass(frozen=True)
class Bomb:
    """A bomb: its number, its room, the cutter colours that defuse it in order, and where it stands."""

    id: int
    room: int
    sequence: tuple[str, ...]
    cell: Cell

    @property
    def points(self) -> int:
        return POINTS_PER_PHASE * len(self.sequence)


@dataclass(frozen=True)
class Layout:
    """Everything fixed at the start of a defuse task."""

    rooms: tuple[Room, ...]
    hub: int
    hallways: tuple[tuple[int, int], ...]   # room pairs, smaller number first
    doors: tuple[Door, ...]
    bombs: tuple[Bomb, ...]
    cutters: tuple[tuple[str, ...], ...]    # by agent index
    start_rooms: tuple[int, ...]            # by agent index
    _adjacent: dict[int, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        adjacent: dict[int, list[int]] = {room.id: [] for room in self.rooms}
        for a, b in self.hallways:   # a hallway to an unknown room is left to check()
            adjacent.get(a, []).append(b)
            adjacent.get(b, []).append(a)
        self._adjacent.update({room: tuple(sorted(ns)) for room, ns in adjacent.items()})

    @property
    def agent_count(self) -> int:
        return len(self.cutters)

    @property
    def room_ids(self) -> tuple[int, ...]:
        return tuple(sorted(room.id for room in self.rooms))

    def neighbours(self, room: int) -> tuple[int, ...]:
        """The rooms one hallway away, in number order."""
        return self._adjacent[room]

    def bomb(self, bomb_id: int) -> Bomb:
        for bomb in self.bombs:
            if bomb.id == bomb_id:
                return bomb
        raise ValueError(f"no bomb {bomb_id}: bombs are {', '.join(str(b.id) for b in self.bombs)}")

    def room(self, room_id: int) -> Room:
        for room in self.rooms:
            if room.id == room_id:
                return room
        raise ValueError(f"no room {room_id}: rooms are {', '.join(map(str, self.room_ids))}")

    def max_score(self) -> int:
        return sum(bomb.points for bomb in self.bombs)

    def to_dict(self) -> dict[str, Any]:
        """The layout as JSON-ready data (the task file's `layout`, `bombs` and `cutters`, together)."""
        return {
            "rooms": [{"id": r.id, "box": list(r.box)} for r in self.rooms],
            "hub": self.hub,
            "hallways": [list(h) for h in self.hallways],
            "doors": [{"rooms": list(d.rooms), "cell": list(d.cell)} for d in self.doors],
            "bombs": [{"id": b.id, "room": b.room, "sequence": list(b.sequence), "cell": list(b.cell)}
                      for b in self.bombs],
            "cutters": {str(i): list(c) for i, c in enumerate(self.cutters)},
            "start_rooms": {str(i): r for i, r in enumerate(self.start_rooms)},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Layout:
        """The layout back from `to_dict`'s data. Raises ValueError naming what is missing or wrong."""
        try:
            rooms = tuple(Room(int(r["id"]), _box(r["box"])) for r in data["rooms"])
            bombs = tuple(Bomb(int(b["id"]), int(b["room"]), tuple(str(c) for c in b["sequence"]), _cell(b["cell"]))
                          for b in data["bombs"])
            agents = len(data["cutters"])
            layout = cls(
                rooms=rooms,
                hub=int(data["hub"]),
                hallways=tuple((int(a), int(b)) for a, b in data["hallways"]),
                doors=tuple(Door((int(d["rooms"][0]), int(d["rooms"][1])), _cell(d["cell"])) for d in data["doors"]),
                bombs=bombs,
                cutters=tuple(tuple(str(c) for c in data["cutters"][str(i)]) for i in range(agents)),
                start_rooms=tuple(int(data["start_rooms"][str(i)]) for i in range(agents)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"bad defuse layout ({type(exc).__name__}: {exc}): it needs rooms, hub, hallways, "
                             f"doors, bombs, cutters and start_rooms as written by Layout.to_dict") from None
        layout.check()
        return layout

    def check(self) -> None:
        """Raise ValueError when the parts do not fit together (unknown rooms, colours or agents)."""
        ids = set(self.room_ids)
        problems = [f"hallway {h} joins an unknown room" for h in self.hallways if not set(h) <= ids]
        problems += [f"bomb {b.id} is in unknown room {b.room}" for b in self.bombs if b.room not in ids]
        problems += [f"bomb {b.id} has a colour outside {', '.join(COLOURS)}" for b in self.bombs
                     if not b.sequence or not set(b.sequence) <= set(COLOURS)]
        problems += [f"agent {i} starts in unknown room {r}" for i, r in enumerate(self.start_rooms) if r not in ids]
        problems += [f"agent {i} holds a cutter outside {', '.join(COLOURS)}" for i, c in enumerate(self.cutters)
                     if not set(c) <= set(COLOURS)]
        if self.hub not in ids:
            problems.append(f"the hub {self.hub} is not one of the rooms")
        for what, numbers in (("room", [r.id for r in self.rooms]), ("bomb", [b.id for b in self.bombs])):
            twice = sorted({n for n in numbers if numbers.count(n) > 1})
            if twice:
                problems.append(f"{what} numbers given twice: {', '.join(map(str, twice))}")
        if not MIN_AGENTS <= self.agent_count <= MAX_AGENTS:
            problems.append(f"{self.agent_count} agents: a defuse task has {MIN_AGENTS} to {MAX_AGENTS}")
        if problems:
            raise ValueError(f"bad defuse layout: {'; '.join(problems)}")


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def _box(values: Sequence[Any]) -> Box:
    x0, y0, z0, x1, y1, z1 = (int(v) for v in values)
    return x0, y0, z0, x1, y1, z1


def _cell(values: Sequence[Any]) -> Cell:
    x, y, z = (int(v) for v in values)
    return x, y, z


def cutters_for(agents: int, rng: random.Random) -> tuple[tuple[str, ...], ...]:
    """Two colours per agent, dealt as the module docstring says (the pairs' order is drawn)."""
    if not MIN_AGENTS <= agents <= MAX_AGENTS:
        raise ValueError(f"agents must be {MIN_AGENTS} to {MAX_AGENTS} for a defuse task, got {agents}")
    if agents == 2:
        pairs = list(CUTTER_PAIRS[:2])
    else:
        pairs = list(CUTTER_PAIRS) + list(CUTTER_PAIRS[:1]) * (agents - 3)
    rng.shuffle(pairs)
    return tuple(pairs)


def _world_box(slot: str) -> Box:
    ox, oy, oz = ORIGIN
    x0, z0, x1, z1 = _SLOTS[slot]
    return ox + x0, oy, oz + z0, ox + x1, oy + WALL_HEIGHT - 1, oz + z1


def _door_cell(a: str, b: str) -> Cell:
    """The middle of the wall slots a and b share."""
    ax0, az0, ax1, az1 = _SLOTS[a]
    bx0, bz0, bx1, bz1 = _SLOTS[b]
    x0, x1 = max(ax0, bx0), min(ax1, bx1)
    z0, z1 = max(az0, bz0), min(az1, bz1)
    ox, oy, oz = ORIGIN
    return ox + (x0 + x1) // 2, oy, oz + (z0 + z1) // 2


def _bomb_cells(box: Box) -> list[Cell]:
    """Floor cells for bombs: two cells in from the walls on each side, off the doorways (wall middles)."""
    x0, y0, z0, x1, _, z1 = box
    xs = sorted({x0 + 2, x1 - 2, *range(x0 + 2, x1 - 1, 4)} - {(x0 + x1) // 2})
    zs = [z0 + 2, z1 - 2]
    return [(x, y0, z) for x in xs for z in zs]


def generate_layout(seed: int, agents: int = 3) -> Layout:
    """The layout of one task; the same seed and agent count give the same layout."""
    if isinstance(agents, bool) or not isinstance(agents, int):
        raise ValueError(f"agents must be a whole number from {MIN_AGENTS} to {MAX_AGENTS}, got {agents!r}")
    rng = rng_for("defuse", "layout", seed, agents)
    cutters = cutters_for(agents, rng)
    numbers = list(range(ROOM_COUNT))
    rng.shuffle(numbers)
    slots = ("hub", *_SPOKES)
    number_of = dict(zip(slots, numbers, strict=True))
    rooms = tuple(sorted((Room(number_of[s], _world_box(s)) for s in slots), key=lambda r: r.id))

    joined = [("hub", spoke) for spoke in _SPOKES]
    extra = rng.sample(_SPOKE_HALLWAYS, rng.choice((1, 2)))
    joined += sorted(extra)
    doors = tuple(sorted((Door(_pair(number_of[a], number_of[b]), _door_cell(a, b)) for a, b in joined),
                         key=lambda d: d.rooms))
    hallways = tuple(door.rooms for door in doors)

    phases = list(PHASE_COUNTS)
    rng.shuffle(phases)
    free = {room.id: _bomb_cells(room.box) for room in rooms}
    for cells in free.values():
        rng.shuffle(cells)
    bombs: list[Bomb] = []
    for bomb_id, count in enumerate(phases, start=1):
        room = rng.choice([r for r in sorted(free) if len(free[r]) > 0 and
                           sum(1 for b in bombs if b.room == r) < MAX_BOMBS_PER_ROOM])
        sequence = tuple(rng.choice(COLOURS) for _ in range(count))
        bombs.append(Bomb(bomb_id, room, sequence, free[room].pop()))
    start_rooms = tuple(rng.choice(numbers) for _ in range(agents))
    layout = Layout(rooms, number_of["hub"], hallways, doors, tuple(bombs), cutters, start_rooms)
    layout.check()
    return layout
