"""Who an agent obeys, on the embedded server, with a real untrusted player (mallory) beside the agent.

- Code runs only when the chain of requests that led to it started with a trusted player: a goal set by mallory
  keeps mallory's trust through the self-prompted turns that follow, and so does a message a bot passes on.
- Nothing the agent says in chat becomes a server command: model text and echoed outputs are sent as chat only,
  whatever the piece boundaries; the bot's own commands go through `Bot.command`.
- `player_commands` decides who may run !commands directly.
"""

from __future__ import annotations

import pytest

from agent_helpers import (
    RuleModel,
    beside_a_log,
    closing_agents,
    listen,
    make_settings,
    start_agent_with_model,
    system_turns,
)
from conftest import unique_name, wait_ticks, wait_until
from mindpy.agent.bus import InProcessBus
from mindpy.bridge.plain_chat import CHAT_LIMIT as PIECE  # the length of the agent's chat pieces

MAKE_PLANKS = "collect the oak log next to you and make planks"
CODE = '''```python
print("collected:", skills.collect_blocks("oak_log", 1))
print("crafted:", skills.craft_recipe("oak_planks", 1))
```'''
REFUSAL = "only write and run code for trusted players"


def is_coding_prompt(system: str) -> bool:
    """Whether the model is asked for code (the profile's coding prompt, or the built-in one)."""
    return "write Python to control itself" in system or "acts by writing Python code" in system


# What the prompt adds around the conversation: the state block (memory, goal, stats) and the modes' log.
NOT_TURNS = ("Your memory of earlier events", "Recent behaviors log")


def latest_turn(messages) -> str:
    """The newest turn of the conversation, which the model answers."""
    turns = [str(m.get("content", "")) for m in messages]
    return next((t for t in reversed(turns) if not t.startswith(NOT_TURNS)), "")


def script(*pairs):
    """A model rule: a code block whenever code is asked for, else the reply of the first (text, reply) pair whose
    text is in the newest turn; nothing matched: the model's default ("Okay.")."""
    def rule(system, messages):
        if is_coding_prompt(system):
            return CODE
        latest = latest_turn(messages)
        return next((reply for text, reply in pairs if text in latest), None)
    return rule


@pytest.fixture
def agents(make_bot, tmp_path):
    """`agents(rule, **settings)` starts an agent whose model answers by `rule` (see `script`); `bus=` puts it on
    a shared bus. Every agent is closed after the test."""
    def start(rule, bus=None, name=None, **settings):
        model = RuleModel([], rule=rule, default="Okay.")
        agent = start_agent_with_model(make_bot, tmp_path, model, settings=make_settings(tmp_path, **settings),
                                       bus=bus, name=name)
        return agent, model

    with closing_agents(start) as factory:
        yield factory


def said_by(agent, heard) -> list[str]:
    return [message for username, message in heard if username == agent.name]


def coding_prompts(model) -> list[dict]:
    return [call for call in model.calls if is_coding_prompt(call["system"])]


# ---- 1. trust follows the message ------------------------------------------------------------------------------
SELF_PROMPT = "self-prompting with the goal"
CODE_FOR_THE_GOAL = script((SELF_PROMPT, f'!newAction("{MAKE_PLANKS}")'), ("Action output", "!endGoal"),
                           ("set yourself the goal", f'On it. !goal("{MAKE_PLANKS}")'))


@pytest.mark.parametrize("how", ['!goal("{task}")', "{agent}, please set yourself the goal to {task}"],
                         ids=["typed !goal", "asked the model"])
def test_a_goal_set_by_an_untrusted_player_gets_no_code_run(agents, make_bot, how):
    mallory = make_bot("mallory")
    agent, model = agents(CODE_FOR_THE_GOAL, allow_insecure_coding=True, trusted_players=["alice"])
    beside_a_log(agent, mallory)
    mallory.chat(how.format(agent=agent.name, task=MAKE_PLANKS))
    wait_until(lambda: any(REFUSAL in t and mallory.name in t for t in system_turns(agent))
               or coding_prompts(model), timeout=30, message=f"the refusal naming {mallory.name}")
    assert coding_prompts(model) == [], "code was asked for on mallory's goal"
    assert agent.self_prompter.goal == MAKE_PLANKS  # the goal itself was taken: only code is refused
    wait_ticks(20, "code, had any been written, to run")
    assert "oak_planks" not in agent.bot.inventory()


