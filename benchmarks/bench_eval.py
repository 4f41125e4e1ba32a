"""Evaluation throughput and the oracle's efficiency, on the crafting test split.

    python benchmarks/bench_eval.py [--limit 8] [--parallel 1,2,4] [--model oracle] [--ray]

For each parallelism: the same first LIMIT tasks of tasks/crafting_test.json through `mindpy eval`, wall time, and
episodes per hour; with --ray, also through a Ray cluster on this machine with that many CPUs (as `mindpy eval
--ray` plays them: each episode a Ray task, its run directory sent back as an archive), and the ratio of Ray's
episodes per hour to the local runner's (the cluster's start is timed apart, not counted). Then, for the played
episodes: commands the agents used against the fewest possible actions (the crafting steps of the plan from all
agents' starting inventories, plus one gathering action per missing base item, plus one hand-over per item an
agent must give). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPLIT = ROOT / "tasks" / "crafting_test.json"


def fewest_actions(task) -> int:
    """A lower bound on the actions a perfect team needs: crafting steps, gathering, and giving."""
    from mindpy.recipes import recipe_book

    pooled: dict[str, int] = {}
    for i in range(task.agent_count):
        for item, n in task.inventory_for(i).items():
            pooled[item] = pooled.get(item, 0) + n
    target, count = next(iter(task.targets().items()))
    plan = recipe_book("1.21.1").plan(target, count, pooled, table_available=False)
    crafts = len(plan.steps)
    gathering = len(task.missing_items)
    holders = sum(1 for i in range(1, task.agent_count) if task.inventory_for(i))  # others hand their items over
    return crafts + gathering + holders


def play(runner_name: str, parallel: int, args) -> tuple[float, list[dict]]:
    """One evaluation of the first LIMIT tasks, `parallel` at a time, locally or through a Ray cluster of
    `parallel` CPUs started for it; prints its line, returns episodes per hour and the rows."""
    from mindpy.harness.evaluate import Evaluation

    runner = None
    if runner_name == "ray":
        import ray

        from mindpy.harness.ray_runner import RayRunner

        # a private cluster for the measurement: token authentication off, or ray.init would save a token in
        # ~/.ray, which every `ray start` on this machine would then demand
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        started = time.monotonic()
        ray.init(num_cpus=parallel, include_dashboard=False, object_store_memory=200_000_000, log_to_driver=False,
                 logging_level="WARNING")
        print(f"{'':>8} (Ray cluster of {parallel} CPUs started in {time.monotonic() - started:.1f} s)", flush=True)
        runner = RayRunner(None)
    out = Path(tempfile.mkdtemp(prefix=f"bench_eval_{runner_name}_p{parallel}_"))
    try:
        started = time.monotonic()
        summary = Evaluation([str(SPLIT)], out=out, model=args.model, parallel=parallel, limit=args.limit,
                             progress=lambda text: None, runner=runner).run()
        wall = time.monotonic() - started
        per_hour = summary["episodes"] / wall * 3600
        print(f"{runner_name:>8} {parallel:>8} {wall:>8.0f} {per_hour:>11.1f} {summary['success_rate']:>8.0%} "
              f"{summary['errors']:>7}", flush=True)
        with (out / "results.csv").open() as f:
            return per_hour, list(csv.DictReader(f))
    finally:
        if runner is not None:
            runner.close()
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--parallel", default="1,2,4")
    parser.add_argument("--model", default=None)
    parser.add_argument("--ray", action="store_true", help="also through a local Ray cluster (the ray extra)")
    args = parser.parse_args()

    from mindpy.tasks.loader import load_tasks

    tasks = load_tasks(SPLIT)
    print(f"crafting test split: first {args.limit} of {len(tasks)} tasks, model {args.model or 'default (oracle)'}")
    print(f"{'runner':>8} {'parallel':>8} {'wall s':>8} {'episodes/h':>11} {'success':>8} {'errors':>7}")
    rows_for_efficiency: list[dict] = []
    for parallel in [int(p) for p in args.parallel.split(",")]:
        local, rows = play("local", parallel, args)
        if not rows_for_efficiency:
            rows_for_efficiency = rows
        if args.ray:
            on_ray, _ = play("ray", parallel, args)
            print(f"{'':>8} Ray / local episodes per hour at {parallel} at a time: {on_ray / local:.2f}", flush=True)

    ratios = []
    print(f"\n{'task':<70} {'commands':>8} {'fewest':>6} {'ratio':>6}")
    for row in rows_for_efficiency:
        if row["end_reason"] == "error":
            continue
        task = tasks[row["task_id"]]
        low = fewest_actions(task)
        used = int(row["commands"])
        ratios.append(used / max(1, low))
        print(f"{row['task_id'][:70]:<70} {used:>8} {low:>6} {used / max(1, low):>6.2f}")
    if ratios:
        print(f"\ncommands per task / fewest possible: median {statistics.median(ratios):.2f}, "
              f"mean {statistics.mean(ratios):.2f} over {len(ratios)} episodes")


if __name__ == "__main__":
    main()
