"""The kitchen of an orders task: the cooking world with a serving chest, kept stocked, and the serving chest's
checker that takes served dishes out.

    setup = plan_orders_setup(task, ["andy", "jill"], origin=(200, -60, 200), seed=0)   # pure
    apply_and_wait(setup, bots, issue)   # or set_up_orders(task, bots, issue, origin)
    chest = ServingChest(bots[0], setup.stations["serving_chest"])
    chest.take_all()                                # {"golden_apple": 1}: what was in it; the chest is now empty
    restock_commands(setup, killed=["cow"])         # crops dug since are ripe again, one cow comes back

The world is mindpy.tasks.world's cooking world (crops, sugar cane, mushrooms, animals, a kitchen with a crafting
table, a furnace and a smoker) with one chest, the serving chest, in the kitchen next to the smoker: the only
chest, so a cook's `!putInChest` finds it. The cooks stand near agent 0 at `origin`, a few blocks from the
kitchen's doorway.

Restocking keeps a long episode playable: the crop fills of the set-up run again in `keep` mode (only the dug,
now empty, blocks are set, ripe), and an animal is summoned back where it first stood for each one killed. The
animals stand still (NoAI), so that two runs of a task kill them at the same places.

The checker reads the chest with `/data get block` through an operator bot and empties it with `/data merge
block ... {Items:[]}`. Everything in the serving chest is taken: a dish completes an open order, anything else
is wasted (the runner decides which).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence

from ....errors import MindpyError
from ...schema import Task
from ...world import Issue, Position, TaskSetup, apply_and_wait, plan_agents_around, plan_setup
from ..cooking.world import KITCHEN_WALL, plan_cooking_world
from .fields import OrdersFields

SERVING_CHEST = (12, 4)  # (dx, dz) from agent 0: in the kitchen, east of the smoker, against the north wall
SERVING_FACING = "south"  # its front faces the kitchen
# The blocks of the cooking world's farm that digging uses up (the set-up's fills of them are replayed).
FARM_BLOCKS = ("wheat", "beetroots", "potatoes", "carrots", "pumpkin", "sugar_cane", "brown_mushroom",
               "red_mushroom")
READ_TIMEOUT_S = 5.0
# The kitchen's blocks, which no cook's path digs through: a walk that broke a wall (and picked up the plank) in one
# run and went round it in another made two runs of a task part
KITCHEN_BLOCKS = (KITCHEN_WALL, "crafting_table", "furnace", "smoker", "chest", "red_bed")
_DATA_REPLY = re.compile(r"(-?\d+), (-?\d+), (-?\d+) has the following block data: (.*)", re.S)
_ITEM = re.compile(r'id:"(?:minecraft:)?([a-z0-9_]+)",count:(\d+)')


class ServingChestError(MindpyError):
    """The serving chest could not be read (no answer from the server, or no chest there)."""


def plan_orders_setup(task: Task, agent_names: Sequence[str], origin: Position, seed: int = 0) -> TaskSetup:
    """The cooking world, the serving chest and the cooks (their inventories and spots as in any task). Pure."""
    if not isinstance(task.fields, OrdersFields):
        raise ValueError(f"plan_orders_setup is for orders tasks, got a {task.type!r} task ({task.id})")
    return plan_setup(task, agent_names, origin, seed)  # the family plans the kitchen (plan_kitchen)


def plan_kitchen(setup: TaskSetup, origin: Position, seed: int) -> None:
    """The orders family's world: the cooking world and the serving chest first, then the cooks are cleared,
    given their items and brought in."""
    plan_cooking_world(setup, origin)
    # the pasture's animals stand still: a wandering cow is killed wherever chance has taken it, and the cook's walk
    # back to the furnace from there differs, so two runs of a task would part on where the animals strayed
    setup.commands = [standing_still(line) for line in setup.commands]
    x, y, z = origin
    chest = (x + SERVING_CHEST[0], y, z + SERVING_CHEST[1])
    setup.commands.append(f"setblock {chest[0]} {chest[1]} {chest[2]} chest[facing={SERVING_FACING}]")
    setup.commands.append(f"data merge block {chest[0]} {chest[1]} {chest[2]} {{Items:[]}}")  # emptied
    setup.expected_blocks[chest] = "chest"
    setup.stations["serving_chest"] = chest
    plan_agents_around(setup, origin, seed)


def set_up_orders(task: Task, bots: Sequence, issue: Issue, origin: Position, seed: int = 0,
                  timeout: float = 60.0) -> TaskSetup:
    """Plan, send and wait for an orders task's kitchen (`bots`: the cooks in task order). WorldSetupError when
    the world is not as planned in time."""
    setup = plan_orders_setup(task, [bot.name for bot in bots], origin, seed)
    apply_and_wait(setup, bots, issue, timeout)
    return setup


def restock_commands(setup: TaskSetup, killed: Iterable[str] = ()) -> list[str]:
    """Commands that make the farm whole again (dug crops ripe again, nothing else touched) and summon one animal
    of each kind in `killed` (cow, pig...) where that kind first stood."""
    commands = [f"{line} keep" for line in setup.commands
                if line.startswith("fill ") and _block_name(line.split()[7]) in FARM_BLOCKS]
    homes = {kind: pos for kind, pos in reversed(setup.animals)}  # the first spot of each kind
    for kind in killed:
        if kind not in homes:
            raise ValueError(f"no {kind!r} lives in the cooking world; its animals are {', '.join(homes)}")
        x, y, z = homes[kind]
        commands.append(standing_still(f"summon {kind} {x} {y} {z}"))
    return commands


def standing_still(command: str) -> str:
    """A `summon` command of an animal that never moves on its own (vanilla's NoAI tag); other commands as they are."""
    return f"{command} {{NoAI:1b}}" if command.startswith("summon ") and "{" not in command else command


def _block_name(state: str) -> str:
    return state.split("[", 1)[0]


def parse_block_data(text: str) -> dict[str, int] | None:
    """Item -> count from a `/data get block` reply, or None when `text` is not one."""
    match = _DATA_REPLY.match(text.strip())
    if match is None:
        return None
    counts: dict[str, int] = {}
    for item, count in _ITEM.findall(match.group(4)):
        counts[item] = counts.get(item, 0) + int(count)
    return counts


class ServingChest:
    """The serving chest, read and emptied through `bot` (an operator): the dishes served since the last call."""

    def __init__(self, bot, position: Position, timeout: float = READ_TIMEOUT_S):
        self.bot = bot
        self.position = position
        self.timeout = timeout
        self._lock = threading.Lock()  # one read at a time: replies carry no request id

    def contents(self) -> dict[str, int]:
        """What the chest holds now. ServingChestError when the server does not answer in time."""
        x, y, z = self.position
        wanted = f"{x}, {y}, {z} has the following block data:"
        got: list[dict[str, int]] = []
        errors: list[str] = []
        done = threading.Event()

        def listen(message, *rest) -> None:
            text = str(message)
            if text.startswith(wanted):
                got.append(parse_block_data(text) or {})
                done.set()
            elif "is not a block entity" in text:
                errors.append(text)
                done.set()

        with self._lock:
            self.bot.on("messagestr", listen)
            try:
                self.bot.command(f"data get block {x} {y} {z}")
                answered = done.wait(self.timeout)
            finally:
                self.bot.off("messagestr", listen)
        if errors:
            raise ServingChestError(f"no serving chest at {self.position}: {errors[0]}")
        if not answered or not got:
            raise ServingChestError(f"the serving chest at {self.position} was not read within {self.timeout} s")
        return got[0]

    def take_all(self) -> dict[str, int]:
        """Empty the chest; returns what it held (empty: nothing to do, nothing sent)."""
        held = self.contents()
        if held:
            x, y, z = self.position
            self.bot.command(f"data merge block {x} {y} {z} {{Items:[]}}")
        return held
