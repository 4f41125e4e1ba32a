"""The command registry, the table of commands, binding, blocking, the docs, and the agent's command layer.

Most tests here use the records without their functions (`registry` fixture) to exercise binding and running
with functions of their own; the records' own functions run on real bots in test_commands_actions/_queries."""

from __future__ import annotations

import pytest

from mindpy.commands import (
    ACTION,
    INT,
    QUERY,
    STRING,
    UNBLOCKABLE,
    AgentCommands,
    Command,
    CommandRegistry,
    Domain,
    Param,
    blocked_commands,
    command_docs,
    default_registry,
)
from mindpy.commands.catalog import CONCERNS
from mindpy.commands.docs import command_table
from mindpy.commands.params import ITEM, Literal, ParamError

# The commands of the reference system (MINDcraft), as listed in our REFERENCE.md.
QUERIES = ["stats", "inventory", "nearbyBlocks", "craftable", "entities", "modes", "savedPlaces", "getCraftingPlan",
           "help", "checkBlueprintLevel", "checkBlueprint", "getBlueprint", "getBlueprintLevel", "searchWiki",
           "skills"]
ACTIONS = ["newAction", "stop", "stfu", "restart", "clearChat", "goToPlayer", "followPlayer", "goToCoordinates",
           "searchForBlock", "searchForEntity", "moveAway", "rememberHere", "goToRememberedPlace", "givePlayer",
           "consume", "equip", "putInChest", "takeFromChest", "viewChest", "discard", "collectBlocks", "craftRecipe",
           "smeltItem", "clearFurnace", "placeHere", "attack", "attackPlayer", "goToBed", "activate", "stay",
           "setMode", "goal", "endGoal", "startConversation", "endConversation", "lookAtPlayer", "lookAtPosition",
           "digDown", "goToSurface", "useOn", "showVillagerTrades", "tradeWithVillager"]
# CoBlock's commands (mindpy.commands.coblock), offered only to agents of a coblock task.
COBLOCK_QUERIES = ["checkGoal"]
COBLOCK_ACTIONS = ["placeBlock", "breakBlock", "endTask"]
# Round mode's command (mindpy.commands.rounds), offered only to agents that play in rounds.
ROUND_ACTIONS = ["wait"]
# The defuse game's commands (mindpy.commands.defuse), offered only to agents of a defuse task.
DEFUSE_ACTIONS = ["inspectBomb", "applyTool", "goToRoom", "broadcast"]

PARAMS = {
    "getCraftingPlan": ["targetItem", "quantity"], "checkBlueprintLevel": ["levelNum"],
    "getBlueprintLevel": ["levelNum"], "searchWiki": ["query"], "newAction": ["prompt"],
    "goToPlayer": ["player_name", "closeness"], "followPlayer": ["player_name", "follow_dist"],
    "goToCoordinates": ["x", "y", "z", "closeness"], "searchForBlock": ["type", "search_range"],
    "searchForEntity": ["type", "search_range"], "moveAway": ["distance"], "rememberHere": ["name"],
    "goToRememberedPlace": ["name"], "givePlayer": ["player_name", "item_name", "num"], "consume": ["item_name"],
    "equip": ["item_name"], "putInChest": ["item_name", "num"], "takeFromChest": ["item_name", "num"],
    "discard": ["item_name", "num"], "collectBlocks": ["type", "num"], "craftRecipe": ["recipe_name", "num"],
    "smeltItem": ["item_name", "num"], "placeHere": ["type"], "attack": ["type"], "attackPlayer": ["player_name"],
    "activate": ["type"], "stay": ["seconds"], "setMode": ["mode_name", "on"], "goal": ["selfPrompt"],
    "startConversation": ["player_name", "message"], "endConversation": ["player_name"],
    "lookAtPlayer": ["player_name", "direction"], "lookAtPosition": ["x", "y", "z"], "digDown": ["distance"],
    "useOn": ["tool_name", "target"], "showVillagerTrades": ["id"], "tradeWithVillager": ["id", "index", "count"],
    "placeBlock": ["type", "x", "y", "z"], "breakBlock": ["x", "y", "z"],
    "help": ["name"], "inspectBomb": ["bomb"], "applyTool": ["colour", "bomb"], "goToRoom": ["room"], "broadcast": ["message"],
}


@pytest.fixture()
def registry():
    """Every command declared, none with a function."""
    declared = default_registry()
    for command in declared:
        declared.unbind(command.name)
    return declared


