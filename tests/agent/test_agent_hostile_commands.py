"""Commands at and beyond the edge of their domains, sent by a second player and by the model, through a real
agent on the embedded server: each is capped or refused with a one-line reason, and the agent keeps working."""

from __future__ import annotations

import pytest

from agent_helpers import (
    RuleModel,
    closing_agents,
    listen,
    make_settings,
    side_by_side,
    start_agent,
    start_agent_with_model,
    system_turns,
)
from conftest import teleport, wait_until
from mindpy.agent.agent import MOST_CHAT_PIECES, chat_pieces
from mindpy.bridge.plain_chat import CHAT_LIMIT as CHAT_PIECE


@pytest.fixture
def agent_beside_player(make_bot, tmp_path):
    """`agent_beside_player(replies, default, player_name)`: an agent whose model answers `replies`, then
    `default`, and a player standing beside it; returns (agent, player, the chat the player hears). Every agent is
    closed after the test."""
    with closing_agents(lambda replies, default: start_agent(make_bot, tmp_path, replies, default=default)) as start:
        def factory(replies, default, player_name):
            agent, _ = start(replies, default)
            player = make_bot(player_name)
            side_by_side(player, agent)
            return agent, player, listen(player)

        yield factory


@pytest.fixture
def agent_and_player(agent_beside_player):
    """An agent whose model only says "Done.", and a player standing beside it who listens to its chat."""
    return agent_beside_player([], "Done.", "mallory")


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


def test_the_model_sending_the_same_commands_does_not_stop_the_agent(agent_beside_player):
    replies = ['!collectBlocks("air", 3)', "!goToCoordinates(1e308, 0, -1e308, 0)",
               "!stay(10000000000)"]
    agent, player, heard = agent_beside_player(replies, "Hello again.", "caller")
    player.chat(f"{agent.name}, go")
    wait_until(lambda: "86400" in " ".join(system_turns(agent)), timeout=60,
               message="the cap on !stay in the history")
    outputs = " ".join(system_turns(agent))
    assert "cannot be mined" in outputs and "x must be in" in outputs
    player.chat("!stop")  # the capped stay still lasts a day: stop it as a player would
    player.chat(f"{agent.name}, hi")
    wait_until(lambda: said(heard, agent, "Hello again."), timeout=30, message="the agent answering again")


def test_a_huge_reply_is_said_in_a_few_pieces_and_the_agent_stays(agent_beside_player):
    """Said whole, a 60,000-character reply would be 250 chat messages: a real server kicks a bot for that."""
    agent, player, heard = agent_beside_player(["blah " * 12_000], "Hello again.", "talker")
    player.chat(f"{agent.name}, tell me everything")
    wait_until(lambda: said(heard, agent, "more characters not said"), timeout=20, message="the cut note")
    assert sum(u == agent.name and "blah" in m for u, m in heard) == MOST_CHAT_PIECES
    player.chat(f"{agent.name}, hi")
    wait_until(lambda: said(heard, agent, "Hello again."), timeout=20, message="the agent answering again")
    assert agent.bot.connected


@pytest.mark.parametrize("extra", [1, 99, 100, 10_000, 1_000_000])
def test_the_cut_note_counts_exactly_what_was_not_said(extra):
    """Around a change in the number of digits too (99 -> 100 characters left out, counting the note's room)."""
    text = "".join(chr(97 + i % 26) for i in range(CHAT_PIECE * MOST_CHAT_PIECES + extra))
    pieces = chat_pieces(text)
    said = "".join(pieces)
    kept, _, note = said.partition(" [")
    assert len(pieces) == MOST_CHAT_PIECES and len(said) <= CHAT_PIECE * MOST_CHAT_PIECES
    assert text.startswith(kept) and note == f"{len(text) - len(kept)} more characters not said]"


MALFORMED_COMMANDS = ["!", "!!", "!(", "!1", "! ", "!!!goal", "!)", '!"', "!goal(", "!nosuchcommand", "!!!"]


def test_a_malformed_command_from_a_player_gets_one_line_saying_how_to_write_one(agent_and_player):
    """Each used to reach the command runner without a command ("runs: !None", an AttributeError, no reply)."""
    agent, player, heard = agent_and_player

    def replies():
        return [m for u, m in heard if u == agent.name]

    for text in MALFORMED_COMMANDS:
        before = len(replies())
        player.chat(text)
        wait_until(lambda: len(replies()) > before, timeout=15, message=lambda: f"a reply to {text!r}: {heard}")
        reply = replies()[before]
        assert "!" in reply and len(reply) <= CHAT_PIECE, (text, reply)
    player.chat("!stats")
    wait_until(lambda: said(heard, agent, "STATS"), timeout=15, message="the agent still answering")
    answers = replies()
    first_stats = next(i for i, m in enumerate(answers) if "STATS" in m)
    assert first_stats == len(MALFORMED_COMMANDS), f"one line per malformed command, got {answers[:first_stats]}"
    assert None not in agent.command_counts


class FrozenClock:
    """The rate limit's clock, moved by the test only."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_a_player_flooding_the_chat_costs_one_bucket_of_model_calls_and_others_are_still_answered(
        make_bot, tmp_path):
    """30 messages from one player used to cost 30 model calls."""
    def rule(system, messages):
        last = next((str(m["content"]) for m in reversed(messages) if m["role"] == "user"), "")
        return "Hello bob!" if "hello from bob" in last else None

    model = RuleModel([], rule, default="Done.")
    settings = make_settings(tmp_path, player_messages_per_10s=5)
    agent = start_agent_with_model(make_bot, tmp_path, model, settings=settings)
    try:
        clock = FrozenClock()
        agent.message_limit.clock = clock
        mallory, bob = make_bot("mallory"), make_bot("bob")
        side_by_side(mallory, agent)
        teleport(bob, *mallory.position)
        heard = listen(bob)

        def handled(note):  # sent to the model, or skipped as too fast
            return (any(note in str(m["content"]) for c in model.calls for m in c["messages"])
                    or any(kind == "skipped" and note in text for _, kind, text in agent.events))

        for i in range(30):
            note = f"note {i:02d}."
            mallory.chat(f"{agent.name}, {note}")
            wait_until(lambda: handled(note), timeout=15, message=lambda: f"{note} handled: {agent.events[-5:]}")
        assert 1 <= len(model.calls) <= 5, f"{len(model.calls)} model calls for one player's 30 messages"
        wait_until(lambda: said(heard, agent, mallory.name, "too fast"), timeout=15, message="the notice")
        bob.chat(f"{agent.name}, hello from bob")
        wait_until(lambda: said(heard, agent, "Hello bob!"), timeout=15, message="bob answered")
        assert sum(u == agent.name and "too fast" in m for u, m in heard) == 1, "one notice for the burst"
        clock.now += 10.0  # the bucket has refilled: mallory is heard again
        mallory.chat(f"{agent.name}, note again.")
        wait_until(lambda: handled("note again."), timeout=15, message="mallory heard again")
        assert not any(kind == "skipped" and "note again." in text for _, kind, text in agent.events)
    finally:
        agent.close()
