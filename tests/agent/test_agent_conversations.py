"""Conversations between agents (replay models, real bots, one in-process bus) on the embedded server."""

from __future__ import annotations

import threading
import time

import pytest

from agent_helpers import RuleModel, make_settings, start_agent, start_agent_with_model
from conftest import isolate, teleport, unique_name, wait_until
from mindpy.agent.bus import InProcessBus


@pytest.fixture
def crew(make_bot, tmp_path):
    """Agents on one bus; `crew.add(replies or model, name=...)`. All closed after the test."""
    class Crew:
        bus = InProcessBus()
        agents = []
        area = None

        def add(self, replies=None, model=None, name=None, **kwargs):
            if model is not None:
                agent = start_agent_with_model(make_bot, tmp_path, model, bus=self.bus, name=name, **kwargs)
            else:
                agent, model = start_agent(make_bot, tmp_path, replies, bus=self.bus, **kwargs)
            self.agents.append(agent)
            if self.area is None:
                self.area = isolate(agent.bot)
            else:
                x, y, z = self.area
                teleport(agent.bot, x + 2 * len(self.agents), y, z)
            return agent, model

    crew = Crew()
    yield crew
    for agent in crew.agents:
        agent.close()


def answer_responder(system, messages):
    """Answer the small respond-or-ignore prompt with "respond"; everything else goes to the script."""
    return "respond" if "respond or ignore" in system else None


def contents(agent):
    return [t["content"] for t in agent.history.get()]


def test_two_agents_talk_both_ways_and_one_gives_the_other_an_item(crew, make_bot):
    alice_name, bob_name = unique_name("alice"), unique_name("bob")
    alice, alice_model = crew.add(model=RuleModel(
        [f'!startConversation("{bob_name}", "Hi {bob_name}, can you give me an oak log?")', "Asked for a log.",
         f"Great, thanks {bob_name}!", f'Got it. !endConversation("{bob_name}")'], rule=answer_responder,
        default="ok"),
        name=alice_name)
    bob, bob_model = crew.add(model=RuleModel(
        [f'Sure! !givePlayer("{alice_name}", "oak_log", 1)', "There you go."], rule=answer_responder,
        default="Bye."), name=bob_name)
    player = make_bot("player")
    x, y, z = crew.area
    teleport(player, x - 2, y, z)
    player.command(f"/give {bob_name} oak_log 2")
    wait_until(lambda: bob.bot.inventory().get("oak_log") == 2, message="bob's logs")
    player.chat(f"{alice_name}, get a log from your teammate")
    wait_until(lambda: alice.bot.inventory().get("oak_log") == 1, timeout=30, message="alice to receive a log")
    assert bob.bot.inventory().get("oak_log") == 1
    wait_until(lambda: any("(FROM OTHER BOT)There you go." in c for c in contents(alice)), timeout=15,
               message=f"bob's reply in alice's history: {contents(alice)}")
    assert f"{alice_name}: (FROM OTHER BOT)Hi {bob_name}, can you give me an oak log?" in contents(bob)
    assert f"{bob_name}: (FROM OTHER BOT)Sure!" in " ".join(contents(alice))
    wait_until(lambda: not alice.conversations.in_conversation(), timeout=15, message="alice to end it")


def test_a_third_agent_gets_the_busy_reply(crew):
    a_name, b_name, c_name = unique_name("ann"), unique_name("ben"), unique_name("cat")
    keep_talking = answer_responder
    a, _ = crew.add(model=RuleModel([f'!startConversation("{b_name}", "Let us plan the house.")'],
                                    rule=keep_talking, default="Still planning."), name=a_name)
    b, _ = crew.add(model=RuleModel([], rule=keep_talking, default="Sounds good."), name=b_name)
    c, _ = crew.add(model=RuleModel([f'!startConversation("{b_name}", "Hey, got a minute?")'],
                                    rule=keep_talking, default="Okay."), name=c_name)
    a.handle_message("system", "Talk to your teammate.")
    wait_until(lambda: b.conversations.in_conversation(a_name), timeout=15, message="a and b talking")
    c.handle_message("system", "Talk to someone.")
    wait_until(lambda: any("I'm talking to someone else, try again later" in t for t in contents(c)), timeout=15,
               message="the busy reply")
    assert b.conversations.partner == a_name
    assert not any("Hey, got a minute?" in t for t in contents(b))


def _deciding(answer):
    """A rule that answers the respond-or-ignore prompt with `answer`, and records that it was asked."""
    asked = []

    def rule(system, messages):
        if "respond or ignore" in system:
            asked.append(time.monotonic())
            return answer
        return None
    return rule, asked


@pytest.mark.parametrize("answer", ["ignore", "respond"])
def test_delivery_to_a_busy_bot_depends_on_respond_or_ignore_and_loses_nothing(crew, answer):
    a_name, b_name = unique_name("dan"), unique_name("eve")
    rule, asked = _deciding(answer)
    b, b_model = crew.add(model=RuleModel([], rule=rule, default="Got it."), name=b_name)
    a, _ = crew.add(model=RuleModel([f'!startConversation("{b_name}", "Where are you going?")'],
                                    rule=answer_responder, default="ok"), name=a_name)
    x, y, z = crew.area
    started = time.monotonic()
    # b walks somewhere (a real action; not one of those it may always talk over)
    walk = threading.Thread(target=b.run_command, args=(f"!goToCoordinates({x + 12}, {y}, {z + 12}, 0)",))
    walk.start()
    wait_until(lambda: b.actions.current_label == "action:goToCoordinates", timeout=5, message="b walking")
    a.handle_message("system", "Ask your teammate something.")
    wait_until(lambda: asked, timeout=15, message="the respond-or-ignore prompt")
    seen = lambda: any("Where are you going?" in t for t in contents(b))  # noqa: E731
    if answer == "respond":
        wait_until(seen, timeout=5, message="the message to be delivered at once")
        assert b.actions.executing or not walk.is_alive()  # delivered while (or as) the action ran
    else:
        wait_until(lambda: not b.actions.executing, timeout=30, message="the walk to end")
        ended = time.monotonic()
        assert not seen()  # held back while b was busy
        wait_until(seen, timeout=5, message="the message after the action ended")
        assert ended - started > 1
    assert sum("Where are you going?" in t for t in contents(b)) == 1  # exactly once: nothing lost or doubled


def test_bots_talking_fast_are_not_held_by_the_players_message_limit(crew, tmp_path):
    """The limit on players' chat (player_messages_per_10s) leaves the run's bots alone, also with their
    messages echoed in public chat: a quick exchange goes on past the players' bucket."""
    settings = make_settings(tmp_path, player_messages_per_10s=1, chat_bot_messages=True)
    a_name, b_name = unique_name("ann"), unique_name("ben")
    a, _ = crew.add(model=RuleModel([f'!startConversation("{b_name}", "Let us plan the house.")'],
                                    rule=answer_responder, default="Still planning."), name=a_name,
                    settings=settings)
    b, _ = crew.add(model=RuleModel([], rule=answer_responder, default="Sounds good."), name=b_name,
                    settings=settings)
    a.handle_message("system", "Talk with your teammate.")

    def heard_from(agent, other):
        return sum(c.startswith(f"{other}: (FROM OTHER BOT)") for c in contents(agent))

    wait_until(lambda: heard_from(b, a_name) >= 4 and heard_from(a, b_name) >= 4, timeout=60,
               message=lambda: f"a quick exchange: {contents(a)[-4:]} / {contents(b)[-4:]}")
    for agent in (a, b):
        assert not [e for e in agent.events if e[1] in ("skipped", "too fast")]
