"""The Gymnasium environment: one agent of a task (agent 0 by default), its action a reply in the command language.
The task's other agents, if it has several, stand by and do nothing (the PettingZoo environment, mindpy.env.parallel,
steps them all).

    env = gymnasium.make("mindpy/crafting-v0", task_file="tasks/crafting_test.json", task_id=None, step_ticks=10)
    observation, info = env.reset(seed=1)
    observation, reward, terminated, truncated, info = env.step('!craftRecipe("stick", 1)')
    env.close()
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium

from .game import TaskGame
from .spaces import action_space, observation_space
from .tasks import choose_task


class MindpyEnv(gymnasium.Env):
    """One agent of a task as a Gymnasium environment (see the module's docstring). Arguments: `family` (its
    committed test split is the default task file), `task_file`, `task_id` (default: the file's first task of the
    family), `agent` (which of the task's agents acts, by index), `server` ("embedded", or HOST:PORT of a running
    server), `step_ticks` (None: a step lasts until the action ended; else that many game ticks), `max_steps`
    (truncate after so many steps; the task's time limit always truncates), `run_dir` (the server's and bots'
    files; default: a temporary folder removed at close), `names` (the agents' names; default andy, jill...)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, family: str | None = None, task_file: str | Path | None = None, task_id: str | None = None,
                 *, agent: int = 0, server: Any = "embedded", step_ticks: int | None = None,
                 max_steps: int | None = None, run_dir: str | Path | None = None, names: list[str] | None = None,
                 render_mode: str | None = None):
        if render_mode is not None:
            raise ValueError(f"render_mode: mindpy's environments render nothing, got {render_mode!r}")
        task = choose_task(family, task_file, task_id)
        if not 0 <= agent < task.agent_count:
            raise ValueError(f"agent must be an index of the task's {task.agent_count} agents, got {agent}")
        self.game = TaskGame(task, server=server, run_dir=run_dir, step_ticks=step_ticks, max_steps=max_steps,
                             names=names)
        self.agent_name = self.game.names[agent]
        self.observation_space = observation_space(self.game.version)
        self.action_space = action_space()
        self.render_mode = None

    @property
    def task(self) -> Any:
        return self.game.task

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Set the task's world up; `seed` (or, without one, the environment's random generator) chooses its random
        parts. `options` are accepted and unused."""
        super().reset(seed=seed, options=options)
        world_seed = seed if seed is not None else int(self.np_random.integers(2**31 - 1))
        observations, infos = self.game.reset(world_seed)
        return observations[self.agent_name], infos[self.agent_name]

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Run `action` (a reply in the command language) and advance the game."""
        result = self.game.step({self.agent_name: action})
        name = self.agent_name
        return (result.observations[name], result.rewards[name], result.terminated[name], result.truncated[name],
                result.infos[name])

    def close(self) -> None:
        self.game.close()
        super().close()
