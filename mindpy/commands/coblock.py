"""Commands of CoBlock tasks (see mindpy.tasks.families.coblock.generator): place and break single blocks of the shared
structure, compare the world with one's own private goal, and declare the task finished.

As in the paper, an agent places blocks from its inventory against the ground or another block's face, and a
block it breaks is lost (nobody gets it back). As in the paper, there is no reach limit: the bot walks near the cell
when it can, and where it cannot (a high cell with no way up) it places or breaks from where it stands. Outside a
coblock task every command answers that there is none;
agents whose task is not a coblock task do not see these commands at all (`blocked_outside_coblock`, applied
where agents are built, mindpy.agent.factory), so they cost nothing in other prompts.

An agent's goal is `task.fields.private_goals[str(index)]`, `index` being `ctx.agent_index` (the player of the task the
agent plays; see AgentContext).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from ..tasks.families.coblock.fields import private_goals_of
from ..tasks.families.coblock.generator import neighbours
from ..tasks.families.coblock.record import BREAK, END, PLACE
from ..tasks.families.coblock.site import NoStructureError, box_text, in_site, site_box
from ..tasks.family import command_sets_of
from ..tasks.generators.common import join_words
from ..world import bulk
from .common import HORIZONTAL, Y_RANGE, CommandOutput, action, perform, query
from .context import AgentContext
from .params import BLOCK, INT, Param

NO_COBLOCK = "There is no coblock task: this command only works while building a CoBlock structure."
AIR = frozenset({"air", "cave_air", "void_air"})
GROUND_Y = -60          # the lowest layer of a structure; the superflat surface (y = -61) is below it
REACH = 4.5             # blocks from the bot's eyes a block can be broken at, as the skills use
BREAK_WAIT_S = 5.0      # how long the server may take to clear a broken block
MOST_GOAL_LINES = 20    # !checkGoal lists at most this many blocks; the rest are counted

Cell = tuple[int, int, int]
COMMAND_SET = "coblock"  # the name a family's `command_sets` gives these commands by


def is_coblock(task: Any) -> bool:
    """Whether an agent with `task` (a Task, or anything with a `type`) plays with these commands: its family
    takes the "coblock" command set (mindpy.tasks.family)."""
    return COMMAND_SET in command_sets_of(task)


def with_coblock(answer: Callable[..., Any]) -> Callable[..., Any]:
    """Run `answer(ctx, task, *args)` in a coblock task; answer NO_COBLOCK otherwise."""
    def run(ctx: AgentContext, *args: Any) -> Any:
        if not is_coblock(ctx.task):
            return CommandOutput(NO_COBLOCK, False)
        return answer(ctx, ctx.task, *args)
    return run


def public_record(ctx: AgentContext) -> Any:
    """The team's public record (mindpy.tasks.families.coblock.record) the agent was given, or None."""
    return getattr(ctx.controls, "public_record", None)


def _recorded(ctx: AgentContext, kind: str, cell: Cell | None = None, block: str = "") -> None:
    record = public_record(ctx)
    if record is not None:
        record.acted(ctx.name, kind, cell, block)


def refuse(text: str) -> CommandOutput:
    """A refusal: nothing was done."""
    return CommandOutput(text, False)


def _at(x: int, y: int, z: int) -> str:
    return f"({x}, {y}, {z})"


def _listed(counts: dict[str, int]) -> str:
    return join_words([f"{n} {name}" for name, n in sorted(counts.items())])


def structure_blocks(task: Any) -> set[str]:
    """The block names of the whole structure (the blueprint's, else those of every private goal)."""
    blueprint = getattr(task, "blueprint", None)
    if blueprint is not None:
        return set(blueprint.block_counts())
    return {block for goal in private_goals_of(task).values() for *_, block in goal}


def _held_text(ctx: AgentContext, task: Any) -> str:
    inventory = ctx.bot.inventory()
    held = {name: n for name, n in inventory.items() if name in structure_blocks(task) and n > 0}
    return f"of the structure's blocks you hold {_listed(held)}" if held else \
        "you hold none of the structure's blocks"


