"""Prompt building: placeholders, the stable-first layout and its token accounting, respond-or-ignore."""

from __future__ import annotations

from types import SimpleNamespace

from mindpy.memory import History
from mindpy.models.replay import ReplayModel
from mindpy.prompts import PLACEHOLDERS, Prompter, default_prompts
from mindpy.prompts.prompter import clip_memory, fill, split_template
from mindpy.rag import ExampleSelector

# the examples' commands are among the docs: examples using a command the docs do not offer are left out
DOCS = "*COMMAND DOCS*\n" + "\n".join(f"!command{i}(arg): does thing number {i} in the world." for i in range(60)) \
    + '\n!collectBlocks("type", num): Mine blocks.\n!stop: Stop.'
EXAMPLES = [[{"role": "user", "content": "steve: get wood"}, {"role": "assistant", "content": "!collectBlocks(\"oak_log\", 4)"}],
            [{"role": "user", "content": "alex: stop"}, {"role": "assistant", "content": "Okay. !stop"}]]


class Commands:
    """Stands in for the command layer: the docs and the !stats / !inventory queries."""

    def __init__(self):
        self.health = 20

    def docs(self, agent):
        return DOCS

    def run(self, agent, name, args):
        return {"stats": f"STATS\n- health: {self.health}", "inventory": "INVENTORY\n- oak_log: 3"}[name]


def make_agent(model=None):
    agent = SimpleNamespace(name="andy", commands=Commands(), history=History("andy"), model=model,
                            actions=SimpleNamespace(current_label="action:collectBlocks"),
                            self_prompter=SimpleNamespace(state=SimpleNamespace(value="active"), goal="build a hut"))
    return agent


def test_conversing_layout_puts_changing_state_last():
    agent = make_agent()
    prompter = Prompter(examples=ExampleSelector(EXAMPLES))
    agent.history.add("steve", "hi, get me some wood")
    system, messages = prompter.conversing(agent)
    assert "andy" in system and DOCS in system and "Example 1" in system
    assert "health" not in system and "oak_log: 3" not in system  # state is not in the stable part
    assert messages[0] == {"role": "user", "content": "steve: hi, get me some wood"}
    state = messages[-1]
    assert state["role"] == "system"
    for text in ("health: 20", "oak_log: 3", "action:collectBlocks", "build a hut"):
        assert text in state["content"]
    assert "$" not in system + state["content"]  # every placeholder filled
    p = prompter.last["conversing"]
    assert system.stable_prefix_tokens == p.stable_prefix_tokens > 0.8 * p.prompt_tokens


def test_state_change_keeps_the_prefix():
    agent = make_agent()
    prompter = Prompter(examples=ExampleSelector(EXAMPLES))
    agent.history.add("steve", "get wood")
    first = prompter.build("conversing", agent)
    assert first.shared_prefix_tokens == 0
    agent.commands.health = 7  # the bot got hurt: only the state message differs
    second = prompter.build("conversing", agent)
    assert second.shared_prefix_tokens >= second.stable_prefix_tokens - 8
    assert second.shared_prefix_tokens / second.prompt_tokens > 0.8
    agent.history.add("andy", "On it! !collectBlocks(\"oak_log\", 4)")
    third = prompter.build("conversing", agent)  # a new turn: appended, the old prefix still holds
    assert third.shared_prefix_tokens >= second.stable_prefix_tokens - 8


def test_usage_records_the_stable_prefix():
    agent = make_agent(ReplayModel(["ok"]))
    prompter = Prompter()
    system, messages = prompter.conversing(agent)
    reply = agent.model.send(messages, system)
    assert reply.usage.stable_prefix_tokens == system.stable_prefix_tokens > 0


def test_providers_values_and_callables():
    seen = []
    prompter = Prompter(name="jill", providers={
        "STATS": "STATS: fine",
        "INVENTORY": lambda: "INVENTORY: empty",
        "COMMAND_DOCS": lambda agent: seen.append(agent) or "DOCS",
        "MEMORY": "met steve at spawn",
    })
    system, messages = prompter.conversing(None)
    assert "jill" in system and "DOCS" in system and seen == [None]
    assert "STATS: fine" in messages[-1]["content"] and "met steve at spawn" in messages[-1]["content"]
    assert messages[-1]["role"] == "user"  # nothing else to follow
    system, _ = prompter.coding(None, CODE_DOCS="skills.collect_blocks(block, num)")
    assert "skills.collect_blocks" in system


