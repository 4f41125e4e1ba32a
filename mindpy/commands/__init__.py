"""The tool layer: typed command records, the parser that finds them in model replies, their docs for the prompt,
and blocking.

    from mindpy.commands import AgentCommands, AgentContext, default_registry

    layer = AgentCommands(default_registry("1.21.1"), blocked=["getCraftingPlan"])
    parsed = layer.parse('Sure! !craftRecipe("oak_planks", 2)')
    parsed.command, parsed.args, parsed.error, parsed.message   # "craftRecipe", ["oak_planks", 2], None, "Sure!"
    layer.run(AgentContext.for_bot(bot), parsed.command, parsed.args)

Modules: the records by concern (queries, movement, blocks, inventory, crafting, interaction, agent, blueprint,
coblock, rounds),
catalog (all of them), common (how records are declared), context (what commands act on), registry, names
(block/item/entity name lookup), params (types, domains), parser, docs, blocking, layer (what an agent uses), cli
(`mindpy commands`).
"""

from .blocking import blocked_commands
from .catalog import UNBLOCKABLE, all_commands, default_registry
from .common import CommandOutput
from .context import AgentContext
from .docs import command_docs, render_full, render_short
from .layer import AgentCommands
from .params import BLOCK, BOOL, ENTITY, FLOAT, INT, ITEM, STRING, Choice, Domain, Literal, Param, ParamError
from .parser import ParseResult, parse_reply
from .registry import ACTION, QUERY, Command, CommandRegistry

__all__ = [
    "ACTION", "AgentCommands", "AgentContext", "BLOCK", "BOOL", "Choice", "Command", "CommandOutput",
    "CommandRegistry", "Domain", "ENTITY", "FLOAT", "INT", "ITEM", "Literal", "Param", "ParamError", "ParseResult",
    "QUERY", "STRING", "UNBLOCKABLE", "all_commands", "blocked_commands", "command_docs", "default_registry",
    "parse_reply", "render_full", "render_short",
]
