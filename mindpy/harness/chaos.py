"""Play task episodes with the careless `chaos` model and report how each one ended: the check that nothing a
model sends can kill the bridge, hang an episode or raise a traceback. Used by `benchmarks/bench_chaos.py` and
the tests."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..tasks.records import EpisodeResult

# Task families and a task of each from the committed splits, played with a short time limit.
FAMILY_TASKS = {
    "crafting": ("tasks/crafting_test.json",
                 "multiagent_crafting_wooden_sword_full_plan_missing_items_requires_ctable__depth_1__2_agents"),
    "cooking": ("tasks/cooking_test.json", "multiagent_cooking_2_agents_cake"),
    "construction": ("tasks/construction_test.json", "materials_1_rooms_1_window_0_carpet_0_variant_0"),
}
NORMAL_ENDS = {"success", "timeout", "failure", "score", "budget"}  # "budget": the run's money ran out, not a fault


@dataclass
class ChaosEnding:
    """How one chaos episode ended, and whether that is a normal end."""

    family: str
    seed: int
    end_reason: str
    exit_code: int | None
    traceback: bool
    hung: bool
    seconds: float
    tail: str = ""  # the episode's last output lines, kept when it did not end normally

    @property
    def normal(self) -> bool:
        return self.end_reason in NORMAL_ENDS and self.exit_code == 0 and not self.traceback and not self.hung


def short_task_file(repo: Path, family: str, folder: Path, timeout_s: float) -> tuple[Path, str]:
    """A task file holding the family's task with a short time limit; returns it and the task id."""
    source, task_id = FAMILY_TASKS[family]
    task = json.loads((repo / source).read_text())[task_id]
    task = {**task, "timeout": timeout_s}
    path = folder / f"{family}.json"
    path.write_text(json.dumps({task_id: task}))
    return path, task_id


def start_episode(repo: Path, family: str, seed: int, folder: Path, timeout_s: float) -> subprocess.Popen:
    """Start `mindpy run` for one chaos episode (its own process, embedded server and bridge)."""
    task_file, task_id = short_task_file(repo, family, folder, timeout_s)
    run_dir = folder / f"{family}-{seed}"
    mindpy = Path(sys.executable).with_name("mindpy")
    return subprocess.Popen([str(mindpy), "run", "--task", str(task_file), "--task-id", task_id,
                             "--model", f"chaos:{seed}", "--seed", str(seed), "--run-dir", str(run_dir)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def finish_episode(proc: subprocess.Popen, family: str, seed: int, folder: Path, limit_s: float,
                   started: float) -> ChaosEnding:
    """Wait for an episode (killing it past `limit_s`: a hang) and read how it ended."""
    hung = False
    try:
        out, _ = proc.communicate(timeout=max(1.0, limit_s - (time.monotonic() - started)))
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        hung = True
    run_dir = folder / f"{family}-{seed}"
    result_path = run_dir / "result.json"
    end = (EpisodeResult.read(result_path).end_reason or "?") if result_path.exists() else "no result"
    console = run_dir / "console.log"
    logs = out + (console.read_text(errors="replace") if console.exists() else "")
    ending = ChaosEnding(family, seed, end, proc.returncode, "Traceback (most recent call last)" in logs, hung,
                         round(time.monotonic() - started, 1))
    if not ending.normal:
        ending.tail = "\n".join(out.splitlines()[-25:])
    return ending
