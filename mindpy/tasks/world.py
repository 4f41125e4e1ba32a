"""World set-up for a MineCollab task, through operator commands only (so it works on the embedded server and on
Paper alike).

    setup = plan_setup(task, ["alice", "bob"], origin=(300, -60, 100), seed=1)   # pure: commands + expectations
    apply_setup(setup, issue_via_server(server))                              # or issue_via_bot(operator_bot)
    wait_for_setup(setup, bots)                                               # raises WorldSetupError
    # or all three at once: set_up_task(task, bots, issue, origin=None, seed=0)

What a set-up does (MINDcraft's reset, see REFERENCE "Tasks"):
- every agent: survival mode, inventory cleared, the task's initial items given, teleported near agent 0
  (a seeded random offset within 5 blocks; agent 0 stands at `origin`);
- techtree: a small forest east of the agents (trees of the wood the task lacks, oak by default);
- cooking: around agent 0 a grass floor, ripe crops, sugar cane, mushrooms, an enclosure with a crafting table, a
  furnace and a smoker fuelled with coal and a bed, and animals;
- construction: every blueprint cell set to air and the agents teleported next to level 0;
- coblock: the site box (mindpy.tasks.coblock_site) and the strip south of it emptied over a restored floor, and
  the agents standing side by side COBLOCK_GAP blocks south of the box, facing it (north); `origin` is not used.

`origin` is the block position agent 0's feet are at (its floor is one below). Structures stay at x >= origin+7 so
the agents' random spots (within 5 blocks) never land inside one.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..errors import MindpyError
from .blueprint import block_base_name
from .coblock_site import Box, site_box, structure_cells
from .schema import Task, unplayable_reason

Issue = Callable[[str], None]
Position = tuple[int, int, int]

SPREAD = 5  # agents land within this many blocks of agent 0 (x and z)
WOODS = ("oak", "spruce", "birch", "jungle", "acacia", "dark_oak", "mangrove", "cherry")
COOKING_ANIMALS = ("chicken", "cow", "pig", "rabbit", "sheep")
ANIMALS_PER_KIND = 2
ANIMAL_RANGE = 8  # animals wander up to about 6 blocks from where they were summoned
FURNACE_FUEL = '{Items:[{Slot:1b,id:"minecraft:coal",count:64}]}'  # slot 1 is a furnace's fuel slot
FILL_LIMIT = 32768  # blocks one /fill may change (vanilla's and Paper's limit)
COBLOCK_GAP = 2     # coblock agents stand this many blocks south of the site box
FACING_NORTH = 180  # yaw, in degrees, of a player looking towards -z


class WorldSetupError(MindpyError):
    """The world did not reach the state a task's set-up asked for in time; the message lists what is wrong."""


@dataclass
class TaskSetup:
    """What a task's set-up sends and what the world should look like afterwards."""

    task: Task
    agent_names: list[str]
    commands: list[str] = field(default_factory=list)
    positions: dict[str, tuple[float, float, float]] = field(default_factory=dict)  # where each agent stands
    inventories: dict[str, dict[str, int]] = field(default_factory=dict)
    goals: dict[str, str] = field(default_factory=dict)
    blocked_actions: dict[str, list[str]] = field(default_factory=dict)
    expected_blocks: dict[Position, str] = field(default_factory=dict)  # a sample the set-up check reads back
    stations: dict[str, Position] = field(default_factory=dict)  # cooking: crafting_table, furnace, smoker, bed
    animals: list[tuple[str, Position]] = field(default_factory=list)
    site: Box | None = None  # coblock: the construction site box (min x, y, z, max x, y, z)

    @property
    def timeout(self) -> float:
        return self.task.timeout

    @property
    def opening_message(self) -> tuple[str, str] | None:
        """(agent 0's name, the text it opens the conversation with), or None when the task has none."""
        if not self.task.conversation or not self.agent_names:
            return None
        return self.agent_names[0], self.task.conversation


# ----- issuing commands -----
def issue_via_server(server) -> Issue:
    """Commands go to the embedded server's console (no reply comes back; `wait_for_setup` checks the effect)."""
    return lambda line: server.command(line.strip().lstrip("/"))


def issue_via_bot(bot) -> Issue:
    """Commands go through an operator bot's chat (works on any server where that bot is an operator).
    Keep lines under 256 characters: longer chat messages are split by mineflayer."""
    return lambda line: bot.command(line)


