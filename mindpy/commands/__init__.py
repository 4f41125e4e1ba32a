"""The tool layer's pure part: typed commands, the parser that finds them in model replies, their docs for the
prompt, and blocking. The functions that make commands act in the world are bound by the skills layer.

    from mindpy.commands import default_registry, AgentCommands

    registry = default_registry("1.21.1")
    registry.bind("inventory", lambda agent: agent.skills.inventory_text())
    layer = AgentCommands(registry, blocked=["getCraftingPlan"])
    parsed = layer.parse('Sure! !craftRecipe("oak_planks", 2)')
    parsed.command, parsed.args, parsed.error, parsed.message   # "craftRecipe", ["oak_planks", 2], None, "Sure!"

Modules: names (block/item/entity name lookup), params (types, domains), registry (Command, CommandRegistry),
definitions (every command), parser, docs, blocking, layer (what an agent uses), standard (bindings for the
crafting and blueprint queries, which need data but no skill), cli (`mindpy commands`).
"""

from .blocking import blocked_commands
from .definitions import UNBLOCKABLE, default_registry
from .docs import command_docs, render_full, render_short
from .layer import AgentCommands
from .params import (BLOCK, BOOL, ENTITY, FLOAT, INT, ITEM, STRING, Choice, Domain, Literal, Param, ParamError)
from .parser import ParseResult, parse_reply
from .registry import ACTION, QUERY, Command, CommandRegistry

__all__ = [
    "ACTION", "AgentCommands", "BLOCK", "BOOL", "Choice", "Command", "CommandRegistry", "Domain", "ENTITY",
    "FLOAT", "INT", "ITEM", "Literal", "Param", "ParamError", "ParseResult", "QUERY", "STRING", "UNBLOCKABLE",
    "blocked_commands", "command_docs", "default_registry", "parse_reply", "render_full", "render_short",
]