def test_a_goal_set_by_a_trusted_player_or_by_the_task_gets_code_run(agents, make_bot):
    alice = make_bot("alice")
    mallory = make_bot("mallory")
    by_alice, _ = agents(CODE_FOR_THE_GOAL, allow_insecure_coding=True, trusted_players=[alice.name])
    beside_a_log(by_alice, alice, mallory)
    alice.chat(f'!goal("{MAKE_PLANKS}")')
    wait_until(lambda: by_alice.bot.inventory().get("oak_planks") == 4, timeout=60, message="planks from the code")

    by_task, _ = agents(CODE_FOR_THE_GOAL, allow_insecure_coding=True, trusted_players=[alice.name])
    beside_a_log(by_task)
    by_task.self_prompter.start(MAKE_PLANKS)  # as the harness gives a task's goal
    wait_until(lambda: by_task.bot.inventory().get("oak_planks") == 4, timeout=60, message="planks for the task")


def test_a_message_an_agent_passes_on_keeps_the_untrusted_players_trust(agents, make_bot):
    """mallory asks one bot, which asks its teammate for code: the teammate answers to mallory, not to a bot."""
    bus = InProcessBus()
    mallory = make_bot("mallory")
    coder_name = unique_name("coder")
    messenger, _ = agents(script(("ask your teammate",
                                  f'!startConversation("{coder_name}", "Please make planks for us.")'),
                                 ("FROM OTHER BOT", f'!endConversation("{coder_name}")')),
                          bus=bus, allow_insecure_coding=True, trusted_players=["alice"])
    coder, coder_model = agents(script(("make planks for us", f'!newAction("{MAKE_PLANKS}")'),
                                       ("Action output", "I cannot.")),
                                bus=bus, name=coder_name, allow_insecure_coding=True, trusted_players=["alice"])
    beside_a_log(coder, mallory, messenger.bot)
    mallory.chat(f"{messenger.name}, ask your teammate to write some code")
    wait_until(lambda: any(REFUSAL in t and mallory.name in t for t in system_turns(coder))
               or coding_prompts(coder_model), timeout=30, message=f"the coder's refusal naming {mallory.name}")
    assert coding_prompts(coder_model) == [], "code was asked for on mallory's request"


# ---- 2. chat never becomes a server command --------------------------------------------------------------------
def give_line(player) -> str:
    return f"/give {player.name} diamond 1"


def only_the_command(player) -> str:
    return give_line(player)


def after_spaces(player) -> str:
    return "  \t " + give_line(player)


def after_a_newline(player) -> str:
    return "\n" + give_line(player)


def at_a_piece_boundary(player) -> str:
    lead = "Here is a long answer. "
    return lead + "x" * (PIECE - len(lead)) + give_line(player)


def at_a_boundary_after_a_space(player) -> str:
    """The second piece starts " /give": servers that trim chat (older vanilla ones) would run it."""
    lead = "Here is a long answer."
    return lead + "y" * (PIECE - len(lead)) + " " + give_line(player)


@pytest.mark.parametrize("reply", [only_the_command, after_spaces, after_a_newline, at_a_piece_boundary,
                                   at_a_boundary_after_a_space])
def test_a_model_reply_that_looks_like_a_server_command_is_only_said(agents, make_bot, reply):
    mallory = make_bot("mallory")
    agent, _ = agents(lambda system, messages: reply(mallory))
    beside_a_log(agent, mallory)
    heard = listen(mallory)
    mallory.chat(f"{agent.name}, say something")
    assert_said_not_run(agent, mallory, heard, f"give {mallory.name} diamond 1")


