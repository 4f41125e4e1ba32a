"""The theory-of-mind step and self-verification (profile options `tom_step` and `verification`): verdicts in the
wordings models write, and real agents on the session's server with a scripted model."""

from __future__ import annotations

import pytest

from agent_helpers import RuleModel, closing_agents, listen, side_by_side, start_agent_with_model
from conftest import wait_until
from mindpy.agent import deliberation
from mindpy.agent.bus import InProcessBus


@pytest.mark.parametrize("answer, okay, reason", [
    ("Verification: Okay", True, ""),
    ("verification - OK.", True, ""),
    ("**Verification:** Not Okay: you hold no diamonds.", False, "you hold no diamonds."),
    ("Verification: not ok - jill is not here\nmore text", False, "jill is not here"),
    ("Verification: Not Okay", False, "no reason given"),
    ("I think it is fine.", True, ""),            # unreadable: the choice stands
    ("", True, ""),
])
def test_verdicts(answer, okay, reason):
    assert deliberation.verdict(answer) == (okay, reason)


def test_partner_notes_leave_out_commands_and_go_in_as_one_system_message():
    class Model:
        def send(self, messages, system=""):
            assert "For each of jill, bob" in messages[-1]["content"]
            return type("R", (), {"text": "jill: mining iron, needs a pickaxe\nbob: idle !givePlayer(\"a\", \"b\", 1)"})()

    notes = deliberation.partner_notes(Model(), "sys", [{"role": "user", "content": "hi"}], ["jill", "bob"])
    assert notes == "jill: mining iron, needs a pickaxe"
    assert deliberation.with_notes([], notes)[-1]["content"].endswith(notes)
    assert deliberation.partner_notes(Model(), "sys", [], []) == "" and deliberation.with_notes([], "") == []


@pytest.fixture
def agents(make_bot, tmp_path):
    def start(model, **fields):
        agent = start_agent_with_model(make_bot, tmp_path, model, **fields)
        return agent, model

    with closing_agents(start) as factory:
        yield factory


def test_a_command_that_fails_its_own_check_is_chosen_again(agents, make_bot):
    def rule(system, messages):
        last = str(messages[-1]["content"])
        if "You are about to send this reply" in last:
            return ("Verification: Not Okay: I hold no diamonds." if "diamond" in last.split("reply:", 1)[1]
                    else "Verification: Okay")
        return None

    model = RuleModel(['Here you go! !givePlayer("someone", "diamond", 3)', "I have no diamonds to give."],
                      rule, default="")
    agent, _ = agents(model, verification=True)
    player = make_bot("player")
    side_by_side(player, agent)
    heard = listen(player)
    player.chat(f"{agent.name}, give me 3 diamonds")
    wait_until(lambda: (agent.name, "I have no diamonds to give.") in heard, timeout=15, message="the new choice")
    assert "givePlayer" not in agent.command_counts
    scripted = [c for c in model.calls if not c.get("rule")]
    retry = scripted[1]["messages"]  # the second choice saw the first and why it failed
    assert "did not pass your own check: I hold no diamonds." in retry[-1]["content"]
    assert retry[-2] == {"role": "assistant", "content": 'Here you go! !givePlayer("someone", "diamond", 3)'}


def test_without_verification_the_first_choice_runs(agents, make_bot):
    model = RuleModel(["Let me look. !inventory", "Nothing much."], lambda system, messages: None, default="")
    agent, _ = agents(model)
    player = make_bot("player")
    side_by_side(player, agent)
    player.chat(f"{agent.name}, what do you carry?")
    wait_until(lambda: agent.command_counts.get("inventory"), timeout=15, message="the command")
    assert not any("You are about to send" in str(c["messages"][-1]["content"]) for c in model.calls)


def test_partner_notes_reach_the_prompt_of_the_choice(agents, make_bot):
    bus = InProcessBus()
    bus.register("jill", lambda sender, payload: None)  # a teammate present on the bus

    def rule(system, messages):
        if "think about your partners" in str(messages[-1]["content"]):
            return "jill: gathering wood, needs an axe"
        return None

    model = RuleModel(["Hello! I heard you."], rule, default="")
    agent, _ = agents(model, tom_step=True, bus=bus)
    player = make_bot("player")
    side_by_side(player, agent)
    heard = listen(player)
    player.chat(f"{agent.name}, hello")
    wait_until(lambda: (agent.name, "Hello! I heard you.") in heard, timeout=15, message="the reply")
    asks = [c for c in model.calls if c.get("rule")]
    assert asks and "For each of jill" in asks[0]["messages"][-1]["content"]
    choice = next(c for c in model.calls if not c.get("rule"))
    assert choice["messages"][-1]["content"].endswith("jill: gathering wood, needs an axe")
    # the notes are not kept in the agent's history
    assert not any("gathering wood" in str(t["content"]) for t in agent.history.turns)