# ---- !placeBlock ---------------------------------------------------------------------------------------------
def place_block(ctx: AgentContext, task: Any, block: str, x: int, y: int, z: int) -> CommandOutput:
    """Refuse what cannot work (a cell outside the construction site, block not held, cell taken, nothing to rest
    on), then place it with the skill, which walks within reach and places the block from the inventory."""
    where = _at(x, y, z)
    outside = _outside_site(task, x, y, z)
    if outside:
        return refuse(f"{where} is outside the construction site ({outside}): place the structure's blocks "
                      f"inside it.")
    if ctx.bot.inventory().get(block, 0) < 1:
        return refuse(f"You do not hold any {block}: {_held_text(ctx, task)}. Place a block you hold, or ask "
                      f"your partner to place the {block}.")
    names = bulk.block_names(ctx.bot, [(x, y, z), *neighbours((x, y, z))])
    here, around = names[0], names[1:]
    if here is None:
        return refuse(f"You cannot see {where} from here (it is too far away): walk nearer, e.g. with "
                      f"!goToCoordinates, and try again.")
    if here not in AIR:
        return refuse(f"The cell {where} is taken by {here}: choose an empty cell, or break that block first with "
                      f"!breakBlock({x}, {y}, {z}).")
    if not any(name is not None and name not in AIR for name in around):
        return refuse(f"A block at {where} would float: it needs the ground (the lowest layer is y = {GROUND_Y}) "
                      f"or a block next to one of its faces. Place the blocks under or beside it first.")
    # Note: in cheat mode the skill sets the block with an operator command and the inventory does not shrink;
    # coblock episodes must leave cheat mode off so that inventories stay the scarce resource they are.
    if ctx.skills.place_block(block, x, y, z):
        _recorded(ctx, PLACE, (x, y, z), block)
        return perform(ctx, True)
    tried = ctx.skills.take_log().strip()
    stopped = ctx.skills.last_result is not None and ctx.skills.last_result.interrupted  # !stop means stop
    if stopped or bulk.block_names(ctx.bot, [(x, y, z)])[0] not in AIR or ctx.bot.inventory().get(block, 0) < 1:
        return CommandOutput(tried or f"Could not place {block} at {where}.", False)
    return _place_from_afar(ctx, block, x, y, z)


def _place_from_afar(ctx: AgentContext, block: str, x: int, y: int, z: int) -> CommandOutput:
    """Place a block the bot could not get within reach of (a high cell with no way up): the CoBlock world, as the
    paper's, has no reach limit. The block is set with an operator command (as !breakBlock clears one) and one is
    taken from the bot's inventory, so the colours stay as scarce as when placing by hand."""
    where = _at(x, y, z)
    ctx.bot.command(f"setblock {x} {y} {z} {block}")
    if not _wait_for_block(ctx, x, y, z, lambda name: name == block):
        return refuse(f"Could not place {block} at {where}: the server did not set it.")
    ctx.bot.command(f"clear {ctx.bot.name} {block} 1")
    _recorded(ctx, PLACE, (x, y, z), block)
    return CommandOutput(f"Placed {block} at {where} (from where you stand: there is no way up to it).")


def _wait_for_block(ctx: AgentContext, x: int, y: int, z: int, wanted: Callable[[str | None], bool]) -> bool:
    """Wait (at most BREAK_WAIT_S) until the bot sees a block at (x, y, z) that `wanted` accepts."""
    deadline = time.monotonic() + BREAK_WAIT_S
    while not wanted(bulk.block_names(ctx.bot, [(x, y, z)])[0]):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _outside_site(task: Any, x: int, y: int, z: int) -> str | None:
    """The site's bounds as text when (x, y, z) lies outside them; None inside (or when the task has no
    structure, hence no site)."""
    try:
        return None if in_site(task, x, y, z) else box_text(site_box(task))
    except NoStructureError:
        return None


# ---- !breakBlock ---------------------------------------------------------------------------------------------
def break_block(ctx: AgentContext, task: Any, x: int, y: int, z: int) -> CommandOutput:
    """Walk within reach, then clear the cell with an operator command, so that the block is lost.

    Why not dig it: a dug block drops an item, which any player near it picks up half a second later (on
    flying-squid and on vanilla servers alike); removing the drop first is a race, and the commands that could
    remove it differ between servers. `/setblock x y z air` (replace mode) drops nothing on either server, so the
    block is gone for everyone by construction, in cheat mode or not. It needs operator rights: the embedded
    server makes every player an operator, as task set-up already requires. If the server ignores the command,
    the block stays and the answer says so."""
    where = _at(x, y, z)
    if y < GROUND_Y:
        return refuse(f"{where} is part of the ground (below y = {GROUND_Y}): only blocks of the structure can be "
                      f"broken.")
    name = bulk.block_names(ctx.bot, [(x, y, z)])[0]
    if name is None:
        return refuse(f"You cannot see {where} from here (it is too far away): walk nearer, e.g. with "
                      f"!goToCoordinates, and try again.")
    if name in AIR:
        return refuse(f"There is no block at {where} (only air): nothing to break. Check the position.")
    if _distance(ctx, x, y, z) > REACH:  # walk near it when there is a way (no reach limit: see _place_from_afar)
        ctx.skills.go_to_position(x, y, z, 3)
        ctx.skills.take_log()
    ctx.bot.command(f"setblock {x} {y} {z} air")
    if not _wait_for_block(ctx, x, y, z, lambda name: name in AIR):
        return refuse(f"The {name} at {where} is still there: the server did not let you break it.")
    _recorded(ctx, BREAK, (x, y, z), name)
    return CommandOutput(f"Broke the {name} at {where}. The block is lost: nobody gets it back.")


