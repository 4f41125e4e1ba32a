"""How far one Python process with one embedded server scales in agents.

For each N (1, 8, 32, 64, 128 by default) in one run, agents are added until there are N: they join through the
real join path (AgentRunner -> create_bots), with idle replay models that answer nothing (so the cost measured is
the agents' own: bots, update ticks and modes; no model calls). After they settle, a window of --seconds measures:
  - RSS and CPU share (1.00 = one core) of this Python process, the bots' Node process and the server's,
  - agent update ticks per second (median over agents; the tick is every 0.3 s, so 3.3 at best) and the tick's
    median and p95 duration,
  - join time of the agents added at this step, the server's ticks per second (20 when it keeps up),
  - MB per added agent (all three processes' RSS, from the previous step), bots still connected, ticks skipped,
  - how busy the bots' Node event loop was (1.00: saturated; on a loaded machine its CPU share cannot tell).
Product target: 128 agents on a 2-core machine, >= 3 update ticks/s median, server at 20 TPS, all joined within
60 s, under 40 MB per added agent. Prints numbers; asserts nothing.
    .venv/bin/python benchmarks/bench_scale.py [--agents 1,8,32,64,128] [--seconds 20]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from mindpy.agent.runner import AgentRunner
from mindpy.bridge import js_module, runtime
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile
from mindpy.server import EmbeddedServer
from mindpy.settings import load_settings

LOOP_BUSY_JS = Path(__file__).resolve().parent / "js" / "loop_busy.js"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (fields 14 and 15 of /proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()  # the command name may hold spaces
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * PAGE_MB


@dataclass
class TickLog:
    """(when it ended, how long it took) for each update tick of one agent."""

    ticks: list[tuple[float, float]] = field(default_factory=list)

    def watch(self, agent) -> None:
        update = agent.update  # the tick loop looks `update` up on the agent every time

        def timed():
            t = time.perf_counter()
            try:
                update()
            finally:
                end = time.perf_counter()
                self.ticks.append((end, end - t))

        agent.update = timed

    def since(self, t0: float) -> tuple[int, list[float]]:
        taken = [duration for end, duration in list(self.ticks) if end >= t0]
        return len(taken), taken


class SkippedTicks(logging.Handler):
    """Counts the agents' 'update tick skipped' warnings (a bridge call that timed out)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record):
        if "tick skipped" in record.getMessage():
            self.count += 1


class Crowd:
    """Adds idle agents to a server, through AgentRunner, and keeps their tick logs."""

    def __init__(self, server: EmbeddedServer, work_dir: Path):
        self.server = server
        self.work_dir = work_dir
        self.settings = load_settings(None, env={}, bots_dir=str(work_dir / "bots"), cache_dir=str(work_dir / "cache"),
                                      narrate_behavior=False, chat_bot_messages=False)
        self.runners: list[AgentRunner] = []
        self.ticks: dict[str, TickLog] = {}

    def profile(self, name: str):
        path = self.work_dir / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"name": name, "model": "replay", "cooldown": 0, "embedding": "none"}))
        return load_profile(path, settings=self.settings)

    def add(self, count: int) -> float:
        """Join `count` more agents at once; returns the seconds until all have joined."""
        start = len(self.ticks)
        names = [f"scale{i}" for i in range(start, start + count)]
        runner = AgentRunner(self.settings, [self.profile(n) for n in names], self.server.host, self.server.port,
                             models={n: ReplayModel([], default="") for n in names})
        t = time.perf_counter()
        runner.start()
        joined = time.perf_counter() - t
        self.runners.append(runner)
        for name, agent in runner.agents.items():
            self.ticks[name] = TickLog()
            self.ticks[name].watch(agent)
        return joined

    def bots(self):
        return [agent.bot for runner in self.runners for agent in runner.agents.values()]

    def stop(self) -> None:
        for runner in self.runners:
            runner.stop()


