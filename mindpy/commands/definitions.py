"""Every command the model can use: name, description, parameters and kind. No behaviour here; the skills
layer binds a function to each (see registry.py).

Queries answer at once with text. Actions change the world or the agent; most of them run through the action
manager (`interrupts=True`: starting one stops the running action), a few act on the agent itself without
touching the running action (stop, stfu, restart, clearChat, rememberHere, setMode, goal, endGoal and the
conversation commands).
"""

from __future__ import annotations

from .. import DEFAULT_MINECRAFT_VERSION
from ..profiles import MODES
from .params import (BLOCK, BOOL, ENTITY, FLOAT, INT, ITEM, ITEM_OR_HAND, STRING, Choice, Domain, Param)
from .registry import ACTION, QUERY, Command, CommandRegistry

# Domains
Y_RANGE = Domain(-64, 320)                       # world height of 1.18+ worlds
SEARCH_RANGE = Domain(32, 512, closed=True)      # blocks; a smaller range is raised to 32
POSITIVE = Domain(1, None)
NON_NEGATIVE = Domain(0, None)
ALL_OR_SOME = Domain(-1, None)                   # -1 means "all of them"


def _player(description: str = "The player's name.") -> Param:
    return Param("player_name", STRING, description, example="Steve")


def _search(what: str) -> Param:
    return Param("search_range", FLOAT, f"How far to look for the {what}, in blocks.", SEARCH_RANGE,
                 clamp=True, example=64)


def _q(name: str, description: str, *params: Param) -> Command:
    return Command(name, description, params, kind=QUERY, interrupts=False)


def _a(name: str, description: str, *params: Param, interrupts: bool = True) -> Command:
    return Command(name, description, params, kind=ACTION, interrupts=interrupts)


def _level() -> Param:
    return Param("levelNum", INT, "Which level, counted from 0 at the bottom.", NON_NEGATIVE, example=0)


QUERIES = (
    _q("stats", "Tell where you are and how you are: position, health, hunger, biome, weather, time of day, "
                "and the players nearby."),
    _q("inventory", "List the items you carry and what you are wearing or holding."),
    _q("nearbyBlocks", "List the kinds of blocks around you."),
    _q("craftable", "List what you could craft right now from your inventory."),
    _q("entities", "List the players and creatures near you."),
    _q("modes", "Show your automatic behaviours (modes): what each one does and whether it is on."),
    _q("savedPlaces", "List the places you saved with !rememberHere."),
    _q("getCraftingPlan", "Work out how to craft an item: the raw materials it comes from, what your inventory is "
                          "missing, and each crafting step in order with its counts.",
       Param("targetItem", ITEM, "The item you want to end up with.", example="wooden_pickaxe"),
       Param("quantity", INT, "How many of it you want.", POSITIVE, example=1)),
    _q("help", "List all the commands you can use, with what they do."),
    _q("checkBlueprintLevel", "Compare one level of the blueprint with the world: which blocks are still to place "
                              "or to remove there.", _level()),
    _q("checkBlueprint", "Compare the whole blueprint with the world: which blocks are still to place or to remove."),
    _q("getBlueprint", "Show the blueprint of the building: where it stands, its size and materials, level by level."),
    _q("getBlueprintLevel", "Show one level of the blueprint: which block goes at which position.", _level()),
    _q("searchWiki", "Look something up on the Minecraft wiki and get a short extract.",
       Param("query", STRING, "What to look up, e.g. an item or a mob.", example="furnace")),
)

