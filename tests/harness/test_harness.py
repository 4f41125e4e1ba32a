"""The task harness end to end: `mindpy run --task`, `mindpy eval` (parallel, killed and resumed) and
`mindpy sft export`, as real processes with their own embedded servers. The model is a replay script that
crafts planks whatever happens, which solves some of these tasks and not others."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import wait_until

pytestmark = pytest.mark.slow  # whole episodes or CLI runs: left out of `make test-fast`

MINDPY = Path(sys.executable).with_name("mindpy")

TASKS = {
    "planks_two": {"type": "techtree", "goal": "Craft oak_planks.", "conversation": "Let's craft planks.",
                   "agent_count": 2, "initial_inventory": {"0": {"oak_log": 1}, "1": {}}, "target": "oak_planks",
                   "number_of_target": 4, "timeout": 60},
    "planks_shared": {"type": "techtree", "goal": "Craft oak_planks.", "agent_count": 2,
                      "initial_inventory": {"0": {"oak_log": 2}, "1": {"oak_log": 1}}, "target": "oak_planks",
                      "number_of_target": 8, "timeout": 60},
    "planks_alone": {"type": "techtree", "goal": "Craft oak_planks.", "agent_count": 1,
                     "initial_inventory": {"0": {"oak_log": 1}}, "target": "oak_planks", "number_of_target": 4,
                     "timeout": 60},
    "too_many_planks": {"type": "techtree", "goal": "Craft 40 oak_planks.", "agent_count": 1,
                        "initial_inventory": {"0": {"oak_log": 1}}, "target": "oak_planks", "number_of_target": 40,
                        "timeout": 10},
}
SOLVED = {"planks_two", "planks_shared", "planks_alone"}
# A task mindpy cannot play, next to the others in the file: it is skipped, and it never blocks them.
UNPLAYABLE = {"stand_still": {"type": "debug", "goal": "Stand still.", "agent_count": 1}}


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    folder = tmp_path_factory.mktemp("suite")
    (folder / "tasks.json").write_text(json.dumps({**TASKS, **UNPLAYABLE}))
    (folder / "replies.yaml").write_text("default: 'Crafting. !craftRecipe(\"oak_planks\", 1)'\n")
    return folder


def mindpy(*args, **kwargs):
    return subprocess.Popen([str(MINDPY), *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, **kwargs)


def test_run_task_prints_the_score_and_writes_the_run(suite, tmp_path):  # the file's bad task does not matter
    run_dir = tmp_path / "one"
    proc = mindpy("run", "--task", str(suite / "tasks.json"), "--task-id", "planks_two",
                  "--model", f"replay:{suite / 'replies.yaml'}", "--run-dir", str(run_dir))
    out, _ = proc.communicate(timeout=180)
    assert proc.returncode == 0, out
    assert out.strip().splitlines()[-1] == "score: 1.0"
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "success" and result["agents"]["andy"]["commands"]["!craftRecipe"] >= 1
    calls = [json.loads(line) for line in (run_dir / "calls" / "andy.jsonl").read_text().splitlines()]
    assert calls and calls[0]["reply"].startswith("Crafting.")
    assert "Your task: Craft oak_planks. The other agents are: jill." in calls[0]["system"]
    state = json.loads((run_dir / "bots" / "andy" / "state.json").read_text())
    assert any(t["content"] == "Task ended with score : 1" for t in state["turns"])
    assert (run_dir / "server" / "server.log").exists()


def test_an_unreachable_server_is_an_infrastructure_error_not_a_score(suite, tmp_path):
    proc = mindpy("run", "--task", str(suite / "tasks.json"), "--task-id", "planks_alone",
                  "--model", f"replay:{suite / 'replies.yaml'}", "--run-dir", str(tmp_path / "x"),
                  "--server", "127.0.0.1:9")
    out, _ = proc.communicate(timeout=120)
    assert proc.returncode == 3, out
    assert "infrastructure error (not scored)" in out
    assert "score:" not in out


@pytest.mark.parametrize("spec, said", [("human:steve", "gives the orders of an orders task"),
                                        ("human:", "name the player who gives the orders")])
def test_a_person_dispatching_is_refused_outside_orders_tasks(suite, spec, said):
    proc = mindpy("run", "--task", str(suite / "tasks.json"), "--task-id", "planks_two", "--model", spec)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 2 and said in out and "Traceback" not in out, out


def _cmdline(proc_dir: Path) -> str:
    try:
        return (proc_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_eval_in_parallel_resumes_after_a_kill_and_exports_sft(suite, tmp_path):
    out_dir = tmp_path / "eval"
    args = ["eval", str(suite / "tasks.json"), "--parallel", "2", "--out", str(out_dir),
            "--model", f"replay:{suite / 'replies.yaml'}"]
    first = mindpy(*args)
    episodes = out_dir / "episodes"  # episodes/<file>-<hash>/<task id>-<n>_agents-trial_<k>/
    wait_until(lambda: len(list(episodes.glob("*/*/result.json"))) >= 2, timeout=240, interval=0.5,
               message="two finished episodes")
    os.kill(first.pid, signal.SIGTERM)  # the eval alone: it must stop the episodes it started
    first.wait(timeout=60)
    assert first.returncode == 130
    left = [p for p in Path("/proc").glob("[0-9]*") if str(out_dir) in _cmdline(p)]
    assert not left, "episode processes outlived the eval"
    finished = {p: p.stat().st_mtime_ns for p in episodes.glob("*/*/result.json")}
    assert 2 <= len(finished) < 4

    second = mindpy(*args)
    out, _ = second.communicate(timeout=400)
    assert second.returncode == 0, out
    assert f"{len(finished)} already done, {4 - len(finished)} to play" in out
    assert "skipped (invalid): " in out and "task 'stand_still': field 'type'" in out
    for path, mtime in finished.items():  # not played again
        assert path.stat().st_mtime_ns == mtime

    with (out_dir / "results.csv").open() as f:
        rows = {r["task_id"]: r for r in csv.DictReader(f)}
    assert set(rows) == set(TASKS)
    assert {t for t, r in rows.items() if r["success"] == "True"} == SOLVED
    assert rows["too_many_planks"]["end_reason"] == "timeout"
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["episodes"] == 4 and summary["errors"] == 0
    assert summary["skipped"] == {"invalid": 1}
    assert [(t["task_id"], t["reason"]) for t in summary["skipped_tasks"]] == [("stand_still", "invalid")]
    assert summary["by_family_and_agents"]["crafting/1_agents"]["success_rate"] == 0.5
    assert summary["by_family_and_agents"]["crafting/2_agents"]["success_rate"] == 1.0
    assert (out_dir / "summary.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    sft_file = tmp_path / "sft.jsonl"
    export = mindpy("sft", "export", str(out_dir), "--out", str(sft_file))
    text, _ = export.communicate(timeout=120)
    assert export.returncode == 0, text
    lines = [json.loads(line) for line in sft_file.read_text().splitlines()]
    assert lines
    for example in lines:  # every line is a successful episode's model call, in chat format
        assert example["metadata"]["task_id"] in SOLVED
        roles = [m["role"] for m in example["messages"]]
        assert roles[0] == "system" and roles[-1] == "assistant"
        assert set(roles) <= {"system", "user", "assistant"}
    assert not any(e["metadata"]["task_id"] == "too_many_planks" for e in lines)
    solved_dirs = [Path(rows[t]["run_dir"]) for t in SOLVED]
    calls = [json.loads(line) for run_dir in solved_dirs for a in ("andy", "jill")
             if (run_dir / "calls" / f"{a}.jsonl").exists()
             for line in (run_dir / "calls" / f"{a}.jsonl").read_text().splitlines()]
    expected = sum(1 for c in calls if c["kind"] in ("conversing", "coding"))  # the default kinds
    assert len(lines) == expected
    assert "total" in text and str(len(lines)) in text


def test_eval_plays_and_reports_every_file_that_reuses_a_task_id(suite, tmp_path):
    """Two files of one name in different folders hold the same task id (the same task, so only the file tells the
    episodes apart), one of them next to a task mindpy cannot play. Given the folder, eval plays both episodes,
    reports both, skips the bad task, and a rerun finds both done."""
    folder = tmp_path / "tasks"
    (folder / "more").mkdir(parents=True)
    (folder / "first.json").write_text(json.dumps({"planks": TASKS["planks_alone"]}))
    (folder / "more" / "first.json").write_text(json.dumps({"planks": TASKS["planks_alone"], **UNPLAYABLE}))
    out_dir = tmp_path / "eval"
    args = ["eval", str(folder), "--parallel", "2", "--out", str(out_dir), "--model",
            f"replay:{suite / 'replies.yaml'}"]
    proc = mindpy(*args)
    out, _ = proc.communicate(timeout=400)
    assert proc.returncode == 0, out
    assert "[1/2]" in out and "[2/2]" in out and "[3/" not in out
    assert sum("skipped (invalid): " in line for line in out.splitlines()) == 1

    with (out_dir / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert sorted(r["file"] for r in rows) == [str(folder / "first.json"), str(folder / "more" / "first.json")]
    assert [r["task_id"] for r in rows] == ["planks", "planks"]
    assert all(r["success"] == "True" and r["trial"] == "1" and r["agent_count"] == "1" for r in rows), rows
    run_dirs = {Path(r["run_dir"]) for r in rows}
    assert len(run_dirs) == 2 and all((d / "result.json").exists() for d in run_dirs)
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["episodes"] == 2 and summary["played"] == 2 and summary["success_rate"] == 1.0
    assert summary["skipped"] == {"invalid": 1}
    skipped = summary["skipped_tasks"][0]
    assert skipped["file"] == str(folder / "more" / "first.json") and skipped["task_id"] == "stand_still"
    assert skipped["problems"] and "field 'type' must be one of" in skipped["problems"][0]

    again = mindpy(*args)
    out, _ = again.communicate(timeout=120)
    assert again.returncode == 0, out
    assert "2 episodes: 2 already done, 0 to play" in out
    with (out_dir / "results.csv").open() as f:
        assert len(list(csv.DictReader(f))) == 2


def _processes_mentioning(text: str) -> list[int]:
    return [int(p.name) for p in Path("/proc").glob("[0-9]*") if text in _cmdline(p)]


def test_a_server_killed_mid_episode_is_an_error_with_its_cause(suite, tmp_path):
    """The embedded server dies while the agents play: result.json says why, and so does the exit message."""
    tasks = tmp_path / "long.json"
    tasks.write_text(json.dumps({"long_planks": {**TASKS["too_many_planks"], "timeout": 300}}))
    run_dir = tmp_path / "killed"
    proc = mindpy("run", "--task", str(tasks), "--task-id", "long_planks", "--model",
                  f"replay:{suite / 'replies.yaml'}", "--run-dir", str(run_dir))
    lines: list[str] = []
    playing = threading.Event()  # set when the play starts, or when the output ends without it

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if "world set up; playing" in line:
                playing.set()
        playing.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        wait_until(playing.is_set, timeout=180, interval=0.2, message="the episode to start or its output to end")
        assert any("world set up; playing" in line for line in lines), f"the episode did not start: {lines[-20:]}"
        servers = _processes_mentioning(str(run_dir / "server"))
        assert len(servers) == 1, servers
        os.kill(servers[0], signal.SIGKILL)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    reader.join(timeout=10)
    out = "".join(lines)
    assert proc.returncode == 3, out
    result = json.loads((run_dir / "result.json").read_text())
    assert result["end_reason"] == "error"
    assert result["error"] and ("embedded server stopped" in result["error"] or "lost the connection" in
                                result["error"]), result
    assert f"infrastructure error (not scored): {result['error']}" in out
    assert "Traceback" not in out and "score:" not in out
