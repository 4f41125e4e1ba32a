"""A dead model endpoint is retried, reported and never scored: an episode of any family whose model cannot be
reached (nothing listens, HTTP 500 through every retry, a refused key) ends at once as an infrastructure error naming
the URL called; `mindpy run --task` exits with one line and `mindpy eval` retries it and counts it as an error. In
free play the player who spoke hears once that the model is unreachable, and gets answers again once it is back."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent_helpers import listen, start_agent_with_model
from conftest import unique_name, wait_until
from mindpy.harness.episode import run_episode
from mindpy.harness.session import EpisodeInfraError
from mindpy.models import create_model
from mindpy.tasks.families.defuse.play import run_defuse_episode
from mindpy.tasks.families.orders.book import LEVELS
from mindpy.tasks.families.orders.generator import make_task
from mindpy.tasks.loader import read_task_file
from mindpy.tasks.schema import Task

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
from model_http_fakes import RecordingServer, openai_reply  # noqa: E402

pytestmark = pytest.mark.slow  # whole episodes and CLI runs

MINDPY = Path(sys.executable).with_name("mindpy")
CLOSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
TIMEOUT_S = 60
STICKS = {"type": "techtree", "agent_count": 1, "goal": "Craft 4 sticks.", "initial_inventory": {"0": {"oak_planks": 2}},
          "target": "stick", "number_of_target": 4, "timeout": TIMEOUT_S}
QUICK = {"base_delay": 0.01, "max_delay": 0.05}  # the retry policy's waits, short (the settings give the attempts)


def spec(url: str) -> dict:
    return {"api": "openai", "model": "x", "url": url, **QUICK}


@pytest.fixture(params=["closed port", "500 always", "401"])
def dead_endpoint(request):
    """The base URL of an endpoint that cannot be used, and what its error says."""
    if request.param == "closed port":
        yield CLOSED, "refused"
        return
    status = 500 if request.param == "500 always" else 401
    with RecordingServer([(status, {"error": {"message": "not today"}})]) as endpoint:
        yield endpoint.url + "/v1", f"HTTP {status}"


def test_an_unreachable_model_ends_a_crafting_episode_as_an_infrastructure_error(dead_endpoint, server, tmp_path):
    url, cause = dead_endpoint
    run_dir = tmp_path / "run"
    with pytest.raises(EpisodeInfraError) as err:
        run_episode(Task.from_dict("sticks", STICKS), run_dir, model=spec(url), server=f"{server.host}:{server.port}")
    assert url in str(err.value) and cause in str(err.value) and "\n" not in str(err.value), err.value
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "error" and url in result["error"], result
    assert result["duration_s"] < TIMEOUT_S  # it did not wait out the clock


def test_an_unreachable_dispatcher_ends_an_orders_episode_as_an_infrastructure_error(server, tmp_path):
    raw = make_task(LEVELS["golden_apple"], 2, 3.0, seed=5)
    task = Task.from_dict("orders_outage", {**raw, "episode_steps": 4, "timeout": 40})
    with pytest.raises(EpisodeInfraError, match=f"{CLOSED} is unreachable"):
        run_episode(task, tmp_path / "run", model=spec(CLOSED), server=f"{server.host}:{server.port}")
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert result["end_reason"] == "error" and CLOSED in result["error"] and result["orders"]["steps"] == 1, result


def test_an_unreachable_model_ends_a_defuse_episode_as_an_infrastructure_error(server, tmp_path):
    task = read_task_file(Path(__file__).resolve().parents[2] / "tasks" / "defuse_test.json").task("defuse_1")
    names = [unique_name(n) for n in ("alpha", "bravo", "charlie")]
    with pytest.raises(EpisodeInfraError, match=f"{CLOSED} is unreachable"):
        run_defuse_episode(task, tmp_path / "run", model=spec(CLOSED), server=f"{server.host}:{server.port}",
                           names=names)
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert result["end_reason"] == "error" and CLOSED in result["error"] and result["rounds"] <= 1, result


@pytest.fixture
def sticks_file(tmp_path):
    path = tmp_path / "sticks.json"
    path.write_text(json.dumps({"sticks": STICKS}))
    return path


def closed_openai_env() -> dict:
    """`--model openai/x` calling a closed port through OPENAI_BASE_URL, with two attempts a call."""
    return {**os.environ, "OPENAI_BASE_URL": CLOSED, "OPENAI_API_KEY": "sk-outage-test", "MINDPY_MODEL_ATTEMPTS": "2"}


def test_mindpy_run_exits_with_one_line_naming_the_url_called(server, sticks_file, tmp_path):
    proc = subprocess.run([str(MINDPY), "run", "--task", str(sticks_file), "--task-id", "sticks", "--model", "openai/x",
                           "--server", f"{server.host}:{server.port}", "--run-dir", str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=180, env=closed_openai_env())
    out = proc.stdout + proc.stderr
    assert proc.returncode == 3, out
    errors = [line for line in out.splitlines() if line.startswith("infrastructure error (not scored):")]
    assert len(errors) == 1 and f"{CLOSED} is unreachable" in errors[0], out
    assert "api.openai.com" not in out and "score:" not in out and "Traceback" not in out, out


def test_mindpy_eval_retries_an_unreachable_model_and_counts_it_as_an_error(server, sticks_file, tmp_path):
    out_dir = tmp_path / "eval"
    proc = subprocess.run([str(MINDPY), "eval", str(sticks_file), "--model", "openai/x", "--out", str(out_dir),
                           "--servers", f"{server.host}:{server.port}"],
                          capture_output=True, text=True, timeout=300, env=closed_openai_env())
    assert proc.returncode == 1, proc.stdout + proc.stderr
    [row] = list(csv.DictReader((out_dir / "results.csv").open()))
    assert row["end_reason"] == "error" and row["attempts"] == "2" and CLOSED in row["error"], row
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["errors"] == 1 and summary["played"] == 0, summary


def told_unreachable(agent) -> list[str]:
    """What the agent said in chat about its model being unreachable."""
    return [text for _, kind, text in agent.events if kind == "said" and "unreachable" in text]


def model_errors(agent) -> int:
    return sum(kind == "model error" for _, kind, _ in agent.events)


def test_a_player_hears_once_that_the_model_is_down_and_gets_answers_once_it_is_back(make_bot, tmp_path):
    with RecordingServer() as gone:
        port = int(gone.url.rsplit(":", 1)[1])  # a port of our own, closed from here on
    url = f"http://127.0.0.1:{port}/v1"
    agent = start_agent_with_model(make_bot, tmp_path, create_model({**spec(url), "attempts": 2}), prefix="outage")
    player = make_bot("player")
    heard = listen(player)

    def lines_from_agent() -> list[str]:
        return [message for username, message in heard if username == agent.name]

    try:
        player.chat("hello, can you help me?")
        wait_until(lambda: any(url in line for line in lines_from_agent()), timeout=30,
                   message=lambda: f"the player to hear that {url} is unreachable (heard {heard})")
        [told] = told_unreachable(agent)
        assert url in told and "\n" not in told

        player.chat("are you there?")  # the same outage: not told again
        wait_until(lambda: model_errors(agent) >= 2 and agent.is_idle(), timeout=30,
                   message="the agent to try its model again")
        assert len(told_unreachable(agent)) == 1, agent.events

        with RecordingServer([(200, openai_reply("I am back. What do you need?"))], port=port) as endpoint:
            player.chat("and now?")
            wait_until(lambda: "I am back. What do you need?" in lines_from_agent(), timeout=30,
                       message=lambda: f"a real answer once the model is back (heard {heard})")
        assert endpoint.requests

        player.chat("one more thing")  # a new outage is told again
        wait_until(lambda: len(told_unreachable(agent)) == 2, timeout=30, message="the new outage to be told")
    finally:
        agent.close()
