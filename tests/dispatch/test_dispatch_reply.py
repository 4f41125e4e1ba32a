"""Reading dispatcher replies: the wordings models use, and the one-line problem for each kind of mistake."""

from __future__ import annotations

import pytest

from mindpy.commands import default_registry
from mindpy.dispatch import parse_dispatch_reply

AGENTS = ["andy", "jill", "max_2"]


@pytest.fixture(scope="module")
def registry():
    return default_registry()


@pytest.mark.parametrize("line, agent, command", [
    ('andy: !collectBlocks("wheat", 3)', "andy", '!collectBlocks("wheat", 3)'),
    ('- andy -> !craftRecipe("bread", 1)', "andy", '!craftRecipe("bread", 1)'),
    ('**jill**: !goToPlayer("andy", 2)', "jill", '!goToPlayer("andy", 2)'),
    ("1. `jill` => !attack('cow')", "jill", '!attack("cow")'),
    ("* Andy - !smeltItem(beef, 1)", "andy", '!smeltItem("beef", 1)'),
    ("max_2: !putInChest(\"bread\", 1)  # serve it", "max_2", '!putInChest("bread", 1)'),
    ("**max_2** -> !takeFromChest(\"bowl\", 1)", "max_2", '!takeFromChest("bowl", 1)'),
])
def test_wordings_give_the_agent_and_the_canonical_command(registry, line, agent, command):
    parsed = parse_dispatch_reply(line, AGENTS, registry)
    assert parsed.commands == {agent: command}
    assert parsed.problems == []


def test_prose_around_the_command_lines_is_skipped(registry):
    text = ("Order 0 is due first, so andy starts the bread.\n\n"
            'andy: !collectBlocks("wheat", 3)\n'
            "jill has the cow to kill:\n"
            'jill: !attack("cow")\n'
            "That should keep both busy.")
    parsed = parse_dispatch_reply(text, AGENTS, registry)
    assert parsed.commands == {"andy": '!collectBlocks("wheat", 3)', "jill": '!attack("cow")'}
    assert parsed.problems == []


def test_unknown_agent_names_the_known_ones(registry):
    parsed = parse_dispatch_reply('bob: !attack("cow")\nandy: !attack("pig")', AGENTS, registry)
    assert parsed.commands == {"andy": '!attack("pig")'}
    assert parsed.problems == ["unknown agent 'bob': the agents are andy, jill, max_2"]


def test_two_commands_for_one_agent_keep_the_first(registry):
    parsed = parse_dispatch_reply('andy: !attack("cow")\nandy: !attack("pig")', AGENTS, registry)
    assert parsed.commands == {"andy": '!attack("cow")'}
    assert len(parsed.problems) == 1
    assert "two commands for andy" in parsed.problems[0]
    assert '!attack("pig")' in parsed.problems[0]


def test_busy_agent_command_is_dropped_and_says_what_it_is_doing(registry):
    parsed = parse_dispatch_reply('jill: !attack("cow")\nandy: !attack("pig")', AGENTS, registry,
                                  busy={"jill": "smelting beef"})
    assert parsed.commands == {"andy": '!attack("pig")'}
    assert parsed.problems == ['jill is busy (smelting beef): !attack("cow") was not run; give commands to free '
                               'agents only']


def test_malformed_command_uses_the_command_parsers_message(registry):
    parsed = parse_dispatch_reply('andy: !collectBlocks("wheat")', AGENTS, registry)
    assert parsed.commands == {}
    [problem] = parsed.problems
    assert problem.startswith("andy: Command !collectBlocks takes 2 arguments")


def test_unknown_command_uses_the_command_parsers_message(registry):
    parsed = parse_dispatch_reply("andy: !cookDinner(1)", AGENTS, registry)
    [problem] = parsed.problems
    assert problem.startswith("andy: Unknown command !cookDinner.")


def test_command_outside_the_allowed_list_is_refused(registry):
    parsed = parse_dispatch_reply('andy: !placeHere("stone")', AGENTS, registry, allowed=["attack"])
    assert parsed.commands == {}
    [problem] = parsed.problems
    assert problem.startswith("andy: ") and "blocked" in problem


def test_no_command_at_all(registry):
    parsed = parse_dispatch_reply("I think andy should get some wheat.", AGENTS, registry)
    assert parsed.commands == {}
    assert parsed.problems == ["no command found in the reply: write one line per free agent as "
                               "name: !command(args)"]


def test_command_without_an_agent_name(registry):
    parsed = parse_dispatch_reply('First we gather: !collectBlocks("wheat", 3)', AGENTS, registry)
    assert parsed.commands == {}
    [problem] = parsed.problems
    assert problem.startswith("a command without an agent name")
