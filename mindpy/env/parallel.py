"""The PettingZoo environment: every agent of a task at once (a ParallelEnv), each acting with a reply in the
command language; the team shares its reward (the family's score is the team's).

    env = mindpy.env.parallel_env("mindpy/crafting-v0", step_ticks=10)
    observations, infos = env.reset(seed=1)
    observations, rewards, terminations, truncations, infos = env.step(
        {"andy": '!craftRecipe("stick", 1)', "jill": "I have the planks. !inventory"})
    env.close()

Once the episode ends (the task done, or its time or step limit reached), `agents` is empty until the next reset.
`max_cycles`, when set (PettingZoo's name for it), limits the steps of an episode as `max_steps` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pettingzoo import ParallelEnv

from .game import TaskGame
from .spaces import action_space, observation_space
from .tasks import choose_task


class MindpyParallelEnv(ParallelEnv):
    """Every agent of a task as a PettingZoo ParallelEnv (see the module's docstring); the arguments are
    MindpyEnv's, without `agent`."""

    metadata: dict[str, Any] = {"name": "mindpy", "render_modes": [], "is_parallelizable": True}

    def __init__(self, family: str | None = None, task_file: str | Path | None = None, task_id: str | None = None,
                 *, server: Any = "embedded", step_ticks: int | None = None, max_steps: int | None = None,
                 run_dir: str | Path | None = None, names: list[str] | None = None, render_mode: str | None = None):
        if render_mode is not None:
            raise ValueError(f"render_mode: mindpy's environments render nothing, got {render_mode!r}")
        task = choose_task(family, task_file, task_id)
        self.game = TaskGame(task, server=server, run_dir=run_dir, step_ticks=step_ticks, max_steps=max_steps,
                             names=names)
        self.possible_agents = list(self.game.names)
        self.agents: list[str] = []
        self.render_mode = None
        self.max_cycles: int | None = None
        observations = observation_space(self.game.version)  # one space object per agent, the same each call
        self._observation_spaces = {name: observations if i == 0 else observation_space(self.game.version)
                                    for i, name in enumerate(self.possible_agents)}
        self._action_spaces = {name: action_space() for name in self.possible_agents}

    @property
    def task(self) -> Any:
        return self.game.task

    def observation_space(self, agent: str) -> Any:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self._action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Set the task's world up (`seed`: its random parts; None: a fresh one); `options` are accepted and unused."""
        import random

        if seed is None:
            seed = random.randrange(2**31 - 1)
        for i, name in enumerate(self.possible_agents):
            self._action_spaces[name].seed(seed + i)
        observations, infos = self.game.reset(seed)
        self.agents = list(self.possible_agents)
        return observations, infos

    def step(self, actions: dict[str, str]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                      dict[str, bool], dict[str, dict[str, Any]]]:
        """Run each agent's action text (an agent left out does nothing new) and advance the game."""
        if not self.agents:
            raise RuntimeError("the episode has ended: reset the environment")
        game = self.game
        if self.max_cycles is not None:
            game.max_steps = self.max_cycles if game.max_steps is None else min(game.max_steps, self.max_cycles)
        result = game.step(actions)
        if any(result.terminated.values()) or any(result.truncated.values()):
            self.agents = []
        return result.observations, result.rewards, result.terminated, result.truncated, result.infos

    def render(self) -> None:
        return None

    def close(self) -> None:
        self.game.close()
