"""The agent's prompt size with the real profiles, docs and examples: the first call fits in 1550 tokens in free
play and in a crafting task, and consecutive calls share most of their tokens as a prefix.

Pure logic: the world state is a fixed text shaped like the !stats and !inventory answers (benchmarks/bench_prompt.py
measures the same on a real agent and server)."""

from __future__ import annotations

import statistics
from pathlib import Path
from types import SimpleNamespace

import pytest

from mindpy.commands import AgentCommands, command_docs, default_registry
from mindpy.commands.coblock import blocked_outside_coblock
from mindpy.commands.rounds import blocked_outside_rounds
from mindpy.memory import History
from mindpy.models.tokens import count_tokens
from mindpy.profiles import load_profile
from mindpy.prompts import Prompter
from mindpy.prompts.prompter import opening
from mindpy.rag import ExampleSelector

ROOT = Path(__file__).resolve().parents[2]
FIRST_CALL_LIMIT = 1550
GOAL = "Collaborate with the other agents to craft a wooden_sword. Nobody has the oak_log it takes. The other " \
       "agents are: jill."


class World:
    """The !stats and !inventory answers, changing a little every call as the bot moves and gathers."""

    def __init__(self, layer: AgentCommands):
        self.layer, self.step = layer, 0

    def docs(self, context=None):
        return self.layer.docs(context)

    def run(self, context, name, args):
        if name == "stats":
            return (f"STATS\n- Position: x: {200.5 + self.step}, y: -60, z: {200.5 - self.step}\n- Gamemode: survival\n"
                    f"- Health: 20 / 20\n- Hunger: {20 - self.step % 3} / 20\n- Biome: plains\n- Weather: Clear\n"
                    "- Time: Morning\n- Holding: oak_planks\n- Other players nearby: jill, steve")
        return f"INVENTORY\n- oak_planks: {1 + self.step}\n- crafting_table: 1\n- free slots: 34"


def make_agent(base: str, task=None, coding: bool = False):
    profile = load_profile(ROOT / "profiles" / "andy.yaml", base=base)
    blocked = [*profile.blocked_actions, *blocked_outside_coblock(task), *blocked_outside_rounds(False)]
    layer = AgentCommands(default_registry(), blocked=blocked)
    coder = object() if coding else None
    sp = SimpleNamespace(state="active", goal=GOAL) if task is not None else SimpleNamespace(state="stopped", goal="")
    agent = SimpleNamespace(name="andy", history=History("andy"), commands=World(layer), coder=coder, task=task,
                            context=SimpleNamespace(task=task, controls=SimpleNamespace(coder=coder)),
                            actions=SimpleNamespace(current_label=None), self_prompter=sp,
                            task_goal=GOAL if task is not None else "", task_inventory="You have 1 oak_planks.")
    prompter = Prompter.from_profile(profile, examples=ExampleSelector(profile.conversation_examples))
    return agent, prompter


SITUATIONS = {"free play": ("survival", None, False),
              "crafting task": ("task", SimpleNamespace(type="techtree", blueprint=None), True)}
SCRIPT = [("steve", "andy, can you get me some wood?"), ("andy", "Sure! !inventory"),
          ("system", "INVENTORY\n- oak_planks: 1"), ("andy", "Let me look around. !nearbyBlocks"),
          ("system", "NEARBY_BLOCKS\n- grass_block\n- dirt\n- oak_log"), ("jill", "(FROM OTHER BOT)I have a table."),
          ("andy", '!getCraftingPlan("wooden_sword", 1)'),
          ("system", "To craft 1 wooden_sword: collect 1 oak_log, craft 4 oak_planks, craft 4 stick, then craft "
                     "wooden_sword at a crafting_table."),
          ("steve", "thanks! and a stone pickaxe later please")]


@pytest.mark.parametrize("situation", SITUATIONS)
def test_first_call_fits_and_calls_share_their_prefix(situation):
    agent, prompter = make_agent(*SITUATIONS[situation])
    prompts = []
    for who, text in SCRIPT:
        agent.history.add(who, text)
        if who != "andy":  # the model is called after every message and command output
            prompts.append(prompter.build("conversing", agent))
            agent.commands.step += 1
    first = prompts[0]
    assert first.prompt_tokens <= FIRST_CALL_LIMIT, (first.prompt_tokens, str(first.system))
    shares = [p.shared_prefix_tokens / p.prompt_tokens for p in prompts[1:]]
    assert statistics.median(shares) >= 0.85 and min(shares) >= 0.75, shares
    # the same prompt with every command in full, as before: well over the limit
    layer = agent.commands.layer
    full = command_docs(layer.registry, layer.blocked, "full")
    before = prompter.build("conversing", agent, extra={"COMMAND_DOCS": full})
    assert before.prompt_tokens > first.prompt_tokens + 1500


def test_examples_follow_the_opening_of_the_conversation():
    examples = [[{"role": "user", "content": "steve: get wood"}, {"role": "assistant", "content": "!collectBlocks(\"oak_log\", 4)"}],
                [{"role": "user", "content": "alex: stop now and stay here"}, {"role": "assistant", "content": "Okay. !stop"}]]
    prompter = Prompter(examples=ExampleSelector(examples), num_examples=1)
    agent = SimpleNamespace(name="andy", history=History("andy"))
    agent.history.add("steve", "get wood please")
    first = prompter.build("conversing", agent)
    agent.history.add("alex", "stop now and stay here")  # closer to the other example; the opening's stay
    second = prompter.build("conversing", agent)
    assert "collectBlocks" in first.system and second.system == first.system
    assert second.shared_prefix_tokens > count_tokens(first.system) + count_tokens("steve: get wood please")
    assert opening([{"role": "system", "content": "x"}, {"role": "user", "content": "a"},
                    {"role": "user", "content": "b"}]) == [{"role": "system", "content": "x"},
                                                           {"role": "user", "content": "a"}]
    assert opening([]) == []


def test_a_task_goal_is_not_repeated_in_the_state():
    agent, prompter = make_agent(*SITUATIONS["crafting task"])
    agent.history.add("jill", "hi")
    prompt = prompter.build("conversing", agent)
    state = prompt.messages[-1]["content"]
    assert GOAL in prompt.system and GOAL not in state and "Your current goal is your task" in state
    agent.self_prompter.goal = "get 3 oak logs"  # a goal of its own is shown
    assert 'set yourself: "get 3 oak logs"' in prompter.build("conversing", agent).messages[-1]["content"]


def test_examples_teach_only_commands_the_docs_offer():
    """An example that writes code is shown only to an agent that may write code."""
    for coding in (False, True):
        agent, prompter = make_agent("survival", coding=coding)
        agent.history.add("willa", "build a small shelter before night")
        system = str(prompter.build("conversing", agent).system)
        examples = system[system.index("Examples of how to respond:"):]
        assert ("!newAction" in examples) == coding, examples
        assert examples.count("Example ") == 2  # the next nearest example takes the place of the one left out
