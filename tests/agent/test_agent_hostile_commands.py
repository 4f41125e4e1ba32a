"""Commands at and beyond the edge of their domains, sent by a second player and by the model, through a real
agent on the embedded server: each is capped or refused with a one-line reason, and the agent keeps working."""

from __future__ import annotations

import pytest

from agent_helpers import listen, start_agent
from conftest import isolate, teleport, wait_until
from mindpy.agent.agent import MOST_CHAT_PIECES


@pytest.fixture
def agent_and_player(make_bot, tmp_path):
    """An agent whose model only says "Done.", and a player standing beside it who listens to its chat."""
    agent, model = start_agent(make_bot, tmp_path, [], default="Done.")
    player = make_bot("mallory")
    x, y, z = isolate(player)
    teleport(agent.bot, x + 2, y, z)
    heard = listen(player)
    yield agent, player, heard
    agent.close()


def said(heard, agent, *words):
    return any(u == agent.name and all(w in m for w in words) for u, m in heard)


def test_huge_counts_and_times_are_capped_and_the_agent_answers_the_next_command(agent_and_player):
    agent, player, heard = agent_and_player
    player.chat("!stay(10000000000)")  # used to overflow the bridge's wait and kill every bot of the process
    wait_until(lambda: said(heard, agent, "seconds", "86400"), timeout=15, message="the cap on !stay said")
    player.chat("!stop")
    player.chat('!collectBlocks("oak_log", 300000000)')
    wait_until(lambda: said(heard, agent, "num", "2304"), timeout=15, message="the cap on the count said")
    wait_until(lambda: said(heard, agent, "oak_log"), timeout=30, message="the collect's own outcome")
    player.chat("!stats")
    wait_until(lambda: said(heard, agent, "STATS"), timeout=15, message="the agent still answering")


def test_nonsense_arguments_are_refused_with_the_reason(agent_and_player):
    agent, player, heard = agent_and_player
    player.chat("!goToCoordinates(1e308, 0, -1e308, 0)")
    wait_until(lambda: said(heard, agent, "x must be in"), timeout=15, message="the coordinates refused")
    assert not said(heard, agent, "reached")
    assert all(len(m) < 600 for u, m in heard if u == agent.name), "a refusal quoted hundreds of digits"
    player.chat('!collectBlocks("air", 3)')
    wait_until(lambda: said(heard, agent, "air cannot be mined"), timeout=15, message="air refused")
    assert not said(heard, agent, "Collected")
    player.chat("!stats")
    wait_until(lambda: said(heard, agent, "STATS"), timeout=15, message="the agent still answering")


def test_the_model_sending_the_same_commands_does_not_stop_the_agent(make_bot, tmp_path):
    replies = ['!collectBlocks("air", 3)', "!goToCoordinates(1e308, 0, -1e308, 0)",
               "!stay(10000000000)"]
    agent, model = start_agent(make_bot, tmp_path, replies, default="Hello again.")
    player = make_bot("caller")
    try:
        x, y, z = isolate(player)
        teleport(agent.bot, x + 2, y, z)
        heard = listen(player)
        player.chat(f"{agent.name}, go")
        wait_until(lambda: "86400" in system_turns(agent), timeout=60, message="the cap on !stay in the history")
        outputs = system_turns(agent)
        assert "cannot be mined" in outputs and "x must be in" in outputs
        player.chat("!stop")  # the capped stay still lasts a day: stop it as a player would
        player.chat(f"{agent.name}, hi")
        wait_until(lambda: said(heard, agent, "Hello again."), timeout=30, message="the agent answering again")
    finally:
        agent.close()


def system_turns(agent) -> str:
    return " ".join(t["content"] for t in agent.history.get() if t["role"] == "system")


def test_a_huge_reply_is_said_in_a_few_pieces_and_the_agent_stays(make_bot, tmp_path):
    """Said whole, a 60,000-character reply would be 250 chat messages: a real server kicks a bot for that."""
    agent, model = start_agent(make_bot, tmp_path, ["blah " * 12_000], default="Hello again.")
    player = make_bot("talker")
    try:
        x, y, z = isolate(player)
        teleport(agent.bot, x + 2, y, z)
        heard = listen(player)
        player.chat(f"{agent.name}, tell me everything")
        wait_until(lambda: said(heard, agent, "more characters not said"), timeout=20, message="the cut note")
        assert sum(u == agent.name and "blah" in m for u, m in heard) == MOST_CHAT_PIECES
        player.chat(f"{agent.name}, hi")
        wait_until(lambda: said(heard, agent, "Hello again."), timeout=20, message="the agent answering again")
        assert agent.bot.connected
    finally:
        agent.close()
