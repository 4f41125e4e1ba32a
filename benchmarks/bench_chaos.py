"""Chaos episodes: play task episodes of every family with the careless `chaos` model and print how each ended
(success, timeout, failure; or an abnormal end: an infrastructure error, a hang, a traceback, a crash).

    python benchmarks/bench_chaos.py --episodes 200 --parallel 2 --timeout 40
"""

from __future__ import annotations

import argparse
import collections
import tempfile
import time
from pathlib import Path

from mindpy.harness.chaos import FAMILY_TASKS, finish_episode, start_episode

REPO = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=12)
    parser.add_argument("--parallel", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=40.0, help="each task's time limit, seconds")
    args = parser.parse_args()
    families = list(FAMILY_TASKS)
    plan = [(families[i % len(families)], i) for i in range(args.episodes)]
    endings = []
    with tempfile.TemporaryDirectory(prefix="mindpy-chaos-") as tmp:
        folder = Path(tmp)
        running: list = []
        while plan or running:
            while plan and len(running) < args.parallel:
                family, seed = plan.pop(0)
                running.append((start_episode(REPO, family, seed, folder, args.timeout), family, seed,
                                time.monotonic()))
            proc, family, seed, started = running.pop(0)
            ending = finish_episode(proc, family, seed, folder, args.timeout + 180, started)
            endings.append(ending)
            print(f"{len(endings):4d}/{args.episodes} {family:12s} seed {seed:4d}: {ending.end_reason:10s} "
                  f"exit {ending.exit_code} traceback {ending.traceback} hung {ending.hung} {ending.seconds} s",
                  flush=True)
            if ending.tail:
                print("      " + ending.tail.replace("\n", "\n      "), flush=True)
    by_end = collections.Counter((e.family, e.end_reason) for e in endings)
    print("\nfamily        end           episodes")
    for (family, end), n in sorted(by_end.items()):
        print(f"{family:12s}  {end:12s}  {n}")
    abnormal = [e for e in endings if not e.normal]
    print(f"\nnormal ends: {len(endings) - len(abnormal)}/{len(endings)}; hangs: {sum(e.hung for e in endings)}; "
          f"tracebacks: {sum(e.traceback for e in endings)}; abnormal: {len(abnormal)}")


if __name__ == "__main__":
    main()