def measure(crowd: Crowd, server: EmbeddedServer, seconds: float) -> dict:
    pids = {"python": os.getpid(), "node": runtime().pid, "server": server.process.pid}
    cpu0 = {k: cpu_seconds(p) for k, p in pids.items()}
    loop_busy = js_module(LOOP_BUSY_JS).loopBusySince
    loop_busy()
    ticks0, t0 = server.ticks(), time.perf_counter()
    time.sleep(seconds)  # the window: everything runs on its own meanwhile
    wall = time.perf_counter() - t0
    node_busy = loop_busy()
    cpu = {k: (cpu_seconds(p) - cpu0[k]) / wall for k, p in pids.items()}
    rss = {k: rss_mb(p) for k, p in pids.items()}
    server_tps = ((server.ticks() or 0) - (ticks0 or 0)) / wall
    rates, durations = [], []
    for log in crowd.ticks.values():
        count, taken = log.since(t0)
        rates.append(count / wall)
        durations.extend(taken)
    durations.sort()
    median_ms = 1000 * statistics.median(durations) if durations else float("nan")
    p95_ms = 1000 * durations[int(0.95 * (len(durations) - 1))] if durations else float("nan")
    return {"cpu": cpu, "rss": rss, "server_tps": server_tps, "rate_median": statistics.median(rates),
            "rate_min": min(rates), "tick_median_ms": median_ms, "tick_p95_ms": p95_ms, "node_busy": node_busy}


HEADER = (f"{'agents':>6} {'join s':>7} {'ticks/s':>8} {'min':>5} {'tick ms':>8} {'p95':>7} {'srv TPS':>7} "
          f"{'CPU py':>6} {'node':>5} {'busy':>5} {'server':>6} {'RSS py':>7} {'node':>6} {'server':>6} "
          f"{'MB/agent':>8} {'conn':>5} {'skip':>5} {'load':>5}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", default="1,8,32,64,128", help="comma-separated agent counts, ascending")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring window per step")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds between joining and measuring")
    args = parser.parse_args()
    counts = sorted({int(n) for n in args.agents.split(",")})

    skipped = SkippedTicks()
    logging.getLogger("mindpy").addHandler(skipped)
    with tempfile.TemporaryDirectory() as work, EmbeddedServer(run_dir=Path(work) / "server") as server:
        runtime()
        time.sleep(1)
        base = {"python": rss_mb(os.getpid()), "node": rss_mb(runtime().pid), "server": rss_mb(server.process.pid)}
        print(f"{os.cpu_count()} CPUs; load average at start {os.getloadavg()[0]:.2f}; RSS before any bot: "
              + ", ".join(f"{k} {v:.0f} MB" for k, v in base.items()))
        print(HEADER, flush=True)
        crowd = Crowd(server, Path(work))
        previous_total, previous_n = sum(base.values()), 0
        try:
            for n in counts:
                joined = crowd.add(n - previous_n)
                time.sleep(args.settle)
                skipped.count = 0
                m = measure(crowd, server, args.seconds)
                total = sum(m["rss"].values())
                per_agent = (total - previous_total) / (n - previous_n)
                connected = sum(bot.connected for bot in crowd.bots())
                print(f"{n:>6} {joined:>7.1f} {m['rate_median']:>8.2f} {m['rate_min']:>5.2f} "
                      f"{m['tick_median_ms']:>8.1f} {m['tick_p95_ms']:>7.0f} {m['server_tps']:>7.1f} "
                      f"{m['cpu']['python']:>6.2f} {m['cpu']['node']:>5.2f} {m['node_busy']:>5.2f} "
                      f"{m['cpu']['server']:>6.2f} "
                      f"{m['rss']['python']:>7.0f} {m['rss']['node']:>6.0f} {m['rss']['server']:>6.0f} "
                      f"{per_agent:>8.1f} {connected:>5} {skipped.count:>5} {os.getloadavg()[0]:>5.2f}", flush=True)
                previous_total, previous_n = total, n
        finally:
            crowd.stop()
    print("ticks/s: median over agents (min: the slowest agent); tick ms: duration of one update tick; join s: "
          "the agents added at that step; busy: share of the window the bots' Node event loop was running code; "
          "MB/agent: RSS of the three processes added per agent since the step before; conn: bots still "
          "connected; skip: ticks skipped in the window (a bridge call timed out)")


if __name__ == "__main__":
    main()