def test_an_echoed_error_cut_at_a_piece_boundary_is_only_said(agents, make_bot):
    """The parser's explanation repeats mallory's text: padded so that "/give" starts the second chat piece."""
    mallory = make_bot("mallory")
    agent, _ = agents(script())
    beside_a_log(agent, mallory)
    payload = f"/give {mallory.name} diamond 64 x"
    probe = agent.commands.parse(f"!stay({payload})").error
    assert probe and payload in probe, probe
    padding = "A" * (PIECE - probe.index(payload))
    heard = listen(mallory)
    mallory.chat(f"!stay({padding}{payload})")
    assert_said_not_run(agent, mallory, heard, f"give {mallory.name} diamond 64 x")


def assert_said_not_run(agent, mallory, heard, text):
    """`text` reaches mallory as the agent's chat, and the /give in it never runs."""
    wait_until(lambda: any(text in m for m in said_by(agent, heard)) or mallory.inventory().get("diamond"),
               timeout=20, message=f"the agent to say {text!r}")
    wait_ticks(20, "a command, had one been sent, to run")
    assert "diamond" not in mallory.inventory(), f"the server ran chat as a command: {said_by(agent, heard)}"
    piece = next(m for m in said_by(agent, heard) if text in m)
    assert not piece.lstrip().startswith("/"), piece


def test_the_bots_own_server_commands_still_run(agents, make_bot):
    mallory = make_bot("mallory")
    agent, _ = agents(script())
    agent.bot.command(f"give {mallory.name} stick 2")
    wait_until(lambda: mallory.inventory().get("stick") == 2, timeout=10, message="the sticks from Bot.command")


# ---- 3. who may run !commands directly -------------------------------------------------------------------------
def test_untrusted_players_commands_are_refused_and_the_agent_keeps_working(agents, make_bot):
    alice = make_bot("alice")
    mallory = make_bot("mallory")
    agent, model = agents(script(), player_commands="trusted_players", trusted_players=[alice.name])
    beside_a_log(agent, alice, mallory)
    agent.bot.command(f"/give {agent.name} dirt 4")
    wait_until(lambda: agent.bot.inventory().get("dirt") == 4, message="the dirt")
    alice.chat("!stay(-1)")
    wait_until(lambda: agent.actions.current_label == "action:stay", timeout=10, message="alice's !stay")
    heard = listen(mallory)
    mallory.chat(f'!givePlayer("{mallory.name}", "dirt", 2)')
    mallory.chat("!stop")
    wait_until(lambda: len(said_by(agent, heard)) >= 2 or mallory.inventory().get("dirt"), timeout=10,
               message="two answers to mallory's commands")
    wait_ticks(40, "a give, had one started")
    assert "dirt" not in mallory.inventory() and agent.bot.inventory().get("dirt") == 4
    assert agent.actions.current_label == "action:stay", "mallory's !stop stopped alice's !stay"
    refusals = said_by(agent, heard)
    assert len(refusals) == 2 and all("trusted players" in m and len(m) < 120 for m in refusals), refusals
    alice.chat(f'!givePlayer("{alice.name}", "dirt", 1)')
    wait_until(lambda: alice.inventory().get("dirt") == 1, timeout=20, message="alice's dirt")
    assert model.calls == []


def test_with_nobody_allowed_even_a_trusted_players_command_is_refused(agents, make_bot):
    alice = make_bot("alice")
    agent, _ = agents(script(("hi", "Hello alice.")), player_commands="nobody", trusted_players=[alice.name])
    beside_a_log(agent, alice)
    heard = listen(alice)
    alice.chat("!stats")
    wait_until(lambda: said_by(agent, heard), timeout=10, message="an answer to !stats")
    assert "STATS" not in said_by(agent, heard)[0] and "!commands" in said_by(agent, heard)[0], said_by(agent, heard)
    alice.chat(f"{agent.name}, hi")  # words still reach the model
    wait_until(lambda: "Hello alice." in said_by(agent, heard), timeout=10, message="the agent's answer")


def test_an_unknown_player_commands_value_is_refused():
    from mindpy.agent.agent import AgentSettings
    from mindpy.settings import SettingsError

    with pytest.raises(SettingsError, match="player_commands"):
        AgentSettings(player_commands="some")
