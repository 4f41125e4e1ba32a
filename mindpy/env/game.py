"""A task's world with its agents, stepped: what both of mindpy's environments (the Gymnasium one and the PettingZoo
one) run on. It reuses an episode's own pieces: EpisodeSession (settings, profiles, server, bots), AgentRunner
(the agents, in round mode: they act only when given something to do), set_up_task and the family's checker.

    game = TaskGame(task, step_ticks=None)          # nothing starts yet
    observations, infos = game.reset(seed=1)        # the server and the bots on the first reset; the world set up
    result = game.step({"andy": '!craftRecipe("stick", 1)'})
    result.observations, result.rewards, result.terminated, result.truncated, result.infos
    game.close()                                    # the bots leave, the embedded server stops

A step runs every agent's action text (mindpy.env.actions), then waits: with `step_ticks` for that many game ticks
(the actions still running go on into the next step), without it until every action has ended (or the task's time
is up). Then the family's checker scores the team: the reward is the score's change since the last step (their
sum over an episode is its final score); `terminated` when the checker says the task is complete, `truncated` when
the task's time limit (game time since the reset) or `max_steps` is reached.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent.turns import TurnReport
from ..tasks.checkers import checker_for
from ..tasks.schema import Task
from ..tasks.world import issue_via_server, set_up_task
from .actions import StepActions
from .clock import TICKS_PER_SECOND, GameClock
from .model import LearnerModel
from .observe import observe
from .tasks import refuse_unserved

log = logging.getLogger(__name__)

ENV_BLOCKED = ("restart",)  # would replace the agent's bot under the environment
STOP_WAIT_S = 10.0  # a reset: how long the running actions may take to stop
SETUP_TIMEOUT_S = 60.0
# every agent's profile: no model reads examples (no embedding model loads), old turns are dropped, not summarized
PROFILE_OPTIONS = {"embedding": "none", "summarize_history": False}


@dataclass
class StepResult:
    """A step's outcome, each by agent name."""

    observations: dict[str, dict[str, Any]]
    rewards: dict[str, float]
    terminated: dict[str, bool]
    truncated: dict[str, bool]
    infos: dict[str, dict[str, Any]]