# ---- the table ------------------------------------------------------------------------------------------
def test_every_command_declared_with_its_kind_and_parameters(registry):
    assert len(registry) >= 47
    for name in QUERIES + COBLOCK_QUERIES:
        assert registry[name].kind == QUERY, name
    for name in ACTIONS + COBLOCK_ACTIONS + ROUND_ACTIONS + DEFUSE_ACTIONS:
        assert registry[name].kind == ACTION, name
    assert sorted(registry.names()) == sorted(QUERIES + ACTIONS + COBLOCK_QUERIES + COBLOCK_ACTIONS + ROUND_ACTIONS
                                                   + DEFUSE_ACTIONS)
    for command in registry:
        assert [p.name for p in command.params] == PARAMS.get(command.name, []), command.name
        assert command.description and all(p.description for p in command.params)


def test_descriptions_are_our_own(registry):
    # a few of MINDcraft's sentences, which must not be copied
    theirs = ["Get your bot's location, health, hunger, and time of day.", "Endlessly follow the given player.",
              "Find and go to the nearest block of a given type in a given range.",
              "Force stop all actions and commands that are currently executing."]
    ours = " ".join(c.description for c in registry)
    for sentence in theirs:
        assert sentence not in ours


def test_domains(registry):
    y = registry["goToCoordinates"].params[1]
    assert y.domain == Domain(-64, 320) and str(y.domain) == "[-64, 320)"
    search = registry["searchForBlock"].params[1]
    assert search.domain == Domain(32, 512, closed=True) and str(search.domain) == "[32, 512]"
    assert search.convert(Literal("number", "512"))[0] == 512
    assert search.convert(Literal("number", "600"))[0] == 512  # clamped, with a note
    with pytest.raises(ParamError):
        y.convert(Literal("number", "320"))
    assert y.convert(Literal("number", "319.5"))[0] == 319.5


def test_interrupting_commands(registry):
    for name in ("stop", "stfu", "setMode", "goal", "endGoal", "startConversation", "endConversation",
                 "rememberHere", "stats", "getCraftingPlan"):
        assert not registry[name].interrupts, name
    for name in ("goToPlayer", "collectBlocks", "craftRecipe", "newAction", "stay", "followPlayer"):
        assert registry[name].interrupts, name


def test_registries_are_independent():
    a, b = default_registry(), default_registry()
    own = lambda agent: "a"  # noqa: E731
    a.bind("stats", own)
    assert b["stats"].run is not own and b["stats"].run is not None


def test_every_record_carries_its_function():
    # one record per command: its spec and what performs it side by side; !help alone is answered by the layer
    registry = default_registry()
    assert registry.unbound() == ["help"]
    for command in registry:
        if command.run is not None:
            registry.bind(command.name, command.run)  # checks the function takes (context, *params)
    # each concern module declares its own commands, and no command is declared twice
    names = [c.name for concern in CONCERNS for c in concern.COMMANDS]
    assert len(names) == len(set(names)) == len(registry)


# ---- binding and running ------------------------------------------------------------------------------------
def test_bind_and_run(registry):
    calls = []
    registry.bind("craftRecipe", lambda agent, recipe_name, num: calls.append((agent, recipe_name, num)) or "done")
    assert registry.run("ctx", "craftRecipe", ["oak_planks", 2]) == "done"
    assert calls == [("ctx", "oak_planks", 2)]
    assert registry["craftRecipe"].bound and "craftRecipe" not in registry.unbound()


def test_bind_checks_arity(registry):
    with pytest.raises(TypeError, match="recipe_name, num"):
        registry.bind("craftRecipe", lambda agent, recipe_name: None)
    with pytest.raises(KeyError):
        registry.bind("fly", lambda agent: None)
    registry.bind("craftRecipe", lambda agent, *args: None)  # flexible signatures are fine


def test_decorator_and_unbind(registry):
    @registry.binds("stats")
    def stats(agent):
        return "ok"

    assert registry.run(None, "stats") == "ok"
    registry.unbind("stats")
    assert "not available" in registry.run(None, "stats")


def test_unbound_command_says_so(registry):
    out = registry.run(None, "goToBed", [])
    assert "!goToBed is not available" in out and "Nothing was done" in out


def test_run_unknown_and_wrong_arity(registry):
    assert "does not exist" in registry.run(None, "fly", [])
    registry.bind("stay", lambda agent, seconds: "stayed")
    assert "takes 1 argument" in registry.run(None, "stay", [])


