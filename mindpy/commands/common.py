"""The pieces every command record is made of: how a record is declared, shared parameters and domains, and how
a skill's result becomes the command's output.

    COMMANDS = (
        action("givePlayer", "Walk to a player and hand over items.",
               player("Who gets the items."), Param("item_name", ITEM, ...), Param("num", INT, ...),
               run=lambda ctx, player_name, item_name, num: perform(ctx, ctx.skills.give_to_player(...))),
    )
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .context import AgentContext, Unavailable
from .params import FLOAT, INT, STRING, Domain, Param
from .registry import ACTION, QUERY, Command

# Domains
Y_RANGE = Domain(-64, 320)                       # world height of 1.18+ worlds
SEARCH_RANGE = Domain(32, 512, closed=True)      # blocks; a smaller range is raised to 32
POSITIVE = Domain(1, None)
NON_NEGATIVE = Domain(0, None)
ALL_OR_SOME = Domain(-1, None)                   # -1 means "all of them"
HORIZONTAL = Domain(-30_000_000, 30_000_000, closed=True)  # the world border
# Ceilings (Param.cap) keep a careless number from becoming an endless skill; larger values are brought down
MOST_ITEMS = 2304                                # an inventory's worth: 36 stacks of 64
MOST_BLOCKS_AWAY = 512                           # blocks to walk or dig in one command
LONGEST_STAY_S = 86400                           # a day


class CommandOutput(str):
    """Output text for the model, carrying whether the command did what it was asked."""

    ok: bool

    def __new__(cls, text: str, ok: bool = True) -> CommandOutput:
        made = super().__new__(cls, text)
        made.ok = ok
        return made


def query(name: str, description: str, *params: Param, run: Callable[..., Any] | None) -> Command:
    """A command that looks and answers at once, without stopping the running action."""
    return Command(name, description, params, kind=QUERY, interrupts=False, run=run)


def action(name: str, description: str, *params: Param, run: Callable[..., Any] | None,
           interrupts: bool = True) -> Command:
    """A command that does something; with `interrupts` it runs through the action manager."""
    return Command(name, description, params, kind=ACTION, interrupts=interrupts, run=run)


def perform(ctx: AgentContext, ok: bool) -> CommandOutput:
    """The output of a skill that has just run: what it logged, and whether it succeeded."""
    text = ctx.skills.take_log().strip()
    if not text:
        text = "Done." if ok else "It did not work."
    return CommandOutput(text, bool(ok))


def about_agent(fn: Callable[..., str]) -> Callable[..., str]:
    """Commands about the agent's own parts answer plainly when the bot has no agent."""
    @functools.wraps(fn)
    def run(ctx: AgentContext, *args: Any) -> str:
        try:
            return fn(ctx, *args)
        except Unavailable as exc:
            return str(exc)
    return run


# ---- parameters several commands share -----------------------------------------------------------------------
def player(description: str = "The player's name.") -> Param:
    """The `player_name` parameter."""
    return Param("player_name", STRING, description, example="Steve")


def search_range(what: str) -> Param:
    """How far to look, raised to 32 and lowered to 512 blocks."""
    return Param("search_range", FLOAT, f"How far to look for the {what}, in blocks.", SEARCH_RANGE,
                 clamp=True, example=64)


def level() -> Param:
    """A blueprint level number."""
    return Param("levelNum", INT, "Which level, counted from 0 at the bottom.", NON_NEGATIVE, example=0)


def position() -> tuple[Param, Param, Param]:
    """x, y, z of a place in the world."""
    return (Param("x", FLOAT, "East-west coordinate.", HORIZONTAL, example=0),
            Param("y", FLOAT, "Height.", Y_RANGE, example=64),
            Param("z", FLOAT, "North-south coordinate.", HORIZONTAL, example=0))
