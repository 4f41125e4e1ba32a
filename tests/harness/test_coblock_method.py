"""The CoBlock agent method in a whole episode (`mindpy run --task ... --rounds N --partner-modelling
--reflection`): real bots on the embedded server, a replay model. The agents misplace a block in round 1; the
review after the round names it to its owner only, the XML state of round 2 shows it to both, the modelling
sections written in round 1 come back in round 2's prompt without ever being said, and the result records the
settings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = pytest.mark.slow  # a whole episode

REPO_ROOT = Path(__file__).resolve().parents[2]
MINDPY = Path(sys.executable).with_name("mindpy")
# andy's goal (agent 0 of coblock_independent_0) has yellow_wool at (100, -60, -98); andy holds blue_wool.
ROUND_ONE = ("# Partner Modelling\n# Long-term goal: unknown, a part of the same structure\n"
             "# Self Modelling\n# Short-term goal: start at the corner\n"
             '!placeBlock("blue_wool", 100, -60, -98)')


def test_modelling_sections_come_back_and_the_review_names_the_misplaced_block(tmp_path):
    script = tmp_path / "replies.yaml"
    # the state of round 1 (the last message the model gets) shows an empty site
    script.write_text(yaml.safe_dump({"replies": [{"reply": ROUND_ONE, "match": "<World>\n</World>", "times": 0}],
                                      "default": "!wait"}))
    run_dir = tmp_path / "run"
    proc = subprocess.run([str(MINDPY), "run", "--task", str(REPO_ROOT / "tasks" / "coblock_test.json"),
                           "--task-id", "coblock_independent_0", "--model", f"replay:{script}", "--run-dir",
                           str(run_dir), "--rounds", "2", "--partner-modelling", "--reflection"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "round_limit" and result["rounds"] == 2
    assert result["placed_by_agent"]["andy"] == 1 and result["build_actions"] == 1  # jill holds no blue_wool
    assert result["timesteps"] == 4  # the paper's actions: andy's place and wait, jill's two waits
    assert result["score"] == 0  # nothing right, one extra
    assert result["coblock_settings"] == {"partner_modelling": True, "reflection": True, "summarize_history": False,
                                          "check_goal": False, "retrieved_examples": False, "review_detail": False}

    calls = [json.loads(line) for line in (run_dir / "calls" / "andy.jsonl").read_text().splitlines()]
    first, second = calls[0], calls[1]
    assert "Round 1 of 2" in json.dumps(first["messages"]) and "Round 2 of 2" in json.dumps(second["messages"])
    later = json.dumps(second["messages"]) + second["system"]
    # the sections reach the next prompt...
    assert "Long-term goal: unknown, a part of the same structure" in later
    # ...and were neither said nor kept as the agent's own words in its history
    assert not any("Long-term goal" in m["content"] for m in second["messages"] if m["role"] == "assistant")
    jill = (run_dir / "calls" / "jill.jsonl").read_text()
    assert "start at the corner" not in jill.replace("Short-term goal: start at the corner", "")
    # the review after round 1 names the real misplaced block and asks for reflection
    assert "block at (100, -60, -98) is blue_wool, your goal says yellow_wool" in later
    assert "reflect" in later.lower()
    # the XML state of round 2 shows the block in the world and the action in both agents' history; jill's review
    # says nothing of andy's cell (nothing in her goal is wrong, and she placed nothing)
    for name in ("andy", "jill"):
        state = [json.loads(line) for line in (run_dir / "calls" / f"{name}.jsonl").read_text().splitlines()][1]
        state = state["messages"][-1]["content"]
        assert '<World>\n<block block_type="blue_wool" pos="(100, -60, -98)"/>\n</World>' in state, name
        assert '<action agent="andy" type="place" block_type="blue_wool" pos="(100, -60, -98)"/>' in state, name
    assert "(100, -60, -98)" not in [m["content"] for m in json.loads(
        (run_dir / "calls" / "jill.jsonl").read_text().splitlines()[1])["messages"] if "Review" in m["content"]][-1]
    # without the options, neither reaches the prompt (the same script, the same task)
    plain = tmp_path / "plain"
    proc = subprocess.run([str(MINDPY), "run", "--task", str(REPO_ROOT / "tasks" / "coblock_test.json"),
                           "--task-id", "coblock_independent_0", "--model", f"replay:{script}", "--run-dir",
                           str(plain), "--rounds", "2"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    second = [json.loads(line) for line in (plain / "calls" / "andy.jsonl").read_text().splitlines()][1]
    assert "your goal says yellow_wool" not in json.dumps(second["messages"])
