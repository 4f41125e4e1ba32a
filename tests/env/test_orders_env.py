"""mindpy/orders-v0 on the session's server: Gymnasium's API check, PettingZoo's on its one-agent twin, a reply's
problems reported (never raised), and the scripted dispatcher's replies through `step` completing orders.

One environment serves the Gymnasium checks: the simplest level (golden apples), cut to 5 steps.
"""

from __future__ import annotations

import json

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test

import mindpy.env
from conftest import unique_name
from mindpy.dispatch import DispatcherOptions
from mindpy.dispatch.oracle import OracleDispatcher
from mindpy.tasks.families.orders.book import LEVELS
from mindpy.tasks.families.orders.generator import make_task

STEPS = 5


@pytest.fixture(scope="module")
def task_file(tmp_path_factory):
    """An orders task of the simplest level (orders every 2 steps at alpha 3, living 5), cut to STEPS steps."""
    raw = make_task(LEVELS["golden_apple"], 2, 3.0, seed=5)
    path = tmp_path_factory.mktemp("orders") / "tasks.json"
    path.write_text(json.dumps({"apples": {**raw, "episode_steps": STEPS, "timeout": STEPS * 10}}))
    return path


@pytest.fixture(scope="module")
def orders_env(task_file):
    """On an embedded server of its own: each reset summons the kitchen's animals anew and the ones before stay,
    so the many resets of the API checks would crowd the session's server (at most 200 entities) for the tests
    after these."""
    env = gymnasium.make("mindpy/orders-v0", task_file=task_file, names=[unique_name("cook") for _ in range(2)])
    yield env
    env.close()


def test_gymnasium_check_env_and_a_refused_reply(orders_env):
    assert "mindpy/orders-v0" in mindpy.env.ENV_IDS and "mindpy/orders-v0" in gymnasium.registry
    env = orders_env.unwrapped
    check_env(env)
    observation, info = env.reset(seed=2)
    assert observation in env.observation_space and observation["step"] == 0
    assert "## Current state" in observation["text"] and "golden_apple" in info["system"]
    observation, reward, terminated, truncated, info = env.step('bob: !craftRecipe("golden_apple", 1)')
    assert info["valid"] is False and "unknown agent 'bob'" in info["problems"][0] and info["commands"] == {}
    assert "unknown agent 'bob'" in observation["text"]  # the next prompt's feedback
    assert reward == 0.0 and not terminated and not truncated and observation["step"] == 1


def test_the_scripted_dispatchers_replies_through_step_complete_orders(orders_env):
    env = orders_env.unwrapped
    observation, info = env.reset(seed=1)
    oracle = OracleDispatcher(DispatcherOptions(), env.game.names, dishes=env.game.dishes)
    rewards, terminated, steps = [], False, 0
    while not terminated:
        reply = oracle.decide(info["state"]).reply
        observation, reward, terminated, truncated, info = env.step(reply)
        assert info["valid"] or not reply.strip(), info
        rewards.append(reward)
        steps += 1
    assert steps == STEPS and sum(rewards) == info["completed"] >= 1, (rewards, info)
    assert info["score"] > 0 and observation in env.observation_space


def test_pettingzoo_parallel_api_with_one_dispatcher(task_file):
    env = mindpy.env.parallel_env("mindpy/orders-v0", task_file=task_file, max_steps=2,  # its own server (above)
                                  names=[unique_name("pzcook") for _ in range(2)])
    try:
        parallel_api_test(env, num_cycles=3)
        assert env.possible_agents == ["dispatcher"]
    finally:
        env.close()
