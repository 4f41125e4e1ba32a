"""During a task, as in MINDcraft, an agent may not end its goal (!endGoal) nor, when the task opens with a
conversation, the conversation (!endConversation)."""

from __future__ import annotations

import json

import pytest

from mindpy.harness.episode import blocked_commands, run_episode
from mindpy.harness.session import agent_names
from mindpy.models.replay import ReplayModel
from mindpy.tasks.schema import Task

pytestmark = pytest.mark.slow  # a whole episode

STICK = {"type": "techtree", "agent_count": 1, "goal": "Craft 4 sticks.", "initial_inventory": {"0": {"oak_planks": 2}},
         "target": "stick", "number_of_target": 4, "timeout": 60}


def test_which_commands_a_task_blocks():
    pair = Task.from_dict("pair", {**STICK, "agent_count": 2, "conversation": "Let's make sticks.",
                                   "goal": {"0": "Craft 4 sticks.", "1": ""},
                                   "initial_inventory": {"0": {}, "1": {"oak_planks": 2}},
                                   "blocked_actions": {"1": ["!givePlayer"]}})
    assert blocked_commands(pair, 0) == ["endGoal", "endConversation"]
    assert blocked_commands(pair, 1) == ["!givePlayer", "endConversation"]  # no goal of its own to keep to
    assert blocked_commands(Task.from_dict("alone", {**STICK, "goal": ""}), 0) == []


def test_an_agent_told_to_give_up_its_goal_is_refused_and_carries_on(server, tmp_path):
    task = Task.from_dict("sticks", STICK)
    (name,) = agent_names(task)
    model = ReplayModel(["I give up. !endGoal", '!craftRecipe("stick", 1)'], default="Done.")
    result = run_episode(task, tmp_path / "run", server=f"{server.host}:{server.port}", models={name: model})
    assert result["end_reason"] == "success", result
    calls = [json.loads(line) for line in (tmp_path / "run" / "calls" / f"{name}.jsonl").open()]
    said = json.dumps([c["messages"] for c in calls])
    assert "!endGoal is blocked" in said
