"""mindpy.env on a real server with real bots: PettingZoo's and Gymnasium's own API checks, a random agent, and a
scripted agent sending the oracle's crafting commands through `step` until the task is solved.

The environments share the session's server (its clock times the fixed-tick steps); each test's agents have names
of their own. One environment serves every check of a kind.
"""

from __future__ import annotations

import json
import random

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import parallel_api_test

import mindpy.env
from conftest import unique_name
from mindpy.env.gym_env import MindpyEnv
from mindpy.env.spaces import vocabulary
from mindpy.env.tasks import choose_task
from mindpy.errors import ConfigError
from mindpy.oracle.crafting import crafter_step


@pytest.fixture(scope="module")
def crafting_env(server):
    """The Gymnasium environment of mindpy/crafting-v0's default task (the first task of the committed test split,
    two agents), with short fixed-tick steps, on the server given by its address (as any running server: the world
    is set up through an agent, the wall clock stands for the game's)."""
    task = choose_task("crafting")
    env = gymnasium.make("mindpy/crafting-v0", server=f"{server.host}:{server.port}", step_ticks=1,
                         names=[unique_name("gym") for _ in range(task.agent_count)])
    yield env
    env.close()


def test_the_ids_are_registered_and_refuse_families_that_play_their_own_way():
    assert set(mindpy.env.ENV_IDS) == {"mindpy/crafting-v0", "mindpy/cooking-v0", "mindpy/construction-v0",
                                       "mindpy/coblock-v0", "mindpy/orders-v0", "mindpy/defuse-v0"}
    assert set(mindpy.env.GYM_IDS) == set(mindpy.env.ENV_IDS) - {"mindpy/defuse-v0"}  # a team: PettingZoo only
    assert all(env_id in gymnasium.registry for env_id in mindpy.env.GYM_IDS)
    for family in ("orders", "defuse"):
        with pytest.raises(ConfigError) as refused:
            choose_task(family)
        message = str(refused.value)
        assert "\n" not in message and f"cannot serve {family} tasks" in message


def test_pettingzoo_parallel_api(server):
    task = choose_task("crafting")
    env = mindpy.env.parallel_env("mindpy/crafting-v0", server=server, step_ticks=1,
                                  names=[unique_name("pz") for _ in range(task.agent_count)])
    try:
        parallel_api_test(env, num_cycles=3)
        assert len(env.possible_agents) == task.agent_count == 2
        observations, infos = env.reset(seed=3)
        first, second = env.possible_agents
        # the checks below read what the commands answered: this step lasts until both ended (a one-tick step may
        # end before a loaded machine answers !inventory, whose output then comes with a later step)
        env.game.step_ticks = None
        observations, rewards, terminated, truncated, infos = env.step(
            {first: f'!startConversation("{second}", "I have oak planks.")', second: "!inventory"})
        assert infos[first]["valid"] and infos[second]["valid"], infos
        assert "oak_planks" in infos[second]["output"]
        assert observations[first] in env.observation_space(first)
        assert rewards == {first: 0.0, second: 0.0} and not any(terminated.values())
    finally:
        env.close()


def test_gymnasium_check_env(crafting_env):
    check_env(crafting_env.unwrapped)
    observation, info = crafting_env.reset(seed=5)
    assert observation in crafting_env.observation_space
    assert "Your task:" in observation["text"] and "INVENTORY" in observation["text"]
    assert info["score"] == 0.0


def _random_action(rng: random.Random, commands, registry) -> str:
    words = ["oak_log", "stick", "andy", "crafting_table", "zzz", "dirt", "north"]
    roll = rng.random()
    if roll < 0.15:  # random text
        return "".join(rng.choice("abc !(),\"'xyz0123") for _ in range(rng.randint(0, 30)))
    name = rng.choice(commands)
    params = registry.get(name).params if registry.get(name) else ()
    count = len(params) if rng.random() < 0.6 else rng.randint(0, 3)
    args = [rng.choice([f'"{rng.choice(words)}"', str(rng.randint(-3, 12)), "true", rng.choice(words)])
            for _ in range(count)]
    said = rng.choice(["", "ok ", "let me try "])
    return f"{said}!{name}({', '.join(args)})" if args or rng.random() < 0.5 else f"{said}!{name}"


def test_a_random_agent_runs_200_steps(crafting_env):
    env = crafting_env.unwrapped
    observation, _ = env.reset(seed=7)
    agent = env.game.agents[env.agent_name]
    commands = agent.commands.available()
    rng = random.Random(11)
    valid = invalid = 0
    for step in range(200):
        action = _random_action(rng, commands, agent.commands.registry)
        observation, reward, terminated, truncated, info = env.step(action)
        assert observation in env.observation_space, (step, action)
        assert isinstance(reward, float) and isinstance(info["output"], str)
        valid += info["valid"] is True
        invalid += info["valid"] is False
        if terminated or truncated:
            env.reset(seed=step)
    assert valid > 20 and invalid > 20, (valid, invalid)


def _held(observation, version: str) -> dict[str, int]:
    """The inventory array of an observation, as item counts (the array's index is the item's id)."""
    names = vocabulary(version)[0]
    return {names[i]: int(n) for i, n in enumerate(observation["inventory"]) if n}


def test_the_oracles_commands_through_step_solve_a_crafting_task(tmp_path):
    # one agent with one oak log must hold 4 sticks: the scripted agent reads its inventory from each
    # observation's array and sends the command the oracle's crafting plan gives for it (planks, then sticks).
    # The env starts its own embedded server, which close() stops.
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps({"sticks": {
        "type": "techtree", "goal": "Craft 4 sticks.", "agent_count": 1, "initial_inventory": {"0": {"oak_log": 1}},
        "target": "stick", "number_of_target": 4, "timeout": 120}}))
    env = MindpyEnv(task_file=tasks, task_id="sticks", names=[unique_name("script")])
    try:
        observation, info = env.reset(seed=1)
        version = env.game.version
        assert "oak_log: 1" in observation["text"] and _held(observation, version) == {"oak_log": 1}
        refused = env.step('One moment. !craftRecipe("stik", 1)')  # a typo is answered, never raised
        assert refused[4]["valid"] is False and "stik" in refused[4]["output"] and refused[1] == 0.0
        assert refused[4]["output"] in refused[0]["text"]  # the usual error text, in the observation
        observation, sent, rewards, terminated = refused[0], [], [], False
        while not terminated and len(sent) < 6:
            move, lacking = crafter_step("stick", 4, _held(observation, version), [], version)
            assert move is not None and not lacking, (sent, _held(observation, version))
            sent.append(move.command)
            observation, reward, terminated, truncated, info = env.step(move.command)
            rewards.append(reward)
            assert info["valid"] is True and not truncated, info
        assert sent == ['!craftRecipe("oak_planks", 1)', '!craftRecipe("stick", 1)'] and rewards == [0.0, 1.0]
        assert info["score"] == 1.0 and info["finished"] and _held(observation, version)["stick"] >= 4
        server = env.game.session.embedded
        assert server is not None and server.is_running()
    finally:
        env.close()
    assert not server.is_running()
