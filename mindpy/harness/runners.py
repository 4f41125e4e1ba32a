"""Where the episodes of `mindpy eval` are played: the Evaluation keeps the books (resuming, retries, rows, the
summary) and hands each episode to a runner, which plays it as a child `mindpy run --task` process.

    LocalRunner()                  a child process on this machine (`--parallel N` of them at once)
    RayRunner("auto")              a Ray task on whichever node of a cluster has room (mindpy.harness.ray_runner)

Whichever runner plays it, the episode's run directory ends up at the same place in the output folder.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

PROCESS_LOG = "process.log"  # the child's own output, in its run directory
STOP_GRACE_S = 20  # a stopped episode has this long to stop its server and bots before it is killed


@dataclass(frozen=True)
class EpisodeJob:
    """One episode to play: its task file, task id, run directory, and the other arguments of `mindpy run --task`
    (server, seed, model, rounds, budget...)."""
    task_file: Path
    task_id: str
    run_dir: Path
    options: tuple[str, ...] = ()

    def command(self, task_file: Path | None = None, run_dir: Path | None = None) -> list[str]:
        """The child's command line; a runner that plays the episode on another machine gives the paths there."""
        return [sys.executable, "-m", "mindpy.cli", "run", "--task", str(task_file or self.task_file),
                "--task-id", self.task_id, "--run-dir", str(run_dir or self.run_dir), *self.options]


class EpisodeRunner(Protocol):
    """Plays episodes for an Evaluation; called from several threads at once."""

    where: str  # for the progress line: "" (this machine) or " on the Ray cluster at ..."

    def slots(self) -> int:
        """How many episodes it plays at once when the user did not say (--parallel)."""
        ...

    def play(self, job: EpisodeJob, report: Callable[[str], None] | None = None) -> tuple[int, str]:
        """Play the episode into `job.run_dir` (which exists and is empty); the child's exit code and the last
        line of its output (the cause, when it failed). An episode that could not be played leaves no
        result.json there, and the Evaluation retries it. `report(line)` is the Evaluation's progress output, for
        a wait the user should hear of."""
        ...

    def stop(self) -> None:
        """Stop the episodes under way (Ctrl-C): each stops its own server and bots."""
        ...


class LocalRunner:
    """Plays each episode as a child process on this machine."""

    where = ""

    def __init__(self) -> None:
        self._children: set[subprocess.Popen] = set()
        self._lock = threading.Lock()

    def slots(self) -> int:
        return 1

    def play(self, job: EpisodeJob, report: Callable[[str], None] | None = None) -> tuple[int, str]:
        return play_in_child(job.command(), job.run_dir, on_start=self._track, on_end=self._untrack)

    def stop(self) -> None:
        with self._lock:
            children = list(self._children)
        for proc in children:
            proc.terminate()
        for proc in children:
            _wait_or_kill(proc)

    def _track(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._children.add(proc)

    def _untrack(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._children.discard(proc)


def play_in_child(command: list[str], run_dir: Path, env: Mapping[str, str] | None = None,
                  on_start: Callable[[subprocess.Popen], None] | None = None,
                  on_end: Callable[[subprocess.Popen], None] | None = None,
                  preexec_fn: Callable[[], None] | None = None) -> tuple[int, str]:
    """Run one episode's command with its output in run_dir/process.log; its exit code and last line. Interrupted
    while waiting (Ctrl-C), it stops the child first, so that no episode outlives its runner."""
    import os

    child_env = dict(os.environ if env is None else env)
    child_env.setdefault("PYTHONUNBUFFERED", "1")
    log_path = run_dir / PROCESS_LOG
    with log_path.open("w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=child_env, preexec_fn=preexec_fn)
        if on_start:
            on_start(proc)
        try:
            proc.wait()
        except BaseException:
            proc.terminate()
            _wait_or_kill(proc)
            raise
        finally:
            if on_end:
                on_end(proc)
    tail = log_path.read_text(errors="replace").strip().splitlines()[-1:] or [""]
    return proc.returncode, tail[0]


def _wait_or_kill(proc: subprocess.Popen) -> None:
    try:
        proc.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
