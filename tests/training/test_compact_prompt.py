"""The compact prompt (`--prompt compact`): a full task prompt's call turns into exactly what the compact prompt
renders for the same agent, episodes record which prompt they were played with, export writes either, and the
families with prompts of their own refuse it in one line."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from conftest import REPO_ROOT, run_mindpy
from mindpy.memory import History
from mindpy.prompts import Prompter
from mindpy.prompts.compact import compact_template, placeholder_values, to_compact, to_compact_system
from mindpy.prompts.prompter import split_template
from mindpy.rag import ExampleSelector

DOCS = "COMMANDS\n" + "\n".join(f"!command{i}(arg): does thing {i}." for i in range(30)) + \
    '\n!craftRecipe("item", num): Craft.'
EXAMPLES = [[{"role": "user", "content": "rosa: craft a stick"},
             {"role": "assistant", "content": 'On it. !craftRecipe("stick", 1)'}]]


class Commands:
    def docs(self, agent):
        return DOCS

    def run(self, agent, name, args):
        return {"stats": "STATS\n- Health: 20 / 20", "inventory": "INVENTORY\n- oak_log: 3"}[name]


def agent(goal: str, inventory: str) -> SimpleNamespace:
    return SimpleNamespace(name="andy", commands=Commands(), history=History("andy"), task_goal=goal,
                           task_inventory=inventory, actions=SimpleNamespace(current_label=None), self_prompter=None)


def _task_conversing() -> dict:
    import yaml

    return yaml.safe_load((REPO_ROOT / "profiles" / "task.yaml").read_text())["conversing"]


@pytest.mark.parametrize("goal, inventory", [
    ("Collaborate with the other agents to craft an amethyst_block. The other agents are: jill.",
     "At the start of the task you had: 2 amethyst_shard."),
    ("Make  1 cake\n\nwith jill; $5 of \\d+ (regex-looking text) [x]", ""),  # no inventory line; odd characters
])
def test_a_full_task_prompt_turns_into_exactly_what_the_compact_prompt_renders(goal, inventory):
    full = Prompter(prompts={"conversing": _task_conversing()}, examples=ExampleSelector(EXAMPLES))
    compact = Prompter(prompts={"conversing": compact_template()})
    played = agent(goal, inventory)
    full_system, full_messages = full.conversing(played)
    compact_system, compact_messages = compact.conversing(played)
    assert "COMMANDS" in full_system and "craft a stick" in full_system  # the docs and the examples were there
    assert "COMMANDS" not in compact_system and len(compact_system) < len(full_system) / 3
    assert to_compact_system(full_system, split_template(_task_conversing())[0]) == compact_system
    assert to_compact(full_system, full_messages, _task_conversing()) == (compact_system, compact_messages)
    assert "STATS" in full_messages[-1]["content"] and "STATS" not in compact_messages[-1]["content"]


def test_a_call_of_another_prompt_is_not_converted():
    coblock = split_template(_task_conversing())[0]
    assert to_compact_system("You are andy, a builder of wool structures.", coblock) is None
    assert placeholder_values("Hello andy", "Hello $NAME, welcome") is None
    assert placeholder_values("Hi andy and andy", "Hi $NAME and $NAME") == {"NAME": "andy"}
    assert placeholder_values("Hi andy and jill", "Hi $NAME and $NAME") is None  # a repeated value must repeat


TASK = {"planks": {"type": "techtree", "goal": "Collaborate with the other agents to craft 4 oak_planks.",
                   "agent_count": 2, "initial_inventory": {"0": {"oak_log": 1}, "1": {}}, "target": "oak_planks",
                   "number_of_target": 4, "timeout": 120}}


def _calls(run_dir: Path, agent_name: str) -> list[dict]:
    lines = (run_dir / "calls" / f"{agent_name}.jsonl").read_text().splitlines()
    return [c for c in map(json.loads, lines) if c["kind"] == "conversing"]


@pytest.mark.slow
def test_an_episode_records_its_prompt_and_export_writes_full_episodes_as_compact_ones(tmp_path):
    """The oracle plays one task with each prompt: the compact episode's calls have no docs and record the
    setting; exported as compact, the full episode's first call reads exactly as the compact episode's did."""
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(TASK))
    runs = {}
    for prompt in ("full", "compact"):
        runs[prompt] = tmp_path / prompt
        code, out = run_mindpy("run", "--task", str(tasks), "--task-id", "planks", "--model", "oracle",
                               "--prompt", prompt, "--run-dir", str(runs[prompt]), cwd=tmp_path, timeout=280)
        assert code == 0, out
        result = json.loads((runs[prompt] / "result.json").read_text())
        assert result["score"] == 1.0 and result["ablations"]["prompt"] == prompt
    compact_calls = _calls(runs["compact"], "andy")
    assert compact_calls and all("COMMANDS" not in c["system"] for c in compact_calls)
    assert all("STATS" not in c["messages"][-1]["content"] for c in compact_calls)
    assert all("COMMANDS" in c["system"] for c in _calls(runs["full"], "andy"))

    exported = tmp_path / "compact.jsonl"
    code, out = run_mindpy("sft", "export", str(runs["full"]), str(runs["compact"]), "--out", str(exported),
                           "--prompt", "compact", cwd=tmp_path, timeout=120)
    assert code == 0, out
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    andy = [line["messages"] for line in lines if line["metadata"]["agent"] == "andy"
            and line["metadata"]["kind"] == "conversing"]
    assert {m[0]["content"] for m in andy} == {compact_calls[0]["system"]}  # both episodes, one compact system
    assert all("STATS" not in m[-2]["content"] and "INVENTORY" in m[-2]["content"] for m in andy)  # the state
    assert "left out" not in out.split("construction cut)")[-1]

    code, out = run_mindpy("sft", "export", str(runs["compact"]), "--out", str(tmp_path / "full.jsonl"),
                           "--prompt", "full", cwd=tmp_path, timeout=120)
    assert code == 0 and f"{len(compact_calls) + len(_calls(runs['compact'], 'jill'))} calls left out" in out, out


@pytest.mark.parametrize("task_file, family", [("defuse_test.json", "defuse"), ("coblock_test.json", "coblock")])
def test_families_with_prompts_of_their_own_refuse_the_compact_prompt_in_one_line(tmp_path, task_file, family):
    first = next(iter(json.loads((REPO_ROOT / "tasks" / task_file).read_text())))
    code, out = run_mindpy("run", "--task", str(REPO_ROOT / "tasks" / task_file), "--task-id", first,
                           "--model", "oracle", "--prompt", "compact", "--run-dir", str(tmp_path / "run"),
                           cwd=tmp_path, timeout=120)
    assert code != 0 and "--prompt" in out and f"{family} episodes are played by rules of their own" in out, out
    assert len([line for line in out.splitlines() if line.strip()]) <= 2, out
