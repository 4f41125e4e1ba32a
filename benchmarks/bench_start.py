"""Start-up of an episode, phase by phase: server started, bots joined, world set up, first command (the team's
opening !startConversation), first model call (its prompt holds the chosen examples), embedding ready.

Two starts, each in a fresh process of its own (so each loads what it needs from scratch and its memory is its own):
  demo      `mindpy demo`'s start: the embedded server, two oracle agents on the demo task (no embedding model)
  examples  the same with agents whose replay model reads examples (the embedding model loads in the background)
Each episode is cut at --timeout seconds of play: only the start is measured. Times are seconds from the call to
run_episode. Goal: the first command within 5 s of the bots joining. Prints numbers; asserts nothing.
    .venv/bin/python benchmarks/bench_start.py [--only demo|examples] [--timeout 15] [--cold-cache]
--cold-cache starts with an empty embedding cache (the first run on a machine: the ONNX file and the examples'
vectors are made during the start); by default the project's .cache/ is used, as `make demo` does.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY_MODULES = ("torch", "sentence_transformers", "onnxruntime")


class Phases:
    """The first time each phase was reached, in seconds from `t0`."""

    def __init__(self):
        self.t0 = time.monotonic()
        self.at: dict[str, float] = {}

    def mark(self, name: str, when: float | None = None) -> None:
        self.at.setdefault(name, (time.monotonic() if when is None else when) - self.t0)


def instrument(phases: Phases) -> None:
    """Mark 'bots joined' when create_bots returns and 'first command' on any agent's first command. Patches the
    runner's own names: the benchmark observes the real start, it does not change it."""
    import mindpy.agent.runner as runner

    create_bots, build_agent = runner.create_bots, runner.build_agent

    def timed_create_bots(*args, **kwargs):
        bots = create_bots(*args, **kwargs)
        phases.mark("bots joined")
        return bots

    def timed_build_agent(*args, on_event=(), **kwargs):
        def hook(kind: str, text: str) -> None:
            if kind == "command":
                phases.mark("first command")

        agent = build_agent(*args, on_event=[*on_event, hook], **kwargs)
        phases.mark("agents built")
        return agent

    runner.create_bots = timed_create_bots
    runner.build_agent = timed_build_agent


class _FallbackCounter(logging.Handler):
    """Counts the log lines that say a query was ranked by word overlap because the model was not loaded yet."""

    def __init__(self):
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "word overlap" in record.getMessage():
            self.count += 1


def run_one(kind: str, timeout: float, cold_cache: bool) -> None:
    from mindpy.agent import factory
    from mindpy.demo import DEMO_TASK_ID, DEMO_TASKS
    from mindpy.harness.episode import run_episode
    from mindpy.harness.session import agent_names
    from mindpy.models.replay import ReplayModel
    from mindpy.oracle.provider import OracleModel
    from mindpy.tasks.loader import load_task

    phases = Phases()
    instrument(phases)
    task = load_task(DEMO_TASKS, DEMO_TASK_ID)
    task = dataclasses.replace(task, timeout=timeout)
    names = agent_names(task)
    if kind == "demo":
        models = {n: OracleModel() for n in names}
    else:  # a model that reads examples: it only looks around, which is all the start needs
        models = {n: ReplayModel(["Looking around. !inventory"], default="Still here. !stats") for n in names}
    for model in models.values():  # the first prompt is built (examples chosen) just before the first call
        complete = model._complete

        def timed_complete(messages, system, complete=complete):
            phases.mark("first model call")
            return complete(messages, system)

        model._complete = timed_complete  # type: ignore[method-assign]
    fallbacks = _FallbackCounter()
    logging.getLogger("mindpy.rag").addHandler(fallbacks)
    logging.getLogger("mindpy.rag").setLevel(logging.INFO)

    def progress(text: str) -> None:
        if "joining" in text:
            phases.mark("server started")
        elif "world set up" in text:
            phases.mark("world set up")

    with tempfile.TemporaryDirectory() as run_dir:
        cache_dir = Path(run_dir) / "cache" if cold_cache else ROOT / ".cache"
        result = run_episode(task, Path(run_dir) / "run", models=models, progress=progress,
                             settings_overrides={"cache_dir": str(cache_dir)})
    background = hasattr(factory, "embedding_load")  # a tree from before the background load has none
    loading = factory.embedding_load() if background else None
    if loading is not None and loading.ready_at is not None:
        phases.mark("embedding ready", loading.ready_at)
    label = f"{kind} (cold cache)" if cold_cache else kind
    print(f"{label}: {len(names)} agents, ended by {result['end_reason']} (score {result['score']})")
    for name, t in sorted(phases.at.items(), key=lambda item: item[1]):
        print(f"  {name:<18} {t:7.2f} s")
    joined, first = phases.at.get("bots joined"), phases.at.get("first command")
    if joined is not None and first is not None:
        print(f"  bots joined -> first command {first - joined:6.2f} s   goal < 5 s")
    if loading is not None:
        print(f"  embedding model: {loading.backend or 'not loaded'}, loaded in {loading.load_seconds or 0:.2f} s "
              f"(started {loading.started_at - phases.t0:.2f} s); queries ranked by word overlap while it loaded: "
              f"{fallbacks.count}")
    elif background:
        print("  embedding model: never loaded")
    else:
        print("  embedding model: loaded while the agents were built (no background load in this tree)")
    loaded = [m for m in HEAVY_MODULES if m in sys.modules]
    print(f"  heavy modules imported: {', '.join(loaded) or 'none'}; peak memory of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=["demo", "examples"], help="run one start in this process")
    ap.add_argument("--timeout", type=float, default=15.0, help="seconds of play before the episode is cut")
    ap.add_argument("--cold-cache", action="store_true", help="start with an empty embedding cache")
    args = ap.parse_args()
    if args.only:
        run_one(args.only, args.timeout, args.cold_cache)
        return
    cold = ["--cold-cache"] if args.cold_cache else []
    for kind in ("demo", "examples"):
        subprocess.run([sys.executable, __file__, "--only", kind, "--timeout", str(args.timeout), *cold], check=False)


if __name__ == "__main__":
    main()
