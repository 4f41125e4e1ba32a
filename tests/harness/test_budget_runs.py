"""The run-wide budget end to end: `mindpy run --task` and `mindpy eval` as real processes with embedded servers,
the model a local OpenAI-compatible server whose every reply reports a million prompt tokens. At $1 per million
tokens one call costs $1, so a cap of $0.50 is spent by the first call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_http_fakes import RecordingServer, openai_reply  # noqa: E402

pytestmark = pytest.mark.slow  # whole episodes: left out of `make test-fast`

MINDPY = Path(sys.executable).with_name("mindpy")
PROMPT_TOKENS = 1_000_000  # $1.00 a call at --usd-per-mtok 1


def planks_task(timeout: int = 60) -> dict:
    return {"type": "techtree", "goal": "Craft 40 oak_planks.", "agent_count": 1,
            "initial_inventory": {"0": {"oak_log": 1}}, "target": "oak_planks", "number_of_target": 40,
            "timeout": timeout}


@pytest.fixture
def model_server():
    with RecordingServer([(200, openai_reply("Let me think about it.", prompt=PROMPT_TOKENS,
                                             completion=0))]) as server:
        yield server


def run_mindpy(args: list[str], server: RecordingServer, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "OPENAI_BASE_URL": server.url + "/v1", "OPENAI_API_KEY": "test-key"}
    env.pop("MINDPY_BUDGET", None)
    return subprocess.run([str(MINDPY), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          env=env, timeout=timeout, start_new_session=True)


def test_run_task_stops_cleanly_when_the_dollars_are_spent(model_server, tmp_path):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"many_planks": planks_task()}))
    run_dir = tmp_path / "run"
    proc = run_mindpy(["run", "--task", str(tasks), "--task-id", "many_planks", "--model", "gpt-4o-mini",
                       "--usd-per-mtok", "1", "--max-usd", "0.5", "--run-dir", str(run_dir)], model_server, 240)
    assert proc.returncode == 0, proc.stdout
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "budget", result
    assert result["budget"]["exceeded"] and result["budget"]["usd"] >= 0.5
    # the cap stops the calls: the one that crossed it is the last the server saw
    assert result["budget"]["requests"] == len(model_server.requests) == 1
    assert "model budget is spent ($1.0000 of $0.5)" in proc.stdout
    assert "Traceback" not in proc.stdout


def test_eval_plays_until_the_cap_and_lists_the_rest_as_not_played(model_server, tmp_path):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({f"planks_{i}": planks_task() for i in range(3)}))
    out = tmp_path / "eval"
    proc = run_mindpy(["eval", str(tasks), "--out", str(out), "--model", "gpt-4o-mini", "--usd-per-mtok", "1",
                       "--max-usd", "0.5"], model_server, 300)
    assert proc.returncode == 0, proc.stdout
    summary = json.loads((out / "summary.json").read_text())
    budget = summary["budget"]
    assert [e["task_id"] for e in budget["ended_episodes"]] == ["planks_0"]
    assert sorted(e["task_id"] for e in budget["not_played"]) == ["planks_1", "planks_2"]
    assert budget["spent_usd"] >= 0.5 and budget["max_usd"] == 0.5
    # cut off and not played: neither failures nor errors
    assert summary["errors"] == 0 and summary["played"] == 0 and summary["episodes"] == 1
    rows = (out / "results.csv").read_text().splitlines()
    assert len(rows) == 2 and ",budget," in rows[1]
    assert "spent $1.0000 of $0.5" in proc.stdout
