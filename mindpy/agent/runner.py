"""Run agents on a server until told to stop: `mindpy run --profile profiles/andy.yaml [--server ...]`.

    with AgentRunner(settings, profiles, host, port) as runner:
        runner.start()          # joins the bots, starts the agents, sends the init message
        runner.wait()           # until Ctrl-C (or `runner.stop()` from another thread)

The console shows who said and did what, one line each ("[andy] !collectBlocks('oak_log', 3)"), with the
control and format characters of what players and models say shown as escapes (\\x1b, \\u202e).
`!restart` closes the agent's bot and starts it again with its saved memory.

While it runs, agents can be added (`add_agent(profile)`), taken out (`remove_agent(name)`: it leaves the game, its
memory saved) and given a new profile (`replace_profile(name, profile)`: it restarts with it, as after !restart):
the dashboard's control panel (mindpy.ui.manage) does this.

A bot that loses its connection (kicked, its socket ended, the bots' Node process died) is reported on the console
at once, one line with the reason. With `rejoin` waits (`mindpy run` gives REJOIN_WAITS_S) the agent comes back as
after !restart, after each wait in turn, until a join succeeds or the waits run out (a line says it gave up); a
dead Node cannot be rejoined, so the run stops. Without them (episodes) the loss is only reported: the episode
counts it as an infrastructure error.
"""

from __future__ import annotations

import contextlib
import logging
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..bridge import create_bot, create_bots, runtime
from ..errors import MindpyError
from ..userfiles import visible_text
from .agent import Agent, EventHook
from .bus import InProcessBus, MessageBus
from .factory import build_agent, start_embedder

log = logging.getLogger(__name__)

# Which agent events the console shows, and how.
CONSOLE_EVENTS = {"heard": "hears", "said": "says", "command": "runs", "output": "sees", "refused": "refused",
                  "to bot": "tells", "model error": "model error", "connection": "connection",
                  "too fast": "too fast", "skill saved": "saved a skill"}

# How long a free-play agent whose bot lost its connection waits before each try to join again (then it gives up).
REJOIN_WAITS_S = (1.0, 2.0, 4.0, 8.0, 16.0)

# Called with every runner of this process once its agents have started (a dashboard watching the run adds
# itself here; see mindpy.ui). A watcher that fails is logged, never the run's problem.
RUNNER_WATCHERS: list[Callable[[AgentRunner], None]] = []


_ORDINARY_SPACE = re.compile(r"[ \t\n]+")


