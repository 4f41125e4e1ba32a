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
    ('ANDY: !collectBlocks("wheat", 3)', "andy", '!collectBlocks("wheat", 3)'),
    ('"andy": "!collectBlocks("wheat", 3)"', "andy", '!collectBlocks("wheat", 3)'),
    ("'Jill': '!attack(\"cow\")'", "jill", '!attack("cow")'),
    ("“jill”: !attack(“cow”)", "jill", '!attack("cow")'),
    ('**andy:** `!collectBlocks("wheat", 3)`', "andy", '!collectBlocks("wheat", 3)'),
    ('`andy: !collectBlocks("wheat", 3)`', "andy", '!collectBlocks("wheat", 3)'),
    ('| andy | !collectBlocks("wheat", 3) |', "andy", '!collectBlocks("wheat", 3)'),
    ('> @jill: !attack("cow")', "jill", '!attack("cow")'),
    ('andy — !attack("cow")', "andy", '!attack("cow")'),
    ('- _andy_: !attack("cow")', "andy", '!attack("cow")'),
    ('Agent Andy: !attack("cow")', "andy", '!attack("cow")'),
    ('Great! andy should now run !attack("cow") to get beef.', "andy", '!attack("cow")'),
    ('andy : !Attack ("cow") -- beef for the stew!', "andy", '!attack("cow")'),
    ('MAX_2 = !smeltItem(beef, 1)', "max_2", '!smeltItem("beef", 1)'),
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


@pytest.mark.parametrize("text, commands", [
    # a command whose arguments run on over the next lines
    ('andy: !collectBlocks("wheat",\n    3)\njill: !attack("cow")',
     {"andy": '!collectBlocks("wheat", 3)', "jill": '!attack("cow")'}),
    ('- andy: !collectBlocks(\n    "wheat",\n    3\n  )', {"andy": '!collectBlocks("wheat", 3)'}),
    # the name alone on the line before its command
    ('### Andy\n!collectBlocks("wheat", 3)\n\n### jill\n!attack("cow")',
     {"andy": '!collectBlocks("wheat", 3)', "jill": '!attack("cow")'}),
    ('**andy**:\n```\n!collectBlocks("wheat", 3)\n```', {"andy": '!collectBlocks("wheat", 3)'}),
    # several agents on one line
    ('andy: !collectBlocks("wheat", 3); jill: !attack("cow")',
     {"andy": '!collectBlocks("wheat", 3)', "jill": '!attack("cow")'}),
    ('Commands:\n```\nandy: !collectBlocks("wheat", 3)\njill: !attack("cow")\n```\nDone!',
     {"andy": '!collectBlocks("wheat", 3)', "jill": '!attack("cow")'}),
])
def test_replies_laid_out_over_lines_give_every_command(registry, text, commands):
    parsed = parse_dispatch_reply(text, AGENTS, registry)
    assert parsed.commands == commands
    assert parsed.problems == []


def test_unknown_agent_names_the_known_ones(registry):
    parsed = parse_dispatch_reply('bob: !attack("cow")\nandy: !attack("pig")', AGENTS, registry)
    assert parsed.commands == {"andy": '!attack("pig")'}
    assert parsed.problems == ["unknown agent 'bob': the agents are andy, jill, max_2"]


@pytest.mark.parametrize("text", [
    'andy: !attack("cow")\nandy: !attack("pig")',
    'andy: !attack("cow") and then !attack("pig")',
    '### andy\n!attack("cow")\n!attack("pig")',
])
def test_two_commands_for_one_agent_keep_the_first(registry, text):
    parsed = parse_dispatch_reply(text, AGENTS, registry)
    assert parsed.commands == {"andy": '!attack("cow")'}
    assert len(parsed.problems) == 1
    assert "two commands for andy" in parsed.problems[0]
    assert '!attack("pig")' in parsed.problems[0]


@pytest.mark.parametrize("text, busy, commands, problems", [
    ('jill: !attack("cow")\nandy: !attack("pig")', {"jill": "smelting beef"}, {"andy": '!attack("pig")'},
     ['jill is busy (smelting beef): !attack("cow") was not run; give commands to free agents only']),
    ("I think andy should get some wheat.", {}, {},
     ["no command found in the reply: write one line per free agent as name: !command(args)"]),
    ("andy is free!Jill is busy, so no command.", {}, {},
     ["no command found in the reply: write one line per free agent as name: !command(args)"]),
    ("andy: !collect", {}, {}, ["andy: no command could be read in '!collect'"]),
])
def test_problems_are_exact(registry, text, busy, commands, problems):
    parsed = parse_dispatch_reply(text, AGENTS, registry, busy=busy)
    assert parsed.commands == commands
    assert parsed.problems == problems


@pytest.mark.parametrize("text, allowed, start, words, commands", [
    ('andy: !collectBlocks("wheat")', None, "andy: Command !collectBlocks takes 2 arguments", "", {}),
    ("andy: !cookDinner(1)", None, "andy: Unknown command !cookDinner.", "", {}),
    ('andy: !placeHere("stone")', ["attack"], "andy: ", "blocked", {}),
    ('andy: !collectBlocks("wheat",\njill: !attack("cow")', None, "andy: The argument list is not closed", "",
     {"jill": '!attack("cow")'}),
    ('First we gather: !collectBlocks("wheat", 3)', None, "a command without an agent name", "", {}),
    ('andy and jill: !attack("cow")', None, "a command for several agents (andy, jill)", "", {}),
    ('### andy\nThe cow first.\n!attack("cow")', None, "a command without an agent name", "", {}),
])
def test_a_refused_command_gives_one_problem(registry, text, allowed, start, words, commands):
    parsed = parse_dispatch_reply(text, AGENTS, registry, allowed=allowed)
    assert parsed.commands == commands
    [problem] = parsed.problems
    assert problem.startswith(start) and words in problem
