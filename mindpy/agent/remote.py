"""A dashboard's reach into the worker processes of a multi-process run (`mindpy run --processes N --ui`).

The dashboard lives in the run's process; a worker's agents, bots and Node process live in the worker. Over the
worker's hub connection (mindpy.agent.hub, the same `(kind, ...)` tuples as its console lines):

    run's process -> worker   ("watch", {"mind": 0.1, "card": 0.5} or None)   start (rates in s) / stop sending
                              ("steer", id, name, what, args)                 say, stop, restart, mode, view,
                                                                              close view, map
    worker -> run's process   ("cards", {name: card or None})                 the cards that changed (None: gone)
                              ("steered", id, ok, result or error)

`CardReporter` is the worker's end: while told to watch it reads its agents' cards with mindpy.agent.cards at the
rates given (what the agents do every `mind` s, their bots every `card` s, as the dashboard reads its own
process's agents) and sends only the cards that changed; while not watching it reads nothing. Controls run
through mindpy.agent.steering, so a worker's agent gets the same checks as one of the run's process.

`WorkerAgents` is the run's end (ProcessRunner.remote): the newest card of every worker agent, the worker each
lives in, and `steer` to relay a control and wait for its answer. A worker that ends leaves its cards marked gone
until a worker started again sends its agents' cards.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from ..errors import MindpyError
from ..view import OneViewer
from .cards import agent_snapshot, map_around, world_snapshot
from .steering import ControlError, steer

log = logging.getLogger(__name__)

STEER_TIMEOUT_S = 15.0   # how long a relayed control may take to be answered
VIEW_TIMEOUT_S = 60.0    # opening a 3D view starts its page in the worker's Node process


# ---- the worker's end ---------------------------------------------------------------------------------------
class CardReporter:
    """Sends a worker's agents' cards to the run's process while a dashboard page watches, and carries out the
    controls it relays. `runner`: the worker's AgentRunner (its `agents` are read each round, so a restarted agent
    is seen); `post(message)`: the worker's hub connection."""

    def __init__(self, runner: Any, post: Callable[[tuple], bool]):
        self.runner = runner
        self.post = post
        self._rates: dict | None = None
        self._wake = threading.Event()
        self._closed = False
        self._sent: dict[str, dict] = {}
        self._world: dict[str, tuple[dict | None, str | None]] = {}
        self._last_world = 0.0
        self._view = OneViewer()
        self._thread = threading.Thread(target=self._loop, name="card-reporter", daemon=True)
        self._thread.start()

    def handle(self, message: tuple) -> bool:
        """Take a message of the run's process meant for the dashboard; False if it is none of these."""
        kind = message[0]
        if kind == "watch":
            self._rates = dict(message[1]) if message[1] else None
            self._sent = {}  # a new watch starts with every card
            self._last_world = 0.0
            self._wake.set()
        elif kind == "steer":
            threading.Thread(target=self._steer, args=message[1:], name="worker-steer", daemon=True).start()
        else:
            return False
        return True

    def close(self) -> None:
        self._closed = True
        self._rates = None
        self._wake.set()
        self._view.close()

    def _loop(self) -> None:
        while not self._closed:
            rates = self._rates
            if rates is None:
                self._wake.wait()
                self._wake.clear()
                continue
            started = time.monotonic()
            woken = self._wake.is_set()
            self._wake.clear()
            try:
                self._report(read_bots=woken or started - self._last_world >= rates["card"])
            except Exception:  # an agent changing under us (restart, closing): the next round reads again
                log.exception("reading the agents' cards")
            self._wake.wait(max(0.02, rates["mind"] - (time.monotonic() - started)))

    def _report(self, read_bots: bool) -> None:
        agents = sorted(dict(self.runner.agents).items())
        if read_bots:
            self._last_world = time.monotonic()
            self._world = {name: world_snapshot(agent) for name, agent in agents}
        changed: dict[str, dict | None] = {}
        for name, agent in agents:
            try:
                card: dict | None = agent_snapshot(agent, self._world.get(name) or world_snapshot(agent))
            except Exception as exc:  # closing or restarting: shown as such until the next round
                log.debug("card of %s: %s", name, exc)
                continue
            if self._sent.get(name) != card:
                changed[name] = card
        for name in [n for n in self._sent if n not in dict(agents)]:
            changed[name] = None
        if changed and self._rates is not None and self.post(("cards", changed)):
            for name, card in changed.items():
                if card is None:
                    self._sent.pop(name, None)
                else:
                    self._sent[name] = card

    def _steer(self, asked: int, name: str, what: str, args: dict) -> None:
        try:
            if what == "close view":
                self._view.close()
                result: Any = "closed"
            else:
                agent = self.runner.agents.get(name)
                if agent is None:
                    raise ControlError(f"no running agent named {name!r} in this process")
                if what == "view":
                    result = self._view.open(agent)
                elif what == "map":
                    result = map_around(agent.bot, float(args["x"]), float(args["z"]), int(args["radius"]))
                else:
                    result = steer(agent, what, args)
                    self._wake.set()  # the card shows the control's effect at once
            self.post(("steered", asked, True, result))
        except Exception as exc:
            if not isinstance(exc, MindpyError):  # a refusal or a view that cannot open is said, not logged
                log.info("%s of %s failed", what, name, exc_info=True)
            self.post(("steered", asked, False, str(exc) or type(exc).__name__))


