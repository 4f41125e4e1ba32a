"""Episodes in round mode (`mindpy run --task ... --rounds N`), as real processes with their own embedded servers.
The model is a replay script that crafts planks whatever happens."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # whole episodes: left out of `make test-fast`

MINDPY = Path(sys.executable).with_name("mindpy")
TASKS = {
    # agent 0 makes the 8 planks in two crafts: two rounds
    "planks_in_two_rounds": {"type": "techtree", "goal": "Craft oak_planks.", "agent_count": 2,
                             "initial_inventory": {"0": {"oak_log": 2}, "1": {}}, "target": "oak_planks",
                             "number_of_target": 8, "timeout": 120},
    # one log gives 4 planks: 40 cannot be made, the round limit ends it
    "too_many_planks": {"type": "techtree", "goal": "Craft 40 oak_planks.", "agent_count": 1,
                        "initial_inventory": {"0": {"oak_log": 1}}, "target": "oak_planks", "number_of_target": 40,
                        "timeout": 120},
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rounds")
    (folder / "tasks.json").write_text(json.dumps(TASKS))
    (folder / "replies.yaml").write_text("default: 'Crafting. !craftRecipe(\"oak_planks\", 1)'\n")
    return folder


def run_task(suite, run_dir, task_id, *extra, timeout=240):
    proc = subprocess.run([str(MINDPY), "run", "--task", str(suite / "tasks.json"), "--task-id", task_id,
                           "--model", f"replay:{suite / 'replies.yaml'}", "--run-dir", str(run_dir), *extra],
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def test_a_task_played_in_rounds_ends_when_done_and_reports_its_rounds(suite, tmp_path):
    code, out, err = run_task(suite, tmp_path / "r", "planks_in_two_rounds", "--rounds", "5")
    assert code == 0, out + err
    result = json.loads((tmp_path / "r" / "result.json").read_text())
    assert result["end_reason"] == "success"
    # a MINDcraft task asked to play in rounds: every agent's turn at once (sequential turns are coblock's paper's)
    assert result["round_rules"] == {"limit": 5, "message_is_action": True, "sequential": False}
    # two crafts by andy, one per round; the task is checked after each round
    assert result["rounds"] == 2 and result["round_tally"]["actions"]["andy"] == 2
    calls = [json.loads(line) for line in (tmp_path / "r" / "calls" / "andy.jsonl").read_text().splitlines()]
    assert "Round 1 of 5" in json.dumps(calls[0]["messages"]) and "Round 2 of 5" in json.dumps(calls[1]["messages"])
    assert "!wait" in calls[0]["system"]  # the round command is offered


def test_the_round_limit_ends_an_episode_with_the_score_it_has(suite, tmp_path):
    code, out, err = run_task(suite, tmp_path / "r", "too_many_planks", "--rounds", "2", "--free-messages")
    assert code == 0, out + err
    result = json.loads((tmp_path / "r" / "result.json").read_text())
    assert result["end_reason"] == "round_limit" and result["rounds"] == 2
    assert result["round_rules"]["message_is_action"] is False
    assert out.strip().splitlines()[-1] == f"score: {result['score']}"


def test_free_messages_without_rounds_is_refused_in_one_line(suite, tmp_path):
    code, out, err = run_task(suite, tmp_path / "r", "too_many_planks", "--free-messages", timeout=60)
    assert code != 0 and "--free-messages is a rule of round mode, and crafting tasks play in real time" in err
    assert not (tmp_path / "r" / "result.json").exists()