ACTIONS = (
    _a("newAction", "Write and run code for a behaviour that no command covers. Use it only when no command "
                    "fits; describe the behaviour as a clear step-by-step plan.",
       Param("prompt", STRING, "What the code should do, step by step.", example="build a 3x3 dirt platform")),
    _a("stop", "Stop at once every action and command you are running.", interrupts=False),
    _a("stfu", "Stop chatting and stop working towards your goal, but let the running action finish.",
       interrupts=False),
    _a("restart", "Restart yourself (the agent process).", interrupts=False),
    _a("clearChat", "Forget the conversation so far.", interrupts=False),
    _a("goToPlayer", "Walk to a player.",
       _player("The player to go to."),
       Param("closeness", FLOAT, "How many blocks away from the player to stop.", NON_NEGATIVE, example=3)),
    _a("followPlayer", "Keep following a player until told to stop.",
       _player("The player to follow."),
       Param("follow_dist", FLOAT, "How many blocks behind the player to stay.", NON_NEGATIVE, example=4)),
    _a("goToCoordinates", "Walk to a position.",
       Param("x", FLOAT, "East-west coordinate.", example=0),
       Param("y", FLOAT, "Height.", Y_RANGE, example=64),
       Param("z", FLOAT, "North-south coordinate.", example=0),
       Param("closeness", FLOAT, "How many blocks away from the position to stop.", NON_NEGATIVE, example=1)),
    _a("searchForBlock", "Find the nearest block of a kind and walk to it.",
       Param("type", BLOCK, "The kind of block to find.", example="oak_log"), _search("block")),
    _a("searchForEntity", "Find the nearest creature or object of a kind and walk to it.",
       Param("type", ENTITY, "The kind of entity to find.", example="cow"), _search("entity")),
    _a("moveAway", "Walk away from where you stand, in any direction, by about a distance.",
       Param("distance", FLOAT, "How many blocks to move away.", POSITIVE, example=10)),
    _a("rememberHere", "Save where you stand under a name, to come back later.",
       Param("name", STRING, "The name to save the place under.", example="base"), interrupts=False),
    _a("goToRememberedPlace", "Walk back to a place saved with !rememberHere.",
       Param("name", STRING, "The name the place was saved under.", example="base")),
    _a("givePlayer", "Walk to a player and hand over items.",
       _player("Who gets the items."),
       Param("item_name", ITEM, "The item to give.", example="oak_planks"),
       Param("num", INT, "How many to give.", POSITIVE, example=1)),
    _a("consume", "Eat or drink an item from your inventory.",
       Param("item_name", ITEM, "The food or drink.", example="bread")),
    _a("equip", "Hold a tool or weapon, or put on a piece of armour.",
       Param("item_name", ITEM, "The item to equip.", example="iron_pickaxe")),
    _a("putInChest", "Put items into the nearest chest.",
       Param("item_name", ITEM, "The item to store.", example="cobblestone"),
       Param("num", INT, "How many to store; -1 for all you have.", ALL_OR_SOME, example=1)),
    _a("takeFromChest", "Take items out of the nearest chest.",
       Param("item_name", ITEM, "The item to take.", example="cobblestone"),
       Param("num", INT, "How many to take; -1 for all there are.", ALL_OR_SOME, example=1)),
    _a("viewChest", "List what the nearest chest holds."),
    _a("discard", "Drop items from your inventory on the ground.",
       Param("item_name", ITEM, "The item to drop.", example="dirt"),
       Param("num", INT, "How many to drop; -1 for all you have.", ALL_OR_SOME, example=1)),
    _a("collectBlocks", "Mine the nearest blocks of a kind and pick up what they drop.",
       Param("type", BLOCK, "The kind of block to mine.", example="oak_log"),
       Param("num", INT, "How many blocks to mine.", POSITIVE, example=1)),
    _a("craftRecipe", "Craft an item, using a crafting table when the recipe needs one.",
       Param("recipe_name", ITEM, "The item to make.", example="oak_planks"),
       Param("num", INT, "How many times to use the recipe. This is not the number of items: one use can make "
                         "several (1 log gives 4 planks).", POSITIVE, example=4)),
    _a("smeltItem", "Smelt or cook items in a furnace (found nearby or placed from your inventory), with fuel "
                    "from your inventory.",
       Param("item_name", ITEM, "The item to put in, e.g. raw_iron or beef.", example="raw_iron"),
       Param("num", INT, "How many to smelt.", POSITIVE, example=1)),
    _a("clearFurnace", "Take everything out of the nearest furnace."),
    _a("placeHere", "Place one block where you stand. For single blocks such as a torch or a crafting table, "
                    "not for building.",
       Param("type", BLOCK, "The block to place.", example="crafting_table")),
    _a("attack", "Attack and kill the nearest creature of a kind.",
       Param("type", ENTITY, "The kind of creature.", example="zombie")),
    _a("attackPlayer", "Fight a player until they die or get away. It is only a game.",
       _player("The player to attack.")),
    _a("goToBed", "Go to the nearest bed and sleep in it."),
    _a("activate", "Use the nearest block of a kind: open a door, press a button, pull a lever...",
       Param("type", BLOCK, "The kind of block to use.", example="lever")),
    _a("stay", "Stand still and do nothing, not even your automatic behaviours, for a while.",
       Param("seconds", INT, "How long to stay; -1 to stay until told otherwise.", ALL_OR_SOME, example=-1)),
    _a("setMode", "Turn one of your automatic behaviours (modes) on or off; !modes lists them.",
       Param("mode_name", Choice(MODES), "The mode.", example="hunting"),
       Param("on", BOOL, "true to turn it on, false to turn it off.", example=False), interrupts=False),
    _a("goal", "Give yourself a goal and keep working on it, prompting yourself, until it is done or you end it.",
       Param("selfPrompt", STRING, "The goal, with the details you need to pursue it.",
             example="collect 10 oak logs"), interrupts=False),
    _a("endGoal", "Stop working on your goal.", interrupts=False),
    _a("startConversation", "Start talking with another bot (not with human players).",
       _player("The bot to talk with."),
       Param("message", STRING, "The first message.", example="Hello!"), interrupts=False),
    _a("endConversation", "End your conversation with a bot.", _player("The bot."), interrupts=False),
    _a("lookAtPlayer", "Look at a player, or look the same way they look.",
       _player("The player."),
       Param("direction", Choice(("at", "with")), '"at" to face the player, "with" to look where they look.',
             example="at")),
    _a("lookAtPosition", "Look at a position.",
       Param("x", FLOAT, "East-west coordinate.", example=0),
       Param("y", FLOAT, "Height.", Y_RANGE, example=64),
       Param("z", FLOAT, "North-south coordinate.", example=0)),
    _a("digDown", "Dig straight down, stopping before lava, water or a long fall.",
       Param("distance", INT, "How many blocks to dig down.", POSITIVE, example=5)),
    _a("goToSurface", "Go up to the surface, to the highest block above you."),
    _a("useOn", "Use an item (or your empty hand) on the nearest block or creature of a kind, e.g. shears on a "
                "sheep or a bucket on water.",
       Param("tool_name", ITEM_OR_HAND, 'The item to use, or "hand".', example="bucket"),
       Param("target", STRING, "The kind of block or creature to use it on.", example="water")),
    _a("showVillagerTrades", "List what a villager trades.",
       Param("id", INT, "The villager's entity id (from !entities).", NON_NEGATIVE, example=12)),
    _a("tradeWithVillager", "Trade with a villager.",
       Param("id", INT, "The villager's entity id (from !entities).", NON_NEGATIVE, example=12),
       Param("index", INT, "Which trade, as numbered by !showVillagerTrades (from 1).", POSITIVE, example=1),
       Param("count", INT, "How many times to make the trade.", POSITIVE, example=1)),
)

# The commands that can never be blocked: without them the model can neither see nor stop anything.
UNBLOCKABLE = frozenset({"stop", "stats", "inventory", "goal"})


def all_commands() -> tuple[Command, ...]:
    """Fresh copies of every command (unbound)."""
    import copy

    return tuple(copy.copy(c) for c in QUERIES + ACTIONS)


def default_registry(version: str = DEFAULT_MINECRAFT_VERSION) -> CommandRegistry:
    """A new registry holding every command, none of them bound."""
    return CommandRegistry(all_commands(), version=version)
