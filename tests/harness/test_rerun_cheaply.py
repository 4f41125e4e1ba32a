"""Reruns a researcher can trust and afford, end to end with `mindpy` processes against the session's server and a
real local OpenAI-compatible HTTP server that counts requests and answers each task's prompt with the command that
solves it: `mindpy eval --retry-errors` plays only the episode whose model endpoint was down, a rerun with `--cache`
asks the model nothing and scores the same, and `mindpy run --replay` plays an episode again from its recorded
replies, ending in one line where the recording runs out."""

from __future__ import annotations

import csv
import json
import os
import sys
from pathlib import Path

import pytest

from conftest import run_mindpy

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_http_fakes import RecordingServer, openai_reply  # noqa: E402

pytestmark = pytest.mark.slow  # whole episodes as CLI runs

WOODS = ("oak", "birch", "spruce")
TASKS = {f"{wood}_planks": {"type": "techtree", "goal": f"Craft {wood}_planks.", "agent_count": 1,
                            "initial_inventory": {"0": {f"{wood}_log": 1}}, "target": f"{wood}_planks",
                            "number_of_target": 4, "timeout": 30} for wood in WOODS}
# two crafts needed: a replay of it hands out two recorded replies
TWO_CRAFTS = {"type": "techtree", "goal": "Craft 8 oak_planks.", "agent_count": 1,
              "initial_inventory": {"0": {"oak_log": 2}}, "target": "oak_planks", "number_of_target": 8,
              "timeout": 60}


class CraftingModel:
    """Answers a task's prompt with the command that crafts its planks; `down` woods get HTTP 500."""

    def __init__(self) -> None:
        self.down: set[str] = set()
        self.server = RecordingServer(respond=self.respond)

    def respond(self, body: dict) -> tuple[int, dict]:
        system = next((m["content"] for m in body["messages"] if m["role"] == "system"), "")
        wood = next((w for w in WOODS if f"Your task: Craft {w}_planks" in system), "oak")
        if wood in self.down:
            return 500, {"error": {"message": "the model server is down"}}
        return 200, openai_reply(f'Crafting. !craftRecipe("{wood}_planks", 1)', prompt=100, completion=10)

    def requests(self) -> int:
        return len(self.server.requests)


@pytest.fixture
def model():
    crafting = CraftingModel()
    yield crafting
    crafting.server.close()


def mindpy(model: CraftingModel, *args: str, cwd: Path, timeout: float = 240) -> tuple[int, str]:
    env = {**os.environ, "OPENAI_BASE_URL": model.server.url + "/v1", "OPENAI_API_KEY": "test-key",
           "MINDPY_MODEL_ATTEMPTS": "1"}  # a 500 fails the call at once
    env.pop("MINDPY_BUDGET", None)
    return run_mindpy(*args, cwd=cwd, timeout=timeout, env=env)


def misses(model: CraftingModel, before: int) -> str:
    """The requests of the cached rerun, each beside the most alike earlier one (what made it new)."""
    import difflib

    def text(request) -> list[str]:
        return json.dumps(request.body, indent=1).replace("\\n", "\n").splitlines()

    out = []
    for request in model.server.requests[before:]:
        earlier = max(model.server.requests[:before], key=lambda r: difflib.SequenceMatcher(
            None, text(r), text(request)).ratio())
        out += list(difflib.unified_diff(text(earlier), text(request), lineterm="", n=1))
    return "\n".join(out)


def rows(out: Path) -> dict[str, dict]:
    with (out / "results.csv").open() as f:
        return {row["task_id"]: row for row in csv.DictReader(f)}


