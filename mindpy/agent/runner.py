"""Run agents on a server until told to stop: `mindpy run --profile profiles/andy.yaml [--server ...]`.

    with AgentRunner(settings, profiles, host, port) as runner:
        runner.start()          # joins the bots, starts the agents, sends the init message
        runner.wait()           # until Ctrl-C (or `runner.stop()` from another thread)

The console shows who said and did what, one line each ("[andy] !collectBlocks('oak_log', 3)").
`!restart` closes the agent's bot and starts it again with its saved memory.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..bridge import create_bots
from .agent import Agent, EventHook
from .bus import InProcessBus, MessageBus
from .factory import build_agent, start_embedder

log = logging.getLogger(__name__)

# Which agent events the console shows, and how.
CONSOLE_EVENTS = {"heard": "hears", "said": "says", "command": "runs", "output": "sees", "refused": "refused",
                  "to bot": "tells", "model error": "model error"}

# Called with every runner of this process once its agents have started (a dashboard watching the run adds
# itself here; see mindpy.ui). A watcher that fails is logged, never the run's problem.
RUNNER_WATCHERS: list[Callable[[AgentRunner], None]] = []


class TextSink(Protocol):
    """Where console lines go: a file, the terminal, or both."""

    def write(self, text: str, /) -> Any: ...
    def flush(self) -> Any: ...


class ConsoleLog:
    """Prints agents' events as readable lines, in the order they happen."""

    def __init__(self, out: TextSink = sys.stdout, limit: int = 300):
        self.out: TextSink | None = out
        self.limit = limit
        self._lock = threading.Lock()

    def __call__(self, agent_name: str, kind: str, text: str) -> None:
        label = CONSOLE_EVENTS.get(kind)
        if label is None:
            return
        text = " ".join(text.split())
        if len(text) > self.limit:
            text = text[:self.limit - 3] + "..."
        with self._lock:
            if self.out is not None:
                print(f"{time.strftime('%H:%M:%S')} [{agent_name}] {label}: {text}", file=self.out, flush=True)

    def close(self) -> None:
        """Drop later events: an agent thread still winding down must not write to a closed log file."""
        with self._lock:
            self.out = None


class AgentRunner:
    """Joins one bot per profile, builds and starts their agents, and restarts one that asks for it."""

    def __init__(self, settings, profiles: list, host: str, port: int, *,
                 models: dict[str, Any] | None = None, console: Callable[[str, str, str], None] | None = None,
                 task: Any = None, blocked: dict[str, list[str]] | None = None,
                 wrap_model: Callable[[str, Any], Any] | None = None,
                 event_hooks: Callable[[str], Sequence[EventHook]] | None = None, rounds: bool = False,
                 bus: MessageBus | None = None, join_at_once: int | None = None):
        """`models` maps a profile name to a ready model (tests, the oracle); others come from the profile. With a
        `task`, the i-th profile plays the task's agent i (the episode lists them in that order).
        `wrap_model(name, model)` and `event_hooks(name)` are the agents' middleware (see build_agent). With
        `rounds` the agents play in round mode (see mindpy.harness.rounds), a restarted one too. `bus`: the agents'
        message bus (default: one of this process; mindpy.agent.processes passes one reaching other processes).
        `join_at_once`: how many bots join at the same time (default: the bridge's pace)."""
        self.settings = settings
        self.profiles = {p.name: p for p in profiles}
        self.host, self.port = host, port
        self.models = dict(models or {})
        self.console = console
        self.task = task
        self.blocked = blocked or {}
        self.wrap_model = wrap_model
        self.event_hooks = event_hooks
        self.rounds = rounds
        self.bus: MessageBus = bus if bus is not None else InProcessBus()
        self.join_at_once = join_at_once
        self.agents: dict[str, Agent] = {}
        self._stop = threading.Event()

    # ---- life cycle --------------------------------------------------------------------------------------
    def start(self) -> dict[str, Agent]:
        # the embedding model (if any agent reads examples) loads in the background while the bots join
        start_embedder(list(self.profiles.values()), self.settings, self.models)
        bots = create_bots(list(self.profiles), self.host, self.port, version=self.settings.minecraft_version,
                           at_once=self.join_at_once)
        for name, bot in zip(self.profiles, bots, strict=True):
            self.agents[name] = self._make_agent(name, bot)
        for agent in self.agents.values():
            agent.start()
        for watch in list(RUNNER_WATCHERS):
            try:
                watch(self)
            except Exception:
                log.exception("a runner watcher failed")
        return self.agents

    def _make_agent(self, name: str, bot) -> Agent:
        hooks = list(self.event_hooks(name)) if self.event_hooks is not None else []
        console = self.console
        if console is not None:
            hooks.insert(0, lambda kind, text: console(name, kind, text))
        return build_agent(self.profiles[name], bot, self.settings, model=self.models.get(name), bus=self.bus,
                           task=self.task, blocked=self.blocked.get(name, ()), wrap_model=self.wrap_model,
                           on_event=hooks, on_restart=self._restart,
                           agent_index=list(self.profiles).index(name) if self.task is not None else None,
                           rounds=self.rounds)

    def _restart(self, agent: Agent) -> None:
        """Close the agent and its bot, then join again with the saved memory."""
        name = agent.name
        log.info("%s: restarting", name)
        agent.history.save()
        agent.close()
        agent.bot.close()
        if self._stop.is_set():
            return
        from ..bridge import create_bot

        bot = create_bot(name, self.host, self.port, version=self.settings.minecraft_version)
        fresh = self._make_agent(name, bot)
        saved = fresh.history.load()
        fresh.restore_state(saved)
        self.agents[name] = fresh
        fresh.start()

    @property
    def stopped(self) -> bool:
        """Whether `stop()` was called (the run is over)."""
        return self._stop.is_set()

    def wait(self, timeout: float | None = None) -> None:
        """Block until `stop()` (or Ctrl-C, which raises KeyboardInterrupt here)."""
        self._stop.wait(timeout)

    def stop(self) -> None:
        self._stop.set()
        for agent in list(self.agents.values()):
            try:
                agent.history.save()
                agent.close()
            except Exception:
                log.exception("closing %s failed", agent.name)
        for agent in list(self.agents.values()):
            try:
                agent.bot.close()
            except Exception:
                log.exception("closing the bot of %s failed", agent.name)

    def __enter__(self) -> AgentRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
