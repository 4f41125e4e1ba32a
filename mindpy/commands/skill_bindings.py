"""Bindings of every command to the skills, the world queries and the agent's own parts.

    registry = default_registry(version)
    bind_all_commands(registry)
    AgentCommands(registry).run(agent, "collectBlocks", ["oak_log", 2])

The context every command receives is the agent, or a `CommandContext` for a bot without an agent (tools,
tests). It needs `bot`, `skills` and `version`; the commands about the agent itself (modes, goal, conversations,
code, memory) use `modes`, `self_prompter`, `conversations`, `history`, `actions` and `task` when the context has
them, and answer plainly that they are not available when it does not.

Action commands return the skills' log as a `CommandOutput`: text for the model that also knows whether the
skill succeeded, so the action manager can tell success from failure.
"""

from __future__ import annotations

from typing import Any, Callable

from ..skills import Skills
from ..world import queries
from ..world.wiki import wiki
from .registry import CommandRegistry
from .standard import bind_blueprints, bind_crafting

TABLE_REACH = 4.5  # blocks: how close a crafting table must be to count as "nearby" when planning


class CommandOutput(str):
    """Output text for the model, carrying whether the command did what it was asked."""

    ok: bool

    def __new__(cls, text: str, ok: bool = True) -> "CommandOutput":
        made = super().__new__(cls, text)
        made.ok = ok
        return made


class CommandContext:
    """What commands need from a bot that has no agent around it."""

    def __init__(self, bot, version: str | None = None, task: Any = None):
        from .. import DEFAULT_MINECRAFT_VERSION

        self.bot = bot
        self.name = bot.name
        self.skills = Skills(bot)
        self.version = version or DEFAULT_MINECRAFT_VERSION
        self.task = task


def _optional(agent: Any, part: str, what: str):
    found = getattr(agent, part, None)
    if found is None:
        raise _Unavailable(f"{what} is not available here (this bot runs without an agent).")
    return found


class _Unavailable(Exception):
    pass


def _skill(call: Callable[[Skills], bool]) -> Callable[[Any], CommandOutput]:
    """Run one skill and return its log, with success."""
    def run(agent: Any) -> CommandOutput:
        ok = bool(call(agent.skills))
        text = agent.skills.take_log().strip()
        if not text:
            text = "Done." if ok else "It did not work."
        return CommandOutput(text, ok)
    return run


def _agent_part(fn: Callable[..., str]) -> Callable[..., str]:
    """Commands about the agent's own parts answer plainly when there is no agent."""
    def run(agent: Any, *args: Any) -> str:
        try:
            return fn(agent, *args)
        except _Unavailable as exc:
            return str(exc)
    return run


# ---- queries ---------------------------------------------------------------------------------------------
def _inventory_counts(agent: Any) -> dict[str, int]:
    return dict(queries.inventory(agent.bot)["items"])


def _table_nearby(agent: Any) -> bool:
    return any(b["name"] == "crafting_table" and b["distance"] <= TABLE_REACH
               for b in queries.nearby_blocks(agent.bot, 6))


def _saved_places(agent: Any) -> str:
    places = agent.skills.places
    if not places:
        return "Saved places: none. Save one with !rememberHere(\"name\")."
    lines = [f"- {name}: x: {x:.0f}, y: {y:.0f}, z: {z:.0f}" for name, (x, y, z) in sorted(places.items())]
    return "Saved places:\n" + "\n".join(lines)


def _block_lookup(agent: Any) -> Callable[[int, int, int], str]:
    def get_block(x: int, y: int, z: int) -> str:
        found = queries.block_at(agent.bot, x, y, z)
        return found["name"] if found else "air"
    return get_block


def _blueprint(agent: Any):
    task = getattr(agent, "task", None)
    return getattr(task, "blueprint", None) if task is not None else None


def bind_queries(registry: CommandRegistry) -> None:
    registry.bind("stats", lambda agent: queries.stats_text(agent.bot))
    registry.bind("inventory", lambda agent: queries.inventory_text(agent.bot))
    registry.bind("nearbyBlocks", lambda agent: queries.nearby_blocks_text(agent.bot))
    registry.bind("entities", lambda agent: queries.entities_text(agent.bot))
    registry.bind("modes", _agent_part(lambda agent: _optional(agent, "modes", "Modes").describe()))
    registry.bind("savedPlaces", _saved_places)
    registry.bind("searchWiki", lambda agent, query: wiki(registry.version).search(query))
    bind_crafting(registry, inventory=_inventory_counts, table_nearby=_table_nearby)
    bind_blueprints(registry, blueprint=_blueprint, get_block=_block_lookup)


