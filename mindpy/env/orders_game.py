"""An orders task's kitchen stepped by a dispatcher's reply given from outside: what mindpy/orders-v0 runs on. It
plays with the family's own pieces (mindpy.tasks.families.orders.play: the cooks, the kitchen's set-up, the two
halves of OrdersPlay's step) and a Dispatcher whose replies are the learner's text (Dispatcher.answer), so a step
is exactly a step of an orders episode, the model's call aside.

    game = OrdersGame(task, max_steps=5)
    seen, info = game.reset(seed=1)        # the cooks join on the first reset; the kitchen is set up; step 0 read
    seen.prompt.user, seen.state           # the dispatcher's prompt (this step's part) and its DispatchState
    seen, completed, ended, info = game.step('andy: !craftRecipe("golden_apple", 1)')
    game.close()                           # the cooks leave, the embedded server stops

A reply's problems (an unknown cook, a busy one, a malformed command...) never raise: they are in the step's info
and in the next prompt's feedback, as a model's are. The episode ends after its last step (the task's
`episode_steps`, or `max_steps` when fewer); when all its steps were played the orders still open fail then.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..dispatch import Dispatcher
from ..dispatch.cooks import CookCommands
from ..dispatch.kitchen import KitchenView, dispatch_state
from ..dispatch.prompt import DispatchPrompt
from ..dispatch.state import DispatchState, OpenOrder
from ..tasks.families.orders.book import OrderBook, OrderStream
from ..tasks.families.orders.cos import completion_rate, tally
from ..tasks.families.orders.play import (
    CALLS_FILE,
    OrdersOptions,
    OrdersPlay,
    StepStart,
    restocker,
    set_up_kitchen,
    start_cooks,
)
from ..tasks.families.orders.world import ServingChest
from ..tasks.schema import Task
from ..tasks.world import issue_via_server
from .model import LearnerModel
from .tasks import refuse_humans

STOP_WAIT_S = 10.0  # a reset: how long the last episode's running commands may take to stop


@dataclass(frozen=True)
class Seen:
    """What the dispatcher is shown at a step: its prompt and the state the prompt renders."""

    prompt: DispatchPrompt
    state: DispatchState


class OrdersGame:
    """An orders task's kitchen, stepped (see the module's docstring). `server`: "embedded" (started on the first
    reset), HOST:PORT of a running server, or a running EmbeddedServer (shared, left running); `options`: the
    family's OrdersOptions (the paper's game steps by default); `names`: the cooks' names."""

    def __init__(self, task: Task, *, server: Any = "embedded", run_dir: str | Path | None = None,
                 max_steps: int | None = None, names: list[str] | None = None, options: OrdersOptions | None = None,
                 settings_overrides: dict[str, Any] | None = None):
        from ..harness.session import EpisodeSession

        refuse_humans(task)
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a whole number of at least 1, or None, got {max_steps!r}")
        self.shared_server = None if isinstance(server, str) else server
        if self.shared_server is not None:
            server = f"{self.shared_server.host}:{self.shared_server.port}"
        self.task = task
        self.options = options or OrdersOptions()
        self.stream = OrderStream.from_fields(task.fields.as_dict())
        self.steps = min(self.stream.episode_steps, max_steps or self.stream.episode_steps)
        self.cap_s = (self.options.step_cap_s or task.timeout / self.stream.episode_steps) \
            if self.options.wall_clock else self.options.command_limit_s
        self._own_dir = run_dir is None
        self.run_dir = Path(tempfile.mkdtemp(prefix="mindpy-orders-")) if run_dir is None else Path(run_dir)
        self.session = EpisodeSession(task, self.run_dir, server=server, settings_overrides=settings_overrides,
                                      names=names, family_options={"orders": self.options})
        self.names = list(self.session.names)
        self.dishes = list(task.fields.dishes)
        self.settings = self.session.load_settings(base_profile="task", profile_model=False, init_message="")
        self.version: str = self.settings.minecraft_version
        self.agents: dict[str, Any] = {}
        self.cooks = CookCommands({})
        self.issue: Any = None
        self.play: OrdersPlay | None = None
        self.dispatcher: Dispatcher | None = None
        self.calls: IO[str] | None = None
        self.started: StepStart | None = None
        self.seen: Seen | None = None
        self.t = 0
        self.ended = True
        self.closed = False

    # ----- life cycle -----
    def _start(self) -> None:
        session = self.session
        session.open_server()
        console = session.open_console()
        self.agents = start_cooks(session, self.settings, console,
                                  lambda name: [lambda kind, text: self.cooks.on_event(name, kind, text)])
        bots = [self.agents[n].bot for n in self.names]
        self.issue = issue_via_server(self.shared_server) if self.shared_server is not None else \
            session.issue_for(bots)

    def reset(self, seed: int = 0) -> tuple[Seen, dict[str, Any]]:
        """Set the kitchen up (the cooks join on the first reset; `seed` chooses its random parts) and read step
        0: what the dispatcher is shown, and the info."""
        if self.closed:
            raise RuntimeError("the environment is closed")
        if not self.agents:
            self._start()
        for agent in self.agents.values():  # what the last episode left running stops
            agent.actions.stop(wait=STOP_WAIT_S)
        self.cooks.wait(STOP_WAIT_S)
        self.cooks = CookCommands(dict(self.agents))
        setup = set_up_kitchen(self.session, self.agents, self.issue, int(seed))
        self.dispatcher = Dispatcher(LearnerModel(), self.options.dispatcher, self.names, dishes=self.dishes)
        if self.calls is not None:
            self.calls.close()
        self.calls = (self.run_dir / CALLS_FILE).open("w", encoding="utf-8")
        bots = [self.agents[n].bot for n in self.names]
        self.play = OrdersPlay(OrderBook(self.stream, max_open=self.options.max_open), self.dispatcher, self.cooks,
                               lambda: {n: self.agents[n].bot.inventory() for n in self.names},
                               ServingChest(bots[0], setup.stations["serving_chest"]), restocker(setup, self.issue),
                               self.cap_s, self.calls, wall_clock=self.options.wall_clock)
        self.t = 0
        self.ended = False
        self.seen = self._begin()
        return self.seen, {**self._counts(), "step": 0, "task_id": self.task.id, "system": self.seen.prompt.system}

    def _begin(self) -> Seen:
        assert self.play is not None and self.dispatcher is not None
        self.started = self.play.begin(self.t)
        return Seen(self.dispatcher.prompt(self.started.state), self.started.state)

    def step(self, reply: str) -> tuple[Seen, int, bool, dict[str, Any]]:
        """Play one step with the dispatcher's `reply`: (what the dispatcher is shown next, the orders completed
        in the step, whether the episode has ended, the info)."""
        if self.ended or self.play is None or self.dispatcher is None or self.started is None or self.seen is None:
            raise RuntimeError("reset the environment before stepping it (the episode has ended or not begun)")
        book = self.play.book
        before = len(book.events)
        decision = self.dispatcher.answer(self.started.state, self.seen.prompt, str(reply))
        self.play.finish(self.started, decision)
        self.t += 1
        if self.t >= self.steps:
            self.ended = True
            if self.steps == self.stream.episode_steps:
                book.finish()  # the orders still open fail
            self.seen = self._final()
        else:
            self.seen = self._begin()
        events = book.events[before:]
        completed = sum(1 for e in events if e.kind == "completed")
        info = {**self._counts(), "step": self.t, "task_id": self.task.id, "reply": decision.reply,
                "commands": dict(decision.commands), "problems": list(decision.problems),
                "valid": not decision.problems, "events": [list(e) for e in events]}
        return self.seen, completed, self.ended, info

    def _final(self) -> Seen:
        """What the dispatcher would be shown after the last step (the episode is over: nothing is asked)."""
        assert self.dispatcher is not None and self.play is not None
        view = KitchenView(self.t, {n: self.agents[n].bot.inventory() for n in self.names}, self.cooks.running(),
                           tuple(OpenOrder(o.id, o.dish, o.deadline) for o in self.play.book.open))
        state = dispatch_state(view)
        return Seen(self.dispatcher.prompt(state), state)

    def _counts(self) -> dict[str, Any]:
        events = self.play.book.events if self.play is not None else []
        counts = tally(events)
        return {"completed": counts.completed, "failed": counts.failed, "score": completion_rate(events)}

    def close(self) -> None:
        """The cooks leave and the embedded server stops; a run directory the game made is removed."""
        if self.closed:
            return
        self.closed = True
        self.ended = True
        try:
            if self.calls is not None:
                self.calls.close()
            self.session.__exit__(None, None, None)
        finally:
            if self._own_dir:
                with contextlib.suppress(OSError):
                    shutil.rmtree(self.run_dir, ignore_errors=True)
