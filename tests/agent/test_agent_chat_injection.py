"""Text whose "/give" starts a new chat message only when counted the way the client library cuts chat (UTF-16
code units, 256 a message): emoji are one Python character but two units. Said by a real agent on the embedded
server, from a player's !goal (the agent echoes the goal) and from a model's reply, it stays chat: the player
`mallory` beside the agent gets no diamonds."""

from __future__ import annotations

import pytest

from agent_helpers import closing_agents, listen, side_by_side, start_agent
from conftest import wait_ticks, wait_until

EMOJI = "\U0001F600"  # two UTF-16 code units
MESSAGE_UNITS = 256  # mineflayer's chat limit from Minecraft 1.11 on
GOAL_ECHO = "Self-prompting started with the goal: "


def units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def give_after_emoji(lead: str, player: str) -> str:
    """39 emoji and x's, then a /give that starts a new 256-unit piece when `lead` comes before it; counted in
    Python characters, the /give is well inside the first piece."""
    padding = EMOJI * 39
    padding += "x" * (MESSAGE_UNITS - units(lead) - units(padding))
    return f"{padding}/give {player} diamond 7"


@pytest.fixture
def agent_and_mallory(make_bot, tmp_path):
    """`agent_and_mallory(replies_for)`: mallory, and beside it an agent whose model answers
    `replies_for(mallory's name)` (then "Done."); returns (agent, mallory, the chat mallory hears)."""
    with closing_agents(lambda replies: start_agent(make_bot, tmp_path, replies, default="Done.")) as start:
        def factory(replies_for):
            mallory = make_bot("mallory")
            agent, _ = start(replies_for(mallory.name))
            side_by_side(mallory, agent)
            return agent, mallory, listen(mallory)

        yield factory


def said_by(agent, heard) -> list[str]:
    return [message for username, message in heard if username == agent.name]


def assert_only_said(agent, mallory, heard, give: str) -> None:
    """The agent's chat holding `give` reaches mallory, and no diamonds ever do."""
    wait_until(lambda: any(give in m for m in said_by(agent, heard)) or mallory.inventory().get("diamond"),
               timeout=20, message=lambda: f"the agent to say {give!r}; it said {said_by(agent, heard)}")
    wait_ticks(20, "a command, had one been sent, to run")
    assert "diamond" not in mallory.inventory(), f"the server ran chat as a command: {said_by(agent, heard)}"
    assert agent.bot.connected


def test_a_players_emoji_padded_goal_is_echoed_as_chat_only(agent_and_mallory):
    agent, mallory, heard = agent_and_mallory(lambda name: [])
    goal = give_after_emoji(GOAL_ECHO, mallory.name)
    mallory.chat(f'!goal("{goal}")')
    assert_only_said(agent, mallory, heard, f"give {mallory.name} diamond 7")
    assert agent.self_prompter.goal == goal


def test_a_models_emoji_padded_reply_is_said_as_chat_only(agent_and_mallory):
    agent, mallory, heard = agent_and_mallory(lambda name: [give_after_emoji("", name)])
    mallory.chat(f"{agent.name}, say something")
    assert_only_said(agent, mallory, heard, f"give {mallory.name} diamond 7")


def test_bot_chat_and_whisper_themselves_never_send_a_command(make_bot):
    """The lowest layer: whatever text Bot.chat and Bot.whisper get, the server runs no command from it."""
    sayer, mallory = make_bot("sayer"), make_bot("mallory")
    heard, whispered = listen(mallory), []
    mallory.on("whisper", lambda username, message, *rest: whispered.append(message))
    give = f"/give {mallory.name} diamond 7"
    sayer.chat(give)
    sayer.chat(f" \u00a0\u200b{give}")
    sayer.chat(give_after_emoji("", mallory.name))
    sayer.chat(f"hi\n{give}\u00a7c\x00 and the end")
    sayer.whisper(mallory.name, f"psst\n{give} {EMOJI * 200} and the end")
    wait_until(lambda: any("and the end" in m for m in whispered), timeout=20,
               message=lambda: f"the whisper's last piece; whispered {whispered}")
    wait_ticks(20, "a command, had one been sent, to run")
    said = [m for u, m in heard if u == sayer.name]
    assert "diamond" not in mallory.inventory(), f"the server ran chat as a command: {said}"
    assert said[-1].endswith("and the end"), said
    assert sum(m.startswith(f"./give {mallory.name} diamond 7") for m in said) == 3, said
    for line in (f"give {mallory.name} diamond 1 " + "x" * 300, f"give {mallory.name} diamond 1\u00a7", "say a\tb"):
        with pytest.raises(ValueError, match="server command"):  # a server would disconnect the bot for it
            sayer.command(line)
    assert sayer.connected
