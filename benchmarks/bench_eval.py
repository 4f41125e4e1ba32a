"""Evaluation throughput and the oracle's efficiency, on the crafting test split.

    python benchmarks/bench_eval.py [--limit 8] [--parallel 1,2,4] [--model oracle]

For each parallelism: the same first LIMIT tasks of tasks/crafting_test.json through `mindpy eval`, wall time, and
episodes per hour. Then, for the played episodes: commands the agents used against the fewest possible actions
(the crafting steps of the plan from all agents' starting inventories, plus one gathering action per missing
base item, plus one hand-over per item an agent must give). Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import csv
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--parallel", default="1,2,4")
    parser.add_argument("--model", default=None)
    args = parser.parse_args()

    from mindpy.harness.evaluate import Evaluation
    from mindpy.tasks.loader import load_tasks

    tasks = load_tasks(SPLIT)
    print(f"crafting test split: first {args.limit} of {len(tasks)} tasks, model {args.model or 'default (oracle)'}")
    print(f"{'parallel':>8} {'wall s':>8} {'episodes/h':>11} {'success':>8} {'errors':>7}")
    rows_for_efficiency: list[dict] = []
    for parallel in [int(p) for p in args.parallel.split(",")]:
        out = Path(tempfile.mkdtemp(prefix=f"bench_eval_p{parallel}_"))
        started = time.monotonic()
        summary = Evaluation([str(SPLIT)], out=out, model=args.model, parallel=parallel, limit=args.limit,
                             progress=lambda text: None).run()
        wall = time.monotonic() - started
        print(f"{parallel:>8} {wall:>8.0f} {summary['episodes'] / wall * 3600:>11.1f} "
              f"{summary['success_rate']:>8.0%} {summary['errors']:>7}", flush=True)
        with (out / "results.csv").open() as f:
            rows = list(csv.DictReader(f))
        if not rows_for_efficiency:
            rows_for_efficiency = rows
        shutil.rmtree(out, ignore_errors=True)

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
