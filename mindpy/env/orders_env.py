"""mindpy/orders-v0: the orders family's dispatcher as the learning agent (MindAgent's CuisineWorld). The cooks are
the family's own (they run what the dispatcher commands); the learner reads the dispatcher's prompt and answers as
a model dispatcher does.

    env = gymnasium.make("mindpy/orders-v0", max_steps=5)     # the first task of tasks/orders_test.json
    observation, info = env.reset(seed=1)                     # info["system"]: the prompt's fixed part
    observation, reward, terminated, truncated, info = env.step('andy: !craftRecipe("golden_apple", 1)')
    info["problems"], info["commands"]                        # what the reply parser refused and accepted
    env.close()

    team = mindpy.env.parallel_env("mindpy/orders-v0")       # PettingZoo: one agent, "dispatcher"

A step is one game step of the episode (OrdersGame). The reward is the number of orders completed in the step (an
episode's rewards add up to its completed orders; info["score"] is the completion rate, the family's score).
`terminated` comes with the episode's last step (the task's `episode_steps`, or `max_steps` when fewer); nothing
truncates.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium
from pettingzoo import ParallelEnv

from ..tasks.families.orders.play import DISPATCHER_KEY, OrdersOptions
from .orders_game import OrdersGame, Seen
from .orders_spaces import observation_space, observe, reply_space
from .tasks import choose_own_task


def _game(task_file: str | Path | None, task_id: str | None, kwargs: dict[str, Any]) -> OrdersGame:
    return OrdersGame(choose_own_task("orders", task_file, task_id), **kwargs)


class OrdersEnv(gymnasium.Env):
    """The dispatcher of an orders task as a Gymnasium environment (see the module's docstring). Arguments:
    `task_file`, `task_id` (default: the first task of tasks/orders_test.json), `server` ("embedded", HOST:PORT
    of a running server, or a running EmbeddedServer), `max_steps` (play only the first steps), `options` (the
    family's OrdersOptions), `names` (the cooks'), `run_dir` (default: a temporary folder removed at close)."""

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, task_file: str | Path | None = None, task_id: str | None = None, *,
                 server: Any = "embedded", max_steps: int | None = None, options: OrdersOptions | None = None,
                 names: list[str] | None = None, run_dir: str | Path | None = None, render_mode: str | None = None):
        if render_mode is not None:
            raise ValueError(f"render_mode: mindpy's environments render nothing, got {render_mode!r}")
        self.game = _game(task_file, task_id, {"server": server, "max_steps": max_steps, "options": options,
                                               "names": names, "run_dir": run_dir})
        self.observation_space = observation_space(self.game.version, len(self.game.names), len(self.game.dishes),
                                                   self.game.steps)
        self.action_space = reply_space()
        self.render_mode = None

    @property
    def task(self) -> Any:
        return self.game.task

    def _observe(self, seen: Seen) -> dict[str, Any]:
        return observe(seen.prompt.user, seen.state, self.game.dishes, self.game.version)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Set the kitchen up; `seed` (or, without one, the environment's random generator) chooses its random
        parts. `options` are accepted and unused. info["state"] is the DispatchState (for scripted dispatchers)."""
        super().reset(seed=seed, options=options)
        world_seed = seed if seed is not None else int(self.np_random.integers(2**31 - 1))
        seen, info = self.game.reset(world_seed)
        return self._observe(seen), {**info, "state": seen.state}

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Play one game step with the dispatcher's reply `action`."""
        seen, completed, ended, info = self.game.step(action)
        return self._observe(seen), float(completed), ended, False, {**info, "state": seen.state}

    def close(self) -> None:
        self.game.close()
        super().close()


class OrdersParallelEnv(ParallelEnv):
    """mindpy/orders-v0 in PettingZoo: one agent, "dispatcher" (OrdersEnv's arguments and steps)."""

    metadata: dict[str, Any] = {"name": "mindpy_orders", "render_modes": [], "is_parallelizable": True}

    def __init__(self, task_file: str | Path | None = None, task_id: str | None = None, **kwargs: Any):
        self.env = OrdersEnv(task_file, task_id, **kwargs)
        self.possible_agents = [DISPATCHER_KEY]
        self.agents: list[str] = []
        self.render_mode = None

    def observation_space(self, agent: str) -> Any:
        return self.env.observation_space

    def action_space(self, agent: str) -> Any:
        return self.env.action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        observation, info = self.env.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return {DISPATCHER_KEY: observation}, {DISPATCHER_KEY: info}

    def step(self, actions: dict[str, str]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                      dict[str, bool], dict[str, dict[str, Any]]]:
        """Play one game step with the dispatcher's reply (none given: an empty reply)."""
        if not self.agents:
            raise RuntimeError("the episode has ended: reset the environment")
        observation, reward, terminated, truncated, info = self.env.step(actions.get(DISPATCHER_KEY, ""))
        if terminated or truncated:
            self.agents = []
        key = DISPATCHER_KEY
        return {key: observation}, {key: reward}, {key: terminated}, {key: truncated}, {key: info}

    def render(self) -> None:
        return None

    def close(self) -> None:
        self.env.close()
