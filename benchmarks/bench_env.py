"""mindpy.env's speed: steps a second with 1 and with 4 agents, and what a step costs over running the same command
directly (Agent.act_on_reply on the caller's thread, no observation, no check).

    python benchmarks/bench_env.py --steps 50

One embedded server for everything; the tasks are crafting tasks of this script's own (each agent holds oak logs,
the target is never reached), so the episodes last for every step. Commands: `!inventory` (a query) and
`!equip("oak_log")` (an action, through the action manager). "until done": a step lasts until the command ended;
"1 tick": a step lasts one game tick (on the embedded server's clock, which it reports every 5 ticks).
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from mindpy.env.gym_env import MindpyEnv
from mindpy.env.parallel import MindpyParallelEnv
from mindpy.server import EmbeddedServer

COMMANDS = ('!inventory', '!equip("oak_log")')


def task_file(folder: Path, agents: int) -> Path:
    path = folder / f"tasks_{agents}.json"
    path.write_text(json.dumps({f"bench_{agents}": {
        "type": "techtree", "goal": "Craft a diamond pickaxe.", "agent_count": agents,
        "initial_inventory": {str(i): {"oak_log": 16} for i in range(agents)}, "target": "diamond_pickaxe",
        "number_of_target": 1, "timeout": 3600}}))
    return path


def timed(fn, steps: int) -> float:
    """Seconds per call of fn(i), the median of `steps` calls."""
    times = []
    for i in range(steps):
        start = time.perf_counter()
        fn(i)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def one_agent(server: EmbeddedServer, folder: Path, steps: int) -> None:
    for ticks in (None, 1):
        env = MindpyEnv(task_file=task_file(folder, 1), server=server, step_ticks=ticks, names=["bench1"])
        try:
            env.reset(seed=1)
            mode = "until done" if ticks is None else f"{ticks} tick"
            for command in COMMANDS:
                step = timed(lambda i, c=command, env=env: env.step(c), steps)
                line = f"1 agent, {mode:10s} {command:20s} step {step * 1000:7.1f} ms  ({1 / step:6.1f} steps/s)"
                if ticks is None:
                    direct = timed(lambda i, c=command, env=env: env.game.run_directly("bench1", c), steps)
                    line += f"  direct {direct * 1000:6.1f} ms  overhead {(step - direct) * 1000:6.1f} ms"
                print(line, flush=True)
            start = time.perf_counter()
            env.reset(seed=2)
            print(f"1 agent, reset (world set up again): {(time.perf_counter() - start) * 1000:.0f} ms", flush=True)
        finally:
            env.close()


def four_agents(server: EmbeddedServer, folder: Path, steps: int) -> None:
    names = [f"bench4x{i}" for i in range(4)]
    for ticks in (None, 1):
        env = MindpyParallelEnv(task_file=task_file(folder, 4), server=server, step_ticks=ticks, names=names)
        try:
            env.reset(seed=1)
            mode = "until done" if ticks is None else f"{ticks} tick"
            for command in COMMANDS:
                step = timed(lambda i, c=command, env=env: env.step(dict.fromkeys(names, c)), steps)
                print(f"4 agents, {mode:10s} {command:20s} step {step * 1000:7.1f} ms  ({1 / step:6.1f} steps/s, "
                      f"{4 / step:6.1f} agent-steps/s)", flush=True)
        finally:
            env.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50, help="steps timed for each figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="mindpy-bench-env-") as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        with EmbeddedServer(run_dir=folder / "server") as server:
            print(f"embedded server started in {time.perf_counter() - start:.1f} s", flush=True)
            one_agent(server, folder, args.steps)
            four_agents(server, folder, args.steps)


if __name__ == "__main__":
    main()
