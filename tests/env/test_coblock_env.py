"""mindpy/coblock-v0 on the session's server: a CoBlock task through the environment its goal families share, with
a place command from the agent's private goal scored by the family's checker."""

from __future__ import annotations

import gymnasium

import mindpy.env
from conftest import unique_name
from mindpy.env.tasks import choose_task
from mindpy.tasks.families.coblock.fields import private_goals_of


def test_a_block_of_the_private_goal_placed_through_step_is_the_score_it_adds(server):
    assert "mindpy/coblock-v0" in mindpy.env.ENV_IDS and "mindpy/coblock-v0" in gymnasium.registry
    task = choose_task("coblock")
    env = gymnasium.make("mindpy/coblock-v0", server=server, names=[unique_name("cob") for _ in range(2)])
    try:
        observation, info = env.reset(seed=1)
        assert info["score"] == 0.0 and "Your task:" in observation["text"]
        x, y, z, block = private_goals_of(task)["0"][0]  # its first block, on the ground
        observation, reward, terminated, truncated, info = env.step(f'!placeBlock("{block}", {x}, {y}, {z})')
        assert info["valid"] is True, info
        total = sum(len(cells) for cells in private_goals_of(task).values())
        assert reward == info["score"] == 1 / total, info  # the checker: one correct block of the structure
        assert f"1/{total} blocks" in info["detail"] and not terminated and not truncated
        observation, reward, *_ = env.step(f'!placeBlock("{block}", {x}, {y}, {z})')  # the cell is taken
        assert reward == 0.0
    finally:
        env.close()
