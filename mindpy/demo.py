"""`mindpy demo`: two oracle players play a MineCollab crafting task on the embedded server, and the score is
printed. No API key, no Java, no LLM: the oracle provider plays through the same interface as a model would.
"""

from __future__ import annotations

import time
from pathlib import Path

from .errors import MindpyError

DEMO_TASKS = Path(__file__).resolve().parent.parent / "tasks" / "example_tasks.json"
DEMO_TASK_ID = "example_crafting_wooden_pickaxe"


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def run_demo(server: str = "embedded", run_dir: str = "runs/demo", model: str | None = None,
             task_file: str | Path = DEMO_TASKS, task_id: str = DEMO_TASK_ID, mc_version: str | None = None) -> int:
    """Play the demo task live and print its score; returns the exit code (0 when the task succeeded).
    `mc_version`: the Minecraft version (or "auto"; None: the minecraft_version setting)."""
    from .harness.episode import run_episode
    from .harness.options import resolved_mc_version
    from .harness.session import EpisodeInfraError, refuse_unplayable
    from .nodejs import check_node_side
    from .tasks.describe import describe_task
    from .tasks.loader import load_task

    check_node_side()  # a missing set-up is the user's to fix (exit 2 with the fix), not an episode failure
    version = resolved_mc_version(mc_version, server)  # an unsupported one: a one-line error, exit 2
    task = load_task(task_file, task_id, version=version)
    refuse_unplayable(task, task_file)  # a task that cannot be played: a one-line error, exit 2
    _say("The demo task:")
    print(describe_task(task), flush=True)
    started = time.monotonic()
    try:
        result = run_episode(task, Path(run_dir), model=model, server=server, progress=_say, echo=True,
                             settings_overrides={"minecraft_version": version})
    except (EpisodeInfraError, MindpyError) as exc:
        _say(f"FAILED (infrastructure, not scored): {exc}")
        return 1
    _say(f"demo finished in {time.monotonic() - started:.0f} s; run directory: {run_dir}")
    print(f"score: {result['score']}", flush=True)
    return 0 if result["score"] >= 1.0 else 1