def _distance(ctx: AgentContext, x: int, y: int, z: int) -> float:
    """From the bot's eyes to the middle of the block."""
    px, py, pz = ctx.bot.position
    return math.dist((px, py + 1.62, pz), (x + 0.5, y + 0.5, z + 0.5))


# ---- !checkGoal ----------------------------------------------------------------------------------------------
def my_goal(ctx: AgentContext, task: Any) -> list[tuple[int, int, int, str]] | None:
    """This agent's private goal, or None when the context does not say which player of the task it is."""
    if ctx.agent_index is None:
        return None
    goals = private_goals_of(task)
    return [(int(x), int(y), int(z), str(block)) for x, y, z, block in goals.get(str(ctx.agent_index), [])]


def check_goal(ctx: AgentContext, task: Any) -> str:
    """'Your goal is complete', or the blocks still missing and the wrong ones, one line each."""
    goal = my_goal(ctx, task)
    if goal is None:
        return "Your goal is unknown: this agent is not one of the task's players."
    if not goal:
        return "You have no private goal in this task: help your partner with theirs."
    names = bulk.block_names(ctx.bot, [(x, y, z) for x, y, z, _ in goal])
    missing, wrong, unseen = [], [], []
    for (x, y, z, want), have in zip(goal, names, strict=True):
        if have is None:
            unseen.append(f"- {want} at {_at(x, y, z)}: too far away to see")
        elif have in AIR:
            missing.append(f"- {want} at {_at(x, y, z)}")
        elif have != want:
            wrong.append(f"- {_at(x, y, z)} has {have} instead of {want}")
    if not (missing or wrong or unseen):
        return f"Your goal is complete: all {len(goal)} of your blocks are in place."
    done = len(goal) - len(missing) - len(wrong) - len(unseen)
    lines = [f"Your goal is not complete: {done} of {len(goal)} blocks are in place."]
    shown = 0
    for title, group in (("Missing (place these):", missing),
                         ("Wrong (break these, then place the right block):", wrong),
                         ("Not checked:", unseen)):
        if group and shown < MOST_GOAL_LINES:
            lines.append(title)
            lines += group[:MOST_GOAL_LINES - shown]
            shown += min(len(group), MOST_GOAL_LINES - shown)
    hidden = len(missing) + len(wrong) + len(unseen) - shown
    if hidden:
        lines.append(f"... and {hidden} more.")
    return "\n".join(lines)


# ---- !endTask ------------------------------------------------------------------------------------------------
def end_task(ctx: AgentContext, task: Any) -> str:
    """Record that this agent declares the task finished."""
    ctx.task_finished.set()
    _recorded(ctx, END)
    return "You declared the task finished."


def _cell() -> tuple[Param, Param, Param]:
    """x, y, z of one block (whole numbers)."""
    return (Param("x", INT, "East-west coordinate of the block.", HORIZONTAL, example=100),
            Param("y", INT, f"Height of the block ({GROUND_Y} is the lowest layer, on the ground).", Y_RANGE,
                  example=GROUND_Y),
            Param("z", INT, "North-south coordinate of the block.", HORIZONTAL, example=-98))


COMMANDS = (
    action("placeBlock", "Place one block you hold at a position, against the ground or another block.",
           Param("type", BLOCK, "The block to place, one you hold.", example="red_wool"), *_cell(),
           run=with_coblock(place_block)),
    action("breakBlock", "Break the block at a position. The block is lost: nobody gets it back.", *_cell(),
           run=with_coblock(break_block)),
    # not in the paper: the agents' own comparison of goal and world (profile option `check_goal`, off by default;
    # the agent factory blocks it otherwise)
    query("checkGoal", "Compare your own goal with the world: which of your blocks are still missing or wrong.",
          run=with_coblock(check_goal)),
    action("endTask", "Declare the task finished, when the whole structure is built.",
           run=with_coblock(end_task), interrupts=False),
)
NAMES = tuple(command.name for command in COMMANDS)


def blocked_outside_coblock(task: Any, rounds: bool = False) -> list[str]:
    """The commands to block for an agent whose task is not a coblock task (or that has no task): none in one,
    but `!stay` in round mode, where `!wait` is the paper's wait (outside round mode `!stay` is the only one)."""
    if is_coblock(task):
        return ["stay"] if rounds else []
    return list(NAMES)


__all__ = ["COMMANDS", "NAMES", "NO_COBLOCK", "blocked_outside_coblock", "check_goal", "is_coblock", "public_record"]

