"""The agent loop with a replay model, a real bot and a real player bot on the embedded server."""

from __future__ import annotations

import time

import pytest

from agent_helpers import closing_agents, listen, make_settings, side_by_side, start_agent
from conftest import wait_until


@pytest.fixture
def agents(make_bot, tmp_path):
    """`agents(replies, **kw)` starts an agent; every agent is closed after the test."""
    with closing_agents(lambda replies, **kwargs: start_agent(make_bot, tmp_path, replies, **kwargs)) as factory:
        yield factory


def test_chat_makes_the_agent_run_a_command_read_its_output_and_answer(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(["Let me look. !inventory", "I carry 3 oak logs."])
    side_by_side(player, agent)
    player.command(f"/give {agent.name} oak_log 3")
    wait_until(lambda: agent.bot.inventory().get("oak_log") == 3, message="the logs")
    heard = listen(player)
    player.chat(f"{agent.name}, what do you have?")
    wait_until(lambda: (agent.name, "I carry 3 oak logs.") in heard, timeout=15, message="the agent's answer")
    assert (agent.name, "Let me look.") in heard  # the text before a command is said too
    # the second call saw the command's real output as a system turn
    second = model.calls[1]["messages"]
    outputs = [m["content"] for m in second if m["role"] == "system" and "INVENTORY" in m["content"]]
    assert outputs and "- oak_log: 3" in outputs[0]
    turns = agent.history.get()
    assert turns[0] == {"role": "user", "content": f"{player.name}: {agent.name}, what do you have?"}
    assert turns[1] == {"role": "assistant", "content": "Let me look. !inventory"}


def test_a_malformed_command_gets_the_parsers_explanation_and_the_agent_carries_on(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(['!craftRecipe("oak_plank")', 'Oops. !craftRecipe("oak_plank", 1)', "Made planks."])
    side_by_side(player, agent)
    player.command(f"/give {agent.name} oak_log 1")
    wait_until(lambda: agent.bot.inventory().get("oak_log") == 1, message="the log")
    heard = listen(player)
    player.chat(f"{agent.name}, craft planks")
    wait_until(lambda: (agent.name, "Made planks.") in heard, timeout=20, message="the agent's last answer")
    system_turns = [t["content"] for t in agent.history.get() if t["role"] == "system"]
    refusal = system_turns[0]
    assert "craftRecipe" in refusal and "2 arguments" in refusal, refusal
    assert agent.bot.inventory().get("oak_planks") == 4  # "oak_plank" was read as oak_planks
    assert any("oak_planks" in t for t in system_turns[1:])


def test_a_players_command_runs_directly_without_the_model(agents, make_bot):
    player = make_bot("player")
    agent, model = agents([])
    side_by_side(player, agent)
    heard = listen(player)
    player.chat("!stats")
    wait_until(lambda: any(u == agent.name and "STATS" in m for u, m in heard), timeout=10,
               message="the stats in chat")
    player.chat('!goToPlayer("nobody_here", 2)')
    wait_until(lambda: any(u == agent.name and "nobody_here" in m for u, m in heard), timeout=10,
               message="the plain failure of a command")
    player.chat("!craftRecipe(oak_planks)")  # malformed: the parser's explanation goes back to the player
    wait_until(lambda: any(u == agent.name and "craftRecipe" in m and "argument" in m for u, m in heard),
               timeout=10, message="the parser's explanation in chat")
    assert model.calls == []


def test_only_chat_with_limits_who_the_agent_listens_to(agents, make_bot, tmp_path):
    stranger = make_bot("stranger")
    friend = make_bot("friend")
    settings = make_settings(tmp_path, only_chat_with=[friend.name])
    agent, model = agents(["Hi friend!"], settings=settings)
    side_by_side(friend, agent)
    heard = listen(friend)
    stranger.chat(f"{agent.name}, hello")
    friend.chat(f"{agent.name}, hello")  # chat arrives in order: the stranger's line has been dealt with first
    wait_until(lambda: (agent.name, "Hi friend!") in heard, timeout=10, message="the answer to the friend")
    assert len(model.calls) == 1
    assert stranger.name not in str(model.calls[0]["messages"]), model.calls[0]["messages"]


def test_whispers_reach_the_agent(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(["Got your whisper."])
    side_by_side(player, agent)
    heard = listen(player)
    player.command(f"/tell {agent.name} psst")
    wait_until(lambda: (agent.name, "Got your whisper.") in heard, timeout=10, message="the answer")
    assert agent.history.get()[0]["content"] == f"{player.name}: psst"


def test_stop_ends_the_running_action_and_clear_chat_forgets(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(["Staying here. !stay(-1)"], default="ok")
    side_by_side(player, agent)
    player.chat(f"{agent.name}, stay")
    wait_until(lambda: agent.actions.current_label == "action:stay", timeout=10, message="the stay action")
    player.chat("!stop")
    wait_until(lambda: not agent.actions.executing, timeout=3, message="the action to stop")
    assert agent.history.get()
    player.chat("!clearChat")
    wait_until(lambda: agent.history.get() == [] and agent.history.memory == "", timeout=5, message="history cleared")


def test_stfu_silences_the_agent_until_a_person_talks_again(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(["!stfu", "You said hi.", "Hello again."])
    side_by_side(player, agent)
    heard = listen(player)
    player.chat(f"{agent.name}, please be quiet")
    wait_until(lambda: agent.shut_up, timeout=10, message="the agent to shut up")
    wait_until(lambda: len(model.calls) == 2, timeout=10, message="the turn after !stfu")
    time.sleep(1)
    assert not any(u == agent.name for u, _ in heard)  # "You said hi." was not said
    player.chat(f"{agent.name}, hi")
    wait_until(lambda: (agent.name, "Hello again.") in heard, timeout=10, message="talking again")


def test_set_mode_and_modes(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(['!setMode("cowardice", true)', "!modes", "Done."])
    side_by_side(player, agent)
    assert not agent.modes.get("cowardice").on
    player.chat(f"{agent.name}, be a coward")
    wait_until(lambda: len(model.calls) == 3, timeout=15, message="three model calls")
    assert agent.modes.get("cowardice").on
    outputs = [t["content"] for t in agent.history.get() if t["role"] == "system"]
    assert any("cowardice(ON)" in o for o in outputs), outputs


def test_goal_self_prompts_until_end_goal(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(['On it. !goal("collect dirt")', "Goal set.", "!stats", "!endGoal", "Goal ended."],
                          default="Nothing to do.")
    side_by_side(player, agent)
    player.chat(f"{agent.name}, set yourself a goal")
    wait_until(lambda: any("Self-prompting stopped" in t["content"] for t in agent.history.get()), timeout=20,
               message="the goal to end")
    contents = [t["content"] for t in agent.history.get()]
    assert any("You are self-prompting with the goal: 'collect dirt'" in c for c in contents)
    assert any(c.startswith("STATS") for c in contents)  # the command the self-prompt produced ran
    assert not agent.self_prompter.active


def test_a_dead_model_is_reported_and_the_agent_survives(agents, make_bot):
    player = make_bot("player")
    agent, model = agents(["First answer."])  # then the script runs out: every call fails
    side_by_side(player, agent)
    heard = listen(player)
    player.chat(f"{agent.name}, one")
    wait_until(lambda: (agent.name, "First answer.") in heard, timeout=10, message="the first answer")
    player.chat(f"{agent.name}, two")
    wait_until(lambda: any("could not be reached" in t["content"] for t in agent.history.get()), timeout=10,
               message="the failure in the history")
    player.chat("!stats")  # still alive: commands still work
    wait_until(lambda: any(u == agent.name and "STATS" in m for u, m in heard), timeout=10, message="stats")