# ----- planning -----
def plan_setup(task: Task, agent_names: Sequence[str], origin: Position | None = None, seed: int = 0) -> TaskSetup:
    """Every command of the task's set-up, and the state to expect after it. Pure: talks to no server."""
    names = list(agent_names)
    refusal = unplayable_reason(task)
    if refusal:
        raise WorldSetupError(f"Task '{task.id}': {refusal}")
    if len(names) < task.agent_count:
        raise WorldSetupError(f"Task '{task.id}' needs {task.agent_count} agents, got {len(names)}: {names}")
    setup = TaskSetup(task, names)
    for i, name in enumerate(names):
        setup.goals[name] = task.goal_for(i)
        setup.blocked_actions[name] = task.blocked_actions_for(i)

    if task.type == "coblock":
        spots = _plan_coblock_site(setup, len(names))
        for i, (name, spot) in enumerate(zip(names, spots, strict=True)):
            _plan_agent(setup, i, name, spot, yaw=FACING_NORTH)
        return setup
    if task.type == "construction":
        if task.blueprint is None:
            raise WorldSetupError(f"Construction task '{task.id}' has no blueprint")
        _plan_construction_site(setup)
        origin = _construction_start(task)
    elif origin is None:
        raise WorldSetupError(f"Task '{task.id}': the set-up needs agent 0's position (origin)")
    elif task.type == "cooking":
        _plan_cooking_world(setup, origin)
    elif task.type == "techtree":
        _plan_forest(setup, origin, _forest_wood(task))

    # not strict: _agent_spots always returns the origin, so with no names it has one spot more
    for i, (name, spot) in enumerate(zip(names, _agent_spots(origin, len(names), seed), strict=False)):
        _plan_agent(setup, i, name, spot)
    return setup


def _agent_spots(origin: Position, count: int, seed: int) -> list[Position]:
    """Agent 0 at origin, the others at distinct seeded random offsets within SPREAD blocks (x and z)."""
    rng = random.Random(seed)
    x0, y0, z0 = origin
    spots = [(x0, y0, z0)]
    while len(spots) < count:
        spot = (x0 + rng.randint(-SPREAD, SPREAD), y0, z0 + rng.randint(-SPREAD, SPREAD))
        if all(abs(spot[0] - s[0]) + abs(spot[2] - s[2]) >= 2 for s in spots):  # not on top of another agent
            spots.append(spot)
    return spots


def _plan_agent(setup: TaskSetup, index: int, name: str, spot: Position, yaw: float | None = None) -> None:
    """Survival, the task's items only, and a teleport to `spot` (looking towards `yaw` when given; the embedded
    server keeps the player's own rotation, vanilla and Paper turn it)."""
    inventory = {item: count for item, count in setup.task.inventory_for(index).items() if count > 0}
    setup.commands.append(f"gamemode survival {name}")
    setup.commands.append(f"clear {name}")
    setup.commands += [f"give {name} {item} {count}" for item, count in inventory.items()]
    x, y, z = spot
    turn = f" {yaw:g} 0" if yaw is not None else ""
    setup.commands.append(f"tp {name} {x} {y} {z}{turn}")  # whole x/z: the server centres them on the block
    setup.positions[name] = (x + 0.5, float(y), z + 0.5)
    setup.inventories[name] = inventory


def _fill(a: Position, b: Position, block: str, mode: str = "") -> str:
    return f"fill {a[0]} {a[1]} {a[2]} {b[0]} {b[1]} {b[2]} {block}" + (f" {mode}" if mode else "")