def test_registry_rejects_duplicates():
    reg = CommandRegistry([Command("a", "A.")])
    with pytest.raises(ValueError):
        reg.add(Command("a", "again"))
    with pytest.raises(ValueError):
        Command("b", "B.", kind="other")
    with pytest.raises(ValueError):
        reg.add(Command("c", "C.", (Param("x", INT, "x"), Param("x", STRING, "x"))))


def test_case_insensitive_lookup(registry):
    assert registry.get("!CRAFTRECIPE").name == "craftRecipe"
    assert registry.get("craftrecipie") is None


def test_item_param_refuses_unknown():
    param = Param("item_name", ITEM, "an item")
    with pytest.raises(ParamError, match="Unknown item 'diamnd_sword'. Did you mean 'diamond_sword'"):
        param.convert(Literal("string", "diamnd_sword"))
    assert param.convert(Literal("string", "Diamond Sword")) == ("diamond_sword", "")


# ---- blocking ---------------------------------------------------------------------------------------------
def test_block_per_profile_and_task(registry):
    blocked, warnings = blocked_commands(registry, ["!getCraftingPlan"], ["discard", "!newAction"])
    assert blocked == {"getCraftingPlan", "discard", "newAction"} and warnings == []


def test_unblockable_commands_stay(registry):
    blocked, warnings = blocked_commands(registry, ["!stop", "stats", "!inventory", "goal", "!attack"])
    assert blocked == {"attack"}
    assert len(warnings) == 4 and all("cannot be blocked" in w for w in warnings)
    assert UNBLOCKABLE == {"stop", "stats", "inventory", "goal"}
    layer = AgentCommands(registry, blocked=["!stop", "!attack"])
    assert layer.parse("!stop").ok
    assert layer.parse('!attack("zombie")').error


def test_unknown_blocked_name_warns(registry):
    blocked, warnings = blocked_commands(registry, ["!fly"])
    assert blocked == frozenset() and "no such command" in warnings[0]


# ---- docs ------------------------------------------------------------------------------------------------
def test_full_docs(registry):
    docs = command_docs(registry, form="full")
    assert "Only the first command in a reply is run" in docs
    assert "!craftRecipe: Craft an item" in docs
    assert "    num (int, at least 1): How many times to use the recipe." in docs
    assert "    y (float, in [-64, 320)" in docs
    assert 'Example: !craftRecipe("oak_planks", 4)' in docs
    assert docs.index("Queries") < docs.index("!stats") < docs.index("Actions:") < docs.index("!newAction")
    for command in registry:
        assert f"!{command.name}:" in docs


def test_short_docs(registry):
    docs = command_docs(registry, form="short")
    lines = [line for line in docs.splitlines() if line.startswith("!")]
    assert len(lines) == len(registry)
    # text arguments quoted, the ranges that prevent mistakes, and the one fact that matters about num
    assert ('!craftRecipe("recipe_name", num>=1): Craft an item; num counts uses of the recipe, not items '
            "(1 log makes 4 planks).") in lines
    assert '!searchForBlock("type", search_range 32-512): Find the nearest block of a kind and walk to it.' in lines
    assert any(line.startswith('!discard("item_name", num (-1: all)):') for line in lines)
    assert any(line.startswith('!lookAtPlayer("player_name", "at"|"with"):') for line in lines)
    assert "One command per reply" in docs and '!help("name")' in docs
    assert len(docs) < len(command_docs(registry, form="full")) / 2


def test_docs_leave_out_blocked(registry):
    blocked, _ = blocked_commands(registry, ["getCraftingPlan", "stop"])
    for form in ("full", "short"):
        docs = command_docs(registry, blocked, form)
        assert "!getCraftingPlan" not in docs
        assert "!stop" in docs


def test_docs_form_checked(registry):
    with pytest.raises(ValueError):
        command_docs(registry, form="long")


def test_command_table(registry):
    table = command_table(registry)
    assert "!craftRecipe(recipe_name: ItemName, num: int >= 1)" in table and "unbound" in table


# ---- the layer an agent uses ------------------------------------------------------------------------------
class FakeAgent:
    name = "Andy"


