"""One run's agents spread over several Python processes: `mindpy run --profile ... --processes N`.

One Node process hosts every bot of a Python process (mindpy.bridge), and with many bots its one thread is the
limit (README, Scale). `ProcessRunner` keeps the first share of the agents in this process and starts N-1 worker
processes (`python -m mindpy.agent.worker`), each with its own bridge, Node process and share:

    with ProcessRunner(settings, profiles, host, port, processes=2, console=ConsoleLog()) as runner:
        runner.start()          # every process joins its bots (each paced, see join_at_once) and starts its agents
        runner.wait()           # until Ctrl-C or runner.stop()

- Conversations between bots in different processes go through the hub (mindpy.agent.hub) and behave as on one
  process's InProcessBus.
- Workers send their console lines to this process's console. `!restart` of a worker's agent happens in the worker.
- `stop()` (Ctrl-C) stops every worker and waits for it (and so for its Node process) to end; a worker that does
  not end in time is terminated, then killed. A worker that ends by itself is reported in one line and started
  again with its agents' saved memory (at most `restarts` times a share); after that its agents are reported gone.
- The run's model budget is split evenly between the processes (`share_limits`).
- Workers build their models from the profiles: `models` (ready model objects) only reach this process's agents.
- A dashboard (`--ui`) sees the workers' agents through `remote` (mindpy.agent.remote): each worker sends its
  agents' cards while a page watches and carries out the controls the page relays. REMOTE_WATCHERS are told of
  it as the run starts, as mindpy.agent.runner.RUNNER_WATCHERS are told of each AgentRunner.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import MindpyError
from ..models.budget import BudgetLimits
from ..userfiles import visible_log_handler
from .hub import Hub
from .remote import WorkerAgents
from .runner import AgentRunner

log = logging.getLogger(__name__)

KEY_VARIABLE = "MINDPY_HUB_KEY"   # how a worker gets the hub's key (not on its command line, which ps shows)
STOP_WAIT_S = 20.0                # how long a stopping worker may take before it is terminated

# Called with the WorkerAgents of every multi-process run this process starts (a dashboard adds itself here to
# show and steer the workers' agents; see mindpy.ui). A watcher that fails is logged, never the run's problem.
REMOTE_WATCHERS: list[Callable[[WorkerAgents], None]] = []


class WorkerError(MindpyError):
    """A worker process could not join its bots."""


def split(items: Sequence[Any], parts: int) -> list[list[Any]]:
    """`items` in `parts` contiguous shares whose sizes differ by at most one (the first ones are larger)."""
    return [list(items[k * len(items) // parts:(k + 1) * len(items) // parts]) for k in range(parts)]


def share_limits(limits: BudgetLimits | None, processes: int) -> BudgetLimits | None:
    """One process's part of a run's budget: each limit divided by the number of processes."""
    if limits is None or processes <= 1:
        return limits
    def part(value):
        return None if value is None else value / processes
    return dataclasses.replace(limits, max_requests_per_minute=part(limits.max_requests_per_minute),
                               max_tokens_per_minute=part(limits.max_tokens_per_minute),
                               max_usd=part(limits.max_usd))


@dataclasses.dataclass
class Worker:
    """This process's handle on one worker process and the share of agents it plays."""
    number: int
    names: list[str]
    process: subprocess.Popen
    restarts: int = 0
    state: str = "starting"  # starting -> started | failed -> stopped | ended
    error: str = ""
    summary: dict = dataclasses.field(default_factory=dict)  # its model spend, sent as it stops
    done: threading.Event = dataclasses.field(default_factory=threading.Event)  # started, failed or ended