def _fill_chunked(a: Position, b: Position, block: str) -> list[str]:
    """/fill commands for the box a..b, split into slabs of at most FILL_LIMIT blocks (layers, then rows)."""
    (x0, y0, z0), (x1, y1, z1) = (tuple(map(min, a, b)), tuple(map(max, a, b)))
    width, depth = x1 - x0 + 1, z1 - z0 + 1
    rows = max(1, min(depth, FILL_LIMIT // width))        # rows of one layer per command
    layers = max(1, FILL_LIMIT // (width * rows)) if rows == depth else 1
    return [_fill((x0, y, z), (x1, min(y + layers - 1, y1), min(z + rows - 1, z1)), block)
            for y in range(y0, y1 + 1, layers) for z in range(z0, z1 + 1, rows)]


def _setblock(setup: TaskSetup, pos: Position, block: str, check: bool = True) -> None:
    setup.commands.append(f"setblock {pos[0]} {pos[1]} {pos[2]} {block}")
    if check:
        setup.expected_blocks[pos] = block_base_name(block)


def _plan_clear_ground(setup: TaskSetup, origin: Position, west: int, north: int, east: int, south: int,
                       height: int) -> None:
    """A flat grass floor under a box of air around origin (x from origin-west to origin+east, likewise z)."""
    x, y, z = origin
    setup.commands.append(_fill((x - west, y, z - north), (x + east, y + height, z + south), "air"))
    setup.commands.append(_fill((x - west, y - 1, z - north), (x + east, y - 1, z + south), "grass_block"))


# ----- techtree: a forest -----
def _forest_wood(task: Task) -> str:
    """The wood of an item the task lacks or targets (birch_log -> birch), oak when nothing says otherwise."""
    for name in list(task.missing_items) + list(task.targets()):
        for wood in WOODS:  # "dark_oak_log" does not start with "oak_", so the order does not matter
            if name.startswith(wood + "_"):
                return wood
    return "oak"


TREE_SPOTS = ((8, -4), (12, -1), (8, 3), (14, 4), (11, -7), (15, -4))  # (dx, dz) from origin


def _plan_forest(setup: TaskSetup, origin: Position, wood: str) -> None:
    _plan_clear_ground(setup, origin, west=SPREAD + 1, north=10, east=17, south=7, height=8)
    x0, y0, z0 = origin
    log, leaves = f"{wood}_log", f"{wood}_leaves[persistent=true]"
    for dx, dz in TREE_SPOTS:
        x, z = x0 + dx, z0 + dz
        # leaves first, then the trunk through them: a 5x5 crown two high, a 3x3 layer and a top
        setup.commands.append(_fill((x - 2, y0 + 3, z - 2), (x + 2, y0 + 4, z + 2), leaves))
        setup.commands.append(_fill((x - 1, y0 + 5, z - 1), (x + 1, y0 + 5, z + 1), leaves))
        setup.commands.append(_fill((x, y0, z), (x, y0 + 4, z), log))
        setup.expected_blocks[(x, y0, z)] = log
        setup.expected_blocks[(x, y0 + 5, z)] = f"{wood}_leaves"


# ----- cooking: a small farm -----
CROP_ROWS = (("wheat", "wheat[age=7]"), ("beetroots", "beetroots[age=3]"), ("potatoes", "potatoes[age=7]"),
             ("carrots", "carrots[age=7]"))


def _plan_cooking_world(setup: TaskSetup, origin: Position) -> None:
    x0, y, z0 = origin
    _plan_clear_ground(setup, origin, west=SPREAD + 1, north=12, east=24, south=12, height=5)
    at = lambda dx, dz, dy=0: (x0 + dx, y + dy, z0 + dz)  # noqa: E731  (a position relative to agent 0)

    # crops: ripe, on farmland (farmland with a crop on it does not dry out), two rows of 6 per kind, so that
    # two dishes needing the same crop (cake and bread: 3 wheat each) still leave some for a lost drop
    for row, (name, state) in enumerate(CROP_ROWS):
        dz = -11 + 2 * row
        setup.commands.append(_fill(at(7, dz, -1), at(12, dz + 1, -1), "farmland[moisture=7]"))
        setup.commands.append(_fill(at(7, dz), at(12, dz + 1), state))
        setup.expected_blocks[at(7, dz)] = name
        setup.expected_blocks[at(12, dz + 1)] = name
    setup.commands.append(_fill(at(7, -2), at(10, -2), "pumpkin"))
    setup.expected_blocks[at(7, -2)] = "pumpkin"

    # sugar cane two high along a water line (vanilla breaks cane that has no water next to its soil)
    setup.commands.append(_fill(at(15, -6, -1), at(19, -6, -1), "water"))
    setup.commands.append(_fill(at(15, -5), at(19, -5, 1), "sugar_cane"))
    setup.expected_blocks[at(15, -5)] = "sugar_cane"

    # mushrooms on podzol, where they survive in daylight
    setup.commands.append(_fill(at(15, -2, -1), at(19, -2, -1), "podzol"))
    setup.commands.append(_fill(at(15, -2), at(16, -2), "brown_mushroom"))
    setup.commands.append(_fill(at(17, -2), at(19, -2), "red_mushroom"))
    setup.expected_blocks[at(15, -2)] = "brown_mushroom"
    setup.expected_blocks[at(17, -2)] = "red_mushroom"

    _plan_kitchen(setup, at)
    _plan_animals(setup, at)


def _plan_kitchen(setup: TaskSetup, at: Callable[..., Position]) -> None:
    """An enclosure (walls two high, open towards the agents) with the cooking stations and a bed."""
    for a, b in (((7, 3), (13, 3)), ((7, 9), (13, 9)), ((7, 3), (7, 9)), ((13, 3), (13, 9))):
        setup.commands.append(_fill(at(*a), at(b[0], b[1], 1), "oak_planks"))
    setup.commands.append(_fill(at(7, 6), at(7, 6, 1), "air"))  # the doorway, on the agents' side
    stations = {
        "crafting_table": (at(9, 4), "crafting_table"),
        "furnace": (at(10, 4), "furnace[facing=south]"),
        "smoker": (at(11, 4), "smoker[facing=south]"),
    }
    for name, (pos, block) in stations.items():
        _setblock(setup, pos, block)
        setup.stations[name] = pos
    for name in ("furnace", "smoker"):
        x, y, z = setup.stations[name]
        setup.commands.append(f"data merge block {x} {y} {z} {FURNACE_FUEL}")
    foot, head = at(11, 7), at(11, 8)  # facing=south: the head is the half at +z
    _setblock(setup, foot, "red_bed[part=foot,facing=south]")
    _setblock(setup, head, "red_bed[part=head,facing=south]")
    setup.stations["bed"] = foot


def _plan_animals(setup: TaskSetup, at: Callable[..., Position]) -> None:
    """Animals in the open field east of the kitchen (they wander, but stay near where they were summoned)."""
    for k, kind in enumerate(COOKING_ANIMALS):
        for n in range(ANIMALS_PER_KIND):
            pos = at(17 + 2 * n, 2 + 2 * k)
            setup.commands.append(f"summon {kind} {pos[0]} {pos[1]} {pos[2]}")
            setup.animals.append((kind, pos))


# ----- construction: an empty site -----
def _construction_start(task: Task) -> Position:
    """Where agent 0 stands: two blocks outside the corner of level 0 (not on a cell it must fill)."""
    x, y, z = task.blueprint.levels[0].coordinates  # type: ignore[union-attr]
    return x - 2, y, z - 2


def _plan_construction_site(setup: TaskSetup) -> None:
    """Every blueprint cell (and one block around) set to air; the floor below level 0 is left as it is."""
    blueprint = setup.task.blueprint
    setup.commands += [line.lstrip("/") for line in blueprint.clear_commands(margin=1)]  # type: ignore[union-attr]
    for cell in blueprint.cells():  # type: ignore[union-attr]
        setup.expected_blocks[(cell.x, cell.y, cell.z)] = "air"


# ----- coblock: an empty site, the agents south of it -----
def _plan_coblock_site(setup: TaskSetup, count: int) -> list[Position]:
    """Empty the site box and the strip where the agents stand (over a restored floor, so leftovers of an earlier
    episode go and nothing is missing underfoot); returns the agents' spots: COBLOCK_GAP blocks south of the box,
    spread evenly along x."""
    x0, y0, z0, x1, y1, z1 = setup.site = site_box(setup.task)
    south = z1 + COBLOCK_GAP
    setup.commands += _fill_chunked((x0, y0, z0), (x1, y1, south + 1), "air")
    setup.commands += _fill_chunked((x0, y0 - 1, z0), (x1, y0 - 1, south + 1), "grass_block")
    for cell in structure_cells(setup.task):
        setup.expected_blocks[cell] = "air"
    for corner in ((x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)):
        setup.expected_blocks[corner] = "air"
    spots = [(x0 + round((i + 1) * (x1 - x0) / (count + 1)), y0, south) for i in range(count)]
    for x, y, z in spots:
        setup.expected_blocks[(x, y - 1, z)] = "grass_block"
    return spots


# ----- applying and checking -----
def apply_setup(setup: TaskSetup, issue: Issue) -> None:
    """Send every command, in order (servers run one sender's commands one after another)."""
    for line in setup.commands:
        issue(line)


def setup_problems(setup: TaskSetup, bots: Sequence) -> list[str]:
    """What still differs from the set-up's expectations, as readable lines (empty when the world is ready)."""
    from ..world.bulk import block_map, entity_counts

    problems = []
    for bot in bots:
        if bot.name not in setup.inventories:
            continue
        have = {k: v for k, v in bot.inventory().items() if v > 0}
        if have != setup.inventories[bot.name]:
            problems.append(f"{bot.name} holds {have}, expected {setup.inventories[bot.name]}")
        x, y, z = bot.position
        ex, ey, ez = setup.positions[bot.name]
        if abs(x - ex) > 0.6 or abs(z - ez) > 0.6 or abs(y - ey) > 1.5:
            problems.append(f"{bot.name} is at ({x:.1f}, {y:.1f}, {z:.1f}), expected ({ex}, {ey}, {ez})")
            continue
        # the position arrives before the chunks around it: an agent must see the world it stands in
        floor = (int(ex // 1), int(round(ey)) - 1, int(ez // 1))
        if block_map(bot, [floor])[floor] is None:
            problems.append(f"{bot.name} has not loaded the ground at {floor} yet")
    if setup.expected_blocks and bots:
        seen = block_map(bots[0], setup.expected_blocks)
        wrong = [(pos, want, seen[pos]) for pos, want in setup.expected_blocks.items()
                 if block_base_name(seen[pos]) != want]
        for pos, want, got in wrong[:5]:
            problems.append(f"block at {pos} is {got or 'not loaded'}, expected {want}")
        if len(wrong) > 5:
            problems.append(f"... and {len(wrong) - 5} more blocks")
    if setup.animals and bots:
        problems += _animal_problems(setup, bots[0], entity_counts)
    return problems


def _animal_problems(setup: TaskSetup, bot, entity_counts) -> list[str]:
    """At least the summoned animals near where they were summoned (animals left from before may add to them)."""
    wanted: dict[str, int] = {}
    for kind, _ in setup.animals:
        wanted[kind] = wanted.get(kind, 0) + 1
    xs = [pos[0] for _, pos in setup.animals]
    zs = [pos[2] for _, pos in setup.animals]
    x, z = (min(xs) + max(xs)) / 2, (min(zs) + max(zs)) / 2
    seen = entity_counts(bot, wanted, x, z, radius=ANIMAL_RANGE + max(max(xs) - min(xs), max(zs) - min(zs)))
    return [f"{seen.get(kind, 0)} {kind} seen near {x}, {z}, expected {n}" for kind, n in wanted.items()
            if seen.get(kind, 0) < n]


def wait_for_setup(setup: TaskSetup, bots: Sequence, timeout: float = 30.0, interval: float = 0.25) -> None:
    """Poll until inventories, positions (with the ground there loaded by each agent) and the sample blocks are as
    planned. Raises WorldSetupError."""
    deadline = time.monotonic() + timeout
    while True:
        problems = setup_problems(setup, bots)
        if not problems:
            return
        if time.monotonic() > deadline:
            raise WorldSetupError(f"Task '{setup.task.id}': the world was not set up within {timeout} s:\n- "
                                  + "\n- ".join(problems))
        time.sleep(interval)


def apply_and_wait(setup: TaskSetup, bots: Sequence, issue: Issue, timeout: float = 30.0) -> None:
    """Send the set-up and wait for it (the orders and defuse set-ups: their cooks and teams hand items over, and a
    shared server keeps what was left on the floor). Raises WorldSetupError.

    Items left on the floor (an earlier episode on the same server, a handover never picked up) are picked up by an
    agent that arrives after its inventory was cleared: when the first half of the wait ends with an agent holding
    other items, that agent is cleared and given its items once more (the floor is bare by then)."""
    apply_setup(setup, issue)
    try:
        wait_for_setup(setup, bots, timeout / 2)
    except WorldSetupError:
        for name in _holding_wrong_items(setup, bots):
            for line in setup.commands:
                if line == f"clear {name}" or line.startswith(f"give {name} "):
                    issue(line)
        wait_for_setup(setup, bots, timeout / 2)


def _holding_wrong_items(setup: TaskSetup, bots: Sequence) -> list[str]:
    return [bot.name for bot in bots if bot.name in setup.inventories
            and {k: v for k, v in bot.inventory().items() if v > 0} != setup.inventories[bot.name]]


def set_up_task(task: Task, bots: Sequence, issue: Issue, origin: Position | None = None, seed: int = 0,
                timeout: float = 30.0) -> TaskSetup:
    """Plan, send and wait for a task's set-up. `bots` are the agents in task order; without `origin`, agent 0's
    current block position is used."""
    if origin is None and task.type not in ("construction", "coblock"):  # both build at their blueprint
        x, y, z = bots[0].position
        origin = (int(x // 1), int(round(y)), int(z // 1))
    setup = plan_setup(task, [bot.name for bot in bots], origin, seed)
    apply_setup(setup, issue)
    wait_for_setup(setup, bots, timeout)
    return setup
