"""Commands that move the bot, turn its head, or remember places."""

from __future__ import annotations

from .common import (
    ALL_OR_SOME,
    LONGEST_STAY_S,
    MOST_BLOCKS_AWAY,
    NON_NEGATIVE,
    POSITIVE,
    action,
    perform,
    player,
    position,
    query,
    search_range,
)
from .context import AgentContext
from .params import BLOCK, ENTITY, FLOAT, INT, STRING, Choice, Param
from .vision import with_vision

# the closest a search walks up to the thing it found, in blocks
SEARCH_CLOSENESS = 2


def saved_places(ctx: AgentContext) -> str:
    """The places saved with !rememberHere, one a line."""
    places = ctx.skills.places
    if not places:
        return "Saved places: none. Save one with !rememberHere(\"name\")."
    lines = [f"- {name}: x: {x:.0f}, y: {y:.0f}, z: {z:.0f}" for name, (x, y, z) in sorted(places.items())]
    return "Saved places:\n" + "\n".join(lines)


COMMANDS = (
    query("savedPlaces", "List the places you saved with !rememberHere.", run=saved_places),
    action("goToPlayer", "Walk to a player.",
           player("The player to go to."),
           Param("closeness", FLOAT, "How many blocks away from the player to stop.", NON_NEGATIVE, example=3),
           run=lambda ctx, name, closeness: perform(ctx, ctx.skills.go_to_player(name, closeness))),
    action("followPlayer", "Keep following a player until told to stop.",
           player("The player to follow."),
           Param("follow_dist", FLOAT, "How many blocks behind the player to stay.", NON_NEGATIVE, example=4),
           run=lambda ctx, name, distance: perform(ctx, ctx.skills.follow_player(name, distance))),
    action("goToCoordinates", "Walk to a position.",
           *position(),
           Param("closeness", FLOAT, "How many blocks away from the position to stop.", NON_NEGATIVE, example=1),
           run=lambda ctx, x, y, z, closeness: perform(ctx, ctx.skills.go_to_position(x, y, z, closeness))),
    action("searchForBlock", "Find the nearest block of a kind and walk to it.",
           Param("type", BLOCK, "The kind of block to find.", example="oak_log"), search_range("block"),
           run=lambda ctx, block, reach: perform(ctx, ctx.skills.go_to_nearest_block(block, SEARCH_CLOSENESS,
                                                                                      reach))),
    action("searchForEntity", "Find the nearest creature or object of a kind and walk to it.",
           Param("type", ENTITY, "The kind of entity to find.", example="cow"), search_range("entity"),
           run=lambda ctx, entity, reach: perform(ctx, ctx.skills.go_to_nearest_entity(entity, SEARCH_CLOSENESS,
                                                                                        reach))),
    action("moveAway", "Walk away from where you stand, in any direction, by about a distance.",
           Param("distance", FLOAT, "How many blocks to move away.", POSITIVE, cap=MOST_BLOCKS_AWAY, example=10),
           run=lambda ctx, distance: perform(ctx, ctx.skills.move_away(distance))),
    action("rememberHere", "Save where you stand under a name, to come back later.",
           Param("name", STRING, "The name to save the place under.", example="base"),
           run=lambda ctx, name: perform(ctx, ctx.skills.remember_place(name)), interrupts=False),
    action("goToRememberedPlace", "Walk back to a place saved with !rememberHere.",
           Param("name", STRING, "The name the place was saved under.", example="base"),
           run=lambda ctx, name: perform(ctx, ctx.skills.go_to_remembered_place(name))),
    action("stay", "Stand still and do nothing, not even your automatic behaviours, for a while.",
           Param("seconds", INT, "How long to stay; -1 to stay until told otherwise.", ALL_OR_SOME,
                 cap=LONGEST_STAY_S, example=-1),
           run=lambda ctx, seconds: perform(ctx, ctx.skills.stay(seconds))),
    action("lookAtPlayer", "Look at a player, or look the same way they look. With vision on (allow_vision), the "
                           "output says what you then see.",
           player("The player."),
           Param("direction", Choice(("at", "with")), '"at" to face the player, "with" to look where they look.',
                 example="at"),
           run=lambda ctx, name, direction: with_vision(ctx, perform(ctx, ctx.skills.look_at_player(name,
                                                                                                  direction)))),
    action("lookAtPosition", "Look at a position. With vision on (allow_vision), the output says what you then see.",
           *position(),
           run=lambda ctx, x, y, z: with_vision(ctx, perform(ctx, ctx.skills.look_at_position(x, y, z)))),
    action("goToSurface", "Go up to the surface, to the highest block above you.",
           run=lambda ctx: perform(ctx, ctx.skills.go_to_surface())),
)
