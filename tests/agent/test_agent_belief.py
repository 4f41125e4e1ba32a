"""A written belief in place of the raw history (`belief_state: true`) for the MINDcraft families: the belief is
rewritten from the turns added since the last rewrite, stands for the history in the turn's prompt, survives a
failed rewrite, and is kept in the agent's saved state. Pure tests on a History, then a real agent."""

from __future__ import annotations

import json

import pytest

from agent_helpers import RuleModel, closing_agents, listen, side_by_side, start_agent_with_model
from conftest import wait_until
from mindpy.agent.belief import Belief
from mindpy.memory.history import History
from mindpy.models.base import ModelError
from mindpy.prompts.belief import BELIEF_REQUEST, TEAM_HEADINGS


class Writer:
    """Answers a belief request with the next numbered belief; counts the requests."""

    def __init__(self, fail=False):
        self.requests: list[str] = []
        self.fail = fail

    def send(self, messages, system=""):
        self.requests.append(messages[-1]["content"])
        if self.fail:
            raise ModelError("the model is down")
        return type("Reply", (), {"text": f"BELIEF-{len(self.requests)}"})()


def test_the_belief_reads_only_new_turns_and_stands_for_the_history():
    history, belief, model = History("andy"), Belief("andy"), Writer()
    history.add("jill", "I have 3 oak_planks")
    history.add("andy", "Great, send them over")
    first = belief.stand_in(model, "sys", history)
    assert len(first) == 1 and first[0]["content"].startswith("Your belief state:\nBELIEF-1")
    assert "jill: I have 3 oak_planks" in model.requests[0] and "(none yet)" in model.requests[0]
    assert all(heading in model.requests[0] for heading in TEAM_HEADINGS)
    belief.stand_in(model, "sys", history)           # nothing new: no rewrite
    assert len(model.requests) == 1
    history.add("jill", "Sent. I still need a stick")
    second = belief.stand_in(model, "sys", history)
    request = model.requests[1]
    assert "Your belief so far:\nBELIEF-1" in request and "I still need a stick" in request
    assert "I have 3 oak_planks" not in request.split("New observation:", 1)[1]   # read once only
    assert "BELIEF-2" in second[0]["content"] and "jill: Sent. I still need a stick" in second[0]["content"]


def test_a_failed_rewrite_keeps_the_old_belief():
    history, belief = History("andy"), Belief("andy", text="BELIEF-OLD")
    history.add("jill", "hello")
    messages = belief.stand_in(Writer(fail=True), "sys", history)
    assert belief.text == "BELIEF-OLD" and "BELIEF-OLD" in messages[0]["content"]


def test_new_turns_are_counted_across_summaries():
    history = History("andy", max_messages=8, summarize_count=3)
    belief, model = Belief("andy"), Writer()
    for i in range(5):
        history.add("jill", f"message {i}")
    belief.stand_in(model, "sys", history)
    for i in range(5, 9):   # the history summarizes its oldest turns on the way
        history.add("jill", f"message {i}")
    assert "message 3" in history.get()[0]["content"]   # 0-2 went into the memory
    belief.stand_in(model, "sys", history)
    observed = model.requests[1].split("New observation:", 1)[1]
    assert [f"message {i}" in observed for i in range(9)] == [False] * 5 + [True] * 4


@pytest.fixture
def agents(make_bot, tmp_path):
    def start(model, **fields):
        return start_agent_with_model(make_bot, tmp_path, model, **fields), model

    with closing_agents(start) as factory:
        yield factory


def test_an_agent_with_a_belief_state_is_prompted_with_its_belief_not_its_history(agents, make_bot, tmp_path):
    def rule(system, messages):
        last = str(messages[-1]["content"])
        if last.startswith(BELIEF_REQUEST):
            written = sum(1 for c in model.calls if c.get("rule"))
            return f"Partners' inventories: jill asked {written + 1} time(s)"
        return None

    model = RuleModel([], rule, default="Noted.")
    agent, _ = agents(model, belief_state=True)
    player = make_bot("jill")
    side_by_side(player, agent)
    heard = listen(player)
    player.chat(f"{agent.name}, I hold 3 oak_planks")
    wait_until(lambda: (agent.name, "Noted.") in heard, timeout=15, message="the first answer")
    player.chat(f"{agent.name}, now I need a stick")
    wait_until(lambda: heard.count((agent.name, "Noted.")) >= 2, timeout=15, message="the second answer")
    turns = [c for c in model.calls if not c.get("rule")]
    last = turns[-1]["messages"]
    assert len(last) == 2 and last[0]["content"].startswith("Your belief state:\nPartners' inventories: jill asked")
    assert "INVENTORY" in last[1]["content"]   # the prompt's state part still follows the belief
    assert "now I need a stick" in last[0]["content"]
    assert not any(m["content"] == "Noted." for m in last)   # no raw history: its own replies are not replayed
    rewrites = [c["messages"][-1]["content"] for c in model.calls if c.get("rule")]
    assert len(rewrites) >= 2 and "Your belief so far:\nPartners' inventories: jill asked 1" in rewrites[1]
    wait_until(lambda: "belief" in json.loads((tmp_path / "bots" / agent.name / "state.json").read_text()),
               timeout=10, message="the belief in the saved state")
    state = json.loads((tmp_path / "bots" / agent.name / "state.json").read_text())
    assert state["belief"].startswith("Partners' inventories: jill asked")
