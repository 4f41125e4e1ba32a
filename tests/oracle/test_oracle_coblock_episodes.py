"""Oracle players finish CoBlock tasks of the test split, each as `mindpy run --task` with its own embedded server
(the path `mindpy eval` takes): a skill-dependent task, where one agent must have its partner place a colour it
lacks, and a goal-dependent one, where one agent's blocks rest on its partner's."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

pytestmark = pytest.mark.slow  # whole episodes: left out of `make test-fast`

MINDPY = Path(sys.executable).with_name("mindpy")
TASK_FILE = REPO_ROOT / "tasks" / "coblock_test.json"
TASKS = json.loads(TASK_FILE.read_text())


def play(task_id: str, tmp_path: Path) -> tuple[dict, str]:
    """Run the task with oracle players; assert it succeeds. Returns the result and the console log."""
    run_dir = tmp_path / "run"
    proc = subprocess.run([str(MINDPY), "run", "--task", str(TASK_FILE), "--task-id", task_id, "--run-dir",
                           str(run_dir)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "OPENAI_API_KEY": ""})
    console = (run_dir / "console.log").read_text() if (run_dir / "console.log").exists() else ""
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + console[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "score: 1.0", console[-3000:]
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "success", result
    size = sum(len(goal) for goal in TASKS[task_id]["private_goals"].values())
    assert result["timesteps"] >= size and all(n > 0 for n in result["placed_by_agent"].values()), result
    assert result["gamma"] is not None and 0 < result["gamma"] <= 0.5, result
    # the paper's play with no flags: rounds, one action (or message) per agent per round, agent 0 first
    assert result["round_rules"] == {"limit": 60, "message_is_action": True, "sequential": True}, result
    tally, rounds = result["round_tally"], result["rounds"]
    turns = {name: tally["actions"][name] + tally["messages"][name] + tally["passes"][name] for name in tally["actions"]}
    assert turns["andy"] == rounds and turns["jill"] in (rounds - 1, rounds), result  # success may end a round early
    # the paper's timesteps: every action taken (the refused ones not), a message and a wait included
    assert result["timesteps"] == sum(tally["actions"].values()) + sum(tally["messages"].values()) - \
        result["refused_actions"], result
    return result, console


def placements(console: str, agent: str) -> list[tuple[str, int, int, int]]:
    """The !placeBlock commands an agent ran, as (block, x, y, z)."""
    return [(m[1], int(m[2]), int(m[3]), int(m[4])) for m in re.finditer(
        rf"\[{agent}\] runs: !placeBlock\('([a-z_]+)', (-?\d+), (-?\d+), (-?\d+)\)", console)]


def test_a_skill_dependent_task_the_partner_places_the_colour_one_agent_lacks(tmp_path):
    # agent 1 (jill) needs yellow_wool at (100, -60, -98) and holds none; andy holds a spare one
    task = TASKS["coblock_skill_dependent_0"]
    assert "yellow_wool" not in task["initial_inventory"]["1"] and [100, -60, -98, "yellow_wool"] in \
        task["private_goals"]["1"]
    result, console = play("coblock_skill_dependent_0", tmp_path)
    assert "please place these for me: yellow_wool at (100, -60, -98)" in console  # jill asked with the cell
    assert ("yellow_wool", 100, -60, -98) in placements(console, "andy")          # andy placed it
    assert ("yellow_wool", 100, -60, -98) not in placements(console, "jill")
    size = sum(len(goal) for goal in task["private_goals"].values())
    assert sum(result["placed_by_agent"].values()) == size  # each block once, whoever placed it


def test_a_goal_dependent_task_the_upper_part_waits_for_the_one_below(tmp_path):
    # agent 0 (andy) builds on top of jill's blocks: none of its cells is on the ground
    task = TASKS["coblock_goal_dependent_0"]
    assert min(y for _, y, _, _ in task["private_goals"]["0"]) > -60
    result, console = play("coblock_goal_dependent_0", tmp_path)
    assert result["refused_actions"] == 0  # nothing was tried before it had something to rest on
    first = console.index("[andy] runs: !placeBlock")
    assert "[jill] runs: !placeBlock" in console[:first]  # the part below was begun first
