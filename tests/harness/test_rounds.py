"""Round mode (mindpy.harness.rounds, mindpy.agent.turns): real agents on the embedded server, scripted models,
played in lockstep: one turn each per round; turns all at once (messages read at the start of the next round) or
one after another (the second agent reads what the first said in the same round)."""

from __future__ import annotations

import pytest

from agent_helpers import make_profile, make_settings
from conftest import isolate, teleport, unique_name, wait_ticks
from mindpy.agent.bus import InProcessBus
from mindpy.agent.factory import build_agent
from mindpy.agent.turns import WORDS_NOT_SENT
from mindpy.errors import ConfigError
from mindpy.harness.rounds import REALTIME, RoundOptions, RoundRequest, RoundScheduler, resolve_rounds
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile


@pytest.fixture
def pair(make_bot, tmp_path):
    """`pair(replies_a, replies_b)` -> two agents in round mode on one bus, side by side; closed after the test."""
    started = []
    bus = InProcessBus()

    def make(replies_a, replies_b, default="!wait"):
        """Replies may name the other agent as {partner}."""
        settings = make_settings(tmp_path)
        agents = []
        names = [unique_name("rounder"), unique_name("rounder")]
        for name, other, replies in ((names[0], names[1], replies_a), (names[1], names[0], replies_b)):
            replies = [reply.replace("{partner}", other) for reply in replies]
            profile = load_profile(make_profile(tmp_path, name), settings=settings)
            agent = build_agent(profile, make_bot(exact_name=name), settings, bus=bus, rounds=True,
                                model=ReplayModel(list(replies), default=default))
            agent.start()
            started.append(agent)
            agents.append(agent)
        x, y, z = isolate(agents[0].bot)
        teleport(agents[1].bot, x + 2, y, z)
        return agents, bus

    yield make
    for agent in started:
        agent.close()


def call_texts(agent) -> list[str]:
    """Every message the agent's model was sent, per call, joined into one text."""
    return ["\n".join(str(m["content"]) for m in call["messages"]) for call in agent.model.calls]


def test_a_message_sent_in_a_round_is_read_in_the_next_and_a_message_is_the_turn(pair):
    (alice, bob), bus = pair(['!startConversation("{partner}", "hello from round one")', "!inventory",
                              "Are you there?"], ["Sure. !wait", "!wait"])
    scheduler = RoundScheduler([alice, bob], RoundOptions(limit=2), bus=bus)
    tally = scheduler.run()

    assert tally.rounds == 2
    bob_calls = call_texts(bob)
    assert "hello from round one" not in bob_calls[0]  # round 1: not yet read
    assert "hello from round one" in bob_calls[1]      # round 2: read at its start
    assert "Round 1 of 2" in bob_calls[0] and "Round 2 of 2" in bob_calls[1]
    # alice: round 1 was the message; round 2 a free query, then a message that took the turn
    assert len(alice.model.calls) == 3
    assert tally.messages[alice.name] == 2 and tally.actions[alice.name] == 0
    # bob: words beside an action are not sent when a message is an action; the action took the turn
    assert tally.actions[bob.name] == 2 and tally.messages[bob.name] == 0
    assert WORDS_NOT_SENT in [t["content"] for t in bob.history.get()]
    assert "Sure." not in "\n".join(call_texts(alice))


def test_sequential_turns_the_second_agent_reads_the_first_s_message_of_the_same_round(pair):
    (alice, bob), bus = pair(['!startConversation("{partner}", "hello from round one")', "!wait"],
                             ["Hi alice! !wait", "!wait"])
    tally = RoundScheduler([alice, bob], RoundOptions(limit=2, sequential=True), bus=bus).run()
    assert tally.rounds == 2
    bob_calls, alice_calls = call_texts(bob), call_texts(alice)
    assert "hello from round one" in bob_calls[0]  # round 1: alice spoke first, bob read it before his turn
    assert "Round 1 of 2" in bob_calls[0] and "Round 1 of 2" in alice_calls[0]
    assert tally.messages[alice.name] == 1 and tally.actions[bob.name] == 2


def test_a_stop_after_the_first_turn_of_a_sequential_round_skips_the_second(pair):
    (alice, bob), bus = pair(["!wait"], ["!wait"])
    scheduler = RoundScheduler([alice, bob], RoundOptions(limit=3, sequential=True), bus=bus,
                               should_stop=lambda: len(alice.model.calls) >= 1)
    tally = scheduler.run()
    assert len(alice.model.calls) == 1 and bob.model.calls == []  # the task ended in alice's turn
    assert tally.rounds == 1