class TaskGame:
    """A task's world with its agents, stepped (see the module's docstring)."""

    def __init__(self, task: Task, *, server: Any = "embedded", run_dir: str | Path | None = None,
                 step_ticks: int | None = None, max_steps: int | None = None, names: list[str] | None = None,
                 settings_overrides: dict[str, Any] | None = None):
        """`server`: "embedded" (one started on the first reset, stopped at close), HOST:PORT of a running server
        (its ticks cannot be read: the wall clock stands for them), or a running EmbeddedServer object (shared,
        left running; its ticks are read). `names`: the agents' names (default: andy, jill...)."""
        from ..harness.session import EpisodeSession

        refuse_unserved(task)
        if step_ticks is not None and (not isinstance(step_ticks, int) or step_ticks < 1):
            raise ValueError(f"step_ticks must be a whole number of at least 1, or None, got {step_ticks!r}")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a whole number of at least 1, or None, got {max_steps!r}")
        if names is not None and len(names) != task.agent_count:
            raise ValueError(f"names: the task has {task.agent_count} agents, got {len(names)} names")
        self.shared_server = None if isinstance(server, str) else server
        if self.shared_server is not None:
            server = f"{self.shared_server.host}:{self.shared_server.port}"
        self.task = task
        self.step_ticks = step_ticks
        self.max_steps = max_steps
        self._own_dir = run_dir is None
        self.run_dir = Path(tempfile.mkdtemp(prefix="mindpy-env-")) if run_dir is None else Path(run_dir)
        self.session = EpisodeSession(task, self.run_dir, server=server, profile_options=PROFILE_OPTIONS,
                                      settings_overrides=settings_overrides, names=names)
        self.family = self.session.family
        self.names = list(self.session.names)
        self.settings = self.session.load_settings(allow_insecure_coding=False, chat_bot_messages=True)
        self.version: str = self.settings.minecraft_version
        self.agents: dict[str, Any] = {}
        self.bots: list[Any] = []
        self.clock: GameClock | None = None
        self.running: StepActions | None = None
        self.checker: Any = None
        self.score = 0.0
        self.steps = 0
        self.start_tick = 0
        self.ended = True
        self.closed = False

    # ----- life cycle -----
    def _start(self) -> None:
        from ..agent.runner import AgentRunner
        from ..harness.episode import blocked_commands

        session = self.session
        host, port = session.open_server()
        runner = AgentRunner(self.settings, session.profiles, host, port,
                             models={name: LearnerModel() for name in self.names}, task=self.task,
                             blocked={n: [*blocked_commands(self.task, i), *ENV_BLOCKED]
                                      for i, n in enumerate(self.names)}, rounds=True)
        self.agents = session.start_runner(runner)
        self.bots = [self.agents[n].bot for n in self.names]
        self.clock = GameClock(session.embedded or self.shared_server)
        self.running = StepActions(self.agents)

    def reset(self, seed: int = 0) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
        """Set the task's world up (the server and the bots join on the first reset); each agent's observation and
        info. `seed` chooses the world's random parts (where the agents stand): the same seed, the same world."""
        from ..harness.episode import TASK_ORIGIN, inventory_text, task_goal_text

        if self.closed:
            raise RuntimeError("the environment is closed")
        if not self.agents:
            self._start()
        assert self.running is not None and self.clock is not None
        for agent in self.agents.values():  # what the last episode left running stops
            agent.actions.stop(wait=STOP_WAIT_S)
        if not self.running.wait_all(STOP_WAIT_S):
            log.warning("some actions of the last episode had not ended after %.0f s", STOP_WAIT_S)
        self.running.forget()
        issue = issue_via_server(self.shared_server) if self.shared_server is not None else \
            self.session.issue_for(self.bots)
        with self.session.setting_up("the world"):
            setup = set_up_task(self.task, self.bots, issue, origin=TASK_ORIGIN, seed=int(seed),
                                timeout=SETUP_TIMEOUT_S)
        for i, name in enumerate(self.names):
            agent = self.agents[name]
            if agent.conversations:
                agent.conversations.end_all()
            agent.history.clear()
            agent.take_held()
            agent.modes.take_behavior_log()
            agent.assign_task(task_goal_text(self.task, i, self.names),
                              inventory_text(setup.inventories.get(name, {})))
            self.family.configure_agent(self.task, agent)
            if self.task.extra.get("restrict_to_inventory"):
                agent.skills.runner.restrict_to_inventory(True)
            agent.history.clear()  # a family's configuration may have said something: the episode starts clean
        self.checker = checker_for(self.task)
        self.score = float(self.checker.check(self.bots).score)
        self.steps = 0
        self.start_tick = self.clock.now()
        self.ended = False
        observations = {name: self._observe(name, [], "") for name in self.names}
        infos = {name: {"score": self.score, "step": 0, "ticks": 0, "task_id": self.task.id}
                 for name in self.names}
        return observations, infos

    def step(self, actions: dict[str, str]) -> StepResult:
        """Run each agent's action text (agents left out do nothing new) and advance the game (see the module's
        docstring)."""
        if self.ended or self.running is None or self.clock is None:
            raise RuntimeError("reset the environment before stepping it (the episode has ended or not begun)")
        unknown = set(actions) - set(self.names)
        if unknown:
            raise KeyError(f"no agent named {', '.join(sorted(map(str, unknown)))} (the agents: "
                           f"{', '.join(self.names)})")
        begun = self.clock.now()
        for name, text in actions.items():
            self.running.start(name, text)
        out_of_time = self.start_tick + int(self.task.timeout * TICKS_PER_SECOND)
        until = out_of_time if self.step_ticks is None else min(begun + self.step_ticks, out_of_time)
        self.running.wait(until, self.clock, every_finished=self.step_ticks is None)
        self.steps += 1
        outcomes = {name: self.running.take(name) for name in self.names}
        check = self.checker.check(self.bots)
        reward = float(check.score) - self.score
        self.score = float(check.score)
        ticks = self.clock.now() - self.start_tick
        terminated = bool(check.done)
        truncated = not terminated and (ticks >= out_of_time - self.start_tick or
                                        (self.max_steps is not None and self.steps >= self.max_steps))
        self.ended = terminated or truncated
        observations = {}
        infos = {}
        for name in self.names:
            heard = self.agents[name].take_held()
            observations[name] = self._observe(name, heard, outcomes[name].output)
            infos[name] = {**outcomes[name].as_info(), "score": self.score, "step": self.steps, "ticks": ticks,
                           "task_id": self.task.id, "detail": check.detail}
        return StepResult(observations, dict.fromkeys(self.names, reward), dict.fromkeys(self.names, terminated),
                          dict.fromkeys(self.names, truncated), infos)

    def _observe(self, name: str, heard: list[tuple[str, str]], output: str) -> dict[str, Any]:
        return observe(self.agents[name], self.version, heard, output)

    def run_directly(self, name: str, text: str) -> TurnReport:
        """Run `text` as agent `name`'s reply on this thread, without a step (for measuring a step's cost)."""
        return self.agents[name].act_on_reply(text)

    def close(self) -> None:
        """The bots leave and the embedded server stops; a run directory the game made is removed."""
        if self.closed:
            return
        self.closed = True
        self.ended = True
        try:
            self.session.__exit__(None, None, None)
        finally:
            if self._own_dir:
                with contextlib.suppress(OSError):
                    shutil.rmtree(self.run_dir, ignore_errors=True)