def test_retry_errors_plays_only_the_errored_episode_and_a_cached_rerun_asks_nothing(model, server, tmp_path):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps(TASKS))
    cache = tmp_path / "cache"
    at = ["--servers", f"{server.host}:{server.port}", "--model", "gpt-4o-mini", "--cache-dir", str(cache)]
    server.command("time set 1000")  # the prompts' time of day is the same in both runs
    model.down = {"spruce"}
    first = tmp_path / "first"
    code, out = mindpy(model, "eval", str(tasks), "--out", str(first), "--retries", "0", *at, cwd=tmp_path)
    assert code == 1, out
    played = rows(first)
    assert {t: r["end_reason"] for t, r in played.items()} == {"oak_planks": "success", "birch_planks": "success",
                                                               "spruce_planks": "error"}, out
    assert played["spruce_planks"]["attempts"] == "1" and "HTTP 500" in played["spruce_planks"]["error"]
    assert all("spruce" not in p.read_text() for p in cache.rglob("*.json"))  # failed calls are not kept
    done = {t: Path(r["run_dir"], "result.json").stat().st_mtime_ns for t, r in played.items() if t != "spruce_planks"}
    recorded = json.loads((first / "evaluation.json").read_text())
    assert recorded["options"]["cache"] == str(cache.resolve()) and recorded["retries"] == 0

    model.down = set()
    before = model.requests()
    code, out = mindpy(model, "eval", "--retry-errors", str(first), cwd=tmp_path)
    assert code == 0, out
    assert "2 already done, 1 to play" in out, out
    played = rows(first)
    assert all(r["end_reason"] == "success" for r in played.values()), played
    assert {t: Path(played[t]["run_dir"], "result.json").stat().st_mtime_ns for t in done} == done  # not replayed
    asked = [r.body for r in model.server.requests[before:]]
    assert asked and all("Craft spruce_planks" in json.dumps(body) for body in asked)
    summary = json.loads((first / "summary.json").read_text())
    assert summary["errors"] == 0 and summary["success_rate"] == 1.0
    assert summary["response_cache"] == str(cache.resolve())

    server.command("time set 1000")
    before = model.requests()
    second = tmp_path / "second"
    code, out = mindpy(model, "eval", str(tasks), "--out", str(second), *at, cwd=tmp_path)
    assert code == 0, out
    assert model.requests() == before, misses(model, before)
    again = rows(second)
    assert {t: (r["end_reason"], r["score"]) for t, r in again.items()} == \
        {t: (r["end_reason"], r["score"]) for t, r in played.items()}
    for row in again.values():
        result = json.loads(Path(row["run_dir"], "result.json").read_text())
        assert result["response_cache"] == str(cache.resolve())
        assert result["budget"]["requests"] == 0 and result["budget"]["cached"] >= 1, result["budget"]
        calls = [json.loads(line) for line in Path(row["run_dir"], "calls", "andy.jsonl").read_text().splitlines()]
        assert calls and all(c["from_cache"] and c["prompt_tokens"] == 0 for c in calls)


def test_replay_reproduces_the_recorded_commands_and_ends_in_one_line_where_the_recording_runs_out(
        model, server, tmp_path):
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"two_crafts": TWO_CRAFTS}))
    at = f"{server.host}:{server.port}"
    recorded = tmp_path / "recorded"
    code, out = mindpy(model, "run", "--task", str(tasks), "--task-id", "two_crafts", "--model", "gpt-4o-mini",
                       "--server", at, "--seed", "3", "--run-dir", str(recorded), cwd=tmp_path)
    assert code == 0 and out.strip().endswith("score: 1.0"), out
    original = json.loads((recorded / "result.json").read_text())
    lines = (recorded / "calls" / "andy.jsonl").read_text().splitlines()
    assert len(lines) >= 2

    model.down = set(WOODS)  # a replay asks the model nothing
    before = model.requests()
    replayed = tmp_path / "replayed"
    code, out = mindpy(model, "run", "--replay", str(recorded), "--server", at, "--run-dir", str(replayed),
                       cwd=tmp_path)
    assert code == 0 and out.strip().endswith("score: 1.0"), out
    assert model.requests() == before
    result = json.loads((replayed / "result.json").read_text())
    assert result["agents"]["andy"]["commands"] == original["agents"]["andy"]["commands"]
    replies = [json.loads(line)["reply"] for line in (replayed / "calls" / "andy.jsonl").read_text().splitlines()]
    assert replies == [json.loads(line)["reply"] for line in lines][:len(replies)]
    assert "seed 3" in out

    (recorded / "calls" / "andy.jsonl").write_text(lines[0] + "\n")  # one craft recorded: the replay runs out
    code, out = mindpy(model, "run", "--replay", str(recorded), "--server", at, "--run-dir",
                       str(tmp_path / "short"), cwd=tmp_path)
    ended = [line for line in out.splitlines() if line.startswith("replay ended:")]
    assert code == 4 and len(ended) == 1, out
    assert "andy asked for a conversing reply after its 1 recorded ones" in ended[0], out
    assert "Traceback" not in out and model.requests() == before
