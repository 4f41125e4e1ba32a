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
- coblock: the site box and the strip south of it emptied over a restored floor, and the agents standing side by
  side south of the box, facing it (north); `origin` is not used.

Each family plans its own world (`Family.plan_world`, in mindpy/tasks/families/<name>/world.py); the helpers here
are those the families share.

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
from .family import family_of
from .schema import Task, unplayable_reason

Issue = Callable[[str], None]
Position = tuple[int, int, int]

SPREAD = 5  # agents land within this many blocks of agent 0 (x and z)
ANIMAL_RANGE = 8  # animals wander up to about 6 blocks from where they were summoned
FILL_LIMIT = 32768  # blocks one /fill may change (vanilla's and Paper's limit)


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
    site: tuple[int, int, int, int, int, int] | None = None  # a builder's site box (min x, y, z, max x, y, z)

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
    """Every command of the task's set-up, and the state to expect after it. Pure: talks to no server. The task's
    family adds its world and stands the agents (mindpy.tasks.family)."""
    names = list(agent_names)
    refusal = unplayable_reason(task)
    if refusal:
        raise WorldSetupError(f"Task '{task.id}': {refusal}")
    if len(names) < task.agent_count:
        raise WorldSetupError(f"Task '{task.id}' needs {task.agent_count} agents, got {len(names)}: {names}")
    setup = TaskSetup(task, names)
    # first, so that every drop of the task is rolled by its family's rule (a server of another kind answers the
    # unknown command with an error line and rolls as it always does)
    setup.commands.append(f"mindpy_loot {family_of(task).loot_rolls}")
    for i, name in enumerate(names):
        setup.goals[name] = task.goal_for(i)
        setup.blocked_actions[name] = task.blocked_actions_for(i)
    family_of(task).plan_world(setup, origin, seed)
    return setup


def plan_agents_around(setup: TaskSetup, origin: Position, seed: int) -> None:
    """Stand the agents around `origin`: agent 0 on it, the others at seeded random spots near it."""
    # not strict: agent_spots always returns the origin, so with no names it has one spot more
    for i, (name, spot) in enumerate(zip(setup.agent_names, agent_spots(origin, len(setup.agent_names), seed),
                                         strict=False)):
        plan_agent(setup, i, name, spot)


def agent_spots(origin: Position, count: int, seed: int) -> list[Position]:
    """Agent 0 at origin, the others at distinct seeded random offsets within SPREAD blocks (x and z)."""
    rng = random.Random(seed)
    x0, y0, z0 = origin
    spots = [(x0, y0, z0)]
    while len(spots) < count:
        spot = (x0 + rng.randint(-SPREAD, SPREAD), y0, z0 + rng.randint(-SPREAD, SPREAD))
        if all(abs(spot[0] - s[0]) + abs(spot[2] - s[2]) >= 2 for s in spots):  # not on top of another agent
            spots.append(spot)
    return spots


def plan_agent(setup: TaskSetup, index: int, name: str, spot: Position, yaw: float | None = None) -> None:
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


def fill(a: Position, b: Position, block: str, mode: str = "") -> str:
    """The /fill command of the box a..b."""
    return f"fill {a[0]} {a[1]} {a[2]} {b[0]} {b[1]} {b[2]} {block}" + (f" {mode}" if mode else "")


def fill_chunked(a: Position, b: Position, block: str) -> list[str]:
    """/fill commands for the box a..b, split into slabs of at most FILL_LIMIT blocks (layers, then rows)."""
    (x0, y0, z0), (x1, y1, z1) = (tuple(map(min, a, b)), tuple(map(max, a, b)))
    width, depth = x1 - x0 + 1, z1 - z0 + 1
    rows = max(1, min(depth, FILL_LIMIT // width))        # rows of one layer per command
    layers = max(1, FILL_LIMIT // (width * rows)) if rows == depth else 1
    return [fill((x0, y, z), (x1, min(y + layers - 1, y1), min(z + rows - 1, z1)), block)
            for y in range(y0, y1 + 1, layers) for z in range(z0, z1 + 1, rows)]


def setblock(setup: TaskSetup, pos: Position, block: str, check: bool = True) -> None:
    """Set one block (and check it after the set-up, unless `check` is off)."""
    setup.commands.append(f"setblock {pos[0]} {pos[1]} {pos[2]} {block}")
    if check:
        setup.expected_blocks[pos] = block_base_name(block)


def plan_clear_ground(setup: TaskSetup, origin: Position, west: int, north: int, east: int, south: int,
                      height: int) -> None:
    """A flat grass floor under a box of air around origin (x from origin-west to origin+east, likewise z)."""
    x, y, z = origin
    setup.commands.append(fill((x - west, y, z - north), (x + east, y + height, z + south), "air"))
    setup.commands.append(fill((x - west, y - 1, z - north), (x + east, y - 1, z + south), "grass_block"))


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
    if origin is None and not family_of(task).builds:  # a builder's agents stand at its site
        x, y, z = bots[0].position
        origin = (int(x // 1), int(round(y)), int(z // 1))
    setup = plan_setup(task, [bot.name for bot in bots], origin, seed)
    apply_setup(setup, issue)
    wait_for_setup(setup, bots, timeout)
    return setup
