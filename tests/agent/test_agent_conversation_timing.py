"""Conversation timing between real agents, with the delays shortened: nudges after silence, a partner that
leaves, messages merged, and self-prompting paused during a conversation and resumed after it."""

from __future__ import annotations

import time

import pytest

from agent_helpers import RuleModel, start_agent_with_model
from conftest import isolate, teleport, unique_name, wait_until
from mindpy.agent.bus import InProcessBus
from mindpy.agent.conversation import Timing

QUICK = Timing(fast_delay=0.5, long_delay=1.0, first_nudge=2.0, gone_after=2.0, lapse_after=2.0,
               resume_self_prompt_after=1.0, monitor_interval=0.2)


def respond(system, messages):
    return "respond" if "respond or ignore" in system else None


@pytest.fixture
def pair(make_bot, tmp_path):
    bus = InProcessBus()
    made = []

    def factory(replies_a, replies_b, default_a="ok", default_b="ok", model_a=None):
        a_name, b_name = unique_name("quick"), unique_name("slow")
        model_a = model_a or RuleModel(replies_a(b_name), respond, default_a)
        a = start_agent_with_model(make_bot, tmp_path, model_a, bus=bus, name=a_name)
        b = start_agent_with_model(make_bot, tmp_path, RuleModel(replies_b(a_name), respond, default_b),
                                   bus=bus, name=b_name)
        for agent in (a, b):
            agent.conversations.timing = QUICK
        x, y, z = isolate(a.bot)
        teleport(b.bot, x + 2, y, z)
        made.extend([a, b])
        return a, b

    yield factory
    for agent in made:
        agent.close()


def contents(agent):
    return [t["content"] for t in agent.history.get()]


def test_silence_brings_a_nudge_and_a_partner_leaving_ends_it(pair):
    a, b = pair(lambda b_name: [f'!startConversation("{b_name}", "Are you there?")', "Waiting."],
                lambda a_name: ["!stay(-1)"], default_b="...")
    # b answers by starting to stay (a command, said nothing), so a waits for a reply that never comes
    a.handle_message("system", "Say hello to your teammate.")
    # Two waits, so a slow first prompt (a starved machine) is not charged to the nudge's timer: the opening
    # message goes out first, then the nudge comes 2 s (QUICK.first_nudge) after b's silence began.
    wait_until(lambda: b.conversations.in_conversation(), timeout=60, message=f"a's opening message: {contents(a)}")
    wait_until(lambda: any("hasn't responded in 2 seconds" in c for c in contents(a)), timeout=15,
               message=f"the nudge: {contents(a)}")
    b.close()
    b.bot.close()
    wait_until(lambda: any("left the game; the conversation has ended" in c for c in contents(a)), timeout=10,
               message="the conversation to end when the partner is gone")
    assert not a.conversations.in_conversation()


def test_messages_arriving_together_are_merged(pair):
    a, b = pair(lambda b_name: [], lambda a_name: [], default_b="Got both.")
    a.conversations.start_conversation(b.name, "First part,")
    a.conversations.send(b.name, "second part.")
    wait_until(lambda: any("Got both." == c for c in contents(b)), timeout=10, message="b's reply")
    heard = [c for c in contents(b) if "(FROM OTHER BOT)" in c]
    assert heard == [f"{a.name}: (FROM OTHER BOT)First part, second part."]


class CommandThenWords(RuleModel):
    """Answers respond-or-ignore with "respond"; otherwise a command, then plain words once its output is back:
    each self-prompted turn ends after one command and the agent goes idle, as with a real model. (Always
    answering with a command would loop about 250 times a second and push every message out of the history's
    window before a test could read it.)"""

    def __init__(self):
        super().__init__([], self.answer)
        self.commanded = False

    def answer(self, system, messages):
        if respond(system, messages):
            return "respond"
        self.commanded = not self.commanded
        return "!stats" if self.commanded else "Looked."