# ---- the run's end --------------------------------------------------------------------------------------------
class WorkerAgents:
    """The worker agents of a multi-process run as the run's process sees them (see the module's documentation).
    `post(worker, message)`: the hub's. `on_change` callbacks run (on the hub's reading thread) whenever a card
    changed: keep them short."""

    def __init__(self, post: Callable[[int, tuple], bool], shares: dict[int, list[str]]):
        self._post = post
        self.shares = {n: list(names) for n, names in shares.items()}  # worker number -> its agents' names
        self.cards: dict[str, dict] = {}
        self.on_change: list[Callable[[], None]] = []
        self.stopped = False
        self._lock = threading.Lock()
        self._rates: dict | None = None
        self._watchers = 0
        self._live: set[int] = set()  # workers whose agents have started and not ended
        self._answers: dict[int, tuple[bool, Any]] = {}
        self._answered = threading.Condition(self._lock)
        self._ids = itertools.count(1)
        self._view_worker: int | None = None

    def owner(self, name: str) -> int | None:
        """The number of the worker that plays `name`, or None."""
        return next((n for n, names in self.shares.items() if name in names), None)

    def names(self) -> list[str]:
        return [name for names in self.shares.values() for name in names]

    def snapshot(self) -> dict[str, dict]:
        """Name -> the newest card of every worker agent seen so far."""
        with self._lock:
            return dict(self.cards)

    def positions(self) -> dict[str, tuple[float, float, float]]:
        """Where the worker agents stood at their last card (gone ones left out)."""
        found = {}
        for name, card in self.snapshot().items():
            world = card.get("world")
            if world and not card.get("gone"):
                p = world["position"]
                found[name] = (float(p["x"]), float(p["y"]), float(p["z"]))
        return found

    # ---- watching --------------------------------------------------------------------------------------
    def watch(self, rates: dict | None) -> None:
        """A page started watching (`rates`: {"mind": s, "card": s}) or stopped (None); the workers send cards
        while at least one watches."""
        with self._lock:
            self._watchers = max(0, self._watchers + (1 if rates is not None else -1))
            if rates is not None:
                self._rates = dict(rates)
            now = self._rates if self._watchers > 0 else None
            first_or_last = (rates is not None and self._watchers == 1) or (rates is None and self._watchers == 0)
            workers = sorted(self._live)
        if first_or_last:
            for number in workers:
                self._post(number, ("watch", now))

    def worker_started(self, number: int) -> None:
        """Worker `number`'s agents have started (again): it sends cards if a page watches."""
        with self._lock:
            self._live.add(number)
            rates = self._rates if self._watchers > 0 else None
        if rates is not None:
            self._post(number, ("watch", rates))

    def worker_ended(self, number: int, why: str) -> None:
        """Worker `number` ended: its agents' cards show them gone, controls to them are refused."""
        with self._lock:
            self._live.discard(number)
            if self._view_worker == number:
                self._view_worker = None
            for name in self.shares.get(number, []):
                card = self.cards.get(name) or {"name": name, "model": "", "action": None, "idle": True,
                                                "modes": {}, "goal": None, "goal_state": "", "partners": [],
                                                "events": [], "spend": {"calls": 0, "prompt_tokens": 0,
                                                                        "completion_tokens": 0, "usd": None},
                                                "task_goal": None, "process": number}
                self.cards[name] = {**card, "gone": why, "world": None, "world_error": why, "action": None}
            self._answered.notify_all()
        self._changed()

    def receive(self, number: int, message: tuple) -> bool:
        """A worker's message meant for the dashboard; False if it is none of these."""
        kind = message[0]
        if kind == "cards":
            with self._lock:
                for name, card in message[1].items():
                    if card is None:
                        self.cards.pop(name, None)
                    else:
                        self.cards[name] = {**card, "process": number, "gone": None}
            self._changed()
        elif kind == "steered":
            if not message[1]:  # a control nobody waits for (closing a view)
                return True
            with self._lock:
                self._answers[message[1]] = (bool(message[2]), message[3])
                self._answered.notify_all()
        else:
            return False
        return True

    def _changed(self) -> None:
        for callback in list(self.on_change):
            try:
                callback()
            except Exception:
                log.exception("a worker card watcher failed")

    # ---- controls ----------------------------------------------------------------------------------------
    def steer(self, name: str, what: str, args: dict | None = None, timeout: float = STEER_TIMEOUT_S) -> Any:
        """Carry out a control on worker agent `name` in its process; its answer (ControlError: refused, or the
        worker is gone or did not answer)."""
        number = self.owner(name)
        if number is None:
            raise ControlError(f"no running agent named {name!r}")
        with self._lock:
            if number not in self._live:
                raise ControlError(f"{name} is gone: its process (worker {number}) has ended")
            asked = next(self._ids)
        if not self._post(number, ("steer", asked, name, what, dict(args or {}))):
            raise ControlError(f"{name}'s process (worker {number}) is not connected")
        with self._lock:
            done = self._answered.wait_for(lambda: asked in self._answers or number not in self._live, timeout)
            if asked not in self._answers:
                raise ControlError(f"{name}'s process (worker {number}) "
                                   f"{'ended' if done else f'did not answer within {timeout:.0f} s'}")
            ok, result = self._answers.pop(asked)
        if not ok:
            raise ControlError(str(result))
        return result

    def open_view(self, name: str) -> str:
        """The address of the 3D view of worker agent `name`'s bot (opened in its worker, whose Node serves it on
        127.0.0.1); a view open in another worker is closed."""
        number = self.owner(name)
        url = str(self.steer(name, "view", timeout=VIEW_TIMEOUT_S))
        with self._lock:
            before, self._view_worker = self._view_worker, number
        if before is not None and before != number:
            self._post(before, ("steer", 0, "", "close view", {}))
        return url

    def close_views(self) -> None:
        """Close a worker's 3D view (another bot's view opened in the run's process, or the dashboard stops)."""
        with self._lock:
            before, self._view_worker = self._view_worker, None
        if before is not None:
            self._post(before, ("steer", 0, "", "close view", {}))

    def read_map(self, name: str, x: float, z: float, radius: int) -> dict:
        """The map around (x, z) as worker agent `name`'s bot has loaded it."""
        return dict(self.steer(name, "map", {"x": x, "z": z, "radius": radius}, timeout=5.0))
