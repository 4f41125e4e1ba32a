"""The prompt's command docs by situation (the rule table), their one-line form, and !help with and without a name.

Pure logic: the records without a bot."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from mindpy.commands import AgentCommands, command_docs, default_registry
from mindpy.commands.docs import BLUEPRINT, OFFERED, Situation, offered
from mindpy.models.tokens import count_tokens

FREE_PLAY = Situation()
CRAFTING = Situation(task="techtree")
BUILDING = Situation(task="construction", blueprint=True)


@pytest.fixture(scope="module")
def registry():
    return default_registry()


def names_in(docs: str) -> set[str]:
    return {line[1:].split("(")[0].split(":")[0].split(" ")[0] for line in docs.splitlines() if line.startswith("!")}


def context(task=None, coder=None, vision=None):
    """What the docs read from an agent's command context: its task, whether its agent writes code, and its
    vision."""
    return SimpleNamespace(task=task, controls=SimpleNamespace(coder=coder), vision=vision)


def test_every_rule_names_real_commands(registry):
    for offer in OFFERED:
        for name in offer.names:
            assert name in registry, f"the rule '{offer.why}' names !{name}, which is no command"


def test_situation_is_read_from_the_context():
    task = SimpleNamespace(type="construction", blueprint=object())
    assert Situation.of(context(task, coder=object())) == Situation(coding=True, task="construction", blueprint=True)
    assert Situation.of(context()) == FREE_PLAY
    assert Situation.of(SimpleNamespace(name="bare")) == FREE_PLAY  # a context without an agent's parts


def test_code_only_when_coding_is_on(registry):
    assert "newAction" not in names_in(command_docs(registry, form="short", situation=FREE_PLAY))
    assert "newAction" in names_in(command_docs(registry, form="short", situation=Situation(coding=True)))


def test_blueprints_only_when_building(registry):
    for situation in (FREE_PLAY, CRAFTING):
        assert not set(BLUEPRINT) & names_in(command_docs(registry, form="short", situation=situation))
    assert set(BLUEPRINT) <= names_in(command_docs(registry, form="short", situation=BUILDING))
    assert set(BLUEPRINT) <= names_in(command_docs(registry, form="short", situation=Situation(blueprint=True)))


def test_tasks_leave_out_free_play_commands(registry):
    free = names_in(command_docs(registry, form="short", situation=FREE_PLAY))
    crafting = names_in(command_docs(registry, form="short", situation=CRAFTING))
    assert {"attackPlayer", "goToBed", "setMode", "stfu"} <= free - crafting
    assert {"craftRecipe", "getCraftingPlan", "givePlayer", "startConversation", "stop", "inventory"} <= crafting


def test_looks_are_offered_with_vision_and_say_they_describe_the_view(registry):
    assert Situation.of(context(vision=object())) == Situation(vision=True)
    looks = {"lookAtPlayer", "lookAtPosition"}
    assert not looks & names_in(command_docs(registry, form="short", situation=FREE_PLAY))
    seeing = command_docs(registry, form="short", situation=Situation(vision=True))
    assert looks <= names_in(seeing)
    for line in seeing.splitlines():
        if line.startswith(("!lookAtPlayer", "!lookAtPosition")):
            assert line.endswith("be told what you see."), line
    assert "the output says what you then see" in command_docs(registry, form="full")


def test_trading_is_only_reachable_through_help(registry):
    layer = AgentCommands(registry)
    for situation_context in (context(), context(SimpleNamespace(type="cooking", blueprint=None), object())):
        assert "tradeWithVillager" not in names_in(layer.docs(situation_context))
    assert "tradeWithVillager" in names_in(layer.run(context(), "help", []))
    entry = layer.run(context(), *_help(layer, '!help("tradeWithVillager")'))
    assert entry.startswith("!tradeWithVillager: Trade with a villager.")
    assert "index (int, at least 1): Which trade" in entry and "Example: !tradeWithVillager(12, 1, 1)" in entry


def test_without_a_situation_every_command_is_listed(registry):
    assert offered(registry["tradeWithVillager"], None) and not offered(registry["tradeWithVillager"], FREE_PLAY)
    # !help has no function of its own (the layer answers it): the docs' first lines tell how to use it
    assert names_in(AgentCommands(registry).docs()) == set(registry.names()) - {"help"}


def _help(layer: AgentCommands, text: str) -> tuple[str, list]:
    parsed = layer.parse(text)
    assert parsed.ok, parsed.error
    return parsed.command, parsed.args


@pytest.mark.parametrize("text", ['!help("craftRecipe")', "!help(craftRecipe)", "!help('!craftRecipe')",
                                  'Let me read up. !help( "craftRecipe" )'])
def test_help_with_a_name_is_parsed(registry, text):
    assert _help(AgentCommands(registry), text) == ("help", ["craftRecipe"])


def test_help_answers(registry):
    layer = AgentCommands(registry, blocked=["attack"])
    entry = layer.run(context(), *_help(layer, '!help("craftRecipe")'))
    assert "num (int, at least 1): How many times to use the recipe." in entry
    assert 'Example: !craftRecipe("oak_planks", 4)' in entry
    assert layer.run(context(), "help", ["attack"]) == "Command !attack is blocked for you: you cannot use it."
    unknown = layer.run(context(), "help", ["craftRecpe"])
    assert unknown == 'There is no command !craftRecpe. Did you mean !help("craftRecipe")?'
    assert layer.parse("!help").ok and layer.parse("!help").args == [None]  # no name: the list
    assert layer.parse('!help("a", "b")').error  # only one name
    assert layer.parse('!help("x") and more').args == ["x"]


def test_prompt_docs_are_small(registry):
    """The docs a free-play agent and a crafting agent get: under a third of all the commands in full."""
    layer = AgentCommands(registry)
    full = count_tokens(command_docs(registry, form="full"))
    for ctx in (context(), context(SimpleNamespace(type="techtree", blueprint=None), coder=object())):
        docs = layer.docs(ctx)
        assert count_tokens(docs) < min(1000, full / 3), docs