def test_layer_parse_run_and_is_action(registry):
    registry.bind("inventory", lambda agent: f"INVENTORY of {agent.name}\n- oak_log: 2")
    registry.bind("collectBlocks", lambda agent, type, num: f"collected {num} {type}")
    layer = AgentCommands(registry)
    parsed = layer.parse('Sure. !collectBlocks("oak_log", 2)')
    assert parsed.command == "collectBlocks" and parsed.args == ["oak_log", 2] and parsed.message == "Sure."
    assert layer.run(FakeAgent(), parsed.command, parsed.args) == "collected 2 oak_log"
    assert layer.run(FakeAgent(), "inventory", []) == "INVENTORY of Andy\n- oak_log: 2"
    assert layer.is_action("collectBlocks") and not layer.is_action("inventory") and not layer.is_action("stfu")
    assert not layer.is_action("nonsense")


def test_layer_docs_list_only_bound_commands(registry):
    registry.bind("inventory", lambda agent: "")
    registry.bind("collectBlocks", lambda agent, type, num: "")
    docs = AgentCommands(registry).docs(FakeAgent())
    assert "!inventory" in docs and "!collectBlocks" in docs and "!goToBed" not in docs
    # with nothing bound at all, everything is listed
    assert "!goToBed" in AgentCommands(default_registry()).docs()
    assert "!goToBed" in AgentCommands(registry, only_bound=False).docs()


def test_layer_help_and_blocked(registry):
    registry.bind("inventory", lambda agent: "")
    layer = AgentCommands(registry, blocked=["getCraftingPlan"], only_bound=False)
    answer = layer.run(FakeAgent(), "help", [])
    # every command the agent may use, also those its prompt leaves out (trading), one line each
    assert "!tradeWithVillager(" in answer and "!tradeWithVillager" not in layer.docs(FakeAgent())
    assert "getCraftingPlan" not in answer
    assert "blocked" in layer.run(FakeAgent(), "getCraftingPlan", ["bookshelf", 1])
    assert "getCraftingPlan" not in layer.available()


def test_layer_query_failure_is_output(registry):
    def broken(agent):
        raise RuntimeError("world not ready")

    registry.bind("stats", broken)
    out = AgentCommands(registry).run(FakeAgent(), "stats", [])
    assert "!stats failed" in out and "world not ready" in out


def test_cli_prints_table(capsys):
    from mindpy.cli import main

    assert main(["commands"]) == 0
    out = capsys.readouterr().out
    assert "!goToPlayer(player_name: string, closeness: float >= 0)" in out and "66 commands" in out
    assert main(["commands", "--docs", "short", "--block", "discard"]) == 0
    out = capsys.readouterr().out
    assert "!discard" not in out and "!stop" in out


# ---- the standard bindings (crafting and blueprint queries) ----------------------------------------------
def test_crafting_queries_from_an_inventory(registry):
    from mindpy.commands.crafting import craftable_text, crafting_plan_text

    inventory = {"oak_log": 1}
    parsed = AgentCommands(registry).parse('Let me see. !getCraftingPlan("oak_plank", 4)')
    assert parsed.args == ["oak_planks", 4]
    out = crafting_plan_text(registry.version, inventory, False, *parsed.args)
    assert out.startswith("You have everything needed for 4 oak_planks.") and "Craft 1 oak_log -> 4 oak_planks" in out
    assert craftable_text(registry.version, inventory, False) == "CRAFTABLE_ITEMS\n- oak_planks (up to 4)"
    assert "- 2 oak_log" in crafting_plan_text(registry.version, inventory, False, "wooden_pickaxe", 1)


def test_blueprint_queries_read_the_task_in_the_context():
    # the queries that need no world (the checks against the world run on a real bot in test_commands_queries)
    from types import SimpleNamespace

    from mindpy.commands.blueprint import NO_BLUEPRINT
    from mindpy.tasks.blueprint import Blueprint

    layer = AgentCommands(default_registry())
    for text in ("!checkBlueprint", "!getBlueprint", "!checkBlueprintLevel(0)", "!getBlueprintLevel(0)"):
        parsed = layer.parse(text)
        assert layer.run(SimpleNamespace(task=None), parsed.command, parsed.args) == NO_BLUEPRINT
    blueprint = Blueprint.from_dict({"levels": [{"level": 0, "coordinates": [0, 0, 0],
                                                 "placement": [["stone", "air"]]}]})
    context = SimpleNamespace(task=SimpleNamespace(blueprint=blueprint))
    assert "does not exist" in layer.run(context, "getBlueprintLevel", [3])
    assert layer.run(context, "getBlueprint", []).startswith("Blueprint: 1 levels")