def test_free_messages_let_the_agent_act_in_the_same_turn(pair):
    (alice, bob), bus = pair(["Hello there.", "!wait"], ["!wait"])
    tally = RoundScheduler([alice, bob], RoundOptions(limit=1, message_is_action=False), bus=bus).run()
    assert tally.messages[alice.name] == 1 and tally.actions[alice.name] == 1  # spoke, then acted
    assert len(alice.model.calls) == 2


def test_a_malformed_command_is_answered_and_the_turn_goes_on_within_its_calls(pair):
    (alice, bob), bus = pair(['!givePlayer("nobody"', "!nonsenseCommand(1)", "!wait"], ["!wait"])
    tally = RoundScheduler([alice, bob], RoundOptions(limit=1, most_calls=4), bus=bus).run()
    assert tally.actions[alice.name] == 1  # the third call's !wait
    system = [t["content"] for t in alice.history.get() if t["role"] == "system"]
    assert any("nonsenseCommand" in line for line in system) and any("not closed" in line for line in system)  # the refusal says what was wrong


def test_a_turn_ends_after_its_most_calls_and_the_scheduler_stops_when_told(pair):
    (alice, bob), bus = pair(["!inventory"] * 10, ["!wait"], default="!inventory")
    played = []
    scheduler = RoundScheduler([alice, bob], RoundOptions(limit=5, most_calls=2), bus=bus,
                               should_stop=lambda: len(played) >= 2,
                               after_round=[lambda number, reports: played.append(number)])
    tally = scheduler.run()
    assert played == [1, 2] and tally.rounds == 2
    assert len(alice.model.calls) == 4  # two calls per turn, only queries
    assert tally.passes[alice.name] == 2


def test_round_mode_agents_do_not_prompt_themselves(pair):
    (alice, bob), bus = pair([], [], default="!wait")
    alice.self_prompter.start("collect some dirt")
    wait_ticks(20)  # several update ticks of the agent: a driven agent stays silent until its turn
    assert alice.model.calls == []
    RoundScheduler([alice], RoundOptions(limit=1), bus=bus).run()
    assert len(alice.model.calls) == 1 and "collect some dirt" in call_texts(alice)[0]


def test_bad_round_options_are_refused_in_one_line():
    with pytest.raises(ConfigError, match="at least 1"):
        RoundOptions(limit=0)


def test_wait_is_offered_only_to_agents_that_play_in_rounds(pair, make_bot, tmp_path):
    from agent_helpers import start_agent

    (alice, _), _ = pair([], [])
    loose, _ = start_agent(make_bot, tmp_path, [], default="ok")
    try:
        assert "!wait" in alice.commands.docs(alice.context)
        assert "!wait" not in loose.commands.docs(loose.context)
        assert "blocked" in (loose.run_command("!wait") or "")
    finally:
        loose.close()


class _Family:
    def __init__(self, name, round_limit=None, sequential_turns=False):
        self.name, self.round_limit, self.sequential_turns = name, round_limit, sequential_turns


def test_each_family_plays_its_paper_s_rounds_unless_asked_otherwise():
    from mindpy.tasks.family import family_named
    from mindpy.tasks.records import MIXED

    coblock, crafting = family_named("coblock"), family_named("crafting")
    paper = RoundRequest().for_family(coblock)
    assert paper is not None and paper.sequential and paper.message_is_action and paper.limit == coblock.round_limit
    assert RoundRequest().for_family(crafting) is None                       # MINDcraft's tasks: real time
    assert RoundRequest(realtime=True).for_family(coblock) is None
    assert RoundRequest(limit=5).for_family(crafting) == RoundOptions(limit=5)  # asked for: turns all at once
    assert RoundRequest(limit=5, simultaneous=True).for_family(coblock) == RoundOptions(limit=5)
    assert RoundRequest().record([coblock]) == paper.record()
    assert RoundRequest().record([crafting]) == REALTIME
    assert RoundRequest().record([coblock, crafting]) == MIXED
    assert resolve_rounds(RoundOptions(limit=2), coblock) == RoundOptions(limit=2)  # given rules are played as given


def test_round_switches_a_family_in_real_time_cannot_honour_are_refused():
    with pytest.raises(ConfigError, match="--free-messages is a rule of round mode"):
        resolve_rounds(RoundRequest(free_messages=True), _Family("crafting"))
    with pytest.raises(ConfigError, match="--realtime plays without rounds"):
        RoundRequest(realtime=True, limit=4)
    assert resolve_rounds(RoundRequest(free_messages=True), _Family("paper", 9, True)) == \
        RoundOptions(limit=9, message_is_action=False, sequential=True)