class ProcessRunner:
    """AgentRunner's interface over several processes (see the module's documentation)."""

    def __init__(self, settings, profiles: list, host: str, port: int, *, processes: int,
                 console: Callable[[str, str, str], None] | None = None, models: dict[str, Any] | None = None,
                 wrap_model: Callable[[str, Any], Any] | None = None, budget_limits: BudgetLimits | None = None,
                 join_at_once: int | None = None, restarts: int = 2,
                 report: Callable[[str], None] | None = None, join_timeout: float = 30.0,
                 worker_command: Sequence[str] | None = None):
        """`wrap_model` wraps this process's models only (workers wrap theirs in their own share of
        `budget_limits`). `join_at_once`: how many bots each process joins at the same time (default: the
        bridge's pace, per process). `report(line)` prints what happens to workers (default: stdout).
        `worker_command`: what starts a worker, before its arguments (default `python -m mindpy.agent.worker`;
        a benchmark runs its own entry point that calls run_worker with its `setup` and `answer`)."""
        if processes < 1:
            raise ValueError(f"processes must be at least 1, got {processes}")
        self.settings = settings
        self.profiles = list(profiles)
        self.host, self.port = host, port
        self.processes = max(1, min(processes, len(self.profiles)))
        self.console = console
        self.budget_limits = share_limits(budget_limits, self.processes)
        self.join_at_once = join_at_once
        self.restarts = restarts
        self.report = report or (lambda line: print(line, flush=True))
        self.join_timeout = join_timeout
        self.worker_command = list(worker_command or [sys.executable, "-m", "mindpy.agent.worker"])
        self._answers: dict[int, Any] = {}
        self._answered = threading.Condition()
        self._questions = 0
        self.shares = split(self.profiles, self.processes)
        self.hub = Hub(on_message=self._on_message, on_disconnect=lambda number: None)
        local = {p.name for p in self.shares[0]}
        # one process alone keeps the plain InProcessBus, as AgentRunner has it
        self.local = AgentRunner(settings, self.shares[0], host, port, console=console,
                                 bus=self.hub.bus if self.processes > 1 else None,
                                 models={k: v for k, v in (models or {}).items() if k in local},
                                 wrap_model=wrap_model, join_at_once=join_at_once)
        self.workers: dict[int, Worker] = {}
        self.remote = WorkerAgents(self.hub.post, {n: [p.name for p in self.shares[n]]
                                                   for n in range(1, self.processes)})
        self.on_budget_exceeded: list[Callable[[], None]] = []
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._started = False  # start() has returned

    # ---- what runs where ---------------------------------------------------------------------------
    @property
    def agents(self):
        """This process's agents (the workers' live in their processes; see names)."""
        return self.local.agents

    @property
    def names(self) -> list[str]:
        """Every agent of the run, in profile order."""
        return [p.name for p in self.profiles]

    @property
    def bus(self):
        return self.local.bus

    def pids(self) -> dict[int, int]:
        """Worker number -> process id, for the workers running now."""
        with self._lock:
            return {n: w.process.pid for n, w in self.workers.items() if w.process.poll() is None}

    # ---- life cycle ----------------------------------------------------------------------------------
    def start(self):
        """Start the workers, join this process's bots meanwhile, then wait for the workers' bots. Raises
        WorkerError (after stopping everything) when a worker could not join its bots."""
        if self.processes > 1:
            for watch in list(REMOTE_WATCHERS):
                try:
                    watch(self.remote)
                except Exception:
                    log.exception("a watcher of the workers' agents failed")
        for number in range(1, self.processes):
            self._spawn(number, restarts=0)
        try:
            self.local.start()
        except BaseException:  # this process's bots could not join (or Ctrl-C): the workers stop too
            self.stop()
            raise
        deadline = time.monotonic() + self.join_timeout * max(len(s) for s in self.shares) + 60
        for number in range(1, self.processes):
            worker = self.workers[number]
            worker.done.wait(max(0.0, deadline - time.monotonic()))
            if worker.state != "started":
                why = worker.error or ("it ended" if worker.state == "ended" else "it did not answer in time")
                self.stop()
                raise WorkerError(f"worker {number} could not start {', '.join(worker.names)}: {why}")
        self._started = True
        return self.local.agents

    def _spawn(self, number: int, restarts: int) -> Worker:
        names = [p.name for p in self.shares[number]]
        env = dict(os.environ, **{KEY_VARIABLE: self.hub.key.hex()})
        command = [*self.worker_command, self.hub.address[0], str(self.hub.address[1]), str(number)]
        # a session of its own: the terminal's Ctrl-C reaches only this process, which stops the workers in order
        process = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
        worker = Worker(number, names, process, restarts=restarts)
        with self._lock:
            self.workers[number] = worker
        threading.Thread(target=self._watch, args=(worker,), name=f"watch-worker-{number}", daemon=True).start()
        return worker

    def _config(self, number: int, worker: Worker) -> dict:
        settings = self.settings
        if worker.restarts:  # the agents come back with the memory they had saved
            settings = dataclasses.replace(settings, load_memory=True)
        return {"settings": settings, "profiles": self.shares[number], "host": self.host, "port": self.port,
                "join_at_once": self.join_at_once, "budget_limits": self.budget_limits,
                "console": self.console is not None, "log_level": logging.getLogger().getEffectiveLevel()}

    def _on_message(self, number: int, message: tuple) -> None:
        kind = message[0]
        worker = self.workers.get(number)
        if worker is None:
            return
        if kind == "ready":
            self.hub.post(number, ("config", self._config(number, worker)))
        elif kind == "console" and self.console is not None:
            self.console(message[1], message[2], message[3])
        elif self.remote.receive(number, message):
            pass
        elif kind == "started":
            worker.state = "started"
            self.remote.worker_started(number)
            if worker.restarts:
                self.report(f"worker {number}: {', '.join(worker.names)} joined again")
            worker.done.set()
        elif kind == "failed":
            worker.state, worker.error = "failed", message[1]
            worker.done.set()
        elif kind == "stopped":
            worker.summary = dict(message[1] or {})
        elif kind == "answer":
            with self._answered:
                self._answers[message[1]] = message[2]
                self._answered.notify_all()
        elif kind == "budget exceeded":
            for callback in list(self.on_budget_exceeded):
                callback()

    def _watch(self, worker: Worker) -> None:
        """Wait for the worker to end; one that ends while the run goes on is reported and started again."""
        code = worker.process.wait()
        was_started = worker.state == "started"  # one that never started fails start() (or a restart) instead
        if self.workers.get(worker.number) is worker:  # a dashboard shows its agents gone (until started again)
            self.remote.worker_ended(worker.number, f"its process (worker {worker.number}) ended")
        if worker.state != "failed":
            worker.state = "ended"
        worker.done.set()
        names = ", ".join(worker.names)
        with self._lock:  # stop() takes the same lock: a worker started here is one stop() will stop
            if self._stop.is_set():
                return
            if not was_started:
                if self._started:  # a worker started again that could not join
                    self.report(f"worker {worker.number} could not start {names} again "
                                f"({worker.error or f'exit code {code}'}); they are gone")
                return
            if worker.restarts < self.restarts and self.workers.get(worker.number) is worker:
                self.report(f"worker {worker.number} (pid {worker.process.pid}) ended with exit code {code}; "
                            f"starting {names} again")
                self._spawn(worker.number, worker.restarts + 1)
            else:
                self.report(f"worker {worker.number} (pid {worker.process.pid}) ended with exit code {code}; "
                            f"{names} are gone")

    def wait(self, timeout: float | None = None) -> None:
        """Block until `stop()` (or Ctrl-C, which raises KeyboardInterrupt here)."""
        self._stop.wait(timeout)

    def stop(self) -> None:
        """Stop every worker and this process's agents; returns once the workers have ended."""
        with self._lock:
            first = not self._stop.is_set()
            self._stop.set()
            self.remote.stopped = True
            workers = list(self.workers.values())
        if not first:
            return
        for worker in workers:
            self.hub.post(worker.number, ("stop",))
        self.local.stop()
        deadline = time.monotonic() + STOP_WAIT_S
        for worker in workers:
            process = worker.process
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker %s did not stop within %.0f s; terminating it", worker.number, STOP_WAIT_S)
                process.terminate()
                try:
                    process.wait(5)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self.hub.close()

    def ask(self, number: int, question: Any, timeout: float = 60.0) -> Any:
        """Ask worker `number` a question its run_worker `answer` knows (by default "pids": its process id and
        its Node's); returns the answer. TimeoutError if none came in time."""
        with self._answered:
            self._questions += 1
            asked = self._questions
        if not self.hub.post(number, ("ask", asked, question)):
            raise TimeoutError(f"worker {number} is not connected")
        with self._answered:
            if not self._answered.wait_for(lambda: asked in self._answers, timeout):
                raise TimeoutError(f"worker {number} did not answer {question!r} within {timeout} s")
            return self._answers.pop(asked)

    def spent(self) -> list[dict]:
        """The model spend each worker reported as it stopped."""
        return [w.summary for w in self.workers.values() if w.summary]

    def __enter__(self) -> ProcessRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


