"""How far one Python process with one embedded server scales in agents.

For each N (1, 8, 32, 64, 128 by default) in one run, agents are added until there are N: they join through the
real join path (AgentRunner -> create_bots), with idle replay models that answer nothing (so the cost measured is
the agents' own: bots, update ticks and modes; no model calls). After they settle, a window of --seconds measures:
  - RSS and CPU share (1.00 = one core) of the agents' Python process, their bots' Node process and the server's,
  - agent update ticks per second (median over agents; the tick is every 0.3 s, so 3.3 at best) and the tick's
    median and p95 duration,
  - join time of the agents added at this step, the server's ticks per second (20 when it keeps up),
  - MB per added agent (all three processes' RSS, from the previous step), bots still connected, ticks skipped,
  - how busy the bots' Node event loop was (1.00: saturated; on a loaded machine its CPU share cannot tell).
Product target: 128 agents on a 2-core machine, >= 3 update ticks/s median, server at 20 TPS, all joined within
60 s, under 40 MB per added agent. Prints numbers; asserts nothing.
By default the agents stand together at spawn, so every bot sees every other one; with --teams K they stand in
teams of K, 400 blocks apart, and teams do not see each other (as in separate episodes). By default all agents are
in one Python process, as `mindpy run` has them; with --processes P they are spread over P Python processes, each
with its own bridge and so its own Node process for its bots (the main process only runs the server and collects
the numbers).
With --in-run P1,P2,... each N of --agents is instead one run as `mindpy run --processes P` has it (ProcessRunner:
this process keeps the first share of the agents, P-1 workers the rest, conversations through the run's hub), all
N joined at once on a fresh server, for each P in turn; the rows of one N are measured back to back, so their
ratios are fair on a machine whose load changes. MB/agent is then everything the run's processes hold beyond the
server and this process before the bots (idle Node included), divided by N.
    .venv/bin/python benchmarks/bench_scale.py [--agents 1,8,32,64,128] [--seconds 20] [--processes 1] [--teams K]
    .venv/bin/python benchmarks/bench_scale.py --agents 64,128 --in-run 1,2 [--join-at-once K]
With --server-options JSON [JSON ...] (with --in-run) every row is played once per set of embedded-server options, back
to back; the column "srv" numbers the sets. E.g. '{"columnCache": false, "crowdViewDistance": 0, "fullTabListToOthers":
true}' '{}' compares the join as it was (every player sent its own packet of each column, the full view for any crowd,
the whole tab list to every player at each join) with today's defaults.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from mindpy.agent import processes as agent_processes
from mindpy.agent.processes import KEY_VARIABLE, ProcessRunner
from mindpy.agent.runner import AgentRunner
from mindpy.bridge import js_module, runtime
from mindpy.models.replay import ReplayModel
from mindpy.profiles import load_profile
from mindpy.server import EmbeddedServer
from mindpy.settings import load_settings

ANSWER = "bench_scale answer: "  # marks a worker's answer among whatever else reaches its stdout
TEAM_SPACING = 400  # blocks between teams (the embedded server shows a player's entity within 150)
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

    def __init__(self, host: str, port: int, work_dir: Path, prefix: str = "scale", row: int = 0,
                 team: int | None = None):
        self.host, self.port = host, port
        self.work_dir = work_dir
        self.prefix = prefix
        self.row = row  # with teams: this process's teams stand on row `row`, one every TEAM_SPACING blocks
        self.team = team
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
        if count <= 0:
            return 0.0
        start = len(self.ticks)
        names = [f"{self.prefix}{i}" for i in range(start, start + count)]
        runner = AgentRunner(self.settings, [self.profile(n) for n in names], self.host, self.port,
                             models={n: ReplayModel([], default="") for n in names})
        t = time.perf_counter()
        runner.start()
        joined = time.perf_counter() - t
        self.runners.append(runner)
        for name, agent in runner.agents.items():
            self.ticks[name] = TickLog()
            self.ticks[name].watch(agent)
        if self.team:
            self.spread(start, [runner.agents[n].bot for n in names])
        return joined

    def spread(self, start: int, bots) -> None:
        """Send the bots to their teams' places, far enough apart that teams do not see each other."""
        for i, bot in enumerate(bots, start):
            x, z = TEAM_SPACING * (i // self.team), TEAM_SPACING * self.row
            bot.js.look(0, 0, True)  # the server finishes its login sequence on the first look packet
            bot.command(f"/tp {bot.name} {x + 0.5 + i % self.team} -60 {z + 0.5}")
        deadline = time.monotonic() + 120
        while any(abs(bot.position[2] - TEAM_SPACING * self.row) > 2 for bot in bots) and time.monotonic() < deadline:
            time.sleep(0.2)

    def bots(self):
        return [agent.bot for runner in self.runners for agent in runner.agents.values()]

    def stop(self) -> None:
        for runner in self.runners:
            runner.stop()


class RunnerAgents:
    """The agents a runner (AgentRunner, or ProcessRunner's share of this process) holds, with their tick logs: a
    Window measures them as it measures a Crowd."""

    def __init__(self, runner):
        self.runner = runner
        self.ticks: dict[str, TickLog] = {}
        for name, agent in runner.agents.items():
            self.ticks[name] = TickLog()
            self.ticks[name].watch(agent)

    def bots(self):
        return [agent.bot for agent in self.runner.agents.values()]


class Window:
    """What one process of agents did over a measuring window: its agents' ticks, its CPU, RSS and Node's load."""

    def __init__(self, crowd: Crowd | RunnerAgents, skipped: SkippedTicks):
        self.crowd = crowd
        self.skipped = skipped
        self.pids = {"python": os.getpid(), "node": runtime().pid}

    def open(self) -> None:
        self.cpu0 = {k: cpu_seconds(p) for k, p in self.pids.items()}
        js_module(LOOP_BUSY_JS).loopBusySince()
        self.skipped.count = 0
        self.t0 = time.perf_counter()

    def close(self) -> dict:
        wall = time.perf_counter() - self.t0
        busy = js_module(LOOP_BUSY_JS).loopBusySince()
        rates, durations = [], []
        for log in self.crowd.ticks.values():
            count, taken = log.since(self.t0)
            rates.append(count / wall)
            durations.extend(taken)
        return {"cpu": {k: (cpu_seconds(p) - self.cpu0[k]) / wall for k, p in self.pids.items()},
                "rss": {k: rss_mb(p) for k, p in self.pids.items()}, "busy": busy, "rates": rates,
                "durations": durations, "connected": sum(bot.connected for bot in self.crowd.bots()),
                "skipped": self.skipped.count}


class Agents:
    """The agents of one process and its measuring window, driven by commands: add N, open, close."""

    def __init__(self, address: str, work_dir: Path, prefix: str = "scale", row: int = 0, team: int | None = None):
        host, port = address.rsplit(":", 1)
        self.skipped = SkippedTicks()
        logging.getLogger("mindpy").addHandler(self.skipped)
        self.crowd = Crowd(host, int(port), work_dir, prefix, row, team)
        self.window = Window(self.crowd, self.skipped)

    def handle(self, line: str) -> dict:
        command, *rest = line.split()
        if command == "add":
            return {"joined": self.crowd.add(int(rest[0]))}
        if command == "open":
            self.window.open()
            return {}
        if command == "close":
            return self.window.close()
        raise ValueError(f"unknown command {line!r}")


class LocalAgents:
    """The agents in this very process (--processes 1, as `mindpy run` has them), behind WorkerProcess's calls."""

    def __init__(self, address: str, work_dir: Path, team: int | None):
        self.agents = Agents(address, work_dir, team=team)
        self.command = ""

    def send(self, command: str) -> None:
        self.command = command

    def answer(self) -> dict:
        return self.agents.handle(self.command)

    def quit(self) -> None:
        self.agents.crowd.stop()


def run_worker(address: str, prefix: str, row: int, team: int | None) -> None:
    """A process of agents driven by the main process: one command a line on stdin (add N, open, close, quit),
    one JSON answer (after ANSWER, on a line of its own) on stdout for each."""
    with tempfile.TemporaryDirectory() as work:
        agents = Agents(address, Path(work), prefix, row, team)
        while line := sys.stdin.readline():
            if line.strip() == "quit":
                agents.crowd.stop()
                return
            print(ANSWER + json.dumps(agents.handle(line)), flush=True)


class WorkerProcess:
    """The main process's handle on one worker: commands go in on stdin, JSON lines come back on stdout."""

    def __init__(self, address: str, prefix: str, row: int, team: int | None):
        command = [sys.executable, __file__, "--worker", address, "--prefix", prefix, "--row", str(row)]
        if team:
            command += ["--teams", str(team)]
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def answer(self) -> dict:
        assert self.process.stdout is not None
        while line := self.process.stdout.readline():
            if ANSWER in line:  # Node's own output (warnings, blank lines) comes this way too
                return json.loads(line.split(ANSWER, 1)[1])
        raise RuntimeError("a worker process ended without answering")

    def quit(self) -> None:
        self.send("quit")
        self.process.wait(timeout=60)


def ask_all(workers: list, commands: list[str]) -> list[dict]:
    """Send each worker its command at once, then collect the answers (the workers work meanwhile)."""
    for worker, command in zip(workers, commands, strict=True):
        worker.send(command)
    return [worker.answer() for worker in workers]


def summarize(windows: list[dict], server: EmbeddedServer, server_cpu: float, server_tps: float) -> dict:
    rates = [r for w in windows for r in w["rates"]]
    durations = sorted(d for w in windows for d in w["durations"])
    return {
        "rate_median": statistics.median(rates), "rate_min": min(rates),
        "tick_median_ms": 1000 * statistics.median(durations) if durations else float("nan"),
        "tick_p95_ms": 1000 * durations[int(0.95 * (len(durations) - 1))] if durations else float("nan"),
        "server_tps": server_tps,
        "cpu": {"python": sum(w["cpu"]["python"] for w in windows), "node": sum(w["cpu"]["node"] for w in windows),
                "server": server_cpu},
        "busy": max(w["busy"] for w in windows),
        "rss": {"python": sum(w["rss"]["python"] for w in windows), "node": sum(w["rss"]["node"] for w in windows),
                "server": rss_mb(server.process.pid)},
        "connected": sum(w["connected"] for w in windows), "skipped": sum(w["skipped"] for w in windows)}


def run_runner_worker(host: str, port: str, number: str) -> int:
    """A worker of an in-run measurement: mindpy's own worker (run_worker) whose agents this module times; it
    answers "open" and "close" with its window, as the main process measures its own share."""
    skipped = SkippedTicks()
    logging.getLogger("mindpy").addHandler(skipped)
    windows: dict[str, Window] = {}

    def setup(runner) -> None:
        windows["w"] = Window(RunnerAgents(runner), skipped)

    def answer(question):
        if question == "open":
            windows["w"].open()
            return {}
        if question == "close":
            return windows["w"].close()
        if question == "pids":
            return {"python": os.getpid(), "node": runtime().pid}
        raise ValueError(f"unknown question {question!r}")

    key = bytes.fromhex(os.environ.pop(KEY_VARIABLE, ""))
    return agent_processes.run_worker(host, int(port), int(number), key, setup=setup, answer=answer)


IN_RUN_HEADER = (f"{'srv':>3} {'agents':>6} {'procs':>5} {'join s':>7} {'ticks/s':>8} {'min':>5} {'tick ms':>8} "
                 f"{'p95':>7} {'srv TPS':>7} {'CPU py':>6} {'node':>5} {'busy':>5} {'server':>6} {'RSS py':>7} "
                 f"{'node':>6} {'server':>6} {'MB/agent':>8} {'conn':>5} {'skip':>5} {'load':>5}")


def measure_in_run(n: int, processes: int, args, work: Path, server_options: dict | None = None,
                   label: int = 0) -> None:
    """One `mindpy run --processes P`-style run of n idle agents on a fresh server: join, settle, one window."""
    skipped = SkippedTicks()
    logging.getLogger("mindpy").addHandler(skipped)
    settings = load_settings(None, env={}, bots_dir=str(work / "bots"), cache_dir=str(work / "cache"),
                             narrate_behavior=False, chat_bot_messages=False)
    work.mkdir(parents=True, exist_ok=True)
    script = work / "idle.yaml"
    script.write_text(yaml.safe_dump({"replies": [], "default": ""}))
    profiles = []
    for i in range(n):
        name = f"r{n}p{processes}s{i}"
        path = work / f"{name}.yaml"
        path.write_text(yaml.safe_dump({"name": name, "model": f"replay:{script}", "cooldown": 0,
                                        "embedding": "none"}))
        profiles.append(load_profile(path, settings=settings))
    with EmbeddedServer(run_dir=work / f"server-{n}-{processes}", options=server_options) as server:
        node = runtime().pid  # this process's Node, started before the bots (it stays from one row to the next)
        base = rss_mb(server.process.pid) + rss_mb(os.getpid()) + (rss_mb(node) if node else 0.0)
        runner = ProcessRunner(settings, profiles, server.host, server.port, processes=processes,
                               join_at_once=args.join_at_once, report=lambda line: print(line, flush=True),
                               worker_command=[sys.executable, __file__, "--runner-worker"])
        try:
            join_cpu0 = {"server": cpu_seconds(server.process.pid), "python": cpu_seconds(os.getpid()),
                         "node": cpu_seconds(node) if node else 0.0}
            t = time.perf_counter()
            runner.start()
            joined = time.perf_counter() - t
            local = Window(RunnerAgents(runner), skipped)
            workers = range(1, runner.processes)
            # CPU the join took: the workers' processes were born for it, so their whole CPU time counts
            join_cpu = {"server": cpu_seconds(server.process.pid) - join_cpu0["server"],
                        "python": cpu_seconds(os.getpid()) - join_cpu0["python"],
                        "node": (cpu_seconds(node) if node else 0.0) - join_cpu0["node"]}
            for number in workers:
                pids = runner.ask(number, "pids")
                join_cpu["python"] += cpu_seconds(pids["python"])
                join_cpu["node"] += cpu_seconds(pids["node"])
            time.sleep(args.settle)
            server_cpu0, ticks0, t0 = cpu_seconds(server.process.pid), server.ticks(), time.perf_counter()
            local.open()
            for number in workers:
                runner.ask(number, "open")
            time.sleep(args.seconds)  # the window: everything runs on its own meanwhile
            windows = [local.close()] + [runner.ask(number, "close") for number in workers]
            wall = time.perf_counter() - t0
            m = summarize(windows, server, (cpu_seconds(server.process.pid) - server_cpu0) / wall,
                          ((server.ticks() or 0) - (ticks0 or 0)) / wall)
            per_agent = (sum(m["rss"].values()) - base) / n
            print(f"{label:>3} {n:>6} {runner.processes:>5} {joined:>7.1f} {m['rate_median']:>8.2f} "
                  f"{m['rate_min']:>5.2f} {m['tick_median_ms']:>8.1f} {m['tick_p95_ms']:>7.0f} {m['server_tps']:>7.1f} "
                  f"{m['cpu']['python']:>6.2f} {m['cpu']['node']:>5.2f} {m['busy']:>5.2f} {m['cpu']['server']:>6.2f} "
                  f"{m['rss']['python']:>7.0f} {m['rss']['node']:>6.0f} {m['rss']['server']:>6.0f} "
                  f"{per_agent:>8.1f} {m['connected']:>5} {m['skipped']:>5} {os.getloadavg()[0]:>5.2f}", flush=True)
            print(f"{'':>17}join took CPU seconds: server {join_cpu['server']:.1f}, bots' Node "
                  f"{join_cpu['node']:.1f}, Python {join_cpu['python']:.1f} (in {joined:.1f} s)", flush=True)
        finally:
            runner.stop()
            logging.getLogger("mindpy").removeHandler(skipped)


def main_in_run(args) -> None:
    counts = sorted({int(n) for n in args.agents.split(",")})
    process_counts = [int(p) for p in args.in_run.split(",")]
    print(f"{os.cpu_count()} CPUs; in-run: one run per row (ProcessRunner, as mindpy run --processes P); join pace "
          f"{args.join_at_once or 'default'} per process; load average at start {os.getloadavg()[0]:.2f}")
    option_sets = [json.loads(text) for text in args.server_options]
    for label, options in enumerate(option_sets):
        print(f"srv {label}: embedded server options {json.dumps(options)}")
    print(IN_RUN_HEADER, flush=True)
    with tempfile.TemporaryDirectory() as work:
        for n in counts:
            for processes in process_counts:
                for label, options in enumerate(option_sets):
                    measure_in_run(n, processes, args, Path(work) / f"{n}-{processes}-{label}", options, label)
    print("procs: processes of the run (this one and its workers); ticks/s: median over agents (min: the slowest); "
          "tick ms: one update tick; join s: all N joined at once (ProcessRunner.start); CPU and RSS: summed over "
          "the run's Python and Node processes; busy: share of the window the busiest Node event loop ran code; "
          "MB/agent: RSS of the run's processes and the server beyond what they held before the bots, over N; "
          "conn: bots connected; skip: ticks skipped (a bridge call timed out)")


HEADER = (f"{'agents':>6} {'join s':>7} {'ticks/s':>8} {'min':>5} {'tick ms':>8} {'p95':>7} {'srv TPS':>7} "
          f"{'CPU py':>6} {'node':>5} {'busy':>5} {'server':>6} {'RSS py':>7} {'node':>6} {'server':>6} "
          f"{'MB/agent':>8} {'conn':>5} {'skip':>5} {'load':>5}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", default="1,8,32,64,128", help="comma-separated agent counts, ascending")
    parser.add_argument("--seconds", type=float, default=20.0, help="measuring window per step")
    parser.add_argument("--settle", type=float, default=5.0, help="seconds between joining and measuring")
    parser.add_argument("--processes", type=int, default=1,
                        help="Python processes of agents (each with its own Node process for its bots)")
    parser.add_argument("--teams", type=int, metavar="K",
                        help="agents stand in teams of K, 400 blocks apart (by default all together at spawn)")
    parser.add_argument("--in-run", metavar="P1,P2", help="one run per agent count and process count, as mindpy run "
                                                          "--processes P has it (see above)")
    parser.add_argument("--join-at-once", type=int, default=None, metavar="K",
                        help="with --in-run: bots each process joins at the same time (default: the bridge's pace)")
    parser.add_argument("--server-options", nargs="+", default=["{}"], metavar="JSON",
                        help="with --in-run: embedded-server options (JSON), one set of rows for each")
    parser.add_argument("--runner-worker", nargs=3, metavar=("HOST", "PORT", "NUMBER"), help=argparse.SUPPRESS)
    parser.add_argument("--worker", metavar="HOST:PORT", help=argparse.SUPPRESS)
    parser.add_argument("--prefix", default="scale", help=argparse.SUPPRESS)
    parser.add_argument("--row", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.runner_worker:
        sys.exit(run_runner_worker(*args.runner_worker))
    if args.in_run:
        main_in_run(args)
        return
    if args.worker:
        run_worker(args.worker, args.prefix, args.row, args.teams)
        return
    counts = sorted({int(n) for n in args.agents.split(",")})

    with tempfile.TemporaryDirectory() as work, EmbeddedServer(run_dir=Path(work) / "server") as server:
        address = f"{server.host}:{server.port}"
        workers: list = ([LocalAgents(address, Path(work), args.teams)] if args.processes == 1 else
                         [WorkerProcess(address, f"p{k}s", k, args.teams) for k in range(args.processes)])
        ask_all(workers, ["open"] * len(workers))  # each has started its bridge (Node) by now
        base = rss_mb(server.process.pid) + sum(w["rss"]["python"] + w["rss"]["node"]
                                                for w in ask_all(workers, ["close"] * len(workers)))
        print(f"{os.cpu_count()} CPUs; {args.processes} process(es) of agents; "
              f"{f'teams of {args.teams}' if args.teams else 'all together at spawn'}; load average at start "
              f"{os.getloadavg()[0]:.2f}; RSS of all processes before any bot: {base:.0f} MB")
        print(HEADER, flush=True)
        previous_total, previous_n = base, 0
        try:
            for n in counts:
                added = n - previous_n
                shares = [added // len(workers) + (k < added % len(workers)) for k in range(len(workers))]
                joined = max(a["joined"] for a in ask_all(workers, [f"add {share}" for share in shares]))
                time.sleep(args.settle)
                server_cpu0, ticks0, t0 = cpu_seconds(server.process.pid), server.ticks(), time.perf_counter()
                ask_all(workers, ["open"] * len(workers))
                time.sleep(args.seconds)  # the window: everything runs on its own meanwhile
                windows = ask_all(workers, ["close"] * len(workers))
                wall = time.perf_counter() - t0
                m = summarize(windows, server, (cpu_seconds(server.process.pid) - server_cpu0) / wall,
                              ((server.ticks() or 0) - (ticks0 or 0)) / wall)
                total = sum(m["rss"].values())
                per_agent = (total - previous_total) / added
                print(f"{n:>6} {joined:>7.1f} {m['rate_median']:>8.2f} {m['rate_min']:>5.2f} "
                      f"{m['tick_median_ms']:>8.1f} {m['tick_p95_ms']:>7.0f} {m['server_tps']:>7.1f} "
                      f"{m['cpu']['python']:>6.2f} {m['cpu']['node']:>5.2f} {m['busy']:>5.2f} "
                      f"{m['cpu']['server']:>6.2f} "
                      f"{m['rss']['python']:>7.0f} {m['rss']['node']:>6.0f} {m['rss']['server']:>6.0f} "
                      f"{per_agent:>8.1f} {m['connected']:>5} {m['skipped']:>5} {os.getloadavg()[0]:>5.2f}",
                      flush=True)
                previous_total, previous_n = total, n
        finally:
            for worker in workers:
                worker.quit()
    print("ticks/s: median over agents (min: the slowest agent); tick ms: duration of one update tick; join s: "
          "the agents added at that step; CPU and RSS: summed over the processes of agents; busy: share of the "
          "window the (busiest) bots' Node event loop was running code; MB/agent: RSS of all processes added per "
          "agent since the step before; conn: bots still connected; skip: ticks skipped in the window (a bridge "
          "call timed out)")


if __name__ == "__main__":
    main()
