"""mindpy/defuse-v0: a defuse task's team (theory-of-mind bomb defusal, Li et al. 2023) as a PettingZoo
ParallelEnv; a step is one round (DefuseRounds: the family's round loop, without a world).

    env = mindpy.env.parallel_env("mindpy/defuse-v0")          # the first task of tasks/defuse_test.json
    observations, infos = env.reset()                          # infos[agent]["system"]: goal, rules, commands
    observations, rewards, terminations, truncations, infos = env.step(
        {"andy": "!goToRoom(2)", "jill": "!inspectBomb", "bob": '!applyTool("red") !broadcast("Bomb 1: red.")'})

- Action: an agent's reply, as a model's in an episode: one command (!goToRoom(N), !inspectBomb, !applyTool("c"),
  !wait), a !broadcast("...") beside it if it has news. A reply that is no command, or an action the game refuses,
  is a lost turn; its reason is the `feedback` in info and in the next observation. Never raised.
- Observation (`spaces.Dict`): `text` (the agent's prompt at the round's start: round, team score, its room and
  the bombs it sees, teammates' rooms, messages, the result of its last action, the commands it can use now),
  `round`, `points` (the team's) and `room`. Agents act in agent order within a round, as in the paper, so a
  later agent's action is judged after the earlier ones'.
- Reward: the change of the family's score (points / the task's maximum) in the round, the team's, given to each
  agent. terminated: every bomb resolved, or the deadlock end; truncated: the round limit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from ..tasks.families.defuse.settings import DefuseSettings
from .defuse_game import DefuseRounds
from .spaces import ACTION_LENGTH, CHARSET, TEXT_LENGTH, clip_text
from .tasks import choose_own_task


class DefuseParallelEnv(ParallelEnv):
    """A defuse task's team, one round a step (see the module's docstring). Arguments: `task_file`, `task_id`
    (default: the first task of tasks/defuse_test.json), `round_limit` (default: the task's), `settings` (the
    family's DefuseSettings: the paper's by default), `names` (the agents'; default andy, jill, bob...)."""

    metadata: dict[str, Any] = {"name": "mindpy_defuse", "render_modes": [], "is_parallelizable": True}

    def __init__(self, task_file: str | Path | None = None, task_id: str | None = None, *,
                 round_limit: int | None = None, settings: DefuseSettings | None = None,
                 names: list[str] | None = None, render_mode: str | None = None):
        if render_mode is not None:
            raise ValueError(f"render_mode: mindpy's environments render nothing, got {render_mode!r}")
        self.rounds = DefuseRounds(choose_own_task("defuse", task_file, task_id), round_limit=round_limit,
                                   settings=settings, names=names)
        self.possible_agents = list(self.rounds.names)
        self.agents: list[str] = []
        self.render_mode = None
        game = self.rounds.game
        self.max_points = game.layout.max_score()
        rooms = max(game.layout.room_ids)
        self._observation_spaces = {name: spaces.Dict({
            "text": spaces.Text(TEXT_LENGTH, min_length=0, charset=CHARSET),
            "round": spaces.Box(1, game.round_limit + 1, shape=(), dtype=np.int64),
            "points": spaces.Box(0, self.max_points, shape=(), dtype=np.int64),
            "room": spaces.Box(0, rooms, shape=(), dtype=np.int64),
        }) for name in self.possible_agents}
        self._action_spaces = {name: spaces.Text(ACTION_LENGTH, min_length=0, charset=CHARSET)
                               for name in self.possible_agents}

    @property
    def task(self) -> Any:
        return self.rounds.task

    def observation_space(self, agent: str) -> Any:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self._action_spaces[agent]

    def _observe(self, prompts: dict[str, str]) -> dict[str, dict[str, Any]]:
        game = self.rounds.game
        return {name: {"text": clip_text(prompts[name], TEXT_LENGTH),
                       "round": np.array(game.round_no, dtype=np.int64),
                       "points": np.array(game.score, dtype=np.int64),
                       "room": np.array(game.rooms[i], dtype=np.int64)} for i, name in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new game of the task (the game has no random parts: `seed` seeds the action spaces only; `options`
        are accepted and unused)."""
        if seed is not None:
            for i, name in enumerate(self.possible_agents):
                self._action_spaces[name].seed(seed + i)
        prompts, infos = self.rounds.reset()
        self.agents = list(self.possible_agents)
        game = self.rounds.game
        return self._observe(prompts), {name: {**info, "points": game.score, "score": 0.0, "round": game.round_no}
                                        for name, info in infos.items()}

    def step(self, actions: dict[str, str]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                      dict[str, bool], dict[str, dict[str, Any]]]:
        """Play one round with each agent's reply (an agent left out loses its turn)."""
        if not self.agents:
            raise RuntimeError("the episode has ended: reset the environment")
        game = self.rounds.game
        before = game.score
        turns = self.rounds.step(actions)
        reward = (game.score - before) / self.max_points
        truncated = self.rounds.out_of_rounds()
        terminated = game.done and not truncated
        infos = {}
        for name in self.possible_agents:
            turn = turns.get(name)
            infos[name] = {"command": turn.command if turn else None, "valid": bool(turn and turn.ok),
                           "feedback": turn.feedback if turn else "", "message": turn.message if turn else None,
                           "played": turn is not None, "points": game.score, "score": game.score / self.max_points,
                           "round": game.round_no, "end": game.stopped or ("success" if game.finished_round
                                                                           else None)}
        if game.done:
            self.agents = []
        names = self.possible_agents
        return (self._observe(self.rounds.prompts()), dict.fromkeys(names, reward), dict.fromkeys(names, terminated),
                dict.fromkeys(names, truncated), infos)

    def render(self) -> None:
        return None

    def close(self) -> None:
        return None
