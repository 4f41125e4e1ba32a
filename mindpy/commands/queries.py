"""Commands that report what the bot sees and knows: its state, inventory, surroundings, the wiki, the command list,
the skills it has saved."""

from __future__ import annotations

from ..world import queries as world
from ..world.wiki import wiki
from .common import query
from .context import AgentContext
from .params import COMMAND_NAME, STRING, Param


def saved_skills(ctx: AgentContext) -> str:
    """!skills: the agent's skill library, listed (mindpy.coding.library)."""
    if ctx.library is None:
        return "You have no skill library: skills are saved from !newAction code, and writing code is off for you."
    return ctx.library.listing()


COMMANDS = (
    query("stats", "Tell where you are and how you are: position, health, hunger, biome, weather, time of day, "
                   "and the players nearby.",
          run=lambda ctx: world.stats_text(ctx.bot)),
    query("inventory", "List the items you carry and what you are wearing or holding.",
          run=lambda ctx: world.inventory_text(ctx.bot)),
    query("nearbyBlocks", "List the kinds of blocks around you.",
          run=lambda ctx: world.nearby_blocks_text(ctx.bot)),
    query("entities", "List the players and creatures near you.",
          run=lambda ctx: world.entities_text(ctx.bot)),
    # answered by the agent's command layer, which knows what is blocked for this agent
    query("help", 'List all the commands you can use, one line each; !help("name") explains one in full.',
          Param("name", COMMAND_NAME, "The command to explain in full; leave it out for the list.", optional=True),
          run=None),
    query("searchWiki", "Look something up on the Minecraft wiki and get a short extract.",
          Param("query", STRING, "What to look up, e.g. an item or a mob.", example="furnace"),
          run=lambda ctx, text: wiki(ctx.version).search(text)),
    query("skills", "List the skills you have saved (code you wrote that worked): name, what it does, when it was "
                    "saved. Code you write can call them by name.",
          run=saved_skills),
)
