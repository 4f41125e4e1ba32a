"""Environments for learning agents over every task family: a task played toward its goal (crafting, cooking,
construction, coblock) through Gymnasium's `Env` (one agent) and PettingZoo's `ParallelEnv` (every agent of the
task); orders' dispatcher (mindpy/orders-v0, both APIs) and defuse's team (mindpy/defuse-v0, PettingZoo), which
play their own way. Needs the `env` extra (`pip install -e '.[env]'`; `make setup` installs it).

    import gymnasium, mindpy.env
    env = gymnasium.make("mindpy/crafting-v0", step_ticks=10)       # the first task of tasks/crafting_test.json
    observation, info = env.reset(seed=1)                           # the embedded server starts; the world is set up
    observation, reward, terminated, truncated, info = env.step('!craftRecipe("oak_planks", 1)')
    print(observation["text"], info["output"], info["valid"])
    env.close()                                                     # the bots leave, the server stops

    team = mindpy.env.parallel_env("mindpy/crafting-v0", task_file="my_tasks.json", task_id="t1")

The parts: `spaces` (observation and action), `tasks` (which task, and which the environments serve), `game` (the
world, its agents and a step), `actions` (running each agent's text as its reply), `observe`, `clock`, `model`
(what stands for the learner where an agent expects a model), `gym_env`, `parallel` and `registration` (the ids);
orders: `orders_game` (the kitchen stepped by a reply), `orders_spaces`, `orders_env`; defuse: `defuse_game` (the
round loop stepped by the team's replies) and `defuse_env`.
"""

from __future__ import annotations

from .registration import ENV_IDS, GYM_IDS, parallel_env, register_envs

register_envs()

__all__ = ["ENV_IDS", "GYM_IDS", "parallel_env", "register_envs"]