def console_text(text: str) -> str:
    """`text` (said by a player or a model) as one line of plain text for a terminal or a log file: ordinary line
    breaks and tabs become spaces (a command's output stays readable); every other control or format character
    (ESC, a carriage return, U+202E...) is shown as an escape, so nothing said can move the cursor, change the
    terminal, write over a line or turn it around (see mindpy.userfiles.visible_text)."""
    return visible_text(_ORDINARY_SPACE.sub(" ", text).strip())


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
        text = console_text(str(text))
        if len(text) > self.limit:
            text = text[:self.limit - 3] + "..."
        line = f"{time.strftime('%H:%M:%S')} [{console_text(agent_name)}] {label}: {text}"
        with self._lock:
            if self.out is not None:
                print(line, file=self.out, flush=True)

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
                 bus: MessageBus | None = None, join_at_once: int | None = None,
                 rejoin_waits: Sequence[float] = ()):
        """`models` maps a profile name to a ready model (tests, the oracle); others come from the profile. With a
        `task`, the i-th profile plays the task's agent i (the episode lists them in that order).
        `wrap_model(name, model)` and `event_hooks(name)` are the agents' middleware (see build_agent). With
        `rounds` the agents play in round mode (see mindpy.harness.rounds), a restarted one too. `bus`: the agents'
        message bus (default: one of this process; mindpy.agent.processes passes one reaching other processes).
        `join_at_once`: how many bots join at the same time (default: the bridge's pace). `rejoin_waits`: the
        seconds to wait before each try to bring back an agent whose bot lost its connection (none: the loss is
        only reported; see the module's docstring)."""
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
        self.rejoin_waits = tuple(rejoin_waits)
        self._stop = threading.Event()
        self._lost: set[int] = set()  # id() of the agents whose bot was reported lost
        self._lost_lock = threading.Lock()
        self._node_listener: Callable[[str], None] | None = None
        self.failure: str | None = None  # why the run stopped by itself, if it did (the bots' Node died)
        self._changing = threading.Lock()  # one agent added, removed or given a new profile at a time

    # ---- life cycle --------------------------------------------------------------------------------------
    def start(self) -> dict[str, Agent]:
        # the embedding model (if any agent reads examples) loads in the background while the bots join
        start_embedder(list(self.profiles.values()), self.settings, self.models)
        bots = create_bots(list(self.profiles), self.host, self.port, version=self.settings.minecraft_version,
                           at_once=self.join_at_once) if self.profiles else []
        for name, bot in zip(self.profiles, bots, strict=True):
            self.agents[name] = self._make_agent(name, bot)
        for agent in self.agents.values():
            agent.start()
            self._watch_connection(agent)
        self._node_listener = runtime().on_exit(self._node_stopped)
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
        self._retire(agent)
        if self._stop.is_set() or name not in self.profiles:  # the run is over, or the agent was taken out
            return
        try:
            self._join_again(name)
        except MindpyError as exc:
            self._say(name, f"could not join again after !restart: {_first_line(exc)}")

    def _retire(self, agent: Agent) -> None:
        """Save the agent's memory, stop it and leave the server with its bot."""
        agent.history.save()
        agent.close()
        try:
            agent.bot.close()
        except MindpyError as exc:  # a bot already gone leaves nothing to close
            log.warning("%s: closing its bot: %s", agent.name, exc)

    def _join_again(self, name: str) -> Agent:
        """Join a new bot for `name` and start a new agent on it with the saved memory (raises MindpyError)."""
        bot = create_bot(name, self.host, self.port, version=self.settings.minecraft_version)
        fresh = self._make_agent(name, bot)
        saved = fresh.history.load()
        fresh.restore_state(saved)
        self.agents[name] = fresh
        fresh.start()
        self._watch_connection(fresh)
        return fresh

    # ---- agents added and removed while the run plays ------------------------------------------------------
    def add_agent(self, profile, restore: bool = False) -> Agent:
        """Join a bot for `profile` and start its agent (with its saved memory when `restore`); MindpyError when
        the run is over, plays a task, already has an agent of that name, or the bot cannot join."""
        with self._changing:
            self._refuse_changes()
            if profile.name in self.agents:
                raise MindpyError(f"{profile.name} is already playing in this run")
            self.profiles[profile.name] = profile
            bot = None
            try:
                bot = create_bot(profile.name, self.host, self.port, version=self.settings.minecraft_version)
                agent = self._make_agent(profile.name, bot)
            except BaseException:
                del self.profiles[profile.name]
                if bot is not None:
                    with contextlib.suppress(MindpyError):
                        bot.close()
                raise
            if restore and not self.settings.load_memory:  # (with load_memory, build_agent restored it)
                agent.restore_state(agent.history.load())
            self.agents[profile.name] = agent
            agent.start()
            self._watch_connection(agent)
            return agent

    def remove_agent(self, name: str) -> None:
        """Take agent `name` out of the run: its memory is saved, it stops and its bot leaves the server
        (KeyError: no such agent)."""
        with self._changing:
            agent = self.agents.pop(name)  # first: the end of its connection is not reported as a loss
            self.profiles.pop(name, None)
            self._retire(agent)

    def replace_profile(self, name: str, profile) -> None:
        """Give agent `name` a new profile (of the same name): it restarts with it and its saved memory, as after
        !restart (KeyError: no such agent)."""
        if profile.name != name:
            raise MindpyError(f"the profile's name is {profile.name}, not {name}")
        with self._changing:
            self._refuse_changes()
            agent = self.agents[name]
            self.profiles[name] = profile
            agent.request_restart()

    def _refuse_changes(self) -> None:
        if self._stop.is_set():
            raise MindpyError("the run is over")
        if self.task is not None:
            raise MindpyError("a task episode's agents are the task's: none can be added or changed")

    # ---- lost connections ------------------------------------------------------------------------------
    def _watch_connection(self, agent: Agent) -> None:
        """Report the end of the agent's connection that the runner did not ask for (kicked, the socket ended)."""
        kicks: list[str] = []

        def kicked(reason: Any = "", *rest: Any) -> None:
            kicks.append(" ".join(str(reason or "").split()) or "no reason given")

        def ended(reason: Any = "", *rest: Any) -> None:
            why = f"kicked by the server: {kicks[-1]}" if kicks else \
                f"its connection ended ({reason or 'no reason given'})"
            self._bot_lost(agent, why)

        try:
            agent.bot.on("kicked", kicked)
            agent.bot.on("end", ended)
        except MindpyError as exc:  # Node went away meanwhile: its own listener reports that
            log.warning("%s: could not watch its connection: %s", agent.name, exc)

    def _claim_loss(self, agent: Agent) -> bool:
        """Whether this loss of the agent's bot is the first reported, and one the runner did not cause."""
        if agent.bot.closed or self._stop.is_set() or self.agents.get(agent.name) is not agent:
            return False
        with self._lost_lock:
            if id(agent) in self._lost:
                return False
            self._lost.add(id(agent))
            return True

    def _bot_lost(self, agent: Agent, why: str) -> None:
        if not self._claim_loss(agent):
            return
        if not self.rejoin_waits:
            self._say(agent.name, f"lost its bot: {why}")
            return
        self._say(agent.name, f"lost its bot: {why}; rejoining in {self.rejoin_waits[0]:g} s "
                              f"(try 1 of {len(self.rejoin_waits)})")
        threading.Thread(target=self._rejoin, args=(agent,), name=f"rejoin-{agent.name}", daemon=True).start()

    def _rejoin(self, agent: Agent) -> None:
        """Bring the agent back on a new bot, trying after each of the rejoin waits; say so if it gives up."""
        name, tries = agent.name, len(self.rejoin_waits)
        self._retire(agent)
        last = ""
        for i, wait in enumerate(self.rejoin_waits):
            if self._stop.wait(wait):
                return
            try:
                self._join_again(name)
            except MindpyError as exc:
                last = _first_line(exc)
                if i + 1 < tries:
                    self._say(name, f"could not rejoin: {last}; next try in {self.rejoin_waits[i + 1]:g} s "
                                    f"({i + 2} of {tries})")
                continue
            self._say(name, f"rejoined {self.host}:{self.port} (try {i + 1} of {tries})")
            return
        self._say(name, f"gave up rejoining after {tries} tries (last: {last}); it stays off the server")

    def _node_stopped(self, reason: str) -> None:
        """The bots' Node process died: every bot is lost, and none can join again in this process."""
        lost = [agent for agent in list(self.agents.values()) if self._claim_loss(agent)]
        if not lost:
            return
        ending = "; no bot can join again without it: the run stops" if self.rejoin_waits else ""
        for agent in lost:
            self._say(agent.name, f"lost its bot: {reason}{ending}")
        if self.rejoin_waits:
            self.failure = reason
            self.stop()

    def _say(self, name: str, text: str) -> None:
        """One console line about the agent's connection (a log line when the runner has no console)."""
        if self.console is not None:
            self.console(name, "connection", text)
        else:
            log.warning("%s: %s", name, text)

    @property
    def stopped(self) -> bool:
        """Whether `stop()` was called (the run is over)."""
        return self._stop.is_set()

    def wait(self, timeout: float | None = None) -> None:
        """Block until `stop()` (or Ctrl-C, which raises KeyboardInterrupt here)."""
        self._stop.wait(timeout)

    def stop(self) -> None:
        self._stop.set()
        listener, self._node_listener = self._node_listener, None
        if listener is not None:
            with contextlib.suppress(MindpyError):  # a closed bridge calls no listener anyway
                runtime().off_exit(listener)
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


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
