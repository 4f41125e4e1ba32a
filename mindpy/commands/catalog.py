"""Every command, gathered from the modules that declare them (one module per concern).

    registry = default_registry("1.21.1")       # a registry of its own, every command with its function
    registry.run(AgentContext.for_bot(bot), "inventory")

To add a command: add its record to the module of its concern (or a new module listed in CONCERNS below).
"""

from __future__ import annotations

import copy

from .. import DEFAULT_MINECRAFT_VERSION
from . import agent, blocks, blueprint, coblock, crafting, defuse, interaction, inventory, movement, queries, rounds
from .registry import Command, CommandRegistry

CONCERNS = (queries, movement, blocks, inventory, crafting, interaction, agent, blueprint, coblock, rounds, defuse)

# The commands that can never be blocked: without them the model can neither see nor stop anything.
UNBLOCKABLE = frozenset({"stop", "stats", "inventory", "goal"})


def all_commands() -> tuple[Command, ...]:
    """Fresh copies of every command record, so that one registry's changes never reach another."""
    return tuple(copy.copy(command) for concern in CONCERNS for command in concern.COMMANDS)


def default_registry(version: str = DEFAULT_MINECRAFT_VERSION) -> CommandRegistry:
    """A new registry holding every command."""
    return CommandRegistry(all_commands(), version=version)