def test_self_prompting_pauses_in_a_conversation_and_resumes_after(pair):
    a, b = pair(lambda b_name: [], lambda a_name: ["Hi! !stats"], default_b="Bye.", model_a=CommandThenWords())
    a.self_prompter.start("look at your stats now and then")
    wait_until(lambda: len(a.model.calls) >= 1, timeout=10, message="self-prompting to run")
    a.conversations.start_conversation(b.name, "Hello b.")
    assert a.self_prompter.state.value == "paused"
    wait_until(lambda: any("(FROM OTHER BOT)Hi!" in c for c in contents(a)), timeout=10, message="b's answer")
    a.conversations.end_conversation(b.name, notify=True)
    assert a.self_prompter.state.value == "paused"  # not at once: 1 s later (QUICK)
    wait_until(lambda: a.self_prompter.state.value == "active", timeout=5, message="self-prompting to resume")
    calls = len(a.model.calls)
    wait_until(lambda: len(a.model.calls) > calls, timeout=10, message="self-prompting to prompt again")
    time.sleep(0.1)


def test_two_bots_opening_a_conversation_with_each_other_at_once_both_hear_the_other(pair):
    a, b = pair(lambda b_name: [], lambda a_name: [], default_a="Hi b.", default_b="Hi a.")
    a.conversations.start_conversation(b.name, "Opening from a.")
    assert a.conversations.bus.wait_settled(5)  # a's opening waits in b's queue for its short delay...
    b.conversations.start_conversation(a.name, "Opening from b.")  # ...when b opens its own conversation
    wait_until(lambda: any("(FROM OTHER BOT)Opening from a." in c for c in contents(b)), timeout=10,
               message=f"a's opening to reach b: {contents(b)}")
    wait_until(lambda: any("(FROM OTHER BOT)Opening from b." in c for c in contents(a)), timeout=10,
               message=f"b's opening to reach a: {contents(a)}")


def third_agent(make_bot, tmp_path, a):
    """A third agent on a's bus, with the short timings, that thanks for whatever it is told."""
    c = start_agent_with_model(make_bot, tmp_path, RuleModel([], respond, "Thanks."), bus=a.conversations.bus,
                               name=unique_name("third"))
    c.conversations.timing = QUICK
    return c


def heard_by(a, c):
    """c asks a for a bowl: a takes it as a new conversation, and c gets no busy reply."""
    c.conversations.start_conversation(a.name, "Do you have a bowl to spare?")
    wait_until(lambda: any("(FROM OTHER BOT)Do you have a bowl to spare?" in t for t in contents(a)),
               timeout=15, message=f"c's message reaching a: {contents(a)}")
    assert a.conversations.partner == c.name
    assert not any("talking to someone else" in t for t in contents(c))


def test_a_partner_silent_past_a_nudge_no_longer_shuts_out_a_third_bot(pair, make_bot, tmp_path):
    """b stops answering a; before, c's messages to a got "I'm talking to someone else" for as long as a's
    conversation with b stayed open, forever in a task that blocks !endConversation. Once a nudge about b went
    unanswered, c's message opens a conversation with a."""
    a, b = pair(lambda b_name: [f'!startConversation("{b_name}", "Are you there?")'],
                lambda a_name: ["!stay(-1)"], default_a="Still here.", default_b="...")
    c = third_agent(make_bot, tmp_path, a)
    try:
        a.handle_message("system", "Say hello to your teammate.")
        wait_until(lambda: b.conversations.in_conversation(), timeout=60, message=f"a's opening: {contents(a)}")
        wait_until(lambda: any("hasn't responded in 2 seconds" in t for t in contents(a)), timeout=15,
                   message=f"the nudge: {contents(a)}")
        heard_by(a, c)
    finally:
        c.close()


def test_a_conversation_both_stopped_talking_in_no_longer_shuts_out_a_third_bot(pair, make_bot, tmp_path):
    """b answers a and then says nothing more, a is busy with a long action (so no nudge comes): the conversation
    stays open. Before, c got "I'm talking to someone else" for as long as it stayed open (in a Hell's
    Kitchen task a cook never got the milk its teammate held). Once it has been quiet for lapse_after, c's message
    is heard."""
    a, b = pair(lambda b_name: [f'!startConversation("{b_name}", "Are you there?")', "!stay(-1)"],
                lambda a_name: ["Yes, here."], default_a="Still here.", default_b="")
    c = third_agent(make_bot, tmp_path, a)
    try:
        a.handle_message("system", "Say hello to your teammate.")
        wait_until(lambda: any("Yes, here." in t for t in contents(a)), timeout=60, message=f"b's answer: {contents(a)}")
        wait_until(lambda: a.conversations.partner == b.name and a.conversations.lapsed(), timeout=15,
                   message="the conversation to lapse")
        assert not any("hasn't responded" in t for t in contents(a))  # no nudge while a is busy
        heard_by(a, c)
    finally:
        c.close()
