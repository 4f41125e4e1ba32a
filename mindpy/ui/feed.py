"""The live state of the agents a dashboard shows: the runners of this process (mindpy.agent.runner tells of each
one that starts), the worker agents of a multi-process run (mindpy.agent.processes tells of its WorkerAgents), a
card for every agent, and the map around them.

Snapshots are read only while a page watches (`watching()`), on a thread of the feed's own, so that an unwatched
dashboard costs the bots nothing: what the agents think and do (events, action, modes, goal: plain Python, no
bridge call) ten times a second, what their bots hold and where they stand (two bridge calls per bot,
mindpy.world.queries) twice a second, the map (mindpy.world.top_down) once a second. Worker processes read their
own agents at the same rates while a page watches (they are told when it starts and stops) and send the cards
that changed (mindpy.agent.remote).

Every card has a version of its own (`card_versions`), so a page is sent only the cards that changed since it
last heard (`changes`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import MindpyError
from . import controls
from .snapshot import agent_snapshot, map_snapshot, world_snapshot

log = logging.getLogger(__name__)

MIND_INTERVAL_S = 0.1   # how often the agents' own state is read while a page watches
CARD_INTERVAL_S = 0.5   # how often their bots are read
MAP_INTERVAL_S = 1.0    # how often the map is read (a 65x65 read takes about 2 ms of Node)
MAP_RADIUS = 32         # blocks from the map's centre to its edge (the page may choose 16 to 64)


class AgentFeed:
    """Runners seen so far, and the newest snapshot of their agents; `version` goes up with every change."""

    def __init__(self, card_interval: float = CARD_INTERVAL_S, map_interval: float = MAP_INTERVAL_S,
                 map_radius: int = MAP_RADIUS):
        self.card_interval = card_interval
        self.map_interval = map_interval
        self.map_radius = map_radius
        self.runners: list[Any] = []
        self.remotes: list[Any] = []  # WorkerAgents of multi-process runs (mindpy.agent.remote)
        self.cards: dict[str, dict] = {}  # name -> its newest card
        self.card_versions: dict[str, int] = {}  # name -> the version at which its card last changed
        self.run: dict | None = None
        self.run_version = 0
        self.map: dict | None = None
        self.map_centre: str | None = None  # an agent's name, or None: the middle of all agents
        self.version = 0
        self.map_version = 0
        self._watchers = 0
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_map = 0.0
        self._last_world = 0.0
        self._world: dict[str, tuple[dict | None, str | None]] = {}

    # ---- what is watched -----------------------------------------------------------------------------------
    def add_runner(self, runner: Any) -> None:
        """Show `runner`'s agents (a watcher of mindpy.agent.runner.RUNNER_WATCHERS, or called directly)."""
        with self._lock:
            if runner not in self.runners:
                self.runners.append(runner)
        self._wake.set()

    def add_remote(self, remote: Any) -> None:
        """Show the worker agents of a multi-process run (a watcher of mindpy.agent.processes.REMOTE_WATCHERS)."""
        with self._lock:
            if remote in self.remotes:
                return
            self.remotes.append(remote)
            watched = self._watchers > 0
        remote.on_change.append(self._merge_remote)
        if watched:
            remote.watch(self._rates())
        self._wake.set()

    def live_remotes(self) -> list[Any]:
        return [r for r in list(self.remotes) if not r.stopped]

    def remote_of(self, name: str) -> Any:
        """The WorkerAgents that plays agent `name` in one of its workers, or None."""
        for remote in reversed(self.live_remotes()):
            if remote.owner(name) is not None:
                return remote
        return None

    @property
    def state(self) -> dict:
        """Every card (by name) and the run being played."""
        with self._lock:
            return {"agents": [self.cards[n] for n in sorted(self.cards)], "run": self.run}

    def changes(self, sent: dict[str, int], sent_run: int) -> tuple[list[dict], list[str], int]:
        """The cards whose version is not the one in `sent` (name -> version; updated in place), the names sent
        before that are gone, and the run's version now."""
        with self._lock:
            changed = [self.cards[n] for n in sorted(self.cards) if sent.get(n) != self.card_versions[n]]
            removed = [n for n in sent if n not in self.cards]
            for name in removed:
                del sent[name]
            for card in changed:
                sent[card["name"]] = self.card_versions[card["name"]]
            return changed, removed, self.run_version

    def _rates(self) -> dict:
        return {"mind": MIND_INTERVAL_S, "card": self.card_interval}

    def agents(self) -> dict[str, Any]:
        """Name -> agent, of every runner still running (the newest runner wins a name)."""
        found: dict[str, Any] = {}
        for runner in list(self.runners):
            if getattr(runner, "stopped", False):
                continue
            found.update(runner.agents)
        return found

    def runner_of(self, name: str) -> Any:
        """The running runner whose agent is `name`, or None."""
        for runner in reversed(list(self.runners)):
            if not getattr(runner, "stopped", False) and name in runner.agents:
                return runner
        return None

    @contextmanager
    def watching(self) -> Iterator[None]:
        """While a page is connected: snapshots are read."""
        with self._lock:
            self._watchers += 1
            first = self._watchers == 1
            remotes = self.live_remotes() if first else []
        for remote in remotes:  # the workers start sending their agents' cards
            remote.watch(self._rates())
        self._wake.set()
        try:
            yield
        finally:
            with self._lock:
                self._watchers -= 1
                last = self._watchers == 0
                remotes = list(self.remotes) if last else []
            for remote in remotes:  # ... and stop: nothing is read while no page is open
                remote.watch(None)

    def poke(self, map_too: bool = False) -> None:
        """Read again now (after a control changed something), the map too if asked."""
        if map_too:
            self._last_map = 0.0
        self._wake.set()

    # ---- the reading thread --------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="dashboard-feed", daemon=True)
            self._thread.start()

    @property
    def closed(self) -> bool:
        """Whether the dashboard is closing: its pages' websockets end."""
        return self._stop.is_set()

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        with self._changed:
            self._changed.notify_all()

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            if self._watchers > 0:
                woken = self._wake.is_set()
                self._wake.clear()
                try:
                    self.refresh(read_bots=woken or started - self._last_world >= self.card_interval)
                    if time.monotonic() - self._last_map >= self.map_interval:
                        self._last_map = time.monotonic()
                        self.refresh_map()
                except Exception:  # an agent changing under us (restart, closing): the next round reads again
                    log.exception("reading the agents for the dashboard")
            self._wake.wait(max(0.02, MIND_INTERVAL_S - (time.monotonic() - started)))

    def refresh(self, read_bots: bool = True) -> dict:
        """Read every agent of this process now (their bots too, or the last bot reads), take the worker agents'
        newest cards; returns the new state."""
        agents = sorted(self.agents().items())
        if read_bots:
            self._last_world = time.monotonic()
            self._world = {name: world_snapshot(agent) for name, agent in agents}
        cards = {name: agent_snapshot(agent, self._world.get(name) or world_snapshot(agent)) for name, agent in agents}
        self._update(cards, self._remote_cards(exclude=cards), self._run_info())
        return self.state

    def _remote_cards(self, exclude: dict) -> dict[str, dict]:
        found: dict[str, dict] = {}
        for remote in self.live_remotes():
            found.update({n: c for n, c in remote.snapshot().items() if n not in exclude})
        return found

    def _merge_remote(self) -> None:
        """A worker sent cards (on the hub's reading thread): take them now, the agents of this process as they
        were last read."""
        with self._lock:
            local = {n: c for n, c in self.cards.items() if "process" not in c}
            run = self.run
        self._update(local, self._remote_cards(exclude=local), run)

    def _update(self, local: dict[str, dict], remote: dict[str, dict], run: dict | None) -> None:
        with self._changed:
            cards = {**remote, **local}
            changed = False
            for name, card in cards.items():
                if self.cards.get(name) != card:
                    self.version += 1
                    self.cards[name] = card
                    self.card_versions[name] = self.version
                    changed = True
            for name in [n for n in self.cards if n not in cards]:
                del self.cards[name]
                del self.card_versions[name]
                self.version += 1
                changed = True
            if run != self.run:
                self.run = run
                self.version += 1
                self.run_version = self.version
                changed = True
            if changed:
                self._changed.notify_all()

    def refresh_map(self) -> dict | None:
        """Read the map around the agents now (None when no agent is running)."""
        agents = self.agents()
        elsewhere: dict[str, tuple[float, float, float]] = {}
        readers: dict[str, Any] = {}
        for remote in self.live_remotes():
            for name, position in remote.positions().items():
                elsewhere[name] = position
                readers[name] = remote
        if not agents and not elsewhere:
            return None

        def read_elsewhere(name: str, x: float, z: float, radius: int) -> dict:
            return readers[name].read_map(name, x, z, radius)

        try:
            snapshot = map_snapshot(agents, self.map_radius, self.map_centre, elsewhere=elsewhere,
                                    read_elsewhere=read_elsewhere if readers else None)
        except MindpyError as exc:  # a busy or closing bot: the next read tries again
            log.info("reading the map: %s", exc)
            return None
        with self._changed:
            self.map = snapshot
            self.map_version += 1
            self._changed.notify_all()
        return snapshot

    def wait_for_change(self, version: int, map_version: int, timeout: float) -> None:
        """Block until the state or the map is newer than the versions given, or `timeout` seconds."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version or self.map_version != map_version
                                   or self._stop.is_set(), timeout=timeout)

    def _run_info(self) -> dict | None:
        """The run the newest running runner plays: its task (id, type, time left), if any."""
        for runner in reversed(list(self.runners)):
            if getattr(runner, "stopped", False):
                continue
            task = getattr(runner, "task", None)
            if task is None:
                return {"task": None}
            starts = [a.task_start for a in runner.agents.values() if getattr(a, "task_start", None)]
            elapsed = time.time() - min(starts) if starts else None
            return {"task": {"id": task.id, "type": task.type, "timeout": task.timeout,
                             "elapsed": None if elapsed is None else round(elapsed, 1),
                             "ended": any(a.context.task_finished.is_set() for a in runner.agents.values())}}
        return None

    # ---- steering --------------------------------------------------------------------------------------------
    def steer(self, name: str, what: str, args: dict | None = None) -> str:
        """A control ("say", "stop", "restart", "mode") on agent `name`, wherever it runs: this process's agents
        directly, a worker's through its process (the same checks there). LookupError: no such agent;
        ControlError: refused."""
        agent = self.agents().get(name)
        if agent is not None:
            result = controls.steer(agent, what, dict(args or {}))
        else:
            remote = self.remote_of(name)
            if remote is None:
                raise LookupError(name)
            result = remote.steer(name, what, dict(args or {}))
        self.poke()
        return str(result)