# ---- actions on the world --------------------------------------------------------------------------------
def bind_world_actions(registry: CommandRegistry) -> None:
    def bind(name: str, make: Callable[..., Callable[[Skills], bool]]) -> None:
        registry.bind(name, lambda agent, *args: _skill(make(*args))(agent))

    bind("goToPlayer", lambda player, closeness: lambda s: s.go_to_player(player, closeness))
    bind("followPlayer", lambda player, dist: lambda s: s.follow_player(player, dist))
    bind("goToCoordinates", lambda x, y, z, closeness: lambda s: s.go_to_position(x, y, z, closeness))
    bind("searchForBlock", lambda block, rng: lambda s: s.go_to_nearest_block(block, 2, rng))
    bind("searchForEntity", lambda entity, rng: lambda s: s.go_to_nearest_entity(entity, 2, rng))
    bind("moveAway", lambda distance: lambda s: s.move_away(distance))
    bind("rememberHere", lambda name: lambda s: s.remember_place(name))
    bind("goToRememberedPlace", lambda name: lambda s: s.go_to_remembered_place(name))
    bind("givePlayer", lambda player, item, num: lambda s: s.give_to_player(player, item, num))
    bind("consume", lambda item: lambda s: s.consume(item))
    bind("equip", lambda item: lambda s: s.equip(item))
    bind("putInChest", lambda item, num: lambda s: s.put_in_chest(item, num))
    bind("takeFromChest", lambda item, num: lambda s: s.take_from_chest(item, num))
    bind("viewChest", lambda: lambda s: s.view_chest())
    bind("discard", lambda item, num: lambda s: s.discard(item, num))
    bind("collectBlocks", lambda block, num: lambda s: s.collect_blocks(block, num))
    # the command counts uses of the recipe (1 log -> 4 planks is one use), the skill counts items
    bind("craftRecipe", lambda item, num: lambda s: s.craft_recipe(item, num * _items_per_craft(registry, item)))
    bind("smeltItem", lambda item, num: lambda s: s.smelt_item(item, num))
    bind("clearFurnace", lambda: lambda s: s.clear_furnace())
    bind("placeHere", lambda block: lambda s: s.place_here(block))
    bind("attack", lambda entity: lambda s: s.attack(entity))
    bind("attackPlayer", lambda player: lambda s: s.attack_player(player))
    bind("goToBed", lambda: lambda s: s.go_to_bed())
    bind("activate", lambda block: lambda s: s.activate(block))
    bind("stay", lambda seconds: lambda s: s.stay(seconds))
    bind("lookAtPlayer", lambda player, direction: lambda s: s.look_at_player(player, direction))
    bind("lookAtPosition", lambda x, y, z: lambda s: s.look_at_position(x, y, z))
    bind("digDown", lambda distance: lambda s: s.dig_down(distance))
    bind("goToSurface", lambda: lambda s: s.go_to_surface())
    bind("useOn", lambda tool, target: lambda s: s.use_on(tool, target))
    bind("showVillagerTrades", lambda vid: lambda s: s.show_villager_trades(vid))
    bind("tradeWithVillager", lambda vid, index, count: lambda s: s.trade_with_villager(vid, index, count))


def _items_per_craft(registry: CommandRegistry, item: str) -> int:
    from ..recipes import recipe_book

    recipes = recipe_book(registry.version).recipes(item)
    return recipes[0].count if recipes else 1


# ---- actions on the agent itself -------------------------------------------------------------------------
def _stop(agent: Any) -> str:
    actions = _optional(agent, "actions", "Stopping an agent's actions")
    actions.stop()
    actions.cancel_resume()
    message = "Agent stopped."
    prompter = getattr(agent, "self_prompter", None)
    if prompter is not None and prompter.active:
        message += " Self-prompting is still active: use !endGoal to end it."
    return message


def _stfu(agent: Any) -> str:
    shut_up = getattr(agent, "shut_up_now", None)
    if shut_up is None:
        raise _Unavailable("!stfu needs an agent.")
    shut_up()
    return "Stopped chatting and self-prompting; the current action goes on."


def _restart(agent: Any) -> str:
    restart = getattr(agent, "request_restart", None)
    if restart is None:
        raise _Unavailable("!restart needs an agent.")
    restart()
    return "Restarting."


def _clear_chat(agent: Any) -> str:
    _optional(agent, "history", "Chat history").clear()
    return "Cleared the chat history."


def _set_mode(agent: Any, mode: str, on: bool) -> str:
    modes = _optional(agent, "modes", "Modes")
    modes.set_on(mode, on)
    return f"Mode {mode} is now {'on' if on else 'off'}."


def _goal(agent: Any, goal: str) -> str:
    return _optional(agent, "self_prompter", "Self-prompting").start(goal)


def _end_goal(agent: Any) -> str:
    return _optional(agent, "self_prompter", "Self-prompting").stop()


def _start_conversation(agent: Any, player: str, message: str) -> str:
    return _optional(agent, "conversations", "Talking with other bots").start_conversation(player, message)


def _end_conversation(agent: Any, player: str) -> str:
    return _optional(agent, "conversations", "Talking with other bots").end_conversation(player, notify=True)


def _new_action(agent: Any, prompt: str) -> str:
    new_action = getattr(agent, "new_action", None)
    if new_action is None:
        raise _Unavailable("Writing code (!newAction) needs an agent with coding turned on.")
    return new_action(prompt)


def bind_agent_actions(registry: CommandRegistry) -> None:
    for name, fn in {"stop": _stop, "stfu": _stfu, "restart": _restart, "clearChat": _clear_chat,
                     "setMode": _set_mode, "goal": _goal, "endGoal": _end_goal,
                     "startConversation": _start_conversation, "endConversation": _end_conversation,
                     "newAction": _new_action}.items():
        registry.bind(name, _agent_part(fn))


def bind_all_commands(registry: CommandRegistry) -> CommandRegistry:
    """Bind every command of the default registry; returns the registry."""
    bind_queries(registry)
    bind_world_actions(registry)
    bind_agent_actions(registry)
    return registry