def test_context_object():
    class World:
        command_docs = "DOCS FROM CONTEXT"

        def stats(self):
            return "STATS FROM CONTEXT"

    system, messages = Prompter(name="jill", providers=World()).conversing(None)
    assert "DOCS FROM CONTEXT" in system and "STATS FROM CONTEXT" in messages[-1]["content"]
    assert "jill" in system  # not on the context: the prompter's own name


def test_mindcraft_single_string_prompt_is_split():
    template = ("You are a bot named $NAME.\n$SELF_PROMPT Act human-like.\nSummarized memory: '$MEMORY'\n"
                "$STATS\n$INVENTORY\n$COMMAND_DOCS\n$EXAMPLES\nConversation Begin:")
    stable, state = split_template(template)
    assert stable == "You are a bot named $NAME.\nAct human-like.\n$COMMAND_DOCS\n$EXAMPLES\nConversation Begin:"
    assert state == "$SELF_PROMPT\nSummarized memory: '$MEMORY'\n$STATS\n$INVENTORY"
    prompter = Prompter(prompts={"conversing": template})
    system, messages = prompter.conversing(make_agent())
    assert system.startswith("You are a bot named andy.") and DOCS in system
    assert "health: 20" in messages[-1]["content"]


def test_fill_leaves_unknown_words():
    assert fill("$NAME has $5 and $UNKNOWN", {"NAME": "andy"}) == "andy has $5 and $UNKNOWN"


def test_default_prompts_use_known_placeholders_only():
    import re

    for kind, template in default_prompts().items():
        stable, state = split_template(template)
        for name in re.findall(r"\$([A-Z_]+)", stable + "\n" + state):
            assert name in PLACEHOLDERS, (kind, name)
    assert set(default_prompts()) == {"conversing", "coding", "saving_memory", "bot_responder"}


def test_memory_prompt_and_clip():
    prompter = Prompter(name="andy")
    turns = [{"role": "user", "content": "steve: meet at the river"}, {"role": "assistant", "content": "ok"}]
    p = prompter.memory_prompt("old note", turns)
    assert "500 characters" in p.system and "andy" in p.system
    assert "old note" in p.messages[-1]["content"] and "steve: meet at the river" in p.messages[-1]["content"]
    assert len(clip_memory("word " * 200)) <= 500


def test_should_respond():
    for reply, expected in (("ignore", False), ("Respond.", True), ("I think I'll ignore it", False)):
        agent = make_agent(ReplayModel([reply]))
        assert Prompter().should_respond(agent, "jill: (FROM OTHER BOT)thanks!") is expected
        sent = agent.model.calls[0]
        assert "respond or ignore" in sent["system"] and "thanks!" in sent["messages"][-1]["content"]
    assert Prompter().should_respond(make_agent(ReplayModel([])), "x") is True  # a failing model: respond


def test_prompt_log(tmp_path):
    import json

    prompter = Prompter(name="andy", prompt_log=tmp_path / "prompts.jsonl")
    prompter.conversing(None)
    record = json.loads((tmp_path / "prompts.jsonl").read_text().splitlines()[0])
    assert record["kind"] == "conversing" and record["stable_prefix_tokens"] > 0


def test_method_placeholders_change_per_call_and_are_empty_outside_their_use():
    stable, state = split_template("You are $NAME.\n$METHOD\nBuilt:\n$STRUCTURE\n$MODELLING\n$COMMAND_DOCS")
    assert stable == "You are $NAME.\n$METHOD\nBuilt:\n$COMMAND_DOCS" and state == "$STRUCTURE\n$MODELLING"
    template = {"system": "You are $NAME.\n$METHOD", "state": "Built: $STRUCTURE\n$MODELLING\nGo."}
    agent = make_agent()
    agent.modelling_notes, agent.task, agent.bot = "# Partner Modelling", None, None  # no task, options off
    system, messages = Prompter(prompts={"conversing": template}).conversing(agent)
    assert system == "You are andy." and messages[-1]["content"] == "Built:\n\nGo."
