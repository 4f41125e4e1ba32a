"""Oracle players finish real test-split tasks of every family, each as `mindpy run --task` with its own embedded
server (the same path as `make demo` and `mindpy eval`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO_ROOT

pytestmark = pytest.mark.slow  # whole episodes or CLI runs: left out of `make test-fast`

ROOT = REPO_ROOT
MINDPY = Path(sys.executable).with_name("mindpy")

EPISODES = [
    ("crafting_test.json", "multiagent_crafting_wooden_sword_full_plan_missing_items_requires_ctable__depth_1__2_agents"),
    ("crafting_test.json", "multiagent_crafting_beehive_full_plan_requires_ctable__depth_1__3_agents"),
    ("cooking_test.json", "multiagent_cooking_2_agents_rabbit_stew_bread_hells_kitchen"),
    ("cooking_test.json", "multiagent_cooking_2_agents_cooked_beef_golden_carrot"),
    ("construction_test.json", "materials_1_rooms_1_window_0_carpet_0_variant_0"),
]


@pytest.mark.parametrize("file,task_id", EPISODES, ids=[e[1][:40] for e in EPISODES])
def test_the_oracle_completes_the_task(file, task_id, tmp_path):
    run_dir = tmp_path / "run"
    proc = subprocess.run([str(MINDPY), "run", "--task", str(ROOT / "tasks" / file), "--task-id", task_id,
                           "--run-dir", str(run_dir)], capture_output=True, text=True, timeout=600,
                          env={**__import__("os").environ, "OPENAI_API_KEY": ""})
    console = (run_dir / "console.log").read_text() if (run_dir / "console.log").exists() else ""
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:] + console[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "score: 1.0", console[-3000:]
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "success"
    calls = [json.loads(line) for path in (run_dir / "calls").glob("*.jsonl") for line in path.open()]
    assert calls and all(c["system"].startswith("You are ") for c in calls)
    # the team talked: bots' messages reached each other
    assert "(FROM OTHER BOT)" in json.dumps([c["messages"] for c in calls])