# ---- the worker's side ---------------------------------------------------------------------------------
def run_worker(host: str, port: int, number: int, key: bytes, *, setup: Callable[[AgentRunner], None] | None = None,
               answer: Callable[[Any], Any] | None = None) -> int:
    """A worker process: connect to the hub, take its config, join its share of the bots, run until told to stop
    (or until the hub's connection ends: the main process is gone). `setup(runner)` runs once the agents have
    started; `answer(question)` answers ProcessRunner.ask (by default only "pids")."""
    import queue
    import signal

    from ..bridge import runtime, shutdown
    from ..models.budget import shared_budget
    from .hub import HubClient
    from .remote import CardReporter
    from .runner import CONSOLE_EVENTS

    configs: queue.Queue = queue.Queue()
    stopping = threading.Event()
    starting = threading.Event()
    starting.set()
    cards: list[CardReporter] = []  # the dashboard's reporter, once the runner is made
    early: list[tuple] = []  # dashboard messages that came before it
    early_lock = threading.Lock()

    def on_message(message: tuple) -> None:
        if message[0] in ("watch", "steer"):
            with early_lock:
                if not cards:
                    early.append(message)
                    return
            cards[0].handle(message)
        elif message[0] == "config":
            configs.put(message[1])
        elif message[0] == "stop":
            stop()
        elif message[0] == "ask":
            threading.Thread(target=reply, args=message[1:], name="worker-answer", daemon=True).start()

    def reply(asked: int, question: Any) -> None:
        try:
            if answer is not None:
                result = answer(question)
            elif question == "pids":
                result = {"python": os.getpid(), "node": runtime().pid}
            else:
                result = None
        except Exception as exc:
            log.exception("answering %r failed", question)
            result = {"error": str(exc)}
        client.post(("answer", asked, result))

    def stop() -> None:
        stopping.set()
        configs.put(None)
        if starting.is_set():  # still joining: leave at once (the bridge's calls in progress fail)
            shutdown()

    signal.signal(signal.SIGTERM, lambda *_: stop())
    client = HubClient((host, port), key, number, on_message=on_message, on_end=stop)
    client.post(("ready",))
    config = configs.get()
    if config is None:
        return 0
    logging.basicConfig(level=config["log_level"], handlers=[
        visible_log_handler(f"%(asctime)s %(levelname)s worker {number} %(name)s: %(message)s")])

    def relay(name: str, kind: str, text: str) -> None:
        if kind in CONSOLE_EVENTS:
            client.post(("console", name, kind, text))

    budget = None
    if config["budget_limits"] is not None:
        budget = shared_budget(f"worker-{number}", config["budget_limits"])

        def exceeded(exc) -> None:
            client.post(("budget exceeded",))

        budget.on_exceeded.append(exceeded)
    runner = AgentRunner(config["settings"], config["profiles"], config["host"], config["port"],
                         console=relay if config["console"] else None, bus=client.bus,
                         join_at_once=config["join_at_once"],
                         wrap_model=(lambda name, model: budget.wrap(model)) if budget is not None else None)
    with early_lock:
        cards.append(CardReporter(runner, client.post))
        for message in early:
            cards[0].handle(message)
    code = 0
    try:
        runner.start()
        starting.clear()
        if setup is not None:
            setup(runner)
        if not stopping.is_set():
            client.post(("started", list(runner.agents)))
    except Exception as exc:
        starting.clear()
        if not stopping.is_set():
            log.debug("worker %s could not start", number, exc_info=True)
            client.post(("failed", str(exc)))
            code = 1
    if code == 0:
        stopping.wait()
    cards[0].close()
    runner.stop()
    client.post(("stopped", budget.summary() if budget is not None else {}))
    shutdown()
    client.close()
    return code
